// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The output layer: the same calls as text and as JSON, the JSON read back
 * with json-c's parser and checked value by value.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/output.h"
#include "test_helpers.h"

struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static void capture_begin(struct capture *c, bool json)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	bw_out_begin(json, c->f);
}

/* Flushes with err; returns what was written, to free(). */
static char *capture_end(struct capture *c, int err)
{
	bw_out_flush(err);
	fclose(c->f);
	bw_out_begin(false, NULL);
	return c->buf;
}

/* A report shaped like add's: a list of entries, then a summary. */
static void report(void)
{
	static const char *const addrs[] = { "10.0.0.1", "2001:db8::/32" };
	int i;

	bw_out_string("iface", NULL, "eth0");
	bw_out_open_array("addresses");
	for (i = 0; i < 2; i++) {
		bw_out_open_object(NULL);
		bw_out_string("address", "%s  ", addrs[i]);
		bw_out_bool("new", NULL, i == 0);
		bw_out_text("%s\n", i ? "already" : "added");
		bw_out_close_object();
	}
	bw_out_close_array();
	bw_out_text("eth0: ");
	bw_out_int("added", "%lld of ", 1);
	bw_out_u64("total", "%llu, ", 2);
	bw_out_double("fpr", "fpr %g%%", 0.001);
	bw_out_null("allowlist", " (no allowlist)");
	bw_out_u64("big", NULL, 18446744073709551615ULL);
	bw_out_double("nan", NULL, NAN);
	bw_out_text("\n");
}

BW_TEST(test_output_text)
{
	struct capture c;
	char *s;

	capture_begin(&c, false);
	ASSERT_FALSE(bw_out_is_json(), "text mode");
	report();
	s = capture_end(&c, 0);
	ASSERT_STREQ(s,
		     "10.0.0.1  added\n2001:db8::/32  already\n"
		     "eth0: 1 of 2, fpr 0.001% (no allowlist)\n",
		     "the text, as printf would make it");
	free(s);
}

/* The member key of o as a json-c object, or NULL. */
static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static void check_report(struct json_object *d)
{
	struct json_object *a, *e;

	ASSERT_STREQ(json_object_get_string(get(d, "iface")), "eth0", "iface");
	a = get(d, "addresses");
	if (!ASSERT_TRUE(json_object_is_type(a, json_type_array), "array"))
		return;
	ASSERT_EQ(json_object_array_length(a), 2, "array length");
	e = json_object_array_get_idx(a, 1);
	ASSERT_STREQ(json_object_get_string(get(e, "address")), "2001:db8::/32",
		     "second address");
	ASSERT_TRUE(json_object_is_type(get(e, "new"), json_type_boolean),
		    "a bool");
	ASSERT_FALSE(json_object_get_boolean(get(e, "new")), "its value");
	ASSERT_EQ(json_object_get_int64(get(d, "added")), 1, "int");
	ASSERT_EQ_U64(json_object_get_uint64(get(d, "big")),
		      18446744073709551615ULL, "u64 beyond int64");
	ASSERT_LE(fabs(json_object_get_double(get(d, "fpr")) - 0.001), 1e-12,
		  "double");
	ASSERT_TRUE(json_object_object_get_ex(d, "allowlist", NULL) &&
			    !get(d, "allowlist"),
		    "null");
	ASSERT_TRUE(json_object_object_get_ex(d, "nan", NULL) && !get(d, "nan"),
		    "NaN is null");
}

BW_TEST(test_output_json)
{
	struct json_object *d, *ok;
	struct capture c;
	char *s;

	capture_begin(&c, true);
	ASSERT_TRUE(bw_out_is_json(), "JSON mode");
	report();
	ASSERT_EQ(c.len, 0, "nothing printed before the flush");
	s = capture_end(&c, 0);
	ASSERT_TRUE(s && strlen(s) && s[strlen(s) - 1] == '\n' &&
			    !strchr(s, '\n')[1],
		    "one line");
	d = json_tokener_parse(s);
	if (ASSERT_TRUE(json_object_is_type(d, json_type_object), s)) {
		check_report(d);
		ok = get(d, "ok");
		ASSERT_TRUE(ok && json_object_get_boolean(ok), "ok: true");
		ASSERT_FALSE(json_object_object_get_ex(d, "error", NULL),
			     "no error");
	}
	json_object_put(d);
	free(s);
}

/* A failure still makes one document: {"ok": false, "error": ...}. */
BW_TEST(test_output_json_failure)
{
	struct json_object *d;
	struct capture c;
	char *s;

	capture_begin(&c, true);
	s = capture_end(&c, -BW_EUSAGE);
	d = json_tokener_parse(s);
	ASSERT_FALSE(json_object_get_boolean(get(d, "ok")), "ok: false");
	ASSERT_STREQ(json_object_get_string(get(d, "error")), "usage error",
		     "error");
	json_object_put(d);
	free(s);

	capture_begin(&c, true);
	bw_out_string("iface", NULL, "eth0");
	s = capture_end(&c, -ENOENT);
	d = json_tokener_parse(s);
	ASSERT_STREQ(json_object_get_string(get(d, "iface")), "eth0",
		     "what was output before the failure");
	ASSERT_FALSE(json_object_get_boolean(get(d, "ok")), "ok: false");
	ASSERT_TRUE(json_object_is_type(get(d, "error"), json_type_string),
		    "error");
	json_object_put(d);
	free(s);
}

/* status's root: an array of objects, with no "ok" to add. */
BW_TEST(test_output_json_array_root)
{
	struct json_object *d;
	struct capture c;
	char *s;

	capture_begin(&c, true);
	bw_out_open_array(NULL);
	s = capture_end(&c, -ENOENT);
	ASSERT_STREQ(s, "[]\n", "a failure before any element");
	free(s);

	capture_begin(&c, true);
	bw_out_open_array(NULL);
	bw_out_open_object(NULL);
	bw_out_string("iface", "%s", "a\"b\\c/d");
	bw_out_close_object();
	bw_out_open_object(NULL);
	/* In an array no key is needed: a value goes in as an element. */
	bw_out_open_array("lengths");
	bw_out_u64(NULL, " /%llu", 32);
	bw_out_u64(NULL, " /%llu", 24);
	bw_out_close_array();
	bw_out_close_object();
	s = capture_end(&c, 0);
	d = json_tokener_parse(s);
	if (ASSERT_TRUE(json_object_is_type(d, json_type_array), s)) {
		ASSERT_EQ(json_object_array_length(d), 2, "two elements");
		ASSERT_STREQ(json_object_get_string(get(
				     json_object_array_get_idx(d, 0), "iface")),
			     "a\"b\\c/d", "quotes and backslashes escaped");
		ASSERT_STREQ(
			json_object_to_json_string_ext(
				get(json_object_array_get_idx(d, 1), "lengths"),
				JSON_C_TO_STRING_PLAIN),
			"[32,24]", "elements without keys");
	}
	ASSERT_TRUE(!strstr(s, "\\/"), "a slash stays a slash");
	json_object_put(d);
	free(s);
}

/*
 * Text from outside: a scenario holding a newline and an ESC sequence
 * prints as one line with neither; the same string goes into JSON whole
 * (json-c escapes it there) and reads back byte for byte.
 */
static const char hostile[] =
	"ssh-bf\n2026 forged line\x1b[31m\\x\t\x7f\xc3\xa9";
static const char hostile_esc[] =
	"ssh-bf\\n2026 forged line\\x1b[31m\\\\x\\t\\x7f\\xc3\\xa9";

BW_TEST(test_output_escape)
{
	char out[BW_ESC_BUF(sizeof(hostile))], small[12];
	size_t len = sizeof(hostile) - 1;

	ASSERT_EQ(bw_esc_mem(out, sizeof(out) - 1, hostile, len, false), len,
		  "all taken");
	ASSERT_STREQ(out, hostile_esc, "escaped C-style");
	ASSERT_STREQ(bw_esc(out, sizeof(out), "plain text, 'quoted'"),
		     "plain text, 'quoted'", "printable ASCII as it is");
	bw_esc_mem(out, sizeof(out) - 1, "say \"hi\"", 8, true);
	ASSERT_STREQ(out, "say \\\"hi\\\"", "quote: '\"' escaped too");
	/* Cut before an escape that does not fit, never inside one. */
	ASSERT_EQ(bw_esc_mem(out, 4, "ab\ncd", 5, false), 3, "up to \\n");
	ASSERT_STREQ(out, "ab\\n", "whole escapes only");
	ASSERT_EQ(bw_esc_mem(out, 3, "ab\ncd", 5, false), 2, "no half escape");
	ASSERT_STREQ(out, "ab", "no half escape written");
	ASSERT_STREQ(bw_esc(small, sizeof(small), hostile), "ssh-bf\\n...",
		     "cut with ...");
	ASSERT_STREQ(bw_esc(small, sizeof(small), "0123456789a"), "0123456789a",
		     "a string that fits exactly is not cut");
}

BW_TEST(test_output_escape_printers)
{
	struct json_object *d;
	struct capture c;
	char *s, *want;

	capture_begin(&c, false);
	bw_out_string("scenario", "scenario '%s'\n", hostile);
	bw_out_kv(hostile, "%s (%d)", hostile, 1);
	s = capture_end(&c, 0);
	if (asprintf(&want, "scenario '%s'\n    %-*s %s (1)\n", hostile_esc,
		     BW_OUT_KEY_WIDTH, hostile_esc, hostile_esc) < 0)
		want = NULL;
	ASSERT_STREQ(s, want, "bw_out_string and bw_out_kv escape");
	ASSERT_TRUE(!strchr(s, '\x1b'), "no ESC printed");
	free(want);
	free(s);

	capture_begin(&c, true);
	bw_out_string("scenario", "scenario '%s'\n", hostile);
	s = capture_end(&c, 0);
	ASSERT_TRUE(!strchr(s, '\x1b') && strchr(s, '\n') == s + strlen(s) - 1,
		    "JSON: one line, no raw ESC");
	d = json_tokener_parse(s);
	ASSERT_STREQ(json_object_get_string(get(d, "scenario")), hostile,
		     "JSON: the string whole");
	json_object_put(d);
	free(s);
}
