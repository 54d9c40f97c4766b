// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * status' Egress section (egress_view.h).
 */
#include <errno.h>
#include <string.h>

#include "base/log.h"
#include "base/output.h"
#include "kernel/stats.h"
#include "ops/status.h"
#include "out/droplog.h"
#include "out/egress_view.h"
#include "out/prom.h"
#include "out/status_text.h"

/* Who tried row i's source address, as text. */
static void who_addr(const struct bw_status_view *v, int i, char *addr,
		     size_t size)
{
	struct bw_log_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.family = (__u8)v->who[i].key.family;
	ev.src[0] = v->who[i].key.addr[0];
	ev.src[1] = v->who[i].key.addr[1];
	bw_log_addr(&ev, false, addr, size);
}

static void out_who(const struct bw_status_view *v)
{
	char addr[64];
	int i;

	bw_out_open_array("who_tried");
	for (i = 0; i < v->nwho; i++) {
		who_addr(v, i, addr, sizeof(addr));
		bw_out_kv(i ? "" : "who tried", "%s: %'llu packets", addr,
			  (unsigned long long)v->who[i].packets);
		bw_out_open_object(NULL);
		bw_out_string("source", NULL, addr);
		bw_out_u64("packets", NULL, v->who[i].packets);
		bw_out_close_object();
	}
	bw_out_close_array();
}

static void out_egress_counters(const struct bw_status_view *v)
{
	size_t i;

	if (v->egress_stats_err) {
		bw_out_kv("counters", "unreadable: %s",
			  bw_errno_hint(v->egress_stats_err));
		bw_out_null("counters", NULL);
		return;
	}
	bw_out_open_object("counters");
	bw_status_kv_u64("packets", "packets",
			 bw_stats_packets(&v->egress_stats));
	for (i = 0; i < bw_stats_nfields; i++)
		bw_status_kv_u64(
			bw_stats_fields[i].name, bw_stats_fields[i].name,
			bw_stats_get(&v->egress_stats, &bw_stats_fields[i]));
	bw_out_close_object();
}

void bw_status_out_egress(const struct bw_status_view *v)
{
	bw_out_text(
		"  Egress (TC clsact, the host's own packets by destination)\n");
	if (v->kernel_mem >= 0) {
		bw_out_kv("kernel memory", "%'lld bytes (every map of %s)",
			  v->kernel_mem,
			  v->egress_err ? "the program" : "both programs");
		bw_out_int("kernel_memory", NULL, v->kernel_mem);
	}
	if (v->egress_err) {
		bw_out_kv("egress", "off (attach --egress)");
		bw_out_null("egress", NULL);
		return;
	}
	bw_out_open_object("egress");
	bw_out_kv("egress", "%s id %u, %s", "bloomwall_tc", v->egress_id,
		  v->egress_behind ? "BEHIND: another filter than the XDP "
				     "program's (the next reload brings it)"
				   : "the XDP program's filter");
	bw_out_u64("program_id", NULL, v->egress_id);
	bw_out_bool("same_filter", NULL, !v->egress_behind);
	out_egress_counters(v);
	out_who(v);
	bw_out_close_object();
}

void bw_egress_metrics_write(FILE *f, const struct bw_status_view *v)
{
	char addr[64];
	size_t i;
	int w;

	if (v->kernel_mem >= 0) {
		bw_prom_help(
			f, "bloomwall_kernel_memory_bytes", "gauge",
			"Kernel memory of every map of bloomwall's programs on the interface, each once (bytes_memlock).");
		fputs("bloomwall_kernel_memory_bytes{", f);
		bw_prom_label(f, "iface", v->iface, true);
		fprintf(f, "} %lld\n", v->kernel_mem);
	}
	if (v->egress_err || v->egress_stats_err)
		return;
	bw_prom_help(
		f, "bloomwall_egress_packets_total", "counter",
		"Packets the TC egress program judged, by counter (summed over CPUs).");
	for (i = 0; i < bw_stats_nfields; i++) {
		fputs("bloomwall_egress_packets_total{", f);
		bw_prom_label(f, "iface", v->iface, true);
		bw_prom_label(f, "counter", bw_stats_fields[i].name, false);
		fprintf(f, "} %llu\n",
			(unsigned long long)bw_stats_get(&v->egress_stats,
							 &bw_stats_fields[i]));
	}
	bw_prom_help(
		f, "bloomwall_egress_tried_packets", "gauge",
		"Packets from a local source to listed destinations the egress program stopped (the top sources).");
	for (w = 0; w < v->nwho; w++) {
		who_addr(v, w, addr, sizeof(addr));
		fputs("bloomwall_egress_tried_packets{", f);
		bw_prom_label(f, "iface", v->iface, true);
		bw_prom_label(f, "source", addr, false);
		fprintf(f, "} %llu\n", (unsigned long long)v->who[w].packets);
	}
}
