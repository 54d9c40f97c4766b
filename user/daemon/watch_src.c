// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's list sources given by URL (watch_src.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/duration.h"
#include "base/log.h"
#include "daemon/pull_sched.h"
#include "daemon/watch_src.h"
#include "net/url.h"

/* Whether url is on Spamhaus' hosts (spamhaus.org, *.spamhaus.org...). */
static bool spamhaus(const char *url)
{
	char origin[512], *host, *colon;
	size_t n;

	if (!bw_url_origin(url, origin, sizeof(origin)))
		return false;
	host = strstr(origin, "://");
	host = host ? host + 3 : origin;
	colon = strrchr(host, ':');
	if (colon)
		*colon = '\0';
	n = strlen(host);
	for (const char *d = "spamhaus.org\0spamhaus.com\0"; *d;
	     d += strlen(d) + 1) {
		size_t dn = strlen(d);

		if (n == dn ? !strcmp(host, d)
			    : n > dn && host[n - dn - 1] == '.' &&
				      !strcmp(host + n - dn, d))
			return true;
	}
	return false;
}

static void schedule(struct bw_wsrc_one *s, double delay)
{
	s->next = bw_mono() + delay;
	s->fig->next = (__s64)time(NULL) + (__s64)ceil(delay);
}

/* The copy as the cache holds it (its meta), its age said. */
static void take_copy(struct bw_wsrc *w, struct bw_wsrc_one *s)
{
	struct bw_src_meta m;
	char age[32];
	__s64 now = time(NULL), ago;

	if (bw_src_meta_read(s->fig->path, &m) || strcmp(m.url, s->fig->url) ||
	    access(s->fig->path, R_OK)) {
		printf("%s: %s: no copy yet in %s: fetched now\n", w->iface,
		       s->said, s->fig->path);
		schedule(s, 0);
		return;
	}
	s->fig->entries = m.entries;
	s->fig->bytes = m.bytes;
	s->fig->fetched = m.fetched;
	s->fig->checked = m.checked;
	snprintf(s->fig->pack, sizeof(s->fig->pack), "%s", m.pack);
	ago = now > m.fetched ? now - m.fetched : 0;
	printf("%s: %s: the copy of %s ago (%llu entries) in use until it is fetched again\n",
	       w->iface, s->said, bw_duration_str((__u64)ago, age, sizeof(age)),
	       (unsigned long long)m.entries);
	/* The next fetch: a refresh after the server last confirmed it. */
	ago = now > m.checked ? now - m.checked : 0;
	s->tried = true;
	schedule(s, (double)ago >= s->interval
			    ? 0
			    : (s->interval - (double)ago) *
				      (1 + BW_PULL_JITTER * bw_pull_uniform()));
}

/* A source's interval and max age: its own, else the watch's. */
static void settings(struct bw_wsrc *w, const struct bw_wsrc_cfg *c, int i,
		     bool *own)
{
	const struct bw_wsrc_set *o = &c->set[i];
	struct bw_wsrc_one *s = &w->s[i];
	double refresh = c->refresh > 0 ? c->refresh : BW_SRC_REFRESH;
	bool force = o->force_set ? o->force_refresh : c->force_refresh;
	char a[32], b[32];

	*own |= o->refresh > 0 || o->max_age > 0 || o->force_set;
	if (o->refresh > 0)
		refresh = o->refresh;
	s->interval = refresh;
	s->hourly = !force && spamhaus(c->urls[i]);
	if (refresh < BW_SRC_SPAMHAUS_MIN && s->hourly) {
		s->interval = BW_SRC_SPAMHAUS_MIN;
		printf("%s: %s: fetched every hour, not every %g s: Spamhaus asks for an hour between automated downloads (--force-refresh overrides)\n",
		       w->iface, s->said, refresh);
	}
	s->fig->refresh = s->interval;
	s->fig->max_age = o->max_age > 0 ? o->max_age
			  : c->max_age > 0
				  ? c->max_age
				  : BW_SRC_MAX_AGE_REFRESHES * s->interval;
	if (s->fig->max_age < s->interval)
		printf("%s: %s: max age %s under its refresh %s: stale between fetches\n",
		       w->iface, s->said,
		       bw_duration_str((__u64)s->fig->max_age, a, sizeof(a)),
		       bw_duration_str((__u64)s->interval, b, sizeof(b)));
}

int bw_wsrc_init(struct bw_wsrc *w, const struct bw_wsrc_cfg *c,
		 const char *iface)
{
	double refresh = c && c->refresh > 0 ? c->refresh : BW_SRC_REFRESH;
	char a[32], b[32];
	bool own = false;
	int i, err;

	memset(w, 0, sizeof(*w));
	w->c = c;
	w->iface = iface;
	if (!c || !c->n)
		return 0;
	err = bw_src_dir_make(c->state_dir);
	if (err) {
		pr_warn("bloomwall watch: the state directory %s/lists: %s (a directory of its own user, not writable by others)\n",
			c->state_dir ?: BW_SRC_STATE_DIR, strerror(-err));
		return err;
	}
	w->n = c->n;
	for (i = 0; i < c->n; i++) {
		w->s[i].fig = &w->fig[i];
		w->s[i].url = c->urls[i];
		w->s[i].fig->url = bw_url_redacted(c->urls[i], w->s[i].redacted,
						   sizeof(w->s[i].redacted));
		bw_url_said(c->urls[i], w->s[i].said, sizeof(w->s[i].said));
		w->s[i].fig->path = c->paths[i];
		w->s[i].fig->last = -1;
		settings(w, c, i, &own);
	}
	for (i = 0; own && i < c->n; i++)
		printf("%s: %s: fetched every %s, stale after %s\n", iface,
		       w->s[i].said,
		       bw_duration_str((__u64)w->s[i].interval, a, sizeof(a)),
		       bw_duration_str((__u64)w->fig[i].max_age, b, sizeof(b)));
	if (own)
		printf("%s: %d list %s by URL, each at its interval (+-%g%%), copies in %s/lists\n",
		       iface, c->n, c->n == 1 ? "source" : "sources",
		       100 * BW_PULL_JITTER, c->state_dir ?: BW_SRC_STATE_DIR);
	else
		printf("%s: %d list %s by URL, refreshed every %g s (+-%g%%), copies in %s/lists\n",
		       iface, c->n, c->n == 1 ? "source" : "sources", refresh,
		       100 * BW_PULL_JITTER, c->state_dir ?: BW_SRC_STATE_DIR);
	for (i = 0; i < c->n; i++)
		take_copy(w, &w->s[i]);
	return 0;
}

bool bw_wsrc_first_done(const struct bw_wsrc *w)
{
	for (int i = 0; i < w->n; i++)
		if (!w->s[i].tried)
			return false;
	return true;
}

int bw_wsrc_missing(const struct bw_wsrc *w)
{
	int n = 0;

	for (int i = 0; i < w->n; i++)
		if (!w->s[i].fig->fetched) {
			pr_warn("%s: %s: no copy to start from, and its fetch failed: %s\n",
				w->iface, w->s[i].said, w->s[i].fig->reason);
			n++;
		}
	return n;
}

int bw_wsrc_fds(struct bw_wsrc *w, struct pollfd *p, double *wake)
{
	int n = 0;

	for (int i = 0; i < w->n; i++) {
		struct bw_wsrc_one *s = &w->s[i];

		s->fd0 = n;
		s->nfds = 0;
		if (s->f)
			n += s->nfds = bw_src_fetch_fds(s->f, p + n, wake);
		else
			*wake = fmin(*wake, s->next);
	}
	return n;
}

/* One fetch ended: the figures, one log line, the next one scheduled. */
static void ended(struct bw_wsrc *w, struct bw_wsrc_one *s, int err,
		  const struct bw_src_result *r)
{
	struct bw_src_figures *g = s->fig;
	char age[32], next[32];
	double delay, took = bw_mono() - s->t0;

	s->tried = true;
	g->results[r->why]++;
	g->last = (int)r->why;
	g->status = r->status;
	if (!err) {
		g->consecutive = 0;
		g->reason[0] = '\0';
		g->entries = r->meta.entries;
		g->bytes = r->meta.bytes;
		g->fetched = r->meta.fetched;
		g->checked = r->meta.checked;
		snprintf(g->pack, sizeof(g->pack), "%s", r->meta.pack);
		s->stale_said = false;
	} else {
		g->consecutive++;
		snprintf(g->reason, sizeof(g->reason), "%s", r->reason);
	}
	delay = bw_pull_delay(s->interval, (unsigned int)g->consecutive,
			      bw_pull_uniform());
	schedule(s, delay);
	bw_duration_str((__u64)delay, next, sizeof(next));
	if (r->why == BW_SRC_NEW)
		printf("%s: %s: a new copy, %llu entries, %llu bytes (%s, HTTP %ld, %.3f s): the lists are read again\n",
		       w->iface, s->said, (unsigned long long)g->entries,
		       (unsigned long long)g->bytes, g->pack, r->status, took);
	else if (r->why == BW_SRC_SAME)
		printf("%s: %s: unchanged (HTTP %ld, %.3f s)\n", w->iface,
		       s->said, r->status, took);
	else if (g->fetched)
		printf("%s: %s: kept the copy of %s ago: %s: %s; next try in %s\n",
		       w->iface, s->said,
		       bw_duration_str((__u64)(time(NULL) - g->fetched), age,
				       sizeof(age)),
		       bw_src_why_name(r->why), g->reason, next);
	else
		printf("%s: %s: no copy: %s: %s; next try in %s\n", w->iface,
		       s->said, bw_src_why_name(r->why), g->reason, next);
}

static void check_stale(struct bw_wsrc *w, struct bw_wsrc_one *s)
{
	char age[32], ago[32] = "never";

	/* A source not tried yet is not stale: its first fetch is due. */
	if (s->stale_said || !s->tried || !bw_src_stale(s->fig, time(NULL)))
		return;
	s->stale_said = true;
	if (s->fig->checked)
		bw_duration_str((__u64)(time(NULL) - s->fig->checked), ago,
				sizeof(ago));
	printf("%s: %s: STALE: no answer for longer than --max-age %s (last success: %s%s)\n",
	       w->iface, s->said,
	       bw_duration_str((__u64)s->fig->max_age, age, sizeof(age)), ago,
	       s->fig->checked ? " ago" : "");
}

bool bw_wsrc_step(struct bw_wsrc *w, const struct pollfd *p)
{
	struct bw_src_result r;
	bool any = false;
	int err;

	for (int i = 0; i < w->n; i++) {
		struct bw_wsrc_one *s = &w->s[i];

		if (!s->f) {
			check_stale(w, s);
			if (bw_mono() < s->next)
				continue;
			s->t0 = bw_mono();
			s->f = bw_src_fetch_start(s->url, s->fig->path,
						  &w->c->opts, false);
			if (!s->f)
				schedule(s, s->interval);
			continue;
		}
		err = bw_src_fetch_step(s->f, p + s->fd0, s->nfds, &r);
		if (err == -EINPROGRESS)
			continue;
		bw_src_fetch_free(s->f);
		s->f = NULL;
		ended(w, s, err, &r);
		any = true;
	}
	return any;
}

void bw_wsrc_now(struct bw_wsrc *w)
{
	__s64 now = time(NULL);

	for (int i = 0; i < w->n; i++) {
		struct bw_wsrc_one *s = &w->s[i];

		/* Under way: its answer is as new as one asked now. */
		if (s->f)
			continue;
		if (s->hourly &&
		    ((s->t0 > 0 && bw_mono() - s->t0 < BW_SRC_SPAMHAUS_MIN) ||
		     (double)(now - s->fig->checked) < BW_SRC_SPAMHAUS_MIN)) {
			printf("%s: %s: SIGHUP: not fetched again within the hour: Spamhaus asks for an hour between automated downloads (force_refresh overrides)\n",
			       w->iface, s->said);
			continue;
		}
		printf("%s: %s: SIGHUP: fetched now\n", w->iface, s->said);
		schedule(s, 0);
	}
}

bool bw_wsrc_busy(const struct bw_wsrc *w)
{
	double now = bw_mono();

	for (int i = 0; i < w->n; i++)
		if (w->s[i].f || w->s[i].next <= now)
			return true;
	return false;
}

void bw_wsrc_json(const struct bw_wsrc *w, struct json_object *root)
{
	struct json_object *a;

	if (!w->n || !(a = json_object_new_array()))
		return;
	for (int i = 0; i < w->n; i++)
		json_object_array_add(a, bw_src_figures_json(w->s[i].fig));
	json_object_object_add(root, "sources", a);
}

void bw_wsrc_free(struct bw_wsrc *w)
{
	for (int i = 0; i < w->n; i++) {
		bw_src_fetch_free(w->s[i].f);
		w->s[i].f = NULL;
	}
}
