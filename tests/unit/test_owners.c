// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The owners of added prefixes (user/filter/owners.c, records_edit.c,
 * records_index.c): an entry stays while any owner wants it, until the
 * latest end among them; one owner's remove takes its claim alone; a
 * shorter ban of one does not shorten another's; an add without an
 * owner is the anonymous owner's (as before owners); and the claims
 * survive the records written and read back, and the add log.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bloomwall.h"
#include "filter/owners.h"
#include "filter/records.h"
#include "filter/records_edit.h"
#include "filter/records_index.h"
#include "filter/records_read.h"
#include "filter/records_write.h"
#include "lists/list.h"
#include "test_helpers.h"
#include "unit.h"

#define NOW 1800000000ULL

/* k's end in r, or -1 when not added. */
static long long end_of(const struct bw_records *r, struct bw_entry_key k)
{
	long i = bw_records_find(r, k);

	return i < 0 ? -1 : (long long)r->added.v[i].expires;
}

BW_TEST(test_owner_names)
{
	ASSERT_OK(bw_owner_check("f2b-sshd"), "a jail");
	ASSERT_OK(bw_owner_check("A.b_c-9"), "every kind of character");
	ASSERT_OK(bw_owner_check("12345678901234567890123456789012"), "32");
	ASSERT_EQ(bw_owner_check("123456789012345678901234567890123"), -EINVAL,
		  "33 is too long");
	ASSERT_EQ(bw_owner_check(""), -EINVAL, "empty");
	ASSERT_EQ(bw_owner_check("f2b sshd"), -EINVAL, "a space");
	ASSERT_EQ(bw_owner_check("a\nb"), -EINVAL, "a newline");
	ASSERT_EQ(bw_owner_check("f2b/x"), -EINVAL, "a slash");
}

BW_TEST(test_owner_rules)
{
	struct bw_prefix a = bw_test_prefix("192.0.2.7");
	struct bw_entry_key k = bw_key_prefix(&a);
	struct bw_records r;
	__u64 end;

	bw_records_init(&r);
	/* sshd for 600 s, recidive for 3600 s: the later end. */
	ASSERT_EQ(bw_records_add_owned(&r, k, "f2b-sshd", NOW + 600), 1,
		  "sshd's ban new");
	ASSERT_EQ(bw_records_add_owned(&r, k, "f2b-recidive", NOW + 3600), 0,
		  "recidive's ban of the same address");
	ASSERT_EQ(end_of(&r, k), NOW + 3600, "the latest end");
	/* A shorter sshd ban does not shorten recidive's. */
	ASSERT_OK(bw_records_add_owned(&r, k, "f2b-sshd", NOW + 300),
		  "sshd bans again");
	ASSERT_EQ(end_of(&r, k), NOW + 3600, "still recidive's end");
	/* sshd's unban: recidive's ban stands. */
	ASSERT_EQ(bw_records_remove_owned(&r, k, "f2b-sshd", NOW + 20, &end),
		  BW_OWNED_KEPT, "sshd's claim went");
	ASSERT_EQ(end_of(&r, k), NOW + 3600, "kept until recidive's end");
	ASSERT_EQ(bw_records_remove_owned(&r, k, "f2b-sshd", NOW + 20, &end),
		  BW_OWNED_NOT, "sshd has no claim any more");
	/* The last owner's remove takes it out. */
	ASSERT_EQ(
		bw_records_remove_owned(&r, k, "f2b-recidive", NOW + 30, &end),
		BW_OWNED_GONE, "recidive's was the last");
	ASSERT_EQ(end_of(&r, k), -1, "taken out");
	/* Readded without an owner: no claim of before comes back. */
	ASSERT_EQ(bw_records_add_owned(&r, k, NULL, 0), 1, "anonymous");
	ASSERT_TRUE(!bw_owners_get(&r.owners, k), "no claims recorded");
	ASSERT_EQ(bw_records_remove_owned(&r, k, "f2b-sshd", NOW + 50, &end),
		  BW_OWNED_NOT, "not sshd's");
	/* The anonymous owner is one: an owner's remove leaves its claim. */
	ASSERT_OK(bw_records_add_owned(&r, k, "f2b-sshd", NOW + 600),
		  "sshd too");
	ASSERT_EQ(end_of(&r, k), 0, "the anonymous add never ends");
	ASSERT_EQ(bw_records_remove_owned(&r, k, "f2b-sshd", NOW + 70, &end),
		  BW_OWNED_KEPT, "kept by the anonymous owner");
	ASSERT_EQ(end_of(&r, k), 0, "still permanent");
	ASSERT_TRUE(!bw_owners_get(&r.owners, k), "the anonymous alone again");
	/* An owner whose end passed wants it no more. */
	ASSERT_OK(bw_records_add_owned(&r, k, NULL, NOW + 100),
		  "anonymous until +100 (replaces, as before owners)");
	ASSERT_EQ(end_of(&r, k), NOW + 100, "the anonymous end replaced");
	ASSERT_OK(bw_records_add_owned(&r, k, "f2b-a", NOW + 200),
		  "a until +200");
	ASSERT_EQ(bw_records_remove_owned(&r, k, "f2b-a", NOW + 150, &end),
		  BW_OWNED_GONE, "the anonymous end passed: out");
	/*
	 * fail2ban unbans at the bantime's end, maybe after another jail's
	 * ban: the claim past its end is still there to remove.
	 */
	bw_records_add_owned(&r, k, "f2b-sshd", NOW + 600);
	bw_records_add_owned(&r, k, "f2b-recidive", NOW + 3600);
	ASSERT_EQ(bw_records_remove_owned(&r, k, "f2b-sshd", NOW + 602, &end),
		  BW_OWNED_KEPT, "sshd's late unban finds its claim");
	ASSERT_EQ(end, NOW + 3600, "recidive's end");
	bw_records_free(&r);
}

/* The records of w written into a small filter and read back into r. */
static void *written(const struct bw_records *w, __u32 *nblocks,
		     struct bw_records *r)
{
	__u32 n = bw_records_blocks(w) + bw_records_room(w), tail;
	void *mem = bw_test_small_filter(n, &tail);

	*nblocks = tail + n;
	if (!mem || bw_records_write(mem, *nblocks, w) ||
	    bw_records_read(mem, *nblocks, r)) {
		free(mem);
		return NULL;
	}
	return mem;
}

BW_TEST(test_owner_records_and_log)
{
	struct bw_prefix a = bw_test_prefix("192.0.2.7"),
			 b = bw_test_prefix("2001:db8::/64");
	struct bw_entry_key ka = bw_key_prefix(&a), kb = bw_key_prefix(&b);
	struct bw_entries s, out, gone, kept;
	struct bw_owners own;
	struct bw_rec_index ix;
	struct bw_records w, r, r2;
	__u8 left[1];
	__u32 nb;
	void *mem;

	bw_records_init(&w);
	bw_records_init(&r2);
	bw_entries_init(&s);
	bw_entries_init(&out);
	bw_entries_init(&gone);
	bw_entries_init(&kept);
	bw_owners_init(&own);
	bw_rec_index_init(&ix);
	bw_records_add_owned(&w, ka, "f2b-sshd", NOW + 600);
	bw_records_add_owned(&w, ka, "f2b-recidive", NOW + 3600);
	bw_records_add_owned(&w, kb, NULL, 0);
	mem = written(&w, &nb, &r);
	if (!ASSERT_TRUE(mem != NULL, "written and read"))
		goto out;
	ASSERT_EQ(end_of(&r, ka), NOW + 3600, "a's end read");
	ASSERT_EQ(bw_owners_count(&r.owners), 2, "two claims read");
	ASSERT_TRUE(!bw_owners_get(&r.owners, kb), "b anonymous");
	ASSERT_TRUE(bw_records_same_added(&w, &r), "the same, owners too");
	/* Through the index, as the watch does: sshd's unban appended. */
	if (!ASSERT_OK(bw_rec_index_build(&ix, mem, nb, &r, 0), "the index"))
		goto out;
	bw_entries_push(&s, ka, 0);
	ASSERT_OK(bw_rec_index_plan_remove(&ix, &s, "f2b-sshd", NOW + 10, &gone,
					   &kept, &own, left),
		  "planned");
	ASSERT_TRUE(left[0] == BW_OWNED_KEPT && !gone.n && kept.n == 1 &&
			    kept.v[0].expires == NOW + 3600,
		    "kept until recidive's end");
	ASSERT_OK(bw_rec_index_add(&ix, mem, nb, &kept, &own), "appended");
	ASSERT_OK(bw_records_read(mem, nb, &r2), "read again");
	ASSERT_EQ(end_of(&r2, ka), NOW + 3600, "a's end from the log");
	ASSERT_EQ(bw_owners_count(&r2.owners), 1, "recidive's claim alone");
	ASSERT_FALSE(bw_records_same_added(&r, &r2),
		     "one claim less is a change, the ends the same");
	/* A shorter sshd ban through the index: recidive's end stays. */
	bw_entries_free(&out);
	bw_owners_free(&own);
	bw_entries_init(&out);
	bw_entries_free(&s);
	bw_entries_init(&s);
	bw_entries_push(&s, ka, NOW + 300);
	ASSERT_OK(bw_rec_index_plan_add(&ix, &s, "f2b-sshd", &out, &own),
		  "planned add");
	ASSERT_EQ(out.v[0].expires, NOW + 3600, "not shortened");
	ASSERT_OK(bw_rec_index_add(&ix, mem, nb, &out, &own), "appended");
	/* A plain add of a, appended without claims: anonymous alone. */
	bw_records_free(&r2);
	ASSERT_OK(bw_records_read(mem, nb, &r2), "read again");
	ASSERT_EQ(bw_owners_count(&r2.owners), 2, "sshd and recidive again");
	ASSERT_OK(bw_rec_index_add(&ix, mem, nb, &s, NULL), "plain append");
	bw_records_free(&r2);
	ASSERT_OK(bw_records_read(mem, nb, &r2), "read again");
	ASSERT_EQ(bw_owners_count(&r2.owners), 0,
		  "an entry appended without claims has none");
out:
	free(mem);
	bw_rec_index_free(&ix);
	bw_owners_free(&own);
	bw_entries_free(&s);
	bw_entries_free(&out);
	bw_entries_free(&gone);
	bw_entries_free(&kept);
	bw_records_free(&w);
	bw_records_free(&r);
	bw_records_free(&r2);
}

/* A claim naming no added entry (its entry taken out) is read as none. */
BW_TEST(test_owner_claims_of_no_entry)
{
	struct bw_prefix a = bw_test_prefix("192.0.2.7"),
			 b = bw_test_prefix("192.0.2.8");
	struct bw_records w, r;
	__u32 nb;
	void *mem;

	bw_records_init(&w);
	bw_records_add_owned(&w, bw_key_prefix(&a), "f2b-x", NOW + 60);
	/* b's claim alone, with no added entry b (a hostile or old area). */
	bw_owners_claim(&w.owners, bw_key_prefix(&b), "f2b-x", NOW + 60);
	mem = written(&w, &nb, &r);
	if (ASSERT_TRUE(mem != NULL, "written and read")) {
		ASSERT_EQ(bw_owners_count(&r.owners), 1, "a's claim alone");
		ASSERT_EQ(end_of(&r, bw_key_prefix(&b)), -1, "b not added");
	}
	free(mem);
	bw_records_free(&w);
	bw_records_free(&r);
}
