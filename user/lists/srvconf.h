/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Blocklists written as DNS server configuration, as hagezi publishes
 * them for dnsmasq and Unbound, read a line at a time into a list's
 * entries (list.h). Every entry covers the name and its subtree, as the
 * servers apply them.
 *
 * dnsmasq ('#' comments):
 *   address=/name/#, address=/name/0.0.0.0, address=/name/::,
 *   address=/name/ (NXDOMAIN), address=/name/ADDR (a sinkhole, counted),
 *   local=/name/, server=/name/ (answered locally): blocked;
 *   server=/name/ADDR (forwarded elsewhere): not a block, counted;
 *   several names in one line (address=/a/b/#) each; address=/#/ (every
 *   name) and any other option are bad lines.
 *
 * Unbound ('#' comments; "server:" skipped):
 *   local-zone: "name." always_null|always_nxdomain|always_refuse|
 *     always_nodata|always_deny|static|refuse|deny|redirect|inform_deny|
 *     inform_redirect: blocked;
 *   local-zone: "name." transparent|always_transparent|typetransparent|
 *     inform: an allow entry (in Unbound the deeper zone wins over a
 *     blocked parent: the name resolves);
 *   local-zone: "name." nodefault, local-data:, local-data-ptr: not
 *     entries, counted; any other clause is a bad line.
 */
#ifndef __BW_SRVCONF_H
#define __BW_SRVCONF_H

#include <stdbool.h>
#include <stddef.h>

#include "lists/list.h"

enum { BW_SRV_DNSMASQ = 1, BW_SRV_UNBOUND = 2 };

struct bw_srvconf {
	size_t sinkhole;  /* dnsmasq address=/name/ADDR to another address */
	size_t forwarded; /* dnsmasq server=/name/ADDR lines */
	size_t ignored;	  /* Unbound local-data and nodefault lines */
	size_t allow;	  /* Unbound transparent zones taken as allow */
};

/* BW_SRV_DNSMASQ or BW_SRV_UNBOUND for a line of either, else 0. */
int bw_srvconf_detect(const char *line, size_t len);

/*
 * One line (NUL-terminated) of a file of kind (BW_SRV_*). 0, -EINVAL
 * with the reason in err, or -ENOMEM.
 */
int bw_srvconf_line(struct bw_srvconf *c, int kind, struct bw_list *l,
		    const char *line, size_t len,
		    const struct bw_list_opts *opts, char *err, size_t errlen);

/* The file's note at its end. */
void bw_srvconf_note(const struct bw_srvconf *c, int kind, char *buf,
		     size_t len);

#endif /* __BW_SRVCONF_H */
