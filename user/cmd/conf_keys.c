// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The config file's keys (conf_keys.h). */
#include <string.h>

#include "bw_layout.h"
#include "cmd/conf_keys.h"
#include "daemon/pull.h"
#include "daemon/watch.h"
#include "filter/bloom.h"
#include "image/sign_key.h"
#include "net/cs_decisions.h"

#define KEY(_key, _opt, _kind, _dflt, ...)                         \
	{                                                          \
		.key = _key, .opt = _opt, .kind = BW_CONF_##_kind, \
		.dflt = _dflt, __VA_ARGS__                         \
	}

const struct bw_conf_key bw_conf_keys[] = {
	/* What the filter is built from. */
	KEY("lists", NULL, LISTS, "[]", .source = true),
	KEY("allow", "allow", REPEAT, "[]"),
	KEY("image", "image", OPT, "null", .source = true),
	KEY("url", "url", REPEAT, "[]", .source = true),
	KEY("verify_key", "verify-key", OPT, BW_VERIFY_KEY_DEFAULT),
	KEY("allow_rollback", "allow-rollback", OPT, "false"),
	KEY("ca_file", "ca-file", OPT, "null"),
	KEY("client_cert", "client-cert", OPT, "null"),
	KEY("client_key", "client-key", OPT, "null"),
	KEY("connect_timeout", "connect-timeout", SECS, "10"),
	KEY("timeout", "timeout", SECS, "60"),
	KEY("state_dir", "state-dir", OPT, BW_PULL_STATE_DIR),
	/* How it is built. */
	KEY("fpr", "fpr", OPT, bw_textify(BW_DEFAULT_FPR)),
	KEY("seed", "seed", OPT, "random"),
	KEY("skip_invalid", "skip-invalid", OPT, "false"),
	KEY("monitor", "monitor", OPT, "false"),
	KEY("match", "match", OPT, "src"),
	KEY("max_lengths", "max-lengths", OPT, "4,4"),
	KEY("mask_host_bits", "mask-host-bits", OPT, "false"),
	KEY("verify", "verify", OPT, "false"),
	KEY("dns_action", "dns-action", OPT, "\"null\""),
	KEY("dns_ttl", "dns-ttl", OPT, "60"),
	KEY("subdomains", "subdomains", OPT, "false", .also = "no-subdomains"),
	KEY("log_rate", "log-rate", OPT, bw_textify(BW_LOG_RATE_DEFAULT)),
	/* The watch. */
	KEY("interval", "interval", SECS, "10"),
	KEY("debounce", "debounce", SECS, bw_textify(BW_WATCH_DEBOUNCE)),
	KEY("allow_shrink", "allow-shrink", OPT, "false"),
	KEY("refresh", "refresh", OPT, "1h"),
	KEY("max_age", "max-age", OPT, "3 refreshes"),
	KEY("force_refresh", "force-refresh", OPT, "false"),
	KEY("metrics_file", "metrics-file", OPT, "null"),
	KEY("detach_on_exit", "detach-on-exit", OPT, "false"),
	KEY("mode", "mode", OPT, "auto"),
	KEY("link", "link", OPT, "false"),
	KEY("egress", "egress", OPT, "false"),
	/* CrowdSec, cs-firewall-bouncer's names first. */
	KEY("api_url", "crowdsec", OPT, "null"),
	KEY("api_key", NULL, API_KEY, "null", .also = "crowdsec-key-file"),
	KEY("api_key_file", "crowdsec-key-file", KEY_FILE, "null"),
	KEY("cert_path", "crowdsec-cert", OPT, "null"),
	KEY("key_path", "crowdsec-cert-key", OPT, "null"),
	KEY("ca_cert_path", "crowdsec-ca", OPT, "null"),
	KEY("insecure_skip_verify", NULL, INSECURE, "false"),
	KEY("update_frequency", "update-frequency", SECS, "10s"),
	KEY("supported_decisions_types", "decision-types", LIST,
	    "[" BW_CS_DEFAULT_TYPES "]"),
	KEY("origins", "origins", LIST, "[]"),
	KEY("scopes", NULL, SCOPES, "[ip, range]"),
	KEY("scenarios_containing", "scenarios-containing", LIST, "[]"),
	KEY("scenarios_not_containing", "scenarios-not-containing", LIST, "[]"),
	KEY("crowdsec_timeout", "crowdsec-timeout", SECS, "60"),
	KEY("resync_interval", "resync-interval", OPT, "10m"),
	KEY("widest_range", "widest-range", OPT, "8,19"),
	KEY("prometheus.enabled", NULL, PROM, "false"),
	KEY("prometheus.listen_addr", NULL, PROM, "127.0.0.1"),
	KEY("prometheus.listen_port", NULL, PROM, BW_METRICS_PORT),
	{ 0 },
};

const struct bw_conf_key *bw_conf_key_find(const char *key)
{
	const struct bw_conf_key *k;

	for (k = bw_conf_keys; k->key; k++)
		if (!strcmp(k->key, key))
			return k;
	return NULL;
}

/* Edit distance of a and b, up to 64 bytes each (more: far). */
static unsigned int distance(const char *a, const char *b)
{
	unsigned int row[65], i, j, prev, cur;
	size_t la = strlen(a), lb = strlen(b);

	if (la > 64 || lb > 64)
		return 64;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (cur + 1 < row[j])
				row[j] = cur + 1;
			prev = cur;
		}
	}
	return row[lb];
}

/* cand kept in *best when it is closer to word than *least. */
static void closer(const char *word, const char *cand, unsigned int *least,
		   const char **best)
{
	unsigned int d = distance(word, cand);

	if (d < *least) {
		*least = d;
		*best = cand;
	}
}

const char *bw_conf_word_near(const char *word, const char *const *words)
{
	const char *best = NULL;
	unsigned int least = 3;

	for (; *words; words++)
		closer(word, *words, &least, &best);
	return best;
}

const char *bw_conf_key_near(const char *key)
{
	const struct bw_conf_key *k;
	const char *best = NULL;
	unsigned int least = 3;

	for (k = bw_conf_keys; k->key; k++)
		closer(key, k->key, &least, &best);
	return best;
}
