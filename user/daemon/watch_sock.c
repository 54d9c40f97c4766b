// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The watch's socket (watch_sock.h). */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/run_dir.h"
#include "daemon/watch_sock.h"

int bw_wsock_listen(const char *iface)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err;

	err = bw_run_path(sa.sun_path, sizeof(sa.sun_path), iface,
			  BW_RUN_SOCKET);
	if (err)
		return err;
	err = bw_run_dir();
	if (err)
		return err;
	unlink(sa.sun_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(sa.sun_path, 0600) || listen(fd, 8)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

void bw_wsock_close(int fd, const char *iface)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];

	if (fd < 0)
		return;
	close(fd);
	if (!bw_run_path(path, sizeof(path), iface, BW_RUN_SOCKET))
		unlink(path);
}

/* The question, a line read within a second. 0 or -errno. */
static int read_question(int c, char *buf, size_t cap)
{
	struct pollfd p = { .fd = c, .events = POLLIN };
	size_t len = 0;
	ssize_t n;

	while (len < cap - 1) {
		if (poll(&p, 1, 1000) <= 0)
			return -ETIMEDOUT;
		n = read(c, buf + len, cap - 1 - len);
		if (n <= 0)
			return n ? -errno : -EPIPE;
		len += (size_t)n;
		buf[len] = '\0';
		if (memchr(buf, '\n', len))
			break;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int bw_wsock_accept(int fd, char *q, size_t cap)
{
	struct timeval tv = { .tv_sec = 1 };
	int c, err;

	c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return -errno;
	setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	err = read_question(c, q, cap);
	if (err) {
		close(c);
		return err;
	}
	return c;
}

void bw_wsock_answer(int c, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;

	while (len) {
		/* A client that hung up: no SIGPIPE, which would end the watch. */
		n = send(c, text, len, MSG_NOSIGNAL);
		if (n <= 0)
			return;
		text += n;
		len -= (size_t)n;
	}
}
