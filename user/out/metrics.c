// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Prometheus text exposition of an interface's counters and filter
 * (metrics.h), and its atomic write for node_exporter's textfile collector.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "filter/bloom.h"
#include "base/file.h"
#include "base/log.h"
#include "filter/bloom_size.h"
#include "filter/provenance.h"
#include "image/sign_key.h"
#include "out/egress_view.h"
#include "out/metrics.h"
#include "out/prom.h"
#include "out/src_out.h"

/* Never below zero: the maps are read one after the other. */
static __u64 minus(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

void bw_packet_series(const struct bw_stats *s, const struct bw_dns_drops *d,
		      struct bw_packet_series *out)
{
	__u64 parts = s->not_ip + s->malformed + s->no_filter + s->monitored +
		      s->allowed + s->false_pos;
	__u64 dns4 = d ? d->dropped[BW_V4] : 0,
	      dns6 = d ? d->dropped[BW_V6] : 0;
	int i = 0;

	/* A query read newer than the drops: all of the drops are DNS's. */
	dns4 = dns4 < s->dropped_v4 ? dns4 : s->dropped_v4;
	dns6 = dns6 < s->dropped_v6 ? dns6 : s->dropped_v6;
	out[i++] = (struct bw_packet_series){ "drop", "address", "ipv4",
					      minus(s->dropped_v4, dns4) };
	out[i++] = (struct bw_packet_series){ "drop", "address", "ipv6",
					      minus(s->dropped_v6, dns6) };
	out[i++] = (struct bw_packet_series){ "drop", "dns", "ipv4", dns4 };
	out[i++] = (struct bw_packet_series){ "drop", "dns", "ipv6", dns6 };
	/*
	 * The per-CPU counters are copied one after the other while packets
	 * count: a part may be read newer than passed. Never below zero.
	 */
	out[i++] =
		(struct bw_packet_series){ "pass", "unlisted", NULL,
					   s->passed > parts ? s->passed - parts
							     : 0 };
	out[i++] =
		(struct bw_packet_series){ "pass", "not_ip", NULL, s->not_ip };
	out[i++] = (struct bw_packet_series){ "pass", "malformed", NULL,
					      s->malformed };
	out[i++] = (struct bw_packet_series){ "pass", "no_filter", NULL,
					      s->no_filter };
	out[i++] = (struct bw_packet_series){ "pass", "monitor", NULL,
					      s->monitored };
	out[i++] = (struct bw_packet_series){ "pass", "allowlist", NULL,
					      s->allowed };
	out[i++] = (struct bw_packet_series){ "pass", "false_positive", NULL,
					      s->false_pos };
}

/* Most keys a region of nblocks holds at rate share by the model. */
static double region_capacity(__u32 nblocks, unsigned int probes, double share)
{
	__u64 lo = 0, hi = (__u64)nblocks * BW_BLOCK_BITS * 4;

	while (lo < hi) {
		__u64 mid = lo + (hi - lo + 1) / 2;

		if (bw_model_fpr(mid, nblocks, probes) <= share)
			lo = mid;
		else
			hi = mid - 1;
	}
	return (double)lo;
}

double bw_metrics_sized_entries(const struct bw_status_view *v)
{
	double target = bw_info_fpr(&v->info), sized = 0.0, share;
	__u64 fam[BW_FAMILIES] = { 0 };
	const struct bw_region_row *r;
	int i;

	/* Recorded by the build; the model is for filters from before. */
	if (v->have_sized)
		return (double)v->sized_entries;
	for (i = 0; i < v->nrows; i++)
		fam[v->rows[i].family] += v->rows[i].entries;
	for (i = 0; i < v->nrows; i++) {
		r = &v->rows[i];
		if (!r->entries)
			continue;
		/* The builder's split (bloom_size.c plan_family), as it is now. */
		share = target * r->entries / fam[r->family];
		if (ldexp(1.0, -(int)r->plen) > target / 16)
			share = fmin(share, 0.001 * ldexp(1.0, -(int)r->plen));
		sized += region_capacity(r->blocks, r->probes, share);
	}
	return sized;
}

/* A sample's value: Go's ParseFloat spellings for the special ones. */
static void put_value(FILE *f, double v)
{
	if (isnan(v))
		fputs("} NaN\n", f);
	else if (isinf(v))
		fputs(v > 0 ? "} +Inf\n" : "} -Inf\n", f);
	else if (v == floor(v) && fabs(v) < 0x1p53)
		fprintf(f, "} %.0f\n", v); /* counts, exactly */
	else
		fprintf(f, "} %.6g\n", v);
}

/* A sample with the iface label only. */
static void sample(FILE *f, const char *name, const char *iface, double v)
{
	fprintf(f, "%s{", name);
	bw_prom_label(f, "iface", iface, true);
	put_value(f, v);
}

static void gauge(FILE *f, const char *name, const char *text,
		  const char *iface, double v)
{
	bw_prom_help(f, name, "gauge", text);
	sample(f, name, iface, v);
}

static void write_packets(FILE *f, const struct bw_status_view *v)
{
	struct bw_packet_series s[BW_PACKET_SERIES];
	int i;

	bw_packet_series(&v->stats, v->dns_drops_err ? NULL : &v->dns_drops, s);
	bw_prom_help(
		f, "bloomwall_packets_total", "counter",
		"Packets the XDP program judged, by verdict and reason (summed over CPUs).");
	for (i = 0; i < BW_PACKET_SERIES; i++) {
		fputs("bloomwall_packets_total{", f);
		bw_prom_label(f, "iface", v->iface, true);
		bw_prom_label(f, "verdict", s[i].verdict, false);
		bw_prom_label(f, "reason", s[i].reason, false);
		if (s[i].family)
			bw_prom_label(f, "family", s[i].family, false);
		fprintf(f, "} %llu\n", (unsigned long long)s[i].value);
	}
}

/* The drop log's rate and its counters, when the program has a log. */
static void write_log(FILE *f, const struct bw_status_view *v)
{
	size_t i;

	gauge(f, "bloomwall_log_rate",
	      "Drop log events a second per CPU the program may write (0: off).",
	      v->iface, v->log_rate > 0 ? (double)v->log_rate : 0.0);
	bw_prom_help(
		f, "bloomwall_log_events_total", "counter",
		"Drop log events, by result: logged, lost to the rate limit, lost to a full ring.");
	for (i = 0; i < bw_log_stats_nfields; i++) {
		fputs("bloomwall_log_events_total{", f);
		bw_prom_label(f, "iface", v->iface, true);
		bw_prom_label(f, "result", bw_log_stats_fields[i].name, false);
		fprintf(f, "} %llu\n",
			(unsigned long long)*(
				const __u64 *)((const char *)&v->log_stats +
					       bw_log_stats_fields[i].off));
	}
}

static const char *family_label(int f)
{
	return f == BW_V4 ? "ipv4" : "ipv6";
}

/* One gauge per region: field is fill, est. fpr or entries. */
static void write_regions(FILE *f, const struct bw_status_view *v,
			  const char *name, const char *text, int field)
{
	const struct bw_region_row *r;
	char plen[8];
	int i;

	bw_prom_help(f, name, "gauge", text);
	for (i = 0; i < v->nrows; i++) {
		r = &v->rows[i];
		snprintf(plen, sizeof(plen), "%u", r->plen);
		fprintf(f, "%s{", name);
		bw_prom_label(f, "iface", v->iface, true);
		bw_prom_label(f, "family", family_label(r->family), false);
		bw_prom_label(f, "prefix", plen, false);
		put_value(f, field == 0	  ? r->fill
			     : field == 1 ? r->fpr
					  : (double)r->entries);
	}
}

static void write_family_fpr(FILE *f, const struct bw_status_view *v)
{
	int fam;

	bw_prom_help(
		f, "bloomwall_filter_estimated_fpr", "gauge",
		"False-positive rate estimated from the fill, per family (an unlisted address hits if any region does).");
	for (fam = 0; fam < BW_FAMILIES; fam++) {
		if (v->fam_fpr[fam] < 0)
			continue;
		fputs("bloomwall_filter_estimated_fpr{", f);
		bw_prom_label(f, "iface", v->iface, true);
		bw_prom_label(f, "family", family_label(fam), false);
		put_value(f, v->fam_fpr[fam]);
	}
}

static void write_filter(FILE *f, const struct bw_status_view *v)
{
	const char *i = v->iface;
	double sized = bw_metrics_sized_entries(v);

	gauge(f, "bloomwall_filter_generation",
	      "Generation of the running filter (1 at attach, +1 per swap).", i,
	      (double)v->info.generation);
	gauge(f, "bloomwall_filter_entries", "Keys set in the running filter.",
	      i, (double)v->info.entries);
	gauge(f, "bloomwall_filter_sized_entries",
	      "Address keys the build sized the filter for.", i, sized);
	gauge(f, "bloomwall_filter_entries_over_sized_ratio",
	      "Entries over sized entries: about 1 after a build, raised by runtime adds.",
	      i, sized > 0 ? (double)v->info.entries / sized : 0.0);
	gauge(f, "bloomwall_filter_added_entries",
	      "Entries added with 'bloomwall add' kept with the filter.", i,
	      v->added_kept < 0 ? NAN : (double)v->added_kept);
	gauge(f, "bloomwall_filter_bytes", "Size of the filter map.", i,
	      (double)v->nblocks * BW_BLOCK_BYTES);
	gauge(f, "bloomwall_filter_target_fpr",
	      "Target false-positive rate the filter was built for.", i,
	      bw_info_fpr(&v->info));
	write_regions(f, v, "bloomwall_region_fill_ratio",
		      "Share of a region's bits that are set.", 0);
	write_regions(
		f, v, "bloomwall_region_estimated_fpr",
		"False-positive rate of a region estimated from its fill.", 1);
	write_regions(f, v, "bloomwall_region_entries", "Keys in a region.", 2);
	write_family_fpr(f, v);
}

/* The image the running filter came from: hash, serial, time, signer. */
static void write_image(FILE *f, const struct bw_status_view *v)
{
	const struct bw_rec_image *im = &v->image;
	char hash[BW_PROV_HEX], signer[BW_KEY_ID_HEX];

	if (!v->have_image)
		return;
	bw_prov_hex(v->image_hash, hash);
	bw_key_id_hex(im->signer, signer);
	bw_prom_help(
		f, "bloomwall_image_info", "gauge",
		"The image the running filter was loaded from: 1, its hash and signer as labels.");
	fputs("bloomwall_image_info{", f);
	bw_prom_label(f, "iface", v->iface, true);
	bw_prom_label(f, "hash", hash, false);
	bw_prom_label(f, "signer",
		      im->flags & BW_REC_IMAGE_SIGNED ? signer : "", false);
	bw_prom_label(f, "verified",
		      im->flags & BW_REC_IMAGE_VERIFIED ? "1" : "0", false);
	fputs("} 1\n", f);
	gauge(f, "bloomwall_image_serial",
	      "Serial of the image the running filter was loaded from.",
	      v->iface, (double)im->serial);
	gauge(f, "bloomwall_image_time_seconds",
	      "Time of the image the running filter was loaded from, Unix time.",
	      v->iface, (double)(im->time_ns / 1000000000ULL));
}

static void write_watch(FILE *f, const char *iface,
			const struct bw_watch_counts *w)
{
	bw_prom_help(f, "bloomwall_watch_reloads_total", "counter",
		     "Reloads the watch daemon ran, by result.");
	fputs("bloomwall_watch_reloads_total{", f);
	bw_prom_label(f, "iface", iface, true);
	fprintf(f, ",result=\"ok\"} %llu\n", (unsigned long long)w->reloads_ok);
	fputs("bloomwall_watch_reloads_total{", f);
	bw_prom_label(f, "iface", iface, true);
	fprintf(f, ",result=\"failed\"} %llu\n",
		(unsigned long long)w->reloads_failed);
	bw_prom_help(
		f, "bloomwall_watch_auto_rebuilds_total", "counter",
		"Rebuilds the watch started because runtime adds passed twice the target rate.");
	sample(f, "bloomwall_watch_auto_rebuilds_total", iface,
	       (double)w->rebuilds_auto);
	gauge(f, "bloomwall_watch_start_time_seconds",
	      "When the watch started, Unix time.", iface, (double)w->started);
	gauge(f, "bloomwall_watch_filter_generation",
	      "Generation of the filter the watch last put in (0: none yet); bloomwall_filter_generation differs when another command replaced it.",
	      iface, (double)w->kept_gen);
	if (w->last_seconds < 0)
		return;
	gauge(f, "bloomwall_watch_last_reload_duration_seconds",
	      "How long the last reload took.", iface, w->last_seconds);
	gauge(f, "bloomwall_watch_last_reload_timestamp_seconds",
	      "When the last reload ended, Unix time.", iface, w->last_time);
	gauge(f, "bloomwall_watch_last_reload_success",
	      "1 if the last reload swapped a filter in, 0 if it failed.",
	      iface, w->last_ok);
}

/* The watch's live entries (daemon/live.h): kept in place, no swap. */
static void write_live(FILE *f, const char *iface,
		       const struct bw_watch_counts *w)
{
	gauge(f, "bloomwall_live_entries",
	      "Entries the watch keeps in the running filter in place.", iface,
	      (double)w->live_entries);
	gauge(f, "bloomwall_live_keys", "Keys of the live entries.", iface,
	      (double)w->live_keys);
	gauge(f, "bloomwall_live_memory_bytes",
	      "Memory the watch holds for the live entries.", iface,
	      (double)w->live_bytes);
	bw_prom_help(f, "bloomwall_live_changes_total", "counter",
		     "Live entries set or taken out in place, by kind.");
	fputs("bloomwall_live_changes_total{", f);
	bw_prom_label(f, "iface", iface, true);
	fprintf(f, ",kind=\"add\"} %llu\n", (unsigned long long)w->live_adds);
	fputs("bloomwall_live_changes_total{", f);
	bw_prom_label(f, "iface", iface, true);
	fprintf(f, ",kind=\"delete\"} %llu\n",
		(unsigned long long)w->live_deletes);
	fputs("bloomwall_live_changes_total{", f);
	bw_prom_label(f, "iface", iface, true);
	fprintf(f, ",kind=\"expired\"} %llu\n",
		(unsigned long long)w->live_expired);
}

static void write_all(FILE *f, const struct bw_status_view *v,
		      const struct bw_watch_counts *w)
{
	bool up = !v->prog_err && !v->stats_err;

	gauge(f, "bloomwall_attached",
	      "1 if the interface's XDP hook runs bloomwall's program.",
	      v->iface, up);
	if (up)
		write_packets(f, v);
	if (up && !v->log_stats_err)
		write_log(f, v);
	if (up)
		bw_egress_metrics_write(f, v);
	if (up && !v->filter_err) {
		write_filter(f, v);
		write_image(f, v);
	}
	if (w)
		write_watch(f, v->iface, w);
	if (w && w->live)
		write_live(f, v->iface, w);
	if (w && w->cs)
		bw_cs_metrics_write(f, v->iface, w->cs);
	if (w && w->pull)
		bw_pull_metrics_write(f, v->iface, w->pull);
	if (w && w->nsrc)
		bw_src_metrics_write(f, v->iface, w->src, w->nsrc);
}

int bw_metrics_write(FILE *f, const struct bw_status_view *v,
		     const struct bw_watch_counts *w)
{
	/* The format's numbers have a '.', whatever LC_NUMERIC says. */
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;

	write_all(f, v, w);
	if (c) {
		uselocale(old);
		freelocale(c);
	}
	return ferror(f) ? -EIO : 0;
}

int bw_metrics_render(char **text, size_t *len, const struct bw_status_view *v,
		      const struct bw_watch_counts *w)
{
	FILE *f = open_memstream(text, len);
	int err;

	if (!f)
		return -ENOMEM;
	err = bw_metrics_write(f, v, w);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(*text);
		*text = NULL;
	}
	return err ? -ENOMEM : 0;
}

static char *temp_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *tmp;
	int n;

	/* A leading dot: the textfile collector reads only *.prom files. */
	if (slash)
		n = asprintf(&tmp, "%.*s/.%s.XXXXXX", (int)(slash - path), path,
			     slash + 1);
	else
		n = asprintf(&tmp, ".%s.XXXXXX", path);
	return n < 0 ? NULL : tmp;
}

int bw_metrics_write_file(const char *path, const struct bw_status_view *v,
			  const struct bw_watch_counts *w)
{
	char *tmp = temp_path(path);
	FILE *f = NULL;
	int fd, err;

	if (!tmp) {
		pr_warn("%s: out of memory\n", path);
		return -ENOMEM;
	}
	err = bw_check_replaceable(path, "metrics file");
	if (err) {
		free(tmp);
		return err;
	}
	fd = mkstemp(tmp);
	err = fd < 0 ? -errno : 0;
	if (!err && fchmod(fd, 0644))
		err = -errno;
	if (!err) {
		f = fdopen(fd, "w");
		err = f ? 0 : -errno;
	}
	if (!err)
		err = bw_metrics_write(f, v, w);
	if (f && fclose(f) && !err)
		err = -errno;
	else if (!f && fd >= 0)
		close(fd);
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		pr_warn("%s: cannot write the metrics file: %s\n", path,
			strerror(-err));
		if (fd >= 0)
			unlink(tmp);
	}
	free(tmp);
	return err;
}
