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
 * Asks iface's watch question (no newline): 0 with its answer in *ans
 * (json_object_put() it), -ENOENT or -ECONNREFUSED when no watch listens,
 * -ETIMEDOUT when it did not answer within timeout_ms, -EBADMSG when the
 * answer is no JSON object, -errno.
 */
int bw_run_ask(const char *iface, const char *question, int timeout_ms,
	       struct json_object **ans);

#endif /* __BW_RUN_ASK_H */
