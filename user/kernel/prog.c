// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The XDP program: specialise for a filter, load, read back the header it
 * was loaded with.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bloomwall.h"
#include "bloomwall.skel.h"
#include "kernel/prog.h"

void bw_maps_close(struct bw_maps *mp)
{
	int *fds[] = { &mp->stats,	 &mp->allow,	 &mp->exact,
		       &mp->allow_names, &mp->dns_stats, &mp->dns_drops,
		       &mp->log_ring,	 &mp->log_stats };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

void bw_maps_from_skel(const struct bloomwall *skel, struct bw_maps *mp)
{
	mp->stats = bpf_map__fd(skel->maps.stats);
	mp->allow = bpf_map__fd(skel->maps.allow);
	mp->exact = bpf_map__fd(skel->maps.exact);
	mp->allow_names = bpf_map__fd(skel->maps.allow_names);
	mp->dns_stats = bpf_map__fd(skel->maps.dns_stats);
	mp->dns_drops = bpf_map__fd(skel->maps.dns_drops);
	mp->log_ring = bpf_map__fd(skel->maps.log_ring);
	mp->log_stats = bpf_map__fd(skel->maps.log_stats);
	mp->log_rate = skel->rodata->log_consts.rate;
}

static int reuse_maps(struct bloomwall *skel, const struct bw_maps *mp,
		      const struct bw_filter_map *m)
{
	struct {
		struct bpf_map *map;
		int fd;
		bool optional; /* made anew when not given */
	} r[] = {
		{ skel->maps.blocks, m->fd, false },
		{ skel->maps.stats, mp->stats, false },
		{ skel->maps.allow, mp->allow, false },
		{ skel->maps.exact, mp->exact, false },
		{ skel->maps.allow_names, mp->allow_names, true },
		{ skel->maps.dns_stats, mp->dns_stats, true },
		{ skel->maps.dns_drops, mp->dns_drops, true },
		{ skel->maps.log_ring, mp->log_ring, true },
		{ skel->maps.log_stats, mp->log_stats, true },
	};
	size_t i;
	int err;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		if (r[i].fd < 0 && r[i].optional)
			continue;
		if (r[i].fd < 0)
			return -EBADF;
		err = bpf_map__reuse_fd(r[i].map, r[i].fd);
		if (err)
			return err;
	}
	return 0;
}

/* Block idx of filter m (its mapping or a map lookup). 0 or -errno. */
static int read_block(const struct bw_filter_map *m, __u32 idx,
		      struct bw_block *blk)
{
	if (m->mem && ((size_t)idx + 1) * BW_BLOCK_BYTES <= m->len) {
		memcpy(blk, (const char *)m->mem + (size_t)idx * BW_BLOCK_BYTES,
		       sizeof(*blk));
		return 0;
	}
	return bpf_map_lookup_elem(m->fd, &idx, blk) ? -errno : 0;
}

/*
 * dns_consts from the DNS block of a filter with BW_F_DNS, zeros without:
 * a header that says names but has no DNS block in the map (or name
 * regions past its end) is no filter to load.
 */
static int specialise_dns(struct bloomwall *skel, const struct bw_hdr *hdr,
			  const struct bw_filter_map *m, __u32 nblocks)
{
	struct bw_dns_consts *dc =
		(struct bw_dns_consts *)&skel->rodata->dns_consts;
	struct bw_dns_hdr dns;
	struct bw_block blk;
	__u32 at = bw_dns_block(hdr);
	int err;

	skel->rodata->prog_variant &= ~BW_VARIANT_NAMES;
	if (!(hdr->flags & BW_F_DNS)) {
		bw_dns_consts_init(hdr, NULL, dc);
		return 0;
	}
	if (at >= nblocks)
		return -EINVAL;
	err = read_block(m, at, &blk);
	if (err)
		return err;
	memcpy(&dns, &blk, sizeof(dns));
	if (dns.magic != BW_DNS_MAGIC ||
	    dns.region_end[BW_NAME_REGIONS - 1] > nblocks ||
	    dns.action >= BW_DNS_ACTIONS)
		return -EINVAL;
	bw_dns_consts_init(hdr, &dns, dc);
	if (dc->nblocks[BW_NAME_EXACT] || dc->nblocks[BW_NAME_SUBTREE])
		skel->rodata->prog_variant |= BW_VARIANT_NAMES;
	return 0;
}

/* ---- the drop log's rate ------------------------------------------------- */

static long log_rate_set = -1;

void bw_prog_set_log_rate(long rate)
{
	if (rate > (long)BW_LOG_RATE_MAX)
		rate = BW_LOG_RATE_MAX;
	log_rate_set = rate;
}

__u32 bw_prog_log_rate(long known)
{
	if (log_rate_set >= 0)
		return log_rate_set;
	if (known >= 0)
		return known > (long)BW_LOG_RATE_MAX ? BW_LOG_RATE_MAX : known;
	return BW_LOG_RATE_DEFAULT;
}

/*
 * The bucket holds one second of events: a burst as large as the rate,
 * so a quiet CPU logs the first rate drops of a flood at once and then
 * rate a second. Credit is counted in nanoseconds: one event costs
 * 1e9 / rate of them.
 */
void bw_log_consts_init(__u32 rate, struct bw_log_consts *lc)
{
	memset(lc, 0, sizeof(*lc));
	if (!rate)
		return;
	lc->rate = rate;
	lc->burst = rate;
	lc->cost_ns = 1000000000ULL / rate;
	lc->cap_ns = lc->cost_ns * lc->burst;
}

/* The program's log constants and copy, for a rate. */
static void specialise_log(struct bloomwall *skel, __u32 rate)
{
	bw_log_consts_init(rate,
			   (struct bw_log_consts *)&skel->rodata->log_consts);
	if (rate)
		skel->rodata->prog_variant |= BW_VARIANT_LOG;
	else
		skel->rodata->prog_variant &= ~BW_VARIANT_LOG;
}

int bw_prog_specialise(struct bloomwall *skel, const struct bw_filter_map *m)
{
	struct bw_hdr *dst = (struct bw_hdr *)&skel->rodata->filter_hdr;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), r;
	struct bw_block blk;
	int err;

	if (bpf_obj_get_info_by_fd(m->fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_ARRAY ||
	    info.value_size != BW_BLOCK_BYTES ||
	    info.max_entries < BW_HDR_BLOCKS)
		return -EINVAL;
	err = read_block(m, 0, &blk);
	if (err)
		return err;
	memcpy(dst, &blk, sizeof(*dst));
	/*
	 * The program would load and pass everything; refuse it, so that a
	 * commit never swaps a working filter for none.
	 */
	if (!bw_hdr_valid(dst))
		return -EINVAL;
	for (r = 0; r < BW_REGIONS; r++)
		bw_region_consts_init(dst, r,
				      (struct bw_region_consts *)&skel->rodata
					      ->region_consts[r]);
	specialise_log(skel, bw_prog_log_rate(-1));
	return specialise_dns(skel, dst, m, info.max_entries);
}

/* The map ids of a loaded program (at most max). Their number, or -errno. */
static int prog_map_ids(int prog_fd, __u32 *ids, __u32 max)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	info.nr_map_ids = max;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	return info.nr_map_ids < max ? (int)info.nr_map_ids : (int)max;
}

/* ".rodata" is prefixed with the object's name ("bloomwal.rodata"). */
static bool name_is(const char *have, const char *want)
{
	return want[0] == '.' ? !!strstr(have, want) : !strcmp(have, want);
}

/*
 * An fd of the program's map of this name and whose value is at least min_value
 * bytes; its info in *mi. -ENOENT when there is none.
 */
static int prog_map(int prog_fd, const char *name, __u32 min_value,
		    struct bpf_map_info *mi)
{
	__u32 ids[16], mlen;
	int n, i, fd;

	n = prog_map_ids(prog_fd, ids, sizeof(ids) / sizeof(ids[0]));
	for (i = 0; i < n; i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		memset(mi, 0, sizeof(*mi));
		mlen = sizeof(*mi);
		if (!bpf_obj_get_info_by_fd(fd, mi, &mlen) &&
		    name_is(mi->name, name) && mi->value_size >= min_value)
			return fd;
		close(fd);
	}
	return n < 0 ? n : -ENOENT;
}

int bw_prog_maps(int prog_fd, struct bw_maps *mp)
{
	struct {
		int *fd;
		const char *name;
		bool optional;	 /* not in bloomwall 0.2's program */
		__u32 min_value; /* a smaller one is an older bloomwall's */
	} want[] = {
		{ &mp->stats, bw_textify(BW_MAP_STATS), false, 0 },
		{ &mp->allow, bw_textify(BW_MAP_ALLOW), false, 0 },
		{ &mp->exact, bw_textify(BW_MAP_EXACT), false, 0 },
		{ &mp->allow_names, bw_textify(BW_MAP_ALLOW_NAMES), true, 0 },
		/*
		 * Older programs count fewer DNS outcomes: the new program
		 * gets a map of its own, its DNS counters start from zero.
		 */
		{ &mp->dns_stats, bw_textify(BW_MAP_DNS_STATS), true,
		  sizeof(struct bw_dns_stats) },
		{ &mp->dns_drops, bw_textify(BW_MAP_DNS_DROPS), true, 0 },
		{ &mp->log_ring, bw_textify(BW_MAP_LOG_RING), true, 0 },
		{ &mp->log_stats, bw_textify(BW_MAP_LOG_STATS), true, 0 },
	};
	struct bw_log_consts lc;
	struct bpf_map_info mi;
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		*want[i].fd = -1;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		*want[i].fd =
			prog_map(prog_fd, want[i].name, want[i].min_value, &mi);
		if (*want[i].fd == -ENOENT && want[i].optional) {
			*want[i].fd = -1;
			continue;
		}
		if (*want[i].fd < 0) {
			int err = *want[i].fd;

			*want[i].fd = -1;
			bw_maps_close(mp);
			return err;
		}
	}
	mp->log_rate = bw_prog_log_consts(prog_fd, &lc) ? -1 : (long)lc.rate;
	return 0;
}

int bw_prog_filter(int prog_fd, bool writable, struct bw_filter_map *m)
{
	struct bpf_map_info mi;
	int fd, err;

	fd = prog_map(prog_fd, BW_FILTER_MAP_NAME, BW_BLOCK_BYTES, &mi);
	if (fd < 0)
		return fd;
	err = bw_filter_open_id(mi.id, writable, m);
	close(fd);
	return err;
}

bool bw_prog_is_ours(int prog_fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return !bpf_obj_get_info_by_fd(prog_fd, &info, &len) &&
	       !strcmp(info.name, BW_PROG_NAME);
}

/*
 * len bytes at off of a loaded program's .rodata, which must hold at least
 * min bytes (a program of this bloomwall's layout). -ENOENT: none.
 */
static int prog_rodata(int prog_fd, size_t min, size_t off, void *out,
		       size_t len)
{
	struct bpf_map_info mi;
	__u32 key = 0;
	char *buf;
	int fd, err = 0;

	fd = prog_map(prog_fd, ".rodata", min, &mi);
	if (fd < 0)
		return fd;
	buf = calloc(1, mi.value_size);
	if (!buf)
		err = -ENOMEM;
	else if (bpf_map_lookup_elem(fd, &key, buf))
		err = -errno;
	else
		memcpy(out, buf + off, len);
	free(buf);
	close(fd);
	return err;
}

/*
 * A program from before the drop log has the .rodata of today without
 * log_consts at its end (the header at the same offset): its header reads
 * as well. An older one's is smaller still, and not read.
 */
_Static_assert(offsetof(struct bloomwall__rodata, log_consts) >
		       offsetof(struct bloomwall__rodata, dns_consts),
	       "log_consts comes after what older programs have");

int bw_prog_header(int prog_fd, struct bw_hdr *hdr)
{
	return prog_rodata(prog_fd,
			   offsetof(struct bloomwall__rodata, log_consts),
			   offsetof(struct bloomwall__rodata, filter_hdr), hdr,
			   sizeof(*hdr));
}

int bw_prog_log_consts(int prog_fd, struct bw_log_consts *lc)
{
	return prog_rodata(prog_fd, sizeof(struct bloomwall__rodata),
			   offsetof(struct bloomwall__rodata, log_consts), lc,
			   sizeof(*lc));
}

int bw_prog_load(const struct bw_maps *mp, const struct bw_filter_map *m)
{
	struct bloomwall *skel;
	int fd, err;

	skel = bloomwall__open();
	if (!skel)
		return -errno;
	err = reuse_maps(skel, mp, m);
	if (!err)
		err = bw_prog_specialise(skel, m);
	if (!err)
		specialise_log(skel, bw_prog_log_rate(mp->log_rate));
	if (!err)
		err = bloomwall__load(skel);
	fd = err ? -1 : dup(bpf_program__fd(skel->progs.bloomwall_xdp));
	if (!err && fd < 0)
		err = -errno;
	bloomwall__destroy(skel);
	return err ? err : fd;
}

const char *bw_prog_name(__u32 id, char *buf, size_t len)
{
	struct bpf_prog_info info = {};
	__u32 ilen = sizeof(info);
	int fd;

	buf[0] = '\0';
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return buf;
	if (!bpf_obj_get_info_by_fd(fd, &info, &ilen))
		snprintf(buf, len, "%s", info.name);
	close(fd);
	return buf;
}
