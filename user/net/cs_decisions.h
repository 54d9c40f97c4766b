/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The CrowdSec decisions a bouncer holds, by id, and what they cover, by
 * value. A value (an address or a prefix) may be named by several
 * decisions at once: several origins or scenarios, a ban re-added or
 * extended before it ended (cs-firewall-bouncer #243, #509; crowdsec
 * #3373). It is covered from its first decision until its last one is
 * deleted or ends; a deletion names a decision id, never a value. The set
 * says only those two transitions (cover, uncover), to whatever keeps the
 * filter.
 *
 * Each decision ends by this set's own clock too (now + its duration when
 * it came): one that expires while the LAPI cannot be reached still goes.
 * A full answer (startup=true) is a resync: decisions held but not in it
 * are deleted, new ones added, the others kept (their ends updated).
 * Crowdsec's LAPI (1.4) names one decision a value in its answers (the
 * longest) and one deletion a value when several go at once: a deletion
 * of a value still covered here makes the set ask for a full answer.
 *
 * What is enforced: scopes Ip and Range (any case; an Ip value may carry
 * /32 or /128), types in the filter's list (ban by default), origins and
 * scenarios as filtered, not simulated. A range wider than the limits is
 * refused and counted. Pure: no clock (the caller gives now), no I/O.
 */
#ifndef __BW_CS_DECISIONS_H
#define __BW_CS_DECISIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "lists/list.h"
#include "net/cs_stream.h"

/* Default widest range taken: /8 for IPv4, /19 for IPv6 (README). */
#define BW_CS_MIN_PLEN4 8
#define BW_CS_MIN_PLEN6 19
#define BW_CS_DEFAULT_TYPES "ban"

/* What is taken; lists are comma-separated, NULL or "" for no filter. */
struct bw_cs_filter {
	const char *types; /* NULL: BW_CS_DEFAULT_TYPES */
	const char *origins;
	const char *scenarios_containing;
	const char *scenarios_not_containing;
	unsigned int min_plen[2]; /* by family; 0: the defaults above */
};

/* Why a decision was not taken: refused (a problem) or ignored (filter). */
enum bw_cs_skip {
	BW_CS_REFUSED_FIELD,  /* a bad field (cs_fields.c) */
	BW_CS_REFUSED_VALUE,  /* not an address or prefix of its scope */
	BW_CS_REFUSED_WIDE,   /* a range wider than the limit */
	BW_CS_REFUSED_FILTER, /* the running filter could not take it */
	BW_CS_IGNORED_SCOPE,  /* Country, AS, Username... */
	BW_CS_IGNORED_TYPE,   /* captcha, throttle... (not in types) */
	BW_CS_IGNORED_ORIGIN, /* origins, scenarios_(not_)containing */
	BW_CS_IGNORED_SIMULATED,
	BW_CS_IGNORED_EXPIRED, /* a new one whose duration is over */
	BW_CS_SKIP_KINDS,
};

/* The names of enum bw_cs_skip for logs, status and metrics. */
extern const char *const bw_cs_skip_names[BW_CS_SKIP_KINDS];

/*
 * A value's transitions. cover: 0 or -errno (the decision is then
 * refused, BW_CS_REFUSED_FILTER, and not held); until is the end (Unix
 * ms) of the decision that covers it first.
 */
struct bw_cs_sink {
	int (*cover)(void *ctx, const struct bw_prefix *p, __s64 until_ms);
	void (*uncover)(void *ctx, const struct bw_prefix *p);
	void *ctx;
};

/* One decision held, as the set shows it (bw_cs_set_foreach). */
struct bw_cs_held {
	__s64 id;
	struct bw_prefix p;
	__s64 until_ms; /* its end, by the set's clock (Unix ms) */
	const char *origin, *scenario, *type;
	bool range; /* scope Range (else Ip) */
};

struct bw_cs_set;

/* A set with filter f (copied) and sink; NULL when out of memory. */
struct bw_cs_set *bw_cs_set_new(const struct bw_cs_filter *f,
				const struct bw_cs_sink *sink);
void bw_cs_set_free(struct bw_cs_set *s);

/* A full answer starts: what it does not name goes at bw_cs_set_sync_end. */
void bw_cs_set_sync_begin(struct bw_cs_set *s);

/*
 * What a full answer changed of the decisions held: ones it named that
 * were not held (put in), held ones it did not name, named deleted or
 * changed (taken out; a changed one counts once, as taken out).
 */
struct bw_cs_drift {
	__u64 added, removed;
};

/*
 * The full answer ended whole: decisions held but not in it are deleted.
 * (A full answer that failed is not ended: nothing is deleted.) Returns
 * what it changed.
 */
struct bw_cs_drift bw_cs_set_sync_end(struct bw_cs_set *s);

/*
 * One decision of an answer, at now_ms (Unix ms). 0, or -ENOMEM. What is
 * not taken is counted (bw_cs_set_skipped) and *skip says why (-1 when
 * it was taken or was a deletion).
 */
int bw_cs_set_apply(struct bw_cs_set *s, const struct bw_cs_decision *d,
		    __s64 now_ms, int *skip);

/*
 * Whether a deletion came for a value that other decisions held still
 * cover (cleared by the call): the LAPI sends one deletion a value however
 * many of its decisions went, so the caller asks for a full answer
 * (startup=true) next, which names the ones that remain.
 */
bool bw_cs_set_want_resync(struct bw_cs_set *s);

/*
 * Removes the decisions whose end is at or before now_ms. Returns how many
 * went; *next (if not NULL) is the next end (Unix ms), or -1 for none.
 */
size_t bw_cs_set_expire(struct bw_cs_set *s, __s64 now_ms, __s64 *next);

size_t bw_cs_set_count(const struct bw_cs_set *s);  /* decisions held */
size_t bw_cs_set_values(const struct bw_cs_set *s); /* values covered */
__u64 bw_cs_set_skipped(const struct bw_cs_set *s, enum bw_cs_skip k);

/* Whether a value is covered, and by how many decisions (0: not). */
unsigned int bw_cs_set_covers(const struct bw_cs_set *s,
			      const struct bw_prefix *p);

/* Calls fn for each decision held, in no order; fn's non-zero stops. */
int bw_cs_set_foreach(const struct bw_cs_set *s,
		      int (*fn)(void *ctx, const struct bw_cs_held *h),
		      void *ctx);

/*
 * A decision's value as a prefix, by its scope: 0, -EINVAL (not an
 * address or prefix of that scope) or -ERANGE (wider than min_plen).
 */
int bw_cs_value_prefix(const char *scope, const char *value,
		       const unsigned int min_plen[2], struct bw_prefix *p);

#endif /* __BW_CS_DECISIONS_H */
