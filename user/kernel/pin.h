/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Where bloomwall keeps its state: the state directory BW_PIN_ROOT (root's,
 * 0700, kept once made), pins under BW_PIN_ROOT/IFACE/ (prog, link, stats,
 * allow, exact: a cache of what the interface's hook runs), the bpffs they
 * live on. The lock that keeps two mutating commands from interleaving is
 * lock.h's.
 *
 * Nothing under BW_PIN_ROOT is followed through a symlink or used when
 * another user owns it: such an entry is refused with a message saying so
 * (once per path) and -BW_EUNSAFE, and never removed.
 *
 * int functions return 0 or -errno; apart from such refusals they print
 * nothing unless they say so.
 */
#ifndef __BW_PIN_H
#define __BW_PIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "bloomwall.h"
#include "kernel/state_dir.h"

#define BW_PIN_PROG "prog"
#define BW_PIN_LINK "link"
#define BW_PIN_STATS bw_textify(BW_MAP_STATS)
/* Format 3's maps; a program of bloomwall 0.2 has neither (no pin then). */
#define BW_PIN_ALLOW_NAMES bw_textify(BW_MAP_ALLOW_NAMES)
#define BW_PIN_DNS_STATS bw_textify(BW_MAP_DNS_STATS)
/* The drop log's and dns_drops; a program from before it has none. */
#define BW_PIN_DNS_DROPS bw_textify(BW_MAP_DNS_DROPS)
#define BW_PIN_LOG_RING bw_textify(BW_MAP_LOG_RING)
#define BW_PIN_LOG_STATS bw_textify(BW_MAP_LOG_STATS)
/* The egress program's own maps (attach --egress). */
#define BW_PIN_EGRESS_STATS bw_textify(BW_MAP_EGRESS_STATS)
#define BW_PIN_EGRESS_WHO bw_textify(BW_MAP_EGRESS_WHO)

/* BW_PIN_ROOT/iface/name, or BW_PIN_ROOT/iface when name is NULL. */
int bw_pin_path(char *buf, size_t len, const char *iface, const char *name);

/* False also when BW_PIN_ROOT/iface is refused (and says why). */
bool bw_pin_dir_exists(const char *iface);
int bw_pin_dir_create(const char *iface);

/* bpf_obj_get() of BW_PIN_ROOT/iface/name: an fd or -errno. */
int bw_pin_open(const char *iface, const char *name);
/*
 * Makes BW_PIN_ROOT/iface/name name fd in one step (pinned beside it as
 * name_new, then renamed over it): readers see the old pin or the new one.
 * 0 when it named fd already, 1 when it was pinned or replaced, or -errno.
 */
int bw_pin_replace(int fd, const char *iface, const char *name);

/* Removes BW_PIN_ROOT/iface/name: 1 if it was there, 0 if not, or -errno. */
int bw_pin_remove(const char *iface, const char *name);

/* A pin for bw_pins_set(): name is to name fd, or (fd -1) to go. */
struct bw_pin_set {
	const char *name;
	int fd;
	__u32 id; /* fd's kernel id, 0: not known (read from fd) */
};

/*
 * bw_pin_replace() or bw_pin_remove() for each of n pins, in order,
 * through one opening of iface's directory: the number of pins changed,
 * or the first -errno (the pins after it are not tried).
 */
int bw_pins_set(const char *iface, const struct bw_pin_set *p, size_t n);

/* Removes every pin in BW_PIN_ROOT/iface and the directory itself. */
int bw_unpin_all(const char *iface);

/*
 * Calls fn for every interface directory under BW_PIN_ROOT, in name order.
 * Returns the number of interfaces, or the first negative value fn returns.
 */
int bw_for_each_pinned(int (*fn)(const char *iface, void *ctx), void *ctx);

#endif /* __BW_PIN_H */
