// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Query names for the DNS rows and the structures that hold a list of
 * them: bloomwall's name regions (format 3, built here from the layout
 * contract with the CLI's own hashing, user/lists/names.c, and sizing,
 * bw_size_region) and dnsdist's hash map of wire-format names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bench.h"
#include "bench_dns.h"
#include "bench_maps.h"
#include "filter/bloom.h"
#include "filter/bloom_size.h"
#include "lists/names.h"

const unsigned int dns_label_counts[DNS_LABEL_COUNTS] = { 2, 4, 8 };

unsigned int dns_labels(__u64 i)
{
	return dns_label_counts[i % DNS_LABEL_COUNTS];
}

/* The tag letter of a label: its name's label count, its place (r >= 2). */
static char tag(unsigned int L, unsigned int r)
{
	unsigned int base = L == 2 ? 0 : L == 4 ? 1 : 4;

	return (char)('a' + base + r - 2);
}

/* 7 base-36 digits: distinct for distinct v < 36^7 (all __u32 are). */
static void base36(__u64 v, char *out)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	int k;

	for (k = 6; k >= 0; k--) {
		out[k] = digits[v % 36];
		v /= 36;
	}
}

size_t dns_name(unsigned int L, __u64 i, char *out)
{
	static const char *const tlds[] = { "com", "net", "org" };
	__u32 p = bench_perm((__u32)i);
	size_t len = 0;
	unsigned int r;

	for (r = L; r >= 2; r--) {
		out[len] = tag(L, r);
		/* Place 2 (the registered name) is what makes i distinct. */
		base36(r == 2 ? p : bench_perm((__u32)i ^ (r * 0x9e3779b9U)),
		       out + len + 1);
		out[len + 8] = '.';
		len += 9;
	}
	memcpy(out + len, tlds[p % 3], 3);
	return len + 3;
}

static struct bw_block *block_at(void *mem, __u32 idx)
{
	return (struct bw_block *)((char *)mem + (size_t)idx * BW_BLOCK_BYTES);
}

/* Header, info and DNS block of a filter with one name region of nb blocks. */
static void lay_out(void *mem, __u64 n, bool subtree, __u32 nb, __u8 probes,
		    __u8 action)
{
	struct bw_hdr *hdr = mem;
	struct bw_info *info = (struct bw_info *)block_at(mem, 1);
	struct bw_dns_hdr *dns = (struct bw_dns_hdr *)block_at(mem, 2);
	double fpr = BW_DEFAULT_FPR;
	int r;

	hdr->magic = BW_MAGIC;
	hdr->version = BW_VERSION;
	hdr->flags = BW_F_MATCH_SRC | BW_F_DNS;
	hdr->seed = BENCH_SEED;
	for (r = 0; r < BW_REGIONS; r++) {
		hdr->probes[r] = BW_ROUND_PROBES;
		hdr->region_end[r] = BW_HDR_BLOCKS;
	}
	info->generation = 1;
	info->entries = n;
	info->source_entries = n;
	bw_info_set_fpr(info, fpr);
	dns->magic = BW_DNS_MAGIC;
	dns->action = action;
	dns->ttl = 60;
	dns->probes[BW_NAME_EXACT] = dns->probes[BW_NAME_SUBTREE] = probes;
	/* The DNS block is block 2; the regions follow it, exact first. */
	dns->region_end[BW_NAME_EXACT] = BW_HDR_BLOCKS + 1 + (subtree ? 0 : nb);
	dns->region_end[BW_NAME_SUBTREE] = BW_HDR_BLOCKS + 1 + nb;
	dns->region_entries[subtree ? BW_NAME_SUBTREE : BW_NAME_EXACT] =
		(__u32)n;
	memcpy(&dns->fpr_bits, &fpr, sizeof(fpr));
}

/* The key of a list name: its subtree key, or its exact key. */
static __u64 entry_key(const char *name, size_t len, bool subtree)
{
	__u64 keys[BW_NAME_LABELS_MAX];
	int n = bw_name_hashes(name, len, BENCH_SEED, keys, BW_NAME_LABELS_MAX);

	if (n <= 0)
		return 0;
	return subtree ? keys[n - 1] : bw_name_key_exact(keys[n - 1]);
}

int dns_make_filter(__u64 n, bool subtree, __u8 action,
		    struct bw_filter_map *fm, struct bench_row *r)
{
	const struct bw_dns_hdr *dns;
	struct bw_dns_consts dc;
	char name[BW_NAME_MAX + 1];
	struct cost c;
	__u32 nb, region = subtree ? BW_NAME_SUBTREE : BW_NAME_EXACT, idx;
	__u8 probes;
	__u64 i, h;
	size_t len;
	int err;

	cost_begin(&c);
	err = bw_size_region(n, BW_DEFAULT_FPR, &nb, &probes);
	if (!err)
		err = bw_filter_create(BW_HDR_BLOCKS + 1 + nb, fm);
	if (err)
		return err;
	lay_out(fm->mem, n, subtree, nb, probes, action);
	dns = (const struct bw_dns_hdr *)block_at(fm->mem, 2);
	bw_dns_consts_init(fm->mem, dns, &dc);
	for (i = 0; i < n; i++) {
		len = dns_name(dns_labels(i), i, name);
		h = entry_key(name, len, subtree);
		idx = dc.start[region] + bw_block_index(h, dc.nblocks[region]);
		bw_block_set(block_at(fm->mem, idx), h, dc.probes[region]);
	}
	cost_end(&c, r, fm->fd);
	r->entries = n;
	return 0;
}

int dns_make_hash(__u64 n, struct bench_row *r)
{
	struct dd_value {
		__u64 counter;
		__u32 action;
		__u32 pad;
	} *v = bench_alloc(n * sizeof(*v));
	__u8 *k = bench_alloc(n * DNS_KEY_LEN);
	char name[BW_NAME_MAX + 1];
	__u8 wire[BW_WIRE_MAX];
	struct cost c;
	size_t len, wl;
	__u64 i;
	int fd, err;

	for (i = 0; i < n; i++) {
		len = dns_name(dns_labels(i), i, name);
		wl = bw_name_to_wire(name, len, wire);
		/* dnsdist's key stops before the root label's 0. */
		memcpy(k + i * DNS_KEY_LEN, wire, wl - 1);
		v[i].action = 2; /* their DROP */
	}
	cost_begin(&c);
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "bench_dd_names", DNS_KEY_LEN,
			    sizeof(*v), n, NULL);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = update_many(fd, k, DNS_KEY_LEN, v, sizeof(*v), n);
	cost_end(&c, r, fd);
	r->entries = n;
out:
	free(k);
	free(v);
	return err ? err : fd;
}

/* Whether key h is set in name region r of the filter at mem. */
static bool region_has(void *mem, const struct bw_dns_consts *dc, __u32 r,
		       __u64 h)
{
	__u32 idx;

	if (!dc->nblocks[r])
		return false;
	idx = dc->start[r] + bw_block_index(h, dc->nblocks[r]);
	return bw_block_test(block_at(mem, idx), h, dc->probes[r]);
}

bool dns_predict(const void *mem, const char *name, size_t len)
{
	const struct bw_dns_hdr *dns = (const void *)block_at((void *)mem, 2);
	__u64 keys[BW_NAME_LABELS_MAX];
	struct bw_dns_consts dc;
	int n, k;

	bw_dns_consts_init(mem, dns, &dc);
	n = bw_name_hashes(name, len, BENCH_SEED, keys, BW_NAME_LABELS_MAX);
	for (k = 0; k < n; k++)
		if (region_has((void *)mem, &dc, BW_NAME_SUBTREE, keys[k]))
			return true;
	return n > 0 && region_has((void *)mem, &dc, BW_NAME_EXACT,
				   bw_name_key_exact(keys[n - 1]));
}
