/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Test assertions in the style of the kernel's selftests/bpf: each macro
 * evaluates its arguments once, prints file:line, the name, the actual and
 * the expected value on failure, counts the failure and returns a bool so
 * the caller decides whether to go on.
 *
 * A test is a `static void test_NAME(void)` run through RUN_TEST(); each
 * prints "[NAME] PASS|FAIL". bw_test_summary() prints "N passed, N failed"
 * and returns the exit status.
 */
#ifndef __BW_TEST_HELPERS_H
#define __BW_TEST_HELPERS_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/types.h>

extern int bw_test_failed_asserts;	/* in the current test */
extern int bw_tests_passed;
extern int bw_tests_failed;
extern int bw_tests_skipped;
extern bool bw_test_skip_flag;

/* Define once per test program (in the file with main()). */
#define BW_TEST_GLOBALS                                                        \
	int bw_test_failed_asserts;                                            \
	int bw_tests_passed;                                                   \
	int bw_tests_failed;                                                   \
	int bw_tests_skipped;                                                  \
	bool bw_test_skip_flag;                                                \
	struct bw_test *bw_test_head, **bw_test_tail

#define __ASSERT_FAIL(fmt, ...)                                                \
	do {                                                                   \
		bw_test_failed_asserts++;                                      \
		fprintf(stderr, "  %s:%d " fmt "\n", __FILE__, __LINE__,      \
			##__VA_ARGS__);                                        \
	} while (0)

#define ASSERT_TRUE(cond, name)                                                \
	({                                                                     \
		bool ___ok = (cond);                                           \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: unexpected false", (name));         \
		___ok;                                                         \
	})

#define ASSERT_FALSE(cond, name) ASSERT_TRUE(!(cond), name)

#define ASSERT_EQ(actual, expected, name)                                      \
	({                                                                     \
		long long ___a = (long long)(actual);                          \
		long long ___e = (long long)(expected);                        \
		bool ___ok = ___a == ___e;                                     \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: actual %lld != expected %lld",      \
				      (name), ___a, ___e);                     \
		___ok;                                                         \
	})

#define ASSERT_NEQ(actual, expected, name)                                     \
	({                                                                     \
		long long ___a = (long long)(actual);                          \
		long long ___e = (long long)(expected);                        \
		bool ___ok = ___a != ___e;                                     \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: actual %lld == %lld", (name),       \
				      ___a, ___e);                             \
		___ok;                                                         \
	})

#define ASSERT_EQ_U64(actual, expected, name)                                  \
	({                                                                     \
		unsigned long long ___a = (unsigned long long)(actual);        \
		unsigned long long ___e = (unsigned long long)(expected);      \
		bool ___ok = ___a == ___e;                                     \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: actual 0x%llx != expected 0x%llx",  \
				      (name), ___a, ___e);                     \
		___ok;                                                         \
	})

#define ASSERT_LE(actual, bound, name)                                         \
	({                                                                     \
		double ___a = (double)(actual);                                \
		double ___b = (double)(bound);                                 \
		bool ___ok = ___a <= ___b;                                     \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: actual %g > bound %g", (name),      \
				      ___a, ___b);                             \
		___ok;                                                         \
	})

#define ASSERT_GE(actual, bound, name)                                         \
	({                                                                     \
		double ___a = (double)(actual);                                \
		double ___b = (double)(bound);                                 \
		bool ___ok = ___a >= ___b;                                     \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: actual %g < bound %g", (name),      \
				      ___a, ___b);                             \
		___ok;                                                         \
	})

#define ASSERT_STREQ(actual, expected, name)                                   \
	({                                                                     \
		const char *___a = (actual);                                   \
		const char *___e = (expected);                                 \
		bool ___ok = ___a && ___e && strcmp(___a, ___e) == 0;          \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: actual \"%s\" != expected \"%s\"",  \
				      (name), ___a ? ___a : "(null)",          \
				      ___e ? ___e : "(null)");                 \
		___ok;                                                         \
	})

/* Substring match, for error messages. */
#define ASSERT_STRSTR(haystack, needle, name)                                  \
	({                                                                     \
		const char *___h = (haystack);                                 \
		const char *___n = (needle);                                   \
		bool ___ok = ___h && ___n && strstr(___h, ___n);               \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: \"%s\" does not contain \"%s\"",    \
				      (name), ___h ? ___h : "(null)",          \
				      ___n ? ___n : "(null)");                 \
		___ok;                                                         \
	})

/* int API: 0 on success, -errno on failure. */
#define ASSERT_OK(res, name)                                                   \
	({                                                                     \
		long long ___r = (long long)(res);                             \
		bool ___ok = ___r == 0;                                        \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: unexpected error %lld (errno %d)",  \
				      (name), ___r, errno);                    \
		___ok;                                                         \
	})

#define ASSERT_ERR(res, name)                                                  \
	({                                                                     \
		long long ___r = (long long)(res);                             \
		bool ___ok = ___r < 0;                                         \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: unexpected success %lld", (name),   \
				      ___r);                                   \
		___ok;                                                         \
	})

#define ASSERT_OK_PTR(ptr, name)                                               \
	({                                                                     \
		const void *___p = (ptr);                                      \
		bool ___ok = ___p != NULL;                                     \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: unexpected NULL (errno %d)",        \
				      (name), errno);                          \
		___ok;                                                         \
	})

/* Mark the running test skipped (e.g. no privileges); it counts neither way. */
#define TEST_SKIP(why)                                                         \
	do {                                                                   \
		bw_test_skip_flag = true;                                      \
		fprintf(stderr, "  skipped: %s\n", (why));                     \
	} while (0)

#define RUN_TEST_NAMED(fn, name)                                               \
	do {                                                                   \
		bw_test_failed_asserts = 0;                                    \
		bw_test_skip_flag = false;                                     \
		fn();                                                          \
		if (bw_test_failed_asserts) {                                  \
			bw_tests_failed++;                                     \
			printf("[%s] FAIL\n", (name));                         \
		} else if (bw_test_skip_flag) {                                \
			bw_tests_skipped++;                                    \
			printf("[%s] SKIPPED\n", (name));                      \
		} else {                                                       \
			bw_tests_passed++;                                     \
			printf("[%s] PASS\n", (name));                         \
		}                                                              \
		fflush(stdout);                                                \
	} while (0)

#define RUN_TEST(fn) RUN_TEST_NAMED(fn, #fn)

/*
 * Deterministic test data: fixed seeds make every run test the same keys,
 * with no libc state. splitmix64 takes any seed; xorshift64* any but 0.
 */
static inline __u64 bw_test_splitmix64(__u64 *s)
{
	__u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline __u64 bw_test_xorshift64s(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/*
 * The shared test data (the real blocklists): $BW_DATA_DIR, else
 * BW_TEST_DATA_DEFAULT. A relative path is taken from the current
 * directory, which is the repository's root under make and tests/run.sh;
 * CI clones the repository next to shared/. tests/e2e/run.sh follows the
 * same rule.
 */
#define BW_TEST_DATA_DEFAULT "../shared/data"

/*
 * The data dir if it is a directory. Otherwise NULL, and the running test
 * is marked skipped, naming the path it looked at.
 */
static inline const char *bw_test_data_dir(void)
{
	const char *dir = getenv("BW_DATA_DIR");
	struct stat st;

	if (!dir || !*dir)
		dir = BW_TEST_DATA_DEFAULT;
	if (!stat(dir, &st) && S_ISDIR(st.st_mode))
		return dir;
	bw_test_skip_flag = true;
	fprintf(stderr, "  skipped: no data dir at %s (set BW_DATA_DIR)\n",
		dir);
	return NULL;
}

/*
 * Registration: BW_TEST(test_name) { ... } defines a test and adds it to the
 * suite at start-up, so a new test file needs no edit elsewhere. Tests run
 * in the order of their files on the link line, then of definition.
 */
struct bw_test {
	const char *name;
	void (*fn)(void);
	struct bw_test *next;
};

extern struct bw_test *bw_test_head, **bw_test_tail;

#define BW_TEST(fn)                                                            \
	static void fn(void);                                                  \
	static struct bw_test __bw_test_##fn = { #fn, fn, NULL };              \
	__attribute__((constructor)) static void __bw_register_##fn(void)     \
	{                                                                      \
		if (!bw_test_tail)                                             \
			bw_test_tail = &bw_test_head;                          \
		*bw_test_tail = &__bw_test_##fn;                               \
		bw_test_tail = &__bw_test_##fn.next;                           \
	}                                                                      \
	static void fn(void)

static inline int bw_test_summary(const char *suite)
{
	printf("%s: %d passed, %d failed", suite, bw_tests_passed,
	       bw_tests_failed);
	if (bw_tests_skipped)
		printf(", %d skipped", bw_tests_skipped);
	printf("\n");
	return bw_tests_failed ? 1 : 0;
}

/*
 * main() of a suite: runs every registered test whose name contains argv[1]
 * (all without an argument), then the summary line.
 */
static inline int bw_test_main(const char *suite, int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	struct bw_test *t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (t = bw_test_head; t; t = t->next) {
		if (filter && !strstr(t->name, filter))
			continue;
		RUN_TEST_NAMED(t->fn, t->name);
	}
	return bw_test_summary(suite);
}

#endif /* __BW_TEST_HELPERS_H */
