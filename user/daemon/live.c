// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's live entries (live.h): the state of the running filter and
 * its transitions, the map found from the hook and mapped read-write, the
 * set (filter/live.c) applied to it in place, the changes handed over,
 * other commands' swaps taken over; a rebuild's hand-over is in
 * live_stage.c, the socket's add and remove in live_ask.c.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "base/log.h"
#include "daemon/live_priv.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "filter/records_edit.h"
#include "filter/records_gone.h"
#include "filter/records_log.h"
#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "kernel/lock.h"
#include "kernel/hook.h"
#include "kernel/running.h"

struct bw_wlive *bw_wlive_new(const char *iface, bool host_targets)
{
	struct bw_wlive *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	bw_live_init(&l->set);
	bw_adopted_init(&l->adopted);
	bw_wsize_init(&l->size);
	l->size.host_targets = host_targets;
	l->iface = iface;
	l->run = BW_WLIVE_NONE;
	l->map = (struct bw_filter_map)BW_FILTER_MAP_INIT;
	l->memfd = -1;
	return l;
}

void bw_wlive_free(struct bw_wlive *l)
{
	if (!l)
		return;
	bw_live_free(&l->set);
	bw_wsize_free(&l->size);
	bw_adopted_free(&l->adopted);
	bw_filter_close(&l->map);
	if (l->memfd >= 0)
		close(l->memfd);
	free(l);
}

/*
 * The transitions, all here:
 *   NONE, OWN, TAKEN -> STAGING     a rebuild forks (fork_begin)
 *   STAGING -> OWN                  the filter its child staged runs
 *   STAGING -> TAKEN                another filter runs (another
 *                                   command's, or the child died between
 *                                   its swap and its bases)
 *   STAGING -> as it began          nothing new runs (fork_end)
 *   NONE, OWN, TAKEN -> TAKEN       another map on the hook (sync_map)
 *   OWN, TAKEN -> NONE              no program, or no map of ours
 * OWN and TAKEN keep their state for a new program of the same map (a
 * reload of the settings only).
 */
void bw_wlive_enter(struct bw_wlive *l, enum bw_wlive_run to,
		    struct bw_filter_map *m, __u32 prog)
{
	switch (to) {
	case BW_WLIVE_NONE:
		/* Nothing to set keys in until a filter runs again. */
		bw_filter_close(&l->map);
		bw_rec_index_forget(&l->adopted.ix);
		l->prog_id = 0;
		break;
	case BW_WLIVE_STAGING:
		/* The running filter stays open: expiries go on in it. */
		l->resume = l->run;
		break;
	case BW_WLIVE_OWN:
	case BW_WLIVE_TAKEN:
		l->prog_id = prog;
		if (!m)
			break;
		/* Another map: its marks are where a remove's are looked for. */
		bw_filter_close(&l->map);
		bw_rec_index_forget(&l->adopted.ix);
		l->map = *m;
		l->marks = bw_records_marks(l->map.mem, l->map.nblocks);
		break;
	}
	l->run = to;
}

void bw_wlive_want_now(struct bw_wlive *l, const char *why)
{
	l->want = why;
	l->retry_at = 0;
}

bool bw_wlive_changed(const struct bw_wlive *l)
{
	return l->changed;
}

void bw_wlive_published(struct bw_wlive *l)
{
	l->changed = false;
}

bool bw_wlive_adds_live(const struct bw_wlive *l)
{
	return l && !l->adds_in_base;
}

bool bw_wlive_own_map(const struct bw_wlive *l, __u32 map_id)
{
	return map_id && l->run == BW_WLIVE_OWN && l->map.id == map_id &&
	       l->set.nkeys;
}

static void *mem_of(const struct bw_wlive *l)
{
	return l->map.mem;
}

int bw_wlive_adopt(struct bw_wlive *l, const struct bw_filter_map *m,
		   void *target, bool strict)
{
	__u64 next;
	int err;

	if (l->adds_in_base || bw_wlive_verify(m->mem))
		return 0;
	err = bw_adopted_sync(&l->adopted, &l->set, m->mem, m->nblocks, target,
			      strict, (__u64)time(NULL), &next);
	l->changed = true;
	return err;
}

void bw_wlive_take_over(struct bw_wlive *l, struct bw_filter_map *m, __u32 prog)
{
	bool had = l->map.fd >= 0;
	int err;

	bw_wlive_enter(l, BW_WLIVE_TAKEN, m, prog);
	err = bw_live_layout(&l->set, l->map.mem);
	if (err) {
		pr_warn("%s: live entries: no memory to lay them out: %s\n",
			l->iface, strerror(-err));
		return;
	}
	/* Its blocks may hold another command's bits: no base from them. */
	l->set.stale = had;
	bw_wlive_adopt(l, &l->map, l->map.mem, false);
	/* None of this watch's keys in it: its blocks are bases. */
	if (!bw_live_count(&l->set)) {
		l->set.stale = false;
		return;
	}
	bw_live_reapply(&l->set, l->map.mem);
	/* Found with none open before: its blocks hold no key of ours. */
	if (had)
		bw_wlive_want_now(
			l, "live entries: a filter another command swapped in");
	else
		l->want = NULL;
	l->takeovers += had;
	l->changed = true;
	if (had)
		printf("%s: another command swapped the filter in: %zu live %s set in it; deletes wait for the rebuild this starts\n",
		       l->iface, bw_live_count(&l->set),
		       bw_live_count(&l->set) == 1 ? "entry" : "entries");
}

int bw_wlive_sync_map(struct bw_wlive *l)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	__u32 prog = bw_hook_prog_id((int)if_nametoindex(l->iface));

	if (prog && prog == l->prog_id && l->map.fd >= 0)
		return 0;
	if (l->run == BW_WLIVE_STAGING)
		return -EAGAIN;
	if (!prog || bw_running_map(l->iface, true, &m, &prog)) {
		bw_wlive_enter(l, BW_WLIVE_NONE, NULL, 0);
		return -ENOENT;
	}
	/* A new program for the same map (a reload of the settings only). */
	if (m.id == l->map.id && l->map.fd >= 0) {
		bw_filter_close(&m);
		bw_wlive_enter(l, l->run, NULL, prog);
		return 0;
	}
	bw_wlive_take_over(l, &m, prog);
	return 0;
}

int bw_wlive_add(struct bw_wlive *l, const struct bw_prefix *p, __u64 expires)
{
	__u64 now = (__u64)time(NULL);
	int err;

	/* Nothing runs: looked for once a second, not once an add. */
	if (l->map.fd < 0 && now != l->looked_at) {
		l->looked_at = now;
		bw_wlive_sync_map(l);
	}
	err = bw_live_add(&l->set, mem_of(l), p, expires);
	if (!err) {
		l->adds++;
		l->changed = true;
		bw_wsize_placed(&l->size, p);
	}
	if (err == -ENOENT || err == -E2BIG) {
		bw_wsize_refused(&l->size, p);
		l->changed = true;
	}
	return err;
}

int bw_wlive_del(struct bw_wlive *l, const struct bw_prefix *p)
{
	int err = bw_live_del(&l->set, mem_of(l), p);

	if (!err) {
		l->deletes++;
		l->changed = true;
	}
	return err;
}

void bw_wlive_room(const struct bw_wlive *l, struct bw_live_room *r)
{
	bw_wsize_room(&l->size, &l->set, r);
}

bool bw_wlive_outgrown(struct bw_wlive *l, double now, char *why, size_t len)
{
	return bw_wsize_outgrown(&l->size, &l->set, &l->map,
				 l->run == BW_WLIVE_OWN, now, why, len);
}

void bw_wlive_expire(struct bw_wlive *l, __u64 now)
{
	size_t n = bw_live_expire(&l->set, mem_of(l), now);

	l->expired += n;
	l->changed |= n > 0;
	if (n)
		bw_adopted_prune(&l->adopted, &l->set);
}

bool bw_wlive_adds_out_of_blocks(const struct bw_wlive *l)
{
	enum bw_wlive_run run = l->run == BW_WLIVE_STAGING ? l->resume : l->run;

	return run == BW_WLIVE_OWN && !l->set.stale && !l->adds_in_base &&
	       !bw_wlive_verify(l->map.mem);
}

int bw_wlive_sync(struct bw_wlive *l, struct bw_records *r)
{
	struct bw_records own;
	bool in_place;
	size_t before;

	if (!r)
		r = &own;
	bw_records_init(r);
	if (bw_wlive_sync_map(l))
		return -ENOENT;
	/* Before the records: a mark made after this is seen next time. */
	l->marks = bw_records_marks(l->map.mem, l->map.nblocks);
	if (bw_records_read(l->map.mem, l->map.nblocks, r))
		return -EINVAL;
	in_place = bw_wlive_adds_out_of_blocks(l);
	before = bw_live_count(&l->set);
	bw_wlive_adopt(l, &l->map, l->map.mem, false);
	/* The same map: its records only lost entries. */
	if (bw_live_count(&l->set) < before)
		l->deletes += before - bw_live_count(&l->set);
	if (r->gone.n && !in_place)
		bw_wlive_want_now(l, "live entries: a remove of adds built in");
	if (r == &own)
		bw_records_free(r);
	return in_place;
}

const char *bw_wlive_step(struct bw_wlive *l, __u64 now)
{
	/* A rebuild's fork runs: its end takes over what runs then. */
	if (l->run == BW_WLIVE_STAGING) {
		bw_wlive_expire(l, now);
		return NULL;
	}
	if (bw_live_count(&l->set) || l->map.fd >= 0)
		bw_wlive_sync_map(l);
	/* A remove killed before it asked is found here. */
	if (l->map.fd >= 0 &&
	    (bw_records_marks(l->map.mem, l->map.nblocks) != l->marks ||
	     bw_adopted_moved(&l->adopted, l->map.mem, l->map.nblocks)))
		bw_wlive_sync(l, NULL);
	bw_wlive_expire(l, now);
	/* An add built in ended: a rebuild leaves it out. */
	if (l->adds_in_base && l->base_expiry && now >= l->base_expiry) {
		l->base_expiry = 0;
		l->want = "live entries: an add built in ended";
	}
	/* Asked for again every BW_WLIVE_RETRY while none went through. */
	if (!l->want || now < l->retry_at)
		return NULL;
	l->retry_at = now + BW_WLIVE_RETRY;
	return l->want;
}
