// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall query IFACE ADDR...: the data path's test, run in userspace on
 * the filter of the program the interface's hook runs (mapped read-only),
 * with that program's flags, so the answer is the one a packet would get.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "list.h"
#include "log.h"
#include "output.h"
#include "lpm.h"
#include "pin.h"
#include "running.h"
#include "why.h"

static const struct bw_opt query_only_opts[] = {
	{ "why", BW_OPT_WHY, NULL,
	  "also say which list entries cover each ADDR, or that a drop is a false positive" },
	{ 0 },
};

static const struct bw_opt *const query_opts[] = { query_only_opts, NULL };

/* The verify trie of the running program, -1 if there is none. */
static int open_exact(const struct bw_running *r)
{
	int fd;

	if (!(r->prog_hdr.flags & BW_F_VERIFY))
		return -1;
	fd = bw_exact_open(r->maps.exact, r->prog_hdr.exact_slot);
	return fd < 0 ? -1 : fd;
}

/* "ADDR  VERDICT" and the rest of the line; JSON {address, verdict, reason}. */
static void say(const char *addr, const char *verdict, const char *reason,
		const char *why)
{
	bw_out_string("address", "%s  ", addr);
	bw_out_string("verdict", "%s", verdict);
	bw_out_string("reason", NULL, reason);
	bw_out_text("%s", why);
}

static void say_drop(const char *addr, unsigned int plen, bool verify)
{
	say(addr, "drop", "listed", "");
	bw_out_bool("confirmed", NULL, verify);
	bw_out_text(" (in blocklist /%u region%s)\n", plen,
		    verify ? ", confirmed by the exact list" : "");
}

/*
 * The data path's decision for one address, in the same order, by the
 * flags the running program was loaded with.
 */
static void answer(const char *addr, const struct bw_running *rn, int exact_fd,
		   const struct bw_prefix *p)
{
	const struct bw_hdr *hdr = &rn->prog_hdr;
	const void *mem = rn->filter.mem;
	unsigned int plen;
	int r = 0;

	if (!bw_filter_lookup(mem, p, &r)) {
		say(addr, "pass", "not_listed", "\n");
		return;
	}
	plen = hdr->plen[r / BW_MAX_LENGTHS][r % BW_MAX_LENGTHS];
	bw_out_int("region", NULL, r);
	bw_out_u64("prefix", NULL, plen);
	if ((hdr->flags & BW_F_ALLOW) && bw_lpm_match(rn->maps.allow, p) > 0)
		say(addr, "pass", "allowlisted", " (allowlisted)\n");
	else if ((hdr->flags & BW_F_VERIFY) &&
		 (exact_fd < 0 || bw_lpm_match(exact_fd, p) <= 0))
		say(addr, "pass", "false_positive",
		    " (false positive: not in the exact list)\n");
	else if (hdr->flags & BW_F_MONITOR)
		say(addr, "pass", "monitor", " (monitor mode: would drop)\n");
	else
		say_drop(addr, plen, hdr->flags & BW_F_VERIFY);
}

static int do_query(struct bw_args *a)
{
	struct bw_running r = BW_RUNNING_INIT;
	struct bw_prefix *addrs = NULL;
	struct bw_records rec = { 0 };
	struct bw_why why = { 0 };
	int i, exact = -1, err;

	bw_out_string("iface", NULL, a->iface);
	err = bw_parse_addrs("query", a->pos, a->npos, false, &addrs);
	if (err)
		return err;
	err = bw_check_privileges("query");
	if (err)
		goto out;
	err = bw_running_open(a->iface, a->ifindex, 0, &r);
	if (!err)
		err = bw_running_need_filter(&r);
	if (err)
		goto out;
	/* --why reads the recorded lists, once for all the addresses. */
	if (a->why)
		err = bw_why_prepare(&why, &rec, &r, a->pos, a->npos);
	if (err)
		goto out;
	exact = open_exact(&r);
	bw_out_open_array("addresses");
	for (i = 0; i < a->npos; i++) {
		bw_out_open_object(NULL);
		answer(a->pos[i], &r, exact, &addrs[i]);
		if (a->why)
			bw_why_out(&why, i, &r, &rec);
		bw_out_close_object();
	}
	bw_out_close_array();
out:
	bw_why_free(&why);
	bw_records_free(&rec);
	if (exact >= 0)
		close(exact);
	bw_running_close(&r);
	free(addrs);
	return err;
}

const struct bw_verb bw_verb_query = {
	.name = "query",
	.summary =
		"say whether the running filter on IFACE would drop each ADDR",
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
		"--why reads the lists the filter was built from again (each once, line by\n"
		"line) and prints under each answer '  why: FILE:LINE: ENTRY' for every\n"
		"entry that covers the address, across lists; entries added at run time\n"
		"and allowlist entries; or, for a drop no entry explains, 'false positive\n"
		"of the Bloom filter (region /LEN, estimated rate R %)' with what to do.\n"
		"A list changed since the build is answered from as it is now, marked; a\n"
		"missing one is named. JSON: \"why\": {\"entries\": [{\"file\", \"line\",\n"
		"\"text\", \"entry\", \"list_changed\"}], \"added\", \"allowlist\", \"lists\":\n"
		"[{\"path\", \"state\"}], \"false_positive\", and for one \"region_prefix\",\n"
		"\"estimated_fpr\"}.\n",
	.opts = query_opts,
	.pos = { .rest = "ADDR", .min_rest = 1, .rest_many = true },
	.run = do_query,
};
