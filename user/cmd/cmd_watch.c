// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall watch IFACE [OPTIONS] LIST... | watch IFACE --image FILE: the
 * daemon that keeps IFACE's filter built from files that change (watch.h).
 * Its options: --url's (an image pulled, daemon/pull.h), --crowdsec's (a
 * CrowdSec bouncer, daemon/crowdsec.h), then the watch's own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/list_urls.h"
#include "cmd/cmd_watch.h"
#include "cmd/conf.h"
#include "base/duration.h"
#include "base/log.h"
#include "base/output.h"
#include "daemon/watch.h"
#include "cmd/sign_args.h"
#include "image/sign_key.h"
#include "net/http_serve.h"

/* --url URL, in order, up to BW_PULL_MAX_URLS (struct bw_pull_cfg). */
static int add_url(const struct bw_opt_val *o, void *field)
{
	struct bw_pull_cfg *c = field;

	if (c->nurls == BW_PULL_MAX_URLS) {
		pr_warn("bloomwall %s: at most %d --url\n", o->verb,
			BW_PULL_MAX_URLS);
		return -BW_EUSAGE;
	}
	c->urls[c->nurls++] = o->arg;
	return 0;
}

/* watch --url's options (daemon/pull.h). */
static const struct bw_opt pull_opts[] = {
	BW_OPT("url", "URL", pull, add_url,
	       "pull the image from URL (http/https; again: mirrors, tried in order)"),
	BW_OPT("ca-file", "FILE", pull.ca_file, bw_parse_str,
	       "trust the CAs in FILE (PEM) for https, not the system's"),
	BW_OPT("client-cert", "FILE", pull.cert_file, bw_parse_str,
	       "present the TLS client certificate in FILE (PEM)"),
	BW_OPT("client-key", "FILE", pull.key_file, bw_parse_str,
	       "its private key (default: in --client-cert's file)"),
	BW_OPT("connect-timeout", "SECS", pull.connect_timeout,
	       bw_parse_seconds, "give up connecting after SECS (default 10)",
	       .min = 0.1),
	BW_OPT("timeout", "SECS", pull.timeout, bw_parse_seconds,
	       "give up a whole pull of one URL after SECS (default 60)",
	       .min = 0.1),
	BW_OPT("state-dir", "DIR", pull.state_dir, bw_parse_str,
	       "keep the downloads and the last good image in DIR/IFACE (default " BW_PULL_STATE_DIR
	       ")"),
	{ 0 },
};

/* A prefix length 1..max ("8" or "/8") from s, len bytes. */
static int one_plen(const char *s, size_t len, unsigned int max,
		    unsigned int *v)
{
	unsigned int n = 0;
	size_t i = 0;

	if (len && s[0] == '/')
		i++;
	if (i == len || len - i > 3)
		return -1;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		n = n * 10 + (unsigned int)(s[i] - '0');
	}
	if (n < 1 || n > max)
		return -1;
	*v = n;
	return 0;
}

/* --widest-range LEN4,LEN6 ("8,19", "/8,/19"): unsigned int[2]. */
static int widest(const struct bw_opt_val *o, void *field)
{
	const char *s = o->arg, *comma = strchr(s, ',');
	unsigned int *v = field;

	if (!comma || one_plen(s, (size_t)(comma - s), 32, &v[0]) ||
	    one_plen(comma + 1, strlen(comma + 1), 128, &v[1])) {
		pr_warn("bloomwall %s: --widest-range takes LEN4,LEN6: the widest IPv4 range (1-32) and IPv6 range (1-128) taken, as 8,19; not '%s'\n",
			o->verb, s);
		return -BW_EUSAGE;
	}
	return 0;
}

/* --resync-interval DURATION: struct bw_cs_resync (0: never). */
static int resync(const struct bw_opt_val *o, void *field)
{
	struct bw_cs_resync *r = field;

	if (bw_parse_duration(o->arg, &r->secs)) {
		pr_warn("bloomwall %s: --resync-interval takes a duration up to 3650d: seconds, or numbers with units s, m, h, d, w (10m, 1h; 0: never), not '%s'\n",
			o->verb, o->arg);
		return -BW_EUSAGE;
	}
	r->given = true;
	return 0;
}

/* Each sets cs.any too: bw_cs_args_cfg() asks for --crowdsec then. */
#define CS_OPT(name, metavar, member, parse, help, ...)   \
	BW_OPT(name, metavar, cs.cfg.member, parse, help, \
	       .set = BW_FIELD(cs.any), __VA_ARGS__)

/* A CrowdSec decision source (daemon/crowdsec.h, doc/crowdsec.md). */
static const struct bw_opt cs_opts[] = {
	CS_OPT("crowdsec", "URL", url, bw_parse_str,
	       "enforce the decisions of the CrowdSec local API at URL (a bouncer)"),
	CS_OPT("crowdsec-key-file", "FILE", key_file, bw_parse_str,
	       "the bouncer's API key ('cscli bouncers add'), in FILE (0600, root's)"),
	CS_OPT("crowdsec-cert", "FILE", cert_file, bw_parse_str,
	       "a TLS client certificate (PEM) instead of a key (https:// only)"),
	CS_OPT("crowdsec-cert-key", "FILE", cert_key_file, bw_parse_str,
	       "its private key, when not in the --crowdsec-cert FILE"),
	CS_OPT("crowdsec-ca", "FILE", ca_file, bw_parse_str,
	       "CA certificates for the LAPI's (default: the system's)"),
	CS_OPT("crowdsec-timeout", "SECS", timeout, bw_parse_seconds,
	       "give up a request to the LAPI after SECS (default 60)",
	       .min = 0.1),
	CS_OPT("update-frequency", "SECS", update_frequency, bw_parse_seconds,
	       "ask the LAPI for new and deleted decisions every SECS (default 10)",
	       .min = 0.1),
	CS_OPT("resync-interval", "DURATION", resync, resync,
	       "a full answer every DURATION, what updates missed put right (default 10m; 0: never)"),
	CS_OPT("decision-types", "LIST", filter.types, bw_parse_str,
	       "decision types to enforce, comma-separated (default: ban)"),
	CS_OPT("origins", "LIST", filter.origins, bw_parse_str,
	       "only decisions of these origins (crowdsec,cscli,CAPI,lists...)"),
	CS_OPT("scenarios-containing", "LIST", filter.scenarios_containing,
	       bw_parse_str,
	       "only decisions whose scenario contains one of these words"),
	CS_OPT("scenarios-not-containing", "LIST",
	       filter.scenarios_not_containing, bw_parse_str,
	       "no decision whose scenario contains one of these words"),
	CS_OPT("widest-range", "LEN4,LEN6", filter.min_plen, widest,
	       "refuse range decisions wider than /LEN4 (IPv4), /LEN6 (default 8,19)"),
	{ 0 },
};

const struct bw_cs_cfg *bw_cs_args_cfg(const struct bw_cs_args *a, int *err)
{
	*err = 0;
	if (a->cfg.url)
		return &a->cfg;
	if (a->any) {
		pr_warn("bloomwall watch: the CrowdSec options need --crowdsec URL\n");
		*err = -BW_EUSAGE;
	}
	return NULL;
}

/* --metrics-listen ADDR:PORT: refused here, before anything runs. */
static int listen_addr(const struct bw_opt_val *o, void *field)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char why[120];

	if (bw_listen_addr_parse(o->arg, &ss, &len, why, sizeof(why))) {
		pr_warn("bloomwall %s: --metrics-listen '%s': %s; give ADDR:PORT, e.g. 127.0.0.1:60607 or [::1]:60607\n",
			o->verb, o->arg, why);
		return -BW_EUSAGE;
	}
	*(const char **)field = o->arg;
	return 0;
}

static const struct bw_opt watch_only_opts[] = {
	BW_OPT("config", "FILE", config, bw_parse_str,
	       "the settings from FILE (YAML, bloomwall.yaml(5)) and FILE.local; the command line wins"),
	BW_OPT("image", "FILE", ops.image, bw_parse_str,
	       "swap in the image FILE ('bloomwall build') whenever it changes"),
	BW_OPT("detach-on-exit", NULL, ops.detach_on_exit, bw_parse_flag,
	       "detach the filter on SIGTERM/SIGINT (default: leave it attached)"),
	BW_OPT("metrics-file", "PATH", ops.metrics_file, bw_parse_str,
	       "keep Prometheus metrics in PATH (node_exporter textfile collector)"),
	BW_OPT("metrics-listen", "ADDR:PORT", ops.metrics_listen, listen_addr,
	       "serve the same metrics at http://ADDR:PORT/metrics (e.g. 127.0.0.1:60607)"),
	BW_OPT("interval", "SECS", ops.interval, bw_parse_seconds,
	       "check the running filter, write the metrics every SECS (default 10)",
	       .min = 0.01),
	BW_OPT("debounce", "SECS", ops.debounce, bw_parse_seconds,
	       "wait for SECS without file events before a rebuild (default 0.5)",
	       .set = BW_FIELD(ops.debounce_set)),
	BW_OPT("allow-shrink", NULL, ops.allow_shrink, bw_parse_flag,
	       "swap in lists that shrank to under half at once (a cut download?)"),
	BW_OPT("mode", "MODE", mode, bw_parse_mode,
	       "native, skb or auto (default), when watch attaches",
	       .letter = 'm'),
	BW_OPT("link", NULL, link, bw_parse_flag,
	       "attach with a bpf_link of bloomwall's own, when watch attaches"),
	BW_OPT("egress", NULL, egress, bw_parse_flag,
	       "the TC egress program too (put on when missing)"),
	{ 0 },
};

static const struct bw_opt *const watch_opts[] = {
	watch_only_opts,	cs_opts,       pull_opts,
	bw_verify_load_opts,	bw_build_opts, bw_log_opts,
	bw_list_url_watch_opts, NULL
};

/* The keys an image must be signed by: read once, at the start. */
static int watch_keys(const struct bw_args *a, struct bw_verify_keys *keys)
{
	keys->n = 0;
	if (a->npos && (a->sign.verify_key || a->sign.allow_rollback)) {
		pr_warn("bloomwall watch: --verify-key and --allow-rollback check images: they go with --image, not with LIST files\n");
		return -BW_EUSAGE;
	}
	if (a->npos)
		return 0;
	return bw_verify_keys_resolve(a->sign.verify_key, BW_VERIFY_KEY_DEFAULT,
				      keys);
}

/*
 * --config FILE: the file's settings for a->iface under the command
 * line's. The config lives as long as the watch: a takes its strings.
 */
static int watch_config(struct bw_args *a, struct bw_conf **conf)
{
	const char *env = getenv("BLOOMWALL_ARGS");
	int err;

	if (env && *env)
		pr_warn("bloomwall watch: BLOOMWALL_ARGS (the unit's environment file) is deprecated and goes in the next release: put these settings in /etc/bloomwall/bloomwall.yaml (bloomwall.yaml(5)), the unit's --config\n");
	if (!a->config)
		return 0;
	err = bw_conf_read(&bw_verb_watch, a->config, false, conf);
	if (err || !*conf)
		return err ?: -ENOMEM;
	bw_conf_select(*conf, a->iface);
	return bw_conf_apply(*conf, &bw_verb_watch, a);
}

static int run_watch(struct bw_args *a)
{
	static struct bw_verify_keys keys;
	struct bw_watch_cfg cfg = { 0 };
	const struct bw_cs_cfg *cs;
	int err;

	cs = bw_cs_args_cfg(&a->cs, &err);
	if (err)
		return err;
	/* Its exact trie is the lists': a decision would never be confirmed. */
	if (cs && a->build.verify) {
		pr_warn("bloomwall watch: --verify confirms a hit in an exact trie of the lists' entries, which the CrowdSec decisions are not in: they would never drop; run the bouncer without --verify\n");
		return -BW_EUSAGE;
	}
	if (!!a->ops.image + !!a->npos + !!a->pull.nurls != 1) {
		pr_warn("bloomwall watch: give LIST files, --image FILE or --url URL (one of the three)\n");
		return -BW_EUSAGE;
	}
	if (!a->pull.nurls && !bw_list_urls_any(a) &&
	    (a->pull.ca_file || a->pull.cert_file || a->pull.key_file ||
	     a->pull.connect_timeout || a->pull.timeout || a->pull.state_dir)) {
		pr_warn("bloomwall watch: --ca-file, --client-cert, --client-key, --connect-timeout, --timeout and --state-dir go with --url (or LISTs by URL)\n");
		return -BW_EUSAGE;
	}
	err = bw_check_privileges("watch");
	err = err ?: watch_keys(a, &keys);
	err = err ?: bw_list_urls_watch(a, &cfg.src);
	if (err)
		return err;
	cfg = (struct bw_watch_cfg){
		.iface = a->iface,
		.lists = (const char *const *)a->pos,
		.nlists = a->npos,
		.image = a->ops.image,
		.build = &a->build,
		.mode = a->mode,
		.own_link = a->link,
		.egress = a->egress,
		.interval = a->ops.interval,
		.debounce = a->ops.debounce_set ? a->ops.debounce
						: BW_WATCH_DEBOUNCE,
		.metrics_file = a->ops.metrics_file,
		.metrics_listen = a->ops.metrics_listen,
		.detach_on_exit = a->ops.detach_on_exit,
		.json = bw_out_is_json(),
		.allow_shrink = a->ops.allow_shrink,
		.pull = a->pull.nurls ? &a->pull : NULL,
		.keys = &keys,
		.allow_rollback = a->sign.allow_rollback,
		.crowdsec = cs,
		.src = a->src.n ? &a->src : NULL,
	};
	a->pull.interval = a->ops.interval;
	return bw_watch_run(&cfg);
}

static int do_watch(struct bw_args *a)
{
	struct bw_conf *conf = NULL;
	int err;

	err = watch_config(a, &conf);
	err = err ?: run_watch(a);
	bw_conf_free(conf);
	return err;
}

const struct bw_verb bw_verb_watch = {
	.name = "watch",
	.summary =
		"keep IFACE's filter built from LIST files or an image as they change",
	.synopsis =
		"IFACE [OPTIONS] LIST...  |  IFACE [OPTIONS] --image FILE  |  "
		"IFACE [OPTIONS] --url URL...",
	.details =
		"Stays in the foreground (a systemd unit's ExecStart, see bloomwall@.service).\n"
		"At start the filter is built from the files (attached if IFACE runs none).\n"
		"Then inotify on the files' directories: a write in place, an editor's or\n"
		"rsync's rename into place, a Kubernetes volume's ..data swap; after\n"
		"--debounce SECS without events, files whose device, inode, size or times\n"
		"changed rebuild the filter through reload's path (the lock only for the\n"
		"swap; entries from 'bloomwall add' kept), or swap the image in as 'load'\n"
		"does. A file still being written (curl -o, wget -O) is read once its\n"
		"writer closes it, and one that changed while it was read is read again;\n"
		"lists that shrank to under half of the running filter's keys are kept\n"
		"out until they stay the same for 3 checks (--interval), or at once with\n"
		"--allow-shrink. A directory that goes away is watched again when it is\n"
		"back. One watch an interface (a second is refused), and a rebuild runs\n"
		"in a child, so SIGTERM ends the watch at once whatever a list does.\n"
		"A bad file leaves the last good filter running and says so; it is\n"
		"tried again when it changes. One line per rebuild: generation, entries,\n"
		"bytes, seconds, and the trigger (with --json one object a line). Every\n"
		"--interval SECS the running filter is read: runtime adds that pushed a\n"
		"family's estimated rate past twice the target rebuild it from the lists\n"
		"(with --image: said, not rebuilt); --metrics-file PATH is rewritten\n"
		"atomically then and after each rebuild. With --verify-key PUBLIC (or when\n"
		"/etc/bloomwall/verify.pub is there) an image must be signed by one of its\n"
		"keys; one with a lower serial than the running filter's is refused as a\n"
		"rollback unless --allow-rollback: the filter that runs stays. SIGHUP\n"
		"rebuilds; SIGTERM and\n"
		"SIGINT end it, the filter left attached unless --detach-on-exit.\n"
		"With --crowdsec URL the watch is also a bouncer of CrowdSec's local API:\n"
		"it asks URL/v1/decisions/stream?startup=true at start, then the new and\n"
		"deleted decisions every --update-frequency SECS, and sets the Ip and\n"
		"Range bans in the running filter in place (on top of the lists or the\n"
		"image; the allowlist still wins), each until its last decision is\n"
		"deleted or ends by the watch's own clock. A failed poll leaves the\n"
		"filter as it is, is said and counted, and the next (after a backoff)\n"
		"is a full one, as is one every --resync-interval (default 10m), which\n"
		"puts in or takes out what the updates missed (the drift, counted).\n"
		"Ranges wider than --widest-range (/8, /19) are refused.\n"
		"'status' shows the source, 'query --why' the decisions on an address.\n"
		"With --url the image is pulled over HTTP(S) every --interval SECS\n"
		"(default 60, each wait +-10%; at once at start when nothing runs), the\n"
		"URLs in order (mirrors), with If-None-Match / If-Modified-Since: 304\n"
		"changes nothing. The download goes to --state-dir/IFACE/pull.tmp,\n"
		"checked as it comes and fsync'd, then swapped in as --image does\n"
		"(--verify-key, the rollback rule); once in it is current.img there, the\n"
		"last good image, swapped in at start if nothing runs. A timeout, a TLS\n"
		"failure, a redirect to another scheme, an HTTP error, a cut body or a\n"
		"refused image leaves the last good filter: one line with the reason,\n"
		"counted by reason, the next try after 1, 2, 4... up to 16 intervals.\n"
		"SIGHUP pulls at once; status shows the source and the last pull.\n"
		"A LIST may be an http(s) URL: fetched every --refresh (default 1h,\n"
		"+-10%; Spamhaus' hosts hourly at most) into its copy in\n"
		"--state-dir/lists, the list file the rebuild reads; a copy is replaced\n"
		"only by a whole answer that reads as a list (not HTML, not empty, not\n"
		"under half its entries); status flags a URL silent past --max-age.\n",
	.opts = watch_opts,
	.pos = { .rest = "LIST", .min_rest = 0, .rest_many = true },
	.run = do_watch,
};
