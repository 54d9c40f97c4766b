// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A driven HTTP transfer (user/net/http.c) against a server of the test's
 * own on 127.0.0.1, played by the test itself in the same thread: each
 * step returns while the server has said nothing more (the caller's loop
 * is never held), an answer given in pieces comes whole, and the bounds
 * hold (size, time, a bad URL); a transfer freed under way closes its
 * connection.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "base/duration.h"
#include "net/http.h"
#include "test_helpers.h"

/* Turns of the caller's loop before a test gives up: only ends a hang. */
#define TURNS 400

struct body {
	char buf[64];
	size_t len;
};

static int on_body(void *ctx, const void *buf, size_t len)
{
	struct body *b = ctx;

	if (b->len + len > sizeof(b->buf))
		return -E2BIG;
	memcpy(b->buf + b->len, buf, len);
	b->len += len;
	return 0;
}

/* A listening socket on 127.0.0.1, its URL in url; -1 on failure. */
static int listen_on(char *url, size_t cap)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(fd, 4) || getsockname(fd, (struct sockaddr *)&a, &len)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	snprintf(url, cap, "http://127.0.0.1:%u/x", ntohs(a.sin_port));
	return fd;
}

/* One turn of a caller's loop: a poll of at most ms, then a step. */
static int turn(struct bw_http_xfer *x, struct bw_http_res *res, int ms)
{
	struct pollfd p[BW_HTTP_MAX_FDS];
	double wake = bw_mono() + ms / 1000.0;
	int n = bw_http_fds(x, p, &wake);

	poll(p, (nfds_t)n, (int)ceil(fmax(0, wake - bw_mono()) * 1000));
	return bw_http_step(x, p, n, res);
}

/* Turns until the server's side c has the whole request; its count. */
static int until_asked(struct bw_http_xfer *x, int c)
{
	struct bw_http_res res;
	char req[2048];
	size_t got = 0;
	ssize_t n;
	int i;

	for (i = 0; i < TURNS; i++) {
		if (turn(x, &res, 5) != -EINPROGRESS)
			return -1;
		n = recv(c, req + got, sizeof(req) - 1 - got, MSG_DONTWAIT);
		if (n > 0)
			got += (size_t)n;
		req[got] = '\0';
		if (strstr(req, "\r\n\r\n"))
			return i;
	}
	return -1;
}

/* A GET of url into b, bounded by max_bytes (0: none) and timeout. */
static struct bw_http_xfer *start(struct bw_http_req *rq, const char *url,
				  struct body *b, __u64 max_bytes,
				  double timeout)
{
	/* The test's own server, never a proxy from the environment. */
	setenv("no_proxy", "*", 1);
	memset(b, 0, sizeof(*b));
	bw_http_req_init(rq, url);
	rq->body = on_body;
	rq->ctx = b;
	rq->max_bytes = max_bytes;
	rq->timeout = timeout;
	return bw_http_start(rq);
}

static int send_str(int c, const char *s)
{
	return send(c, s, strlen(s), MSG_NOSIGNAL) == (ssize_t)strlen(s) ? 0
									 : -1;
}

BW_TEST(test_http_driven_in_pieces)
{
	struct bw_http_req rq;
	struct bw_http_res res;
	struct bw_http_xfer *x;
	struct body b;
	char url[64];
	int lfd = listen_on(url, sizeof(url)), c = -1, err = -EINPROGRESS;
	int i;

	if (!ASSERT_TRUE(lfd >= 0, "a server on 127.0.0.1"))
		return;
	x = start(&rq, url, &b, 0, 10);
	if (!ASSERT_TRUE(x != NULL, "started"))
		goto out;
	/* curl connects at its first step; the kernel queues it. */
	ASSERT_EQ(turn(x, &res, 0), -EINPROGRESS, "under way, not connected");
	c = accept(lfd, NULL, NULL);
	if (!ASSERT_TRUE(c >= 0, "the client came") ||
	    !ASSERT_TRUE(until_asked(x, c) >= 0, "the request came whole"))
		goto out;
	ASSERT_OK(send_str(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n"
			      "ETag: \"v1\"\r\n\r\nab"),
		  "the head and 2 bytes");
	for (i = 0; i < TURNS && b.len < 2; i++)
		err = turn(x, &res, 5);
	ASSERT_EQ(err, -EINPROGRESS, "2 of 10 bytes: still under way");
	ASSERT_EQ(b.len, 2, "the 2 bytes reached the body callback");
	/* The server says nothing: every step returns, under way. */
	for (i = 0; i < 5; i++)
		ASSERT_EQ(turn(x, &res, 1), -EINPROGRESS, "a silent server");
	ASSERT_OK(send_str(c, "cdefghij"), "the rest");
	for (i = 0; i < TURNS && err == -EINPROGRESS; i++)
		err = turn(x, &res, 5);
	ASSERT_OK(err, "the answer came whole");
	ASSERT_EQ(res.status, 200, "its status");
	ASSERT_EQ(res.bytes, 10, "its bytes");
	ASSERT_TRUE(b.len == 10 && !memcmp(b.buf, "abcdefghij", 10),
		    "the body, in order");
	ASSERT_TRUE(!strcmp(res.etag, "\"v1\""), "its ETag");
	/* Ended: a step again gives the same result. */
	ASSERT_OK(turn(x, &res, 0), "the end kept");
out:
	bw_http_free(x);
	if (c >= 0)
		close(c);
	close(lfd);
}

/*
 * Serves url's request with answer (NULL: nothing) and drives x to its
 * end: its result, or 1 if it did not end.
 */
static int served(struct bw_http_xfer *x, int lfd, const char *answer,
		  struct bw_http_res *res)
{
	int c, i, err = -EINPROGRESS;

	turn(x, res, 0);
	c = accept(lfd, NULL, NULL);
	if (c < 0 || until_asked(x, c) < 0 || (answer && send_str(c, answer)))
		err = 1;
	for (i = 0; i < TURNS && err == -EINPROGRESS; i++)
		err = turn(x, res, 10);
	if (c >= 0)
		close(c);
	return err == -EINPROGRESS ? 1 : err;
}

BW_TEST(test_http_driven_bounds)
{
	struct bw_http_req rq;
	struct bw_http_res res;
	struct bw_http_xfer *x;
	struct body b;
	char url[64], buf[16];
	int lfd = listen_on(url, sizeof(url)), c;

	if (!ASSERT_TRUE(lfd >= 0, "a server on 127.0.0.1"))
		return;
	/* Past max_bytes: cut, -EFBIG. */
	x = start(&rq, url, &b, 4, 10);
	ASSERT_EQ(served(x, lfd,
			 "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"
			 "abcdefghij",
			 &res),
		  -EFBIG, "past max_bytes");
	bw_http_free(x);

	/* A server that says nothing: the whole transfer's timeout. */
	x = start(&rq, url, &b, 0, 0.3);
	ASSERT_EQ(served(x, lfd, NULL, &res), -ETIMEDOUT, "a silent server");
	ASSERT_TRUE(res.reason[0] != '\0', "the timeout said");
	bw_http_free(x);

	/* Freed under way: the server sees its connection closed. */
	x = start(&rq, url, &b, 0, 10);
	turn(x, &res, 0);
	c = accept(lfd, NULL, NULL);
	if (ASSERT_TRUE(c >= 0, "the client came")) {
		ASSERT_TRUE(until_asked(x, c) >= 0, "the request came whole");
		bw_http_free(x);
		ASSERT_EQ(recv(c, buf, sizeof(buf), 0), 0,
			  "its connection closed by the free");
		close(c);
	} else {
		bw_http_free(x);
	}

	/* Not http(s): ended at the first step, said. */
	x = start(&rq, "ftp://127.0.0.1/x", &b, 0, 10);
	ASSERT_EQ(turn(x, &res, 0), -EINVAL, "ftp:// refused");
	ASSERT_TRUE(strstr(res.reason, "http://") != NULL, "the reason said");
	bw_http_free(x);
	close(lfd);
}

/*
 * Header values from a server reach log lines and the state: one with a
 * byte outside printable ASCII is kept escaped; a printable one (an ETag
 * with a backslash) as it is, so that If-None-Match matches it.
 */
BW_TEST(test_http_header_escaped)
{
	struct bw_http_req rq;
	struct bw_http_res res;
	struct bw_http_xfer *x;
	struct body b;
	char url[64];
	int lfd = listen_on(url, sizeof(url));

	if (!ASSERT_TRUE(lfd >= 0, "a server on 127.0.0.1"))
		return;
	x = start(&rq, url, &b, 0, 10);
	ASSERT_OK(served(x, lfd,
			 "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
			 "ETag: \"v1\x1b[2J\"\r\n"
			 "Content-Type: text/plain\x7f\r\n\r\nab",
			 &res),
		  "served");
	ASSERT_STREQ(res.etag, "\"v1\\x1b[2J\"", "an ESC in the ETag escaped");
	ASSERT_STREQ(res.content_type, "text/plain\\x7f", "a DEL escaped");
	bw_http_free(x);
	x = start(&rq, url, &b, 0, 10);
	ASSERT_OK(served(x, lfd,
			 "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
			 "ETag: \"a\\b\"\r\n\r\nab",
			 &res),
		  "served");
	ASSERT_STREQ(res.etag, "\"a\\b\"", "a printable ETag as sent");
	bw_http_free(x);
	close(lfd);
}
