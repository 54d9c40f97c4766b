// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * query --why, the list side: every recorded list read once, line by
 * line, each line parsed as the build parsed it, its entries tested
 * against every target (why.h). Bounded memory: a chunk of the file and
 * the one line's entries.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filter/why.h"
#include "lists/list_format.h"
#include "lists/list_parse.h"
#include "lists/names.h"

/* Read at a time: large, so that a 10M-line list costs few syscalls. */
#define WHY_CHUNK (1 << 20)

struct scan {
	struct bw_why *w;
	const struct bw_why_target *t;
	int nt;
	int list;
	struct bw_list scratch; /* the entries of the current line */
	struct bw_list_opts opts;
	struct bw_fmt fmt; /* the list's format, as the load tells it */
	__u64 lineno;
};

bool bw_why_covers(const struct bw_prefix *e, const struct bw_prefix *a)
{
	__u64 mhi, mlo;

	if (e->family != a->family)
		return false;
	if (e->family == BW_V4) {
		mlo = e->plen ? (0xffffffffULL << (32 - e->plen)) : 0;
		return !((a->lo ^ e->lo) & mlo & 0xffffffffULL);
	}
	mhi = e->plen >= 64 ? ~0ULL : (e->plen ? ~0ULL << (64 - e->plen) : 0);
	mlo = e->plen <= 64 ? 0 : ~0ULL << (128 - e->plen);
	return !((a->hi ^ e->hi) & mhi) && !((a->lo ^ e->lo) & mlo);
}

bool bw_why_name_covers(const char *entry, size_t elen, bool subtree,
			const char *name, size_t nlen)
{
	if (nlen == elen)
		return !memcmp(entry, name, elen);
	/* Under it: the entry is a whole-label suffix of the name. */
	return subtree && nlen > elen && name[nlen - elen - 1] == '.' &&
	       !memcmp(name + nlen - elen, entry, elen);
}

int bw_why_target(const char *s, struct bw_why_target *t, char *err,
		  size_t errlen)
{
	int len;

	memset(t, 0, sizeof(*t));
	err[0] = '\0';
	if (!bw_parse_prefix(s, &t->addr, err, errlen)) {
		if (t->addr.plen == (t->addr.family == BW_V4 ? 32 : 128))
			return 0;
		snprintf(err, errlen, "give an address, not a prefix: \"%s\"",
			 s);
		return -EINVAL;
	}
	len = bw_name_check(s, strlen(s), t->name, err, errlen);
	if (len < 0)
		return len;
	t->name[len] = '\0';
	t->name_len = (size_t)len;
	t->is_name = true;
	return 0;
}

static int push_hit(struct bw_why *w, const struct bw_why_hit *h)
{
	struct bw_why_hit *n;
	size_t cap;

	if (w->nhits == w->cap) {
		cap = w->cap ? 2 * w->cap : 8;
		n = realloc(w->hits, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		w->hits = n;
		w->cap = cap;
	}
	w->hits[w->nhits++] = *h;
	return 0;
}

/* The line for the answer: trimmed, cut to BW_WHY_TEXT bytes. */
static void set_text(struct bw_why_hit *h, const char *line, size_t len)
{
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	while (len && strchr(" \t\r\n", line[len - 1]))
		len--;
	if (len > BW_WHY_TEXT)
		len = BW_WHY_TEXT;
	memcpy(h->text, line, len);
	h->text[len] = '\0';
}

/* An address target: the first entry of the line that covers it. */
static bool addr_hit(const struct bw_list *l, const struct bw_prefix *a,
		     struct bw_why_hit *h)
{
	struct bw_prefix e = { .family = BW_V4 };
	size_t i;

	for (i = 0; a->family == BW_V4 && i < l->n4; i++) {
		e.lo = bw_v4key_addr(l->v4[i]);
		e.plen = (__u8)bw_v4key_plen(l->v4[i]);
		if (bw_why_covers(&e, a))
			goto found;
	}
	e.family = BW_V6;
	for (i = 0; a->family == BW_V6 && i < l->n6; i++) {
		e.hi = l->v6[i].hi;
		e.lo = l->v6[i].lo;
		e.plen = (__u8)l->v6[i].plen;
		if (bw_why_covers(&e, a))
			goto found;
	}
	return false;
found:
	bw_prefix_str(&e, h->entry, sizeof(h->entry));
	h->prefix = e;
	return true;
}

/* A name target: the first domain entry of the line that covers it. */
static bool name_hit(const struct bw_list *l, const struct bw_why_target *t,
		     struct bw_why_hit *h)
{
	const struct bw_domain *d;
	size_t i;

	for (i = 0; i < l->ndom; i++) {
		d = &l->dom[i];
		if (!bw_why_name_covers(bw_domain_name(l, d), d->len,
					d->flags & BW_DOM_SUBTREE, t->name,
					t->name_len))
			continue;
		memcpy(h->entry, bw_domain_name(l, d), d->len);
		h->entry[d->len] = '\0';
		h->subtree = d->flags & BW_DOM_SUBTREE;
		h->allow = d->flags & BW_DOM_ALLOW;
		if (h->subtree)
			memcpy(h->suffix, h->entry, d->len + 1);
		return true;
	}
	return false;
}

static int scan_line(struct scan *s, char *line, size_t len)
{
	struct bw_list *l = &s->scratch;
	struct bw_why_hit h;
	char err[BW_ERRLEN];
	bool found;
	int i, ret;

	s->lineno++;
	if (len > BW_LINE_MAX)
		return 0;
	if (s->lineno == 1 && !strncmp(line, "\xef\xbb\xbf", 3))
		line += 3;
	l->n4 = l->n6 = l->ndom = l->names_len = 0;
	/* A bad line holds no entry the build took: nothing to report. */
	if (bw_fmt_line(&s->fmt, l, line, s->lineno, &s->opts, err,
			sizeof(err)) ||
	    !(l->n4 + l->n6 + l->ndom))
		return 0;
	for (i = 0; i < s->nt; i++) {
		memset(&h, 0, sizeof(h));
		found = s->t[i].is_name ? name_hit(l, &s->t[i], &h)
					: addr_hit(l, &s->t[i].addr, &h);
		if (!found)
			continue;
		h.target = i;
		h.list = s->list;
		h.line = s->lineno;
		set_text(&h, line, strlen(line));
		ret = push_hit(s->w, &h);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The lines of buf[0..*have); what is left (a line not ended yet) moves to
 * the front. A line longer than BW_LINE_MAX is counted and skipped.
 */
static int scan_chunk(struct scan *s, char *buf, size_t *have, bool eof,
		      bool *skipping)
{
	char *p = buf, *end = buf + *have, *nl;
	size_t left;
	int ret;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		*nl = '\0';
		if (*skipping)
			*skipping = false;
		else if ((ret = scan_line(s, p, (size_t)(nl - p))))
			return ret;
		p = nl + 1;
	}
	left = (size_t)(end - p);
	if (eof && left && !*skipping) {
		*end = '\0';
		return scan_line(s, p, left);
	}
	if (left > BW_LINE_MAX && !*skipping) {
		s->lineno++;
		*skipping = true;
	}
	if (*skipping)
		left = 0;
	memmove(buf, p, left);
	*have = left;
	return 0;
}

/* Reads fd to its end; -errno on a read error. */
static int scan_fd(struct scan *s, int fd, struct bw_prov_stream *hs)
{
	char *buf = malloc(WHY_CHUNK + 1);
	size_t have = 0;
	bool skipping = false;
	ssize_t n;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		n = read(fd, buf + have, WHY_CHUNK - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		bw_prov_stream_feed(hs, buf + have, (size_t)n);
		have += (size_t)n;
		ret = scan_chunk(s, buf, &have, !n, &skipping);
		if (ret || !n)
			break;
	}
	free(buf);
	return ret;
}

/* Whether the file is what was recorded: size and hash. */
static enum bw_prov_state compare(const struct bw_rec_src *src,
				  const struct bw_rec_source *now)
{
	if (!src || !src->known)
		return BW_PROV_UNKNOWN;
	return now->size == src->s.size && !memcmp(now->hash, src->s.hash,
						   sizeof(now->hash))
		       ? BW_PROV_UNCHANGED
		       : BW_PROV_CHANGED;
}

static int open_list(const char *path, struct bw_why_list *wl)
{
	struct stat st;
	int fd;

	if (!strcmp(path, "-")) {
		wl->state = BW_PROV_STDIN;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		wl->state = errno == ENOENT || errno == ENOTDIR
				    ? BW_PROV_MISSING
				    : BW_PROV_UNREADABLE;
		return -1;
	}
	/* Only a regular file: a FIFO or a device is never read here. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		wl->state = BW_PROV_UNREADABLE;
		return -1;
	}
	return fd;
}

static int scan_list(struct scan *s, const char *path,
		     const struct bw_rec_src *src)
{
	struct bw_why_list *wl = &s->w->lists[s->list];
	struct bw_prov_stream hs;
	struct bw_rec_source now;
	int fd, ret;

	wl->path = path;
	wl->recorded = src && src->known;
	fd = open_list(path, wl);
	if (fd < 0)
		return 0;
	ret = bw_prov_stream_init(&hs, false);
	if (ret) {
		close(fd);
		return ret;
	}
	s->lineno = 0;
	bw_fmt_init(&s->fmt);
	ret = scan_fd(s, fd, &hs);
	close(fd);
	if (ret && ret != -ENOMEM) {
		bw_prov_stream_free(&hs);
		wl->state = BW_PROV_UNREADABLE;
		return 0;
	}
	if (ret) {
		bw_prov_stream_free(&hs);
		return ret;
	}
	bw_prov_stream_end(&hs, &now);
	wl->lines = s->lineno;
	wl->state = compare(src, &now);
	return 0;
}

int bw_why_scan(struct bw_why *w, const struct bw_why_target *t, int nt,
		const char *const *paths, const struct bw_rec_src *src, int n)
{
	struct scan s = { .w = w, .t = t, .nt = nt };
	int i, ret = 0;

	memset(w, 0, sizeof(*w));
	w->t = malloc((nt ?: 1) * sizeof(*t));
	w->lists = calloc(n ?: 1, sizeof(*w->lists));
	if (!w->t || !w->lists) {
		bw_why_free(w);
		return -ENOMEM;
	}
	memcpy(w->t, t, nt * sizeof(*t));
	w->nt = nt;
	w->nlists = n;
	/* As a build that takes every form: the lines it took parse here. */
	s.opts = (struct bw_list_opts){ .skip_invalid = true,
					.mask_host_bits = true,
					.domains = true };
	bw_list_init(&s.scratch);
	for (i = 0; i < n && !ret; i++) {
		s.list = i;
		ret = scan_list(&s, paths[i], src ? &src[i] : NULL);
	}
	bw_list_free(&s.scratch);
	if (ret)
		bw_why_free(w);
	return ret;
}

int bw_why_scan_records(struct bw_why *w, const struct bw_why_target *t, int nt,
			const struct bw_records *rec)
{
	int n = rec->nlists + rec->nallow, k, ret;
	const char **paths = calloc(n ?: 1, sizeof(*paths));
	struct bw_rec_src *src = calloc(n ?: 1, sizeof(*src));
	size_t i;

	ret = paths && src ? 0 : -ENOMEM;
	for (k = 0; !ret && k < rec->nlists; k++) {
		paths[k] = rec->lists[k];
		if (rec->src)
			src[k] = rec->src[k];
	}
	for (k = 0; !ret && k < rec->nallow; k++) {
		paths[rec->nlists + k] = rec->allow[k];
		src[rec->nlists + k] = rec->allow_src[k];
	}
	if (!ret)
		ret = bw_why_scan(w, t, nt, paths, src, n);
	for (k = rec->nlists; !ret && k < n; k++)
		w->lists[k].allow = true;
	for (i = 0; !ret && i < w->nhits; i++)
		if (w->lists[w->hits[i].list].allow)
			w->hits[i].allow = true;
	free(paths);
	free(src);
	return ret;
}

void bw_why_free(struct bw_why *w)
{
	free(w->t);
	free(w->lists);
	free(w->hits);
	memset(w, 0, sizeof(*w));
}
