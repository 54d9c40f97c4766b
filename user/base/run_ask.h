/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The client of a running watch's socket, BW_STATE_DIR/IFACE.sock
 * (run_dir.h): one question a connection, a line, and one JSON object as
 * the answer, read until the watch closes, bounded in size and time. The
 * questions (daemon/watch_sock.h): "why ADDR" (query --why, out/cs_why.h)
 * and "sync" (remove, ops/remove_mark.h).
 */
#ifndef __BW_RUN_ASK_H
#define __BW_RUN_ASK_H

#include <json-c/json.h>

/*
 * The longest question, its newline included: a bulk add or remove of
 * some thousands of entries. The watch refuses a longer one.
 */
#define BW_WSOCK_QUESTION_MAX (1024U * 1024)

/* The longest answer the client reads: one result an entry of a question. */
#define BW_WSOCK_ANSWER_MAX (8U * BW_WSOCK_QUESTION_MAX)

/*
 * Asks iface's watch question (no newline, at most BW_WSOCK_QUESTION_MAX
 * - 1 bytes): 0 with its answer in *ans (json_object_put() it), -ENOENT
 * or -ECONNREFUSED when no watch listens, -ETIMEDOUT when the watch made
 * no progress (took no more of the question, or sent no more of the
 * answer) for timeout_ms, -EBADMSG when the answer is no JSON object,
 * -EMSGSIZE for a question too long, -errno.
 */
int bw_run_ask(const char *iface, const char *question, int timeout_ms,
	       struct json_object **ans);
/* The same to the socket at path (tests/upper). */
int bw_run_ask_at(const char *path, const char *question, int timeout_ms,
		  struct json_object **ans);

#endif /* __BW_RUN_ASK_H */
