// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * status's view of one interface, rendered (status_view.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/output.h"
#include "filter/bloom_names.h"
#include "out/cs_status.h"
#include "out/expiry_view.h"
#include "out/prov_view.h"
#include "out/pull_out.h"
#include "out/src_out.h"
#include "out/egress_view.h"
#include "out/status_text.h"
#include "out/status_view.h"

/*
 * 1 if the program runs with the header the filter map holds (what status,
 * query and add read), 0 if not, -1 if either cannot be read.
 */
static int header_agrees(const struct bw_status_view *v)
{
	if (v->prog_hdr_err || v->filter_err)
		return -1;
	return !memcmp(&v->prog_hdr, &v->hdr, sizeof(v->hdr));
}

static const char *attach_key(const struct bw_status_view *v)
{
	if (v->x.dispatcher)
		return "dispatcher";
	return v->link ? "link" : "plain";
}

static void out_hook_state(const struct bw_status_view *v)
{
	if (v->moved_to[0])
		bw_out_kv(
			"state",
			"NOT attached here: the program pinned for %s runs on %s (renamed?)",
			v->iface, v->moved_to);
	else if (!v->ifindex)
		bw_out_kv(
			"state",
			"the interface is gone; 'bloomwall detach %s' removes the pins",
			v->iface);
	else if (v->xdp_err)
		bw_out_kv("state", "unknown: %s", bw_errno_hint(v->xdp_err));
	else if (!v->x.ours && v->x.prog_id)
		bw_out_kv(
			"state",
			"NOT attached: the hook holds another program (id %u)",
			v->x.prog_id);
	else if (!v->x.ours)
		bw_out_kv("state",
			  "NOT attached: the interface has no XDP program");
	else
		bw_out_kv("state", "attached");
	bw_out_bool("attached", NULL, v->x.ours);
}

/* The pins are a cache of what runs: say when they are not. */
static void out_pins(const struct bw_status_view *v)
{
	if (!v->prog_err && v->pins_in_step)
		bw_out_kv("pins", "%s/%s (name what runs)", BW_PIN_ROOT,
			  v->iface);
	else if (!v->prog_err)
		bw_out_kv(
			"pins",
			"missing or out of step (an interrupted command, or a private bpffs); the next attach, reload, add, allow, unallow or detach repairs them");
	else if (v->pins_left && !v->moved_to[0])
		bw_out_kv("pins",
			  "left behind; 'bloomwall detach %s' removes them",
			  v->iface);
}

static void out_program(const struct bw_status_view *v)
{
	int agrees = header_agrees(v);

	bw_out_text("  Program\n");
	bw_out_open_object("program");
	if (!v->prog_err)
		bw_out_kv("id", "%u", v->prog_id);
	bw_out_u64("id", NULL, v->prog_id);
	out_hook_state(v);
	if (agrees < 0)
		bw_out_null("header_matches_filter", NULL);
	else
		bw_out_bool("header_matches_filter", NULL, agrees);
	if (v->ifindex && !v->xdp_err && v->x.ours) {
		bw_out_kv("XDP mode", "%s",
			  bw_attached_mode_name(v->x.attach_mode));
		bw_out_kv("attach", "%s", v->kind);
		bw_out_string("mode", NULL,
			      bw_attached_mode_name(v->x.attach_mode));
		bw_out_string("attach", NULL, attach_key(v));
	}
	out_pins(v);
	if (agrees == 1)
		bw_out_kv("filter header", "the filter's (loaded with it)");
	else if (!agrees)
		bw_out_kv(
			"filter header",
			"DIFFERS from the filter map's: the program runs with the one it was loaded with; 'bloomwall reload %s LIST...' makes them one",
			v->iface);
	bw_out_close_object();
}

static double expansion(const struct bw_status_view *v)
{
	return v->info.source_entries
		       ? (double)v->info.entries / v->info.source_entries
		       : 1.0;
}

/* Target lengths per family and what the expansion made of the lists. */
static void out_cidr(const struct bw_status_view *v)
{
	int f, i, n;

	bw_out_kv("source prefixes", "%'llu -> %'llu entries (expansion x%.2f)",
		  (unsigned long long)v->info.source_entries,
		  (unsigned long long)v->info.entries, expansion(v));
	bw_out_u64("source_entries", NULL, v->info.source_entries);
	bw_out_double("expansion", NULL, expansion(v));
	bw_out_open_object("targets");
	for (f = 0; f < BW_FAMILIES; f++) {
		n = v->hdr.nlengths[f] < BW_MAX_LENGTHS ? v->hdr.nlengths[f]
							: BW_MAX_LENGTHS;
		bw_out_text("    %-*s ", BW_OUT_KEY_WIDTH,
			    f == BW_V4 ? "target lengths IPv4"
				       : "target lengths IPv6");
		bw_out_open_array(bw_status_family_key(f));
		for (i = 0; i < n; i++)
			bw_out_u64(NULL, i ? " /%llu" : "/%llu",
				   v->hdr.plen[f][i]);
		bw_out_close_array();
		bw_out_text("%s\n", n ? "" : "none");
	}
	bw_out_close_object();
}

/* Memory in bytes, or unknown (JSON: null). */
static void kv_bytes(const char *label, const char *key, long long bytes)
{
	if (bytes >= 0) {
		bw_out_kv(label, "%'lld bytes", bytes);
		bw_out_int(key, NULL, bytes);
	} else {
		bw_out_kv(label, "unknown (%s)", bw_errno_hint((int)bytes));
		bw_out_null(key, NULL);
	}
}

/* A count or size for JSON, or null when unknown. */
static void json_ll(const char *key, long long n)
{
	if (n >= 0)
		bw_out_int(key, NULL, n);
	else
		bw_out_null(key, NULL);
}

static void out_verify(const struct bw_status_view *v)
{
	bool verify = v->hdr.flags & BW_F_VERIFY;

	bw_out_open_object("verify");
	bw_out_bool("on", NULL, verify);
	if (!verify)
		bw_out_kv("verify", "off (a Bloom hit drops)");
	else if (v->exact_entries >= 0)
		bw_out_kv("verify",
			  "on (exact trie in slot %u: %'lld prefixes)",
			  v->hdr.exact_slot, v->exact_entries);
	else
		bw_out_kv(
			"verify",
			"on, but the exact trie is missing: hits pass as false_pos");
	if (verify) {
		bw_out_u64("slot", NULL, v->hdr.exact_slot);
		json_ll("exact_entries", v->exact_entries);
		json_ll("exact_memlock_bytes", v->exact_mem);
		json_ll("false_pos",
			v->stats_err ? -1 : (long long)v->stats.false_pos);
	}
	if (verify && !v->stats_err)
		bw_out_kv("measured false pos.",
			  "%'llu (Bloom hits the exact trie refused)",
			  (unsigned long long)v->stats.false_pos);
	bw_out_close_object();
}

/* Allowlist, verify mode and the memory of each structure. */
static void out_tries(const struct bw_status_view *v)
{
	bw_out_open_object("allow");
	if (v->allow_entries >= 0)
		bw_out_kv("allowlist", "%'lld %s", v->allow_entries,
			  bw_plural(v->allow_entries, "entry", "entries"));
	else
		bw_out_kv("allowlist", "none pinned");
	json_ll("entries", v->allow_entries);
	json_ll("memlock_bytes", v->allow_mem);
	bw_out_close_object();
	out_verify(v);
	kv_bytes("memory filter", "memlock_bytes", v->filter_mem);
	if (v->allow_entries >= 0)
		kv_bytes("memory allow trie", NULL, v->allow_mem);
	if (v->hdr.flags & BW_F_VERIFY)
		kv_bytes("memory exact trie", NULL, v->exact_mem);
}

/* Entries kept from add: built into every rebuild until removed. */
static void out_kept(const struct bw_status_view *v)
{
	if (v->added_kept >= 0) {
		bw_status_kv_u64("added entries kept", "added_kept",
				 v->added_kept);
		return;
	}
	bw_out_kv(
		"added entries kept",
		"unknown: the record area is malformed (the next reload drops it)");
	bw_out_null("added_kept", NULL);
}

/*
 * The next expiry of the watch holding the interface's watch lock, from
 * its state file (BW_EXPIRY_UNKNOWN when the file is not that watch's).
 */
static __u64 watch_next(const struct bw_status_records *sr,
			struct json_object *state)
{
	struct json_object *pid, *live, *next;

	if (!sr || sr->watch_pid <= 0 || !state ||
	    !json_object_object_get_ex(state, "pid", &pid) ||
	    json_object_get_int64(pid) != sr->watch_pid ||
	    !json_object_object_get_ex(state, "live", &live) ||
	    !json_object_object_get_ex(live, "next_expiry", &next))
		return BW_EXPIRY_UNKNOWN;
	return (__u64)json_object_get_int64(next);
}

static void out_filter(const struct bw_status_view *v,
		       const struct bw_status_records *sr,
		       struct json_object *state)
{
	bw_out_text("  Filter\n");
	if (v->filter_err == -ENOENT) {
		bw_out_kv("state", "none running");
		bw_out_null("filter", NULL);
		return;
	}
	if (v->filter_err) {
		bw_out_kv(
			"state",
			"not a valid bloomwall filter; 'bloomwall reload %s LIST...' replaces it",
			v->iface);
		bw_out_null("filter", NULL);
		return;
	}
	bw_out_open_object("filter");
	bw_status_kv_u64("generation", "generation", v->info.generation);
	bw_status_kv_u64("map id", "map_id", v->map_id);
	bw_out_kv("action", "%s",
		  v->hdr.flags & BW_F_MONITOR
			  ? "monitor (count matches, never drop)"
			  : "enforce (drop matches)");
	bw_out_string("action", NULL,
		      v->hdr.flags & BW_F_MONITOR ? "monitor" : "enforce");
	bw_out_kv("match", "%s address", bw_match_name(v->hdr.flags));
	bw_out_string("match", NULL, bw_match_name(v->hdr.flags));
	bw_status_kv_u64("entries", "entries", v->info.entries);
	out_kept(v);
	if (sr)
		bw_expiry_out_status(&sr->rec, sr->watch_pid,
				     watch_next(sr, state));
	out_cidr(v);
	bw_out_kv("blocks", "%'u (%'llu bytes)", v->nblocks,
		  (unsigned long long)v->nblocks * BW_BLOCK_BYTES);
	bw_out_u64("blocks", NULL, v->nblocks);
	bw_out_u64("bytes", NULL,
		   (unsigned long long)v->nblocks * BW_BLOCK_BYTES);
	bw_out_kv("target fpr", "%g%%", bw_info_fpr(&v->info) * 100);
	bw_out_double("target_fpr", NULL, bw_info_fpr(&v->info));
	bw_out_kv("hash seed", "0x%08x", v->hdr.seed);
	bw_out_u64("seed", NULL, v->hdr.seed);
	bw_status_out_regions(v);
	out_tries(v);
	bw_out_close_object();
}

static void out_counters(const struct bw_status_view *v)
{
	size_t i;

	bw_out_text("  Counters (summed over CPUs)\n");
	if (v->stats_err == -ENOENT) {
		bw_out_kv("state", "none running");
		bw_out_null("counters", NULL);
		return;
	}
	if (v->stats_err) {
		bw_out_kv("state", "unreadable: %s",
			  bw_errno_hint(v->stats_err));
		bw_out_null("counters", NULL);
		return;
	}
	bw_out_open_object("counters");
	bw_status_kv_u64("packets", "packets", bw_stats_packets(&v->stats));
	for (i = 0; i < bw_stats_nfields; i++)
		bw_status_kv_u64(bw_stats_fields[i].name,
				 bw_stats_fields[i].name,
				 bw_stats_get(&v->stats, &bw_stats_fields[i]));
	bw_out_close_object();
}

/* The DNS counters, when the program has them (a 0.2 program has not). */
static void out_dns_counters(const struct bw_status_view *v)
{
	size_t i;

	if (v->dns_stats_err == -ENOENT)
		return;
	bw_out_text("  DNS counters (summed over CPUs)\n");
	if (v->dns_stats_err) {
		bw_out_kv("state", "unreadable: %s",
			  bw_errno_hint(v->dns_stats_err));
		bw_out_null("dns_counters", NULL);
		return;
	}
	bw_out_open_object("dns_counters");
	for (i = 0; i < bw_dns_stats_nfields; i++)
		bw_status_kv_u64(bw_dns_stats_fields[i].name,
				 bw_dns_stats_fields[i].name,
				 *(const __u64 *)((const char *)&v->dns_stats +
						  bw_dns_stats_fields[i].off));
	bw_out_close_object();
}

/*
 * The drop log: its rate (what the program was loaded with) and counters,
 * when the program has them (one from before the drop log has not).
 */
static void out_log(const struct bw_status_view *v)
{
	size_t i;

	if (v->log_stats_err == -ENOENT)
		return;
	bw_out_text("  Drop log\n");
	bw_out_open_object("log");
	if (v->log_rate > 0)
		bw_out_kv("rate", "%'ld events/s per CPU (burst %'ld)",
			  v->log_rate, v->log_rate);
	else
		bw_out_kv("rate", "off (--log-rate 0)");
	bw_out_int("rate", NULL, v->log_rate > 0 ? v->log_rate : 0);
	if (v->log_stats_err) {
		bw_out_kv("state", "unreadable: %s",
			  bw_errno_hint(v->log_stats_err));
		bw_out_null("counters", NULL);
		bw_out_close_object();
		return;
	}
	bw_out_open_object("counters");
	for (i = 0; i < bw_log_stats_nfields; i++)
		bw_status_kv_u64(bw_log_stats_fields[i].name,
				 bw_log_stats_fields[i].name,
				 *(const __u64 *)((const char *)&v->log_stats +
						  bw_log_stats_fields[i].off));
	bw_out_close_object();
	bw_out_close_object();
}

static long long state_int(struct json_object *state, const char *key)
{
	struct json_object *o;

	return json_object_object_get_ex(state, key, &o)
		       ? json_object_get_int64(o)
		       : 0;
}

/*
 * The watch, in JSON; in text only when it did not answer (what follows
 * is what it last published).
 */
static void out_watch(const struct bw_status_watch *sw)
{
	long long pid = state_int(sw->state, "pid");
	long long ago = (long long)time(NULL) - state_int(sw->state, "updated");

	if (sw->err) {
		bw_out_null("watch", NULL);
		return;
	}
	if (sw->published)
		bw_out_text(
			"  watch (pid %lld) did not answer within %d s (%s): its state as published %lld s ago\n",
			pid, BW_STATUS_ASK_MS / 1000,
			bw_errno_hint(sw->ask_err), ago > 0 ? ago : 0);
	bw_out_open_object("watch");
	bw_out_int("pid", NULL, pid);
	bw_out_bool("answered", NULL, !sw->published);
	bw_out_int("updated", NULL, state_int(sw->state, "updated"));
	bw_out_close_object();
}

void bw_status_out(const struct bw_status_view *v,
		   const struct bw_status_records *sr,
		   const struct bw_status_watch *sw, bool first)
{
	struct json_object *state = sw->state;
	int state_err = sw->err;

	if (!first)
		bw_out_text("\n");
	bw_out_open_object(NULL);
	bw_out_string("iface", "bloomwall on %s", v->iface);
	bw_out_int("ifindex", v->ifindex ? " (ifindex %lld)\n" : NULL,
		   v->ifindex);
	if (!v->ifindex)
		bw_out_text(" (interface gone)\n");
	bw_out_bool("pinned", NULL, !v->prog_err && v->pins_in_step);
	out_watch(sw);
	out_program(v);
	out_filter(v, sr, state);
	bw_status_out_names(v);
	if (!v->filter_err && sr)
		bw_prov_out(&sr->rec);
	out_counters(v);
	out_dns_counters(v);
	bw_status_out_egress(v);
	out_log(v);
	bw_cs_status_out(state, state_err);
	bw_pull_status_out(state, state_err);
	bw_src_status_out(state, state_err);
	bw_out_close_object();
}
