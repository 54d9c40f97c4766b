/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A small HTTP server for one document (watch --metrics-listen's
 * /metrics), through libmicrohttpd: its own thread answers GET and HEAD
 * of one path with the last body it was handed, so the daemon's loop
 * never waits for a peer. A peer is bounded in number, time and memory;
 * stopping closes every connection at once.
 */
#ifndef __BW_HTTP_SERVE_H
#define __BW_HTTP_SERVE_H

#include <stddef.h>
#include <sys/socket.h>

/* At most so many connections at once; one idle this long is closed. */
#define BW_HTTP_SERVE_CONNS 16
#define BW_HTTP_SERVE_TIMEOUT 10 /* seconds */

/* "[" IPv6 "]:" 5 digits and the NUL. */
#define BW_LISTEN_ADDR_LEN 56

/*
 * Parses "ADDR:PORT": an IPv4 address, or an IPv6 address in brackets,
 * then a port 1..65535; no names. 0, or -EINVAL with the reason in why.
 */
int bw_listen_addr_parse(const char *s, struct sockaddr_storage *ss,
			 socklen_t *len, char *why, size_t cap);

struct bw_http_serve;

/*
 * Listens on addr ("ADDR:PORT") and serves path with content_type
 * (503 until the first body is set; 404 for another path, 405 for
 * another method). Signals the caller blocks stay blocked in its
 * thread. 0, or -errno with the reason in why (-ELIBACC: libmicrohttpd
 * cannot be loaded).
 */
int bw_http_serve_start(struct bw_http_serve **out, const char *addr,
			const char *path, const char *content_type, char *why,
			size_t cap);

/* The body from now on: s takes body (malloc'd; NULL: 503 again). */
void bw_http_serve_set(struct bw_http_serve *s, char *body, size_t len);

/* Closes the socket and every connection, ends the thread; NULL is none. */
void bw_http_serve_stop(struct bw_http_serve *s);

#endif /* __BW_HTTP_SERVE_H */
