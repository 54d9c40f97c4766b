/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The owners of added prefixes ('add --owner NAME', e.g. a fail2ban jail):
 * each owner's claim on an entry with its own end. An entry stays while
 * any owner wants it, and ends at the latest end among them; a remove by
 * one owner takes out that owner's claim alone. An add without --owner is
 * an owner of its own, the anonymous one (name ""), whose add replaces
 * its end as before; an entry with no claims recorded has the anonymous
 * owner alone (every entry of an older bloomwall). CrowdSec's decisions
 * own their values the same way, by id, in the watch (net/cs_decisions.h);
 * these claims live in the records (include/bw_layout.h, BW_REC_OWNERS),
 * so that the CLI and the watch, which both change them, read one truth.
 * Pure: no clock (the caller gives now), no I/O.
 */
#ifndef __BW_OWNERS_H
#define __BW_OWNERS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "lists/entry.h"

/* An owner's name: 1 to BW_REC_OWNER_MAX of [A-Za-z0-9._-]. */
#define BW_OWNER_MAX BW_REC_OWNER_MAX

struct bw_claim {
	__u64 expires; /* Unix seconds this owner wants it until, 0: never */
	char name[BW_OWNER_MAX + 1]; /* "": the anonymous owner */
};

/* One entry's claims. */
struct bw_owned {
	struct bw_claim *v;
	__u32 n, cap;
};

/* The claims of the entries that have them, by entry. */
struct bw_owners {
	struct bw_entries keys; /* the entries, indexed; expires unused */
	struct bw_owned *of;	/* keys.n of them */
	size_t cap;
};

/* Whether name is an owner's name; -EINVAL (said by the caller) if not. */
int bw_owner_check(const char *name);

void bw_owners_init(struct bw_owners *o);
void bw_owners_free(struct bw_owners *o);

/* k's claims, or NULL: none recorded (the anonymous owner alone). */
const struct bw_owned *bw_owners_get(const struct bw_owners *o,
				     struct bw_entry_key k);

/* k's claims become those of set (copied; n 0: none). 0 or -ENOMEM. */
int bw_owners_put(struct bw_owners *o, struct bw_entry_key k,
		  const struct bw_owned *set);

/* One claim of k set (a reader's): name's end replaced. 0 or -ENOMEM. */
int bw_owners_claim(struct bw_owners *o, struct bw_entry_key k,
		    const char *name, __u64 expires);

/* Claims kept for k: none (k taken out whole, or re-added). */
void bw_owners_clear(struct bw_owners *o, struct bw_entry_key k);

/* dst's claims become src's: 0 or -ENOMEM. */
int bw_owners_copy(struct bw_owners *dst, const struct bw_owners *src);

/* Claims of the entries of added alone kept (the others went). */
int bw_owners_prune(struct bw_owners *o, struct bw_entries *added);

/* Whether a and b hold the same claims, each with the same end. */
bool bw_owners_same(const struct bw_owners *a, const struct bw_owners *b);

/* Claims recorded, all entries. */
size_t bw_owners_count(const struct bw_owners *o);

void bw_owned_free(struct bw_owned *s);

/*
 * An entry, as the records hold it: added (past its end or not) or not,
 * its end, and its claims (NULL: none recorded).
 */
struct bw_owned_entry {
	bool held;
	__u64 expires;
	const struct bw_owned *cur;
};

/*
 * An add of the entry e by name ("" or NULL: anonymous) until expires, at
 * now: *out its claims after it (n 0: none to record, the anonymous owner
 * alone) and *end the entry's end (the latest among them, 0: never).
 * Claims past their end go. 0 or -ENOMEM.
 */
int bw_owned_add(const struct bw_owned_entry *e, const char *name,
		 __u64 expires, struct bw_owned *out, __u64 *end);

/* What a remove by one owner does to an entry. */
enum bw_owned_left {
	BW_OWNED_NOT,  /* the owner has no claim on it: nothing */
	BW_OWNED_GONE, /* no other owner wants it: taken out */
	BW_OWNED_KEPT, /* other owners keep it, until *end */
};

/*
 * The remove of name's claim (name not anonymous) on e at now: the
 * outcome (or -ENOMEM); GONE when no claim left ends after now; KEPT
 * with *out the claims left (n 0: the anonymous owner alone) and *end
 * the entry's end.
 */
int bw_owned_remove(const struct bw_owned_entry *e, const char *name, __u64 now,
		    struct bw_owned *out, __u64 *end);

/* The latest end among s's claims (0: one never ends). */
__u64 bw_owned_end(const struct bw_owned *s);

#endif /* __BW_OWNERS_H */
