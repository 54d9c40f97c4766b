/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's socket, BW_STATE_DIR/IFACE.sock (0600, root's), where the
 * other verbs ask a running watch what only it knows (base/run_ask.h is
 * the client). One question a connection, a line:
 *
 *   "why ADDR"  the CrowdSec decisions covering ADDR (out/cs_why.h);
 *               none listed for a watch without a CrowdSec source
 *   "sync"      read the records again now: the adds a remove marked
 *               taken out (ops/remove_mark.h) go out in place, and the
 *               answer says how each went (daemon/live.h)
 *
 * answered at once in the watch's loop, one JSON object, then closed. A
 * client that does not ask within a second is dropped, so none can hold
 * the loop.
 */
#ifndef __BW_WATCH_SOCK_H
#define __BW_WATCH_SOCK_H

#include <stddef.h>

/* Listens on iface's socket (a stale one replaced): the fd, or -errno. */
int bw_wsock_listen(const char *iface);

/*
 * Takes one waiting client of fd and reads its question into q (cap
 * bytes, without the newline): the client's fd to answer on and close,
 * or -errno (nothing to answer).
 */
int bw_wsock_accept(int fd, char *q, size_t cap);

/* Writes the answer (a client that went gets nothing more). */
void bw_wsock_answer(int c, const char *text);

/* Closes fd and removes iface's socket. */
void bw_wsock_close(int fd, const char *iface);

#endif /* __BW_WATCH_SOCK_H */
