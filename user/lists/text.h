/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Text for messages about list lines and arguments (a bad line may hold
 * any bytes: they are quoted and escaped before they reach a terminal).
 */
#ifndef __BW_TEXT_H
#define __BW_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* The blanks that separate the words of a line. */
static inline bool bw_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
	       c == '\f';
}

/*
 * Quotes len bytes of s for a message, cut with "..." and every byte
 * outside printable ASCII escaped; out has room for BW_QUOTE_BUF bytes.
 */
#define BW_QUOTE_MAX 64
#define BW_QUOTE_BUF (BW_QUOTE_MAX + sizeof("..."))
const char *bw_quote(char *out, size_t outlen, const char *s, size_t len);

/*
 * The next word of s[*pos..len): blanks skipped, then a run of non-blanks,
 * or a "quoted string" (its quotes included; an unclosed one runs to the
 * end). Its start in *w, its length returned (0: no word left); *pos moves
 * past it.
 */
size_t bw_word(const char *s, size_t len, size_t *pos, const char **w);

/* Whether the word w[0..n) is kw, ASCII case ignored. */
bool bw_word_is(const char *w, size_t n, const char *kw);

/* Writes "what: "s"" into err (s quoted); returns -EINVAL. */
int bw_list_fail(char *err, size_t errlen, const char *what, const char *s,
		 size_t len);

#endif /* __BW_TEXT_H */
