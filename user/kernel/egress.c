// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The TC egress hook (egress.h): clsact through libbpf 1.1's bpf_tc_hook_
 * create and bpf_tc_attach. tcx links (BPF_TCX_EGRESS) would give a
 * bpf_link with an expected-program replace, but need libbpf 1.3 and
 * kernel 6.6; the netlink filter at a fixed handle and priority works
 * with Debian 12's libbpf and every kernel with clsact, and a replace
 * there is one atomic change of the filter's program too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bloomwall.h"
#include "kernel/egress.h"
#include "kernel/filter_map.h"
#include "kernel/lpm.h"

void bw_egress_close(struct bw_egress *e)
{
	int *fds[] = { &e->prog_fd, &e->stats, &e->who, &e->dns };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
	}
	*e = (struct bw_egress)BW_EGRESS_INIT;
}

/* The maps of the egress program: its own, and the filter it reads. */
static void egress_maps(struct bw_egress *e)
{
	const struct {
		const char *name;
		int *fd;
	} own[] = {
		{ bw_textify(BW_MAP_EGRESS_STATS), &e->stats },
		{ bw_textify(BW_MAP_EGRESS_WHO), &e->who },
		{ bw_textify(BW_MAP_EGRESS_DNS), &e->dns },
	};
	struct bpf_prog_info info = {};
	struct bpf_map_info mi;
	__u32 ids[16], len = sizeof(info), mlen, i, n;
	size_t j;
	int fd;

	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(e->prog_fd, &info, &len))
		return;
	n = info.nr_map_ids < 16 ? info.nr_map_ids : 16;
	for (i = 0; i < n; i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		mlen = sizeof(mi);
		if (bpf_obj_get_info_by_fd(fd, &mi, &mlen)) {
			close(fd);
			continue;
		}
		if (!strcmp(mi.name, BW_FILTER_MAP_NAME))
			e->filter_id = mi.id;
		for (j = 0; j < sizeof(own) / sizeof(own[0]); j++)
			if (*own[j].fd < 0 && !strcmp(mi.name, own[j].name))
				break;
		if (j < sizeof(own) / sizeof(own[0]))
			*own[j].fd = fd;
		else
			close(fd);
	}
}

#define TC_HOOK(name, ifx)                                       \
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, name, .ifindex = (ifx), \
			    .attach_point = BPF_TC_EGRESS)

int bw_egress_find(int ifindex, struct bw_egress *e)
{
	TC_HOOK(hook, ifindex);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = BW_TC_HANDLE,
			    .priority = BW_TC_PRIORITY);
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int err;

	*e = (struct bw_egress)BW_EGRESS_INIT;
	err = bpf_tc_query(&hook, &opts);
	if (err)
		return err == -EINVAL || err == -ENOENT ? -ENOENT : err;
	e->prog_fd = bpf_prog_get_fd_by_id(opts.prog_id);
	if (e->prog_fd < 0) {
		err = -errno;
		e->prog_fd = -1;
		return err == -ENOENT ? -ENOENT : err;
	}
	if (bpf_obj_get_info_by_fd(e->prog_fd, &info, &len) ||
	    strcmp(info.name, BW_TC_PROG_NAME)) {
		bw_egress_close(e);
		return -ENOENT;
	}
	e->prog_id = info.id;
	egress_maps(e);
	return 0;
}

int bw_egress_attach(int ifindex, int prog_fd)
{
	TC_HOOK(hook, ifindex);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = BW_TC_HANDLE,
			    .priority = BW_TC_PRIORITY, .prog_fd = prog_fd,
			    .flags = BPF_TC_F_REPLACE);
	int err;

	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return err;
	return bpf_tc_attach(&hook, &opts);
}

int bw_egress_detach(int ifindex)
{
	TC_HOOK(hook, ifindex);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = BW_TC_HANDLE,
			    .priority = BW_TC_PRIORITY);
	int err;

	err = bpf_tc_detach(&hook, &opts);
	return err == -EINVAL ? -ENOENT : err;
}

/* The map ids of a program (at most max); 0 for no program. */
static __u32 map_ids(int prog_fd, __u32 *ids, __u32 max)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (prog_fd < 0)
		return 0;
	info.nr_map_ids = max;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	return info.nr_map_ids < max ? info.nr_map_ids : max;
}

static bool has_id(const __u32 *ids, __u32 n, __u32 id)
{
	__u32 i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

static long long id_memlock(__u32 id)
{
	int fd = bpf_map_get_fd_by_id(id);
	long long mem;

	if (fd < 0)
		return -errno;
	mem = bw_map_memlock(fd);
	close(fd);
	return mem;
}

int bw_hooks_memlock(int xdp_fd, int tc_fd, long long *all, long long *tc_alone)
{
	__u32 x[16], t[16], nx, nt, i;
	long long mem;

	*all = *tc_alone = 0;
	nx = map_ids(xdp_fd, x, 16);
	nt = map_ids(tc_fd, t, 16);
	for (i = 0; i < nx + nt; i++) {
		__u32 id = i < nx ? x[i] : t[i - nx];
		bool tc_only = i >= nx && !has_id(x, nx, id);

		/* Each map once: a shared one is counted with the XDP's. */
		if (i >= nx && !tc_only)
			continue;
		if (i < nx && has_id(x, i, id))
			continue;
		if (i >= nx && has_id(t, i - nx, id))
			continue;
		mem = id_memlock(id);
		if (mem < 0)
			return (int)mem;
		*all += mem;
		if (tc_only)
			*tc_alone += mem;
	}
	return 0;
}

static int by_packets(const void *a, const void *b)
{
	const struct bw_who_row *x = a, *y = b;

	return x->packets < y->packets ? 1 : x->packets > y->packets ? -1 : 0;
}

/* One more source's packets in all (n rows of room): the rows now. */
static int add_row(const struct bw_who_key *k, __u64 packets,
		   struct bw_who_row *all, int n, int room)
{
	int i;

	for (i = 0; i < n; i++)
		if (!memcmp(&all[i].key, k, sizeof(*k)))
			break;
	if (i == n && n == room)
		return n;
	if (i == n) {
		all[n].key = *k;
		all[n++].packets = 0;
	}
	all[i].packets += packets;
	return n;
}

/*
 * Each CPU's latest sources (egress_stats, stats_fd) added to their rows
 * of all. A program from before them has a plain struct bw_stats there.
 */
static int add_latest(int stats_fd, struct bw_who_row *all, int n, int room)
{
	int ncpu = libbpf_num_possible_cpus(), c, f;
	struct bw_egress_stats *s;
	struct bw_who_key k;
	__u32 zero = 0;

	if (ncpu <= 0 || bw_map_value_size(stats_fd) != sizeof(*s))
		return n;
	s = calloc((size_t)ncpu, sizeof(*s));
	if (!s || bpf_map_lookup_elem(stats_fd, &zero, s)) {
		free(s);
		return n;
	}
	for (c = 0; c < ncpu; c++)
		for (f = 0; f < BW_FAMILIES; f++) {
			if (!s[c].latest[f].packets)
				continue;
			k = bw_who_latest_key(s[c].latest[f].raw, (__u32)f);
			n = add_row(&k, s[c].latest[f].packets, all, n, room);
		}
	free(s);
	return n;
}

int bw_who_top(int fd, int stats_fd, struct bw_who_row *rows, int max)
{
	/* The LRU's sources, and room for as many more in the CPUs' latest. */
	struct bw_who_row all[2 * BW_WHO_MAX];
	struct bw_who_key key, next;
	void *prev = NULL;
	int n = 0;

	while (n < BW_WHO_MAX && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		all[n].key = key;
		if (bpf_map_lookup_elem(fd, &key, &all[n].packets))
			continue; /* gone since: the LRU took it */
		n++;
	}
	if (stats_fd >= 0)
		n = add_latest(stats_fd, all, n, 2 * BW_WHO_MAX);
	qsort(all, (size_t)n, sizeof(all[0]), by_packets);
	if (n > max)
		n = max;
	memcpy(rows, all, (size_t)n * sizeof(rows[0]));
	return n;
}
