// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The decision stream's scanner (cs_stream.h): the outer object byte by
 * byte, each element (or unknown value) collected whole, then json-c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "net/cs_fields.h"
#include "net/cs_stream.h"

enum state {
	S_START,     /* before the outer '{' */
	S_FIRST_KEY, /* after it: a key or '}' */
	S_KEY_START, /* after ',': a key */
	S_KEY,	     /* in a key's string */
	S_COLON,
	S_VALUE,     /* a key's value starts */
	S_NULL,	     /* in the literal null of new or deleted */
	S_ARR_FIRST, /* after '[': an element or ']' */
	S_ARR_NEXT,  /* after an element: ',' or ']' */
	S_ARR_ELEM,  /* after ',': an element */
	S_COLLECT,   /* in an element or an unknown value */
	S_AFTER,     /* after a value: ',' or '}' */
	S_DONE,	     /* after the outer '}': blanks only */
};

/* What is being collected. */
enum what { W_ELEM, W_SKIP };

struct bw_cs_stream {
	bw_cs_decision_fn fn;
	void *ctx;
	enum state st;
	int err;
	char error[160];
	__u64 offset; /* of the byte being scanned */
	__u64 count;
	/* The key being read (only new and deleted matter: 16 is room). */
	char key[16];
	size_t keylen;
	bool key_long, key_esc;
	enum bw_cs_list list; /* of the array being read */
	int null_at;	      /* bytes of "null" matched */
	/* The value being collected. */
	enum what what;
	char *buf;
	size_t len;
	int depth;
	bool in_str, esc, scalar;
	struct json_tokener *tok;
};

struct bw_cs_stream *bw_cs_stream_new(bw_cs_decision_fn fn, void *ctx)
{
	struct bw_cs_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->fn = fn;
	s->ctx = ctx;
	s->buf = malloc(BW_CS_ELEM_MAX + 1);
	s->tok = json_tokener_new_ex(32);
	if (!s->buf || !s->tok) {
		bw_cs_stream_free(s);
		return NULL;
	}
	json_tokener_set_flags(s->tok, JSON_TOKENER_STRICT);
	return s;
}

void bw_cs_stream_free(struct bw_cs_stream *s)
{
	if (!s)
		return;
	if (s->tok)
		json_tokener_free(s->tok);
	free(s->buf);
	free(s);
}

const char *bw_cs_stream_error(const struct bw_cs_stream *s)
{
	return s->error;
}

__u64 bw_cs_stream_count(const struct bw_cs_stream *s)
{
	return s->count;
}

static int fail(struct bw_cs_stream *s, const char *why)
{
	snprintf(s->error, sizeof(s->error), "%s at byte %llu", why,
		 (unsigned long long)s->offset);
	s->err = -EBADMSG;
	return s->err;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool scalar_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '-' || c == '+' || c == '.';
}

/* ---- a collected value --------------------------------------------------- */

static void begin(struct bw_cs_stream *s, enum what what, char c)
{
	s->what = what;
	s->len = 0;
	s->depth = 0;
	s->in_str = false;
	s->esc = false;
	s->scalar = c != '{' && c != '[' && c != '"';
	s->st = S_COLLECT;
}

/* The collected bytes as one JSON value, or NULL (s->error set). */
static struct json_object *parse_collected(struct bw_cs_stream *s)
{
	struct json_object *obj;
	size_t end;

	/* A blank ends a number: the tokener needs to see one. */
	s->buf[s->len] = ' ';
	json_tokener_reset(s->tok);
	obj = json_tokener_parse_ex(s->tok, s->buf, (int)s->len + 1);
	end = json_tokener_get_parse_end(s->tok);
	if (!obj || end < s->len) {
		json_object_put(obj);
		fail(s, "not JSON");
		return NULL;
	}
	return obj;
}

static int element(struct bw_cs_stream *s, struct json_object *obj)
{
	struct bw_cs_decision d = { .list = s->list };
	int err;

	bw_cs_decision_read(obj, &d);
	s->count++;
	err = s->fn(s->ctx, &d);
	if (err)
		s->err = err;
	return err;
}

/* The value collected: handed on (an element) or dropped (unknown key). */
static int collected(struct bw_cs_stream *s)
{
	struct json_object *obj = parse_collected(s);
	int err = 0;

	if (!obj)
		return s->err;
	if (s->what == W_ELEM)
		err = element(s, obj);
	json_object_put(obj);
	s->st = s->what == W_ELEM ? S_ARR_NEXT : S_AFTER;
	return err;
}

/*
 * One byte of a value being collected. *again: the byte ends a scalar and
 * is not part of it (scanned again in the next state).
 */
static int collect(struct bw_cs_stream *s, char c, bool *again)
{
	if (s->scalar && !scalar_char(c)) {
		*again = true;
		return collected(s);
	}
	if (s->len >= BW_CS_ELEM_MAX)
		return fail(s, "a decision longer than 64 KiB");
	s->buf[s->len++] = c;
	if (s->scalar)
		return 0;
	if (s->in_str) {
		if ((unsigned char)c < 0x20)
			return fail(s, "a control character in a string");
		if (s->esc)
			s->esc = false;
		else if (c == '\\')
			s->esc = true;
		else if (c == '"')
			s->in_str = false;
		/* A string value alone ends with its quote. */
		return !s->in_str && !s->depth ? collected(s) : 0;
	}
	if (c == '"')
		s->in_str = true;
	else if (c == '{' || c == '[')
		s->depth++;
	else if (c == '}' || c == ']')
		if (--s->depth == 0)
			return collected(s);
	return 0;
}

/* ---- the outer object ---------------------------------------------------- */

static int key_byte(struct bw_cs_stream *s, char c)
{
	if (s->key_esc) {
		s->key_esc = false;
		s->key_long = true; /* an escaped key: none we know */
		return 0;
	}
	if (c == '\\') {
		s->key_esc = true;
		return 0;
	}
	if ((unsigned char)c < 0x20)
		return fail(s, "a control character in a key");
	if (c == '"') {
		s->key[s->keylen] = '\0';
		s->st = S_COLON;
		return 0;
	}
	if (s->keylen + 1 >= sizeof(s->key))
		s->key_long = true;
	else
		s->key[s->keylen++] = c;
	return 0;
}

static void start_key(struct bw_cs_stream *s)
{
	s->keylen = 0;
	s->key_long = false;
	s->key_esc = false;
	s->st = S_KEY;
}

/* A value after "key": an array or null for new and deleted. */
static int value(struct bw_cs_stream *s, char c)
{
	bool known = !s->key_long &&
		     (!strcmp(s->key, "new") || !strcmp(s->key, "deleted"));

	bool unused;

	if (!known) {
		begin(s, W_SKIP, c);
		if (s->scalar && !scalar_char(c))
			return fail(s, "not JSON");
		return collect(s, c, &unused);
	}
	s->list = strcmp(s->key, "new") ? BW_CS_DELETED : BW_CS_NEW;
	if (c == '[') {
		s->st = S_ARR_FIRST;
		return 0;
	}
	if (c == 'n') {
		s->null_at = 1;
		s->st = S_NULL;
		return 0;
	}
	return fail(s, "\"new\" or \"deleted\" not an array nor null");
}

static int null_byte(struct bw_cs_stream *s, char c)
{
	if (c != "null"[s->null_at])
		return fail(s, "not JSON");
	if (++s->null_at == 4)
		s->st = S_AFTER;
	return 0;
}

static int array_elem(struct bw_cs_stream *s, char c)
{
	bool unused;

	if (c != '{')
		return fail(s, "a decision not an object");
	begin(s, W_ELEM, c);
	return collect(s, c, &unused);
}

/* One byte; *again when it must be scanned again in the new state. */
static int scan(struct bw_cs_stream *s, char c, bool *again)
{
	if (s->st == S_COLLECT)
		return collect(s, c, again);
	if (s->st == S_KEY)
		return key_byte(s, c);
	if (s->st == S_NULL)
		return null_byte(s, c);
	if (blank(c))
		return 0;
	switch (s->st) {
	case S_START:
		if (c != '{')
			return fail(s, "not a JSON object");
		s->st = S_FIRST_KEY;
		return 0;
	case S_FIRST_KEY:
	case S_KEY_START:
		if (c == '}' && s->st == S_FIRST_KEY) {
			s->st = S_DONE;
			return 0;
		}
		if (c != '"')
			return fail(s, "a key expected");
		start_key(s);
		return 0;
	case S_COLON:
		if (c != ':')
			return fail(s, "':' expected");
		s->st = S_VALUE;
		return 0;
	case S_VALUE:
		return value(s, c);
	case S_ARR_FIRST:
		if (c == ']') {
			s->st = S_AFTER;
			return 0;
		}
		return array_elem(s, c);
	case S_ARR_ELEM:
		return array_elem(s, c);
	case S_ARR_NEXT:
		if (c == ',' || c == ']')
			s->st = c == ',' ? S_ARR_ELEM : S_AFTER;
		else
			return fail(s, "',' or ']' expected");
		return 0;
	case S_AFTER:
		if (c == ',' || c == '}')
			s->st = c == ',' ? S_KEY_START : S_DONE;
		else
			return fail(s, "',' or '}' expected");
		return 0;
	default:
		return fail(s, "bytes after the answer");
	}
}

int bw_cs_stream_feed(struct bw_cs_stream *s, const void *buf, size_t len)
{
	const char *p = buf;
	bool again;
	size_t i;
	int err;

	if (s->err)
		return s->err;
	for (i = 0; i < len; i++, s->offset++) {
		again = false;
		err = scan(s, p[i], &again);
		if (!err && again)
			err = scan(s, p[i], &again);
		if (err)
			return err;
	}
	return 0;
}

int bw_cs_stream_end(struct bw_cs_stream *s)
{
	bool again = false;

	if (s->err)
		return s->err;
	/* A scalar value at the very end (only inside an object: cut). */
	if (s->st == S_COLLECT && s->scalar)
		scan(s, ' ', &again);
	if (s->st != S_DONE)
		return s->err ? s->err : fail(s, "the answer ends early");
	return 0;
}
