// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The IPv6 structures under test, created and filled from one array of
 * /128s: the exact hash map, the LPM trie, the kernel's Bloom map and
 * xdp-filter's own object (its filter_ipv6 map). Each records what maps.c's
 * IPv4 makers record: create+fill time, memlock, kernel memory growth.
 * bloomwall's IPv6 filter is make_bloomwall6 in maps.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "bench_maps.h"

/* The keys as the frame holds them: 16 bytes each, network order. */
static __u8 *wire_keys(const struct bench_v6 *keys, size_t n, size_t stride,
		       size_t off)
{
	__u8 *k = bench_alloc(n * stride);
	size_t i;

	for (i = 0; i < n; i++)
		put_v6(k + i * stride + off, &keys[i]);
	return k;
}

int make_hash6(const struct bench_v6 *keys, size_t n, struct bench_row *r)
{
	__u8 *k = wire_keys(keys, n, 16, 0), *v = bench_alloc(n);
	struct cost c;
	int fd, err;

	memset(v, 1, n);
	cost_begin(&c);
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "bench_hash6", 16, 1, n, NULL);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = update_many(fd, k, 16, v, 1, n);
	cost_end(&c, r, fd);
	r->entries = n;
out:
	free(k);
	free(v);
	return err ? err : fd;
}

/* LPM key: __u32 prefixlen, then the 16 address bytes. */
#define LPM6_KEY 20

int make_lpm6(const struct bench_v6 *keys, size_t n, struct bench_row *r)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	__u8 *k = wire_keys(keys, n, LPM6_KEY, 4), *v = bench_alloc(n);
	__u32 plen = 128;
	struct cost c;
	size_t i;
	int fd, err;

	for (i = 0; i < n; i++)
		memcpy(k + i * LPM6_KEY, &plen, sizeof(plen));
	memset(v, 1, n);
	cost_begin(&c);
	fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "bench_lpm6", LPM6_KEY, 1, n,
			    &opts);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = update_many(fd, k, LPM6_KEY, v, 1, n);
	cost_end(&c, r, fd);
	r->entries = n;
out:
	free(k);
	free(v);
	return err ? err : fd;
}

int make_kbloom6(const struct bench_v6 *keys, size_t n, struct bench_row *r)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_extra = 7);
	struct cost c;
	__u8 v[16];
	size_t i;
	int fd;

	cost_begin(&c);
	fd = bpf_map_create(BPF_MAP_TYPE_BLOOM_FILTER, "bench_bloom6", 0, 16, n,
			    &opts);
	if (fd < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		put_v6(v, &keys[i]);
		if (bpf_map_update_elem(fd, NULL, v, BPF_ANY)) {
			close(fd);
			return -errno;
		}
	}
	cost_end(&c, r, fd);
	r->entries = n;
	return fd;
}

/*
 * xdp-filter's object as Debian ships it (see make_xdpfilter): the IPv6
 * map raised to n entries, per-CPU values 1 (the source flag).
 */
int make_xdpfilter6(const struct bench_v6 *keys, size_t n, struct bench_row *r,
		    struct bpf_object **objp)
{
	int ncpu = libbpf_num_possible_cpus(), err;
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_map *map;
	__u8 *k = NULL;
	__u64 *v = NULL;
	struct cost c;
	size_t i;

	obj = bpf_object__open_file(XDPFILT_PATH, NULL);
	if (!obj)
		return -errno;
	bpf_object__for_each_map(map, obj) bpf_map__set_pin_path(map, NULL);
	map = bpf_object__find_map_by_name(obj, "filter_ipv6");
	prog = bpf_object__find_program_by_name(obj, "xdpfilt_alw_ip");
	err = !map || !prog ? -ENOENT : ncpu < 1 ? -EINVAL : 0;
	if (err)
		goto err;
	bpf_map__set_max_entries(map, n);
	bpf_program__set_flags(prog,
			       bpf_program__flags(prog) | BPF_F_XDP_HAS_FRAGS);
	k = wire_keys(keys, n, 16, 0);
	v = bench_alloc(n * ncpu * sizeof(*v));
	for (i = 0; i < n * ncpu; i++)
		v[i] = 1;
	cost_begin(&c);
	err = bpf_object__load(obj);
	if (!err)
		err = update_many(bpf_map__fd(map), k, 16, v, ncpu * sizeof(*v),
				  n);
	if (err)
		goto err;
	cost_end(&c, r, bpf_map__fd(map));
	r->entries = n;
	*objp = obj;
	free(k);
	free(v);
	return bpf_program__fd(prog);
err:
	free(k);
	free(v);
	bpf_object__close(obj);
	return err;
}
