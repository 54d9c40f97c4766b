// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The decision set (cs_decisions.h): decisions in slots found by id, a
 * count per value, and a heap of ends (lazy: an entry whose decision went
 * or changed its end is dropped when it comes up).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bw_hash.h"
#include "lists/list_parse.h"
#include "net/cs_decisions.h"
#include "net/cs_table.h"

const char *const bw_cs_skip_names[BW_CS_SKIP_KINDS] = {
	[BW_CS_REFUSED_FIELD] = "bad_field",
	[BW_CS_REFUSED_VALUE] = "bad_value",
	[BW_CS_REFUSED_WIDE] = "too_wide",
	[BW_CS_REFUSED_FILTER] = "filter_refused",
	[BW_CS_IGNORED_SCOPE] = "other_scope",
	[BW_CS_IGNORED_TYPE] = "other_type",
	[BW_CS_IGNORED_ORIGIN] = "filtered_out",
	[BW_CS_IGNORED_SIMULATED] = "simulated",
	[BW_CS_IGNORED_EXPIRED] = "expired",
};

struct dec {
	__s64 id; /* 0: a free slot */
	struct bw_prefix p;
	__s64 until_ms;
	__u32 origin, scenario, type; /* in strs */
	__u32 gen;		      /* the full answer that last named it */
	bool range;
};

struct bw_cs_set {
	char *types, *origins, *sc_in, *sc_out; /* the filter's lists */
	unsigned int min_plen[2];
	struct bw_cs_sink sink;
	struct dec *d;
	size_t nd, capd; /* slots used at the end, and room */
	__u32 *free;	 /* free slots below nd */
	size_t nfree, capfree;
	struct bw_cs_idmap ids;
	struct bw_cs_valmap vals;
	struct bw_cs_strtab strs;
	struct bw_cs_heap ends;
	__u32 gen;
	__u64 skipped[BW_CS_SKIP_KINDS];
	bool want_resync;
	struct bw_cs_drift drift; /* of the full answer under way */
};

/* ---- the filter ---------------------------------------------------------- */

/* Whether the comma-separated list holds s (equal, or within when sub). */
static bool in_list(const char *list, const char *s, bool sub)
{
	char tok[BW_CS_SCENARIO_MAX];
	const char *p = list, *e;
	size_t n;

	while (p && *p) {
		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		while (n && (*p == ' ' || *p == '\t'))
			p++, n--;
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n && n < sizeof(tok)) {
			memcpy(tok, p, n);
			tok[n] = '\0';
			if (sub ? strcasestr(s, tok) != NULL
				: !strcasecmp(s, tok))
				return true;
		}
		p = e ? e + 1 : NULL;
	}
	return false;
}

static bool filled(const char *list)
{
	return list && *list;
}

/* Which filter keeps d out, or -1 when d is taken. */
static int filtered(const struct bw_cs_set *s, const struct bw_cs_decision *d)
{
	if (d->simulated)
		return BW_CS_IGNORED_SIMULATED;
	if (strcasecmp(d->scope, "ip") && strcasecmp(d->scope, "range"))
		return BW_CS_IGNORED_SCOPE;
	if (!in_list(s->types, d->type, false))
		return BW_CS_IGNORED_TYPE;
	if (filled(s->origins) && !in_list(s->origins, d->origin, false))
		return BW_CS_IGNORED_ORIGIN;
	if (filled(s->sc_in) && !in_list(s->sc_in, d->scenario, true))
		return BW_CS_IGNORED_ORIGIN;
	if (filled(s->sc_out) && in_list(s->sc_out, d->scenario, true))
		return BW_CS_IGNORED_ORIGIN;
	return -1;
}

int bw_cs_value_prefix(const char *scope, const char *value,
		       const unsigned int min_plen[2], struct bw_prefix *p)
{
	char err[BW_ERRLEN], addr[BW_CS_VALUE_MAX];
	const char *slash = strchr(value, '/');
	unsigned int plen = 0, host;
	bool range = !strcasecmp(scope, "range");
	size_t n = slash ? (size_t)(slash - value) : strlen(value);
	char *end;

	if (!n || n >= sizeof(addr))
		return -EINVAL;
	memcpy(addr, value, n);
	addr[n] = '\0';
	if (bw_parse_prefix(addr, p, err, sizeof(err)))
		return -EINVAL;
	host = p->plen;
	/* An IPv4-mapped IPv6 address came back as IPv4: its /len too. */
	if (slash) {
		if (slash[1] < '0' || slash[1] > '9' || strlen(slash + 1) > 3)
			return -EINVAL;
		plen = (unsigned int)strtoul(slash + 1, &end, 10);
		if (*end)
			return -EINVAL;
		if (p->family == BW_V4 && strchr(addr, ':')) {
			if (plen < 96)
				return -EINVAL;
			plen -= 96;
		}
		if (plen > host)
			return -EINVAL;
		p->plen = (__u8)plen;
	}
	/* An Ip is one address (/32, /128 allowed); a Range any prefix. */
	if (!range && p->plen != host)
		return -EINVAL;
	if (p->family == BW_V4) {
		p->lo = bw_mask_v4((__u32)p->lo, p->plen);
	} else {
		p->hi = bw_mask64(p->hi, p->plen);
		p->lo = p->plen > 64 ? bw_mask64(p->lo, p->plen - 64) : 0;
	}
	return p->plen < min_plen[p->family == BW_V4 ? 0 : 1] ? -ERANGE : 0;
}

/* ---- set up -------------------------------------------------------------- */

static char *dup_or_null(const char *s, bool *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*fail = true;
	return d;
}

struct bw_cs_set *bw_cs_set_new(const struct bw_cs_filter *f,
				const struct bw_cs_sink *sink)
{
	struct bw_cs_set *s = calloc(1, sizeof(*s));
	bool fail = false;

	if (!s)
		return NULL;
	s->types = dup_or_null(
		filled(f->types) ? f->types : BW_CS_DEFAULT_TYPES, &fail);
	s->origins = dup_or_null(f->origins, &fail);
	s->sc_in = dup_or_null(f->scenarios_containing, &fail);
	s->sc_out = dup_or_null(f->scenarios_not_containing, &fail);
	s->min_plen[0] = f->min_plen[0] ?: BW_CS_MIN_PLEN4;
	s->min_plen[1] = f->min_plen[1] ?: BW_CS_MIN_PLEN6;
	s->sink = *sink;
	if (fail) {
		bw_cs_set_free(s);
		return NULL;
	}
	return s;
}

void bw_cs_set_free(struct bw_cs_set *s)
{
	if (!s)
		return;
	free(s->types);
	free(s->origins);
	free(s->sc_in);
	free(s->sc_out);
	free(s->d);
	free(s->free);
	bw_cs_heap_free(&s->ends);
	bw_cs_idmap_free(&s->ids);
	bw_cs_valmap_free(&s->vals);
	bw_cs_strtab_free(&s->strs);
	free(s);
}

/* Stale entries outnumber the decisions: the heap is made again. */
static void heap_compact(struct bw_cs_set *s)
{
	struct bw_cs_heap *h = &s->ends;
	size_t i, n = 0;

	if (h->n < 2 * s->ids.t.n + 1024)
		return;
	for (i = 0; i < s->nd; i++)
		if (s->d[i].id)
			h->t[n++] = (struct bw_cs_end){ s->d[i].until_ms,
							s->d[i].id };
	h->n = n;
	bw_cs_heap_heapify(h);
}

/* ---- decisions ----------------------------------------------------------- */

static struct dec *held(const struct bw_cs_set *s, __s64 id)
{
	long i = bw_cs_idmap_get(&s->ids, id);

	return i < 0 ? NULL : &s->d[i];
}

static void drop(struct bw_cs_set *s, struct dec *d)
{
	__u32 slot = (__u32)(d - s->d);

	bw_cs_idmap_del(&s->ids, d->id);
	if (!bw_cs_valmap_dec(&s->vals, &d->p) && s->sink.uncover)
		s->sink.uncover(s->sink.ctx, &d->p);
	d->id = 0;
	/* Room was made when the slot was taken: this cannot fail. */
	s->free[s->nfree++] = slot;
}

/* A free slot, or -ENOMEM. */
static long take_slot(struct bw_cs_set *s)
{
	size_t cap;
	void *t;

	if (s->nfree)
		return s->free[--s->nfree];
	if (s->nd == s->capd) {
		cap = s->capd ? s->capd * 2 : 64;
		t = realloc(s->d, cap * sizeof(*s->d));
		if (!t)
			return -ENOMEM;
		s->d = t;
		t = realloc(s->free, cap * sizeof(*s->free));
		if (!t)
			return -ENOMEM;
		s->free = t;
		s->capd = cap;
	}
	/* Marked free until the decision is written in. */
	s->d[s->nd].id = 0;
	return (long)s->nd++;
}

static int intern(struct bw_cs_set *s, const char *str, __u32 *idx)
{
	long i = bw_cs_strtab_intern(&s->strs, str);

	if (i < 0)
		return (int)i;
	*idx = (__u32)i;
	return 0;
}

/* Takes d (checked) as a new decision on p. */
static int add(struct bw_cs_set *s, const struct bw_cs_decision *in,
	       const struct bw_prefix *p, __s64 until_ms, int *skip)
{
	struct dec d = { .id = in->id,
			 .p = *p,
			 .until_ms = until_ms,
			 .gen = s->gen,
			 .range = !strcasecmp(in->scope, "range") };
	long slot, n;
	int err;

	err = intern(s, in->origin, &d.origin);
	err = err ?: intern(s, in->scenario, &d.scenario);
	err = err ?: intern(s, in->type, &d.type);
	if (err)
		return err;
	slot = take_slot(s);
	if (slot < 0)
		return (int)slot;
	n = bw_cs_valmap_inc(&s->vals, p);
	err = n < 0 ? (int)n : 0;
	if (!err && bw_cs_idmap_put(&s->ids, d.id, (__u32)slot))
		err = -ENOMEM;
	if (!err)
		err = bw_cs_heap_push(&s->ends, until_ms, d.id);
	if (!err && n == 1 && s->sink.cover &&
	    s->sink.cover(s->sink.ctx, p, until_ms)) {
		*skip = BW_CS_REFUSED_FILTER;
		s->skipped[*skip]++;
		err = 1;
	}
	if (err) {
		if (n > 0)
			bw_cs_valmap_dec(&s->vals, p);
		bw_cs_idmap_del(&s->ids, d.id);
		s->d[slot].id = 0;
		s->free[s->nfree++] = (__u32)slot;
		return err > 0 ? 0 : err;
	}
	s->d[slot] = d;
	return 0;
}

static bool same(const struct bw_prefix *a, const struct bw_prefix *b)
{
	return a->hi == b->hi && a->lo == b->lo && a->family == b->family &&
	       a->plen == b->plen;
}

static int skip_as(struct bw_cs_set *s, int kind, int *skip)
{
	*skip = kind;
	s->skipped[kind]++;
	return 0;
}

/*
 * A deletion whose value other decisions held still cover: the LAPI (1.4)
 * sends one deletion a value however many decisions of it went, and one
 * decision a value in its answers (the longest), so only a full answer
 * says which of the others still hold.
 */
static void deleted_value(struct bw_cs_set *s, const struct bw_cs_decision *d)
{
	struct bw_prefix p;

	if (d->value[0] && d->scope[0] &&
	    !bw_cs_value_prefix(d->scope, d->value, s->min_plen, &p) &&
	    bw_cs_valmap_get(&s->vals, &p))
		s->want_resync = true;
}

bool bw_cs_set_want_resync(struct bw_cs_set *s)
{
	bool w = s->want_resync;

	s->want_resync = false;
	return w;
}

int bw_cs_set_apply(struct bw_cs_set *s, const struct bw_cs_decision *d,
		    __s64 now_ms, int *skip)
{
	struct dec *h = d->id > 0 ? held(s, d->id) : NULL;
	struct bw_prefix p;
	int kind, err;

	*skip = -1;
	if (d->list == BW_CS_DELETED) {
		if (d->refused[0])
			return skip_as(s, BW_CS_REFUSED_FIELD, skip);
		if (h) {
			drop(s, h);
			s->drift.removed++;
		}
		deleted_value(s, d);
		return 0;
	}
	if (d->refused[0])
		return skip_as(s, BW_CS_REFUSED_FIELD, skip);
	kind = filtered(s, d);
	if (kind < 0 && d->duration_ms <= 0)
		kind = BW_CS_IGNORED_EXPIRED;
	if (kind < 0) {
		err = bw_cs_value_prefix(d->scope, d->value, s->min_plen, &p);
		if (err)
			kind = err == -ERANGE ? BW_CS_REFUSED_WIDE
					      : BW_CS_REFUSED_VALUE;
	}
	/* Named again, the same: kept, its end by this answer. */
	if (h && kind < 0 && same(&h->p, &p)) {
		h->gen = s->gen;
		h->until_ms = now_ms + d->duration_ms;
		return bw_cs_heap_push(&s->ends, h->until_ms, h->id);
	}
	if (h) {
		drop(s, h);
		s->drift.removed++;
	}
	if (kind >= 0)
		return skip_as(s, kind, skip);
	err = add(s, d, &p, now_ms + d->duration_ms, skip);
	if (!err && !h && *skip < 0)
		s->drift.added++;
	return err;
}

void bw_cs_set_sync_begin(struct bw_cs_set *s)
{
	s->gen++;
	s->drift = (struct bw_cs_drift){ 0 };
}

struct bw_cs_drift bw_cs_set_sync_end(struct bw_cs_set *s)
{
	/* The full answer said what remains: no other one is needed. */
	s->want_resync = false;
	for (size_t i = 0; i < s->nd; i++)
		if (s->d[i].id && s->d[i].gen != s->gen) {
			drop(s, &s->d[i]);
			s->drift.removed++;
		}
	heap_compact(s);
	return s->drift;
}

size_t bw_cs_set_expire(struct bw_cs_set *s, __s64 now_ms, __s64 *next)
{
	size_t gone = 0;
	struct dec *d;

	struct bw_cs_heap *h = &s->ends;

	while (h->n && h->t[0].until_ms <= now_ms) {
		d = held(s, h->t[0].id);
		if (d && d->until_ms == h->t[0].until_ms) {
			drop(s, d);
			gone++;
		}
		bw_cs_heap_pop(h);
	}
	heap_compact(s);
	if (next)
		*next = h->n ? h->t[0].until_ms : -1;
	return gone;
}

size_t bw_cs_set_count(const struct bw_cs_set *s)
{
	return s->ids.t.n;
}

size_t bw_cs_set_values(const struct bw_cs_set *s)
{
	return s->vals.t.n;
}

__u64 bw_cs_set_skipped(const struct bw_cs_set *s, enum bw_cs_skip k)
{
	return k < BW_CS_SKIP_KINDS ? s->skipped[k] : 0;
}

unsigned int bw_cs_set_covers(const struct bw_cs_set *s,
			      const struct bw_prefix *p)
{
	return bw_cs_valmap_get(&s->vals, p);
}

int bw_cs_set_foreach(const struct bw_cs_set *s,
		      int (*fn)(void *ctx, const struct bw_cs_held *h),
		      void *ctx)
{
	struct bw_cs_held h;
	int ret;

	for (size_t i = 0; i < s->nd; i++) {
		const struct dec *d = &s->d[i];

		if (!d->id)
			continue;
		h = (struct bw_cs_held){
			.id = d->id,
			.p = d->p,
			.until_ms = d->until_ms,
			.origin = bw_cs_strtab_get(&s->strs, d->origin),
			.scenario = bw_cs_strtab_get(&s->strs, d->scenario),
			.type = bw_cs_strtab_get(&s->strs, d->type),
			.range = d->range,
		};
		ret = fn(ctx, &h);
		if (ret)
			return ret;
	}
	return 0;
}
