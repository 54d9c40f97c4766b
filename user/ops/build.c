// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Building from lists into the kernel, and the name allowlist around a
 * swap (build.h).
 */
#include <errno.h>
#include <string.h>

#include "filter/builder.h"
#include "base/log.h"
#include "filter/records.h"
#include "kernel/allow_names.h"
#include "kernel/lpm.h"
#include "kernel/pin.h"
#include "kernel/prog_spec.h"
#include "ops/build.h"

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
	if (ba->dns_action_set)
		req->opts.dns_action = ba->dns_action;
	if (ba->dns_ttl_set)
		req->opts.dns_ttl = ba->dns_ttl;
	req->subdomains = ba->subdomains;
	req->allow_files = ba->allow;
	req->nallow_files = ba->nallow;
}

void bw_dns_settings(const void *mem, const struct bw_records *rec,
		     struct bw_rec_dns *d)
{
	const struct bw_dns_hdr *dns = mem ? bw_filter_dns(mem) : NULL;

	memset(d, 0, sizeof(*d));
	d->action = BW_DNS_NULL;
	d->ttl = BW_DEFAULT_DNS_TTL;
	if (rec && rec->have_dns) {
		*d = rec->dns;
		return;
	}
	if (dns) {
		d->action = dns->action;
		d->ttl = dns->ttl;
	}
}

void bw_build_req_dns(struct bw_build_req *req, const struct bw_build_args *ba,
		      const struct bw_rec_dns *d)
{
	if (!ba->dns_action_set)
		req->opts.dns_action = d->action;
	if (!ba->dns_ttl_set)
		req->opts.dns_ttl = d->ttl;
	req->subdomains = ba->subdomains || (!ba->no_subdomains &&
					     (d->opts & BW_REC_DNS_SUBDOMAINS));
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
	err = bw_filter_create(bw_build_map_blocks(&bd), &b->filter);
	if (!err)
		bw_build_fill(&bd, b->filter.mem);
	if (!err && (req->opts.flags & BW_F_VERIFY))
		err = build_exact(req, &bd, b);
	if (!err) {
		/* The lists' allow entries go on to the name allowlist. */
		b->allow_names = bd.allow_names;
		bw_list_init(&bd.allow_names);
		bw_build_figures_get(req, &bd, &b->fig);
		b->fig.exact_trie = b->exact_fd >= 0;
		b->fig.exact_entries = b->exact_entries;
	}
	bw_build_free(&bd);
	if (err)
		bw_built_close(b);
	return err;
}

/* ---- the name allowlist around a swap ------------------------------------ */

int bw_stage_allow_names(const char *iface, int fd, const struct bw_list *lists,
			 const struct bw_list *operator)
{
	int err = 0;

	if (fd < 0) {
		if (lists->ndom || (operator&& operator->ndom))
			pr_warn("warning: %s: the program has no name allowlist (a bloomwall from before names runs): the allow entries for names are left out\n",
				iface);
		return 0;
	}
	err = bw_allow_names_stage(fd, lists, BW_ALLOW_NAME_LIST);
	if (!err && operator)
		err = bw_allow_names_stage(fd, operator,
					   BW_ALLOW_NAME_OPERATOR);
	if (err)
		pr_warn("%s: cannot add to the name allowlist: %s\n", iface,
			bw_errno_hint(err));
	return err;
}

void bw_prune_allow_names(const char *iface, int fd,
			  const struct bw_list *lists,
			  const struct bw_list *operator)
{
	int err;

	err = bw_allow_names_prune(fd, lists, BW_ALLOW_NAME_LIST);
	if (!err && operator)
		err = bw_allow_names_prune(fd, operator,
					   BW_ALLOW_NAME_OPERATOR);
	if (err)
		pr_warn("warning: %s: cannot take the old entries out of the name allowlist: %s\n",
			iface, bw_errno_hint(err));
}

void bw_build_set_log_rate(__u32 rate)
{
	bw_prog_set_log_rate(rate);
}
