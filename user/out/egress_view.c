// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * status' Egress section (egress_view.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/output.h"
#include "kernel/stats.h"
#include "ops/status.h"
#include "out/droplog.h"
#include "out/egress_view.h"
#include "out/prom.h"
#include "out/status_text.h"

/* A who tried row's source address, as text. */
static void who_addr(const struct bw_who_row *row, char *addr, size_t size)
{
	struct bw_log_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.family = (__u8)row->key.family;
	ev.src[0] = row->key.addr[0];
	ev.src[1] = row->key.addr[1];
	bw_log_addr(&ev, false, addr, size);
}

/* Who tried, either hook's: the rows under key, "who tried" in text. */
static void out_who(const struct bw_who_row *rows, int n, const char *key)
{
	char addr[64];
	int i;

	bw_out_open_array(key);
	for (i = 0; i < n; i++) {
		who_addr(&rows[i], addr, sizeof(addr));
		bw_out_kv(i ? "" : "who tried", "%s: %'llu packets", addr,
			  (unsigned long long)rows[i].packets);
		bw_out_open_object(NULL);
		bw_out_string("source", NULL, addr);
		bw_out_u64("packets", NULL, rows[i].packets);
		bw_out_close_object();
	}
	bw_out_close_array();
}

/* The egress program's DNS counters, when it has them. */
static void out_egress_dns(const struct bw_status_view *v)
{
	size_t i;

	if (v->egress_dns_err == -ENOENT)
		return;
	if (v->egress_dns_err) {
		bw_out_kv("dns counters", "unreadable: %s",
			  bw_errno_hint(v->egress_dns_err));
		bw_out_null("dns_counters", NULL);
		return;
	}
	/* In text only when the filter has names: all zero otherwise. */
	bw_out_open_object("dns_counters");
	for (i = 0; i < bw_dns_stats_nfields; i++) {
		const char *name = bw_dns_stats_fields[i].name;
		__u64 n = bw_dns_stats_get(&v->egress_dns,
					   &bw_dns_stats_fields[i]);
		char label[48];

		snprintf(label, sizeof(label), "dns %s", name);
		if (v->has_dns)
			bw_status_kv_u64(label, name, n);
		else
			bw_out_u64(name, NULL, n);
	}
	bw_out_close_object();
}

/*
 * Who tried on ingress: --match dst's drops (a router's LAN side), by the
 * source that sent them; said only when there is one.
 */
static void out_who_in(const struct bw_status_view *v)
{
	if (v->nwho_in)
		bw_out_text(
			"  Ingress who tried (--match dst: sources of packets dropped for their destination)\n");
	out_who(v->who_in, v->nwho_in, "ingress_who_tried");
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
	out_who_in(v);
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
	out_egress_dns(v);
	out_who(v->who, v->nwho, "who_tried");
	bw_out_close_object();
}

/* Who tried rows as the gauge name, one sample a source. */
static void write_who(FILE *f, const struct bw_status_view *v, const char *name,
		      const char *text, const struct bw_who_row *rows, int n)
{
	char addr[64];
	int w;

	bw_prom_help(f, name, "gauge", text);
	for (w = 0; w < n; w++) {
		who_addr(&rows[w], addr, sizeof(addr));
		fprintf(f, "%s{", name);
		bw_prom_label(f, "iface", v->iface, true);
		bw_prom_label(f, "source", addr, false);
		fprintf(f, "} %llu\n", (unsigned long long)rows[w].packets);
	}
}

void bw_egress_metrics_write(FILE *f, const struct bw_status_view *v)
{
	size_t i;

	if (v->kernel_mem >= 0) {
		bw_prom_help(
			f, "bloomwall_kernel_memory_bytes", "gauge",
			"Kernel memory of every map of bloomwall's programs on the interface, each once (bytes_memlock).");
		fputs("bloomwall_kernel_memory_bytes{", f);
		bw_prom_label(f, "iface", v->iface, true);
		fprintf(f, "} %lld\n", v->kernel_mem);
	}
	if (v->nwho_in)
		write_who(
			f, v, "bloomwall_ingress_tried_packets",
			"Packets from a source to listed destinations the XDP program stopped with --match dst (the top sources).",
			v->who_in, v->nwho_in);
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
	if (!v->egress_dns_err) {
		bw_prom_help(
			f, "bloomwall_egress_dns_total", "counter",
			"DNS queries leaving through the TC egress program, by counter (summed over CPUs).");
		for (i = 0; i < bw_dns_stats_nfields; i++) {
			fputs("bloomwall_egress_dns_total{", f);
			bw_prom_label(f, "iface", v->iface, true);
			bw_prom_label(f, "counter", bw_dns_stats_fields[i].name,
				      false);
			fprintf(f, "} %llu\n",
				(unsigned long long)bw_dns_stats_get(
					&v->egress_dns,
					&bw_dns_stats_fields[i]));
		}
	}
	write_who(
		f, v, "bloomwall_egress_tried_packets",
		"Packets from a local source to listed destinations the egress program stopped (the top sources).",
		v->who, v->nwho);
}
