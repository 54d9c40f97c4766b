// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Exact LPM tries: keys, creation, filling, counting, the verify slots and
 * the allowlist's replace-without-a-gap.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "base/log.h"
#include "kernel/lpm.h"

void bw_lpm_key_of(struct bw_lpm_key *k, const struct bw_prefix *p)
{
	__u64 hi = bw_mask64(p->hi, p->plen), lo;

	if (p->family == BW_V4)
		lo = bw_mask_v4((__u32)p->lo, p->plen);
	else
		lo = p->plen > 64 ? bw_mask64(p->lo, p->plen - 64) : 0;
	memset(k, 0, sizeof(*k));
	bw_lpm_key_set(k, p->family, p->family == BW_V4 ? 0 : hi, lo, p->plen);
}

static __u64 be64_at(const __u8 *b)
{
	__u64 v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

void bw_lpm_prefix_of(const struct bw_lpm_key *k, struct bw_prefix *p)
{
	memset(p, 0, sizeof(*p));
	p->plen = (__u8)(k->prefixlen > BW_LPM_ADDR_OFFSET
				 ? k->prefixlen - BW_LPM_ADDR_OFFSET
				 : 0);
	if (k->family == BW_LPM_FAMILY_V4) {
		p->family = BW_V4;
		p->lo = be64_at(k->addr) >> 32;
		return;
	}
	p->family = BW_V6;
	p->hi = be64_at(k->addr);
	p->lo = be64_at(k->addr + 8);
}

void bw_list_prefix(const struct bw_list *l, size_t i, struct bw_prefix *p)
{
	memset(p, 0, sizeof(*p));
	if (i < l->n4) {
		p->family = BW_V4;
		p->lo = bw_v4key_addr(l->v4[i]);
		p->plen = (__u8)bw_v4key_plen(l->v4[i]);
		return;
	}
	i -= l->n4;
	p->family = BW_V6;
	p->hi = l->v6[i].hi;
	p->lo = l->v6[i].lo;
	p->plen = (__u8)l->v6[i].plen;
}

/*
 * BTF of the tries' key and value, made once per process, so that bpftool
 * shows an exact trie's keys by field as it does the allowlist's (which
 * libbpf creates from the object's BTF). -1 if the kernel refuses it: the
 * tries work without.
 */
static int lpm_btf(__u32 *key_id, __u32 *value_id)
{
	static int fd = -2;
	static __u32 kid, vid;
	struct btf *btf;
	int u8, u32, pad, addr;

	if (fd == -2) {
		fd = -1;
		btf = btf__new_empty();
		if (!btf)
			return fd;
		u8 = btf__add_int(btf, "__u8", 1, 0);
		u32 = btf__add_int(btf, "__u32", 4, 0);
		pad = btf__add_array(btf, u32, u8, 3);
		addr = btf__add_array(btf, u32, u8, 16);
		kid = btf__add_struct(btf, "bw_lpm_key",
				      sizeof(struct bw_lpm_key));
		/* Fields go to the struct added last. */
		if (u8 > 0 && u32 > 0 && pad > 0 && addr > 0 && (int)kid > 0 &&
		    !btf__add_field(btf, "prefixlen", u32, 0, 0) &&
		    !btf__add_field(btf, "family", u8, 32, 0) &&
		    !btf__add_field(btf, "pad", pad, 40, 0) &&
		    !btf__add_field(btf, "addr", addr, 64, 0) &&
		    !btf__load_into_kernel(btf)) {
			fd = dup(btf__fd(btf));
			vid = u8;
		}
		btf__free(btf);
	}
	*key_id = kid;
	*value_id = vid;
	return fd;
}

int bw_lpm_create(const char *name, __u32 max_entries)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	int fd;

	opts.btf_fd = lpm_btf(&opts.btf_key_type_id, &opts.btf_value_type_id);
	if ((int)opts.btf_fd < 0)
		opts.btf_fd = 0;
	fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, name,
			    sizeof(struct bw_lpm_key), sizeof(__u8),
			    max_entries ?: 1, &opts);
	if (fd < 0 && opts.btf_fd) {
		opts.btf_fd = opts.btf_key_type_id = opts.btf_value_type_id = 0;
		fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, name,
				    sizeof(struct bw_lpm_key), sizeof(__u8),
				    max_entries ?: 1, &opts);
	}
	return fd < 0 ? -errno : fd;
}

int bw_lpm_fill(int fd, const struct bw_list *l)
{
	struct bw_lpm_key k;
	struct bw_prefix p;
	size_t i, n = l->n4 + l->n6;
	__u8 one = 1;

	for (i = 0; i < n; i++) {
		bw_list_prefix(l, i, &p);
		bw_lpm_key_of(&k, &p);
		if (bpf_map_update_elem(fd, &k, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

long long bw_lpm_count(int fd)
{
	struct bw_lpm_key k, next;
	long long n = 0;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		n++;
	}
	return errno == ENOENT ? n : -errno;
}

bool bw_lpm_has_entries(int fd)
{
	struct bw_lpm_key first; /* the larger of today's and the older key */

	return !bpf_map_get_next_key(fd, NULL, &first);
}

long long bw_map_memlock(int fd)
{
	char path[64], line[128];
	long long v = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

long long bw_map_value_size(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	return info.value_size;
}

int bw_lpm_match(int fd, const struct bw_prefix *addr)
{
	struct bw_lpm_key k;
	__u8 v;

	memset(&k, 0, sizeof(k));
	bw_lpm_key_set(&k, addr->family, addr->hi, addr->lo,
		       addr->family == BW_V4 ? 32 : 128);
	if (!bpf_map_lookup_elem(fd, &k, &v))
		return 1;
	return errno == ENOENT ? 0 : -errno;
}

static __u32 map_key_size(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.key_size;
}

bool bw_lpm_is_v1(int fd)
{
	return map_key_size(fd) == sizeof(struct bw_lpm_key_v1);
}

void bw_lpm_prefix_of_v1(const struct bw_lpm_key_v1 *k, struct bw_prefix *p)
{
	static const __u8 mapped[12] = { [10] = 0xff, [11] = 0xff };
	int i;

	memset(p, 0, sizeof(*p));
	if (k->prefixlen >= 96 && !memcmp(k->addr, mapped, sizeof(mapped))) {
		p->family = BW_V4;
		for (i = 12; i < 16; i++)
			p->lo = p->lo << 8 | k->addr[i];
		p->plen = (__u8)(k->prefixlen - 96);
		return;
	}
	p->family = BW_V6;
	for (i = 0; i < 8; i++) {
		p->hi = p->hi << 8 | k->addr[i];
		p->lo = p->lo << 8 | k->addr[8 + i];
	}
	p->plen = (__u8)(k->prefixlen > 128 ? 128 : k->prefixlen);
}

int bw_lpm_pin_check(int fd, const char *iface, const char *name)
{
	__u32 ksize = 0, slot;
	int trie;

	if (!strcmp(name, BW_PIN_ALLOW)) {
		ksize = map_key_size(fd);
	} else if (!strcmp(name, BW_PIN_EXACT)) {
		for (slot = 0; slot < BW_EXACT_SLOTS && !ksize; slot++) {
			trie = bw_exact_open(fd, slot);
			if (trie >= 0) {
				ksize = map_key_size(trie);
				close(trie);
			}
		}
	}
	if (!ksize || ksize == sizeof(struct bw_lpm_key))
		return 0;
	pr_warn("%s: the pinned '%s' trie has keys of %u bytes, made by an older bloomwall (IPv4 as ::ffff:a.b.c.d): run 'bloomwall detach %s' and attach again\n",
		iface, name, ksize, iface);
	return -ESTALE;
}

/* ---- verify mode's slots ------------------------------------------------ */

int bw_exact_outer_create(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int tmpl, fd;

	/* Only its key and value sizes count: any trie of ours will do. */
	tmpl = bw_lpm_create("exact_tmpl", 1);
	if (tmpl < 0)
		return tmpl;
	opts.inner_map_fd = tmpl;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, BW_PIN_EXACT,
			    sizeof(__u32), sizeof(__u32), BW_EXACT_SLOTS,
			    &opts);
	fd = fd < 0 ? -errno : fd;
	close(tmpl);
	return fd;
}

int bw_exact_open(int outer_fd, __u32 slot)
{
	__u32 id;
	int fd;

	if (bpf_map_lookup_elem(outer_fd, &slot, &id))
		return -errno;
	fd = bpf_map_get_fd_by_id(id);
	return fd < 0 ? -errno : fd;
}

int bw_exact_set(int outer_fd, __u32 slot, int trie_fd)
{
	__u32 v = (__u32)trie_fd;

	if (bpf_map_update_elem(outer_fd, &slot, &v, BPF_ANY))
		return -errno;
	return 0;
}

int bw_exact_clear(int outer_fd, __u32 slot)
{
	if (bpf_map_delete_elem(outer_fd, &slot) && errno != ENOENT)
		return -errno;
	return 0;
}
