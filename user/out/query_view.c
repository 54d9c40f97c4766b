// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * query's answers, rendered (query_view.h).
 */
#include <stdio.h>

#include "base/output.h"
#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "lists/names.h"
#include "out/query_view.h"

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
void bw_query_out_addr(const char *addr, const struct bw_query_result *qr,
		       const struct bw_query_arg *q)
{
	const struct bw_hdr *hdr = &qr->prog_hdr;
	unsigned int plen;
	int r = 0;

	if (!bw_filter_lookup(qr->mem, &q->addr, &r)) {
		say(addr, "pass", "not_listed", "\n");
		return;
	}
	plen = hdr->plen[r / BW_MAX_LENGTHS][r % BW_MAX_LENGTHS];
	bw_out_int("region", NULL, r);
	bw_out_u64("prefix", NULL, plen);
	if (q->in_allow)
		say(addr, "pass", "allowlisted", " (allowlisted)\n");
	else if ((hdr->flags & BW_F_VERIFY) && !q->in_exact)
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
void bw_query_out_name(const char *arg, const struct bw_query_result *qr,
		       const struct bw_query_arg *q)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(qr->mem);
	char what[2 * BW_NAME_MAX + 64], allow[2 * BW_NAME_MAX + 64];
	const char *name = q->name;
	size_t len = (size_t)q->len;
	bool sub = q->allow_sub;
	int labels = q->allow_labels;
	struct bw_name_hit hit;

	bw_out_string("name", "%s  ", arg);
	if (bw_name_lookup(qr->mem, name, len, &hit) <= 0) {
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
	if ((dns->flags & BW_DNS_F_ALLOW) && q->name_allowed) {
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
	if (qr->prog_hdr.flags & BW_F_MONITOR) {
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

/*
 * Which hooks stop an address the filter holds, and as which end of the
 * packet: the XDP hook tests arriving packets' source and/or destination
 * (--match), the TC egress hook leaving packets' destination. Said for a
 * drop (or a monitored hit: would), not for a hit that passes anyway.
 */
void bw_query_out_hooks(const struct bw_query_result *qr,
			const struct bw_query_arg *q)
{
	__u16 flags = qr->prog_hdr.flags,
	      match = flags & (BW_F_MATCH_SRC | BW_F_MATCH_DST);
	struct {
		bool on;
		const char *hook, *direction, *as, *text;
	} h[] = {
		{ !match || (match & BW_F_MATCH_SRC), "xdp", "ingress",
		  "source", "as a source on ingress (XDP)" },
		{ match & BW_F_MATCH_DST, "xdp", "ingress", "destination",
		  "as a destination on ingress (XDP, --match dst)" },
		{ qr->egress, "tc", "egress", "destination",
		  "as a destination on egress (TC, attach --egress)" },
	};
	size_t k, n = 0;

	if (q->in_allow || ((flags & BW_F_VERIFY) && !q->in_exact))
		return;
	bw_out_open_array("hooks");
	for (k = 0; k < sizeof(h) / sizeof(h[0]); k++) {
		if (!h[k].on)
			continue;
		if (!n++)
			bw_out_text("  why: %s",
				    flags & BW_F_MONITOR
					    ? "would be dropped (monitor mode)"
					    : "dropped");
		bw_out_text("%s %s", n > 1 ? "," : "", h[k].text);
		bw_out_open_object(NULL);
		bw_out_string("hook", NULL, h[k].hook);
		bw_out_string("direction", NULL, h[k].direction);
		bw_out_string("as", NULL, h[k].as);
		bw_out_close_object();
	}
	bw_out_close_array();
	if (n)
		bw_out_text("\n");
}
