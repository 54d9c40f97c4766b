/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * LIST arguments given as http(s) URLs (net/src_fetch.h): each stands for
 * its copy in the cache (net/src_cache.h), the list file the verbs read.
 * build, attach and reload fetch each once before they read it (a failed
 * fetch with a copy at hand uses the copy, saying how old it is); watch
 * fetches them every --refresh (daemon/watch_src.h).
 */
#ifndef __BW_LIST_URLS_H
#define __BW_LIST_URLS_H

#include <stdbool.h>

#include "cmd/cli.h"

/* --state-dir, --connect-timeout, --timeout, --ca-file: build, attach, reload. */
extern const struct bw_opt bw_list_url_opts[];
/* --refresh, --max-age, --force-refresh: watch. */
extern const struct bw_opt bw_list_url_watch_opts[];

/* Whether a LIST argument (the verb's FILE too) is a URL. */
bool bw_list_urls_any(const struct bw_args *a);

/*
 * The URLs among a's LIST arguments fetched once each and replaced by
 * their copies' paths. 0, or -errno (said) when one has neither a fetch
 * that worked nor a copy.
 */
int bw_list_urls_fetch(struct bw_args *a, const char *verb);

/*
 * For watch: the URLs replaced by their copies' paths, and a->src set up
 * to keep them fresh (*cfg: it, or NULL when there is none). 0 or -errno.
 */
int bw_list_urls_watch(struct bw_args *a, const struct bw_wsrc_cfg **cfg);

#endif /* __BW_LIST_URLS_H */
