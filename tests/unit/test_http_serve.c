// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The one-document HTTP server (user/net/http_serve.c): ADDR:PORT parsed
 * or refused with its reason; on 127.0.0.1, 503 before a body, the body
 * with its content type after, 404 and 405 otherwise; a peer that sends
 * nothing holds up no other, and stopping closes its connection.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "net/http_serve.h"
#include "test_helpers.h"

static int parse(const char *s, char *why)
{
	struct sockaddr_storage ss;
	socklen_t len;

	why[0] = '\0';
	return bw_listen_addr_parse(s, &ss, &len, why, 120);
}

BW_TEST(test_listen_addr_parse)
{
	static const char *const bad[] = {
		"",
		"127.0.0.1",
		"127.0.0.1:",
		":60607",
		"[::1]",
		"[::1]60607",
		"::1:60607",
		"localhost:60607",
		"1.2.3:80",
		"1.2.3.4:0",
		"1.2.3.4:65536",
		"1.2.3.4:+80",
		"1.2.3.4:8 ",
		"[1.2.3.4]:80",
		"[::1:80",
		"[fe80::1%eth0]:80",
	};
	struct sockaddr_storage ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	socklen_t len;
	char why[120];
	size_t i;

	ASSERT_OK(bw_listen_addr_parse("127.0.0.1:60607", &ss, &len, why,
				       sizeof(why)),
		  "IPv4");
	ASSERT_EQ(in->sin_family, AF_INET, "its family");
	ASSERT_EQ(ntohs(in->sin_port), 60607, "its port");
	ASSERT_EQ(ntohl(in->sin_addr.s_addr), INADDR_LOOPBACK, "its address");
	ASSERT_EQ(len, sizeof(*in), "its length");
	ASSERT_OK(bw_listen_addr_parse("[::1]:1", &ss, &len, why, sizeof(why)),
		  "IPv6");
	ASSERT_EQ(in6->sin6_family, AF_INET6, "its family");
	ASSERT_EQ(ntohs(in6->sin6_port), 1, "its port");
	ASSERT_TRUE(IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr), "its address");
	ASSERT_OK(parse("0.0.0.0:65535", why), "any IPv4 address, top port");
	ASSERT_OK(parse("[::]:9", why), "any IPv6 address");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(parse(bad[i], why), -EINVAL, bad[i]);
		ASSERT_TRUE(why[0], bad[i]);
	}
	parse("127.0.0.1", why);
	ASSERT_STREQ(why, "no :PORT at its end", "the reason: no port");
	parse("127.0.0.1:0", why);
	ASSERT_STREQ(why, "the port is not a number 1-65535", "a bad port");
	parse("localhost:80", why);
	ASSERT_STRSTR(why, "no names", "a name");
}

/* A socket to 127.0.0.1:port, reads bounded to 10 s (only ends a hang). */
static int dial(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { .tv_sec = 10 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The whole answer to req (HTTP/1.0: the server closes after it). */
static int ask(int port, const char *req, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;
	int fd = dial(port);

	buf[0] = '\0';
	if (fd < 0 || write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	close(fd);
	return 0;
}

/* A port no one listens on now: the kernel's pick, let go. */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, len) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

BW_TEST(test_http_serve_answers)
{
	struct bw_http_serve *s = NULL;
	char addr[32], why[160], buf[4096];
	int port = -1, mute, err = -EADDRINUSE, i;
	char *body;

	/* Another may take the port between the pick and the bind. */
	for (i = 0; i < 5 && err == -EADDRINUSE; i++) {
		port = free_port();
		snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
		err = bw_http_serve_start(&s, addr, "/metrics",
					  "text/plain; version=0.0.4", why,
					  sizeof(why));
	}
	if (!ASSERT_OK(err, why))
		return;
	ASSERT_OK(ask(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf)),
		  "ask");
	ASSERT_STRSTR(buf, " 503 ", "no body yet: 503");
	body = strdup("a_metric 1\n");
	bw_http_serve_set(s, body, strlen(body));
	/* A peer that says nothing holds up no other. */
	mute = dial(port);
	ASSERT_TRUE(mute >= 0, "a mute peer connects");
	ASSERT_OK(ask(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf)),
		  "ask");
	ASSERT_STRSTR(buf, " 200 OK\r\n", "200");
	ASSERT_STRSTR(buf, "\r\nContent-Type: text/plain; version=0.0.4\r\n",
		      "the content type");
	ASSERT_STRSTR(buf, "\r\n\r\na_metric 1\n", "the body");
	ASSERT_OK(ask(port, "GET /other HTTP/1.0\r\n\r\n", buf, sizeof(buf)),
		  "ask");
	ASSERT_STRSTR(buf, " 404 ", "another path");
	ASSERT_OK(
		ask(port, "DELETE /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf)),
		"ask");
	ASSERT_STRSTR(buf, " 405 ", "another method");
	ASSERT_STRSTR(buf, "\r\nAllow: GET, HEAD\r\n", "the methods allowed");
	/* Stopped: the mute peer's connection is closed (EOF, not timeout). */
	bw_http_serve_stop(s);
	if (mute >= 0) {
		ASSERT_EQ(read(mute, buf, sizeof(buf)), 0, "closed on stop");
		close(mute);
	}
	ASSERT_TRUE(dial(port) < 0, "nothing listens after the stop");
}
