// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall attach IFACE [OPTIONS] LIST...
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include <linux/if_link.h>

#include <bpf/bpf.h>

#include "kernel/attach.h"
#include "cmd/cli.h"
#include "cmd/cmd_attach.h"
#include "kernel/hook.h"
#include "base/log.h"
#include "base/output.h"
#include "kernel/lock.h"
#include "kernel/pin.h"
#include "kernel/prog.h"
#include "ops/reload.h"
#include "kernel/running.h"

static const struct bw_opt attach_only_opts[] = {
	{ "mode", BW_OPT_MODE, "MODE",
	  "native, skb or auto (default): where XDP runs" },
	{ "link", BW_OPT_LINK, NULL,
	  "attach with a bpf_link of bloomwall's own, not through libxdp" },
	{ 0 },
};

static const struct bw_opt *const attach_opts[] = { attach_only_opts,
						    bw_build_opts, bw_log_opts,
						    NULL };

/*
 * Pins left without a program on the hook (an interrupted attach or
 * detach, a re-created interface) go, under the lock; pins of a program
 * that runs on another interface (a rename) are that one's.
 */
static int check_pins(const struct bw_args *a, bool clean)
{
	char moved[IF_NAMESIZE];

	if (!bw_pins_left(a->iface, moved, sizeof(moved)))
		return 0;
	if (moved[0]) {
		pr_warn("%s: the bloomwall program pinned for %s runs on %s (renamed?); detach it there with 'bloomwall detach %s' first\n",
			a->iface, a->iface, moved, moved);
		return -EEXIST;
	}
	if (!clean)
		return 0;
	pr_warn("note: %s: removing the pins an earlier bloomwall left under %s/%s (nothing of it runs there)\n",
		a->iface, BW_PIN_ROOT, a->iface);
	return bw_unpin_all(a->iface);
}

/* Refuses an interface that bloomwall (or anything but a dispatcher) holds. */
static int check_free(const struct bw_args *a, bool clean)
{
	char name[BPF_OBJ_NAME_LEN];
	struct bw_xdp_info x;
	int fd;

	fd = bw_hook_find(a->ifindex, &x);
	if (fd >= 0) {
		close(fd);
		pr_warn("bloomwall is already attached to %s; use 'bloomwall reload %s LIST...' or 'bloomwall detach %s'\n",
			a->iface, a->iface, a->iface);
		return -EEXIST;
	}
	if (fd != -ENOENT) {
		pr_warn("%s: cannot query its XDP programs: %s\n", a->iface,
			bw_errno_hint(fd));
		return fd;
	}
	bw_prog_name(x.prog_id, name, sizeof(name));
	/* libxdp's dispatcher is made for sharing: it gets one more program. */
	if (x.prog_id && strcmp(name, "xdp_dispatcher")) {
		pr_warn("%s already has an XDP program that is not bloomwall's (id %u, '%s'); bloomwall will not replace it. Remove it first, e.g. 'ip link set dev %s %s off'.\n",
			a->iface, x.prog_id, name, a->iface,
			x.attach_mode == XDP_ATTACHED_SKB ? "xdpgeneric"
							  : "xdp");
		return -EEXIST;
	}
	return check_pins(a, clean);
}

/* The lists are read and the filter built before the lock is taken. */
static int build(const struct bw_args *a, struct bw_list *allow,
		 struct bw_built *b)
{
	const struct bw_build_args *ba = &a->build;
	__u16 flags = (ba->match ?: BW_F_MATCH_SRC) |
		      (ba->monitor ? BW_F_MONITOR : 0);
	struct bw_rec_source src[BW_MAX_ALLOW_FILES];
	struct bw_build_req req;
	int err = 0;

	/* What each allowlist file was, for the filter's records. */
	if (ba->nallow)
		err = bw_load_allow_src(a->iface, ba->allow, ba->nallow,
					ba->mask_host_bits, allow, src);
	if (err)
		return err;
	bw_build_req_from_args(&req, a->iface, ba, (const char *const *)a->pos,
			       a->npos, BW_DEFAULT_FPR, flags, 1);
	req.allow_src = ba->nallow ? src : NULL;
	req.allow_names = allow->ndom > 0;
	return bw_build_lists(&req, b);
}

/*
 * The name allowlist of the program just attached: the lists' @@ entries
 * and --allow's names. A query in between meets the filter without them,
 * as one before the attach met no filter.
 */
static int fill_allow_names(const struct bw_args *a, const struct bw_built *b,
			    const struct bw_list *allow)
{
	struct bw_running r;
	int err;

	if (!b->allow_names.ndom && !allow->ndom)
		return 0;
	err = bw_running_open(a->iface, a->ifindex, 0, &r);
	if (err)
		return err;
	err = bw_stage_allow_names(a->iface, r.maps.allow_names,
				   &b->allow_names, allow);
	bw_running_close(&r);
	return err;
}

static int do_attach(struct bw_args *a)
{
	struct bw_built b = BW_BUILT_INIT;
	struct bw_list allow;
	int lock = -1, err;

	bw_out_string("iface", NULL, a->iface);
	bw_list_init(&allow);
	err = bw_check_privileges("attach");
	if (!err)
		err = check_free(a, false);
	if (err)
		goto out;
	err = build(a, &allow, &b);
	if (!err) {
		lock = bw_lock_acquire();
		err = lock < 0 ? lock : check_free(a, true);
		if (err)
			goto out;
		err = bw_attach(a->iface, a->ifindex, a->mode, a->link, &b,
				a->build.nallow ? &allow : NULL);
		/* Attached: a failure here was said, and is no reason to undo. */
		if (!err)
			fill_allow_names(a, &b, &allow);
	}
	if (err)
		pr_warn("%s: nothing attached\n", a->iface);
out:
	bw_list_free(&allow);
	bw_built_close(&b);
	bw_lock_release(lock);
	return err;
}

const struct bw_verb bw_verb_attach = {
	.name = "attach",
	.summary = "build a filter from the LIST files and attach it to IFACE",
	.details =
		"Each LIST holds one entry a line ('-' is standard input): an IPv4 or IPv6\n"
		"address, a prefix (10.0.0.0/8, 2001:db8::/32), an IPv4 range\n"
		"(a.b.c.d-e.f.g.h), or Spamhaus' 'CIDR ; SBL123'. A prefix with host bits\n"
		"set is an error (file:line) unless --mask-host-bits. Prefixes are merged\n"
		"and expanded to at most --max-lengths target lengths per family.\n"
		"--allow FILE (same formats) is never dropped; --verify confirms every\n"
		"Bloom hit in an exact trie, so no false positive is dropped.\n"
		"The program and maps are pinned under " BW_PIN_ROOT
		"/IFACE/ and keep\n"
		"filtering after bloomwall exits. A second attach on IFACE is an error.\n"
		"With --json: {\"iface\", \"filter\": {the build's figures}, \"verify\", \"allow\",\n"
		"\"attach\": {\"mode\", \"how\", \"program_id\"}}; see bloomwall(8).\n",
	.opts = attach_opts,
	.pos = { .rest = "LIST", .min_rest = 1, .rest_many = true },
	.run = do_attach,
};
