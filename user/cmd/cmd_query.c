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

#include "filter/bloom_names.h"
#include "kernel/allow_names.h"
#include "kernel/filter_map.h"
#include "kernel/hook.h"
#include "filter/bloom.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_query.h"
#include "lists/list.h"
#include "lists/list_domain.h"
#include "lists/list_parse.h"
#include "lists/names.h"
#include "base/log.h"
#include "base/output.h"
#include "kernel/lpm.h"
#include "kernel/pin.h"
#include "kernel/running.h"
#include "filter/why.h"
#include "out/expiry_view.h"
#include "out/cs_why.h"
#include "out/why_out.h"

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
static void answer(const char *addr, const struct bw_running *rn, bool in_exact,
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
	else if ((hdr->flags & BW_F_VERIFY) && !in_exact)
		say(addr, "pass", "false_positive",
		    " (false positive: not in the exact list)\n");
	else if (hdr->flags & BW_F_MONITOR)
		say(addr, "pass", "monitor", " (monitor mode: would drop)\n");
	else
		say_drop(addr, plen, hdr->flags & BW_F_VERIFY);
}

/* "exact entry NAME" or "subtree entry *.SUFFIX" into buf. */
static const char *entry_text(const char *name, size_t len, bool subtree,
			      int labels, char *buf, size_t buflen)
{
	const char *suf = bw_name_suffix(name, len, labels);

	snprintf(buf, buflen, "%s entry %s%.*s", subtree ? "subtree" : "exact",
		 subtree ? "*." : "", (int)(len - (size_t)(suf - name)), suf);
	return buf;
}

/*
 * The data path's decision for one name: the name regions, then the
 * name allowlist, then monitor mode, by the flags the running program
 * was loaded with.
 */
static void answer_name(const char *arg, const char *name, size_t len,
			const struct bw_running *rn)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(rn->filter.mem);
	char what[2 * BW_NAME_MAX + 64], allow[2 * BW_NAME_MAX + 64];
	struct bw_name_hit hit;
	bool sub = false;
	int labels = 0;

	bw_out_string("name", "%s  ", arg);
	if (bw_name_lookup(rn->filter.mem, name, len, &hit) <= 0) {
		bw_out_string("verdict", "%s", "pass");
		bw_out_string("reason", NULL, dns ? "not_listed" : "no_names");
		bw_out_text("%s\n", dns ? "" : " (the filter holds no names)");
		return;
	}
	entry_text(name, len, hit.region == BW_NAME_SUBTREE, hit.labels, what,
		   sizeof(what));
	bw_out_string("entry", NULL,
		      hit.region == BW_NAME_SUBTREE ? "subtree" : "exact");
	bw_out_string("suffix", NULL, bw_name_suffix(name, len, hit.labels));
	if ((dns->flags & BW_DNS_F_ALLOW) &&
	    bw_allow_names_match(rn->maps.allow_names, name, len, &sub,
				 &labels) > 0) {
		bw_out_string("verdict", "%s", "pass");
		bw_out_string("reason", NULL, "allowlisted");
		bw_out_string("allow_entry", NULL, sub ? "subtree" : "exact");
		bw_out_string("allow_suffix", NULL,
			      bw_name_suffix(name, len, labels));
		bw_out_text(" (%s; allowed by %s)\n", what,
			    entry_text(name, len, sub, labels, allow,
				       sizeof(allow)));
		return;
	}
	if (rn->prog_hdr.flags & BW_F_MONITOR) {
		bw_out_string("verdict", "%s", "pass");
		bw_out_string("reason", NULL, "monitor");
		bw_out_text(" (%s; monitor mode: would block)\n", what);
		return;
	}
	bw_out_string("verdict", "%s", "block");
	bw_out_string("reason", NULL, "listed");
	bw_out_string("action", NULL, bw_dns_action_name(dns->action));
	bw_out_text(" (%s; answer %s)\n", what,
		    bw_dns_action_name(dns->action));
}

/* What each argument is: an address, or a name (into names, folded). */
struct query_arg {
	bool is_name;
	bool in_exact; /* verify mode: the exact list holds it */
	struct bw_prefix addr;
	char name[BW_NAME_MAX];
	int len;
};

/* An address, else a name; a bad one is said as an address or a name. */
static int parse_args(struct bw_args *a, struct query_arg *q)
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

/*
 * --why: reads the running filter's records and scans its lists for the
 * arguments (nothing printed). On success w and rec are the caller's to
 * free. 0 or -errno (said).
 */
static int why_prepare(struct bw_why *w, struct bw_records *rec,
		       const struct bw_running *rn, char **args, int n)
{
	struct bw_why_target *t = calloc(n ?: 1, sizeof(*t));
	char err[BW_ERRLEN];
	int i, ret = 0;

	memset(w, 0, sizeof(*w));
	bw_records_init(rec);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		ret = bw_why_target(args[i], &t[i], err, sizeof(err));
		if (ret)
			pr_warn("bloomwall query: %s\n", err);
	}
	if (!ret)
		ret = bw_running_records(rn, rec);
	if (!ret)
		ret = bw_why_scan_records(w, t, n, rec);
	if (ret == -ENOMEM)
		pr_warn("%s: out of memory while reading the lists for --why\n",
			rn->iface);
	free(t);
	return ret;
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
static void why_addr(const struct bw_why *w, int i, const struct bw_running *r,
		     const struct bw_records *rec, const struct bw_args *a)
{
	if (bw_cs_why_out(a->iface, a->pos[i]) <= 0 || listed(w, i))
		bw_why_out(w, i, r, rec);
}

/* The program the hook runs now: its id, 0 when none. */
static __u32 hook_prog(int ifindex)
{
	struct bw_xdp_info x;
	int fd = bw_hook_find(ifindex, &x);
	__u32 id;

	if (fd < 0)
		return 0;
	id = bw_obj_id(fd);
	close(fd);
	return id;
}

/*
 * Verify mode: each address looked up in the running program's exact
 * list, the running state opened again until the hook ran the same
 * program before and after the lookups. The slot the program reads is
 * rewritten only for the filter after next (slots alternate): with the
 * same program at the end, the lookups saw it whole, not a rebuild's
 * half-filled trie (a watch may swap several times a second).
 */
static int look_exact(struct bw_args *a, struct query_arg *q,
		      struct bw_running *r)
{
	int i, tries, fd, err = 0;

	for (tries = 0; tries < 20; tries++) {
		fd = open_exact(r);
		for (i = 0; i < a->npos; i++)
			q[i].in_exact = !q[i].is_name && fd >= 0 &&
					bw_lpm_match(fd, &q[i].addr) > 0;
		if (fd >= 0)
			close(fd);
		if (!(r->prog_hdr.flags & BW_F_VERIFY) ||
		    hook_prog(a->ifindex) == r->prog_id)
			return 0;
		bw_running_close(r);
		err = bw_running_open(a->iface, a->ifindex, 0, r);
		if (!err)
			err = bw_running_need_filter(r);
		if (err)
			return err;
	}
	return 0;
}

static int do_query(struct bw_args *a)
{
	struct bw_running r = BW_RUNNING_INIT;
	struct bw_records rec = { 0 };
	struct bw_why why = { 0 };
	struct query_arg *q;
	int i, err;

	bw_out_string("iface", NULL, a->iface);
	q = calloc(a->npos ?: 1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	err = parse_args(a, q);
	if (err)
		goto out;
	err = bw_check_privileges("query");
	if (err)
		goto out;
	err = bw_running_open(a->iface, a->ifindex, 0, &r);
	if (!err)
		err = bw_running_need_filter(&r);
	if (!err)
		err = look_exact(a, q, &r);
	if (err)
		goto out;
	/* --why reads the recorded lists, once for all the addresses. */
	if (a->why)
		err = why_prepare(&why, &rec, &r, a->pos, a->npos);
	else if (bw_running_records(&r, &rec)) /* for the expiries only */
		bw_records_init(&rec);
	if (err)
		goto out;
	bw_out_open_array("addresses");
	for (i = 0; i < a->npos; i++) {
		if (q[i].is_name)
			continue;
		bw_out_open_object(NULL);
		answer(a->pos[i], &r, q[i].in_exact, &q[i].addr);
		if (a->why)
			why_addr(&why, i, &r, &rec, a);
		else
			bw_expiry_out_covering(&rec, &q[i].addr, true);
		bw_out_close_object();
	}
	bw_out_close_array();
	bw_out_open_array("names");
	for (i = 0; i < a->npos; i++) {
		if (!q[i].is_name)
			continue;
		bw_out_open_object(NULL);
		answer_name(a->pos[i], q[i].name, (size_t)q[i].len, &r);
		if (a->why)
			bw_why_out(&why, i, &r, &rec);
		else
			bw_expiry_out_covering_name(&rec, q[i].name,
						    (size_t)q[i].len, true);
		bw_out_close_object();
	}
	bw_out_close_array();
out:
	bw_why_free(&why);
	bw_records_free(&rec);
	bw_running_close(&r);
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
