// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The parts of status's output that inspect shows of an image too: the
 * address regions' table, the Names section, the match and family words
 * (status_text.h).
 */
#include "filter/bloom_names.h"
#include "bloomwall.h"
#include "base/output.h"
#include "filter/bloom.h"
#include "out/status_text.h"
#include "ops/status.h"

/* A line whose value is the JSON value too: "    label    %'llu". */
void bw_status_kv_u64(const char *label, const char *key, unsigned long long v)
{
	bw_out_text("    %-*s ", BW_OUT_KEY_WIDTH, label);
	bw_out_u64(key, "%'llu\n", v);
}

static const char *family_name(int f)
{
	return f == BW_V4 ? "IPv4" : "IPv6";
}

const char *bw_status_family_key(int f)
{
	return f == BW_V4 ? "ipv4" : "ipv6";
}

const char *bw_match_name(__u16 flags)
{
	switch (flags & (BW_F_MATCH_SRC | BW_F_MATCH_DST)) {
	case BW_F_MATCH_DST:
		return "dst";
	case BW_F_MATCH_SRC | BW_F_MATCH_DST:
		return "both";
	default:
		return "src";
	}
}

static void out_region(const struct bw_region_row *r)
{
	bw_out_open_object(NULL);
	bw_out_int("region", "    %-7lld ", r->region);
	bw_out_text("%-6s ", family_name(r->family));
	bw_out_string("family", NULL, bw_status_family_key(r->family));
	bw_out_u64("prefix", "/%-5llu ", r->plen);
	bw_out_u64("blocks", "%'12llu ", r->blocks);
	bw_out_u64("entries", "%'12llu ", r->entries);
	bw_out_u64("probes", "%6llu ", r->probes);
	bw_out_text("%6.1f%% %9.3g%%\n", 100.0 * r->fill, 100.0 * r->fpr);
	bw_out_double("fill", NULL, r->fill);
	bw_out_double("est_fpr", NULL, r->fpr);
	bw_out_close_object();
}

void bw_status_out_regions(const struct bw_status_view *v)
{
	int i, f;

	bw_out_text("    %-7s %-6s %-6s %12s %12s %6s %7s %10s\n", "region",
		    "family", "prefix", "blocks", "entries", "probes", "fill",
		    "est. fpr");
	bw_out_open_array("regions");
	for (i = 0; i < v->nrows; i++)
		out_region(&v->rows[i]);
	bw_out_close_array();
	bw_out_open_object("est_fpr");
	for (f = 0; f < BW_FAMILIES; f++) {
		const char *key =
			f == BW_V4 ? "est. fpr IPv4" : "est. fpr IPv6";

		if (v->fam_fpr[f] >= 0) {
			bw_out_kv(key, "%.3g%%", 100.0 * v->fam_fpr[f]);
			bw_out_double(bw_status_family_key(f), NULL,
				      v->fam_fpr[f]);
		} else {
			bw_out_kv(key,
				  "none (no entries: every address passes)");
			bw_out_null(bw_status_family_key(f), NULL);
		}
	}
	bw_out_close_object();
}

static const char *const name_region_names[BW_NAME_REGIONS] = { "exact",
								"subtree" };

/* One name region: "exact  blocks entries probes fill est. fpr". */
static void out_name_region(const struct bw_status_view *v, int n)
{
	const struct bw_dns_hdr *d = &v->dns;
	__u32 start = n ? d->region_end[n - 1] : bw_dns_block(&v->hdr) + 1;
	__u32 blocks = d->region_end[n] > start ? d->region_end[n] - start : 0;

	bw_out_open_object(NULL);
	bw_out_string("region", "    %-8s", name_region_names[n]);
	bw_out_u64("blocks", "%'10llu", blocks);
	bw_out_u64("entries", " %'12llu", d->region_entries[n]);
	bw_out_u64("probes", " %6llu", d->probes[n]);
	bw_out_text(" %6.1f%% %9.3g%%\n", 100.0 * v->name_fill[n],
		    100.0 * v->name_fpr[n]);
	bw_out_double("fill", NULL, v->name_fill[n]);
	bw_out_double("est_fpr", NULL, v->name_fpr[n]);
	bw_out_close_object();
}

/* The names: entries, regions, the answer a blocked query gets. */
void bw_status_out_names(const struct bw_status_view *v)
{
	const struct bw_rec_dns *o = &v->dns_opts;
	int n;

	if (v->filter_err)
		return;
	bw_out_text("  Names\n");
	bw_out_open_object("names");
	bw_out_kv("answer", "%s (TTL %u s)%s",
		  bw_dns_action_name(v->has_dns ? v->dns.action : o->action),
		  v->has_dns ? v->dns.ttl : o->ttl,
		  o->opts & BW_REC_DNS_SUBDOMAINS ? ", --subdomains" : "");
	bw_out_string(
		"action", NULL,
		bw_dns_action_name(v->has_dns ? v->dns.action : o->action));
	bw_out_u64("ttl", NULL, v->has_dns ? v->dns.ttl : o->ttl);
	bw_out_bool("subdomains", NULL, o->opts & BW_REC_DNS_SUBDOMAINS);
	if (v->names_kept >= 0)
		bw_status_kv_u64("added names kept", "added_names_kept",
				 v->names_kept);
	if (v->allow_names >= 0)
		bw_status_kv_u64("name allow entries", "allow_entries",
				 v->allow_names);
	if (!v->has_dns) {
		bw_out_kv("name entries",
			  "none (no domain entries: DNS passes)");
		bw_out_u64("entries", NULL, 0);
		bw_out_close_object();
		return;
	}
	bw_out_kv("name entries", "%'u (%'u exact, %'u subtree)",
		  v->dns.region_entries[0] + v->dns.region_entries[1],
		  v->dns.region_entries[0], v->dns.region_entries[1]);
	bw_out_u64("entries", NULL,
		   v->dns.region_entries[0] + v->dns.region_entries[1]);
	bw_out_kv("names target fpr", "%g%% per query of up to %d labels",
		  bw_dns_fpr(&v->dns) * 100, BW_NAME_FPR_LABELS);
	bw_out_double("target_fpr", NULL, bw_dns_fpr(&v->dns));
	bw_out_text(
		"    region       blocks      entries probes    fill   est. fpr\n");
	bw_out_open_array("regions");
	for (n = 0; n < BW_NAME_REGIONS; n++)
		out_name_region(v, n);
	bw_out_close_array();
	bw_out_close_object();
}
