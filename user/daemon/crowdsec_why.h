/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The server side of query --why's CrowdSec answer (out/cs_why.h says the
 * protocol): a unix socket BW_STATE_DIR/IFACE.sock the watch listens on
 * while it has a CrowdSec source, one short question a connection,
 * answered from the decision set at once in the watch's loop (a scan of
 * the set: some milliseconds for a million decisions). A client that does
 * not ask within a second is dropped, so none can hold the loop.
 */
#ifndef __BW_CROWDSEC_WHY_H
#define __BW_CROWDSEC_WHY_H

#include "net/cs_decisions.h"

/* Listens on iface's socket (a stale one replaced): the fd, or -errno. */
int bw_cs_why_listen(const char *iface);

/* Answers one waiting client of fd from set (url: the source's). */
void bw_cs_why_serve(int fd, const struct bw_cs_set *set, const char *url);

/* Closes fd and removes iface's socket. */
void bw_cs_why_close(int fd, const char *iface);

#endif /* __BW_CROWDSEC_WHY_H */
