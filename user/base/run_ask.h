/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's socket protocol, BW_STATE_DIR/IFACE.sock (run_dir.h;
 * daemon/watch_sock.h serves it, ops/handover.h asks it): one question a
 * connection, one JSON object on a line; the reply one JSON object and a
 * newline, then the watch closes. Version 1:
 *
 *   question  {"v": 1, "op": OP, ...OP's fields}
 *   reply     {"v": 1, "op": OP, "ok": true, ...OP's fields}
 *             {"v": 1, "op": OP | null, "ok": false, "code": CODE,
 *              "error": for a person}
 *
 *   add     q "prefixes": ["ADDR" | "CIDR", ...] or "names": [{"name",
 *             "subtree": bool}, ...] (1 to 100,000), "expires": Unix s
 *             (0 or none: never)
 *           r "in_place": true, "expires", "results": ["added" |
 *             "already", ...] (one per entry asked, in its order)
 *   remove  q "prefixes" or "names" as for add
 *           r "results": ["in_place" | "held" (another source keeps it)
 *             | "rebuild" (a rebuild takes it out) | "not_added", ...]
 *   why     q "addresses": ["ADDR", ...] (1 to BW_ASK_WHY_MAX)
 *           r "crowdsec": bool (a CrowdSec source runs), "url" (its LAPI),
 *             "results": [{"address", "decisions": [{"id", "origin",
 *             "scenario", "scope": "Ip" | "Range", "value", "type",
 *             "until": Unix s}] (at most BW_ASK_DECISIONS_MAX), "more": N
 *             (covering it, not listed)}] (one per address, in order)
 *   status  q nothing more
 *           r the watch's state in sections: "pid", "updated" (Unix s),
 *             "live" (entries it keeps in place), "socket" (its clients),
 *             "crowdsec" (a decision source), "pull" (images over HTTP):
 *             what its state file holds (ops/daemon_state.h)
 *
 * CODE: one of bw_ask_codes below. A client reads fields, never text.
 */
#ifndef __BW_RUN_ASK_H
#define __BW_RUN_ASK_H

#include <stddef.h>
#include <json-c/json.h>

/*
 * The longest question, its newline included: a bulk add or remove of
 * some thousands of entries. The watch refuses a longer one.
 */
#define BW_WSOCK_QUESTION_MAX (1024U * 1024)

/* The longest answer the client reads: one result an entry of a question. */
#define BW_WSOCK_ANSWER_MAX (8U * BW_WSOCK_QUESTION_MAX)

#define BW_ASK_VERSION 1
#define BW_ASK_WHY_MAX 64	/* addresses in one "why" */
#define BW_ASK_DECISIONS_MAX 64 /* decisions listed an address */

enum bw_ask_op {
	BW_ASK_ADD,
	BW_ASK_REMOVE,
	BW_ASK_WHY,
	BW_ASK_STATUS,
	BW_ASK_NOPS,
};

/* The ops' words, "add" ..., by enum bw_ask_op. */
extern const char *const bw_ask_ops[BW_ASK_NOPS];

/* A reply's "code" when "ok" is false. */
enum bw_ask_code {
	BW_ASK_BAD_REQUEST,  /* not JSON, no "op", a field wrong */
	BW_ASK_BAD_VERSION,  /* "v" other than BW_ASK_VERSION */
	BW_ASK_UNKNOWN_OP,   /* an op this watch does not know */
	BW_ASK_BUSY,	     /* another command holds the lock: ask again */
	BW_ASK_NOT_IN_PLACE, /* add/remove: the caller does it another way */
	BW_ASK_NO_FILTER,    /* no filter runs */
	BW_ASK_BAD_RECORDS,  /* the running filter's records are unreadable */
	BW_ASK_NO_MEMORY,
	BW_ASK_FAILED,	 /* another error, said in "error" */
	BW_ASK_REFUSED,	 /* the socket's: not root, owner or group */
	BW_ASK_TOO_LONG, /* the socket's: question past the bound */
	BW_ASK_LATE,	 /* the socket's: question not whole in time */
	BW_ASK_CLIENTS,	 /* the socket's: too many clients at once */
	BW_ASK_NCODES,
};

extern const char *const bw_ask_codes[BW_ASK_NCODES];

/*
 * The watch's side: question q (len bytes) read. The reply, {"v", "op",
 * "ok": true} for the caller to fill, with the question in *req and its
 * op in *op; or a reply with the error and *req NULL. NULL: no memory.
 */
struct json_object *bw_ask_reply(const char *q, size_t len,
				 struct json_object **req, enum bw_ask_op *op);

/* Makes reply an error: "ok" false, "code", "error". */
void bw_ask_fail(struct json_object *reply, enum bw_ask_code code,
		 const char *why);

/*
 * The client's side: whether reply is one of this protocol (v 1, "ok"),
 * 0; a refusal -EREMOTEIO with *code set and why (cap bytes) its
 * "error", escaped for a message (output.h); -EBADMSG not this protocol.
 */
int bw_ask_check(struct json_object *reply, enum bw_ask_code *code, char *why,
		 size_t cap);

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
