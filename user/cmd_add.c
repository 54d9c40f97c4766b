// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall add IFACE ADDR|CIDR...: sets the entries' bits in the running
 * filter in place, a prefix as the keys that cover it at one of the
 * filter's target lengths. Bits only go from 0 to 1 (atomic OR), so packets judged
 * meanwhile see a key either not yet added or added, never half-removed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bloom.h"
#include "cidr.h"
#include "cli.h"
#include "list.h"
#include "log.h"
#include "output.h"
#include "lpm.h"
#include "pin.h"
#include "running.h"

/* Most keys one entry may expand to in place; more is a job for reload. */
#define ADD_MAX_KEYS (1U << 16)

/* Where an entry goes: a region, and the keys at its target length. */
struct add_plan {
	int region;
	__u8 tlen;
	__u32 nkeys;
};

/*
 * The filter's shortest target length at or below the entry's prefix (the
 * fewest keys that cover exactly the entry), or -ENOENT if every target
 * length is shorter: covering the entry there would block more than it
 * says.
 */
static int plan_entry(const struct bw_hdr *hdr, const struct bw_prefix *p,
		      struct add_plan *ap)
{
	unsigned int i, len, best = 256;
	int r;

	ap->region = -1;
	for (i = 0; i < hdr->nlengths[p->family] && i < BW_MAX_LENGTHS; i++) {
		r = p->family * BW_MAX_LENGTHS + i;
		len = hdr->plen[p->family][i];
		if (len < p->plen || len >= best ||
		    hdr->region_end[r] <= bw_region_start(hdr, r))
			continue;
		best = len;
		ap->region = r;
	}
	if (ap->region < 0)
		return -ENOENT;
	ap->tlen = best;
	if (best - p->plen > 16)
		return -E2BIG;
	ap->nkeys = 1U << (best - p->plen);
	return 0;
}

/* All or nothing: every entry must fit before any bit is set. */
static int plan_all(const struct bw_args *a, const void *mem,
		    const struct bw_prefix *keys, struct add_plan *plan)
{
	const char *fam;
	int i, err;

	for (i = 0; i < a->npos; i++) {
		fam = keys[i].family == BW_V4 ? "IPv4" : "IPv6";
		/*
		 * A /0 is every address: attach and reload warn of it after
		 * merging, but add would set it in place at once, one mistyped
		 * argument away from dropping a whole family.
		 */
		if (!keys[i].plen) {
			pr_warn("%s: %s is every %s address: adding it would drop every %s packet; if that is really meant, put it in a LIST and use 'bloomwall reload'\n",
				a->iface, a->pos[i], fam, fam);
			return -EINVAL;
		}
		err = plan_entry(mem, &keys[i], &plan[i]);
		if (err == -ENOENT)
			pr_warn("%s: the running filter has no %s target length of /%u or longer, so %s cannot be added without blocking more than it says; add it through 'bloomwall reload'\n",
				a->iface, fam, keys[i].plen, a->pos[i]);
		else if (err)
			pr_warn("%s: %s would take 2^%u keys at the filter's %s target length /%u (at most %u in place); add it through 'bloomwall reload'\n",
				a->iface, a->pos[i],
				plan[i].tlen - keys[i].plen, fam, plan[i].tlen,
				ADD_MAX_KEYS);
		if (err)
			return err;
	}
	return 0;
}

/* Sets an entry's keys; the number that were new. */
static __u32 insert_entry(void *mem, const struct bw_prefix *p,
			  const struct add_plan *ap)
{
	struct bw_prefix k;
	__u32 j, fresh = 0;

	for (j = 0; j < ap->nkeys; j++) {
		k = bw_cidr_key(p, ap->tlen, j);
		fresh += bw_filter_insert(mem, &k) > 0;
	}
	return fresh;
}

/*
 * Bits added in place raise the false-positive rate above what the filter
 * was sized for; past twice its target the operator should rebuild.
 */
static void warn_if_overfull(const struct bw_args *a, const void *mem,
			     const struct add_plan *plan)
{
	const struct bw_info *info =
		(const void *)((const char *)mem + BW_BLOCK_BYTES);
	double target = bw_info_fpr(info);
	bool touched[BW_REGIONS] = { false };
	double fpr, worst = 0.0;
	__u64 set, total;
	int i;

	for (i = 0; i < a->npos; i++)
		touched[plan[i].region] = true;
	/* One pass over each region: a big filter has millions of blocks. */
	for (i = 0; i < BW_REGIONS; i++) {
		if (!touched[i])
			continue;
		bw_region_fill(mem, i, &set, &total, &fpr);
		if (fpr > worst)
			worst = fpr;
	}
	if (worst > 2 * target)
		pr_warn("%s: the filter is now past its target false-positive rate (about %.3g%% where it was sized for %.3g%%): rebuild it with 'bloomwall reload' and the entries in a LIST\n",
			a->iface, worst * 100, target * 100);
}

/* "ADDR  added" (or why not); JSON {address, result, keys, new_keys, prefix}. */
static void say_entry(const char *addr, __u32 fresh, const struct add_plan *ap)
{
	bw_out_open_object(NULL);
	bw_out_string("address", "%s  ", addr);
	bw_out_string("result", NULL, fresh ? "added" : "already");
	bw_out_u64("keys", NULL, ap->nkeys);
	bw_out_u64("new_keys", NULL, fresh);
	bw_out_u64("prefix", NULL, ap->tlen);
	if (!fresh)
		bw_out_text("already in the filter\n");
	else if (ap->nkeys == 1)
		bw_out_text("added\n");
	else
		bw_out_text("added (%u of its %u keys at /%u were new)\n",
			    fresh, ap->nkeys, ap->tlen);
	bw_out_close_object();
}

static void insert_all(const struct bw_args *a, void *mem,
		       const struct bw_prefix *keys,
		       const struct add_plan *plan)
{
	struct bw_info *info = (void *)((char *)mem + BW_BLOCK_BYTES);
	__u64 keys_added = 0;
	int i, added = 0;
	__u32 fresh;

	bw_out_open_array("addresses");
	for (i = 0; i < a->npos; i++) {
		fresh = insert_entry(mem, &keys[i], &plan[i]);
		say_entry(a->pos[i], fresh, &plan[i]);
		if (!fresh)
			continue;
		added++;
		keys_added += fresh;
		/* Counts only the CLI reads; atomic against a concurrent add. */
		__atomic_fetch_add(&info->region_entries[plan[i].region], fresh,
				   __ATOMIC_RELAXED);
	}
	bw_out_close_array();
	__atomic_fetch_add(&info->entries, keys_added, __ATOMIC_RELAXED);
	__atomic_fetch_add(&info->source_entries, added, __ATOMIC_RELAXED);
	bw_out_text("%s: ", a->iface);
	bw_out_int("added", "%lld of ", added);
	bw_out_int("total", "%lld added to filter ", a->npos);
	bw_out_u64("generation", "generation %llu", info->generation);
	bw_out_u64("entries", " (now %'llu entries)\n", info->entries);
	if (added)
		warn_if_overfull(a, mem, plan);
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
	struct add_plan *plan = NULL;
	int lock = -1, err;

	bw_out_string("iface", NULL, a->iface);
	err = bw_parse_addrs("add", a->pos, a->npos, true, &keys);
	if (err)
		return err;
	plan = calloc(a->npos, sizeof(*plan));
	if (!plan) {
		err = -ENOMEM;
		goto out;
	}
	err = bw_check_privileges("add");
	if (err)
		goto out;
	lock = bw_lock_acquire();
	if (lock < 0) {
		err = lock;
		goto out;
	}
	err = bw_open_running(a->iface, true, &m);
	if (!err)
		err = plan_all(a, m.mem, keys, plan);
	if (!err)
		err = add_exact(a, m.mem, keys);
	if (!err)
		insert_all(a, m.mem, keys, plan);
out:
	bw_filter_close(&m);
	bw_lock_release(lock);
	free(plan);
	free(keys);
	return err;
}

const struct bw_verb bw_verb_add = {
	.name = "add",
	.summary = "add addresses to the running filter on IFACE in place",
	.details =
		"No rebuild: the addresses' bits are set in the running filter and its\n"
		"entry count grows. The next 'bloomwall reload' builds from the LIST files\n"
		"only, so put lasting entries there too. Removing needs a reload.\n"
		"A prefix is added as the keys that cover it exactly at the filter's\n"
		"shortest target length at or below it (see status), up to 65536 keys; in\n"
		"verify mode it also goes into the running exact trie as it is. A /0 (every\n"
		"address of a family) is refused: put it in a LIST and reload if it is meant.\n"
		"With --json: {\"iface\", \"addresses\": [{\"address\", \"result\": \"added\"|\"already\",\n"
		"\"keys\", \"new_keys\", \"prefix\"}], \"added\", \"total\", \"generation\", \"entries\"}.\n",
	.opts = NULL,
	.pos = { .rest = "ADDR|CIDR", .min_rest = 1, .rest_many = true },
	.run = do_add,
};
