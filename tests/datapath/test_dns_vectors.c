// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The pinned name vectors of tests/vectors.h through the BPF program: for
 * each vector, filters holding exactly one of its keys as written there
 * (not recomputed), and a query for the vector's name. The query is
 * blocked only if the program, compiled by clang for BPF, computes that
 * key from the packet: the exact key for an exact entry, each suffix's
 * subtree key for a subtree entry. A filter holding a key one bit off
 * passes it, so the block is the key's and no accident of the filter.
 * tests/unit/test_names.c pins the same vectors for gcc.
 */
#include <stdio.h>
#include <string.h>

#include "dns_fixture.h"
#include "test_helpers.h"
#include "vectors.h"

static bool with_keys(struct bw_dp *dp, struct bw_filter_map *m,
		      const struct bw_name_vector *v, const __u64 *key,
		      bool exact)
{
	struct dns_filter f = { .seed = v->seed,
				.seed_set = true,
				.action = BW_DNS_DROP };

	if (exact) {
		f.exact_keys = key;
		f.nexact_keys = 1;
	} else {
		f.subtree_keys = key;
		f.nsubtree_keys = 1;
	}
	bw_filter_close(m);
	return ASSERT_OK(dns_commit(dp, &f, m), "commit");
}

static void check_vector(struct bw_dp *dp, struct bw_filter_map *m,
			 const struct bw_name_vector *v)
{
	struct dns_q q = { .src = "198.51.100.7" };
	char name[300], what[200];
	size_t len = strlen(v->name);
	struct dns_want miss;
	__u64 key;
	unsigned k;

	/* The query carries the name as written, case and all. */
	memcpy(name, v->name, len + 1);
	if (len && name[len - 1] == '.')
		name[len - 1] = '\0';
	q.name = name;
	miss = dns_want_query(&q);
	if (with_keys(dp, m, v, &v->exact, true)) {
		snprintf(what, sizeof(what), "%.40s seed %#x: exact key",
			 v->name, v->seed);
		dns_expect_blocked(dp, what, &q, BW_DNS_DROP, 0);
	}
	key = v->exact ^ 1;
	if (with_keys(dp, m, v, &key, true)) {
		snprintf(what, sizeof(what), "%.40s: exact key one bit off",
			 v->name);
		dns_expect_q(dp, what, &q, &miss);
	}
	for (k = 0; k < v->nlabels; k++) {
		if (!with_keys(dp, m, v, &v->suffix[k], false))
			continue;
		snprintf(what, sizeof(what), "%.40s: subtree key of suffix %u",
			 v->name, k + 1);
		dns_expect_blocked(dp, what, &q, BW_DNS_DROP, 0);
	}
	/* A subtree entry of the whole name's exact key matches nothing. */
	if (with_keys(dp, m, v, &v->exact, false)) {
		snprintf(what, sizeof(what), "%.40s: exact key as a subtree",
			 v->name);
		dns_expect_q(dp, what, &q, &miss);
	}
}

BW_TEST(test_dns_vectors_bpf)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	size_t i;

	if (!bw_dp_open(&dp))
		goto out;
	for (i = 0; i < BW_NNAME_VECTORS; i++)
		check_vector(&dp, &m, &bw_name_vectors[i]);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}
