// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The filter builder: lists -> merged, expanded keys -> a planned filter ->
 * its bytes. No bpf() calls (see builder.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "builder.h"
#include "log.h"

static int load_files(const char *const *files, int n,
		      const struct bw_list_opts *lo, struct bw_list *l)
{
	int i, err;

	/* Each failure, read errors included, was said with its file name. */
	for (i = 0; i < n; i++) {
		err = bw_list_load(l, files[i], lo);
		if (err)
			return err;
	}
	bw_list_finish(l);
	return 0;
}

void bw_build_req_init(struct bw_build_req *req, const char *label)
{
	memset(req, 0, sizeof(*req));
	req->label = label;
	bw_build_opts_init(&req->opts);
	bw_cidr_opts_init(&req->cidr);
	req->generation = 1;
}

void bw_build_free(struct bw_build *b)
{
	bw_list_free(&b->keys);
	bw_list_free(&b->exact);
}

static void explain_plan_error(int err, const struct bw_build_req *req)
{
	if (err == -E2BIG)
		pr_warn("%s: the filter would exceed %u blocks (%u MiB); use fewer entries, a higher --fpr or fewer target lengths (--max-lengths)\n",
			req->label, BW_MAX_BLOCKS,
			(unsigned int)((BW_MAX_BLOCKS *
					(__u64)BW_BLOCK_BYTES) >>
				       20));
	else
		pr_warn("%s: cannot size the filter: %s\n", req->label,
			strerror(-err));
}

/* A /0 after merging is the whole family: say so, it is rarely meant. */
static void warn_everything(const struct bw_build_req *req,
			    struct bw_build_summary *sum,
			    const struct bw_cidr_stats *st)
{
	int f;

	for (f = 0; f < BW_FAMILIES; f++) {
		sum->everything[f] =
			st->fam[f].merged && st->fam[f].shortest == 0;
		if (sum->everything[f])
			pr_warn("warning: %s: the lists hold %s: the filter drops every %s packet\n",
				req->label, f == BW_V4 ? "0.0.0.0/0" : "::/0",
				f == BW_V4 ? "IPv4" : "IPv6");
	}
}

static int plan(const struct bw_build_req *req, const struct bw_cidr_stats *st,
		struct bw_build *b)
{
	int err;

	err = bw_plan_filter(&b->keys, &req->opts, &b->plan);
	if (err) {
		explain_plan_error(err, req);
		return err;
	}
	b->plan.info.generation = req->generation;
	b->plan.info.source_entries =
		st->fam[BW_V4].source + st->fam[BW_V6].source;
	b->plan.hdr.exact_slot = req->exact_slot;
	b->sum.source_entries = b->plan.info.source_entries;
	b->sum.merged = st->fam[BW_V4].merged + st->fam[BW_V6].merged;
	b->sum.entries = b->plan.info.entries;
	return 0;
}

int bw_build_plan(const struct bw_build_req *req, struct bw_build *b)
{
	struct bw_list_opts lo = { .skip_invalid = req->skip_invalid,
				   .allow_cidr = true,
				   .mask_host_bits = req->mask_host_bits };
	struct bw_cidr_stats st;
	int err;

	memset(b, 0, sizeof(*b));
	bw_list_init(&b->keys);
	bw_list_init(&b->exact);
	err = load_files(req->lists, req->nlists, &lo, &b->exact);
	if (!err) {
		err = bw_cidr_prepare(&b->exact, &req->cidr, &b->keys, &st);
		if (err && err != -E2BIG)
			pr_warn("%s: cannot expand the prefixes: %s\n",
				req->label, bw_errno_hint(err));
	}
	if (!err) {
		warn_everything(req, &b->sum, &st);
		err = plan(req, &st, b);
	}
	b->sum.duplicates = b->exact.duplicates;
	b->sum.skipped = b->exact.skipped;
	/*
	 * Verify mode: the exact trie holds the merged prefixes (as few
	 * entries as cover the lists exactly), not the expanded keys.
	 */
	if (!err && (req->opts.flags & BW_F_VERIFY))
		bw_cidr_merge(&b->exact, NULL);
	else
		bw_list_free(&b->exact);
	if (err)
		bw_build_free(b);
	return err;
}

void bw_build_fill(const struct bw_build *b, void *mem)
{
	bw_fill_filter(mem, &b->plan, &b->keys);
}

int bw_load_allow(const char *label, const char *const *files, int n,
		  bool mask_host_bits, struct bw_list *l)
{
	struct bw_list_opts lo = { .allow_cidr = true,
				   .mask_host_bits = mask_host_bits };
	int err;

	err = load_files(files, n, &lo, l);
	if (err) {
		pr_warn("%s: the allowlist is not usable; nothing changed\n",
			label);
		return err;
	}
	if (l->n4 + l->n6 > BW_ALLOW_MAX) {
		pr_warn("%s: the allowlist holds %'zu entries, more than the %'u it can hold\n",
			label, l->n4 + l->n6, BW_ALLOW_MAX);
		return -E2BIG;
	}
	return 0;
}
