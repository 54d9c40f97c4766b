// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* A question to a running watch's socket (run_ask.h). */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/json.h"
#include "base/output.h"
#include "base/run_ask.h"
#include "base/run_dir.h"

static int connect_to(const char *path, int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = timeout_ms / 1000,
			      .tv_usec = timeout_ms % 1000 * 1000 };
	int fd, err;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A watch whose backlog is full: connect() waits this long. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = errno == EAGAIN ? -ETIMEDOUT : -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Waits up to timeout_ms for fd to be ready for events: 0 or -errno. */
static int wait_for(int fd, short events, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n;

	do
		n = poll(&p, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

/* Sends all of buf, waiting up to timeout_ms for each part of it. */
static int send_all(int fd, const char *buf, size_t len, int timeout_ms)
{
	ssize_t n;
	int err;

	while (len) {
		err = wait_for(fd, POLLOUT, timeout_ms);
		if (err)
			return err;
		/* A watch that went: no SIGPIPE, which would end the verb. */
		n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads the answer until the daemon closes, bounded in size and time. */
static int read_answer(int fd, int timeout_ms, char **out)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *grown;
	ssize_t n;
	int err = 0;

	for (;;) {
		if (cap - len < 4096 && cap <= BW_WSOCK_ANSWER_MAX) {
			cap = cap ? 2 * cap : 16384;
			grown = realloc(buf, cap + 1);
			if (!grown) {
				err = -ENOMEM;
				break;
			}
			buf = grown;
		}
		err = wait_for(fd, POLLIN, timeout_ms);
		if (err)
			break;
		n = read(fd, buf + len, cap - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len > BW_WSOCK_ANSWER_MAX) {
			err = -EMSGSIZE;
			break;
		}
	}
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int bw_run_ask_at(const char *path, const char *question, int timeout_ms,
		  struct json_object **ans)
{
	size_t len = strlen(question);
	char *q, *text = NULL;
	int fd, err;

	*ans = NULL;
	if (len >= BW_WSOCK_QUESTION_MAX)
		return -EMSGSIZE;
	q = malloc(len + 1);
	if (!q)
		return -ENOMEM;
	memcpy(q, question, len);
	q[len] = '\n';
	fd = connect_to(path, timeout_ms);
	if (fd < 0) {
		free(q);
		return fd;
	}
	err = send_all(fd, q, len + 1, timeout_ms);
	free(q);
	/* A watch that refused the question early: its answer says why. */
	if (!err || err == -EPIPE || err == -ECONNRESET)
		err = read_answer(fd, timeout_ms, &text);
	close(fd);
	if (err)
		return err;
	*ans = json_tokener_parse(text);
	free(text);
	if (!*ans || !json_object_is_type(*ans, json_type_object)) {
		json_object_put(*ans);
		*ans = NULL;
		return -EBADMSG;
	}
	return 0;
}

int bw_run_ask(const char *iface, const char *question, int timeout_ms,
	       struct json_object **ans)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int err;

	*ans = NULL;
	err = bw_run_path(path, sizeof(path), iface, BW_RUN_SOCKET);
	return err ?: bw_run_ask_at(path, question, timeout_ms, ans);
}

/* ---- the protocol's envelope --------------------------------------------- */

const char *const bw_ask_ops[BW_ASK_NOPS] = {
	[BW_ASK_ADD] = "add",
	[BW_ASK_REMOVE] = "remove",
	[BW_ASK_WHY] = "why",
	[BW_ASK_STATUS] = "status",
};

const char *const bw_ask_codes[BW_ASK_NCODES] = {
	[BW_ASK_BAD_REQUEST] = "bad_request",
	[BW_ASK_BAD_VERSION] = "bad_version",
	[BW_ASK_UNKNOWN_OP] = "unknown_op",
	[BW_ASK_BUSY] = "busy",
	[BW_ASK_NOT_IN_PLACE] = "not_in_place",
	[BW_ASK_NO_FILTER] = "no_filter",
	[BW_ASK_BAD_RECORDS] = "bad_records",
	[BW_ASK_NO_MEMORY] = "no_memory",
	[BW_ASK_FAILED] = "failed",
	[BW_ASK_REFUSED] = "refused",
	[BW_ASK_TOO_LONG] = "too_long",
	[BW_ASK_LATE] = "late",
	[BW_ASK_CLIENTS] = "clients",
};

void bw_ask_fail(struct json_object *reply, enum bw_ask_code code,
		 const char *why)
{
	json_object_object_add(reply, "ok", json_object_new_boolean(false));
	json_object_object_add(reply, "code",
			       json_object_new_string(bw_ask_codes[code]));
	json_object_object_add(reply, "error", json_object_new_string(why));
}

/* The question as a JSON object: the whole of q, nothing after it. */
static struct json_object *parse(const char *q, size_t len)
{
	struct json_tokener *tok;
	struct json_object *o;
	size_t end;

	if (strlen(q) != len || len > INT32_MAX)
		return NULL;
	tok = json_tokener_new();
	if (!tok)
		return NULL;
	o = json_tokener_parse_ex(tok, q, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (json_tokener_get_error(tok) != json_tokener_success)
		end = 0;
	json_tokener_free(tok);
	while (o && end < len && strchr(" \t\r", q[end]))
		end++;
	if (o && (end != len || !json_object_is_type(o, json_type_object))) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}

/* The question's op, checked: its index, or -1 with the error in reply. */
static int read_op(struct json_object *req, struct json_object *reply)
{
	struct json_object *v, *op;
	const char *s;
	int i;

	if (!json_object_object_get_ex(req, "v", &v) ||
	    !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) != BW_ASK_VERSION) {
		bw_ask_fail(reply, BW_ASK_BAD_VERSION,
			    "unknown version: this watch speaks \"v\": 1");
		return -1;
	}
	if (!json_object_object_get_ex(req, "op", &op) ||
	    !json_object_is_type(op, json_type_string)) {
		bw_ask_fail(reply, BW_ASK_BAD_REQUEST, "no \"op\"");
		return -1;
	}
	s = json_object_get_string(op);
	for (i = 0; i < BW_ASK_NOPS; i++)
		if (!strcmp(s, bw_ask_ops[i])) {
			json_object_object_add(reply, "op",
					       json_object_new_string(s));
			return i;
		}
	bw_ask_fail(
		reply, BW_ASK_UNKNOWN_OP,
		"unknown \"op\": this watch knows \"add\", \"remove\", \"why\" and \"status\"");
	return -1;
}

struct json_object *bw_ask_reply(const char *q, size_t len,
				 struct json_object **req, enum bw_ask_op *op)
{
	struct json_object *reply = json_object_new_object();
	int i = -1;

	*req = NULL;
	if (!reply)
		return NULL;
	json_object_object_add(reply, "v", json_object_new_int(BW_ASK_VERSION));
	json_object_object_add(reply, "op", NULL);
	*req = parse(q, len);
	if (!*req)
		bw_ask_fail(reply, BW_ASK_BAD_REQUEST,
			    "not a JSON object on one line");
	else
		i = read_op(*req, reply);
	if (i < 0) {
		json_object_put(*req);
		*req = NULL;
		return reply;
	}
	*op = (enum bw_ask_op)i;
	json_object_object_add(reply, "ok", json_object_new_boolean(true));
	return reply;
}

int bw_ask_check(struct json_object *reply, enum bw_ask_code *code, char *why,
		 size_t cap)
{
	struct json_object *v, *ok;
	const char *c = bw_json_str(reply, "code"), *e;
	int i;

	if (!json_object_object_get_ex(reply, "v", &v) ||
	    json_object_get_int64(v) != BW_ASK_VERSION ||
	    !json_object_object_get_ex(reply, "ok", &ok) ||
	    !json_object_is_type(ok, json_type_boolean))
		return -EBADMSG;
	if (json_object_get_boolean(ok))
		return 0;
	for (i = 0; c && i < BW_ASK_NCODES; i++)
		if (!strcmp(c, bw_ask_codes[i]))
			break;
	*code = c && i < BW_ASK_NCODES ? (enum bw_ask_code)i : BW_ASK_FAILED;
	e = bw_json_str(reply, "error");
	/* A socket's text, for messages: escaped (output.h). */
	bw_esc(why, cap, e ? e : "no reason given");
	return -EREMOTEIO;
}
