// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The CrowdSec source's pieces that need no LAPI: the key file's checks
 * (daemon/crowdsec_key.c: mode, owner's check, kind, content), the metrics
 * it writes (out/cs_metrics.c: every series, label escaping, the pairs
 * past the first few), and the watch's CrowdSec options (cmd/cmd_watch.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/output.h"
#include "cmd/cli.h"
#include "cmd/cmd_watch.h"
#include "daemon/crowdsec_key.h"
#include "out/cs_metrics.h"
#include "test_helpers.h"

static char key_dir[64];

__attribute__((destructor)) static void key_cleanup(void)
{
	char cmd[128];

	if (!key_dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", key_dir);
	if (system(cmd))
		return;
}

/* A file of text with mode; its path (static). */
static const char *key_file(const char *name, const char *text, mode_t mode)
{
	static char path[128];
	FILE *f;

	if (!key_dir[0]) {
		snprintf(key_dir, sizeof(key_dir), "/tmp/bwkey.XXXXXX");
		if (!mkdtemp(key_dir))
			return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", key_dir, name);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
	return path;
}

/* bw_cs_key_read of a file: its result, the key, what was said. */
static int read_key(const char *path, char *key, char **said)
{
	struct bw_capture c;
	int err;

	bw_capture_start(&c);
	err = bw_cs_key_read(path, key, BW_CS_KEY_MAX + 1);
	*said = bw_capture_end(&c);
	return err;
}

BW_TEST(test_cs_key_file_checks)
{
	char key[BW_CS_KEY_MAX + 1], *said;
	const char *p;

	p = key_file("good", "2bd4f87a318665b09b92c8825429f005\n", 0600);
	if (!ASSERT_OK_PTR(p, "key file"))
		return;
	ASSERT_OK(read_key(p, key, &said), "0600, one line");
	ASSERT_STREQ(key, "2bd4f87a318665b09b92c8825429f005", "newline cut");
	free(said);
	p = key_file("ro", "abc\r\n", 0400);
	ASSERT_OK(read_key(p, key, &said), "0400, CR LF");
	ASSERT_STREQ(key, "abc", "CR LF cut");
	free(said);
	p = key_file("open", "abc\n", 0644);
	ASSERT_EQ(read_key(p, key, &said), -EPERM, "0644 refused");
	ASSERT_STRSTR(
		said,
		"the API key file is open to group or others (mode 0644): chmod 600 ",
		"says why");
	free(said);
	p = key_file("group", "abc\n", 0640);
	ASSERT_EQ(read_key(p, key, &said), -EPERM, "0640 refused");
	free(said);
	p = key_file("empty", "\n", 0600);
	ASSERT_EQ(read_key(p, key, &said), -EPERM, "empty refused");
	ASSERT_STRSTR(said, "it is empty", "says why");
	free(said);
	p = key_file("two", "abc\ndef\n", 0600);
	ASSERT_EQ(read_key(p, key, &said), -EPERM, "two lines refused");
	ASSERT_STRSTR(said, "more than one line", "says why");
	free(said);
	p = key_file("blank", "abc def\n", 0600);
	ASSERT_EQ(read_key(p, key, &said), -EPERM, "a blank refused");
	free(said);
	p = key_file("header", "abc\r\nX-Evil: 1\n", 0600);
	ASSERT_EQ(read_key(p, key, &said), -EPERM,
		  "a header injection refused");
	free(said);
	ASSERT_ERR(read_key(key_dir, key, &said), "a directory refused");
	free(said);
	ASSERT_ERR(read_key("/dev/null", key, &said), "a device refused");
	free(said);
}

BW_TEST(test_cs_metrics_series)
{
	struct bw_cs_metrics m = { .last_sync = 1796184289.5, .drift = 7 };
	char *buf = NULL, name[16];
	size_t len = 0;
	FILE *f;
	int i;

	bw_cs_metrics_count(&m, "cscli", "Ip");
	bw_cs_metrics_count(&m, "cscli", "Ip");
	bw_cs_metrics_count(&m, "we\"ird\\", "Range");
	for (i = 0; i < BW_CS_METRIC_PAIRS + 3; i++) {
		snprintf(name, sizeof(name), "o%d", i);
		bw_cs_metrics_count(&m, name, "Ip");
	}
	m.requests[BW_CS_FORBIDDEN] = 4;
	m.skipped[BW_CS_REFUSED_WIDE] = 2;
	f = open_memstream(&buf, &len);
	if (!ASSERT_OK_PTR(f, "memstream"))
		return;
	bw_cs_metrics_write(f, "eth0", &m);
	fclose(f);
	ASSERT_STRSTR(
		buf,
		"\nbloomwall_decisions{iface=\"eth0\",origin=\"cscli\",scope=\"Ip\"} 2\n",
		"a pair");
	ASSERT_STRSTR(buf, "origin=\"we\\\"ird\\\\\",scope=\"Range\"} 1\n",
		      "labels escaped");
	ASSERT_STRSTR(buf, "origin=\"other\",scope=\"other\"} 5\n",
		      "past the first pairs: other");
	ASSERT_STRSTR(
		buf,
		"bloomwall_lapi_requests_total{iface=\"eth0\",result=\"forbidden\"} 4\n",
		"requests by result");
	ASSERT_STRSTR(
		buf,
		"bloomwall_lapi_requests_total{iface=\"eth0\",result=\"ok\"} 0\n",
		"every result written");
	ASSERT_STRSTR(
		buf,
		"bloomwall_decisions_refused_total{iface=\"eth0\",reason=\"too_wide\"} 2\n",
		"refused by reason");
	ASSERT_STRSTR(
		buf,
		"bloomwall_lapi_last_sync_timestamp_seconds{iface=\"eth0\"} 1796184289.500\n",
		"last sync");
	ASSERT_STRSTR(
		buf,
		"bloomwall_decisions_resync_drift_total{iface=\"eth0\"} 7\n",
		"the resyncs' drift");
	ASSERT_STRSTR(buf, "# TYPE bloomwall_lapi_requests_total counter\n",
		      "types");
	free(buf);
}

/* "bloomwall watch --NAME ARG lo" parsed into a, as main() does. */
static int opt(struct bw_args *a, const char *name, const char *arg,
	       char **said)
{
	char *argv[] = { "watch", (char *)name, (char *)arg, "lo", NULL };
	struct bw_capture c;
	int err;

	a->pos = NULL;
	bw_capture_start(&c);
	err = bw_cli_parse(&bw_verb_watch, 4, argv, a);
	*said = bw_capture_end(&c);
	return err;
}

BW_TEST(test_cs_args)
{
	struct bw_args a = { 0 };
	const struct bw_cs_cfg *c;
	struct bw_capture cap;
	char *said;
	int err;

	ASSERT_OK(opt(&a, "--widest-range", "/12,/32", &said), "12,32");
	free(said);
	ASSERT_EQ(a.cs.cfg.filter.min_plen[0], 12, "IPv4");
	ASSERT_EQ(a.cs.cfg.filter.min_plen[1], 32, "IPv6");
	ASSERT_EQ(opt(&a, "--widest-range", "8", &said), -BW_EUSAGE, "one");
	ASSERT_STRSTR(said, "--widest-range takes LEN4,LEN6", "says why");
	free(said);
	ASSERT_EQ(opt(&a, "--widest-range", "0,19", &said), -BW_EUSAGE, "/0");
	free(said);
	ASSERT_EQ(opt(&a, "--widest-range", "8,129", &said), -BW_EUSAGE, "129");
	free(said);
	ASSERT_EQ(opt(&a, "--update-frequency", "0", &said), -BW_EUSAGE, "0 s");
	ASSERT_STRSTR(said, "--update-frequency takes seconds", "says why");
	free(said);
	ASSERT_OK(opt(&a, "--update-frequency", "2.5", &said), "2.5");
	free(said);
	ASSERT_FALSE(a.cs.cfg.resync.given,
		     "no --resync-interval: the default");
	ASSERT_EQ(opt(&a, "--resync-interval", "-1", &said), -BW_EUSAGE, "-1");
	ASSERT_STRSTR(said, "--resync-interval takes a duration", "says why");
	free(said);
	ASSERT_EQ(opt(&a, "--resync-interval", "10x", &said), -BW_EUSAGE,
		  "10x");
	free(said);
	ASSERT_OK(opt(&a, "--resync-interval", "0", &said), "0: never");
	free(said);
	ASSERT_TRUE(a.cs.cfg.resync.given && !a.cs.cfg.resync.secs, "0 given");
	ASSERT_OK(opt(&a, "--resync-interval", "1h30m", &said), "1h30m");
	free(said);
	ASSERT_EQ(a.cs.cfg.resync.secs, 5400, "1h30m in seconds");
	bw_capture_start(&cap);
	c = bw_cs_args_cfg(&a.cs, &err);
	said = bw_capture_end(&cap);
	ASSERT_TRUE(!c && err == -BW_EUSAGE, "options without --crowdsec");
	ASSERT_STRSTR(said, "need --crowdsec URL", "says why");
	free(said);
	ASSERT_OK(opt(&a, "--crowdsec", "http://127.0.0.1:8080", &said), "url");
	free(said);
	c = bw_cs_args_cfg(&a.cs, &err);
	ASSERT_TRUE(c && !err, "with --crowdsec");
	if (c)
		ASSERT_TRUE(c->update_frequency == 2.5, "kept");
}
