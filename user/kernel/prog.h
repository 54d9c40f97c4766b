/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The XDP program, one per filter: bloomwall_xdp is loaded anew for every
 * filter map, with that map as its own `blocks` map and the filter's
 * header and derived region constants in its .rodata, so the verifier
 * inlines the block lookup and removes the code this filter does not need.
 * The other maps (stats, allowlist, exact tries) are handed in as fds: a
 * new program shares the running one's, or gets a new allowlist.
 *
 * Every bloomwall object is found from the program: its maps are among
 * its map_ids, by name (the hook is the truth; pins are a cache).
 *
 * int functions return 0 or -errno and print nothing.
 */
#ifndef __BW_PROG_H
#define __BW_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "kernel/filter_map.h"

/*
 * The maps of a program besides its filter, as fds. allow_names and
 * dns_stats came with format 3: a program of bloomwall 0.2 has none (-1
 * here), and a program loaded without them gets new ones.
 */
struct bw_maps {
	int stats;
	int allow;
	int exact;	 /* the exact tries' outer map */
	int allow_names; /* -1: a program from before names */
	int dns_stats;	 /* -1: a program from before names */
	int dns_drops;	 /* -1: a program from before the drop log */
	int log_ring;	 /* -1: a program from before the drop log */
	int log_stats;	 /* -1: a program from before the drop log */
	int who;	 /* ingress_who; -1: a program from before it */
	/*
	 * Not a map: the drop log's rate the program runs with (its .rodata
	 * log_consts), which a program loaded with these maps keeps unless
	 * bw_prog_set_log_rate() said otherwise. -1: unknown (a program from
	 * before the drop log), and then the default.
	 */
	long log_rate;
	/*
	 * The kernel ids of the maps above, in their order (stats first), as
	 * read with them: the pins are compared by id. 0: not known.
	 */
	__u32 ids[9];
};

#define BW_MAPS_INIT                                                      \
	{                                                                 \
		.stats = -1, .allow = -1, .exact = -1, .allow_names = -1, \
		.dns_stats = -1, .dns_drops = -1, .log_ring = -1,         \
		.log_stats = -1, .who = -1, .log_rate = -1                \
	}

void bw_maps_close(struct bw_maps *mp);

struct bloomwall;
struct bw_hdr;

/* The maps of a loaded skeleton, borrowed: closed with the skeleton. */
void bw_maps_from_skel(const struct bloomwall *skel, struct bw_maps *mp);

/*
 * The drop log's constants a loaded bloomwall program runs with (its
 * .rodata copy). -ENOENT: a program from before the drop log.
 */
struct bw_log_consts;
int bw_prog_log_consts(int prog_fd, struct bw_log_consts *lc);

/*
 * Loads the XDP program for filter m, sharing mp's maps: its fd (the
 * verifier's log goes to libbpf's print callback). stats, allow and exact
 * must be given; allow_names and dns_stats are made anew when -1 (find
 * them with bw_prog_maps on the new program to pin them).
 */
int bw_prog_load(const struct bw_maps *mp, const struct bw_filter_map *m);

/*
 * bw_prog_load(), and with eg (not NULL) the TC egress program of the same
 * object into *tc_fd: loaded for the same filter with the same maps, and
 * eg's own (egress_stats, egress_who; made anew where -1). Both or
 * neither: on failure nothing is left open.
 */
struct bw_egress;
int bw_prog_load_pair(const struct bw_maps *mp, const struct bw_filter_map *m,
		      const struct bw_egress *eg, int *tc_fd);

/*
 * The maps of a loaded bloomwall program, found by name among its map_ids
 * (new fds). -ENOENT when stats, allow or exact is missing: not a
 * bloomwall program. allow_names and dns_stats are -1 when the program
 * has none (bloomwall 0.2's).
 */
int bw_prog_maps(int prog_fd, struct bw_maps *mp);

/*
 * bw_prog_maps(), and where asked for (not NULL) the header the program
 * was specialised with (its .rodata copy) into hdr and
 * bw_prog_filter(prog_fd, false, filter) (its return value into
 * *filter_err), in one pass over the program's maps: each is opened once.
 * 0, or the error of bw_prog_maps() or of reading the header (-ENOENT:
 * no .rodata of ours), and then nothing is left open.
 */
int bw_prog_open(int prog_fd, struct bw_maps *mp, struct bw_filter_map *filter,
		 int *filter_err, struct bw_hdr *hdr);

/* Whether mp has every map: a program loaded with them makes none. */
bool bw_maps_complete(const struct bw_maps *mp);

/*
 * New fds of src's maps into dst, for a program that shares them and
 * changes some (a reload's new allowlist): no pass over the program's
 * maps again. 0 or -errno (dst closed).
 */
int bw_maps_dup(const struct bw_maps *src, struct bw_maps *dst);

/*
 * Puts fd (taken over) in the place of *slot, one of mp's map fds, closing
 * the one there: its id is no longer known (the pins read it from fd).
 */
void bw_maps_replace(struct bw_maps *mp, int *slot, int fd);

/*
 * The filter map of a loaded bloomwall program, mapped (writable or not).
 * -ENOENT: it has none; -EINVAL: the map is no block map.
 */
int bw_prog_filter(int prog_fd, bool writable, struct bw_filter_map *m);

/* Whether the program with this fd is a bloomwall program (by its name). */
bool bw_prog_is_ours(int prog_fd);

/* Name of the program with this id into buf ("" when unknown). */
const char *bw_prog_name(__u32 id, char *buf, size_t len);

/* The name every bloomwall program has, as bpftool lists it. */
#define BW_PROG_NAME "bloomwall_xdp"

#endif /* __BW_PROG_H */
