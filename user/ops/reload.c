// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The reload operation: build, swap in, report (reload.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/duration.h"
#include "filter/records_edit.h"
#include "image/image_sec.h"
#include "kernel/allow_names.h"
#include "kernel/allowlist.h"
#include "image/image.h"
#include "base/log.h"
#include "kernel/lpm.h"
#include "kernel/lock.h"
#include "kernel/pin.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "ops/image_load.h"
#include "filter/records_gone.h"
#include "ops/reload.h"
#include "kernel/running.h"

/* ---- reload -------------------------------------------------------------- */

#define BW_F_MATCH (BW_F_MATCH_SRC | BW_F_MATCH_DST)

/* --allow, or an image carrying an allowlist: it replaces the running one. */
static bool replaces_allow(const struct bw_reload_req *r)
{
	return r->args->nallow || (r->image && r->image->sec[BW_IMAGE_ALLOW]);
}

/* Action and direction stay as they are unless the options change them. */
static __u16 new_flags(const struct bw_build_args *a, __u16 cur)
{
	__u16 flags = cur & (BW_F_MATCH | BW_F_MONITOR | BW_F_ALLOW);

	if (a->match)
		flags = (flags & ~BW_F_MATCH) | a->match;
	if (!(flags & BW_F_MATCH))
		flags |= BW_F_MATCH_SRC;
	if (a->monitor)
		flags |= BW_F_MONITOR;
	if (a->enforce)
		flags &= ~BW_F_MONITOR;
	return flags;
}

/* The running filter's settings that a reload builds on. */
struct running_settings {
	__u32 prog_id; /* of the program they were read from */
	struct bw_hdr hdr;
	struct bw_info info;
	bool allow_entries;    /* the running allowlist has entries */
	struct bw_rec_dns dns; /* the DNS options */
	bool allow_names;      /* the name allowlist has operator entries */
	/* Its records' marks (a remove in place), read before the records. */
	__u32 marks;
};

/*
 * From the running filter, or, for one this bloomwall cannot read
 * (corrupt, or another format version), what a fresh attach would use:
 * the reload then replaces it like any other.
 */
static void read_settings(const struct bw_running *r,
			  struct running_settings *st)
{
	struct bw_records rec;

	memset(st, 0, sizeof(*st));
	st->prog_id = r->prog_id;
	st->allow_entries = bw_lpm_has_entries(r->maps.allow);
	st->allow_names =
		bw_allow_names_any(r->maps.allow_names, BW_ALLOW_NAME_OPERATOR);
	bw_dns_settings(NULL, NULL, &st->dns);
	if (!r->filter_err) {
		st->marks = bw_records_marks(r->filter.mem, r->filter.nblocks);
		st->hdr = *bw_running_hdr(r);
		st->info = *bw_running_info(r);
		bw_records_init(&rec);
		if (!bw_records_read(r->filter.mem, r->filter.nblocks, &rec))
			bw_dns_settings(r->filter.mem, &rec, &st->dns);
		bw_records_free(&rec);
		return;
	}
	st->hdr.flags = BW_F_MATCH_SRC;
	pr_warn("%s: the running filter is not one this bloomwall can read (corrupt, or format version other than %d); it is replaced with a new one: enforce, --match src and --fpr %g%% unless given\n",
		r->iface, BW_VERSION, BW_DEFAULT_FPR * 100);
}

static double settings_fpr(const struct running_settings *st)
{
	return bw_info_fpr(&st->info);
}

/* What the reload builds and swaps in, and what it needs for that. */
struct reload_ctx {
	const struct bw_reload_req *r;
	struct running_settings st;
	struct bw_records kept; /* the adds built in: the running ones, less */
	size_t forgot;	      /* kept adds left out (--forget-added, remove) */
	size_t expired;	      /* kept adds past their expiry, left out */
	struct bw_list allow; /* --allow: the new allowlist */
	struct bw_rec_source *allow_src; /* --allow: what each file was */
	struct bw_built b;
	struct bw_reload_result *res;
};

/* The running filter's kept adds, less those the reload leaves out. */
static int read_kept(struct reload_ctx *c, const struct bw_running *r)
{
	const struct bw_reload_req *rq = c->r;
	struct bw_records *k = &c->kept;
	long gone = 0;
	int err;

	bw_records_free(k);
	err = bw_running_records(r, k);
	c->forgot = 0;
	/* Past its expiry, an add is never built in again. */
	c->expired = err ? 0 : bw_records_drop_expired(k, bw_expiry_now());
	if (!err && rq->args->forget_added) {
		c->forgot = k->added.n;
		bw_entries_free(&k->added);
		bw_owners_free(&k->owners);
	}
	/* R adds or removes among N kept cost O(N + R). */
	if (!err && rq->add)
		err = bw_records_add_by(k, rq->add, rq->owner);
	if (!err && rq->remove && rq->owner) {
		gone = bw_records_remove_by(k, rq->remove, rq->owner,
					    bw_expiry_now());
		err = gone < 0 ? (int)gone : 0;
		c->forgot += gone > 0 ? (size_t)gone : 0;
	} else if (!err && rq->remove) {
		gone = bw_records_drop_all(k, rq->remove);
		err = gone < 0 ? (int)gone : 0;
		c->forgot += gone > 0 ? (size_t)gone : 0;
	}
	return err;
}

static int build_image(struct reload_ctx *c, __u16 flags)
{
	const struct bw_reload_req *r = c->r;
	struct bw_image_stage_req st = {
		.iface = r->iface,
		.img = r->image,
		.path = r->image_path,
		.origin = r->origin,
		.allow = flags & BW_F_ALLOW,
		.allow_names = replaces_allow(r) ? c->allow.ndom > 0
						 : c->st.allow_names,
		.exact_slot = !c->st.hdr.exact_slot,
		.generation = c->st.info.generation + 1,
		.allow_rollback = r->allow_rollback,
		.adds_live = r->adds_live,
	};
	size_t out = 0;
	int err;

	err = bw_image_stage(&st, &c->kept, &out, &c->b);
	c->forgot += out;
	return err;
}

/* A build's figures, for the report: a raced reload builds twice. */
static int built(struct reload_ctx *c, int err)
{
	struct bw_reload_result *res = c->res;

	if (!err && res->nbuilds < BW_RELOAD_BUILDS)
		res->build[res->nbuilds++] = c->b.fig;
	return err;
}

static int build(struct reload_ctx *c)
{
	const struct bw_reload_req *r = c->r;
	struct bw_build_req req;
	__u16 flags = new_flags(r->args, c->st.hdr.flags) & ~BW_F_ALLOW;

	/* The allowlist the new program gets decides whether it reads one. */
	if (replaces_allow(r) ? c->allow.n4 + c->allow.n6 > 0
			      : c->st.allow_entries)
		flags |= BW_F_ALLOW;
	if (r->image)
		return built(c, build_image(c, flags));
	bw_build_req_from_args(&req, r->iface, r->args, r->lists, r->nlists,
			       settings_fpr(&c->st), flags,
			       c->st.info.generation + 1);
	/* The other slot: the running filter's trie stays until the swap. */
	req.exact_slot = !c->st.hdr.exact_slot;
	req.added = &c->kept.added;
	req.adds_live = r->adds_live;
	req.room = r->room;
	req.origin = r->origin ?: BW_ORIGIN_RELOAD;
	req.change = r->remove ? BW_CHANGE_REMOVE : r->add ? BW_CHANGE_ADD : 0;
	req.prev = &c->kept;
	/* The allowlist files: --allow's, else those the running one keeps. */
	req.allow_files = r->args->allow;
	req.nallow_files = r->args->nallow;
	req.allow_src = c->allow_src;
	req.keep_allow = &c->kept;
	bw_build_req_dns(&req, r->args, &c->st.dns);
	req.allow_names =
		r->args->nallow ? c->allow.ndom > 0 : c->st.allow_names;
	return built(c, bw_build_lists(&req, &c->b));
}

/*
 * The lock is taken after the build: the running filter may have been
 * replaced meanwhile. The new one is numbered after it and its trie goes
 * into the slot it does not use; a change to what the build was based on
 * means building again.
 */
static int rebase(struct reload_ctx *c, const struct bw_running *r)
{
	struct running_settings now;
	struct bw_records built = c->kept;
	struct bw_hdr *hdr = c->b.filter.mem;
	struct bw_info *info =
		(void *)((char *)c->b.filter.mem + BW_BLOCK_BYTES);
	bool same;
	int err;

	/* A remove may have marked adds taken out in place: no new program. */
	if (r->prog_id == c->st.prog_id &&
	    (r->filter_err ||
	     bw_records_marks(r->filter.mem, r->filter.nblocks) == c->st.marks))
		return 0;
	read_settings(r, &now);
	/* An add (or a remove) swapped in meanwhile: its entries count. */
	bw_records_init(&c->kept);
	err = read_kept(c, r);
	same = bw_records_same_added(&built, &c->kept);
	/* Another image swapped in meanwhile: the rollback check again. */
	same = same && built.have_image == c->kept.have_image &&
	       !memcmp(&built.image, &c->kept.image, sizeof(built.image)) &&
	       !memcmp(built.origin.image_hash, c->kept.origin.image_hash,
		       sizeof(built.origin.image_hash));
	bw_records_free(&built);
	if (err)
		return err;
	if (!same || now.hdr.flags != c->st.hdr.flags ||
	    settings_fpr(&now) != settings_fpr(&c->st) ||
	    now.allow_entries != c->st.allow_entries ||
	    now.allow_names != c->st.allow_names ||
	    memcmp(&now.dns, &c->st.dns, sizeof(now.dns)) ||
	    now.hdr.exact_slot == hdr->exact_slot) {
		pr_warn("%s: the running filter changed while this reload was building; building again\n",
			r->iface);
		c->st = now;
		bw_built_close(&c->b);
		return build(c);
	}
	c->st = now;
	info->generation = now.info.generation + 1;
	return 0;
}

/* reload --allow: the new allowlist's trie, and how it differs. */
static int new_allowlist(struct reload_ctx *c, const struct bw_running *r,
			 struct bw_maps *maps, size_t *added, size_t *removed)
{
	struct bw_list old;
	int fd, err;

	bw_list_init(&old);
	err = bw_allow_read(r->maps.allow, &old);
	if (!err)
		bw_list_diff(&c->allow, &old, added, removed);
	bw_list_free(&old);
	fd = err ? err : bw_allow_create(&c->allow);
	if (fd < 0) {
		pr_warn("%s: cannot make the new allowlist: %s\n", r->iface,
			bw_errno_hint(fd));
		return fd;
	}
	bw_maps_replace(maps, &maps->allow, fd);
	return 0;
}

/*
 * The running program is an older bloomwall's, whose tries are keyed
 * without the family: the new program gets tries of today's key, the
 * allowlist's entries carried over (unless --allow replaces them), and an
 * exact tries' map of its own.
 */
static int upgrade_tries(const struct bw_running *r, bool keep_allow,
			 struct bw_maps *maps)
{
	struct bw_list old;
	int outer = -1, err = 0;

	bw_list_init(&old);
	if (keep_allow)
		err = bw_allow_read(r->maps.allow, &old);
	if (!err && keep_allow) {
		err = bw_allow_create(&old);
		if (err >= 0) {
			bw_maps_replace(maps, &maps->allow, err);
			err = 0;
		}
	}
	if (!err) {
		outer = bw_exact_outer_create();
		err = outer < 0 ? outer : 0;
	}
	if (!err) {
		bw_maps_replace(maps, &maps->exact, outer);
		pr_warn("note: %s: its program was an older bloomwall's; the allowlist (%zu %s) and the exact tries now have the family in their keys\n",
			r->iface, old.n4 + old.n6,
			bw_plural(old.n4 + old.n6, "entry", "entries"));
	} else {
		pr_warn("%s: cannot upgrade the older bloomwall's tries: %s\n",
			r->iface, bw_errno_hint(err));
	}
	bw_list_free(&old);
	return err;
}

/* What the swap put in, for the report. */
static void say_swapped(struct reload_ctx *c, size_t added, size_t removed)
{
	struct bw_reload_result *res = c->res;
	const struct bw_info *info =
		(const void *)((char *)c->b.filter.mem + BW_BLOCK_BYTES);

	res->swapped = true;
	res->generation = info->generation;
	res->replaces = c->st.info.generation;
	res->verify = c->b.exact_fd >= 0;
	res->allow_replaced = replaces_allow(c->r);
	res->allow_entries = c->allow.n4 + c->allow.n6;
	res->allow_added = added;
	res->allow_removed = removed;
	res->kept = c->kept.added.n;
	res->left_out = c->forgot;
	res->expired = c->expired;
}

/*
 * A name allowlist with room for what the swap stages in it, and for twice
 * what it holds after (an operator's allow NAME then fits): the running
 * one, or a larger copy the new program gets.
 */
static int room_for_names(struct reload_ctx *c, struct bw_maps *maps)
{
	bool replaces = replaces_allow(c->r);
	size_t need = bw_allow_names_count(maps->allow_names, 0xff) +
		      c->b.allow_names.ndom + (replaces ? c->allow.ndom : 0);
	size_t hold = c->b.allow_names.ndom +
		      (replaces ? c->allow.ndom
				: bw_allow_names_count(maps->allow_names,
						       BW_ALLOW_NAME_OPERATOR));
	int fd, err;

	err = bw_allow_names_resized(maps->allow_names, need, hold, &fd);
	if (!err && fd >= 0)
		bw_maps_replace(maps, &maps->allow_names, fd);
	if (err)
		pr_warn("%s: cannot make the name allowlist larger: %s\n",
			c->r->iface, bw_errno_hint(err));
	return err;
}

/*
 * Under the lock: the hook's program, read again (r was opened before the
 * build; a concurrent command may have replaced it), is replaced.
 */
static int swap_locked(struct reload_ctx *c, struct bw_running *r)
{
	static const struct bw_egress no_egress = BW_EGRESS_INIT;
	const struct bw_reload_req *rq = c->r;
	struct bw_maps maps = BW_MAPS_INIT;
	struct bw_installer in;
	struct bw_swap sw = { .iface = rq->iface, .maps = &maps };
	size_t added = 0, removed = 0;
	int err;

	err = bw_running_refresh(r, BW_RUN_REPAIR | BW_RUN_OLD_OK);
	if (err)
		return err;
	err = rebase(c, r);
	if (!err && rq->before_swap)
		err = rq->before_swap(rq->ctx, &c->b.fig);
	if (!err && rq->before_swap_filter)
		err = rq->before_swap_filter(rq->ctx, &c->b.filter);
	if (!err)
		err = bw_maps_dup(&r->maps, &maps);
	if (!err && r->old_tries)
		err = upgrade_tries(r, !replaces_allow(rq), &maps);
	if (!err && replaces_allow(rq))
		err = new_allowlist(c, r, &maps, &added, &removed);
	if (!err)
		err = room_for_names(c, &maps);
	if (!err)
		err = bw_stage_allow_names(
			rq->iface, maps.allow_names, &c->b.allow_names,
			replaces_allow(rq) ? &c->allow : NULL);
	if (!err) {
		bw_hook_installer(r, &in);
		if (rq->egress && !in.egress)
			in.egress = &no_egress;
		sw.installer = &in;
		sw.old_generation = c->st.info.generation;
		err = bw_swap_in(&sw, &c->b);
	} else if (err != -ENOENT) {
		bw_say_unchanged(rq->iface, c->st.info.generation);
	}
	if (!err)
		bw_prune_allow_names(rq->iface, maps.allow_names,
				     &c->b.allow_names,
				     replaces_allow(rq) ? &c->allow : NULL);
	if (!err)
		say_swapped(c, added, removed);
	bw_maps_close(&maps);
	return err;
}

int bw_reload(const struct bw_reload_req *rq, struct bw_reload_result *res)
{
	const struct bw_build_args *a = rq->args;
	struct reload_ctx c = { .r = rq, .b = BW_BUILT_INIT, .res = res };
	struct bw_running own, *r = rq->running ?: &own;
	double t0 = bw_mono();
	int lock, err;

	memset(res, 0, sizeof(*res));
	bw_list_init(&c.allow);
	/*
	 * Lists are read and the filter built before the lock is taken. What
	 * runs stays open meanwhile, and under the lock only the hook is read
	 * again: opening a program's maps is most of a reload's system calls.
	 */
	err = rq->running ? 0
			  : bw_running_open(rq->iface, rq->ifindex,
					    BW_RUN_OLD_OK, r);
	if (err)
		return err;
	read_settings(r, &c.st);
	err = read_kept(&c, r);
	if (!err && a->nallow) {
		c.allow_src = calloc(a->nallow, sizeof(*c.allow_src));
		if (!c.allow_src)
			err = -ENOMEM;
		else
			err = bw_load_allow_src(rq->iface, a->allow, a->nallow,
						a->mask_host_bits, &c.allow,
						c.allow_src);
	} else if (!err && replaces_allow(rq) &&
		   bw_image_sec_read(rq->image->sec[BW_IMAGE_ALLOW],
				     &c.allow)) {
		pr_warn("%s: no memory for the image's allowlist\n", rq->iface);
		err = -ENOMEM;
	}
	if (!err) {
		err = build(&c);
		if (err)
			bw_say_unchanged(rq->iface, c.st.info.generation);
	}
	if (!err) {
		lock = bw_lock_acquire();
		err = lock < 0 ? lock : swap_locked(&c, r);
		bw_lock_release(lock);
	}
	if (!rq->running)
		bw_running_close(r);
	bw_built_close(&c.b);
	bw_list_free(&c.allow);
	free(c.allow_src);
	bw_records_free(&c.kept);
	res->seconds = bw_mono() - t0;
	return err;
}
