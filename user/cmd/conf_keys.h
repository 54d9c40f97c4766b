/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The keys of the config file (bloomwall.yaml(5)), one table: each key
 * names the watch option it equals, whose parser takes its value as it
 * takes the command line's (cli.h). The CrowdSec keys are named as
 * cs-firewall-bouncer names them; bloomwall's own are the options' long
 * names with '_' for '-'. Adding a key is adding a row.
 */
#ifndef __BW_CONF_KEYS_H
#define __BW_CONF_KEYS_H

#include <stdbool.h>
#include <stddef.h>

/* How a key's YAML value becomes the option's argument. */
enum bw_conf_kind {
	BW_CONF_OPT,	  /* a value; a flag takes true or false */
	BW_CONF_SECS,	  /* seconds, or a duration ("10s", "5m") */
	BW_CONF_LIST,	  /* a list (or a value): joined with ',' */
	BW_CONF_REPEAT,	  /* a list (or a value): the option once each */
	BW_CONF_LISTS,	  /* the list files: watch's LIST arguments */
	BW_CONF_API_KEY,  /* the bouncer's key itself (a secret file) */
	BW_CONF_KEY_FILE, /* a path, whose key config check reads */
	BW_CONF_SCOPES,	  /* cs-firewall-bouncer's: ip and range only */
	BW_CONF_INSECURE, /* cs-firewall-bouncer's: false only */
	BW_CONF_PROM,	  /* prometheus.*: one --metrics-listen */
};

struct bw_conf_key {
	const char *key; /* "prometheus.enabled" for a nested one */
	const char *opt; /* the option it equals; NULL: none */
	enum bw_conf_kind kind;
	const char *dflt; /* its default, as config show prints it */
	/* Another option that, given on the command line, wins over it. */
	const char *also;
	/* A source of the filter (lists, image, url): any source the
	 * command line gives wins over all of the file's. */
	bool source;
};

/* The keys, in config show's order; the last has key NULL. */
extern const struct bw_conf_key bw_conf_keys[];

/* The option prometheus.* turn into: watch --metrics-listen ADDR:PORT. */
#define BW_CONF_METRICS_OPT "metrics-listen"
/* Its port when prometheus.listen_port is not given (bloomwall(8), METRICS). */
#define BW_METRICS_PORT "60607"

/* key's row, NULL: no such key. */
const struct bw_conf_key *bw_conf_key_find(const char *key);

/* The known key closest to key (a typo's), NULL: none close. */
const char *bw_conf_key_near(const char *key);

/* The one of words (NULL-ended) closest to word, NULL: none close. */
const char *bw_conf_word_near(const char *word, const char *const *words);

#endif /* __BW_CONF_KEYS_H */
