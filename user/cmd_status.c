// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall status [--json] [IFACE]: program, filter and counters of each
 * interface bloomwall is attached to. Reads only: no lock, nothing changes.
 * What is shown is gathered first (struct view), then printed as text or
 * JSON, so both say the same.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"
#include "lpm.h"
#include "hook.h"
#include "pin.h"
#include "prog.h"
#include "running.h"
#include "stats.h"

#define KEY_WIDTH 22

struct region_row {
	int region, family;
	unsigned int plen, probes;
	__u32 blocks, entries;
	double fill, fpr;
};

struct view {
	const char *iface;
	int ifindex; /* 0: the interface is gone */
	/* Program */
	int prog_err; /* pinned program: 0 or -errno */
	__u32 prog_id;
	int xdp_err; /* querying the hook: 0 or -errno */
	struct bw_xdp_info x;
	const char *kind;
	int prog_hdr_err; /* the program's header copy: 0 or -errno */
	struct bw_hdr prog_hdr;
	/* Filter */
	int filter_err;
	__u32 map_id, nblocks;
	struct bw_hdr hdr;
	struct bw_info info;
	int nrows;
	struct region_row rows[BW_REGIONS];
	double fam_fpr[BW_FAMILIES]; /* < 0: no region in the family */
	long long filter_mem; /* memlock of the filter map, < 0 unknown */
	/* Tries: entries and memory; < 0 when there is none (or unreadable) */
	long long allow_entries, allow_mem;
	long long exact_entries, exact_mem;
	/* Counters */
	int stats_err;
	struct bw_stats stats;
};

struct status_ctx {
	bool json;
	int shown;
};

static const struct bw_opt status_only_opts[] = {
	{ "json", BW_OPT_JSON, NULL,
	  "print a JSON array, one object per interface" },
	{ 0 },
};

static const struct bw_opt *const status_opts[] = { status_only_opts, NULL };

/* ---- gathering ----------------------------------------------------------- */

static void gather_program(struct view *v)
{
	int fd = bw_pin_open(v->iface, BW_PIN_PROG);

	v->prog_err = fd < 0 ? fd : 0;
	v->prog_id = bw_obj_id(fd);
	v->prog_hdr_err = fd < 0 ? fd : bw_prog_header(fd, &v->prog_hdr);
	if (fd >= 0)
		close(fd);
	v->xdp_err = v->ifindex ? bw_xdp_info(v->ifindex, v->prog_id, &v->x)
				: -ENODEV;
	if (bw_pin_exists(v->iface, BW_PIN_LINK))
		v->kind =
			"bpf_link of bloomwall's own (--link, or libxdp failed)";
	else if (v->x.dispatcher)
		v->kind = "libxdp dispatcher";
	else
		v->kind = "plain (libxdp dispatcher unavailable)";
}

static void gather_regions(struct view *v, const void *mem)
{
	const struct bw_hdr *hdr = mem;
	struct region_row *row;
	double pass;
	__u64 set, total;
	int f, i;

	for (f = 0; f < BW_FAMILIES; f++) {
		pass = 1.0;
		for (i = 0; i < hdr->nlengths[f] && i < BW_MAX_LENGTHS; i++) {
			row = &v->rows[v->nrows++];
			row->region = f * BW_MAX_LENGTHS + i;
			row->family = f;
			row->plen = hdr->plen[f][i];
			row->probes = hdr->probes[row->region];
			row->blocks = hdr->region_end[row->region] -
				      bw_region_start(hdr, row->region);
			row->entries = v->info.region_entries[row->region];
			bw_region_fill(mem, row->region, &set, &total,
				       &row->fpr);
			row->fill = total ? (double)set / total : 0.0;
			pass *= 1.0 - row->fpr;
		}
		/* An unlisted address hits if any region of its family does. */
		v->fam_fpr[f] = i ? 1.0 - pass : -1.0;
	}
}

static void gather_filter(struct view *v)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;

	v->filter_err = bw_open_running(v->iface, false, &m);
	if (v->filter_err)
		return;
	v->map_id = m.id;
	v->nblocks = m.nblocks;
	v->filter_mem = bw_map_memlock(m.fd);
	memcpy(&v->hdr, m.mem, sizeof(v->hdr));
	memcpy(&v->info, (char *)m.mem + BW_BLOCK_BYTES, sizeof(v->info));
	gather_regions(v, m.mem);
	bw_filter_close(&m);
}

/* Entries and memory of a trie; both < 0 when fd is not one. */
static void trie_size(int fd, long long *entries, long long *mem)
{
	*entries = fd < 0 ? fd : bw_lpm_count(fd);
	*mem = fd < 0 ? fd : bw_map_memlock(fd);
	if (fd >= 0)
		close(fd);
}

static void gather_tries(struct view *v)
{
	int outer, fd = -ENOENT;

	trie_size(bw_pin_open(v->iface, BW_PIN_ALLOW), &v->allow_entries,
		  &v->allow_mem);
	if (!v->filter_err && (v->hdr.flags & BW_F_VERIFY)) {
		outer = bw_pin_open(v->iface, BW_PIN_EXACT);
		if (outer >= 0) {
			fd = bw_exact_open(outer, v->hdr.exact_slot);
			close(outer);
		}
	}
	trie_size(fd, &v->exact_entries, &v->exact_mem);
}

static void gather(struct view *v, const char *iface)
{
	int fd;

	memset(v, 0, sizeof(*v));
	v->iface = iface;
	v->ifindex = (int)if_nametoindex(iface);
	gather_program(v);
	gather_filter(v);
	gather_tries(v);
	fd = bw_pin_open(iface, BW_PIN_STATS);
	v->stats_err = fd < 0 ? fd : bw_stats_read(fd, &v->stats);
	if (fd >= 0)
		close(fd);
}

/* ---- text ---------------------------------------------------------------- */

static void kv(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void kv(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("    %-*s ", KEY_WIDTH, key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static const char *family_name(int f)
{
	return f == BW_V4 ? "IPv4" : "IPv6";
}

static const char *match_name(__u16 flags)
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

/*
 * 1 if the program runs with the header the filter map holds (what status,
 * query and add read), 0 if not, -1 if either cannot be read.
 */
static int header_agrees(const struct view *v)
{
	if (v->prog_hdr_err || v->filter_err)
		return -1;
	return !memcmp(&v->prog_hdr, &v->hdr, sizeof(v->hdr));
}

static void text_program(const struct view *v)
{
	printf("  Program\n");
	if (v->prog_err)
		kv("state", "no pinned program (%s/%s/%s: %s)", BW_PIN_ROOT,
		   v->iface, BW_PIN_PROG, bw_errno_hint(v->prog_err));
	else
		kv("id", "%u", v->prog_id);
	if (!v->ifindex)
		kv("state",
		   "the interface is gone; 'bloomwall detach %s' removes the pins",
		   v->iface);
	else if (v->xdp_err)
		kv("state", "unknown: %s", bw_errno_hint(v->xdp_err));
	else if (!v->x.ours && v->x.prog_id)
		kv("state",
		   "NOT attached: the hook holds another program (id %u)",
		   v->x.prog_id);
	else if (!v->x.ours)
		kv("state", "NOT attached: the interface has no XDP program");
	else {
		kv("state", "attached");
		kv("XDP mode", "%s", bw_attached_mode_name(v->x.attach_mode));
		kv("attach", "%s", v->kind);
	}
	if (header_agrees(v) == 1)
		kv("filter header", "the filter's (loaded with it)");
	else if (!header_agrees(v))
		kv("filter header",
		   "DIFFERS from the filter map's: the program runs with the one it was loaded with; 'bloomwall reload %s LIST...' makes them one",
		   v->iface);
}

static void text_regions(const struct view *v)
{
	const struct region_row *r;
	int i, f;

	printf("    %-7s %-6s %-6s %12s %12s %6s %7s %10s\n", "region",
	       "family", "prefix", "blocks", "entries", "probes", "fill",
	       "est. fpr");
	for (i = 0; i < v->nrows; i++) {
		r = &v->rows[i];
		printf("    %-7d %-6s /%-5u %'12u %'12u %6u %6.1f%% %9.3g%%\n",
		       r->region, family_name(r->family), r->plen, r->blocks,
		       r->entries, r->probes, 100.0 * r->fill, 100.0 * r->fpr);
	}
	for (f = 0; f < BW_FAMILIES; f++) {
		const char *key =
			f == BW_V4 ? "est. fpr IPv4" : "est. fpr IPv6";

		if (v->fam_fpr[f] >= 0)
			kv(key, "%.3g%%", 100.0 * v->fam_fpr[f]);
		else
			kv(key, "none (no entries: every address passes)");
	}
}

static double expansion(const struct view *v)
{
	return v->info.source_entries
		       ? (double)v->info.entries / v->info.source_entries
		       : 1.0;
}

/* Target lengths per family and what the expansion made of the lists. */
static void text_cidr(const struct view *v)
{
	char buf[64];
	size_t n;
	int f, i;

	kv("source prefixes", "%'llu -> %'llu entries (expansion x%.2f)",
	   (unsigned long long)v->info.source_entries,
	   (unsigned long long)v->info.entries, expansion(v));
	for (f = 0; f < BW_FAMILIES; f++) {
		n = 0;
		buf[0] = '\0';
		for (i = 0; i < v->hdr.nlengths[f] && i < BW_MAX_LENGTHS; i++)
			n += snprintf(buf + n, sizeof(buf) - n, " /%u",
				      v->hdr.plen[f][i]);
		kv(f == BW_V4 ? "target lengths IPv4" : "target lengths IPv6",
		   "%s", n ? buf + 1 : "none");
	}
}

static void kv_bytes(const char *key, long long bytes)
{
	if (bytes >= 0)
		kv(key, "%'lld bytes", bytes);
	else
		kv(key, "unknown (%s)", bw_errno_hint((int)bytes));
}

/* Allowlist, verify mode and the memory of each structure. */
static void text_tries(const struct view *v)
{
	bool verify = v->hdr.flags & BW_F_VERIFY;

	if (v->allow_entries >= 0)
		kv("allowlist", "%'lld %s", v->allow_entries,
		   bw_plural(v->allow_entries, "entry", "entries"));
	else
		kv("allowlist", "none pinned");
	if (!verify)
		kv("verify", "off (a Bloom hit drops)");
	else if (v->exact_entries >= 0)
		kv("verify", "on (exact trie in slot %u: %'lld prefixes)",
		   v->hdr.exact_slot, v->exact_entries);
	else
		kv("verify",
		   "on, but the exact trie is missing: hits pass as false_pos");
	if (verify && !v->stats_err)
		kv("measured false pos.",
		   "%'llu (Bloom hits the exact trie refused)",
		   (unsigned long long)v->stats.false_pos);
	kv_bytes("memory filter", v->filter_mem);
	if (v->allow_entries >= 0)
		kv_bytes("memory allow trie", v->allow_mem);
	if (verify)
		kv_bytes("memory exact trie", v->exact_mem);
}

static void text_filter(const struct view *v)
{
	printf("  Filter\n");
	if (v->filter_err) {
		kv("state", "unreadable (see the message above)");
		return;
	}
	kv("generation", "%llu", (unsigned long long)v->info.generation);
	kv("map id", "%u", v->map_id);
	kv("action", "%s",
	   v->hdr.flags & BW_F_MONITOR ? "monitor (count matches, never drop)"
				       : "enforce (drop matches)");
	kv("match", "%s address", match_name(v->hdr.flags));
	kv("entries", "%'llu", (unsigned long long)v->info.entries);
	text_cidr(v);
	kv("blocks", "%'u (%'llu bytes)", v->nblocks,
	   (unsigned long long)v->nblocks * BW_BLOCK_BYTES);
	kv("target fpr", "%g%%", v->info.fpr_ppb / 1e7);
	kv("hash seed", "0x%08x", v->hdr.seed);
	text_regions(v);
	text_tries(v);
}

static void text_counters(const struct view *v)
{
	size_t i;

	printf("  Counters (summed over CPUs)\n");
	if (v->stats_err) {
		kv("state", "unreadable: %s", bw_errno_hint(v->stats_err));
		return;
	}
	kv("packets", "%'llu", (unsigned long long)bw_stats_packets(&v->stats));
	for (i = 0; i < bw_stats_nfields; i++)
		kv(bw_stats_fields[i].name, "%'llu",
		   (unsigned long long)bw_stats_get(&v->stats,
						    &bw_stats_fields[i]));
}

static void print_text(const struct view *v, bool first)
{
	if (!first)
		putchar('\n');
	if (v->ifindex)
		printf("bloomwall on %s (ifindex %d)\n", v->iface, v->ifindex);
	else
		printf("bloomwall on %s (interface gone)\n", v->iface);
	text_program(v);
	text_filter(v);
	text_counters(v);
}

/* ---- JSON ---------------------------------------------------------------- */

/* Interface names may hold '"' or '\\'; the fixed strings here do not. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_fpr(double fpr)
{
	if (fpr >= 0)
		printf("%.6g", fpr);
	else
		printf("null");
}

static void json_program(const struct view *v)
{
	int agrees = header_agrees(v);

	printf("\"program\":{\"id\":%u,\"attached\":%s", v->prog_id,
	       v->x.ours ? "true" : "false");
	printf(",\"header_matches_filter\":%s", agrees < 0 ? "null"
						: agrees   ? "true"
							   : "false");
	if (v->x.ours)
		printf(",\"mode\":\"%s\",\"attach\":\"%s\"",
		       bw_attached_mode_name(v->x.attach_mode),
		       v->x.dispatcher			      ? "dispatcher"
		       : bw_pin_exists(v->iface, BW_PIN_LINK) ? "link"
							      : "plain");
	printf("}");
}

static void json_regions(const struct view *v)
{
	const struct region_row *r;
	int i;

	printf(",\"regions\":[");
	for (i = 0; i < v->nrows; i++) {
		r = &v->rows[i];
		printf("%s{\"region\":%d,\"family\":\"%s\",\"prefix\":%u,\"blocks\":%u,\"entries\":%u,\"probes\":%u,\"fill\":%.6g,\"est_fpr\":%.6g}",
		       i ? "," : "", r->region, r->family ? "ipv6" : "ipv4",
		       r->plen, r->blocks, r->entries, r->probes, r->fill,
		       r->fpr);
	}
	printf("],\"est_fpr\":{\"ipv4\":");
	json_fpr(v->fam_fpr[0]);
	printf(",\"ipv6\":");
	json_fpr(v->fam_fpr[1]);
	printf("}");
}

/* A count or size, or null when unknown. */
static void json_ll(const char *key, long long n, bool more)
{
	if (n >= 0)
		printf("\"%s\":%lld%s", key, n, more ? "," : "");
	else
		printf("\"%s\":null%s", key, more ? "," : "");
}

static void json_tries(const struct view *v)
{
	bool verify = v->hdr.flags & BW_F_VERIFY;
	int f, i;

	printf(",\"source_entries\":%llu,\"expansion\":%.6g,\"targets\":{",
	       (unsigned long long)v->info.source_entries, expansion(v));
	for (f = 0; f < BW_FAMILIES; f++) {
		printf("%s\"%s\":[", f ? "," : "", f ? "ipv6" : "ipv4");
		for (i = 0; i < v->hdr.nlengths[f] && i < BW_MAX_LENGTHS; i++)
			printf("%s%u", i ? "," : "", v->hdr.plen[f][i]);
		printf("]");
	}
	printf("},");
	json_ll("memlock_bytes", v->filter_mem, false);
	printf(",\"allow\":{");
	json_ll("entries", v->allow_entries, true);
	json_ll("memlock_bytes", v->allow_mem, false);
	printf("},\"verify\":{\"on\":%s", verify ? "true" : "false");
	if (verify) {
		printf(",\"slot\":%u,", v->hdr.exact_slot);
		json_ll("exact_entries", v->exact_entries, true);
		json_ll("exact_memlock_bytes", v->exact_mem, true);
		json_ll("false_pos",
			v->stats_err ? -1 : (long long)v->stats.false_pos,
			false);
	}
	printf("}");
}

static void json_filter(const struct view *v)
{
	if (v->filter_err) {
		printf(",\"filter\":null");
		return;
	}
	printf(",\"filter\":{\"generation\":%llu,\"map_id\":%u,\"action\":\"%s\",\"match\":\"%s\",\"entries\":%llu,\"blocks\":%u,\"bytes\":%llu,\"target_fpr\":%.6g,\"seed\":%u",
	       (unsigned long long)v->info.generation, v->map_id,
	       v->hdr.flags & BW_F_MONITOR ? "monitor" : "enforce",
	       match_name(v->hdr.flags), (unsigned long long)v->info.entries,
	       v->nblocks, (unsigned long long)v->nblocks * BW_BLOCK_BYTES,
	       v->info.fpr_ppb / 1e9, v->hdr.seed);
	json_regions(v);
	json_tries(v);
	printf("}");
}

static void print_json(const struct view *v, bool first)
{
	size_t i;

	printf("%s{\"iface\":", first ? "" : ",");
	json_str(v->iface);
	printf(",\"ifindex\":%d,", v->ifindex);
	json_program(v);
	json_filter(v);
	if (v->stats_err) {
		printf(",\"counters\":null}");
		return;
	}
	printf(",\"counters\":{\"packets\":%llu",
	       (unsigned long long)bw_stats_packets(&v->stats));
	for (i = 0; i < bw_stats_nfields; i++)
		printf(",\"%s\":%llu", bw_stats_fields[i].name,
		       (unsigned long long)bw_stats_get(&v->stats,
							&bw_stats_fields[i]));
	printf("}}");
}

/* ---- the verb ------------------------------------------------------------ */

static int show_iface(const char *iface, void *arg)
{
	struct status_ctx *ctx = arg;
	struct view v;

	gather(&v, iface);
	if (ctx->json)
		print_json(&v, !ctx->shown);
	else
		print_text(&v, !ctx->shown);
	ctx->shown++;
	return 0;
}

/* Programs whose pins were lost (private bpffs) on this namespace's links. */
static int show_unpinned(void)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	int n = 0;
	__u32 id;

	for (i = ifs; i && i->if_index; i++) {
		if (bw_pin_dir_exists(i->if_name))
			continue;
		id = bw_unpinned_prog((int)i->if_index);
		if (!id)
			continue;
		printf("%s: a bloomwall program (id %u) is attached without pins; 'bloomwall detach %s' removes it\n",
		       i->if_name, id, i->if_name);
		n++;
	}
	if_freenameindex(ifs);
	return n;
}

static int show_all(struct status_ctx *ctx)
{
	int n;

	if (ctx->json)
		printf("[");
	n = bw_for_each_pinned(show_iface, ctx);
	if (ctx->json)
		printf("]\n");
	if (n < 0) {
		pr_warn("bloomwall: cannot list %s: %s\n", BW_PIN_ROOT,
			bw_errno_hint(n));
		return n;
	}
	if (!ctx->json && !show_unpinned() && !n)
		printf("bloomwall is not attached to any interface\n");
	return 0;
}

static int do_status(struct bw_args *a)
{
	struct status_ctx ctx = { .json = a->json };
	int err;

	if (a->iface && !a->ifindex && !bw_pin_dir_exists(a->iface))
		return bw_parse_iface(a->iface, &a->ifindex);
	err = bw_check_privileges("status");
	if (err)
		return err;
	if (!a->iface)
		return show_all(&ctx);
	if (!bw_pin_dir_exists(a->iface))
		return bw_explain_not_attached(a->iface);
	if (ctx.json)
		printf("[");
	show_iface(a->iface, &ctx);
	if (ctx.json)
		printf("]\n");
	return 0;
}

const struct bw_verb bw_verb_status = {
	.name = "status",
	.summary =
		"show program, filter and counters (of every attached interface)",
	.details =
		"Filter: generation, entries, source prefixes and the expansion factor,\n"
		"target prefix lengths per family, size, and per region the prefix length,\n"
		"probes per key, fill (share of bits set) and the false-positive rate\n"
		"estimated from that fill; the allowlist's entries; verify mode with its\n"
		"exact trie's entries and the measured false positives (Bloom hits the trie\n"
		"refused); the kernel memory of the filter and of each trie (memlock).\n"
		"Counters are the sums of the per-CPU stats map.\n",
	.opts = status_opts,
	.pos = { .first_optional = true, .iface_may_vanish = true },
	.run = do_status,
};
