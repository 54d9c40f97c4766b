// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * One document over HTTP through libmicrohttpd (http_serve.h), opened
 * when a server starts (net/dl_libs.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>

#include "net/dl_libs.h"
#include "net/http_serve.h"

struct bw_http_serve {
	struct MHD_Daemon *d;
	const char *path, *type;
	pthread_mutex_t lock; /* body and len: the loop sets, MHD reads */
	char *body;
	size_t len;
};

int bw_listen_addr_parse(const char *s, struct sockaddr_storage *ss,
			 socklen_t *len, char *why, size_t cap)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char host[INET6_ADDRSTRLEN + 1];
	const char *colon, *p;
	bool v6 = s[0] == '[';
	unsigned long port = 0;
	size_t n;

	memset(ss, 0, sizeof(*ss));
	if (v6) {
		p = strchr(s, ']');
		colon = p && p[1] == ':' ? p + 1 : NULL;
		s++;
		n = p ? (size_t)(p - s) : 0;
	} else {
		colon = strrchr(s, ':');
		n = colon ? (size_t)(colon - s) : 0;
	}
	if (!colon || !colon[1]) {
		snprintf(why, cap, "no :PORT at its end");
		return -EINVAL;
	}
	for (p = colon + 1; *p; p++) {
		if (*p < '0' || *p > '9' || p - colon > 5) {
			port = 0;
			break;
		}
		port = port * 10 + (unsigned long)(*p - '0');
	}
	if (port < 1 || port > 65535) {
		snprintf(why, cap, "the port is not a number 1-65535");
		return -EINVAL;
	}
	if (n && n < sizeof(host)) {
		memcpy(host, s, n);
		host[n] = '\0';
	} else {
		host[0] = '\0';
	}
	if (v6 && inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
		return 0;
	}
	if (!v6 && inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		*len = sizeof(*in);
		return 0;
	}
	snprintf(
		why, cap,
		"ADDR is not an IPv4 address, nor an IPv6 one in brackets (no names)");
	return -EINVAL;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *type, const char *text, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = bw_mhd.create_response_from_buffer(len, (void *)text,
					       MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	bw_mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		bw_mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW,
					   "GET, HEAD");
	ret = bw_mhd.queue_response(c, status, r);
	bw_mhd.destroy_response(r);
	return ret;
}

#define SAY(c, status, text) \
	reply(c, status, "text/plain; charset=utf-8", text, sizeof(text) - 1)

/* In MHD's thread: what the request gets, at its first call. */
static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_len, void **req)
{
	struct bw_http_serve *s = cls;
	enum MHD_Result ret;

	(void)version;
	(void)upload;
	(void)upload_len;
	(void)req;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return SAY(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			   "only GET and HEAD\n");
	if (strcmp(url, s->path))
		return SAY(c, MHD_HTTP_NOT_FOUND, "not found\n");
	pthread_mutex_lock(&s->lock);
	if (s->body)
		ret = reply(c, MHD_HTTP_OK, s->type, s->body, s->len);
	else
		ret = SAY(c, MHD_HTTP_SERVICE_UNAVAILABLE, "not ready yet\n");
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/* The listening socket, made here: a refused address says why. */
static int listen_on(const char *addr, char *why, size_t cap)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, err;

	if (bw_listen_addr_parse(addr, &ss, &len, why, cap))
		return -EINVAL;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    0);
	if (fd < 0)
		goto fail;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* [::]:PORT means IPv6 only: an operator names each address. */
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) ||
	    listen(fd, BW_HTTP_SERVE_CONNS))
		goto fail;
	return fd;
fail:
	err = -errno;
	snprintf(why, cap, "cannot listen there: %s", strerror(-err));
	if (fd >= 0)
		close(fd);
	return err;
}

int bw_http_serve_start(struct bw_http_serve **out, const char *addr,
			const char *path, const char *content_type, char *why,
			size_t cap)
{
	struct bw_http_serve *s;
	int fd, err;

	*out = NULL;
	err = bw_mhd_load(why, cap);
	if (err)
		return err;
	fd = listen_on(addr, why, cap);
	if (fd < 0)
		return fd;
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(why, cap, "out of memory");
		close(fd);
		return -ENOMEM;
	}
	s->path = path;
	s->type = content_type;
	pthread_mutex_init(&s->lock, NULL);
	/*
	 * Its own thread polls the socket and the connections; the ITC pipe
	 * wakes it at once when stopped. Each connection is bounded: its
	 * number, an idle time, the memory its request may take.
	 */
	s->d = bw_mhd.start_daemon(
		MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ITC, 0, NULL, NULL,
		answer, s, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)BW_HTTP_SERVE_CONNS,
		MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned int)BW_HTTP_SERVE_TIMEOUT,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384,
		MHD_OPTION_END);
	if (!s->d) {
		snprintf(why, cap, "libmicrohttpd could not start");
		close(fd);
		pthread_mutex_destroy(&s->lock);
		free(s);
		return -EIO;
	}
	*out = s;
	return 0;
}

void bw_http_serve_set(struct bw_http_serve *s, char *body, size_t len)
{
	char *old;

	pthread_mutex_lock(&s->lock);
	old = s->body;
	s->body = body;
	s->len = len;
	pthread_mutex_unlock(&s->lock);
	free(old);
}

void bw_http_serve_stop(struct bw_http_serve *s)
{
	if (!s)
		return;
	/* Closes the listening socket and every connection, joins the thread. */
	bw_mhd.stop_daemon(s->d);
	pthread_mutex_destroy(&s->lock);
	free(s->body);
	free(s);
}
