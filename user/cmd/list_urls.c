// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * LIST arguments given as URLs (list_urls.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/duration.h"
#include "base/log.h"
#include "base/output.h"
#include "cmd/list_urls.h"
#include "net/src_cache.h"
#include "net/src_fetch.h"
#include "net/url.h"

const struct bw_opt bw_list_url_opts[] = {
	BW_OPT("state-dir", "DIR", pull.state_dir, bw_parse_str,
	       "keep the copies of LISTs given by URL in DIR/lists (default " BW_SRC_STATE_DIR
	       ")"),
	BW_OPT("connect-timeout", "SECS", pull.connect_timeout,
	       bw_parse_seconds,
	       "give up connecting to a LIST's URL after SECS (default 10)",
	       .min = 0.1),
	BW_OPT("timeout", "SECS", pull.timeout, bw_parse_seconds,
	       "give up a LIST's download after SECS (default 60)", .min = 0.1),
	BW_OPT("ca-file", "FILE", pull.ca_file, bw_parse_str,
	       "trust the CAs in FILE (PEM) for https, not the system's"),
	{ 0 },
};

const struct bw_opt bw_list_url_watch_opts[] = {
	BW_OPT("refresh", "DURATION", src.refresh, bw_parse_duration_secs,
	       "fetch the LISTs given by URL every DURATION (default 1h)",
	       .min = 1),
	BW_OPT("max-age", "DURATION", src.max_age, bw_parse_duration_secs,
	       "call a LIST's URL stale after DURATION without an answer (default 3 refreshes)",
	       .min = 1),
	BW_OPT("force-refresh", NULL, src.force_refresh, bw_parse_flag,
	       "fetch from Spamhaus' hosts more often than hourly too"),
	{ 0 },
};

bool bw_list_urls_any(const struct bw_args *a)
{
	if (a->file && bw_src_is_url(a->file))
		return true;
	for (int i = 0; i < a->npos; i++)
		if (bw_src_is_url(a->pos[i]))
			return true;
	return false;
}

static void opts_of(const struct bw_args *a, struct bw_src_opts *o)
{
	*o = (struct bw_src_opts){
		.ca_file = a->pull.ca_file,
		.connect_timeout = a->pull.connect_timeout,
		.timeout = a->pull.timeout,
		.skip_invalid = a->build.skip_invalid,
		.mask_host_bits = a->build.mask_host_bits,
		.allow_shrink = a->ops.allow_shrink,
	};
}

/* The copy's path for url (allocated), the cache's directory made. */
static char *copy_path(const struct bw_args *a, const char *verb,
		       const char *url)
{
	char path[4096], shown[1024];
	int err = bw_src_dir_make(a->pull.state_dir);

	if (!err)
		err = bw_src_path(a->pull.state_dir, url, path, sizeof(path));
	if (err) {
		pr_warn("bloomwall %s: %s: the state directory %s/lists: %s\n",
			verb, bw_url_said(url, shown, sizeof(shown)),
			a->pull.state_dir ?: BW_SRC_STATE_DIR, strerror(-err));
		return NULL;
	}
	return strdup(path);
}

/* One URL fetched; its copy's path, or NULL (said). */
static char *fetch_one(const struct bw_args *a, const char *verb,
		       const char *url)
{
	struct bw_src_result r;
	struct bw_src_meta m;
	struct bw_src_opts o;
	char *path = copy_path(a, verb, url), age[32], shown[1024], id[2048];
	int err;

	if (!path)
		return NULL;
	/* Printed as status prints it: no credential, no control byte. */
	bw_url_said(url, shown, sizeof(shown));
	opts_of(a, &o);
	err = bw_src_fetch_once(url, path, &o, &r);
	if (!err) {
		fprintf(stderr, "%s: %s (%llu entries, HTTP %ld), %s\n", shown,
			r.why == BW_SRC_NEW ? "fetched" : "unchanged",
			(unsigned long long)r.meta.entries, r.status, path);
		return path;
	}
	if (!bw_src_meta_read(path, &m) && m.fetched &&
	    !strcmp(m.url, bw_url_redacted(url, id, sizeof(id)))) {
		pr_warn("bloomwall %s: %s: %s: %s; the copy of %s ago is used\n",
			verb, shown, bw_src_why_name(r.why), r.reason,
			bw_duration_str((__u64)(time(NULL) - m.fetched), age,
					sizeof(age)));
		return path;
	}
	pr_warn("bloomwall %s: %s: %s: %s, and there is no copy of it in %s\n",
		verb, shown, bw_src_why_name(r.why), r.reason, path);
	free(path);
	return NULL;
}

int bw_list_urls_fetch(struct bw_args *a, const char *verb)
{
	char *p;

	if (a->file && bw_src_is_url(a->file)) {
		p = fetch_one(a, verb, a->file);
		if (!p)
			return -ENOENT;
		a->file = p;
	}
	for (int i = 0; i < a->npos; i++) {
		if (!bw_src_is_url(a->pos[i]))
			continue;
		p = fetch_one(a, verb, a->pos[i]);
		if (!p)
			return -ENOENT;
		a->pos[i] = p;
	}
	return 0;
}

int bw_list_urls_watch(struct bw_args *a, const struct bw_wsrc_cfg **cfg)
{
	struct bw_wsrc_cfg *c = &a->src;
	char *p;

	*cfg = NULL;
	for (int i = 0; i < a->npos; i++) {
		if (!bw_src_is_url(a->pos[i]))
			continue;
		if (c->n == BW_SRC_MAX) {
			pr_warn("bloomwall watch: at most %d LISTs by URL\n",
				BW_SRC_MAX);
			return -BW_EUSAGE;
		}
		p = copy_path(a, "watch", a->pos[i]);
		if (!p)
			return -ENOENT;
		c->urls[c->n] = a->pos[i];
		if (a->pos_set)
			c->set[c->n] = a->pos_set[i];
		c->paths[c->n++] = p;
		a->pos[i] = p;
	}
	if (!c->n) {
		if (c->refresh || c->max_age || c->force_refresh) {
			pr_warn("bloomwall watch: --refresh, --max-age and --force-refresh go with LISTs given by URL\n");
			return -BW_EUSAGE;
		}
		return 0;
	}
	c->state_dir = a->pull.state_dir;
	opts_of(a, &c->opts);
	*cfg = c;
	return 0;
}
