// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The Prometheus exposition (metrics.c) of a status view made by hand: the
 * exact sample lines, the packets series adding up, label escaping, an
 * interface without a filter, the decimal point under any locale, the
 * sized entries against the sizing model, the atomic file.
 */
#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "filter/bloom.h"
#include "filter/bloom_size.h"
#include "out/metrics.h"
#include "out/prom.h"
#include "test_helpers.h"

/* One IPv4 /32 region of n keys sized for fpr by the model. */
static void make_view(struct bw_status_view *v, const char *iface, __u32 n,
		      double fpr)
{
	struct bw_region_row *r = &v->rows[0];
	__u8 probes;

	memset(v, 0, sizeof(*v));
	v->iface = iface;
	v->ifindex = 3;
	v->stats = (struct bw_stats){ .passed = 100,
				      .dropped_v4 = 7,
				      .dropped_v6 = 2,
				      .not_ip = 5,
				      .malformed = 1,
				      .allowed = 3 };
	v->info.generation = 4;
	v->info.entries = n;
	v->info.region_entries[0] = n;
	bw_info_set_fpr(&v->info, fpr);
	bw_size_region(n, fpr, &r->blocks, &probes);
	r->probes = probes;
	r->plen = 32;
	r->entries = n;
	r->fill = 0.25;
	r->fpr = 0.0009;
	v->nrows = 1;
	v->nblocks = BW_HDR_BLOCKS + r->blocks;
	v->fam_fpr[BW_V4] = 0.0009;
	v->fam_fpr[BW_V6] = -1;
	v->added_kept = 2;
	/* 3 + 1 of the drops are blocked queries. */
	v->dns_drops = (struct bw_dns_drops){ .dropped = { 3, 1 } };
	v->log_rate = 10;
	v->log_stats = (struct bw_log_stats){ .logged = 5,
					      .lost_rate = 20,
					      .lost_ring = 1 };
}

/* The exposition of v (free it); NULL, the test failed, without a stream. */
static char *render(const struct bw_status_view *v,
		    const struct bw_watch_counts *w)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!ASSERT_OK_PTR(f, "open_memstream"))
		return NULL;
	ASSERT_OK(bw_metrics_write(f, v, w), "bw_metrics_write");
	fclose(f);
	return buf;
}

/* Whether text has line as one of its lines. */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
		p += n;
	}
	return false;
}

#define ASSERT_LINE(text, line) ASSERT_TRUE(has_line(text, line), line)

BW_TEST(test_metrics_packets)
{
	struct bw_packet_series s[BW_PACKET_SERIES];
	struct bw_stats st = { .passed = 100,
			       .dropped_v4 = 7,
			       .dropped_v6 = 2,
			       .not_ip = 5,
			       .malformed = 1,
			       .allowed = 3,
			       .monitored = 4,
			       .false_pos = 6,
			       .no_filter = 8 };
	struct bw_dns_drops d = { .dropped = { 3, 2 } };
	__u64 sum = 0;
	int i;

	bw_packet_series(&st, &d, s);
	for (i = 0; i < BW_PACKET_SERIES; i++)
		sum += s[i].value;
	ASSERT_EQ_U64(sum, bw_stats_packets(&st), "series add up to packets");
	ASSERT_EQ_U64(s[0].value, 7 - 3, "address drops, IPv4");
	ASSERT_EQ_U64(s[1].value, 0, "address drops, IPv6");
	ASSERT_STREQ(s[2].reason, "dns", "series 2");
	ASSERT_EQ_U64(s[2].value, 3, "DNS drops, IPv4");
	ASSERT_EQ_U64(s[3].value, 2, "DNS drops, IPv6");
	ASSERT_EQ_U64(s[4].value, 100 - 5 - 1 - 3 - 4 - 6 - 8, "unlisted");
	ASSERT_STREQ(s[4].reason, "unlisted", "series 4");
	/* Without dns_drops (an older program) every drop is an address's. */
	bw_packet_series(&st, NULL, s);
	ASSERT_EQ_U64(s[0].value, 7, "no dns_drops: IPv4");
	ASSERT_EQ_U64(s[2].value, 0, "no dns_drops: no DNS drops");
	/* Read newer than the drops: never more DNS drops than drops. */
	d.dropped[BW_V6] = 5;
	bw_packet_series(&st, &d, s);
	ASSERT_EQ_U64(s[1].value, 0, "address IPv6 never negative");
	ASSERT_EQ_U64(s[3].value, 2, "DNS IPv6 at most the drops");
	/* A part read newer than passed: never below zero. */
	st.passed = 20;
	bw_packet_series(&st, &d, s);
	ASSERT_EQ_U64(s[4].value, 0, "unlisted never negative");
}

BW_TEST(test_metrics_lines)
{
	struct bw_status_view v;
	char *t;

	make_view(&v, "eth0", 10000, 0.001);
	t = render(&v, NULL);
	if (!t)
		return;
	ASSERT_LINE(t, "# TYPE bloomwall_packets_total counter");
	ASSERT_LINE(
		t,
		"bloomwall_packets_total{iface=\"eth0\",verdict=\"drop\",reason=\"address\",family=\"ipv4\"} 4");
	ASSERT_LINE(
		t,
		"bloomwall_packets_total{iface=\"eth0\",verdict=\"drop\",reason=\"address\",family=\"ipv6\"} 1");
	ASSERT_LINE(
		t,
		"bloomwall_packets_total{iface=\"eth0\",verdict=\"drop\",reason=\"dns\",family=\"ipv4\"} 3");
	ASSERT_LINE(
		t,
		"bloomwall_packets_total{iface=\"eth0\",verdict=\"drop\",reason=\"dns\",family=\"ipv6\"} 1");
	ASSERT_LINE(t, "# TYPE bloomwall_log_events_total counter");
	ASSERT_LINE(t, "bloomwall_log_rate{iface=\"eth0\"} 10");
	ASSERT_LINE(
		t,
		"bloomwall_log_events_total{iface=\"eth0\",result=\"logged\"} 5");
	ASSERT_LINE(
		t,
		"bloomwall_log_events_total{iface=\"eth0\",result=\"lost_rate\"} 20");
	ASSERT_LINE(
		t,
		"bloomwall_log_events_total{iface=\"eth0\",result=\"lost_ring\"} 1");
	ASSERT_LINE(
		t,
		"bloomwall_packets_total{iface=\"eth0\",verdict=\"pass\",reason=\"unlisted\"} 91");
	ASSERT_LINE(
		t,
		"bloomwall_packets_total{iface=\"eth0\",verdict=\"pass\",reason=\"allowlist\"} 3");
	ASSERT_LINE(t, "bloomwall_attached{iface=\"eth0\"} 1");
	ASSERT_LINE(t, "bloomwall_filter_generation{iface=\"eth0\"} 4");
	ASSERT_LINE(t, "bloomwall_filter_entries{iface=\"eth0\"} 10000");
	ASSERT_LINE(t, "bloomwall_filter_added_entries{iface=\"eth0\"} 2");
	ASSERT_LINE(t, "bloomwall_filter_target_fpr{iface=\"eth0\"} 0.001");
	ASSERT_LINE(
		t,
		"bloomwall_region_fill_ratio{iface=\"eth0\",family=\"ipv4\",prefix=\"32\"} 0.25");
	ASSERT_LINE(
		t,
		"bloomwall_region_estimated_fpr{iface=\"eth0\",family=\"ipv4\",prefix=\"32\"} 0.0009");
	ASSERT_LINE(
		t,
		"bloomwall_filter_estimated_fpr{iface=\"eth0\",family=\"ipv4\"} 0.0009");
	/* No IPv6 region: no IPv6 rate, rather than a made-up one. */
	ASSERT_FALSE(strstr(t, "family=\"ipv6\"} 0.0"), "no IPv6 estimate");
	ASSERT_FALSE(strstr(t, "bloomwall_watch_"), "no watch metrics");
	free(t);
}

BW_TEST(test_metrics_escape_and_absent)
{
	struct bw_status_view v;
	char *t;

	make_view(&v, "a\"b\\c", 100, 0.01);
	v.added_kept = -1; /* a malformed record area: unknown */
	t = render(&v, NULL);
	if (!t)
		return;
	ASSERT_LINE(t, "bloomwall_filter_generation{iface=\"a\\\"b\\\\c\"} 4");
	ASSERT_LINE(
		t, "bloomwall_filter_added_entries{iface=\"a\\\"b\\\\c\"} NaN");
	free(t);

	v.prog_err = v.stats_err = v.filter_err = -ENOENT;
	t = render(&v, NULL);
	if (!t)
		return;
	ASSERT_STREQ(
		t,
		"# HELP bloomwall_attached 1 if the interface's XDP hook runs bloomwall's program.\n"
		"# TYPE bloomwall_attached gauge\n"
		"bloomwall_attached{iface=\"a\\\"b\\\\c\"} 0\n",
		"not attached: that alone");
	free(t);
}

BW_TEST(test_metrics_watch)
{
	struct bw_watch_counts w = { .reloads_ok = 5,
				     .reloads_failed = 1,
				     .rebuilds_auto = 2,
				     .last_seconds = 0.125,
				     .last_time = 1700000000,
				     .last_ok = true,
				     .started = 1690000000,
				     .kept_gen = 7 };
	struct bw_status_view v;
	char *t;

	make_view(&v, "eth1", 1000, 0.001);
	t = render(&v, &w);
	if (!t)
		return;
	ASSERT_LINE(
		t,
		"bloomwall_watch_reloads_total{iface=\"eth1\",result=\"ok\"} 5");
	ASSERT_LINE(
		t,
		"bloomwall_watch_reloads_total{iface=\"eth1\",result=\"failed\"} 1");
	ASSERT_LINE(t, "bloomwall_watch_auto_rebuilds_total{iface=\"eth1\"} 2");
	ASSERT_LINE(
		t,
		"bloomwall_watch_last_reload_duration_seconds{iface=\"eth1\"} 0.125");
	ASSERT_LINE(
		t,
		"bloomwall_watch_last_reload_timestamp_seconds{iface=\"eth1\"} 1700000000");
	ASSERT_LINE(t, "bloomwall_watch_last_reload_success{iface=\"eth1\"} 1");
	ASSERT_LINE(t, "bloomwall_watch_filter_generation{iface=\"eth1\"} 7");
	free(t);
	/* Before the first reload: no duration to show. */
	w.last_seconds = -1;
	t = render(&v, &w);
	if (!t)
		return;
	ASSERT_FALSE(strstr(t, "last_reload"), "no last reload yet");
	free(t);
}

/* The watch's live entries (daemon/live.h): only when it says it has them. */
BW_TEST(test_metrics_live)
{
	struct bw_watch_counts w = { .last_seconds = -1,
				     .live = true,
				     .live_entries = 3,
				     .live_keys = 18,
				     .live_bytes = 4096,
				     .live_adds = 7,
				     .live_deletes = 4,
				     .live_expired = 2 };
	struct bw_status_view v;
	char *t;

	make_view(&v, "eth1", 1000, 0.001);
	t = render(&v, &w);
	if (!t)
		return;
	ASSERT_LINE(t, "bloomwall_live_entries{iface=\"eth1\"} 3");
	ASSERT_LINE(t, "bloomwall_live_keys{iface=\"eth1\"} 18");
	ASSERT_LINE(t, "bloomwall_live_memory_bytes{iface=\"eth1\"} 4096");
	ASSERT_LINE(
		t,
		"bloomwall_live_changes_total{iface=\"eth1\",kind=\"add\"} 7");
	ASSERT_LINE(
		t,
		"bloomwall_live_changes_total{iface=\"eth1\",kind=\"delete\"} 4");
	ASSERT_LINE(
		t,
		"bloomwall_live_changes_total{iface=\"eth1\",kind=\"expired\"} 2");
	free(t);
	w.live = false;
	t = render(&v, &w);
	if (!t)
		return;
	ASSERT_FALSE(strstr(t, "bloomwall_live_"), "no live lines without");
	free(t);
}

/*
 * A locale whose decimal point is ',': an installed one, or one made with
 * localedef into a temporary LOCPATH dir (no root needed).
 */
static bool comma_locale(char *dir)
{
	char cmd[256];

	if (setlocale(LC_NUMERIC, "de_DE.UTF-8"))
		return true;
	if (!mkdtemp(dir))
		return false;
	snprintf(cmd, sizeof(cmd),
		 "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1",
		 dir);
	if (system(cmd))
		return false;
	setenv("LOCPATH", dir, 1);
	return setlocale(LC_NUMERIC, "de_DE.UTF-8") &&
	       localeconv()->decimal_point[0] == ',';
}

/* The format's '.' under a locale whose decimal point is ','. */
BW_TEST(test_metrics_locale)
{
	char dir[] = "/tmp/bw-locale-XXXXXX", cmd[64];
	struct bw_status_view v;
	bool ok = comma_locale(dir);
	char *t = NULL;

	if (ok) {
		make_view(&v, "eth0", 1000, 0.001);
		t = render(&v, NULL);
	}
	setlocale(LC_NUMERIC, "C");
	unsetenv("LOCPATH");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (strcmp(dir, "/tmp/bw-locale-XXXXXX") && system(cmd))
		fprintf(stderr, "  cannot remove %s\n", dir);
	if (!ok) {
		TEST_SKIP("no locale with a decimal comma (localedef failed)");
		return;
	}
	if (!t) /* render failed the test */
		return;
	ASSERT_LINE(t, "bloomwall_filter_target_fpr{iface=\"eth0\"} 0.001");
	free(t);
}

/* Sized for n by the model: the entries the blocks hold at the target. */
BW_TEST(test_metrics_sized)
{
	struct bw_status_view v;
	double sized;

	make_view(&v, "eth0", 100000, 0.001);
	sized = bw_metrics_sized_entries(&v);
	ASSERT_GE(sized, 100000.0, "holds at least what it was sized for");
	ASSERT_LE(sized, 101000.0, "and about no more (whole blocks)");
	/* Adds raise the entries, not what it was sized for. */
	v.info.entries = v.rows[0].entries = 150000;
	ASSERT_TRUE(fabs(bw_metrics_sized_entries(&v) - sized) < 1.0,
		    "adds leave the sized entries");
	v.rows[0].entries = 0;
	ASSERT_TRUE(bw_metrics_sized_entries(&v) == 0.0, "no entries: 0");
	/* A filter whose build recorded its keys: exactly those. */
	v.have_sized = true;
	v.sized_entries = 100000;
	ASSERT_TRUE(bw_metrics_sized_entries(&v) == 100000.0,
		    "the recorded keys, not the model");
}

/* The running image's hash, signer, serial and time; none without one. */
BW_TEST(test_metrics_image)
{
	struct bw_status_view v;
	char *out;
	int i;

	make_view(&v, "eth0", 1000, 0.001);
	out = render(&v, NULL);
	if (out)
		ASSERT_TRUE(!strstr(out, "bloomwall_image_"),
			    "a filter from lists: no image metrics");
	free(out);
	v.have_image = true;
	v.image.serial = 1700000000;
	v.image.time_ns = 1700000001ULL * 1000000000ULL;
	v.image.flags = BW_REC_IMAGE_SIGNED | BW_REC_IMAGE_VERIFIED;
	for (i = 0; i < 8; i++)
		v.image.signer[i] = (__u8)(0x10 + i);
	for (i = 0; i < 16; i++)
		v.image_hash[i] = (__u8)i;
	out = render(&v, NULL);
	if (!out)
		return;
	ASSERT_LINE(
		out,
		"bloomwall_image_info{iface=\"eth0\",hash=\"000102030405060708090a0b0c0d0e0f\",signer=\"1011121314151617\",verified=\"1\"} 1");
	ASSERT_LINE(out, "bloomwall_image_serial{iface=\"eth0\"} 1700000000");
	ASSERT_LINE(out,
		    "bloomwall_image_time_seconds{iface=\"eth0\"} 1700000001");
	ASSERT_LINE(out, "# TYPE bloomwall_image_info gauge");
	free(out);
	v.image.flags = 0;
	out = render(&v, NULL);
	if (out)
		ASSERT_STRSTR(out, "signer=\"\",verified=\"0\"} 1",
			      "unsigned: an empty signer");
	free(out);
}

BW_TEST(test_metrics_file)
{
	char dir[] = "/tmp/bw-metrics-XXXXXX", path[64];
	char *want = NULL, *got = NULL;
	struct bw_status_view v;
	struct dirent *e;
	FILE *f;
	DIR *d;
	long n;
	int files = 0;

	if (!ASSERT_OK_PTR(mkdtemp(dir), "mkdtemp"))
		return;
	snprintf(path, sizeof(path), "%s/bloomwall.prom", dir);
	make_view(&v, "eth0", 1000, 0.001);
	if (!ASSERT_OK(bw_metrics_write_file(path, &v, NULL),
		       "write the file") ||
	    !ASSERT_OK(bw_metrics_write_file(path, &v, NULL), "and over it"))
		goto out;
	want = render(&v, NULL);
	if (!want)
		goto out;
	f = fopen(path, "r");
	if (!ASSERT_OK_PTR(f, "the file is there"))
		goto out;
	got = calloc(1, strlen(want) + 2);
	if (!ASSERT_OK_PTR(got, "a buffer for it")) {
		fclose(f);
		goto out;
	}
	n = (long)fread(got, 1, strlen(want) + 1, f);
	fclose(f);
	ASSERT_EQ(n, (long)strlen(want), "its size");
	ASSERT_STREQ(got, want, "its text");
	d = opendir(dir);
	if (!ASSERT_OK_PTR(d, "opendir"))
		goto out;
	while ((e = readdir(d)))
		files += e->d_name[0] != '.';
	rewinddir(d);
	while ((e = readdir(d)))
		ASSERT_FALSE(!strncmp(e->d_name, ".bloomwall.prom.", 16),
			     "no temporary file left");
	closedir(d);
	ASSERT_EQ(files, 1, "one file in the directory");
out:
	unlink(path);
	rmdir(dir);
	free(want);
	free(got);
}

/* A FIFO or a device node at the path is refused, and left as it was. */
BW_TEST(test_metrics_file_not_regular)
{
	char dir[] = "/tmp/bw-metrics-XXXXXX", path[64], *msg;
	struct bw_status_view v;
	struct bw_capture c;
	struct stat st;

	if (!ASSERT_OK_PTR(mkdtemp(dir), "mkdtemp"))
		return;
	make_view(&v, "eth0", 1000, 0.001);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	if (ASSERT_OK(mkfifo(path, 0600), "mkfifo")) {
		bw_capture_start(&c);
		ASSERT_EQ(bw_metrics_write_file(path, &v, NULL), -EEXIST,
			  "a FIFO");
		msg = bw_capture_end(&c);
		ASSERT_STRSTR(
			msg,
			"fifo: is a FIFO, not a regular file: refusing to replace it with the metrics file",
			"says so");
		free(msg);
		ASSERT_TRUE(!lstat(path, &st) && S_ISFIFO(st.st_mode),
			    "still a FIFO");
		unlink(path);
	}
	/* A node of our own, never the host's: needs root, else skipped. */
	snprintf(path, sizeof(path), "%s/null", dir);
	if (!mknod(path, S_IFCHR | 0666, makedev(1, 3))) {
		bw_capture_start(&c);
		ASSERT_EQ(bw_metrics_write_file(path, &v, NULL), -EEXIST,
			  "a device node");
		free(bw_capture_end(&c));
		ASSERT_TRUE(!lstat(path, &st) && S_ISCHR(st.st_mode),
			    "still the device node");
		unlink(path);
	}
	rmdir(dir);
}

static const char hostile_label[] =
	"ssh-bf\n2026 forged line\x1b[31m\\x\t\x7f\xc3\xa9";

/*
 * A Prometheus label: the format's own escapes for \\, " and newline, the
 * rest as the text \xHH (the backslash doubled), so that what scrapes it
 * reads printable ASCII and the same text status prints.
 */
BW_TEST(test_output_prom_label)
{
	char *s = NULL, *long_val;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	ASSERT_TRUE(f != NULL, "memstream");
	bw_prom_label(f, "list", hostile_label, true);
	bw_prom_label(f, "q", "say \"hi\"\\", false);
	fclose(f);
	ASSERT_STREQ(s,
		     "list=\"ssh-bf\\n2026 forged line\\\\x1b[31m\\\\x\\\\t"
		     "\\\\x7f\\\\xc3\\\\xa9\",q=\"say \\\"hi\\\"\\\\\"",
		     "format escapes kept, the rest as text");
	free(s);
	/* Longer than one pass of the escaper: nothing lost at the seams. */
	long_val = malloc(1001);
	ASSERT_TRUE(long_val != NULL, "malloc");
	memset(long_val, 'a', 1000);
	long_val[999] = '\x1b';
	long_val[1000] = '\0';
	f = open_memstream(&s, &n);
	ASSERT_TRUE(f != NULL, "memstream");
	bw_prom_label(f, "l", long_val, true);
	fclose(f);
	ASSERT_EQ(n, strlen("l=\"\"") + 999 + strlen("\\\\x1b"), "whole");
	free(s);
	free(long_val);
}
