// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The XDP program: load it for a filter (specialised by prog_spec.c), find
 * a loaded one's maps, read back the header it was loaded with.
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
#include "kernel/egress.h"
#include "kernel/lpm.h"
#include "kernel/prog.h"
#include "kernel/prog_spec.h"

void bw_maps_close(struct bw_maps *mp)
{
	int *fds[] = { &mp->stats,	 &mp->allow,	 &mp->exact,
		       &mp->allow_names, &mp->dns_stats, &mp->dns_drops,
		       &mp->log_ring,	 &mp->log_stats, &mp->who };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	memset(mp->ids, 0, sizeof(mp->ids));
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
	mp->who = bpf_map__fd(skel->maps.ingress_who);
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
		{ skel->maps.ingress_who, mp->who, true },
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

/* A map of a program, looked for by name and by the size of its value. */
struct map_want {
	const char *name; /* NULL: not looked for */
	__u32 min_value;
	int fd; /* an fd of the first such map, -1: none */
	__u32 id, value_size;
};

/*
 * One pass over the program's maps, each opened and asked for its info
 * once, whatever the number of maps wanted: a verb that looked for each
 * map in its own pass opened a program's maps a hundred times.
 */
static int scan_maps(int prog_fd, struct map_want *w, size_t nw)
{
	struct bpf_map_info mi;
	__u32 ids[16], mlen;
	size_t j, left = nw;
	int n, i, fd;

	for (j = 0; j < nw; j++) {
		w[j].fd = -1;
		left -= !w[j].name;
	}
	n = prog_map_ids(prog_fd, ids, sizeof(ids) / sizeof(ids[0]));
	for (i = 0; i < n && left; i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		mlen = sizeof(mi);
		j = nw;
		if (!bpf_obj_get_info_by_fd(fd, &mi, &mlen)) {
			for (j = 0; j < nw; j++) {
				if (w[j].name && w[j].fd < 0 &&
				    name_is(mi.name, w[j].name) &&
				    mi.value_size >= w[j].min_value)
					break;
			}
		}
		if (j >= nw) {
			close(fd);
			continue;
		}
		w[j].fd = fd;
		w[j].id = mi.id;
		w[j].value_size = mi.value_size;
		left--;
	}
	return n < 0 ? n : 0;
}

static void close_wants(struct map_want *w, size_t nw)
{
	size_t j;

	for (j = 0; j < nw; j++) {
		if (w[j].fd >= 0)
			close(w[j].fd);
		w[j].fd = -1;
	}
}

/*
 * len bytes at off of a program's .rodata (rodata: its want), which must
 * hold at least min bytes (a program of this bloomwall's layout).
 * -ENOENT: none.
 */
static int read_rodata(const struct map_want *rodata, size_t min, size_t off,
		       void *out, size_t len)
{
	__u32 key = 0;
	char *buf;
	int err = 0;

	if (rodata->fd < 0 || rodata->value_size < min)
		return -ENOENT;
	buf = calloc(1, rodata->value_size);
	if (!buf)
		err = -ENOMEM;
	else if (bpf_map_lookup_elem(rodata->fd, &key, buf))
		err = -errno;
	else
		memcpy(out, buf + off, len);
	free(buf);
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

#define HDR_RODATA_MIN offsetof(struct bloomwall__rodata, log_consts)

static int rodata_header(const struct map_want *rodata, struct bw_hdr *hdr)
{
	return read_rodata(rodata, HDR_RODATA_MIN,
			   offsetof(struct bloomwall__rodata, filter_hdr), hdr,
			   sizeof(*hdr));
}

static int rodata_log_consts(const struct map_want *rodata,
			     struct bw_log_consts *lc)
{
	return read_rodata(rodata, sizeof(struct bloomwall__rodata),
			   offsetof(struct bloomwall__rodata, log_consts), lc,
			   sizeof(*lc));
}

/* The wants of bw_prog_open(), in this order. */
enum {
	W_STATS,
	W_ALLOW,
	W_EXACT,
	W_ALLOW_NAMES,
	W_DNS_STATS,
	W_DNS_DROPS,
	W_LOG_RING,
	W_LOG_STATS,
	W_WHO,
	W_MAPS, /* the maps of struct bw_maps end here */
	W_FILTER = W_MAPS,
	W_RODATA,
	W_ALL
};

_Static_assert(sizeof(((struct bw_maps *)0)->ids) / sizeof(__u32) == W_MAPS,
	       "an id for each map of struct bw_maps");

static int *maps_slot(struct bw_maps *mp, int w)
{
	int *slot[W_MAPS] = {
		&mp->stats,	  &mp->allow,	  &mp->exact,
		&mp->allow_names, &mp->dns_stats, &mp->dns_drops,
		&mp->log_ring,	  &mp->log_stats, &mp->who,
	};

	return slot[w];
}

/* stats, allow and exact: a program without them is not bloomwall's. */
static bool want_required(int w)
{
	return w == W_STATS || w == W_ALLOW || w == W_EXACT;
}

int bw_prog_open(int prog_fd, struct bw_maps *mp, struct bw_filter_map *filter,
		 int *filter_err, struct bw_hdr *hdr)
{
	struct map_want w[W_ALL] = {
		[W_STATS] = { .name = bw_textify(BW_MAP_STATS) },
		[W_ALLOW] = { .name = bw_textify(BW_MAP_ALLOW) },
		[W_EXACT] = { .name = bw_textify(BW_MAP_EXACT) },
		[W_ALLOW_NAMES] = { .name = bw_textify(BW_MAP_ALLOW_NAMES) },
		/*
		 * Older programs count fewer DNS outcomes: the new program
		 * gets a map of its own, its DNS counters start from zero.
		 */
		[W_DNS_STATS] = { .name = bw_textify(BW_MAP_DNS_STATS),
				  .min_value = sizeof(struct bw_dns_stats) },
		[W_DNS_DROPS] = { .name = bw_textify(BW_MAP_DNS_DROPS) },
		[W_LOG_RING] = { .name = bw_textify(BW_MAP_LOG_RING) },
		[W_LOG_STATS] = { .name = bw_textify(BW_MAP_LOG_STATS) },
		[W_WHO] = { .name = bw_textify(BW_MAP_INGRESS_WHO) },
		[W_FILTER] = { .name = filter ? BW_FILTER_MAP_NAME : NULL,
			       .min_value = BW_BLOCK_BYTES },
		[W_RODATA] = { .name = ".rodata", .min_value = HDR_RODATA_MIN },
	};
	struct bw_log_consts lc;
	int i, err;

	*mp = (struct bw_maps)BW_MAPS_INIT;
	if (filter) {
		*filter = (struct bw_filter_map)BW_FILTER_MAP_INIT;
		*filter_err = -ENOENT;
	}
	err = scan_maps(prog_fd, w, W_ALL);
	for (i = 0; !err && i < W_MAPS; i++) {
		if (w[i].fd < 0 && want_required(i))
			err = -ENOENT;
	}
	if (!err && hdr)
		err = rodata_header(&w[W_RODATA], hdr);
	if (!err && filter) {
		*filter_err = w[W_FILTER].fd < 0
				      ? -ENOENT
				      : bw_filter_open_fd(w[W_FILTER].fd, false,
							  filter);
		w[W_FILTER].fd = -1; /* the filter's now, or closed */
	}
	if (err) {
		close_wants(w, W_ALL);
		return err;
	}
	for (i = 0; i < W_MAPS; i++) {
		*maps_slot(mp, i) = w[i].fd;
		mp->ids[i] = w[i].id;
	}
	mp->log_rate =
		rodata_log_consts(&w[W_RODATA], &lc) ? -1 : (long)lc.rate;
	close_wants(&w[W_FILTER], W_ALL - W_FILTER);
	return 0;
}

int bw_prog_maps(int prog_fd, struct bw_maps *mp)
{
	return bw_prog_open(prog_fd, mp, NULL, NULL, NULL);
}

bool bw_maps_complete(const struct bw_maps *mp)
{
	struct bw_maps m = *mp;
	int i;

	for (i = 0; i < W_MAPS; i++) {
		if (*maps_slot(&m, i) < 0)
			return false;
	}
	return true;
}

int bw_maps_dup(const struct bw_maps *src, struct bw_maps *dst)
{
	struct bw_maps s = *src;
	int i, err = 0;

	*dst = (struct bw_maps)BW_MAPS_INIT;
	dst->log_rate = src->log_rate;
	memcpy(dst->ids, src->ids, sizeof(dst->ids));
	for (i = 0; !err && i < W_MAPS; i++) {
		int fd = *maps_slot(&s, i);

		*maps_slot(dst, i) = fd < 0 ? -1 : dup(fd);
		if (fd >= 0 && *maps_slot(dst, i) < 0)
			err = -errno;
	}
	if (err)
		bw_maps_close(dst);
	return err;
}

void bw_maps_replace(struct bw_maps *mp, int *slot, int fd)
{
	int i;

	for (i = 0; i < W_MAPS; i++)
		if (maps_slot(mp, i) == slot)
			mp->ids[i] = 0;
	if (*slot >= 0)
		close(*slot);
	*slot = fd;
}

int bw_prog_filter(int prog_fd, bool writable, struct bw_filter_map *m)
{
	struct map_want w = { .name = BW_FILTER_MAP_NAME,
			      .min_value = BW_BLOCK_BYTES };
	int err;

	*m = (struct bw_filter_map)BW_FILTER_MAP_INIT;
	err = scan_maps(prog_fd, &w, 1);
	if (err)
		return err;
	return w.fd < 0 ? -ENOENT : bw_filter_open_fd(w.fd, writable, m);
}

bool bw_prog_is_ours(int prog_fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return !bpf_obj_get_info_by_fd(prog_fd, &info, &len) &&
	       !strcmp(info.name, BW_PROG_NAME);
}

int bw_prog_log_consts(int prog_fd, struct bw_log_consts *lc)
{
	struct map_want w = { .name = ".rodata", .min_value = HDR_RODATA_MIN };
	int err;

	err = scan_maps(prog_fd, &w, 1);
	if (!err)
		err = rodata_log_consts(&w, lc);
	close_wants(&w, 1);
	return err;
}

/*
 * The egress program's own maps, where a running one has them. The
 * counters of a program from before who tried's latest sources sat in
 * egress_stats are not of this shape: they start again from 0.
 */
static int reuse_egress(struct bloomwall *skel, const struct bw_egress *eg)
{
	int err = 0;

	if (eg->stats >= 0 &&
	    bw_map_value_size(eg->stats) == sizeof(struct bw_egress_stats))
		err = bpf_map__reuse_fd(skel->maps.egress_stats, eg->stats);
	if (!err && eg->who >= 0)
		err = bpf_map__reuse_fd(skel->maps.egress_who, eg->who);
	if (!err && eg->dns >= 0)
		err = bpf_map__reuse_fd(skel->maps.egress_dns, eg->dns);
	return err;
}

int bw_prog_load_pair(const struct bw_maps *mp, const struct bw_filter_map *m,
		      const struct bw_egress *eg, int *tc_fd)
{
	struct bloomwall *skel;
	int fd, err;

	if (tc_fd)
		*tc_fd = -1;
	skel = bloomwall__open();
	if (!skel)
		return -errno;
	err = reuse_maps(skel, mp, m);
	if (!err && eg)
		err = reuse_egress(skel, eg);
	if (!err && !eg)
		err = bpf_program__set_autoload(skel->progs.bloomwall_tc,
						false);
	if (!err)
		err = bw_prog_specialise(skel, m);
	if (!err)
		bw_prog_specialise_log(skel, bw_prog_log_rate(mp->log_rate));
	if (!err)
		err = bloomwall__load(skel);
	fd = err ? -1 : dup(bpf_program__fd(skel->progs.bloomwall_xdp));
	if (!err && fd < 0)
		err = -errno;
	if (!err && eg) {
		*tc_fd = dup(bpf_program__fd(skel->progs.bloomwall_tc));
		if (*tc_fd < 0) {
			err = -errno;
			close(fd);
		}
	}
	bloomwall__destroy(skel);
	return err ? err : fd;
}

int bw_prog_load(const struct bw_maps *mp, const struct bw_filter_map *m)
{
	return bw_prog_load_pair(mp, m, NULL, NULL);
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
