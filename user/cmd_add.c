// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall add IFACE ADDR...: sets the addresses' bits in the running
 * filter in place. Bits only go from 0 to 1 (atomic OR), so packets judged
 * meanwhile see a key either not yet added or added, never half-removed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "attach.h"
#include "cli.h"
#include "list.h"
#include "log.h"
#include "lpm.h"
#include "pin.h"

/* Region of the filter for this key's family and length, or -1. */
static int key_region(const struct bw_hdr *hdr, const struct bw_prefix *p)
{
	int i, r;

	for (i = 0; i < hdr->nlengths[p->family] && i < BW_MAX_LENGTHS; i++) {
		r = p->family * BW_MAX_LENGTHS + i;
		if (hdr->plen[p->family][i] == p->plen &&
		    hdr->region_end[r] > bw_region_start(hdr, r))
			return r;
	}
	return -1;
}

/* All or nothing: every key must have its region before any bit is set. */
static int check_regions(const struct bw_args *a, const void *mem,
			 const struct bw_prefix *keys)
{
	int i;

	for (i = 0; i < a->npos; i++) {
		if (key_region(mem, &keys[i]) >= 0)
			continue;
		pr_warn("%s: the running filter has no region for %s /%u entries (%s); add them through 'bloomwall reload'\n",
			a->iface, keys[i].family == BW_V4 ? "IPv4" : "IPv6",
			keys[i].plen, a->pos[i]);
		return -ENOENT;
	}
	return 0;
}

static void insert_all(const struct bw_args *a, void *mem,
		       const struct bw_prefix *keys)
{
	struct bw_info *info = (void *)((char *)mem + BW_BLOCK_BYTES);
	int i, r, fresh, added = 0;

	for (i = 0; i < a->npos; i++) {
		r = key_region(mem, &keys[i]);
		fresh = bw_filter_insert(mem, &keys[i]);
		printf("%s  %s\n", a->pos[i],
		       fresh > 0 ? "added" : "already in the filter");
		if (fresh <= 0)
			continue;
		added++;
		/* Counts only the CLI reads; atomic against a concurrent add. */
		__atomic_fetch_add(&info->region_entries[r], 1,
				   __ATOMIC_RELAXED);
	}
	__atomic_fetch_add(&info->entries, added, __ATOMIC_RELAXED);
	__atomic_fetch_add(&info->source_entries, added, __ATOMIC_RELAXED);
	printf("%s: %d of %d added to filter generation %llu (now %'llu entries)\n",
	       a->iface, added, a->npos, (unsigned long long)info->generation,
	       (unsigned long long)info->entries);
}

/*
 * Verify mode: the running exact trie must know the keys before their bits
 * are set, or the data path would count their packets as false positives.
 */
static int add_exact(const struct bw_args *a, const void *mem,
		     const struct bw_prefix *keys)
{
	const struct bw_hdr *hdr = mem;
	struct bw_list l;
	int outer, fd, i, err;

	if (!(hdr->flags & BW_F_VERIFY))
		return 0;
	outer = bw_open_pinned_map(a->iface, BW_PIN_EXACT);
	if (outer < 0)
		return outer;
	fd = bw_exact_open(outer, hdr->exact_slot);
	close(outer);
	if (fd < 0) {
		pr_warn("%s: verify mode, but its exact trie is gone: %s; run 'bloomwall reload %s --verify LIST...'\n",
			a->iface, bw_errno_hint(fd), a->iface);
		return fd;
	}
	bw_list_init(&l);
	err = 0;
	for (i = 0; i < a->npos && !err; i++)
		err = bw_list_push(&l, &keys[i]);
	if (!err)
		err = bw_lpm_fill(fd, &l);
	if (err)
		pr_warn("%s: cannot add to the exact trie: %s; nothing added\n",
			a->iface, bw_errno_hint(err));
	bw_list_free(&l);
	close(fd);
	return err;
}

static int do_add(struct bw_args *a)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_prefix *keys = NULL;
	int lock = -1, registry_fd = -1, err;

	err = bw_parse_addrs("add", a->pos, a->npos, true, &keys);
	if (err)
		return err;
	err = bw_check_privileges("add");
	if (err)
		goto out;
	lock = bw_lock_acquire();
	if (lock < 0) {
		err = lock;
		goto out;
	}
	err = bw_open_running(a->iface, true, &registry_fd, &m);
	if (!err)
		err = check_regions(a, m.mem, keys);
	if (!err)
		err = add_exact(a, m.mem, keys);
	if (!err)
		insert_all(a, m.mem, keys);
out:
	bw_filter_close(&m);
	if (registry_fd >= 0)
		close(registry_fd);
	bw_lock_release(lock);
	free(keys);
	return err;
}

const struct bw_verb bw_verb_add = {
	.name = "add",
	.usage = "IFACE ADDR...",
	.summary = "add addresses to the running filter on IFACE in place",
	.details =
		"No rebuild: the addresses' bits are set in the running filter and its\n"
		"entry count grows. The next 'bloomwall reload' builds from the LIST files\n"
		"only, so put lasting entries there too. Removing needs a reload.\n"
		"Each entry must be at one of the filter's target lengths (see status);\n"
		"in verify mode it also goes into the running exact trie.\n",
	.opts = NULL,
	.min_pos = 2,
	.max_pos = -1,
	.run = do_add,
};
