// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall query IFACE ADDR...: the data path's test, run in userspace on
 * the filter of the program the interface's hook runs (mapped read-only),
 * with that program's flags, so the answer is the one a packet would get.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_query.h"
#include "lists/list.h"
#include "lists/list_domain.h"
#include "lists/list_parse.h"
#include "lists/names.h"
#include "base/log.h"
#include "base/output.h"
#include "filter/why.h"
#include "ops/query.h"
#include "out/cs_why.h"
#include "out/expiry_view.h"
#include "out/query_view.h"
#include "out/why_out.h"

static const struct bw_opt query_only_opts[] = {
	BW_OPT("why", NULL, why, bw_parse_flag,
	       "also say which list entries cover each ADDR, or that a drop is a false positive"),
	{ 0 },
};

static const struct bw_opt *const query_opts[] = { query_only_opts, NULL };

/* An address, else a name; a bad one is said as an address or a name. */
static int parse_args(struct bw_args *a, struct bw_query_arg *q)
{
	char why[BW_ERRLEN], nwhy[BW_ERRLEN];
	struct bw_prefix *p;
	int i;

	for (i = 0; i < a->npos; i++) {
		if (!bw_parse_prefix(a->pos[i], &q[i].addr, why, sizeof(why))) {
			p = &q[i].addr;
			if (why[0])
				pr_warn("bloomwall query: %s\n", why);
			if (p->plen != (p->family == BW_V4 ? 32 : 128)) {
				pr_warn("bloomwall query: '%s' is a prefix; give single addresses\n",
					a->pos[i]);
				return -BW_EUSAGE;
			}
			continue;
		}
		q[i].len = bw_name_check(a->pos[i], strlen(a->pos[i]),
					 q[i].name, nwhy, sizeof(nwhy));
		if (q[i].len < 0) {
			pr_warn("bloomwall query: %s\n",
				bw_name_form(a->pos[i], strlen(a->pos[i]))
					? nwhy
					: why);
			return -BW_EUSAGE;
		}
		q[i].is_name = true;
	}
	return 0;
}

/* Whether the list scan found an entry for target i. */
static bool listed(const struct bw_why *w, int i)
{
	for (size_t k = 0; k < w->nhits; k++)
		if (w->hits[k].target == i)
			return true;
	return false;
}

/*
 * --why of an address: the CrowdSec decisions of a running watch on it,
 * then the lists' answer (not when decisions alone explain a drop: a
 * "false positive" would be wrong).
 */
static void why_addr(const struct bw_query_result *qr,
		     const struct bw_query_arg *q, int i)
{
	if (bw_cs_why_out(&qr->cs, (size_t)i) <= 0 || listed(&qr->why, i))
		bw_why_out(qr, q, i);
}

static int do_query(struct bw_args *a)
{
	struct bw_query_req rq = { .iface = a->iface,
				   .ifindex = a->ifindex,
				   .n = a->npos,
				   .why = a->why ? a->pos : NULL };
	struct bw_query_result qr = { 0 };
	struct bw_query_arg *q;
	int i, err;

	bw_out_string("iface", NULL, a->iface);
	q = rq.q = calloc(a->npos ?: 1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	err = parse_args(a, q);
	if (err)
		goto out;
	err = bw_check_privileges("query");
	if (err)
		goto out;
	err = bw_query_open(&rq, &qr);
	if (err)
		goto out;
	bw_out_open_array("addresses");
	for (i = 0; i < a->npos; i++) {
		if (q[i].is_name)
			continue;
		bw_out_open_object(NULL);
		bw_query_out_addr(a->pos[i], &qr, &q[i]);
		if (a->why)
			why_addr(&qr, &q[i], i);
		else
			bw_expiry_out_covering(&qr.rec,
					       bw_key_prefix(&q[i].addr), true);
		bw_out_close_object();
	}
	bw_out_close_array();
	bw_out_open_array("names");
	for (i = 0; i < a->npos; i++) {
		if (!q[i].is_name)
			continue;
		bw_out_open_object(NULL);
		bw_query_out_name(a->pos[i], &qr, &q[i]);
		if (a->why)
			bw_why_out(&qr, &q[i], i);
		else
			bw_expiry_out_covering(
				&qr.rec,
				bw_key_name(q[i].name, (size_t)q[i].len, 0),
				true);
		bw_out_close_object();
	}
	bw_out_close_array();
out:
	bw_query_close(&qr);
	free(q);
	return err;
}

const struct bw_verb bw_verb_query = {
	.name = "query",
	.summary =
		"say whether the running filter on IFACE would drop each ADDR or block each NAME",
	.details =
		"Prints 'ADDR  drop (in blocklist /LEN region)', 'ADDR  pass', or, when the\n"
		"Bloom filter hits but the packet would still pass: 'pass (allowlisted)',\n"
		"'pass (false positive: not in the exact list)' (verify mode) or\n"
		"'pass (monitor mode: would drop)'. Without verify a Bloom filter may answer\n"
		"drop for an address that is in no list (a false positive), never pass for\n"
		"one that is.\n"
		"With --json: {\"iface\", \"addresses\": [{\"address\", \"verdict\": \"drop\"|\"pass\",\n"
		"\"reason\": \"not_listed\"|\"listed\"|\"allowlisted\"|\"false_positive\"|\"monitor\"}]}, with\n"
		"on a Bloom hit also the \"region\" that hit and its \"prefix\" length, and for\n"
		"a drop \"confirmed\" (by the exact list of verify mode).\n"
		"A NAME is judged as a DNS query for it: 'NAME  block (exact entry NAME; answer A)'\n"
		"or 'block (subtree entry *.SUFFIX; ...)' naming the suffix that matched,\n"
		"'pass (...; allowed by exact|subtree entry ...)' when an allow entry wins,\n"
		"or 'pass'. JSON: \"names\": [{\"name\", \"verdict\": \"block\"|\"pass\", \"reason\",\n"
		"\"entry\": \"exact\"|\"subtree\", \"suffix\", \"action\"}].\n"
		"--why first says, of an address the filter holds, which hooks drop it:\n"
		"'  why: dropped as a source on ingress (XDP), as a destination on egress\n"
		"(TC, attach --egress)' (and 'as a destination on ingress (XDP, --match\n"
		"dst)'); JSON \"hooks\": [{\"hook\", \"direction\", \"as\"}].\n"
		"--why reads the lists the filter was built from again (each once, line by\n"
		"line) and prints under each answer '  why: FILE:LINE: ENTRY' for every\n"
		"entry that covers the address or name, across lists; entries added at run time;\n"
		"'  why: allowlisted: FILE:LINE: ENTRY' for every line of the allowlist files\n"
		"(--allow FILE) that lets it pass, and '  why: allowlisted at run time: ENTRY'\n"
		"for an allowlist entry no such line holds (bloomwall allow); or, for a drop\n"
		"no entry explains, 'false positive of the Bloom filter (region /LEN,\n"
		"estimated rate R %)' with what to do. A list or allowlist file changed since\n"
		"the build is answered from as it is now, marked; a missing one is named.\n"
		"JSON: \"why\": {\"entries\": [{\"file\", \"line\", \"text\", \"entry\",\n"
		"\"list_changed\"}], \"added\", \"allow_entries\" (as entries), \"allowlist\",\n"
		"\"runtime_allow\", \"lists\": [{\"path\", \"state\", \"allow\"}],\n"
		"\"false_positive\", and for one \"region_prefix\", \"estimated_fpr\"}.\n",
	.opts = query_opts,
	.pos = { .rest = "ADDR|NAME", .min_rest = 1, .rest_many = true },
	.run = do_query,
};
