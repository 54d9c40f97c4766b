// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall reload IFACE [OPTIONS] LIST...
 *
 * A new filter is built beside the running one and swapped in with one
 * update of the outer map's slot: every packet meets the old filter or the
 * new one, never neither. A failed build changes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "cli.h"
#include "log.h"
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
	{ 0 },
};

#define BW_F_MATCH (BW_F_MATCH_SRC | BW_F_MATCH_DST)

/* Action and direction stay as they are unless the options change them. */
static __u16 new_flags(const struct bw_args *a, __u16 cur)
{
	__u16 flags = cur & (BW_F_MATCH | BW_F_MONITOR);

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

static int swap_filter(const struct bw_args *a, int outer_fd,
		       const struct bw_filter_map *cur)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	const struct bw_hdr *hdr = cur->mem;
	const struct bw_info *info =
		(const void *)((char *)cur->mem + BW_BLOCK_BYTES);
	double fpr = info->fpr_ppb ? info->fpr_ppb / 1e9 : BW_DEFAULT_FPR;
	struct bw_build_req req;
	int err;

	bw_build_req_init(&req, a, fpr, new_flags(a, hdr->flags),
			  info->generation + 1);
	err = bw_build_lists(&req, &m);
	if (err) {
		pr_warn("%s: nothing changed: the running filter (generation %llu) is as it was\n",
			a->iface, (unsigned long long)info->generation);
		return err;
	}
	err = bw_filter_commit(outer_fd, &m);
	if (err)
		pr_warn("%s: cannot swap in the new filter: %s; the running filter (generation %llu) is as it was\n",
			a->iface, bw_errno_hint(err),
			(unsigned long long)info->generation);
	else
		printf("%s: swapped in generation %llu (replaces %llu)\n",
		       a->iface, (unsigned long long)req.generation,
		       (unsigned long long)info->generation);
	bw_filter_close(&m);
	return err;
}

static int do_reload(struct bw_args *a)
{
	struct bw_filter_map cur = BW_FILTER_MAP_INIT;
	int lock, outer_fd = -1, err;

	err = bw_check_privileges("reload");
	if (err)
		return err;
	lock = bw_lock_acquire();
	if (lock < 0)
		return lock;
	err = bw_open_running(a->iface, false, &outer_fd, &cur);
	if (err)
		goto out;
	warn_if_detached(a);
	err = swap_filter(a, outer_fd, &cur);
out:
	bw_filter_close(&cur);
	if (outer_fd >= 0)
		close(outer_fd);
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
		"entries added with 'bloomwall add' are gone unless they are in a LIST.\n",
	.opts = reload_opts,
	.min_pos = 2,
	.max_pos = -1,
	.run = do_reload,
};
