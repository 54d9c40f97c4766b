// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The socket's add and remove on the watch's live entries (live_ask.h):
 * written to the running filter's records under the lock, taken without
 * waiting, and taken in through the index of what the watch adopted.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/live_ask.h"
#include "daemon/live_priv.h"
#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "filter/owners.h"
#include "filter/records_index.h"
#include "kernel/hook.h"
#include "kernel/lock.h"

/*
 * The lock, taken without waiting, on the map that runs: every swap is
 * made under it, so while it is held the program found before stays.
 * The lock fd, or -EAGAIN (held, or a swap came between: ask again).
 */
static int lock_running(struct bw_wlive *l)
{
	int lock = bw_lock_try();

	if (lock < 0)
		return lock;
	if (bw_hook_prog_id((int)if_nametoindex(l->iface)) != l->prog_id) {
		bw_lock_release(lock);
		return -EAGAIN;
	}
	return lock;
}

/*
 * The watch's own append or marks of s (marked: a remove marked some)
 * taken in: through the index, the entries of s alone, O(R) whatever
 * the records hold; a full sync when another writer changed the records
 * (no index then) or the adds are built in. Returns as bw_wlive_sync.
 */
static int take_in(struct bw_wlive *l, const struct bw_entries *s, bool marked)
{
	bool in_place = bw_wlive_adds_out_of_blocks(l);
	size_t before = bw_live_count(&l->set);

	if (!bw_adopted_indexed(&l->adopted) || l->adds_in_base ||
	    bw_wlive_verify(l->map.mem) ||
	    bw_adopted_apply(&l->adopted, &l->set, l->map.mem, s,
			     (__u64)time(NULL)))
		return bw_wlive_sync(l, NULL);
	/* Its own marks: not another command's for the step to find. */
	l->marks = l->adopted.ix.marks;
	if (bw_live_count(&l->set) < before)
		l->deletes += before - bw_live_count(&l->set);
	if (marked && !in_place)
		bw_wlive_want_now(l, "live entries: a remove of adds built in");
	l->changed = true;
	return in_place;
}

/* Whether the running filter can keep every entry asked for live. */
static bool placeable(const struct bw_wlive *l, const struct bw_entries *s,
		      bool subdomains)
{
	const void *mem = l->map.mem;
	const struct bw_entry *e;
	struct bw_add_plan ap;
	size_t i;

	for (i = 0; i < s->n; i++) {
		e = &s->v[i];
		if (bw_entry_is_name(e)
			    ? !bw_name_has_region(mem, subdomains ||
							       (e->d.flags &
								BW_DOM_SUBTREE))
			    : !e->p.plen || bw_add_plan(mem, &e->p, &ap))
			return false;
	}
	return true;
}

/* Whether entry i of s is live. */
static bool is_live(const struct bw_wlive *l, const struct bw_entries *s,
		    size_t i, bool subdomains)
{
	const struct bw_entry *e = &s->v[i];

	if (!bw_entry_is_name(e))
		return bw_live_has(&l->set, &e->p, NULL);
	return bw_live_has_name(&l->set, bw_entry_name(s, e), e->d.len,
				subdomains || (e->d.flags & BW_DOM_SUBTREE),
				NULL);
}

/*
 * The add log three quarters full: a rebuild of the watch's own folds it
 * into the records and sizes the room anew, before an add finds it full
 * (then add would swap, and this watch rebuild to take that over).
 */
static void fold_log_soon(struct bw_wlive *l)
{
	__u64 room, left;

	if (bw_adopted_log_room(&l->adopted, l->map.mem, l->map.nblocks, &room,
				&left) ||
	    left >= room / 4)
		return;
	bw_wlive_want_now(l,
			  "live entries: the add log is three quarters full");
}

/*
 * The add log cannot take a question but holds adds: a rebuild of the
 * watch's own folds them into the records and gives the room again, and
 * the client, told busy, asks again once it is done (not a swap of the
 * whole command and a rebuild to take it over). An empty log too small
 * for the question stays full after a fold: not in place then.
 */
static bool fold_log_now(struct bw_wlive *l)
{
	__u64 room, left;

	if (bw_adopted_log_room(&l->adopted, l->map.mem, l->map.nblocks, &room,
				&left) ||
	    left >= room)
		return false;
	bw_wlive_want_now(l, "live entries: the add log is full");
	return true;
}

/*
 * Under the lock, the index made current (a full sync when another
 * writer moved the records) and the add of s by owner planned through
 * it: out the entries each until its end by the owners' rules, own the
 * claims to append. 0 or -errno.
 */
static int plan_add(struct bw_wlive *l, const struct bw_entries *s,
		    const char *owner, struct bw_entries *out,
		    struct bw_owners *own)
{
	if (!bw_rec_index_current(&l->adopted.ix, l->map.mem, l->map.nblocks) &&
	    bw_wlive_sync(l, NULL) < 0)
		return -EINVAL;
	if (!bw_rec_index_current(&l->adopted.ix, l->map.mem, l->map.nblocks))
		return -EAGAIN;
	return bw_rec_index_plan_add(&l->adopted.ix, s, owner, out, own);
}

int bw_wlive_add_log(struct bw_wlive *l, const struct bw_entries *s,
		     const char *owner, bool *had)
{
	struct bw_entries planned;
	struct bw_owners own;
	bool subdomains = false;
	int lock, err;
	size_t i;

	err = bw_wlive_sync_map(l);
	if (err)
		return err;
	if (l->adds_in_base || bw_wlive_verify(l->map.mem))
		return -EXDEV;
	/* Names go as subtrees under --subdomains, which the records say. */
	if (bw_entries_count(s, BW_ENTRY_NAME) &&
	    bw_adopted_subdomains(&l->adopted, l->map.mem, l->map.nblocks,
				  &subdomains))
		return -EINVAL;
	if (!placeable(l, s, subdomains))
		return -EXDEV;
	for (i = 0; i < s->n; i++)
		had[i] = is_live(l, s, i, subdomains);
	/* Past twice its target rate in place: asked again once grown. */
	err = bw_wsize_full(&l->size, &l->set, &l->map, s, had, subdomains,
			    l->size.full_why, sizeof(l->size.full_why));
	if (err > 0)
		bw_wlive_want_now(l, l->size.full_why);
	if (err)
		return err > 0 ? -ENOSPC : err;
	/* The loop never waits: a busy lock is asked again by the client. */
	lock = lock_running(l);
	if (lock < 0)
		return lock;
	bw_entries_init(&planned);
	bw_owners_init(&own);
	err = plan_add(l, s, owner, &planned, &own);
	if (!err)
		err = bw_adopted_append(&l->adopted, l->map.mem, l->map.nblocks,
					&planned, &own);
	/* The records hold them now: adopted, set in place, in the map the
	 * lock keeps running. */
	if (!err && take_in(l, &planned, false) < 0)
		err = -EINVAL;
	bw_lock_release(lock);
	bw_entries_free(&planned);
	bw_owners_free(&own);
	if (err == -E2BIG && fold_log_now(l))
		return -EBUSY;
	if (err)
		return err;
	fold_log_soon(l);
	for (i = 0; i < s->n; i++) {
		if (is_live(l, s, i, subdomains))
			continue;
		/* Recorded but not set: a rebuild builds it in. */
		bw_wlive_want_now(l,
				  "live entries: an add that could not be set");
		return -EXDEV;
	}
	return 0;
}

/* What a remove by an owner does: marks, appends, and the two taken in. */
struct owned_remove {
	struct bw_entries gone, kept, both;
	struct bw_owners own;
	__u8 *left;
	bool *marked;
};

static void owned_remove_free(struct owned_remove *o)
{
	bw_entries_free(&o->gone);
	bw_entries_free(&o->kept);
	bw_entries_free(&o->both);
	bw_owners_free(&o->own);
	free(o->left);
	free(o->marked);
}

/*
 * Under the lock, owner's claims on the entries of s taken out: those no
 * other owner wants marked out (as a plain remove), the others appended
 * until their new end with the claims left. found: which the owner had
 * a claim on; kept: which other owners keep. Returns as take_in.
 */
static int remove_owned(struct bw_wlive *l, const struct bw_entries *s,
			const char *owner, bool *found, bool *kept)
{
	struct owned_remove o = { 0 };
	void *mem = l->map.mem;
	__u32 nb = l->map.nblocks;
	size_t i;
	long k = 0;
	int err;

	bw_entries_init(&o.gone);
	bw_entries_init(&o.kept);
	bw_entries_init(&o.both);
	bw_owners_init(&o.own);
	o.left = calloc(s->n ?: 1, 1);
	o.marked = calloc(s->n ?: 1, sizeof(bool));
	err = o.left && o.marked ? 0 : -ENOMEM;
	if (!err && !bw_rec_index_current(&l->adopted.ix, mem, nb) &&
	    bw_wlive_sync(l, NULL) < 0)
		err = -EINVAL;
	if (!err && !bw_rec_index_current(&l->adopted.ix, mem, nb))
		err = -EAGAIN;
	if (!err)
		err = bw_rec_index_plan_remove(&l->adopted.ix, s, owner,
					       (__u64)time(NULL), &o.gone,
					       &o.kept, &o.own, o.left);
	for (i = 0; !err && i < s->n; i++) {
		found[i] = o.left[i] != BW_OWNED_NOT;
		kept[i] = o.left[i] == BW_OWNED_KEPT;
	}
	if (!err && o.kept.n)
		err = bw_adopted_append(&l->adopted, mem, nb, &o.kept, &o.own);
	if (!err && o.gone.n) {
		k = bw_adopted_mark(&l->adopted, mem, nb, &o.gone, o.marked);
		err = k < 0 ? (int)k : 0;
	}
	for (i = 0; !err && i < o.gone.n + o.kept.n; i++)
		err = bw_entries_push(
			&o.both,
			i < o.gone.n ? bw_entries_key(&o.gone, i)
				     : bw_entries_key(&o.kept, i - o.gone.n),
			0);
	if (!err && o.both.n)
		err = take_in(l, &o.both, k > 0);
	else if (!err)
		err = 1;
	owned_remove_free(&o);
	return err;
}

int bw_wlive_remove(struct bw_wlive *l, const struct bw_entries *s,
		    const char *owner, bool *found, bool *kept)
{
	int lock, err;
	long k;

	err = bw_wlive_sync_map(l);
	if (err)
		return err;
	lock = lock_running(l);
	if (lock < 0)
		return lock;
	if (owner && *owner) {
		err = remove_owned(l, s, owner, found, kept);
		bw_lock_release(lock);
		return err;
	}
	memset(kept, 0, s->n * sizeof(*kept));
	k = bw_adopted_mark(&l->adopted, l->map.mem, l->map.nblocks, s, found);
	err = k < 0 ? (int)k : take_in(l, s, k > 0);
	bw_lock_release(lock);
	return err;
}
