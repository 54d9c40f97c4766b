// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The runner's own assertions (tests/test_helpers.h): ASSERT_LE and
 * ASSERT_GE compare integers as integers and floating values as such, say
 * each value as its type, evaluate each argument once, and every ASSERT_*
 * counts as an assertion made. A check that must fail is run with stderr
 * captured and its failure taken back from the test's count.
 */
#include <limits.h>
#include <stdint.h>
#include <unistd.h>

#include "test_helpers.h"
#include "unit.h"

/*
 * Runs the assertion expr, which must fail: true when it did, with its
 * message in *msg (free it). The failure is not the test's.
 */
#define EXPECT_FAIL(expr, msg)                                              \
	({                                                                  \
		int ___before = bw_test_failed_asserts;                     \
		struct bw_capture ___cap;                                   \
		bool ___ret;                                                \
		bw_capture_start(&___cap);                                  \
		___ret = !(expr);                                           \
		*(msg) = bw_capture_end(&___cap);                           \
		___ret = ___ret && bw_test_failed_asserts == ___before + 1; \
		bw_test_failed_asserts = ___before;                         \
		___ret;                                                     \
	})

BW_TEST(test_assert_cmp_unsigned_exact)
{
	unsigned long long max = ULLONG_MAX;
	char *msg;

	/* As doubles both are 2^64: the old macro let this pass. */
	ASSERT_TRUE(EXPECT_FAIL(ASSERT_GE(max - 1, max, "u64"), &msg),
		    "max - 1 >= max fails");
	ASSERT_STRSTR(
		msg,
		"u64: actual 18446744073709551614 < bound 18446744073709551615",
		"unsigned values printed as unsigned");
	free(msg);
	ASSERT_LE(max - 1, max, "max - 1 <= max");
	ASSERT_GE(max, max, "max >= max");
}

BW_TEST(test_assert_cmp_signed_exact)
{
	long long big = (1LL << 53) + 1; /* a double cannot hold it */
	char *msg;

	ASSERT_TRUE(EXPECT_FAIL(ASSERT_LE(big, big - 1, "2^53+1"), &msg),
		    "2^53 + 1 <= 2^53 fails");
	ASSERT_STRSTR(
		msg, "2^53+1: actual 9007199254740993 > bound 9007199254740992",
		"signed values printed in full");
	free(msg);
	ASSERT_TRUE(EXPECT_FAIL(ASSERT_GE(-5, 3, "neg"), &msg),
		    "-5 >= 3 fails");
	ASSERT_STRSTR(msg, "neg: actual -5 < bound 3",
		      "negative printed signed");
	free(msg);
	ASSERT_LE(LLONG_MIN, LLONG_MAX, "min <= max");
}

BW_TEST(test_assert_cmp_mixed_sign)
{
	size_t len = 3;
	char *msg;

	/* C's conversions would make -1 the largest unsigned value. */
	ASSERT_LE(-1, 0u, "-1 <= 0u");
	ASSERT_GE(0u, -1, "0u >= -1");
	ASSERT_LE(-1, ULLONG_MAX, "-1 <= ULLONG_MAX");
	ASSERT_LE(len, 100, "size_t against int");
	ASSERT_TRUE(EXPECT_FAIL(ASSERT_GE(-1, 0u, "-1 >= 0u"), &msg),
		    "-1 >= 0u fails");
	ASSERT_STRSTR(msg, "-1 >= 0u: actual -1 < bound 0", "each as its type");
	free(msg);
	ASSERT_TRUE(
		EXPECT_FAIL(ASSERT_LE(ULLONG_MAX, LLONG_MAX, "u > s"), &msg),
		"ULLONG_MAX <= LLONG_MAX fails");
	free(msg);
}

BW_TEST(test_assert_cmp_floating)
{
	double rate = 0.0011;
	char *msg;

	ASSERT_LE(0.1, 0.2, "doubles");
	ASSERT_LE(1, 1.5, "an int under a double bound");
	ASSERT_GE(2.5, 2, "a double over an int bound");
	ASSERT_GE(1.0f, 0.5, "float");
	ASSERT_TRUE(EXPECT_FAIL(ASSERT_LE(rate, 0.001, "rate"), &msg),
		    "0.0011 <= 0.001 fails");
	ASSERT_STRSTR(msg, "rate: actual 0.0011 > bound 0.001",
		      "doubles printed as doubles");
	free(msg);
	ASSERT_TRUE(EXPECT_FAIL(ASSERT_GE(2, 2.5, "int < double"), &msg),
		    "2 >= 2.5 fails (no truncation of the bound)");
	ASSERT_STRSTR(msg, "int < double: actual 2 < bound 2.5",
		      "the int printed as an int");
	free(msg);
}

BW_TEST(test_assert_cmp_evaluates_once)
{
	int i = 0, j = 10;

	ASSERT_LE(i++, j--, "i <= j");
	ASSERT_EQ(i, 1, "actual evaluated once");
	ASSERT_EQ(j, 9, "bound evaluated once");
}

BW_TEST(test_assert_counts)
{
	int before = bw_test_asserts;

	ASSERT_TRUE(true, "one");
	ASSERT_FALSE(false, "two");
	ASSERT_STREQ("a", "a", "three");
	/* The ASSERT_EQ itself is the fourth. */
	ASSERT_EQ(bw_test_asserts - before, 4, "each ASSERT_* counted");
}

/* ---- the runner: RUN_TEST_NAMED's verdicts ---- */

static void no_assertion(void)
{
}

static void skipped_without_assertion(void)
{
	TEST_SKIP("nothing to test here");
}

static void one_assertion(void)
{
	ASSERT_TRUE(true, "true");
}

struct verdict {
	int passed, failed, skipped;
	char *out, *err; /* what the runner printed (free them) */
};

/*
 * Runs fn as the suite runs a test, stdout and stderr captured, and gives
 * back the counters it moved; the running test's own state is restored.
 */
static void run_nested(void (*fn)(void), const char *name, struct verdict *v)
{
	int asserts = bw_test_asserts, failed = bw_test_failed_asserts;
	int passed0 = bw_tests_passed, failed0 = bw_tests_failed;
	int skipped0 = bw_tests_skipped;
	bool skip = bw_test_skip_flag;
	struct bw_capture err;
	FILE *out = tmpfile();
	int saved = dup(STDOUT_FILENO);
	long len;

	fflush(stdout);
	if (out)
		dup2(fileno(out), STDOUT_FILENO);
	bw_capture_start(&err);
	RUN_TEST_NAMED(fn, name);
	v->err = bw_capture_end(&err);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	v->out = NULL;
	if (out) {
		len = ftell(out);
		v->out = calloc(1, (size_t)(len > 0 ? len : 0) + 1);
		rewind(out);
		if (v->out && len > 0 &&
		    fread(v->out, 1, (size_t)len, out) != (size_t)len)
			v->out[0] = '\0';
		fclose(out);
	}
	v->passed = bw_tests_passed - passed0;
	v->failed = bw_tests_failed - failed0;
	v->skipped = bw_tests_skipped - skipped0;
	bw_tests_passed = passed0;
	bw_tests_failed = failed0;
	bw_tests_skipped = skipped0;
	bw_test_asserts = asserts;
	bw_test_failed_asserts = failed;
	bw_test_skip_flag = skip;
}

static void verdict_free(struct verdict *v)
{
	free(v->out);
	free(v->err);
}

BW_TEST(test_run_no_assertion_fails)
{
	struct verdict v;

	run_nested(no_assertion, "no_assertion", &v);
	ASSERT_EQ(v.failed, 1, "a test with no assertion fails");
	ASSERT_EQ(v.passed + v.skipped, 0, "and neither passes nor skips");
	ASSERT_STREQ(v.out, "[no_assertion] FAIL (no assertion)\n",
		     "its result line");
	ASSERT_STRSTR(v.err, "no_assertion made no assertion",
		      "said on stderr");
	verdict_free(&v);
}

BW_TEST(test_run_skip_needs_no_assertion)
{
	struct verdict v;

	run_nested(skipped_without_assertion, "skipped", &v);
	ASSERT_EQ(v.skipped, 1, "a skipped test is skipped");
	ASSERT_EQ(v.passed + v.failed, 0, "not passed, not failed");
	ASSERT_STREQ(v.out, "[skipped] SKIPPED\n", "its result line");
	ASSERT_STREQ(v.err, "  skipped: nothing to test here\n",
		     "with its reason");
	verdict_free(&v);
}

BW_TEST(test_run_one_assertion_passes)
{
	struct verdict v;

	run_nested(one_assertion, "one", &v);
	ASSERT_EQ(v.passed, 1, "one passed assertion passes");
	ASSERT_STREQ(v.out, "[one] PASS\n", "its result line");
	ASSERT_STREQ(v.err, "", "nothing on stderr");
	verdict_free(&v);
}
