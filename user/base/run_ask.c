// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* A question to a running watch's socket (run_ask.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/run_ask.h"
#include "base/run_dir.h"

/* An answer is small: at most some 64 decisions of some 500 bytes. */
#define ANSWER_MAX (256U * 1024)

static int connect_to(const char *iface)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err;

	err = bw_run_path(sa.sun_path, sizeof(sa.sun_path), iface,
			  BW_RUN_SOCKET);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Reads the answer until the daemon closes, bounded in size and time. */
static int read_answer(int fd, int timeout_ms, char **out)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char *buf = malloc(ANSWER_MAX + 1);
	size_t len = 0;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (poll(&p, 1, timeout_ms) <= 0) {
			free(buf);
			return -ETIMEDOUT;
		}
		n = read(fd, buf + len, ANSWER_MAX - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (len += (size_t)n) == ANSWER_MAX)
			break;
	}
	if (n < 0) {
		free(buf);
		return -errno;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int bw_run_ask(const char *iface, const char *question, int timeout_ms,
	       struct json_object **ans)
{
	char q[128], *text = NULL;
	int fd, n, err;

	*ans = NULL;
	n = snprintf(q, sizeof(q), "%s\n", question);
	if (n < 0 || (size_t)n >= sizeof(q))
		return -EINVAL;
	fd = connect_to(iface);
	if (fd < 0)
		return fd;
	err = write(fd, q, (size_t)n) == n ? 0 : -EIO;
	if (!err)
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
