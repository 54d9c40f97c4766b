// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Live entries in place (user/filter/live.c) under the real program: a
 * reader thread runs BPF_PROG_TEST_RUN with frames from every base key
 * and every stable live entry while a writer thread deletes and re-adds
 * other live entries through the filter map's mmap, in the same blocks
 * (a small filter: every block holds keys of all three). Not one of at
 * least 10^6 lookups may pass (no false negative, also transiently); the
 * counters say so too. (One run a frame: a repeat above 1 makes each
 * BPF_PROG_TEST_RUN of XDP switch the kernel's XDP dispatcher, which
 * takes milliseconds.) Then the
 * churned entries, taken out for good, stop matching but for false
 * positives, and the filter is as built again once all go.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "datapath.h"
#include "filter/live.h"
#include "test_helpers.h"

#define LIVE_BASE 3000
#define LIVE_STABLE 1000
#define LIVE_CHURN 1000
#define LIVE_LOOKUPS 1000000ULL

struct live_dp {
	struct bw_filter_map m;
	struct bw_live set;
	struct bw_prefix churn[LIVE_CHURN];
	struct bw_prefix stable[LIVE_STABLE];
	volatile int stop;
	__u64 writes; /* deletes and adds done in place */
	int err;
};

static struct bw_prefix host_v4(__u64 *seed)
{
	struct bw_prefix p = { .family = BW_V4, .plen = 32 };

	p.lo = (__u32)bw_test_splitmix64(seed) | 0x01000000; /* not 0/8 */
	return p;
}

static void *writer(void *arg)
{
	struct live_dp *t = arg;
	int i;

	while (!t->stop) {
		for (i = 0; i < LIVE_CHURN && !t->err; i++)
			t->err = bw_live_del(&t->set, t->m.mem, &t->churn[i]);
		for (i = 0; i < LIVE_CHURN && !t->err; i++)
			t->err =
				bw_live_add(&t->set, t->m.mem, &t->churn[i], 0);
		t->writes += 2 * LIVE_CHURN;
	}
	return NULL;
}

/* Frames of every base key and stable entry, each run once. */
static int read_all(struct bw_dp *dp, __u8 (*frames)[BW_PKT_MAX],
		    const size_t *len, size_t n, __u64 *runs, __u64 *passed)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts, .repeat = 1);
	struct bw_stats before, after;
	size_t i;
	int err;

	err = bw_dp_stats(dp, &before);
	for (i = 0; !err && i < n; i++) {
		topts.data_in = frames[i];
		topts.data_size_in = len[i];
		if (bpf_prog_test_run_opts(dp->prog_fd, &topts))
			err = -errno;
		*passed += !err && topts.retval != XDP_DROP;
	}
	if (!err)
		err = bw_dp_stats(dp, &after);
	if (err)
		return err;
	*runs += n;
	/* The counters agree: every run a drop. */
	return after.passed == before.passed ? 0 : -EBADMSG;
}

BW_TEST(test_live_inplace_no_false_negative)
{
	struct bw_build_opts o = { .fpr = 0.01,
				   .seed = 11,
				   .flags = BW_F_MATCH_SRC };
	struct bw_pkt_spec spec = { 0 };
	struct bw_prefix dst = { .lo = 0xc0000201,
				 .family = BW_V4,
				 .plen = 32 };
	__u8(*frames)[BW_PKT_MAX] = NULL;
	struct live_dp t = { .m = BW_FILTER_MAP_INIT };
	struct bw_prefix *base = NULL;
	__u64 seed = 77, runs = 0, passed = 0, still = 0;
	size_t *len = NULL, n = 0, i;
	void *built = NULL;
	struct bw_list l;
	pthread_t th;
	struct bw_dp dp;

	bw_list_init(&l);
	bw_live_init(&t.set);
	if (!bw_dp_open(&dp))
		return;
	base = calloc(LIVE_BASE, sizeof(*base));
	frames = calloc(LIVE_BASE + LIVE_STABLE, sizeof(*frames));
	len = calloc(LIVE_BASE + LIVE_STABLE, sizeof(*len));
	if (!ASSERT_TRUE(base && frames && len, "memory"))
		goto out;
	for (i = 0; i < LIVE_BASE; i++) {
		base[i] = host_v4(&seed);
		bw_list_push(&l, &base[i]);
	}
	bw_list_finish(&l);
	if (!ASSERT_OK(bw_dp_commit_list(&dp, &l, &o, &t.m), "commit"))
		goto out;
	built = malloc((size_t)t.m.nblocks * BW_BLOCK_BYTES);
	if (!ASSERT_OK_PTR(built, "copy"))
		goto out;
	memcpy(built, t.m.mem, (size_t)t.m.nblocks * BW_BLOCK_BYTES);
	ASSERT_OK(bw_live_layout(&t.set, t.m.mem), "layout");
	for (i = 0; i < LIVE_BASE; i++)
		len[n++] = bw_pkt_build_addr(&spec, &base[i], &dst, frames[i]);
	for (i = 0; i < LIVE_STABLE; i++) {
		t.stable[i] = host_v4(&seed);
		ASSERT_OK(bw_live_add(&t.set, t.m.mem, &t.stable[i], 0),
			  "stable add");
		len[n] =
			bw_pkt_build_addr(&spec, &t.stable[i], &dst, frames[n]);
		n++;
	}
	for (i = 0; i < LIVE_CHURN; i++) {
		t.churn[i] = host_v4(&seed);
		ASSERT_OK(bw_live_add(&t.set, t.m.mem, &t.churn[i], 0),
			  "churn add");
	}
	if (!ASSERT_OK(pthread_create(&th, NULL, writer, &t), "writer"))
		goto out;
	while (runs < LIVE_LOOKUPS && !t.err)
		if (!ASSERT_OK(read_all(&dp, frames, len, n, &runs, &passed),
			       "test run"))
			break;
	t.stop = 1;
	pthread_join(th, NULL);
	ASSERT_OK(t.err, "writer's deletes and adds");
	ASSERT_GE(runs, LIVE_LOOKUPS, "lookups");
	ASSERT_GE(t.writes, 2 * LIVE_CHURN, "in-place writes meanwhile");
	ASSERT_EQ_U64(passed, 0, "false negatives while the writer ran");
	if (getenv("BW_TEST_VERBOSE"))
		fprintf(stderr, "  %llu lookups, %llu in-place writes\n",
			(unsigned long long)runs, (unsigned long long)t.writes);

	/* The churned ones out for good: gone but for false positives. */
	for (i = 0; i < LIVE_CHURN; i++)
		bw_live_del(&t.set, t.m.mem, &t.churn[i]);
	for (i = 0; i < LIVE_CHURN; i++) {
		__u8 f[BW_PKT_MAX];
		size_t fl = bw_pkt_build_addr(&spec, &t.churn[i], &dst, f);

		still += bw_dp_verdict(&dp, f, fl) == BW_OUT_DROP_V4;
	}
	/* An overfull filter (base, stable and churn in few blocks). */
	ASSERT_LE(still, LIVE_CHURN / 2, "deleted entries stop matching");
	passed = 0;
	runs = 0;
	ASSERT_OK(read_all(&dp, frames, len, n, &runs, &passed), "after");
	ASSERT_EQ_U64(passed, 0, "base and stable still dropped");
	for (i = 0; i < LIVE_STABLE; i++)
		bw_live_del(&t.set, t.m.mem, &t.stable[i]);
	ASSERT_TRUE(
		!memcmp(built, t.m.mem, (size_t)t.m.nblocks * BW_BLOCK_BYTES),
		"all out: the filter as built");
out:
	bw_live_free(&t.set);
	bw_filter_close(&t.m);
	bw_list_free(&l);
	free(built);
	free(base);
	free(frames);
	free(len);
	bw_dp_close(&dp);
}
