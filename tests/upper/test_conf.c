// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The config file's keys (user/cmd/conf*.c): a file's settings land in
 * the members the watch's options set, through the same parsers;
 * interfaces.IFACE over the top level, FILE.local over FILE, the command
 * line over both; errors said as FILE:LINE: key: what; and every watch
 * option has its key. No privileges: the files are the test's own.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/cmd_watch.h"
#include "cmd/conf.h"
#include "cmd/conf_keys.h"
#include "cmd/list_urls.h"
#include "daemon/watch_src.h"
#include "test_helpers.h"

static char dir[] = "/tmp/bwconf.XXXXXX";

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* The files the tests wrote, whichever test ran last. */
static void remove_dir(void)
{
	nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

static const char *write_file(const char *name, const char *text, int mode)
{
	static char path[2][256];
	static int i;
	char *p = path[i++ % 2];
	FILE *f;

	if ((!dir[12] || dir[12] == 'X') && mkdtemp(dir))
		atexit(remove_dir);
	snprintf(p, 256, "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(p, (mode_t)mode);
	return p;
}

struct run {
	struct bw_args a;
	char *argv[16];
	struct bw_conf *c;
	int ret;
	char *err;
};

/* watch lo ARGS --config path, then the file applied as do_watch does. */
static void run(struct run *r, const char *path, const char *const *args)
{
	struct bw_capture err;
	int argc = 0;

	memset(r, 0, sizeof(*r));
	r->a.mode = XDP_MODE_UNSPEC;
	r->argv[argc++] = "watch";
	r->argv[argc++] = "lo";
	while (*args)
		r->argv[argc++] = (char *)*args++;
	bw_capture_fd(&err, STDERR_FILENO);
	r->ret = bw_cli_parse(&bw_verb_watch, argc, r->argv, &r->a);
	if (!r->ret)
		r->ret = bw_conf_read(&bw_verb_watch, path, false, &r->c);
	if (!r->ret) {
		bw_conf_select(r->c, "lo");
		r->ret = bw_conf_apply(r->c, &bw_verb_watch, &r->a);
	}
	r->err = bw_capture_end(&err);
}

/*
 * config check's reading of path (every value through its parser): what
 * it printed on stderr (the caller frees it); its result in *ret.
 */
static char *check_said(const char *path, int *ret, struct bw_conf **c)
{
	struct bw_capture err;

	bw_capture_fd(&err, STDERR_FILENO);
	*ret = bw_conf_read(&bw_verb_watch, path, true, c);
	return bw_capture_end(&err);
}

static void run_free(struct run *r)
{
	bw_conf_free(r->c);
	free(r->err);
}

BW_TEST(test_conf_apply)
{
	const char *path = write_file("a.yaml",
				      "lists: [/l/one, /l/two]\n"
				      "fpr: 0.01\n"
				      "seed: 7\n"
				      "monitor: true\n"
				      "allow: [/a/1, /a/2]\n"
				      "api_url: http://127.0.0.1:8080\n"
				      "api_key: 0123abcd\n"
				      "update_frequency: 2m\n"
				      "origins: [crowdsec, cscli]\n"
				      "interval: 3\n"
				      "interfaces:\n"
				      "  lo:\n"
				      "    monitor: false\n"
				      "    interval: 4\n"
				      "  eth9:\n"
				      "    interval: 5\n",
				      0600);
	struct run r;

	run(&r, path, (const char *const[]){ "--config", path, NULL });
	ASSERT_OK(r.ret, "the file applies");
	ASSERT_STREQ(r.err, "", "nothing said");
	ASSERT_EQ(r.a.npos, 2, "the lists");
	ASSERT_STREQ(r.a.npos == 2 ? r.a.pos[1] : "", "/l/two", "list two");
	ASSERT_TRUE(r.a.build.fpr == 0.01 && r.a.build.fpr_set, "fpr");
	ASSERT_TRUE(r.a.build.seed == 7 && r.a.build.seed_set, "seed");
	ASSERT_FALSE(r.a.build.monitor, "interfaces.lo's monitor: false wins");
	ASSERT_TRUE(r.a.ops.interval == 4.0, "interfaces.lo's interval");
	ASSERT_EQ(r.a.build.nallow, 2, "allow: each item an --allow");
	ASSERT_STREQ(r.a.cs.cfg.url, "http://127.0.0.1:8080", "api_url");
	ASSERT_STREQ(r.a.cs.cfg.key, "0123abcd", "api_key");
	ASSERT_TRUE(r.a.cs.cfg.update_frequency == 120.0,
		    "update_frequency 2m, as cs-firewall-bouncer writes it");
	ASSERT_STREQ(r.a.cs.cfg.filter.origins, "crowdsec,cscli",
		     "origins: a list joined");
	run_free(&r);

	/* The command line wins, repeatable options and LISTs whole. */
	run(&r, path,
	    (const char *const[]){ "--fpr", "0.05", "--allow", "/a/cli",
				   "--config", path, "/l/cli", NULL });
	ASSERT_OK(r.ret, "the file under the command line");
	ASSERT_TRUE(r.a.build.fpr == 0.05, "--fpr wins");
	ASSERT_TRUE(r.a.build.seed == 7, "seed from the file");
	ASSERT_EQ(r.a.build.nallow, 1, "--allow wins whole");
	ASSERT_TRUE(r.a.npos == 1 && !strcmp(r.a.pos[0], "/l/cli"),
		    "the LISTs win whole");
	run_free(&r);

	/* A source on the command line wins over the file's lists. */
	run(&r, path,
	    (const char *const[]){ "--image", "/i.img", "--config", path,
				   NULL });
	ASSERT_OK(r.ret, "--image over the file's lists");
	ASSERT_TRUE(!r.a.npos && !strcmp(r.a.ops.image, "/i.img"),
		    "the image alone");
	run_free(&r);

	/* FILE.local over FILE, key by key. */
	write_file("a.yaml.local", "fpr: 0.02\napi_key: ffff0000\n", 0600);
	run(&r, path, (const char *const[]){ "--config", path, NULL });
	ASSERT_OK(r.ret, "with a .local");
	ASSERT_TRUE(r.a.build.fpr == 0.02, ".local's fpr");
	ASSERT_STREQ(r.a.cs.cfg.key, "ffff0000", ".local's api_key");
	ASSERT_TRUE(r.a.build.seed == 7, "FILE's seed stays");
	run_free(&r);
	unlink(write_file("a.yaml.local", "", 0600));
	unlink(path);
}

BW_TEST(test_conf_errors)
{
	const char *path = write_file("b.yaml",
				      "fpx: 1\n"
				      "fpr: 2\n"
				      "lists: {a: b}\n"
				      "monitor: maybe\n"
				      "interfaces:\n"
				      "  lo:\n"
				      "    interval: -1\n",
				      0600);
	char want[2048];
	struct run r;

	run(&r, path, (const char *const[]){ "--config", path, NULL });
	ASSERT_ERR(r.ret, "refused");
	snprintf(
		want, sizeof(want),
		"bloomwall %s:1: fpx: unknown key (fpr?)\n"
		"bloomwall %s:3: lists: takes a list or a value, not a mapping\n"
		"bloomwall %s:4: monitor: takes true or false, not 'maybe'\n",
		path, path, path);
	ASSERT_STREQ(r.err, want, "watch: the types, each error");
	run_free(&r);

	/* config check: the values through their parsers too. */
	{
		struct bw_conf *c;
		char *said;
		int ret;

		said = check_said(path, &ret, &c);
		ASSERT_ERR(ret, "check refuses");
		snprintf(
			want, sizeof(want),
			"bloomwall %s:1: fpx: unknown key (fpr?)\n"
			"bloomwall %s:2: fpr: --fpr takes a false-positive rate between 0 and 0.5 exclusive (e.g. 0.001 or 0.1%%), not '2'\n"
			"bloomwall %s:3: lists: takes a list or a value, not a mapping\n"
			"bloomwall %s:4: monitor: takes true or false, not 'maybe'\n"
			"bloomwall %s:7: interfaces.lo.interval: --interval takes seconds from 0.01 to 86400, not '-1'\n",
			path, path, path, path, path);
		ASSERT_STREQ(said, want, "check: every error, with its line");
		free(said);
		bw_conf_free(c);
	}
	unlink(path);

	/* api_key in a file others can read. */
	path = write_file("c.yaml", "api_key: 0123abcd\n", 0644);
	run(&r, path, (const char *const[]){ "--config", path, NULL });
	ASSERT_ERR(r.ret, "a key readable by others");
	ASSERT_STRSTR(r.err, "open to group or others (mode 0644): chmod 600",
		      "says the fix");
	run_free(&r);
	unlink(path);
	rmdir(dir);
}

/*
 * The watch's sources from r's settings, as the watch makes them: 0 or
 * -errno (r's own first). What they said on standard output goes to
 * *said, for the caller to free, or is dropped with said NULL.
 */
static int watch_sources(struct run *r, struct bw_wsrc *w, char **said)
{
	const struct bw_wsrc_cfg *cfg;
	struct bw_capture cap;
	char *out;
	int err;

	bw_capture_fd(&cap, STDOUT_FILENO);
	err = r->ret ?: bw_list_urls_watch(&r->a, &cfg);
	err = err ?: bw_wsrc_init(w, cfg, "lo");
	out = bw_capture_end(&cap);
	if (said)
		*said = out;
	else
		free(out);
	return err;
}

/* What SIGHUP's bw_wsrc_now() says, for the caller to free. */
static char *now_said(struct bw_wsrc *w)
{
	struct bw_capture cap;

	bw_capture_fd(&cap, STDOUT_FILENO);
	bw_wsrc_now(w);
	return bw_capture_end(&cap);
}

/* lists: items as mappings, a source's own settings through the options'
 * parsers, into the watch's sources, each over the watch's value. */
BW_TEST(test_conf_list_sources)
{
	const char *path = write_file(
		"s.yaml",
		"lists:\n"
		"  - /l/local.txt\n"
		"  - url: https://lists.example/a.json\n"
		"    refresh: 12h\n"
		"    max_age: 2d\n"
		"  - url: https://www.spamhaus.org/drop/drop_v4.json\n"
		"    refresh: 30m\n"
		"    force_refresh: true\n"
		"  - path: /l/two.txt\n"
		"  - https://lists.example/b.txt\n"
		"refresh: 2h\n",
		0600);
	char state[300], *said;
	struct bw_wsrc w;
	struct run r;
	int err;

	run(&r, path, (const char *const[]){ "--config", path, NULL });
	ASSERT_OK(r.ret, "the file applies");
	ASSERT_STREQ(r.err, "", "nothing said");
	ASSERT_EQ(r.a.npos, 5, "five lists");
	if (r.a.npos != 5 || !ASSERT_OK_PTR(r.a.pos_set, "their settings")) {
		run_free(&r);
		return;
	}
	ASSERT_STREQ(r.a.pos[1], "https://lists.example/a.json", "url");
	ASSERT_STREQ(r.a.pos[3], "/l/two.txt", "path");
	ASSERT_TRUE(r.a.pos_set[1].refresh == 43200.0, "refresh 12h");
	ASSERT_TRUE(r.a.pos_set[1].max_age == 172800.0, "max_age 2d");
	ASSERT_FALSE(r.a.pos_set[1].force_set, "no force_refresh of its own");
	ASSERT_TRUE(r.a.pos_set[2].refresh == 1800.0, "refresh 30m");
	ASSERT_TRUE(r.a.pos_set[2].force_set && r.a.pos_set[2].force_refresh,
		    "force_refresh");
	ASSERT_TRUE(!r.a.pos_set[4].refresh && !r.a.pos_set[4].max_age,
		    "a URL as a string: the watch's");
	ASSERT_TRUE(r.a.src.refresh == 7200.0, "the top level's refresh");

	/* Into the watch: each source its own interval, else the watch's;
	 * Spamhaus' at least hourly unless its own force_refresh. */
	snprintf(state, sizeof(state), "%s/state", dir);
	r.a.pull.state_dir = state;
	err = watch_sources(&r, &w, NULL);
	ASSERT_OK(err, "the watch's sources");
	if (!err && ASSERT_EQ(w.n, 3, "three URLs")) {
		ASSERT_TRUE(w.s[0].interval == 43200.0, "a: its 12h");
		ASSERT_TRUE(w.fig[0].max_age == 172800.0, "a: its 2d");
		ASSERT_TRUE(w.fig[0].refresh == 43200.0, "a: status's figure");
		ASSERT_TRUE(w.s[1].interval == 1800.0,
			    "Spamhaus, forced: its 30m");
		ASSERT_TRUE(w.s[2].interval == 7200.0, "b: the watch's 2h");
		ASSERT_TRUE(w.fig[2].max_age == 3 * 7200.0,
			    "b: 3 of its refreshes");
		bw_wsrc_free(&w);
	}
	run_free(&r);

	/* Without force_refresh, Spamhaus' source is hourly at the least. */
	path = write_file(
		"t.yaml",
		"lists:\n"
		"  - url: https://www.spamhaus.org/drop/drop_v6.json\n"
		"    refresh: 2s\n"
		"force_refresh: true\n",
		0600);
	run(&r, path, (const char *const[]){ "--config", path, NULL });
	ASSERT_OK(r.ret, "the file applies");
	err = watch_sources(&r, &w, NULL);
	ASSERT_OK(err, "the watch's sources");
	if (!err) {
		ASSERT_TRUE(w.s[0].interval == 2.0,
			    "the top level's force_refresh");
		bw_wsrc_free(&w);
	}
	run_free(&r);
	path = write_file(
		"t.yaml",
		"lists:\n"
		"  - url: https://www.spamhaus.org/drop/drop_v6.json\n"
		"    refresh: 2s\n"
		"    force_refresh: false\n"
		"force_refresh: true\n",
		0600);
	run(&r, path, (const char *const[]){ "--config", path, NULL });
	err = watch_sources(&r, &w, &said);
	ASSERT_STRSTR(said ?: "", "fetched every hour, not every 2 s", "said");
	free(said);
	ASSERT_OK(err, "the watch's sources");
	if (!err) {
		ASSERT_TRUE(
			w.s[0].interval == 3600.0,
			"its own force_refresh: false over the top level's");
		/* SIGHUP: not again within the hour of its last answer. */
		w.fig[0].checked = time(NULL) - 60;
		said = now_said(&w);
		ASSERT_STRSTR(said ?: "",
			      "SIGHUP: not fetched again within the hour",
			      "SIGHUP holds Spamhaus' hour");
		free(said);
		w.fig[0].checked = time(NULL) - 3601;
		said = now_said(&w);
		ASSERT_STRSTR(said ?: "", "SIGHUP: fetched now",
			      "an hour on: SIGHUP fetches");
		free(said);
		bw_wsrc_free(&w);
	}
	run_free(&r);
}

/* A source's mapping refused, each error with its line. */
BW_TEST(test_conf_list_errors)
{
	const char *path = write_file("e.yaml",
				      "lists:\n"
				      "  - url: https://lists.example/a.txt\n"
				      "    refreshh: 1h\n"
				      "  - url: https://lists.example/b.txt\n"
				      "    refresh: 5x\n"
				      "  - path: /l/one.txt\n"
				      "    refresh: 1h\n"
				      "  - url: /l/two.txt\n"
				      "  - path: https://lists.example/c.txt\n"
				      "  - refresh: 1h\n"
				      "  - url: https://lists.example/d.txt\n"
				      "    fpr: 0.1\n"
				      "  - url: https://lists.example/e.txt\n"
				      "    path: /l/e.txt\n"
				      "  - [/l/x.txt]\n"
				      "  - url: https://lists.example/f.txt\n"
				      "    max_age: 0\n"
				      "    force_refresh: maybe\n",
				      0600);
	char want[4096];
	struct bw_conf *c;
	char *said;
	int ret;

	said = check_said(path, &ret, &c);
	ASSERT_ERR(ret, "check refuses");
	snprintf(
		want, sizeof(want),
		"bloomwall %1$s:3: lists.refreshh: unknown key (refresh?)\n"
		"bloomwall %1$s:5: lists.refresh: --refresh takes a duration up to 3650d, not 0: seconds, or numbers with units s, m, h, d, w (90s, 5m, 4h, 7d, 1h30m), not '5x'\n"
		"bloomwall %1$s:7: lists.refresh: goes with url: a file is read again whenever it changes\n"
		"bloomwall %1$s:8: lists.url: takes an http:// or https:// URL, not '/l/two.txt' (a file goes under path)\n"
		"bloomwall %1$s:9: lists.path: 'https://lists.example/c.txt' is a URL: give it as url\n"
		"bloomwall %1$s:10: lists: a source's mapping takes url: URL (or path: FILE)\n"
		"bloomwall %1$s:12: lists.fpr: not a setting of one source: give it at the top level (or under interfaces)\n"
		"bloomwall %1$s:13: lists: a source is a url or a path, not both\n"
		"bloomwall %1$s:15: lists: takes a list of files and URLs (or mappings, one a source), not of lists\n"
		"bloomwall %1$s:17: lists.max_age: --max-age takes a duration up to 3650d, not 0: seconds, or numbers with units s, m, h, d, w (90s, 5m, 4h, 7d, 1h30m), not '0'\n"
		"bloomwall %1$s:18: lists.force_refresh: takes true or false, not 'maybe'\n",
		path);
	ASSERT_STREQ(said, want, "check: every error, with its line");
	free(said);
	bw_conf_free(c);

	/* A key given twice in one source. */
	path = write_file("f.yaml",
			  "lists:\n"
			  "  - url: https://lists.example/a.txt\n"
			  "    refresh: 1h\n"
			  "    refresh: 2h\n",
			  0600);
	said = check_said(path, &ret, &c);
	ASSERT_ERR(ret, "refused");
	snprintf(want, sizeof(want), "bloomwall %s:4: refresh: given twice\n",
		 path);
	ASSERT_STREQ(said, want, "the second refresh, its line");
	free(said);
	bw_conf_free(c);
}

/* Every option of watch has its key, but those a file has no use for. */
BW_TEST(test_conf_every_option)
{
	static const char *const none[] = {
		"help",	  "verbose",	   "json",
		"config", "no-subdomains", BW_CONF_METRICS_OPT,
	};
	const struct bw_opt *const *t;
	const struct bw_conf_key *k;
	const struct bw_opt *o;
	bool found;
	size_t i;

	for (t = bw_verb_watch.opts; *t; t++) {
		for (o = *t; o->name; o++) {
			found = false;
			for (i = 0; i < sizeof(none) / sizeof(none[0]); i++)
				found |= !strcmp(o->name, none[i]);
			for (k = bw_conf_keys; k->key; k++)
				found |= k->opt && !strcmp(k->opt, o->name);
			ASSERT_TRUE(found, o->name);
		}
	}
	for (k = bw_conf_keys; k->key; k++)
		ASSERT_TRUE(!k->opt || bw_cli_find_opt(&bw_verb_watch, k->opt),
			    k->key);
}

/* The reference, bloomwall.yaml(5), has an entry for every key. */
BW_TEST(test_conf_man_page)
{
	const struct bw_conf_key *k;
	char entry[96], *text = NULL, *p;
	size_t len = 0;
	FILE *f = fopen("user/bloomwall.yaml.5", "r");

	if (!ASSERT_OK_PTR(f, "user/bloomwall.yaml.5 (run from the top)"))
		return;
	if (getdelim(&text, &len, '\0', f) < 0)
		text = NULL;
	fclose(f);
	for (k = bw_conf_keys; text && k->key; k++) {
		/* ".B key" with roff's \- for each '-'. */
		snprintf(entry, sizeof(entry), "\n.B %s\n", k->key);
		for (p = entry; *p; p++)
			if (*p == '-')
				ASSERT_TRUE(false, "no '-' in a key");
		ASSERT_TRUE(strstr(text, entry), k->key);
	}
	free(text);
}
