// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The report of a build (build_report.h): what the lists came to, the
 * filter's size and probes, as text or JSON. attach, reload, load and
 * build print it.
 */
#include "base/log.h"
#include "base/output.h"
#include "filter/bloom_names.h"
#include "out/build_report.h"

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
static void report_names(const struct bw_build_figures *f)
{
	const struct bw_build_summary *s = &f->sum;
	const struct bw_dns_hdr *d = &f->plan.dns;
	__u32 blocks = 0;

	if (!s->names.exact && !s->names.subtree && !s->names.allow)
		return;
	if (f->plan.hdr.flags & BW_F_DNS)
		blocks = d->region_end[BW_NAME_REGIONS - 1] -
			 bw_dns_block(&f->plan.hdr) - 1;
	bw_out_open_object("names");
	bw_out_text("%s: ", f->label);
	bw_out_u64("exact", "names: %'llu exact, ", s->names.exact);
	bw_out_u64("subtree", "%'llu subtree, ", s->names.subtree);
	bw_out_u64("allow", "%'llu allow", s->names.allow);
	bw_out_u64("duplicates", " (%'llu duplicates removed, ",
		   s->name_duplicates);
	bw_out_u64("local_skipped", "%'llu local skipped), ", s->local);
	bw_out_u64("blocks", "%'llu blocks", blocks);
	bw_out_string("action", ", answer %s",
		      bw_dns_action_name(f->dns_action));
	bw_out_u64("ttl", ", TTL %llu s", f->dns_ttl);
	bw_out_bool("subdomains", NULL, f->subdomains);
	bw_out_text("%s\n", f->subdomains ? ", --subdomains" : "");
	bw_out_close_object();
}

/*
 * The build's one line: "IFACE: filter generation N: ... target fpr P%";
 * JSON the object "filter" with the same figures.
 */
static void report_lists(const struct bw_build_figures *f)
{
	const struct bw_build_summary *s = &f->sum;
	const struct bw_plan *p = &f->plan;

	bw_out_open_object("filter");
	bw_out_text("%s: ", f->label);
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
	bw_out_text(", target fpr %g%%\n", f->fpr * 100.0);
	bw_out_double("fpr", NULL, f->fpr);
	bw_out_close_object();
	report_names(f);
	if (bw_build_figures_empty(f))
		pr_warn("warning: the lists hold no entries: the filter on %s passes everything\n",
			f->label);
}

/* "IFACE: filter generation N from image PATH: ..."; JSON "filter". */
static void report_image(const struct bw_build_figures *f)
{
	const struct bw_plan *p = &f->plan;

	bw_out_open_object("filter");
	bw_out_text("%s: ", f->label);
	bw_out_u64("generation", "filter generation %llu ", p->info.generation);
	bw_out_string("image", "from image %s: ", f->image);
	bw_out_u64("entries", "%'llu entries, ", p->info.entries);
	bw_out_u64("blocks", "%'llu blocks ", p->nblocks);
	bw_out_u64("bytes", "(%'llu bytes), ",
		   (unsigned long long)p->nblocks * BW_BLOCK_BYTES);
	bw_out_u64("seed", "seed 0x%08llx\n", p->hdr.seed);
	bw_out_double("fpr", NULL, bw_info_fpr(&p->info));
	bw_out_close_object();
}

void bw_build_report(const struct bw_build_figures *f)
{
	if (f->image)
		report_image(f);
	else
		report_lists(f);
	if (!f->exact_trie)
		return;
	bw_out_open_object("verify");
	bw_out_text("%s: verify mode: ", f->label);
	bw_out_u64("exact_entries", "exact trie of %'llu prefixes\n",
		   f->exact_entries);
	bw_out_close_object();
}
