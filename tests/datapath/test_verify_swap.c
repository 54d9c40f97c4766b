// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Verify mode's swaps keep filter and exact trie in step, generation after
 * generation: each filter names the slot of its own trie, the other slot
 * is empty, and a filter whose slot is empty never drops.
 */
#include <unistd.h>

#include "bloomwall.h"
#include "lists_fixture.h"
#include "kernel/lpm.h"
#include "test_helpers.h"

static const char *const gen_a[] = { "10.1.0.0/16", "2001:db8:a::/48", NULL };
static const char *const gen_b[] = { "10.2.0.0/16", "2001:db8:b::/48", NULL };

/* Map id of the trie in a slot, 0 when the slot is empty. */
static __u32 slot_id(struct bw_dp *dp, __u32 slot)
{
	int fd = bw_exact_open(lf_exact_fd(dp), slot);
	__u32 id = bw_obj_id(fd);

	if (fd >= 0)
		close(fd);
	return id;
}

/* The running filter: its generation and slot, and the tries in the slots. */
static void expect_state(struct bw_dp *dp, const struct bw_built *b, __u64 gen,
			 bool verify)
{
	const struct bw_hdr *hdr = b->filter.mem;
	const struct bw_info *info =
		(const void *)((char *)b->filter.mem + BW_BLOCK_BYTES);
	struct bw_filter_map cur = BW_FILTER_MAP_INIT;
	__u32 live = hdr->exact_slot;

	if (ASSERT_OK(bw_prog_filter(dp->prog_fd, false, &cur), "open current"))
		ASSERT_EQ(cur.id, b->filter.id, "the new filter is live");
	bw_filter_close(&cur);
	ASSERT_EQ(info->generation, gen, "generation");
	ASSERT_EQ(!!(hdr->flags & BW_F_VERIFY), verify, "verify flag");
	if (verify)
		ASSERT_EQ(slot_id(dp, live), bw_obj_id(b->exact_fd),
			  "the slot it names holds its own trie");
	ASSERT_EQ(slot_id(dp, !live), 0, "the other slot is empty");
	if (!verify)
		ASSERT_EQ(slot_id(dp, live), 0, "no trie without verify");
}

static void expect_list(struct bw_dp *dp, const void *mem,
			const char *const *in, const char *const *out)
{
	struct bw_prefix a;

	for (; *in; in++) {
		a = bw_addr(*in);
		lf_expect(dp, &a, lf_drop(a.family));
	}
	for (; *out; out++) {
		a = bw_addr(*out);
		lf_expect(dp, &a, lf_outside(mem, &a));
	}
}

/*
 * Generation N with its trie, then N+1 with its own in the other slot:
 * staging the new trie changes nothing for the running filter; after the
 * swap the new filter names the new trie and the old one is gone; a
 * filter whose slot is empty passes its hits (false_pos), never drops.
 */
BW_TEST(test_verify_swap_generations)
{
	const char *const a_in[] = { "10.1.0.0", "2001:db8:a::1", NULL };
	const char *const b_in[] = { "10.2.255.255", "2001:db8:b::1", NULL };
	struct bw_built b1 = BW_BUILT_INIT, b2 = BW_BUILT_INIT,
			b3 = BW_BUILT_INIT;
	struct bw_build_req req;
	struct bw_dp dp = {};
	char *la[1], *lb[1];
	struct bw_prefix x;

	if (!bw_dp_open(&dp) || !lf_tmp_setup())
		goto out;
	la[0] = lf_write_list("a.txt", gen_a);
	lb[0] = lf_write_list("b.txt", gen_b);
	if (!la[0] || !lb[0] || !lf_build_swap(&dp, la, 1, true, 1, &b1))
		goto out;
	expect_state(&dp, &b1, 1, true);
	expect_list(&dp, b1.filter.mem, a_in, b_in);

	/* Gen 2 staged by hand: its trie in slot 1, the filter not yet. */
	lf_req_init(&req, lb, 1, true, 1, 2);
	if (!ASSERT_OK(bw_build_lists(&req, &b2), "build gen 2") ||
	    !ASSERT_OK(bw_exact_set(lf_exact_fd(&dp), 1, b2.exact_fd), "stage"))
		goto out;
	expect_list(&dp, b1.filter.mem, a_in, b_in);
	bw_exact_clear(lf_exact_fd(&dp), 1);
	ASSERT_OK(lf_swap_in(&dp, &b2, NULL), "swap gen 2");
	expect_state(&dp, &b2, 2, true);
	expect_list(&dp, b2.filter.mem, b_in, a_in);

	/* A filter naming an empty slot: hits pass as false_pos. */
	ASSERT_OK(bw_exact_clear(lf_exact_fd(&dp), 1), "clear live slot");
	x = bw_addr("10.2.0.1");
	lf_expect(&dp, &x, BW_OUT_FALSE_POS);

	/* Gen 3 without verify: both slots cleared, hits drop again. */
	ASSERT_OK(bw_exact_set(lf_exact_fd(&dp), 1, b2.exact_fd), "restore");
	if (!lf_build_swap(&dp, lb, 1, false, 3, &b3))
		goto out;
	expect_state(&dp, &b3, 3, false);
	ASSERT_EQ(slot_id(&dp, 1), 0, "gen 2's trie is gone");
	expect_list(&dp, b3.filter.mem, b_in, a_in);
out:
	bw_built_close(&b1);
	bw_built_close(&b2);
	bw_built_close(&b3);
	bw_dp_close(&dp);
	lf_tmp_cleanup();
}
