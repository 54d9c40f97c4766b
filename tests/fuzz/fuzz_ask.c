// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libFuzzer target for the watch socket's envelope (base/run_ask.h), the
 * first thing that reads what a client sends: any bytes as a question.
 * Besides crashes, leaks and undefined behaviour, a broken invariant
 * aborts: a reply is always of the protocol (bw_ask_check takes it), and
 * a question is taken (its op known, an object in hand) exactly when the
 * reply says "ok"; what a client then reads of the reply agrees.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/run_ask.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *req = NULL, *ans, *echo;
	enum bw_ask_op op = BW_ASK_NOPS;
	enum bw_ask_code code = BW_ASK_NCODES;
	char why[64], *q;
	int err;

	/* The socket hands the answer function a NUL-terminated line. */
	q = malloc(size + 1);
	if (!q)
		return 0;
	memcpy(q, data, size);
	q[size] = '\0';
	ans = bw_ask_reply(q, size, &req, &op);
	if (!ans) {
		free(q);
		return 0;
	}
	err = bw_ask_check(ans, &code, why, sizeof(why));
	if (err && err != -EREMOTEIO)
		abort(); /* a reply not of the protocol */
	if (!err != !!req)
		abort(); /* taken without "ok", or "ok" without a question */
	if (req &&
	    (op >= BW_ASK_NOPS || !json_object_is_type(req, json_type_object)))
		abort();
	if (err && (code >= BW_ASK_NCODES || !why[0]))
		abort();
	/* The op echoed is the one read. */
	json_object_object_get_ex(ans, "op", &echo);
	if (req && strcmp(json_object_get_string(echo), bw_ask_ops[op]))
		abort();
	json_object_put(req);
	json_object_put(ans);
	free(q);
	return 0;
}
