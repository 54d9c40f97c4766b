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

/* How the program went onto the hook. */
enum bw_attach_how {
	BW_ATTACH_PLAIN,	 /* libxdp's dispatcher unavailable */
	BW_ATTACH_PLAIN_SKIPPED, /* LIBXDP_SKIP_DISPATCHER is set */
	BW_ATTACH_DISPATCHER,
	BW_ATTACH_LINK, /* a bpf_link of bloomwall's own */
};

/* What an attach did. */
struct bw_attach_figures {
	__u32 program_id;
	__u32 egress_id;  /* the egress program's, with --egress (else 0) */
	__u8 attach_mode; /* enum xdp_attach_mode */
	enum bw_attach_how how;
	char libxdp_error[128]; /* with BW_ATTACH_LINK: why not libxdp */
	bool allow;		/* an allowlist was given: */
	__u64 allow_entries;	/* its entries */
};

/*
 * Loads the program with the built filter as its own map (and its exact
 * trie in the slot b's header names, in verify mode) and the allowlist
 * filled, attaches it to ifindex (through libxdp, or a bpf_link of our own
 * when own_link or when libxdp fails); with egress, then puts the TC
 * program of the same object (same filter, same maps) on ifindex's clsact
 * egress hook, both under a guard (hooks_guard.h); then pins prog, its
 * maps (and link, and the egress program's maps) under BW_PIN_ROOT/iface.
 * allow may be NULL. Fills out
 * with what it did. On failure everything is undone. The pin directory
 * must not exist.
 */
int bw_attach(const char *iface, int ifindex, enum xdp_attach_mode mode,
	      bool own_link, bool egress, const struct bw_built *b,
	      const struct bw_list *allow, struct bw_attach_figures *out);

struct bw_running;

/*
 * Takes r's program off its hook (through its link, the dispatcher, or a
 * plain detach of exactly that program) and removes the pins naming it.
 */
int bw_detach(const struct bw_running *r);

#endif /* __BW_ATTACH_H */
