// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* A question to a running watch's socket (run_ask.h). */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

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
