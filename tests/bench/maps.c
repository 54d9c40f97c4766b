// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The structures under test, created and filled from one key array: the
 * exact hash map, the LPM trie, the kernel's Bloom map, xdp-filter's own
 * object, and bloomwall's filter built by the CLI's builder code. Each
 * records its create+fill time, bpftool's memlock and the growth of the
 * kernel's own memory (kmem_bytes).
 *
 * Keys come in the list's packed IPv4 form, (addr << 8) | plen, host order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "bench_maps.h"
#include "filter/bloom.h"
#include "filter/builder.h"
#include "lists/cidr.h"

#define BATCH 65536

void cost_begin(struct cost *c)
{
	settle_memory();
	c->mem = kmem_bytes();
	c->t0 = now_ns();
}

void cost_end(const struct cost *c, struct bench_row *r, int fd)
{
	long long now;

	r->load_s = (now_ns() - c->t0) / 1e9;
	now = kmem_bytes();
	r->measured = c->mem >= 0 && now >= 0 ? now - c->mem : -1;
	r->memlock = fd_memlock(fd);
}

/* Batched updates, falling back to one by one where batches are refused. */
int update_many(int fd, void *keys, size_t ksz, void *vals, size_t vsz,
		size_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	size_t i, done;
	__u32 cnt;

	for (done = 0; done < n; done += cnt) {
		cnt = n - done < BATCH ? n - done : BATCH;
		if (!bpf_map_update_batch(fd, (char *)keys + done * ksz,
					  (char *)vals + done * vsz, &cnt,
					  &opts))
			continue;
		if (errno != EINVAL && errno != ENOTSUP &&
		    errno != 524 /* ENOTSUPP */)
			return -errno;
		break;
	}
	for (i = done; i < n; i++)
		if (bpf_map_update_elem(fd, (char *)keys + i * ksz,
					(char *)vals + i * vsz, BPF_ANY))
			return -errno;
	return 0;
}

int make_hash(const __u64 *keys, size_t n, struct bench_row *r)
{
	__u32 *k = bench_alloc(n * sizeof(*k));
	__u8 *v = bench_alloc(n);
	struct cost c;
	size_t i;
	int fd, err;

	for (i = 0; i < n; i++) {
		k[i] = htonl(bw_v4key_addr(keys[i]));
		v[i] = 1;
	}
	cost_begin(&c);
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "bench_hash", 4, 1, n, NULL);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = update_many(fd, k, 4, v, 1, n);
	cost_end(&c, r, fd);
	r->entries = n;
out:
	free(k);
	free(v);
	return err ? err : fd;
}

struct lpm_key {
	__u32 prefixlen;
	__u32 addr;
};

int make_lpm(const __u64 *keys, size_t n, struct bench_row *r)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	struct lpm_key *k = bench_alloc(n * sizeof(*k));
	__u8 *v = bench_alloc(n);
	struct cost c;
	size_t i;
	int fd, err;

	for (i = 0; i < n; i++) {
		k[i].prefixlen = bw_v4key_plen(keys[i]);
		k[i].addr = htonl(bw_v4key_addr(keys[i]));
		v[i] = 1;
	}
	cost_begin(&c);
	fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "bench_lpm", sizeof(*k), 1,
			    n, &opts);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = update_many(fd, k, sizeof(*k), v, 1, n);
	cost_end(&c, r, fd);
	r->entries = n;
out:
	free(k);
	free(v);
	return err ? err : fd;
}

/* BPF_MAP_TYPE_BLOOM_FILTER: no key, the value is the element. */
int make_kbloom(const __u64 *keys, size_t n, struct bench_row *r)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_extra = 7);
	struct cost c;
	__u32 v;
	size_t i;
	int fd;

	cost_begin(&c);
	fd = bpf_map_create(BPF_MAP_TYPE_BLOOM_FILTER, "bench_bloom", 0, 4, n,
			    &opts);
	if (fd < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		v = htonl(bw_v4key_addr(keys[i]));
		if (bpf_map_update_elem(fd, NULL, &v, BPF_ANY)) {
			close(fd);
			return -errno;
		}
	}
	cost_end(&c, r, fd);
	r->entries = n;
	return fd;
}

/* Keys and per-CPU __u64 values, 1 (the source flag) on every CPU. */
static int prep_xdpfilter(const __u64 *keys, size_t n, __u32 **kp, __u64 **vp)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t i;

	if (ncpu < 1)
		return ncpu;
	*kp = bench_alloc(n * sizeof(**kp));
	*vp = bench_alloc(n * ncpu * sizeof(**vp));
	for (i = 0; i < n; i++)
		(*kp)[i] = htonl(bw_v4key_addr(keys[i]));
	for (i = 0; i < n * ncpu; i++)
		(*vp)[i] = 1;
	return ncpu;
}

/*
 * xdp-filter's blocklist object as Debian ships it, loaded with plain
 * libbpf: the IPv4 map raised to n entries, nothing pinned.
 */
int make_xdpfilter(const __u64 *keys, size_t n, struct bench_row *r,
		   struct bpf_object **objp)
{
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_map *map;
	__u32 *k = NULL;
	__u64 *v = NULL;
	struct cost c;
	int err, ncpu;

	obj = bpf_object__open_file(XDPFILT_PATH, NULL);
	if (!obj)
		return -errno;
	bpf_object__for_each_map(map, obj) bpf_map__set_pin_path(map, NULL);
	map = bpf_object__find_map_by_name(obj, "filter_ipv4");
	ncpu = prep_xdpfilter(keys, n, &k, &v);
	err = !map ? -ENOENT : ncpu < 0 ? ncpu : 0;
	if (err)
		goto err;
	bpf_map__set_max_entries(map, n);
	/* The harness that tail-calls it is xdp.frags (bench.bpf.c). */
	prog = bpf_object__find_program_by_name(obj, "xdpfilt_alw_ip");
	if (prog)
		bpf_program__set_flags(prog, bpf_program__flags(prog) |
						     BPF_F_XDP_HAS_FRAGS);
	cost_begin(&c);
	err = bpf_object__load(obj);
	if (!err)
		err = update_many(bpf_map__fd(map), k, 4, v, ncpu * sizeof(*v),
				  n);
	if (err)
		goto err;
	cost_end(&c, r, bpf_map__fd(map));
	r->entries = n;
	*objp = obj;
	free(k);
	free(v);
	return bpf_program__fd(
		bpf_object__find_program_by_name(obj, "xdpfilt_alw_ip"));
err:
	free(k);
	free(v);
	bpf_object__close(obj);
	return err;
}

/*
 * bloomwall's filter as the CLI builds it: list, merge and expansion
 * (bw_cidr_prepare), plan, create, fill. max_len 0 is the CLI's default.
 */
static int build_list(struct bw_list *in, unsigned int max_len,
		      struct bw_filter_map *fm, struct bench_row *r,
		      struct bw_cidr_stats *st, struct cost *cp);

int make_bloomwall(const __u64 *keys, size_t n, unsigned int max_len,
		   struct bw_filter_map *fm, struct bench_row *r,
		   struct bw_cidr_stats *st)
{
	struct bw_prefix p = { .family = BW_V4 };
	struct bw_list in;
	struct cost c;
	size_t i;
	int err = 0;

	bw_list_init(&in);
	cost_begin(&c);
	for (i = 0; i < n && !err; i++) {
		p.lo = bw_v4key_addr(keys[i]);
		p.plen = bw_v4key_plen(keys[i]);
		err = bw_list_push(&in, &p);
	}
	if (!err)
		err = build_list(&in, max_len, fm, r, st, &c);
	bw_list_free(&in);
	return err;
}

/* bloomwall's filter for n IPv6 /128s, as the CLI builds it. */
int make_bloomwall6(const struct bench_v6 *keys, size_t n,
		    struct bw_filter_map *fm, struct bench_row *r,
		    struct bw_cidr_stats *st)
{
	struct bw_prefix p = { .family = BW_V6, .plen = 128 };
	struct bw_list in;
	struct cost c;
	size_t i;
	int err = 0;

	bw_list_init(&in);
	cost_begin(&c);
	for (i = 0; i < n && !err; i++) {
		p.hi = keys[i].hi;
		p.lo = keys[i].lo;
		err = bw_list_push(&in, &p);
	}
	if (!err)
		err = build_list(&in, 0, fm, r, st, &c);
	bw_list_free(&in);
	return err;
}

/* Merge, plan, create, fill: the CLI's build of a pushed list. */
static int build_list(struct bw_list *in, unsigned int max_len,
		      struct bw_filter_map *fm, struct bench_row *r,
		      struct bw_cidr_stats *st, struct cost *cp)
{
	struct bw_build_opts bo;
	struct bw_cidr_opts co;
	struct bw_plan plan;
	struct bw_list out;
	struct cost c = *cp;
	int err;

	bw_list_init(&out);
	bw_cidr_opts_init(&co);
	if (max_len)
		co.max_lengths[BW_V4] = max_len;
	err = bw_cidr_prepare(in, &co, &out, st);
	if (err)
		goto out;
	bw_build_opts_init(&bo);
	bo.seed = BENCH_SEED;
	err = bw_plan_filter(&out, &bo, &plan);
	/* The lists are userspace memory: count the kernel's part only. */
	c.mem = kmem_bytes();
	if (!err)
		err = bw_filter_create(plan.nblocks, fm);
	if (err)
		goto out;
	bw_fill_filter(fm->mem, &plan, &out);
	cost_end(&c, r, fm->fd);
	r->entries = plan.info.entries;
out:
	bw_list_free(&out);
	return err;
}
