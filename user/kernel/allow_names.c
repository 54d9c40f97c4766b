// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The name allowlist map: entries with who put them there, staged before
 * a swap and pruned after it, and the match a query name meets
 * (allow_names.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "filter/bloom_names.h"
#include "kernel/allow_names.h"
#include "filter/bloom.h"
#include "lists/names.h"

__u64 bw_allow_name_key(const char *name, size_t len, bool subtree)
{
	return bw_name_entry_key(name, len, subtree, BW_NAME_ALLOW_SEED);
}

size_t bw_allow_names_count(int fd, __u8 bits)
{
	__u64 cur, next, *prev = NULL;
	size_t n = 0;
	__u8 v;

	if (fd < 0)
		return 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		cur = next;
		prev = &cur;
		if (!bpf_map_lookup_elem(fd, &cur, &v) && (v & bits))
			n++;
	}
	return n;
}

bool bw_allow_names_any(int fd, __u8 bits)
{
	return bw_allow_names_count(fd, bits) > 0;
}

static int update_bit(int fd, __u64 key, __u8 bit, bool on)
{
	__u8 v = 0, nv;

	if (bpf_map_lookup_elem(fd, &key, &v) && errno != ENOENT)
		return -errno;
	nv = on ? v | bit : v & (__u8)~bit;
	if (nv == v)
		return 0;
	if (!nv)
		return bpf_map_delete_elem(fd, &key) ? -errno : 1;
	return bpf_map_update_elem(fd, &key, &nv, BPF_ANY) ? -errno : 1;
}

int bw_allow_name_set(int fd, const char *name, size_t len, bool subtree,
		      __u8 bit, bool on)
{
	if (fd < 0)
		return -EOPNOTSUPP;
	return update_bit(fd, bw_allow_name_key(name, len, subtree), bit, on);
}

bool bw_allow_name_present(int fd, const char *name, size_t len, bool subtree)
{
	__u64 key = bw_allow_name_key(name, len, subtree);
	__u8 v;

	return fd >= 0 && !bpf_map_lookup_elem(fd, &key, &v);
}

__u32 bw_allow_names_max(int fd)
{
	struct bpf_map_info mi = {};
	__u32 len = sizeof(mi);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &mi, &len))
		return 0;
	return mi.max_entries;
}

int bw_allow_names_stage(int fd, const struct bw_list *l, __u8 bit)
{
	const struct bw_domain *d;
	size_t i;
	int err;

	for (i = 0; i < l->ndom; i++) {
		d = &l->dom[i];
		if (fd < 0)
			return -EOPNOTSUPP;
		err = update_bit(fd,
				 bw_allow_name_key(bw_domain_name(l, d), d->len,
						   d->flags & BW_DOM_SUBTREE),
				 bit, true);
		if (err < 0)
			return err == -E2BIG ? -ENOSPC : err;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return (x > y) - (x < y);
}

int bw_allow_names_prune(int fd, const struct bw_list *l, __u8 bit)
{
	__u64 *keys, cur, next, *prev = NULL;
	size_t i;
	__u8 v;
	int err = 0;

	if (fd < 0)
		return 0;
	keys = malloc((l->ndom ?: 1) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < l->ndom; i++)
		keys[i] = bw_allow_name_key(bw_domain_name(l, &l->dom[i]),
					    l->dom[i].len,
					    l->dom[i].flags & BW_DOM_SUBTREE);
	qsort(keys, l->ndom, sizeof(*keys), cmp_u64);
	/* A deleted key would end the walk: walk from the start again. */
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		cur = next;
		prev = &cur;
		if (bpf_map_lookup_elem(fd, &cur, &v) || !(v & bit) ||
		    bsearch(&cur, keys, l->ndom, sizeof(*keys), cmp_u64))
			continue;
		err = update_bit(fd, cur, bit, false);
		if (err < 0)
			break;
		err = 0;
		if (!(v & (__u8)~bit))
			prev = NULL;
	}
	free(keys);
	return err;
}

int bw_allow_names_match(int fd, const char *name, size_t len, bool *subtree,
			 int *labels)
{
	__u64 keys[BW_NAME_LABELS_MAX], k;
	int n, i;
	__u8 v;

	if (fd < 0)
		return 0;
	n = bw_name_hashes(name, len, BW_NAME_ALLOW_SEED, keys,
			   BW_NAME_LABELS_MAX);
	if (n <= 0)
		return 0;
	k = bw_name_key_exact(keys[n - 1]);
	if (!bpf_map_lookup_elem(fd, &k, &v)) {
		*subtree = false;
		*labels = n;
		return 1;
	}
	for (i = n - 1; i >= 0; i--) {
		if (!bpf_map_lookup_elem(fd, &keys[i], &v)) {
			*subtree = true;
			*labels = i + 1;
			return 1;
		}
	}
	return 0;
}

__u32 bw_allow_names_room(size_t n)
{
	size_t room = n > BW_ALLOW_MAX / 2 ? BW_ALLOW_MAX : 2 * n;

	return room < BW_ALLOW_NAMES_MIN ? BW_ALLOW_NAMES_MIN : (__u32)room;
}

int bw_allow_names_resized(int fd, size_t need, size_t hold, int *out)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);
	struct bpf_map_info mi = {};
	__u32 len = sizeof(mi);
	__u64 cur, next, *prev = NULL;
	__u8 v;
	int nfd, err = 0;

	*out = -1;
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &mi, &len))
		return fd < 0 ? 0 : -errno;
	if ((mi.max_entries >= need &&
	     mi.max_entries >= bw_allow_names_room(hold)) ||
	    mi.max_entries >= BW_ALLOW_MAX)
		return 0;
	need = need > hold ? need : hold;
	nfd = bpf_map_create(BPF_MAP_TYPE_HASH, bw_textify(BW_MAP_ALLOW_NAMES),
			     sizeof(__u64), sizeof(__u8),
			     bw_allow_names_room(need), &o);
	if (nfd < 0)
		return -errno;
	while (!err && !bpf_map_get_next_key(fd, prev, &next)) {
		cur = next;
		prev = &cur;
		if (!bpf_map_lookup_elem(fd, &cur, &v) &&
		    bpf_map_update_elem(nfd, &cur, &v, BPF_ANY))
			err = -errno;
	}
	if (err) {
		close(nfd);
		return err;
	}
	*out = nfd;
	return 0;
}
