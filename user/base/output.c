// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The output layer (output.h): text printed as it comes, or one JSON
 * document built with json-c and printed by bw_out_flush().
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/log.h"
#include "base/output.h"

/* Deep enough for status: root, interface, filter, regions, region. */
#define MAX_DEPTH 16

static struct {
	bool json;
	FILE *f;
	struct json_object *root;
	/* Borrowed: the root owns what is open under it. */
	struct json_object *open[MAX_DEPTH];
	int depth;
	bool stream; /* bw_out_stream_begin(): records, no document */
} out;

static FILE *stream(void)
{
	return out.f ?: stdout;
}

void bw_out_begin(bool json, FILE *f)
{
	json_object_put(out.root);
	memset(&out, 0, sizeof(out));
	out.json = json;
	out.f = f;
}

bool bw_out_is_json(void)
{
	return out.json;
}

/* Whether a value call adds to the document: JSON, and a key or an array. */
static bool wanted(const char *key)
{
	return key || (out.depth && json_object_is_type(out.open[out.depth - 1],
							json_type_array));
}

/* Puts v where the next value goes; takes v's reference. */
static void add(const char *key, struct json_object *v)
{
	struct json_object *cur;

	if (!out.depth) {
		/* A value first: the root is an object. */
		if (!out.root)
			out.root = json_object_new_object();
		out.open[out.depth++] = out.root;
	}
	cur = out.open[out.depth - 1];
	if (json_object_is_type(cur, json_type_array))
		json_object_array_add(cur, v);
	else
		json_object_object_add(cur, key, v);
}

static void open_container(const char *key, struct json_object *c)
{
	if (out.depth == MAX_DEPTH) {
		/* A verb nested too deep: a bug, not an operator's problem. */
		pr_warn("bloomwall: internal error: JSON nested too deep\n");
		json_object_put(c);
		return;
	}
	if (!out.depth && !out.root && !key)
		out.root = c;
	else
		add(key, c);
	out.open[out.depth++] = c;
}

void bw_out_open_object(const char *key)
{
	if (out.json)
		open_container(key, json_object_new_object());
}

void bw_out_open_array(const char *key)
{
	if (out.json)
		open_container(key, json_object_new_array());
}

void bw_out_close_object(void)
{
	if (out.json && out.depth)
		out.depth--;
}

void bw_out_close_array(void)
{
	bw_out_close_object();
}

void bw_out_vtext(const char *fmt, va_list ap)
{
	if (!out.json)
		vfprintf(stream(), fmt, ap);
}

void bw_out_text(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bw_out_vtext(fmt, ap);
	va_end(ap);
}

/* ---- text from outside, escaped ------------------------------------------ */

static bool plain(unsigned char c, bool quote)
{
	return c >= 0x20 && c <= 0x7e && c != '\\' && !(quote && c == '"');
}

size_t bw_esc_mem(char *out, size_t max, const char *s, size_t len, bool quote)
{
	static const char hex[] = "0123456789abcdef";
	static const char named[] = {
		['\t'] = 't', ['\n'] = 'n', ['\r'] = 'r'
	};
	size_t i, o = 0, n;
	unsigned char c;
	char e[4];

	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		n = 0;
		if (plain(c, quote)) {
			e[n++] = (char)c;
		} else if (c == '\\' || c == '"') {
			e[n++] = '\\';
			e[n++] = (char)c;
		} else if (c < sizeof(named) && named[c]) {
			e[n++] = '\\';
			e[n++] = named[c];
		} else {
			e[n++] = '\\';
			e[n++] = 'x';
			e[n++] = hex[c >> 4];
			e[n++] = hex[c & 15];
		}
		if (o + n > max)
			break;
		memcpy(out + o, e, n);
		o += n;
	}
	out[o] = '\0';
	return i;
}

const char *bw_esc(char *out, size_t cap, const char *s)
{
	size_t len = strlen(s);

	if (bw_esc_mem(out, cap - 1, s, len, false) < len) {
		bw_esc_mem(out, cap - 4, s, len, false);
		strcat(out, "...");
	}
	return out;
}

/*
 * The formats come from the callers, one conversion each (output.h); the
 * value's type is fixed by the function, so they are not literals here.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* fmt with s escaped: on the stack when short, else on the heap. */
static void print_escaped(const char *fmt, const char *s)
{
	size_t len = strlen(s), i;
	char small[256], *buf = small;

	for (i = 0; i < len && plain((unsigned char)s[i], false); i++)
		;
	if (i == len) {
		fprintf(stream(), fmt, s);
		return;
	}
	if (BW_ESC_BUF(len) > sizeof(small))
		buf = malloc(BW_ESC_BUF(len));
	if (buf)
		bw_esc_mem(buf, BW_ESC_BUF(len) - 1, s, len, false);
	else
		buf = (char *)bw_esc(small, sizeof(small), s);
	fprintf(stream(), fmt, buf);
	if (buf != small)
		free(buf);
}

void bw_out_string(const char *key, const char *fmt, const char *s)
{
	if (!out.json) {
		if (fmt)
			print_escaped(fmt, s);
	} else if (wanted(key)) {
		add(key, json_object_new_string(s));
	}
}

void bw_out_int(const char *key, const char *fmt, long long v)
{
	if (!out.json) {
		if (fmt)
			fprintf(stream(), fmt, v);
	} else if (wanted(key)) {
		add(key, json_object_new_int64(v));
	}
}

void bw_out_u64(const char *key, const char *fmt, unsigned long long v)
{
	if (!out.json) {
		if (fmt)
			fprintf(stream(), fmt, v);
	} else if (wanted(key)) {
		add(key, json_object_new_uint64(v));
	}
}

void bw_out_double(const char *key, const char *fmt, double v)
{
	if (!out.json) {
		if (fmt)
			fprintf(stream(), fmt, v);
	} else if (wanted(key)) {
		add(key, isfinite(v) ? json_object_new_double(v) : NULL);
	}
}

void bw_out_bool(const char *key, const char *fmt, bool v)
{
	if (!out.json) {
		if (fmt)
			fprintf(stream(), fmt, v ? "true" : "false");
	} else if (wanted(key)) {
		add(key, json_object_new_boolean(v));
	}
}

#pragma GCC diagnostic pop

void bw_out_null(const char *key, const char *text)
{
	if (!out.json) {
		if (text)
			fputs(text, stream());
	} else if (wanted(key)) {
		add(key, NULL);
	}
}

static const char *error_name(int err)
{
	return err == -BW_EUSAGE ? "usage error" : bw_errno_hint(err);
}

/* The document, in the C locale: JSON's decimal point is a point. */
static int print_doc(void)
{
	char *saved = strdup(setlocale(LC_NUMERIC, NULL) ?: "C");
	const char *s;
	int err = 0;

	setlocale(LC_NUMERIC, "C");
	json_c_set_serialization_double_format("%.6g", JSON_C_OPTION_GLOBAL);
	s = json_object_to_json_string_ext(
		out.root,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s || fprintf(stream(), "%s\n", s) < 0 || fflush(stream()))
		err = -EIO;
	if (saved)
		setlocale(LC_NUMERIC, saved);
	free(saved);
	return err;
}

int bw_out_flush(int err)
{
	int ret;

	if (!out.json || out.stream) {
		fflush(stream());
		return 0;
	}
	out.depth = 0;
	if (!out.root)
		out.root = json_object_new_object();
	if (json_object_is_type(out.root, json_type_object)) {
		json_object_object_add(out.root, "ok",
				       json_object_new_boolean(!err));
		if (err)
			json_object_object_add(
				out.root, "error",
				json_object_new_string(error_name(err)));
	}
	ret = print_doc();
	json_object_put(out.root);
	out.root = NULL;
	return ret;
}

void bw_out_kv(const char *key, const char *fmt, ...)
{
	char k[BW_ESC_BUF(64)];
	char *v = NULL;
	va_list ap;
	int n;

	if (out.json)
		return;
	va_start(ap, fmt);
	n = vasprintf(&v, fmt, ap);
	va_end(ap);
	bw_out_text("    %-*s ", BW_OUT_KEY_WIDTH, bw_esc(k, sizeof(k), key));
	if (n >= 0)
		print_escaped("%s", v);
	bw_out_text("\n");
	free(v);
}

/* The document, set aside while a record is open. */
static struct {
	bool open;
	struct json_object *root;
	struct json_object *open_at[MAX_DEPTH];
	int depth;
} doc;

void bw_out_stream_begin(void)
{
	if (!out.json)
		return;
	json_object_put(out.root);
	out.root = NULL;
	out.depth = 0;
	out.stream = true;
}

void bw_out_record_begin(void)
{
	if (!out.json || doc.open)
		return;
	doc.open = true;
	doc.root = out.root;
	memcpy(doc.open_at, out.open, sizeof(doc.open_at));
	doc.depth = out.depth;
	out.root = NULL;
	out.depth = 0;
	bw_out_open_object(NULL);
}

int bw_out_record_end(void)
{
	int err;

	if (!out.json)
		return fflush(stream()) ? -EIO : 0;
	if (!doc.open)
		return 0;
	err = print_doc();
	json_object_put(out.root);
	out.root = doc.root;
	memcpy(out.open, doc.open_at, sizeof(out.open));
	out.depth = doc.depth;
	doc.open = false;
	return err;
}

void bw_out_epoch(const char *key, const char *fmt, unsigned long long real_ns)
{
	char s[32];

	if (!out.json) {
		bw_out_double(NULL, fmt, real_ns / 1e9);
		return;
	}
	if (!wanted(key))
		return;
	/* Digits of its own: the C locale's point whatever LC_NUMERIC says. */
	snprintf(s, sizeof(s), "%llu.%06llu", real_ns / 1000000000ULL,
		 real_ns % 1000000000ULL / 1000);
	add(key, json_object_new_double_s(real_ns / 1e9, s));
}
