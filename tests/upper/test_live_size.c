// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's sizing for live entries (user/daemon/live_size.c): an add
 * refused for want of a target length is kept and asks one rebuild, after
 * the settle time; once a rebuild sized for it went in, a second refusal
 * is counted and asks none (no rebuild loop); one placed is forgotten; a
 * rebuild that did not go in keeps it pending. Times are passed in: no
 * clock is read for the verdicts.
 */
#include <string.h>

#include "daemon/live_size.h"
#include "test_helpers.h"

BW_TEST(test_live_size_refused_once)
{
	struct bw_filter_map none = BW_FILTER_MAP_INIT;
	struct bw_prefix p = { .family = BW_V6, .plen = 48 };
	struct bw_live_room room;
	struct bw_wsize z;
	struct bw_live set;
	char why[160];
	double t = 1e9; /* far past any refusal's settle time */

	p.hi = 0x20010db800770000ULL;
	bw_wsize_init(&z);
	bw_live_init(&set);
	ASSERT_FALSE(bw_wsize_outgrown(&z, &set, &none, 0, t, why, sizeof(why)),
		     "nothing refused: nothing due");
	bw_wsize_refused(&z, &p);
	bw_wsize_refused(&z, &p);
	ASSERT_EQ(z.refused, 2, "both refusals counted");
	ASSERT_EQ(bw_wsize_pending(&z), 1, "kept once");
	ASSERT_TRUE(bw_wsize_outgrown(&z, &set, &none, 0, t, why, sizeof(why)),
		    "a rebuild for it");
	ASSERT_STREQ(why, "live entries: 1 refused for want of a target length",
		     "the trigger");
	ASSERT_FALSE(
		bw_wsize_outgrown(&z, &set, &none, 0, t + 1, why, sizeof(why)),
		"not again within the retry time");
	bw_wsize_begin(&z);
	bw_wsize_room(&z, &set, &room);
	ASSERT_EQ(room.count[BW_V6][48], 1, "the rebuild sizes for it");
	/* The rebuild did not go in: pending again, asked once more. */
	bw_wsize_end(&z, false);
	ASSERT_TRUE(
		bw_wsize_outgrown(&z, &set, &none, 0, t + 20, why, sizeof(why)),
		"asked again after a rebuild that failed");
	bw_wsize_begin(&z);
	bw_wsize_end(&z, true);
	bw_wsize_refused(&z, &p);
	ASSERT_EQ(z.refused, 3, "refused again: counted");
	ASSERT_FALSE(
		bw_wsize_outgrown(&z, &set, &none, 0, t + 40, why, sizeof(why)),
		"but no rebuild loop");
	bw_wsize_placed(&z, &p);
	bw_wsize_room(&z, &set, &room);
	ASSERT_EQ(room.count[BW_V6][48], 0, "placed: forgotten");
	bw_live_free(&set);
	bw_wsize_free(&z);
}
