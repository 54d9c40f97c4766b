/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What the verbs report, as text or as one JSON document (-j/--json), in
 * iproute2's print_* style: each call carries a JSON key and a text format.
 *
 * Text mode: a call prints its format with its value at once (a NULL
 * format prints nothing), so the text is what a plain printf made.
 * JSON mode: a call adds key and value to the object or array open at the
 * time (a NULL key adds nothing; inside an array the key is ignored) and
 * prints nothing; bw_out_flush() prints the document, one line.
 *
 * A format takes exactly one conversion of the value's type: %s for
 * strings, %lld for bw_out_int, %llu for bw_out_u64 (with ' for grouping),
 * a double conversion for bw_out_double, %s ("true"/"false") for bw_out_bool.
 *
 * Errors and warnings are not output: they stay on stderr (pr_warn).
 */
#ifndef __BW_OUTPUT_H
#define __BW_OUTPUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* Starts the output of one run: text or JSON, to f (NULL: stdout). */
void bw_out_begin(bool json, FILE *f);
bool bw_out_is_json(void);

/* A NULL key opens the document's root (or an element of an array). */
void bw_out_open_object(const char *key);
void bw_out_close_object(void);
void bw_out_open_array(const char *key);
void bw_out_close_array(void);

/* Text only: nothing in JSON. */
void bw_out_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bw_out_vtext(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

/* Text: s escaped (bw_esc) into fmt. */
void bw_out_string(const char *key, const char *fmt, const char *s);
void bw_out_int(const char *key, const char *fmt, long long v);
void bw_out_u64(const char *key, const char *fmt, unsigned long long v);
/* JSON has no NaN or infinity: those are null. */
void bw_out_double(const char *key, const char *fmt, double v);
void bw_out_bool(const char *key, const char *fmt, bool v);
/* JSON null; text prints text as it is (NULL: nothing). */
void bw_out_null(const char *key, const char *text);

/*
 * Not an errno value: marks a usage error on its way to main(), which
 * exits 2 for it; bw_out_flush() names it "usage error".
 */
#define BW_EUSAGE 0x10000

/*
 * Ends the run's output. JSON: a document whose root is an object gets
 * "ok" (err == 0) and, on failure, "error" (what err means; the message
 * itself went to stderr); with nothing output yet the document is
 * {"ok":false,...} or {"ok":true}. The document is printed on one line and
 * freed. Text: nothing to do. Returns 0, or -EIO if stdout could not be
 * written.
 */
int bw_out_flush(int err);

/*
 * Streaming: a verb that prints as things happen (stats --interval, log,
 * watch) writes records, one JSON object a line, instead of the document.
 *
 * bw_out_stream_begin() makes the run's output its records: what the
 * document held is dropped and bw_out_flush() prints none (text: no
 * change). Records may also come before a document (without the call).
 *
 * bw_out_record_begin() opens a record, a JSON object apart from the
 * document, which the value and container calls above fill (the same
 * keys, the same number formats: integers as integers, doubles "%.6g")
 * until bw_out_record_end() prints it on one line and flushes. Text: the
 * calls print as they always do, and the end flushes what they printed.
 * Returns 0, or -EIO if the line could not be written.
 */
void bw_out_stream_begin(void);
void bw_out_record_begin(void);
int bw_out_record_end(void);

/*
 * A point in time, real_ns since 1970: JSON a number of seconds with
 * microseconds (1764625764.123456; "%.6g" would round it to 10 s), text
 * fmt with the seconds as a double.
 */
void bw_out_epoch(const char *key, const char *fmt, unsigned long long real_ns);

/*
 * Text from outside (a server, a file, a socket) printed as one line:
 * every byte outside printable ASCII escaped C-style (\t, \n, \r, \xHH),
 * and '\\' (and '"' when quote) too, so that a string can neither end a
 * line, forge one in a log, nor send a terminal an escape sequence.
 * bw_out_string and bw_out_kv do it to what they print; messages that
 * quote such text escape it with these first.
 *
 * bw_esc_mem: len bytes of s into out, at most max characters and a NUL
 * (max + 1 bytes), stopping before an escape that does not fit. Returns
 * the bytes of s taken.
 */
size_t bw_esc_mem(char *out, size_t max, const char *s, size_t len, bool quote);
/* Room for n bytes escaped whole, and the NUL. */
#define BW_ESC_BUF(n) (4 * (n) + 1)
/* s escaped into out (cap bytes, at least 4), cut with "..." if it must be. */
const char *bw_esc(char *out, size_t cap, const char *s);

/* The key column of a status row. */
#define BW_OUT_KEY_WIDTH 22

/*
 * A text line "    key    value" as status prints its rows (and the e2e
 * tests read them), key and value escaped (bw_esc); nothing in JSON.
 */
void bw_out_kv(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* __BW_OUTPUT_H */
