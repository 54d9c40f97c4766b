// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch socket's protocol envelope (user/base/run_ask.c): what the
 * watch makes of a question (bw_ask_reply), malformed, of another
 * version, of an unknown op, and what a client makes of a reply
 * (bw_ask_check).
 */
#include <errno.h>
#include <string.h>

#include "base/json.h"
#include "base/run_ask.h"
#include "test_helpers.h"

/* The reply to q: its "code" ("" when ok), the op read into *op. */
static const char *code_of(const char *q, size_t len, enum bw_ask_op *op,
			   char *buf, size_t cap)
{
	struct json_object *req = NULL, *ans, *ok;
	const char *c;

	ans = bw_ask_reply(q, len, &req, op);
	if (!ans)
		return "no memory";
	json_object_object_get_ex(ans, "ok", &ok);
	c = bw_json_str(ans, "code");
	snprintf(buf, cap, "%s", c ? c : "");
	/* The envelope: "v" 1 and "ok" a boolean, an error with its text. */
	if (!json_object_is_type(ok, json_type_boolean) ||
	    json_object_get_boolean(ok) != !c || !c != !!req ||
	    (c && !bw_json_str(ans, "error")))
		snprintf(buf, cap, "bad envelope");
	json_object_put(req);
	json_object_put(ans);
	return buf;
}

static const char *code(const char *q, enum bw_ask_op *op)
{
	static char buf[64];

	return code_of(q, strlen(q), op, buf, sizeof(buf));
}

BW_TEST(test_ask_reply)
{
	enum bw_ask_op op = BW_ASK_NOPS;
	char buf[64];

	ASSERT_STREQ(code("{\"v\":1,\"op\":\"status\"}", &op), "", "status");
	ASSERT_EQ(op, BW_ASK_STATUS, "its op");
	ASSERT_STREQ(code("{\"v\":1,\"op\":\"why\",\"addresses\":[]} \r", &op),
		     "", "why, trailing blanks");
	ASSERT_EQ(op, BW_ASK_WHY, "its op");
	ASSERT_STREQ(code("{\"op\":\"add\",\"v\":1}", &op), "", "any order");
	ASSERT_EQ(op, BW_ASK_ADD, "add");
	ASSERT_STREQ(code("{\"v\":1,\"op\":\"remove\"}", &op), "", "remove");
	ASSERT_EQ(op, BW_ASK_REMOVE, "remove");

	ASSERT_STREQ(code("", &op), "bad_request", "empty");
	ASSERT_STREQ(code("why 192.0.2.1", &op), "bad_request",
		     "the old one-word question");
	ASSERT_STREQ(code("sync", &op), "bad_request", "sync");
	ASSERT_STREQ(code("{\"v\":1,\"op\":\"status\"", &op), "bad_request",
		     "cut short");
	ASSERT_STREQ(code("{\"v\":1,\"op\":\"status\"}{}", &op), "bad_request",
		     "two objects");
	ASSERT_STREQ(code("{\"v\":1,\"op\":\"status\"} x", &op), "bad_request",
		     "garbage after it");
	ASSERT_STREQ(code("[1]", &op), "bad_request", "an array");
	ASSERT_STREQ(code("\"status\"", &op), "bad_request", "a string");
	ASSERT_STREQ(code_of("{\"v\":1,\"op\":\"status\"}\0x", 24, &op, buf,
			     sizeof(buf)),
		     "bad_request", "a NUL inside");
	ASSERT_STREQ(code("{\"v\":1}", &op), "bad_request", "no op");
	ASSERT_STREQ(code("{\"v\":1,\"op\":7}", &op), "bad_request",
		     "op not a string");

	ASSERT_STREQ(code("{\"op\":\"status\"}", &op), "bad_version",
		     "no version");
	ASSERT_STREQ(code("{\"v\":2,\"op\":\"status\"}", &op), "bad_version",
		     "version 2");
	ASSERT_STREQ(code("{\"v\":\"1\",\"op\":\"status\"}", &op),
		     "bad_version", "version as a string");
	ASSERT_STREQ(code("{\"v\":1.0,\"op\":\"status\"}", &op), "bad_version",
		     "version as a double");

	ASSERT_STREQ(code("{\"v\":1,\"op\":\"sync\"}", &op), "unknown_op",
		     "sync");
	ASSERT_STREQ(code("{\"v\":1,\"op\":\"\"}", &op), "unknown_op",
		     "an empty op");
}

/* bw_ask_check on reply text r: its return, code and why. */
static int check(const char *r, enum bw_ask_code *c, char *why, size_t cap)
{
	struct json_object *o = json_tokener_parse(r);
	int err = bw_ask_check(o, c, why, cap);

	json_object_put(o);
	return err;
}

BW_TEST(test_ask_check)
{
	enum bw_ask_code c = BW_ASK_NCODES;
	char why[64] = "";

	ASSERT_EQ(check("{\"v\":1,\"op\":\"status\",\"ok\":true}", &c, why,
			sizeof(why)),
		  0, "ok");
	ASSERT_EQ(
		check("{\"v\":1,\"op\":\"add\",\"ok\":false,\"code\":\"busy\",\"error\":\"ask again\"}",
		      &c, why, sizeof(why)),
		-EREMOTEIO, "refused");
	ASSERT_EQ(c, BW_ASK_BUSY, "its code");
	ASSERT_STREQ(why, "ask again", "its error");
	ASSERT_EQ(
		check("{\"v\":1,\"op\":null,\"ok\":false,\"code\":\"refused\"}",
		      &c, why, sizeof(why)),
		-EREMOTEIO, "the socket's refusal");
	ASSERT_EQ(c, BW_ASK_REFUSED, "its code");
	ASSERT_STREQ(why, "no reason given", "no error said");
	ASSERT_EQ(
		check("{\"v\":1,\"ok\":false,\"code\":\"failed\",\"error\":\"a\\nb: forged\\u001b[2J\"}",
		      &c, why, sizeof(why)),
		-EREMOTEIO, "an error holding a newline and an ESC");
	ASSERT_STREQ(why, "a\\nb: forged\\x1b[2J",
		     "escaped for a message: one line, no ESC");
	ASSERT_EQ(check("{\"v\":1,\"ok\":false,\"code\":\"new_code\"}", &c, why,
			sizeof(why)),
		  -EREMOTEIO, "an unknown code");
	ASSERT_EQ(c, BW_ASK_FAILED, "taken as failed");
	ASSERT_EQ(
		check("{\"error\":\"unknown question\"}", &c, why, sizeof(why)),
		-EBADMSG, "no envelope");
	ASSERT_EQ(check("{\"v\":2,\"ok\":true}", &c, why, sizeof(why)),
		  -EBADMSG, "another version");
	ASSERT_EQ(check("{\"v\":1,\"ok\":\"yes\"}", &c, why, sizeof(why)),
		  -EBADMSG, "ok not a boolean");
}
