// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall reload IFACE [OPTIONS] LIST...
 *
 * A new filter is built beside the running one, a program is loaded for it,
 * and that program replaces the one on the interface in one atomic update:
 * every packet meets the old filter or the new one, never neither. A failed
 * build or load changes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "cli.h"
#include "log.h"
#include "lpm.h"
#include "pin.h"

static const struct bw_opt reload_opts[] = {
	{ "fpr", BW_OPT_FPR, "P",
	  "target false-positive rate (default: the running filter's)" },
	{ "seed", BW_OPT_SEED, "N",
	  "hash seed (default: a random one per build)" },
	{ "skip-invalid", BW_OPT_SKIP_INVALID, NULL,
	  "warn about bad list lines and skip them" },
	{ "monitor", BW_OPT_MONITOR, NULL,
	  "count matching packets but never drop them" },
	{ "enforce", BW_OPT_ENFORCE, NULL,
	  "drop matching packets (leave monitor mode)" },
	{ "match", BW_OPT_MATCH, "DIR", "test the src, dst or both addresses" },
	{ "max-lengths", BW_OPT_MAX_LENGTHS, "N[,M]",
	  "target prefix lengths per family, IPv4[,IPv6], 1-4 (default 4,4)" },
	{ "mask-host-bits", BW_OPT_MASK_HOST_BITS, NULL,
	  "mask a.b.c.d/len with host bits set (warn) instead of failing" },
	{ "allow", BW_OPT_ALLOW, "FILE",
	  "replace the allowlist with the entries of FILE (repeatable)" },
	{ "verify", BW_OPT_VERIFY, NULL,
	  "verify mode for the new filter (without it: verify is off)" },
	{ 0 },
};

#define BW_F_MATCH (BW_F_MATCH_SRC | BW_F_MATCH_DST)

/* Action and direction stay as they are unless the options change them. */
static __u16 new_flags(const struct bw_args *a, __u16 cur)
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
static void warn_if_detached(const struct bw_args *a)
{
	struct bw_xdp_info x;
	int fd = bw_pin_open(a->iface, BW_PIN_PROG);

	if (fd < 0)
		return;
	if (!bw_xdp_info(a->ifindex, bw_obj_id(fd), &x) && !x.ours)
		pr_warn("warning: bloomwall's program is no longer attached to %s; the new filter filters nothing. See 'bloomwall status %s'.\n",
			a->iface, a->iface);
	close(fd);
}

/* What a reload opens: the maps, the new allowlist; the running header. */
struct reload_ctx {
	const struct bw_args *a;
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
	const struct bw_args *a = c->a;
	int err, fd, registry_fd;

	/* Only the copies are needed: the new filter is built beside it. */
	err = bw_open_running_or_invalid(a->iface, &registry_fd, &cur);
	if (!err) {
		memcpy(&c->cur_hdr, cur.mem, sizeof(c->cur_hdr));
		memcpy(&c->cur_info, (char *)cur.mem + BW_BLOCK_BYTES,
		       sizeof(c->cur_info));
		bw_filter_close(&cur);
		close(registry_fd);
		return 0;
	}
	if (err != -EINVAL)
		return err;
	memset(&c->cur_hdr, 0, sizeof(c->cur_hdr));
	memset(&c->cur_info, 0, sizeof(c->cur_info));
	c->cur_hdr.flags = BW_F_MATCH_SRC;
	/* Without --allow the allowlist stays: the flag must follow it. */
	fd = bw_pin_open(a->iface, BW_PIN_ALLOW);
	if (fd >= 0 && bw_lpm_count(fd) > 0)
		c->cur_hdr.flags |= BW_F_ALLOW;
	if (fd >= 0)
		close(fd);
	pr_warn("%s: the running filter is not one this bloomwall can read (corrupt, or format version other than %d); it is replaced with a new one: enforce, --match src and --fpr %g%% unless given\n",
		a->iface, BW_VERSION, BW_DEFAULT_FPR * 100);
	return 0;
}

/* Opens what the options need; says what is missing. */
static int open_extra(struct reload_ctx *c)
{
	const struct bw_args *a = c->a;
	int err = 0;

	if (a->verify)
		c->exact_fd = bw_open_pinned_map(a->iface, BW_PIN_EXACT);
	else
		c->exact_fd = bw_pin_open(a->iface, BW_PIN_EXACT);
	if (a->verify && c->exact_fd < 0)
		return c->exact_fd;
	if (!a->nallow)
		return 0;
	c->allow_fd = bw_open_pinned_map(a->iface, BW_PIN_ALLOW);
	if (c->allow_fd < 0)
		return c->allow_fd;
	err = bw_load_allow(a->iface, a->allow, a->nallow, a->mask_host_bits,
			    &c->allow);
	return err;
}

static int swap_filter(struct reload_ctx *c)
{
	const struct bw_hdr *hdr = &c->cur_hdr;
	const struct bw_info *info = &c->cur_info;
	double fpr = info->fpr_ppb ? info->fpr_ppb / 1e9 : BW_DEFAULT_FPR;
	struct bw_swap sw = { .iface = c->a->iface,
			      .maps = &c->maps,
			      .exact_fd = c->exact_fd,
			      .allow_fd = c->allow_fd,
			      .allow = &c->allow,
			      .old_generation = info->generation };
	struct bw_hook hook = { .iface = c->a->iface,
				.ifindex = c->a->ifindex };
	struct bw_built b = BW_BUILT_INIT;
	struct bw_build_req req;
	struct bw_installer in;
	int err;

	bw_hook_installer(&hook, &in);
	sw.installer = &in;

	bw_build_req_init(&req, c->a, fpr, new_flags(c->a, hdr->flags),
			  info->generation + 1);
	/* The other slot: the running filter's trie stays until the swap. */
	req.exact_slot = !hdr->exact_slot;
	err = bw_build_lists(&req, &b);
	if (err)
		bw_say_unchanged(c->a->iface, info->generation);
	else
		err = bw_swap_in(&sw, &b);
	bw_built_close(&b);
	return err;
}

static int do_reload(struct bw_args *a)
{
	struct reload_ctx c = {
		.a = a, .maps = BW_MAPS_INIT, .exact_fd = -1, .allow_fd = -1
	};
	int lock, err;

	err = bw_check_privileges("reload");
	if (err)
		return err;
	lock = bw_lock_acquire();
	if (lock < 0)
		return lock;
	bw_list_init(&c.allow);
	err = read_running(&c);
	if (!err)
		err = bw_open_maps(a->iface, &c.maps);
	if (!err)
		err = open_extra(&c);
	if (err)
		goto out;
	warn_if_detached(a);
	err = swap_filter(&c);
out:
	bw_maps_close(&c.maps);
	if (c.exact_fd >= 0)
		close(c.exact_fd);
	if (c.allow_fd >= 0)
		close(c.allow_fd);
	bw_list_free(&c.allow);
	bw_lock_release(lock);
	return err;
}

const struct bw_verb bw_verb_reload = {
	.name = "reload",
	.usage = "IFACE [OPTIONS] LIST...",
	.summary =
		"rebuild the filter on IFACE from the LIST files and swap it in",
	.details =
		"The new filter replaces the running one in a single update: the interface\n"
		"is never without a filter. If any list fails (missing file, bad line, out\n"
		"of memory), the running filter stays exactly as it was. Counters are kept;\n"
		"entries added with 'bloomwall add' are gone unless they are in a LIST.\n"
		"Monitor/enforce and --match carry over; --verify does not: a reload without\n"
		"it turns verify mode off. --allow replaces the allowlist (new entries are\n"
		"added before old ones go); without --allow the allowlist stays as it is.\n",
	.opts = reload_opts,
	.min_pos = 2,
	.max_pos = -1,
	.run = do_reload,
};
