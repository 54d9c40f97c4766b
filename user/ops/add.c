// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* add by a swap of a changed copy of the running filter (add.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "filter/provenance.h"
#include "filter/rate.h"
#include "filter/records.h"
#include "filter/records_edit.h"
#include "filter/records_write.h"
#include "kernel/lock.h"
#include "kernel/lpm.h"
#include "kernel/running.h"
#include "kernel/swap.h"
#include "ops/add.h"

/* What add does to the copy of the running filter, and what it found. */
struct add_ctx {
	const struct bw_add_req *rq;
	struct bw_add_result *res;
	const struct bw_records *rec; /* the copy's records, entries added */
};

/*
 * All or nothing: every entry must fit before any bit is set.
 * BW_ADD_NO_REGION when the filter has no name region for a name (a
 * rebuild can add it).
 */
static int plan_all(const struct bw_add_req *rq, const void *mem,
		    struct bw_add_plan *plan)
{
	const struct bw_entries *s = rq->entries;
	const struct bw_prefix *p;
	const char *fam;
	size_t i;
	int err;

	for (i = 0; i < s->n; i++) {
		if (bw_entry_is_name(&s->v[i])) {
			if (!bw_name_has_region(mem, s->v[i].d.flags &
							     BW_DOM_SUBTREE))
				return BW_ADD_NO_REGION;
			continue;
		}
		p = &s->v[i].p;
		fam = p->family == BW_V4 ? "IPv4" : "IPv6";
		/*
		 * A /0 is every address: attach and reload warn of it after
		 * merging, but add would set it at once, one mistyped
		 * argument away from dropping a whole family.
		 */
		if (!p->plen) {
			pr_warn("%s: %s is every %s address: adding it would drop every %s packet; if that is really meant, put it in a LIST and use 'bloomwall reload'\n",
				rq->iface, rq->given[i], fam, fam);
			return -EINVAL;
		}
		err = bw_add_plan(mem, p, &plan[i]);
		if (err == -ENOENT)
			pr_warn("%s: the running filter has no %s target length of /%u or longer, so %s cannot be added without blocking more than it says; add it through 'bloomwall reload'\n",
				rq->iface, fam, p->plen, rq->given[i]);
		else if (err)
			pr_warn("%s: %s would take 2^%u keys at the filter's %s target length /%u (at most %u in place); add it through 'bloomwall reload'\n",
				rq->iface, rq->given[i], plan[i].tlen - p->plen,
				fam, plan[i].tlen, BW_ADD_MAX_KEYS);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Bits added raise the false-positive rate above what the filter was
 * sized for: the worst estimate of the regions touched (an address's
 * region, a name's exact or subtree region when it set a bit), one pass
 * over each.
 */
static double worst_fpr(const struct add_ctx *c, const void *mem)
{
	const struct bw_entries *s = c->rq->entries;
	bool touched[BW_REGIONS] = { false };
	bool names[BW_NAME_REGIONS] = { false };
	double fpr, worst = 0.0;
	__u64 set, total;
	size_t i;
	int r;

	for (i = 0; i < s->n; i++) {
		/* An address's region is touched even when set already. */
		if (!bw_entry_is_name(&s->v[i]))
			touched[c->res->plan[i].region] = true;
		else
			names[s->v[i].d.flags & BW_DOM_SUBTREE
				      ? BW_NAME_SUBTREE
				      : BW_NAME_EXACT] |= c->res->fresh[i] > 0;
	}
	for (r = 0; r < BW_REGIONS; r++) {
		if (!touched[r])
			continue;
		bw_region_fill(mem, r, &set, &total, &fpr);
		worst = fpr > worst ? fpr : worst;
	}
	for (r = 0; r < BW_NAME_REGIONS; r++) {
		if (!names[r])
			continue;
		bw_name_region_fill(mem, r, &set, &total, &fpr);
		worst = fpr > worst ? fpr : worst;
	}
	return worst;
}

/* Entry i of the request set in mem: the keys (a name: 1) that set a bit. */
static __u32 insert_one(void *mem, struct add_ctx *c, size_t i)
{
	const struct bw_entries *s = c->rq->entries;
	const struct bw_entry *e = &s->v[i];
	struct bw_info *info = (void *)((char *)mem + BW_BLOCK_BYTES);
	struct bw_dns_hdr *dns;
	__u32 fresh;
	bool sub;

	if (!bw_entry_is_name(e)) {
		fresh = bw_add_insert(mem, &e->p, &c->res->plan[i]);
		info->region_entries[c->res->plan[i].region] += fresh;
		info->entries += fresh;
		info->source_entries += fresh > 0;
		return fresh;
	}
	dns = (struct bw_dns_hdr *)bw_filter_dns(mem);
	sub = e->d.flags & BW_DOM_SUBTREE;
	fresh = bw_name_insert(mem, bw_entry_name(s, e), e->d.len, sub) > 0;
	dns->region_entries[sub ? BW_NAME_SUBTREE : BW_NAME_EXACT] += fresh;
	return fresh;
}

static int insert_all(void *mem, __u32 nblocks, void *arg)
{
	struct add_ctx *c = arg;
	struct bw_add_result *res = c->res;
	struct bw_info *info = (void *)((char *)mem + BW_BLOCK_BYTES);
	size_t i, added = 0;

	for (i = 0; i < c->rq->entries->n; i++) {
		res->fresh[i] = insert_one(mem, c, i);
		added += res->fresh[i] > 0;
	}
	res->generation = info->generation;
	/* Sized for it by add_locked: cannot fail. */
	if (bw_records_write(mem, nblocks, c->rec))
		return -E2BIG;
	res->entries = info->entries;
	/* Names say where their regions stand even when none was new. */
	if (bw_add_by_name(c->rq))
		res->target = bw_dns_fpr(bw_filter_dns(mem));
	res->worst = added || bw_entries_count(c->rq->entries, BW_ENTRY_NAME)
			     ? worst_fpr(c, mem)
			     : 0.0;
	return 0;
}

/*
 * Verify mode: the running exact trie must know the keys before their bits
 * are set, or the data path would count their packets as false positives.
 * It is changed in place: until the swap, a key added to it changes a
 * verdict only for an address the running Bloom filter already hits by
 * chance (a false positive of it that the trie now confirms).
 */
static int add_exact(const struct bw_running *r, const struct bw_add_req *rq)
{
	const struct bw_entries *s = rq->entries;
	struct bw_list l;
	size_t i;
	int fd, err;

	if (!(r->prog_hdr.flags & BW_F_VERIFY) ||
	    !bw_entries_count(s, BW_ENTRY_PREFIX))
		return 0;
	fd = bw_exact_open(r->maps.exact, r->prog_hdr.exact_slot);
	if (fd < 0) {
		pr_warn("%s: verify mode, but its exact trie is gone: %s; run 'bloomwall reload %s --verify LIST...'\n",
			rq->iface, bw_errno_hint(fd), rq->iface);
		return fd;
	}
	bw_list_init(&l);
	err = 0;
	for (i = 0; i < s->n && !err; i++)
		if (!bw_entry_is_name(&s->v[i]))
			err = bw_list_push(&l, &s->v[i].p);
	if (!err)
		err = bw_lpm_fill(fd, &l);
	if (err)
		pr_warn("%s: cannot add to the exact trie: %s; nothing added\n",
			rq->iface, bw_errno_hint(err));
	bw_list_free(&l);
	close(fd);
	return err;
}

/*
 * Every entry asked for into the records with its expiry (addresses
 * already in the filter too: a false positive of this filter may not be
 * one of the next build): a new timeout replaces the old one; none makes
 * it permanent, and which of them this add ends an expiry of. Indexed:
 * R entries among N kept cost O(N + R).
 */
static int keep_all(struct add_ctx *c, struct bw_records *rec)
{
	const struct bw_entries *s = c->rq->entries;
	struct bw_entry_key k;
	__u64 expires;
	size_t i;
	long at;

	if (bw_entries_index(&rec->added))
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		k = bw_entries_key(s, i);
		expires = s->v[i].expires;
		at = bw_records_find(rec, k);
		c->res->had[i] = at >= 0;
		c->res->unexpired[i] =
			at >= 0 && rec->added.v[at].expires && !expires;
		if (bw_records_add_owned(rec, k, c->rq->owner, expires) < 0)
			return -ENOMEM;
	}
	return 0;
}

/*
 * Whether the keys of the entries not kept before (at most each one's
 * planned keys: a key set already is counted too) keep every part of
 * the filter within its target rate; else BW_ADD_GROW, res->grow_* set.
 */
static int fits(const struct add_ctx *c, const void *mem)
{
	const struct bw_entries *s = c->rq->entries;
	struct bw_rate_more more = { 0 };
	struct bw_add_result *res = c->res;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (res->had[i])
			continue;
		if (bw_entry_is_name(&s->v[i]))
			more.names[s->v[i].d.flags & BW_DOM_SUBTREE
					   ? BW_NAME_SUBTREE
					   : BW_NAME_EXACT]++;
		else
			more.keys[res->plan[i].region] += res->plan[i].nkeys;
	}
	res->grow_part = bw_rate_past(mem, &more, 1.0, &res->grow_rate,
				      &res->grow_target);
	return res->grow_part < 0 ? 0 : BW_ADD_GROW;
}

/*
 * Under the lock: planned against the running filter, the entries kept in
 * a copy's records and set in the copy, swapped in. BW_ADD_NO_REGION or
 * BW_ADD_GROW (nothing swapped) as bw_add says.
 */
static int add_locked(struct add_ctx *c)
{
	const struct bw_add_req *rq = c->rq;
	struct bw_edit e = { .edit = insert_all, .ctx = c, .allow_fd = -1 };
	struct bw_records rec;
	struct bw_running r;
	__u32 need;
	int err;

	bw_records_init(&rec);
	c->rec = &rec;
	err = bw_running_open(rq->iface, rq->ifindex, BW_RUN_REPAIR, &r);
	if (!err)
		err = bw_running_need_filter(&r);
	if (!err)
		err = plan_all(rq, r.filter.mem, c->res->plan);
	if (!err)
		err = bw_running_records(&r, &rec);
	if (!err)
		err = keep_all(c, &rec);
	if (!err)
		err = fits(c, r.filter.mem);
	if (!err) {
		bw_prov_change(&rec, BW_CHANGE_ADD);
		need = bw_records_end(r.filter.mem, &rec);
		e.extra_blocks =
			need > r.filter.nblocks ? need - r.filter.nblocks : 0;
	}
	if (!err && !bw_add_by_name(rq)) {
		err = add_exact(&r, rq);
		c->res->target = bw_info_fpr(bw_running_info(&r));
	}
	if (!err)
		err = bw_swap_running(&r, &e);
	/* An add of names counts the names kept too. */
	if (!err)
		c->res->kept = bw_entries_count(
			&rec.added, bw_entries_count(rq->entries, BW_ENTRY_NAME)
					    ? BW_ENTRY_ANY
					    : BW_ENTRY_PREFIX);
	bw_running_close(&r);
	bw_records_free(&rec);
	c->rec = NULL;
	return err;
}

int bw_add(const struct bw_add_req *rq, struct bw_add_result *res)
{
	struct add_ctx c = { .rq = rq, .res = res };
	int lock, err;

	lock = bw_lock_acquire();
	err = lock < 0 ? lock : add_locked(&c);
	bw_lock_release(lock);
	return err;
}
