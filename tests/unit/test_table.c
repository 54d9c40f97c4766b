// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The open-addressing table (user/base/table.c): against a plain array
 * of what should be in it, under hashes that spread keys, pile them on a
 * few homes, and pile them on the last slots so every run wraps around.
 */
#include <stdlib.h>
#include <string.h>

#include "base/table.h"
#include "bw_hash.h"
#include "test_helpers.h"

/* A slot: the table's tag, a value, a key. */
struct item {
	__u32 tag;
	__u32 val;
	__u32 key;
};

#define UNIVERSE 600

static bool item_is(const void *slot, const void *key)
{
	return ((const struct item *)slot)->key == *(const __u32 *)key;
}

static __u64 spread(const void *key)
{
	return bw_mix64(*(const __u32 *)key);
}

/* Eight homes: long runs that interleave. */
static __u64 few_homes(const void *key)
{
	return *(const __u32 *)key % 8 * 0x1000001ULL;
}

/* The last three slots of any size: every run wraps to the start. */
static __u64 at_the_end(const void *key)
{
	return ~0ULL - *(const __u32 *)key % 3;
}

/*
 * Whether t holds exactly the keys with want[key] set, each once, with
 * its value (key * 7 + gen[key]): found by key and seen by a walk.
 */
static int mismatches(const struct bw_table *t, const bool *want,
		      const __u32 *gen)
{
	int seen[UNIVERSE] = { 0 }, bad = 0;
	const struct item *it;
	size_t i = 0, n = 0;
	__u32 k;

	for (k = 0; k < UNIVERSE; k++) {
		it = bw_table_find(t, &k);
		if (!want[k] != !it || (it && it->val != k * 7 + gen[k]))
			bad++;
		n += want[k];
	}
	while ((it = bw_table_next(t, &i))) {
		if (it->key >= UNIVERSE || !want[it->key] || seen[it->key]++)
			bad++;
	}
	return bad + (t->n != n);
}

/* Random puts and deletes, checked after every step. */
static void churn(__u64 (*hash)(const void *key), const char *what)
{
	bool want[UNIVERSE] = { false }, added;
	__u32 gen[UNIVERSE] = { 0 }, k;
	int step, bad = 0, dels = 0;
	struct bw_table t;
	struct item *it;

	srand(7);
	bw_table_init(&t, sizeof(struct item), hash, item_is);
	for (step = 0; step < 6000; step++) {
		/* Fill to ~400 of 600, then hold around there. */
		k = (__u32)rand() % UNIVERSE;
		if (want[k] && rand() % 3) {
			it = bw_table_find(&t, &k);
			if (!it) {
				bad++;
				continue;
			}
			bw_table_del(&t, it);
			want[k] = false;
			dels++;
		} else {
			it = bw_table_put(&t, &k, &added);
			if (!it || added == want[k]) {
				bad++;
				continue;
			}
			if (added) {
				it->key = k;
				gen[k] = (__u32)step;
			}
			it->val = k * 7 + gen[k];
			want[k] = true;
		}
		if (step % 50 == 0 || step > 5900)
			bad += mismatches(&t, want, gen);
	}
	ASSERT_EQ(bad, 0, what);
	ASSERT_GE(dels, 1000, "deletes made");
	ASSERT_LE(t.n * 4, t.cap * 3, "at most 3/4 full");
	bw_table_free(&t);
	ASSERT_EQ(t.n, 0, "freed: empty");
	ASSERT_TRUE(bw_table_find(&t, &k) == NULL, "freed: nothing found");
}

BW_TEST(test_table_churn)
{
	churn(spread, "mixed hashes");
	churn(few_homes, "eight homes");
	churn(at_the_end, "runs wrapping around");
}

/* Deleting during a walk, each from the index del returns. */
static void walk_deleting(__u64 (*hash)(const void *key), const char *what)
{
	bool want[UNIVERSE] = { false }, added;
	__u32 gen[UNIVERSE] = { 0 }, k;
	struct bw_table t;
	struct item *it;
	size_t i = 0;
	int visits = 0;

	bw_table_init(&t, sizeof(struct item), hash, item_is);
	for (k = 0; k < 300; k++) {
		it = bw_table_put(&t, &k, &added);
		it->key = k;
		it->val = k * 7;
		want[k] = k % 3 != 0;
	}
	while ((it = bw_table_next(&t, &i))) {
		visits++;
		if (it->key % 3 == 0)
			i = bw_table_del(&t, it);
	}
	ASSERT_EQ(mismatches(&t, want, gen), 0, what);
	ASSERT_EQ(t.n, 200, "a third taken out");
	ASSERT_GE(visits, 300, "every slot seen");
	bw_table_free(&t);
}

BW_TEST(test_table_walk_deleting)
{
	walk_deleting(spread, "mixed hashes");
	walk_deleting(few_homes, "eight homes");
	walk_deleting(at_the_end, "runs wrapping around");
}

BW_TEST(test_table_grow_and_clear)
{
	struct bw_table t;
	struct item *it;
	size_t cap, bytes;
	bool added;
	__u32 k;

	bw_table_init(&t, sizeof(struct item), spread, item_is);
	ASSERT_EQ(bw_table_bytes(&t), 0, "nothing held before the first put");
	for (k = 0; k < 12; k++) {
		it = bw_table_put(&t, &k, &added);
		it->key = k;
	}
	cap = t.cap;
	ASSERT_EQ(cap, 16, "12 in the first 16 slots");
	k = 5;
	it = bw_table_put(&t, &k, &added);
	ASSERT_FALSE(added, "a key there is found, not added");
	ASSERT_EQ(t.cap, cap, "and the table does not grow for it");
	ASSERT_EQ(it->key, 5, "its slot");
	k = 12;
	it = bw_table_put(&t, &k, &added);
	ASSERT_TRUE(it && added, "a new key");
	it->key = k;
	ASSERT_EQ(t.cap, 32, "the 13th doubles the table");
	for (k = 0; k < 13; k++)
		if (!ASSERT_OK_PTR(bw_table_find(&t, &k),
				   "kept through growth"))
			break;
	bytes = bw_table_bytes(&t);
	ASSERT_EQ(bytes, 32 * sizeof(struct item), "32 slots");
	bw_table_clear(&t);
	ASSERT_EQ(t.n, 0, "cleared");
	ASSERT_EQ(bw_table_bytes(&t), bytes, "clear keeps the memory");
	k = 3;
	ASSERT_TRUE(bw_table_find(&t, &k) == NULL, "cleared: gone");
	it = bw_table_put(&t, &k, &added);
	ASSERT_TRUE(added && it->key == 0 && it->val == 0,
		    "a slot after clear comes zeroed");
	bw_table_free(&t);
	ASSERT_EQ(bw_table_bytes(&t), 0, "freed");
}

/* A key as u64: written by put; 0 and negative ids are keys like others. */
BW_TEST(test_table_u64)
{
	struct idslot {
		__u32 tag;
		__u32 val;
		__s64 id;
	} * e;
	struct bw_table t;
	__s64 id, ids[] = { 0, -1, 1, 1LL << 40, -(1LL << 62) };
	size_t j, i = 0;
	bool added;
	int bad = 0;

	bw_table_init_u64(&t, sizeof(*e));
	for (j = 0; j < 5; j++) {
		e = bw_table_put(&t, &ids[j], &added);
		if (!e || !added || e->id != ids[j])
			bad++;
		else
			e->val = (__u32)j;
	}
	for (id = 1000; id < 21000; id++) {
		e = bw_table_put(&t, &id, &added);
		if (!e || e->id != id)
			bad++;
		else
			e->val = (__u32)id;
	}
	ASSERT_EQ(bad, 0, "puts");
	ASSERT_EQ(t.n, 20005, "all in");
	for (j = 0; j < 5; j++) {
		e = bw_table_find(&t, &ids[j]);
		ASSERT_TRUE(e && e->val == j, "found with its value");
	}
	for (id = 1000; id < 21000; id += 2)
		bw_table_del(&t, bw_table_find(&t, &id));
	for (id = 1000; id < 21000; id++) {
		e = bw_table_find(&t, &id);
		if (id % 2 ? !e || e->val != id : e != NULL)
			bad++;
	}
	ASSERT_EQ(bad, 0, "the odd ones left, the even ones gone");
	id = 2000;
	ASSERT_TRUE(bw_table_find(&t, &id) == NULL, "a deleted id");
	for (j = 0; (e = bw_table_next(&t, &i)); j++)
		;
	ASSERT_EQ(j, 10005, "a walk sees each once");
	bw_table_free(&t);
}

/* A key that is not the slot's bytes: a string the slot points to. */
struct word {
	__u32 tag;
	int n;
	const char *s;
};

static __u64 str_hash(const void *key)
{
	const char *s = key;
	__u64 h = 0;

	while (*s)
		h = h * 31 + (unsigned char)*s++;
	return bw_mix64(h);
}

static bool word_is(const void *slot, const void *key)
{
	return !strcmp(((const struct word *)slot)->s, key);
}

BW_TEST(test_table_string_keys)
{
	const char *text[] = { "ssh-bf", "crowdsec", "ssh-bf",
			       "cscli",	 "crowdsec", "ssh-bf" };
	struct bw_table t;
	struct word *w;
	bool added;
	size_t j;

	bw_table_init(&t, sizeof(*w), str_hash, word_is);
	for (j = 0; j < 6; j++) {
		w = bw_table_put(&t, text[j], &added);
		if (added)
			w->s = text[j];
		w->n++;
	}
	ASSERT_EQ(t.n, 3, "three distinct words");
	w = bw_table_find(&t, "ssh-bf");
	ASSERT_TRUE(w && w->n == 3, "counted three times");
	w = bw_table_find(&t, "cscli");
	ASSERT_TRUE(w && w->n == 1, "once");
	ASSERT_TRUE(bw_table_find(&t, "ssh") == NULL, "a prefix is not a key");
	bw_table_free(&t);
}
