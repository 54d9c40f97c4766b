// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The allowlist as a whole: read a trie into a list, a list into a new
 * trie, and compare lists (allowlist.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kernel/allowlist.h"
#include "bloomwall.h"
#include "kernel/lpm.h"

/* Either key: the kernel copies key_size bytes, the buffer fits both. */
union any_key {
	struct bw_lpm_key key;
	struct bw_lpm_key_v1 v1;
};

int bw_allow_read(int fd, struct bw_list *l)
{
	/* An older bloomwall's allowlist is read as it was keyed (lpm.h). */
	bool v1 = bw_lpm_is_v1(fd);
	union any_key cur, next;
	struct bw_prefix p;
	void *prev = NULL;
	int err;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		cur = next;
		prev = &cur;
		if (v1)
			bw_lpm_prefix_of_v1(&cur.v1, &p);
		else
			bw_lpm_prefix_of(&cur.key, &p);
		err = bw_list_push(l, &p);
		if (err)
			return err;
	}
	if (errno != ENOENT)
		return -errno;
	bw_list_finish(l);
	return 0;
}

int bw_allow_create(const struct bw_list *l)
{
	int fd, err;

	fd = bw_lpm_create(BW_PIN_ALLOW, BW_ALLOW_MAX);
	if (fd < 0)
		return fd;
	err = bw_lpm_fill(fd, l);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

bool bw_list_has(const struct bw_list *l, const struct bw_prefix *p)
{
	struct bw_v6key k6 = { .hi = p->hi, .lo = p->lo, .plen = p->plen };
	__u64 k4;

	if (p->family == BW_V4) {
		k4 = bw_v4key((__u32)p->lo, p->plen);
		return bsearch(&k4, l->v4, l->n4, sizeof(k4), bw_v4key_cmp);
	}
	return bsearch(&k6, l->v6, l->n6, sizeof(k6), bw_v6key_cmp);
}

/* Merge-counts two sorted arrays of the same kind. */
static void diff_sorted(const void *a, size_t na, const void *b, size_t nb,
			size_t size, int (*cmp)(const void *, const void *),
			size_t *only_a, size_t *only_b)
{
	size_t i = 0, j = 0;
	int c;

	while (i < na && j < nb) {
		c = cmp((const char *)a + i * size, (const char *)b + j * size);
		*only_a += c < 0;
		*only_b += c > 0;
		i += c <= 0;
		j += c >= 0;
	}
	*only_a += na - i;
	*only_b += nb - j;
}

void bw_list_diff(const struct bw_list *a, const struct bw_list *b,
		  size_t *only_a, size_t *only_b)
{
	*only_a = *only_b = 0;
	diff_sorted(a->v4, a->n4, b->v4, b->n4, sizeof(*a->v4), bw_v4key_cmp,
		    only_a, only_b);
	diff_sorted(a->v6, a->n6, b->v6, b->n6, sizeof(*a->v6), bw_v6key_cmp,
		    only_a, only_b);
}
