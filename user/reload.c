// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The reload operation: build into the kernel, swap in, report (reload.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hook.h"
#include "log.h"
#include "lpm.h"
#include "output.h"
#include "pin.h"
#include "reload.h"
#include "running.h"

/* ---- building into the kernel -------------------------------------------- */

void bw_build_req_from_args(struct bw_build_req *req, const char *iface,
			    const struct bw_build_args *ba,
			    const char *const *lists, int nlists, double fpr,
			    __u16 flags, __u64 generation)
{
	int f;

	bw_build_req_init(req, iface);
	req->lists = lists;
	req->nlists = nlists;
	req->opts.fpr = ba->fpr_set ? ba->fpr : fpr;
	if (ba->seed_set)
		req->opts.seed = ba->seed;
	req->opts.flags = flags | (ba->verify ? BW_F_VERIFY : 0);
	for (f = 0; f < BW_FAMILIES; f++)
		if (ba->max_lengths[f])
			req->cidr.max_lengths[f] = ba->max_lengths[f];
	req->skip_invalid = ba->skip_invalid;
	req->mask_host_bits = ba->mask_host_bits;
	req->generation = generation;
}

/* The fewest and most probes per key over the regions in use (0: none). */
static void probes_range(const struct bw_plan *p, unsigned int *lo,
			 unsigned int *hi)
{
	unsigned int r;

	*lo = BW_MAX_PROBES;
	*hi = 0;
	for (r = 0; r < BW_REGIONS; r++) {
		if (p->hdr.region_end[r] == bw_region_start(&p->hdr, r))
			continue;
		*lo = p->hdr.probes[r] < *lo ? p->hdr.probes[r] : *lo;
		*hi = p->hdr.probes[r] > *hi ? p->hdr.probes[r] : *hi;
	}
	if (!*hi)
		*lo = 0;
}

/* "10 probes" or "8-12 probes" per key; JSON {min, max}. */
static void out_probes(const struct bw_plan *p)
{
	unsigned int lo, hi;

	probes_range(p, &lo, &hi);
	bw_out_open_object("probes");
	if (!hi)
		bw_out_text("no");
	else if (lo != hi)
		bw_out_text("%u-", lo);
	bw_out_u64("min", NULL, lo);
	bw_out_u64("max", hi ? "%llu" : NULL, hi);
	bw_out_text(" probe%s per key", hi == 1 ? "" : "s");
	bw_out_close_object();
}

/* "IPv4 /32 /24, IPv6 /48": the target lengths of the families present. */
static void out_targets(const struct bw_hdr *hdr)
{
	bool any = false;
	int f, i;

	bw_out_open_object("targets");
	for (f = 0; f < BW_FAMILIES; f++) {
		bw_out_open_array(f == BW_V4 ? "ipv4" : "ipv6");
		if (hdr->nlengths[f])
			bw_out_text("%s%s", any ? ", " : "",
				    f == BW_V4 ? "IPv4" : "IPv6");
		for (i = 0; i < hdr->nlengths[f] && i < BW_MAX_LENGTHS; i++)
			bw_out_u64(NULL, " /%llu", hdr->plen[f][i]);
		any |= hdr->nlengths[f] > 0;
		bw_out_close_array();
	}
	bw_out_close_object();
	if (!any)
		bw_out_text("none");
}

/*
 * The build's one line: "IFACE: filter generation N: ... target fpr P%";
 * JSON the object "filter" with the same figures.
 */
static void print_summary(const struct bw_build_req *req,
			  const struct bw_build *b)
{
	const struct bw_build_summary *s = &b->sum;
	const struct bw_plan *p = &b->plan;

	bw_out_open_object("filter");
	bw_out_text("%s: ", req->label);
	bw_out_u64("generation",
		   "filter generation %llu: ", p->info.generation);
	bw_out_u64("prefixes", "%'llu prefixes", s->source_entries);
	bw_out_u64("duplicates", " (%'llu duplicates removed, ", s->duplicates);
	bw_out_u64("skipped", "%'llu lines skipped), ", s->skipped);
	bw_out_u64("merged", "%'llu after merging, ", s->merged);
	bw_out_u64("entries", "%'llu entries at target lengths ", s->entries);
	out_targets(&p->hdr);
	bw_out_double("expansion", " (x%.2f), ",
		      s->source_entries ? (double)s->entries / s->source_entries
					: 1.0);
	bw_out_u64("blocks", "%'llu blocks ", p->nblocks);
	bw_out_u64("bytes", "(%'llu bytes), ",
		   (unsigned long long)p->nblocks * BW_BLOCK_BYTES);
	out_probes(p);
	bw_out_text(", target fpr %g%%\n", req->opts.fpr * 100.0);
	bw_out_double("fpr", NULL, req->opts.fpr);
	bw_out_close_object();
	if (!s->entries)
		pr_warn("warning: the lists hold no entries: the filter on %s passes everything\n",
			req->label);
}

/* Room for 'bloomwall add' on top: the trie allocates per entry anyway. */
static __u32 exact_cap(size_t n)
{
	__u64 cap = (__u64)n + BW_ALLOW_MAX;

	return cap > 0xffffffffULL ? 0xffffffffU : (__u32)cap;
}

/* Verify mode: a new exact trie of the build's merged prefixes. */
static int build_exact(const struct bw_build_req *req,
		       const struct bw_build *bd, struct bw_built *b)
{
	size_t n = bd->exact.n4 + bd->exact.n6;
	int err;

	b->exact_fd = bw_lpm_create(BW_PIN_EXACT, exact_cap(n));
	if (b->exact_fd < 0) {
		err = b->exact_fd;
		b->exact_fd = -1;
		pr_warn("%s: cannot create the exact trie for --verify: %s\n",
			req->label, bw_errno_hint(err));
		return err;
	}
	err = bw_lpm_fill(b->exact_fd, &bd->exact);
	if (err) {
		pr_warn("%s: cannot fill the exact trie (%'zu prefixes) for --verify: %s\n",
			req->label, n, bw_errno_hint(err));
		return err;
	}
	b->exact_entries = n;
	return 0;
}

int bw_build_lists(const struct bw_build_req *req, struct bw_built *b)
{
	struct bw_build bd;
	int err;

	err = bw_build_plan(req, &bd);
	if (err)
		return err;
	err = bw_filter_create(bd.plan.nblocks, &b->filter);
	if (!err)
		bw_build_fill(&bd, b->filter.mem);
	if (!err && (req->opts.flags & BW_F_VERIFY))
		err = build_exact(req, &bd, b);
	if (!err)
		print_summary(req, &bd);
	if (!err && b->exact_fd >= 0) {
		bw_out_open_object("verify");
		bw_out_text("%s: verify mode: ", req->label);
		bw_out_u64("exact_entries", "exact trie of %'llu prefixes\n",
			   b->exact_entries);
		bw_out_close_object();
	}
	bw_build_free(&bd);
	if (err)
		bw_built_close(b);
	return err;
}

/* ---- reload -------------------------------------------------------------- */

#define BW_F_MATCH (BW_F_MATCH_SRC | BW_F_MATCH_DST)

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

/* The program should still be on the hook; a swap elsewhere helps no one. */
static void warn_if_detached(const struct bw_reload_req *r)
{
	struct bw_xdp_info x;
	int fd = bw_pin_open(r->iface, BW_PIN_PROG);

	if (fd < 0)
		return;
	if (!bw_xdp_info(r->ifindex, bw_obj_id(fd), &x) && !x.ours)
		pr_warn("warning: bloomwall's program is no longer attached to %s; the new filter filters nothing. See 'bloomwall status %s'.\n",
			r->iface, r->iface);
	close(fd);
}

/* What a reload opens: the maps, the new allowlist; the running header. */
struct reload_ctx {
	const struct bw_reload_req *r;
	struct bw_maps maps; /* what the new program shares */
	int exact_fd; /* -1: no exact pin (only an error with --verify) */
	int allow_fd; /* -1 without --allow */
	struct bw_list allow;
	struct bw_hdr cur_hdr; /* the running filter's, or the defaults */
	struct bw_info cur_info;
};

/*
 * The running filter's header and info, or, for one this bloomwall cannot
 * read (corrupt, or another format version), what a fresh attach would
 * use: the reload then replaces it like any other.
 */
static int read_running(struct reload_ctx *c)
{
	struct bw_filter_map cur = BW_FILTER_MAP_INIT;
	const char *iface = c->r->iface;
	int err, fd;

	/* Only the copies are needed: the new filter is built beside it. */
	err = bw_open_running_or_invalid(iface, &cur);
	if (!err) {
		memcpy(&c->cur_hdr, cur.mem, sizeof(c->cur_hdr));
		memcpy(&c->cur_info, (char *)cur.mem + BW_BLOCK_BYTES,
		       sizeof(c->cur_info));
		bw_filter_close(&cur);
		return 0;
	}
	if (err != -EINVAL)
		return err;
	memset(&c->cur_hdr, 0, sizeof(c->cur_hdr));
	memset(&c->cur_info, 0, sizeof(c->cur_info));
	c->cur_hdr.flags = BW_F_MATCH_SRC;
	/* Without --allow the allowlist stays: the flag must follow it. */
	fd = bw_pin_open(iface, BW_PIN_ALLOW);
	if (fd >= 0 && bw_lpm_count(fd) > 0)
		c->cur_hdr.flags |= BW_F_ALLOW;
	if (fd >= 0)
		close(fd);
	pr_warn("%s: the running filter is not one this bloomwall can read (corrupt, or format version other than %d); it is replaced with a new one: enforce, --match src and --fpr %g%% unless given\n",
		iface, BW_VERSION, BW_DEFAULT_FPR * 100);
	return 0;
}

/* Opens what the options need; says what is missing. */
static int open_extra(struct reload_ctx *c)
{
	const struct bw_build_args *a = c->r->args;
	const char *iface = c->r->iface;

	if (a->verify)
		c->exact_fd = bw_open_pinned_map(iface, BW_PIN_EXACT);
	else
		c->exact_fd = bw_pin_open(iface, BW_PIN_EXACT);
	if (a->verify && c->exact_fd < 0)
		return c->exact_fd;
	if (!a->nallow)
		return 0;
	c->allow_fd = bw_open_pinned_map(iface, BW_PIN_ALLOW);
	if (c->allow_fd < 0)
		return c->allow_fd;
	return bw_load_allow(iface, a->allow, a->nallow, a->mask_host_bits,
			     &c->allow);
}

static int swap_filter(struct reload_ctx *c)
{
	const struct bw_reload_req *r = c->r;
	const struct bw_info *info = &c->cur_info;
	double fpr = bw_info_fpr(info);
	struct bw_swap sw = { .iface = r->iface,
			      .maps = &c->maps,
			      .exact_fd = c->exact_fd,
			      .allow_fd = c->allow_fd,
			      .allow = &c->allow,
			      .old_generation = info->generation };
	struct bw_hook hook = { .iface = r->iface, .ifindex = r->ifindex };
	struct bw_built b = BW_BUILT_INIT;
	struct bw_build_req req;
	struct bw_installer in;
	int err;

	bw_hook_installer(&hook, &in);
	sw.installer = &in;
	bw_build_req_from_args(&req, r->iface, r->args, r->lists, r->nlists,
			       fpr, new_flags(r->args, c->cur_hdr.flags),
			       info->generation + 1);
	/* The other slot: the running filter's trie stays until the swap. */
	req.exact_slot = !c->cur_hdr.exact_slot;
	err = bw_build_lists(&req, &b);
	if (err)
		bw_say_unchanged(r->iface, info->generation);
	else
		err = bw_swap_in(&sw, &b);
	bw_built_close(&b);
	return err;
}

int bw_reload(const struct bw_reload_req *r)
{
	struct reload_ctx c = {
		.r = r, .maps = BW_MAPS_INIT, .exact_fd = -1, .allow_fd = -1
	};
	int lock, err;

	lock = bw_lock_acquire();
	if (lock < 0)
		return lock;
	bw_list_init(&c.allow);
	err = read_running(&c);
	if (!err)
		err = bw_open_maps(r->iface, &c.maps);
	if (!err)
		err = open_extra(&c);
	if (!err) {
		warn_if_detached(r);
		err = swap_filter(&c);
	}
	bw_maps_close(&c.maps);
	if (c.exact_fd >= 0)
		close(c.exact_fd);
	if (c.allow_fd >= 0)
		close(c.allow_fd);
	bw_list_free(&c.allow);
	bw_lock_release(lock);
	return err;
}

/* ---- the allowlist's program flips --------------------------------------- */

int bw_running_allow_flag(const char *iface, int ifindex, bool on)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_hook hook = { .iface = iface, .ifindex = ifindex };
	struct bw_maps maps = BW_MAPS_INIT;
	struct bw_installer in;
	struct bw_hdr *hdr;
	int err;

	err = bw_open_running(iface, true, &m);
	if (err)
		return err;
	hdr = m.mem;
	if (!!(hdr->flags & BW_F_ALLOW) == on)
		goto out;
	err = bw_open_maps(iface, &maps);
	if (err)
		goto out;
	bw_hook_installer(&hook, &in);
	bw_set_allow_flag(m.mem, on);
	err = bw_filter_commit(&maps, &m, &in);
	if (err)
		bw_set_allow_flag(m.mem, !on);
out:
	bw_maps_close(&maps);
	bw_filter_close(&m);
	return err;
}
