// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The one line a build reports (build_report.h): what the lists came to, the
 * filter's size and probes, as text or JSON. attach, reload and build
 * print it.
 */
#include "base/log.h"
#include "base/output.h"
#include "filter/bloom_names.h"
#include "ops/build_report.h"

/* The fewest and most probes per key over the regions in use (0: none). */
static void probes_range(const struct bw_plan *p, unsigned int *lo,
			 unsigned int *hi)
{
	unsigned int r;

	*lo = BW_MAX_PROBES;
	*hi = 0;
	for (r = 0; r < BW_REGIONS; r++) {
		if (p->hdr.region_end[r] == bw_region_start(&p->hdr, r))
			continue;
		*lo = p->hdr.probes[r] < *lo ? p->hdr.probes[r] : *lo;
		*hi = p->hdr.probes[r] > *hi ? p->hdr.probes[r] : *hi;
	}
	if (!*hi)
		*lo = 0;
}

/* "10 probes" or "8-12 probes" per key; JSON {min, max}. */
static void out_probes(const struct bw_plan *p)
{
	unsigned int lo, hi;

	probes_range(p, &lo, &hi);
	bw_out_open_object("probes");
	if (!hi)
		bw_out_text("no");
	else if (lo != hi)
		bw_out_text("%u-", lo);
	bw_out_u64("min", NULL, lo);
	bw_out_u64("max", hi ? "%llu" : NULL, hi);
	bw_out_text(" probe%s per key", hi == 1 ? "" : "s");
	bw_out_close_object();
}

/* "IPv4 /32 /24, IPv6 /48": the target lengths of the families present. */
static void out_targets(const struct bw_hdr *hdr)
{
	bool any = false;
	int f, i;

	bw_out_open_object("targets");
	for (f = 0; f < BW_FAMILIES; f++) {
		bw_out_open_array(f == BW_V4 ? "ipv4" : "ipv6");
		if (hdr->nlengths[f])
			bw_out_text("%s%s", any ? ", " : "",
				    f == BW_V4 ? "IPv4" : "IPv6");
		for (i = 0; i < hdr->nlengths[f] && i < BW_MAX_LENGTHS; i++)
			bw_out_u64(NULL, " /%llu", hdr->plen[f][i]);
		any |= hdr->nlengths[f] > 0;
		bw_out_close_array();
	}
	bw_out_close_object();
	if (!any)
		bw_out_text("none");
}

/*
 * With names, a second line: "IFACE: names: N exact, M subtree, K allow
 * (D duplicates removed, L local skipped), B blocks, answer A, TTL T s";
 * JSON object "names".
 */
static void report_names(const struct bw_build_req *req,
			 const struct bw_build *b)
{
	const struct bw_build_summary *s = &b->sum;
	const struct bw_dns_hdr *d = &b->plan.dns;
	__u32 blocks = 0;

	if (!s->names.exact && !s->names.subtree && !s->names.allow)
		return;
	if (b->plan.hdr.flags & BW_F_DNS)
		blocks = d->region_end[BW_NAME_REGIONS - 1] -
			 bw_dns_block(&b->plan.hdr) - 1;
	bw_out_open_object("names");
	bw_out_text("%s: ", req->label);
	bw_out_u64("exact", "names: %'llu exact, ", s->names.exact);
	bw_out_u64("subtree", "%'llu subtree, ", s->names.subtree);
	bw_out_u64("allow", "%'llu allow", s->names.allow);
	bw_out_u64("duplicates", " (%'llu duplicates removed, ",
		   s->name_duplicates);
	bw_out_u64("local_skipped", "%'llu local skipped), ", s->local);
	bw_out_u64("blocks", "%'llu blocks", blocks);
	bw_out_string("action", ", answer %s",
		      bw_dns_action_name(req->opts.dns_action));
	bw_out_u64("ttl", ", TTL %llu s", req->opts.dns_ttl);
	bw_out_bool("subdomains", NULL, req->subdomains);
	bw_out_text("%s\n", req->subdomains ? ", --subdomains" : "");
	bw_out_close_object();
}

/*
 * The build's one line: "IFACE: filter generation N: ... target fpr P%";
 * JSON the object "filter" with the same figures.
 */
void bw_build_report(const struct bw_build_req *req, const struct bw_build *b)
{
	const struct bw_build_summary *s = &b->sum;
	const struct bw_plan *p = &b->plan;

	bw_out_open_object("filter");
	bw_out_text("%s: ", req->label);
	bw_out_u64("generation",
		   "filter generation %llu: ", p->info.generation);
	bw_out_u64("prefixes", "%'llu prefixes", s->source_entries);
	bw_out_u64("duplicates", " (%'llu duplicates removed, ", s->duplicates);
	bw_out_u64("skipped", "%'llu lines skipped), ", s->skipped);
	bw_out_u64("merged", "%'llu after merging, ", s->merged);
	bw_out_u64("entries", "%'llu entries at target lengths ", s->entries);
	out_targets(&p->hdr);
	bw_out_double("expansion", " (x%.2f), ",
		      s->source_entries ? (double)s->entries / s->source_entries
					: 1.0);
	bw_out_u64("blocks", "%'llu blocks ", p->nblocks);
	bw_out_u64("bytes", "(%'llu bytes), ",
		   (unsigned long long)p->nblocks * BW_BLOCK_BYTES);
	out_probes(p);
	bw_out_text(", target fpr %g%%\n", req->opts.fpr * 100.0);
	bw_out_double("fpr", NULL, req->opts.fpr);
	bw_out_close_object();
	report_names(req, b);
	if (!s->entries && !s->names.exact && !s->names.subtree)
		pr_warn("warning: the lists hold no entries: the filter on %s passes everything\n",
			req->label);
}
