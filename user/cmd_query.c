// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall query IFACE ADDR...: the data path's test, run in userspace on
 * the running filter (mapped read-only), so the answer is the one a packet
 * would get.
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

/* The tries a Bloom hit is confirmed against; -1 where there is none. */
struct tries {
	int allow_fd;
	int exact_fd; /* the trie in the slot the filter names */
};

static void open_tries(const char *iface, const struct bw_hdr *hdr,
		       struct tries *t)
{
	int outer;

	t->allow_fd = bw_pin_open(iface, BW_PIN_ALLOW);
	t->exact_fd = -1;
	if (!(hdr->flags & BW_F_VERIFY))
		return;
	outer = bw_pin_open(iface, BW_PIN_EXACT);
	if (outer < 0)
		return;
	t->exact_fd = bw_exact_open(outer, hdr->exact_slot);
	close(outer);
}

static void close_tries(struct tries *t)
{
	if (t->allow_fd >= 0)
		close(t->allow_fd);
	if (t->exact_fd >= 0)
		close(t->exact_fd);
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

/* The data path's decision for one address, in the same order. */
static void answer(const char *addr, const void *mem, const struct tries *t,
		   const struct bw_prefix *p)
{
	const struct bw_hdr *hdr = mem;
	unsigned int plen;
	int r = 0;

	if (!bw_filter_lookup(mem, p, &r)) {
		say(addr, "pass", "not_listed", "\n");
		return;
	}
	plen = hdr->plen[r / BW_MAX_LENGTHS][r % BW_MAX_LENGTHS];
	bw_out_int("region", NULL, r);
	bw_out_u64("prefix", NULL, plen);
	if (t->allow_fd >= 0 && bw_lpm_match(t->allow_fd, p) > 0)
		say(addr, "pass", "allowlisted", " (allowlisted)\n");
	else if ((hdr->flags & BW_F_VERIFY) &&
		 (t->exact_fd < 0 || bw_lpm_match(t->exact_fd, p) <= 0))
		say(addr, "pass", "false_positive",
		    " (false positive: not in the exact list)\n");
	else if (hdr->flags & BW_F_MONITOR)
		say(addr, "pass", "monitor", " (monitor mode: would drop)\n");
	else
		say_drop(addr, plen, hdr->flags & BW_F_VERIFY);
}

static int do_query(struct bw_args *a)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct tries t = { -1, -1 };
	struct bw_prefix *addrs = NULL;
	int i, err;

	bw_out_string("iface", NULL, a->iface);
	err = bw_parse_addrs("query", a->pos, a->npos, false, &addrs);
	if (err)
		return err;
	err = bw_check_privileges("query");
	if (err)
		goto out;
	err = bw_open_running(a->iface, false, &m);
	if (err)
		goto out;
	open_tries(a->iface, m.mem, &t);
	bw_out_open_array("addresses");
	for (i = 0; i < a->npos; i++) {
		bw_out_open_object(NULL);
		answer(a->pos[i], m.mem, &t, &addrs[i]);
		bw_out_close_object();
	}
	bw_out_close_array();
out:
	close_tries(&t);
	bw_filter_close(&m);
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
		"a drop \"confirmed\" (by the exact list of verify mode).\n",
	.opts = NULL,
	.pos = { .rest = "ADDR", .min_rest = 1, .rest_many = true },
	.run = do_query,
};
