/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What an interface runs, found from its XDP hook: bloomwall's program
 * there (directly, through a bpf_link, or behind a libxdp dispatcher), and
 * from the program its filter, counters, allowlist and exact tries. The
 * hook is the truth: every verb reads the running state here, never from
 * the pins. The pins under BW_PIN_ROOT/IFACE are a cache of it for
 * bpftool and for operators; bw_pins_sync() makes them name what runs.
 *
 * int functions return 0 or -errno.
 */
#ifndef __BW_RUNNING_H
#define __BW_RUNNING_H

#include <stdbool.h>

#include "bloomwall.h"
#include "kernel/egress.h"
#include "kernel/filter_map.h"
#include "kernel/hook.h"
#include "kernel/prog.h"

struct bw_running {
	const char *iface;
	int ifindex;
	struct bw_xdp_info hook; /* what the hook holds */
	int prog_fd;		 /* bloomwall's program there */
	__u32 prog_id;
	int link_fd; /* the bpf_link that holds it, -1: none */
	struct bw_maps maps;
	struct bw_filter_map filter; /* the program's filter, mapped */
	int filter_err; /* 0, or why the filter cannot be read (-EINVAL) */
	struct bw_hdr prog_hdr; /* the header it was loaded with (.rodata) */
	bool old_tries; /* its tries have an older bloomwall's key (lpm.h) */
	/*
	 * The egress hook's program (attach --egress), read from the
	 * interface: prog_fd -1 when it runs none of bloomwall's.
	 */
	struct bw_egress egress;
};

#define BW_RUNNING_INIT                                                \
	{                                                              \
		.prog_fd = -1, .link_fd = -1, .maps = BW_MAPS_INIT,    \
		.filter = BW_FILTER_MAP_INIT, .egress = BW_EGRESS_INIT \
	}

/* bw_running_open() flags. */
#define BW_RUN_QUIET (1U << 0) /* say nothing when nothing runs */
/* Make the pins name what runs, saying so (mutating verbs, under the lock). */
#define BW_RUN_REPAIR (1U << 1)
/*
 * Open a program whose tries have an older bloomwall's key too (detach,
 * status, and reload, which upgrades them); without it such a program is
 * refused with what to do.
 */
#define BW_RUN_OLD_OK (1U << 2)

/*
 * Opens what ifindex's hook runs. -ENOENT when it runs no bloomwall
 * program (said, with what to do, unless BW_RUN_QUIET); a filter that is
 * not valid is not an error here (r->filter_err says so).
 */
int bw_running_open(const char *iface, int ifindex, unsigned int flags,
		    struct bw_running *r);

/*
 * Reads r's hook again, for a command that opened r before a long step
 * (a build) and must act on what runs now (under the lock): if the hook
 * still runs r's program, r stays open as it is (a program keeps its maps
 * and filter for life; the filter's blocks are read through the mapping)
 * and only the hook is read again; else r is closed and opened anew, as
 * bw_running_open() with flags does. r->prog_id says which it found.
 */
int bw_running_refresh(struct bw_running *r, unsigned int flags);

void bw_running_close(struct bw_running *r);

/*
 * The filter iface runs, mapped (read-write if writable) into m, and its
 * program's id in *prog: 0, or -ENOENT when nothing (valid) runs. Quiet,
 * and an older filter will do (a daemon's look).
 */
int bw_running_map(const char *iface, bool writable, struct bw_filter_map *m,
		   __u32 *prog);

/*
 * r->filter_err, said in operator words with what to do (reload), or 0.
 */
int bw_running_need_filter(const struct bw_running *r);

/* The running filter's header and info (valid only without filter_err). */
static inline const struct bw_hdr *bw_running_hdr(const struct bw_running *r)
{
	return r->filter.mem;
}

static inline struct bw_info *bw_running_info(const struct bw_running *r)
{
	return (struct bw_info *)((char *)r->filter.mem + BW_BLOCK_BYTES);
}

struct bw_records;

/*
 * The running filter's record area (records.h) into rec: empty for a
 * filter without one or one not readable (filter_err); a malformed area is
 * taken as empty with a warning that its runtime adds are lost. 0 or
 * -ENOMEM (said).
 */
int bw_running_records(const struct bw_running *r, struct bw_records *rec);

/* Says that iface runs no bloomwall program and what to do; -ENOENT. */
int bw_explain_not_attached(const char *iface);

/*
 * Makes iface's pins name what its hook runs now: prog_fd and its maps
 * (known: they, else read from the program), and link_fd (-1: no link
 * pin). Pins that named something else are
 * replaced, pins of an older bloomwall removed. Says so when it changed
 * anything, unless quiet: a changed pin means an earlier command was
 * interrupted. The caller holds the lock.
 */
int bw_pins_sync(const char *iface, int prog_fd, const struct bw_maps *known,
		 int link_fd, bool quiet);

/* Whether every pin of r's interface names what r runs (and no other). */
bool bw_pins_in_step(const struct bw_running *r);

/*
 * Removes the pin directories other than iface's whose prog pin names
 * prog_id (an interface renamed, or a program replaced): a pin keeps a
 * program and its filter alive. Says which.
 */
void bw_unpin_others(const char *iface, __u32 prog_id);

/*
 * For an interface whose hook runs no bloomwall program: 1 if it still has
 * pins (left by an interrupted attach or detach, or by an interface that
 * was re-created or renamed: then *moved_to names the interface whose hook
 * runs the pinned program now, else it is ""), 0 if not.
 */
int bw_pins_left(const char *iface, char *moved_to, size_t len);

/*
 * For a change that swaps in a copy of r's filter (bw_swap_running) and
 * has no records of its own to write (allow, unallow): r's records with
 * the change (enum bw_change_verb) stamped into rec, and the blocks the
 * copy needs beyond r's. 0 or -errno (-EINVAL: r's area is malformed).
 */
int bw_running_change_prepare(const struct bw_running *r, __u8 verb,
			      struct bw_records *rec, __u32 *extra);

/*
 * The egress hook follows the XDP hook's filter: a swap replaces both
 * programs under the lock (swap.c); a command killed between the two
 * replaces leaves the egress hook behind, and the next command that
 * repairs (BW_RUN_REPAIR) brings it.
 */
/*
 * Whether r's egress hook runs another filter than its XDP hook: a command
 * killed between the two replaces of a swap.
 */
bool bw_egress_behind(const struct bw_running *r);

/*
 * Brings r's egress hook to r's filter (an egress program loaded for it,
 * with r's maps), said: the XDP hook is the truth both follow. The
 * caller holds the lock.
 */
int bw_egress_catch_up(struct bw_running *r);

#endif /* __BW_RUNNING_H */
