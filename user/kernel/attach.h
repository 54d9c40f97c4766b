/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The attach/detach lifecycle: the first program of an interface, loaded
 * with its first filter, its shared maps created, put on the hook and
 * pinned; and the way back off, pins removed.
 *
 * Functions print what failed in operator words and return 0 or -errno.
 */
#ifndef __BW_ATTACH_H
#define __BW_ATTACH_H

#include <stdbool.h>
#include <xdp/libxdp.h>

#include "lists/list.h"
#include "kernel/swap.h"

/*
 * Loads the program with the built filter as its own map (and its exact
 * trie in the slot b's header names, in verify mode) and the allowlist
 * filled, attaches it to ifindex (through libxdp, or a bpf_link of our own
 * when own_link or when libxdp fails) and pins prog, stats, allow, exact
 * (and link) under BW_PIN_ROOT/iface. allow may be NULL. On
 * failure everything is undone. The pin directory must not exist.
 */
int bw_attach(const char *iface, int ifindex, enum xdp_attach_mode mode,
	      bool own_link, const struct bw_built *b,
	      const struct bw_list *allow);

struct bw_running;

/*
 * Takes r's program off its hook (through its link, the dispatcher, or a
 * plain detach of exactly that program) and removes the pins naming it.
 */
int bw_detach(const struct bw_running *r);

#endif /* __BW_ATTACH_H */
