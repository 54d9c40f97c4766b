/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Test assertions in the style of the kernel's selftests/bpf: each macro
 * evaluates its arguments once, prints file:line, the name, the actual and
 * the expected value on failure, counts the failure and returns a bool so
 * the caller decides whether to go on.
 *
 * A test is a `static void test_NAME(void)` run through RUN_TEST(); each
 * prints "[NAME] PASS|FAIL|SKIPPED". Every ASSERT_* counts as an assertion
 * made, passed or not: a test that makes none and is not skipped (TEST_SKIP,
 * with its reason) tested nothing and fails, "[NAME] FAIL (no assertion)".
 * bw_test_summary() prints "SUITE: N passed, N failed[, N skipped]" and
 * returns the exit status; bw_test_main() runs a suite and exits 2, with no
 * summary line, when its name filter matches no test.
 */
#ifndef __BW_TEST_HELPERS_H
#define __BW_TEST_HELPERS_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/types.h>

extern int bw_test_failed_asserts; /* in the current test */
extern int bw_test_asserts;	   /* made in it, passed or failed */
extern int bw_tests_passed;
extern int bw_tests_failed;
extern int bw_tests_skipped;
extern bool bw_test_skip_flag;

/* Define once per test program (in the file with main()). */
#define BW_TEST_GLOBALS                                                        \
	int bw_test_failed_asserts;                                            \
	int bw_test_asserts;                                                   \
	int bw_tests_passed;                                                   \
	int bw_tests_failed;                                                   \
	int bw_tests_skipped;                                                  \
	bool bw_test_skip_flag;                                                \
	struct bw_test *bw_test_head, **bw_test_tail

/* Every assertion says it was made, whatever its outcome. */
#define __ASSERT_MADE() (bw_test_asserts++)

#define __ASSERT_FAIL(fmt, ...)                                                \
	do {                                                                   \
		bw_test_failed_asserts++;                                      \
		fprintf(stderr, "  %s:%d " fmt "\n", __FILE__, __LINE__,       \
			##__VA_ARGS__);                                        \
	} while (0)

#define ASSERT_TRUE(cond, name)                                                \
	({                                                                     \
		__ASSERT_MADE();                                               \
		bool ___ok = (cond);                                           \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: unexpected false", (name));         \
		___ok;                                                         \
	})

#define ASSERT_FALSE(cond, name) ASSERT_TRUE(!(cond), name)

#define ASSERT_EQ(actual, expected, name)                                      \
	({                                                                     \
		__ASSERT_MADE();                                               \
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
		__ASSERT_MADE();                                               \
		long long ___a = (long long)(actual);                          \
		long long ___e = (long long)(expected);                        \
		bool ___ok = ___a != ___e;                                     \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: actual %lld == %lld", (name), ___a, \
				      ___e);                                   \
		___ok;                                                         \
	})

#define ASSERT_EQ_U64(actual, expected, name)                                  \
	({                                                                     \
		__ASSERT_MADE();                                               \
		unsigned long long ___a = (unsigned long long)(actual);        \
		unsigned long long ___e = (unsigned long long)(expected);      \
		bool ___ok = ___a == ___e;                                     \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: actual 0x%llx != expected 0x%llx",  \
				      (name), ___a, ___e);                     \
		___ok;                                                         \
	})

/*
 * ASSERT_LE and ASSERT_GE compare numbers as what they are. Each argument is
 * evaluated once into a variable of its promoted type; a floating one makes
 * the comparison one of long doubles (rates, ratios), else integers compare
 * as integers: both signed as long long, both unsigned as unsigned long long,
 * and a signed with an unsigned by sign first, so -1 <= 0u holds and no large
 * unsigned value is rounded through a double. Each value is printed as its
 * type: %lld, %llu or %.9Lg.
 */
enum { __BW_NUM_SIGNED, __BW_NUM_UNSIGNED, __BW_NUM_FLOAT };

/* As the kernel's is_signed_type(): a cast of 0.5 keeps it only in floats. */
#define __BW_NUM_KIND(t)                                                       \
	((t)0.5 != (t)0 ? __BW_NUM_FLOAT                                       \
	 : (t)-1 < (t)1 ? __BW_NUM_SIGNED                                      \
			: __BW_NUM_UNSIGNED)

struct __bw_num {
	int kind;
	unsigned long long u; /* signed values as their two's complement */
	long double f;
};

/* -1, 0 or 1 as a is below, equal to or above b. */
static inline int __bw_num_cmp(const struct __bw_num *a,
			       const struct __bw_num *b)
{
	long double fa, fb;
	long long sa = (long long)a->u, sb = (long long)b->u;

	if (a->kind == __BW_NUM_FLOAT || b->kind == __BW_NUM_FLOAT) {
		fa = a->kind == __BW_NUM_FLOAT	  ? a->f
		     : a->kind == __BW_NUM_SIGNED ? (long double)sa
						  : (long double)a->u;
		fb = b->kind == __BW_NUM_FLOAT	  ? b->f
		     : b->kind == __BW_NUM_SIGNED ? (long double)sb
						  : (long double)b->u;
		return fa < fb ? -1 : fa > fb;
	}
	if (a->kind == __BW_NUM_SIGNED && b->kind == __BW_NUM_SIGNED)
		return sa < sb ? -1 : sa > sb;
	if (a->kind == __BW_NUM_SIGNED && sa < 0)
		return -1;
	if (b->kind == __BW_NUM_SIGNED && sb < 0)
		return 1;
	return a->u < b->u ? -1 : a->u > b->u;
}

static inline const char *__bw_num_str(const struct __bw_num *n, char *buf,
				       size_t len)
{
	if (n->kind == __BW_NUM_FLOAT)
		snprintf(buf, len, "%.9Lg", n->f);
	else if (n->kind == __BW_NUM_UNSIGNED)
		snprintf(buf, len, "%llu", n->u);
	else
		snprintf(buf, len, "%lld", (long long)n->u);
	return buf;
}

/* The value of x (evaluated once) with its kind. */
#define __BW_NUM(x)                                                            \
	({                                                                     \
		__typeof__(+(x)) ___v = (x);                                   \
		struct __bw_num ___n = {                                       \
			.kind = __BW_NUM_KIND(__typeof__(___v)),               \
		};                                                             \
		if (___n.kind == __BW_NUM_FLOAT)                               \
			___n.f = (long double)___v;                            \
		else                                                           \
			___n.u = (unsigned long long)___v;                     \
		___n;                                                          \
	})

/* cmp_ok: the comparison's result as __bw_num_cmp gives it is acceptable. */
#define __ASSERT_CMP(actual, bound, cmp_ok, op, name)                          \
	({                                                                     \
		__ASSERT_MADE();                                               \
		struct __bw_num ___a = __BW_NUM(actual);                       \
		struct __bw_num ___b = __BW_NUM(bound);                        \
		int ___c = __bw_num_cmp(&___a, &___b);                         \
		bool ___ok = (cmp_ok);                                         \
		char ___sa[48], ___sb[48];                                     \
		if (!___ok) {                                                  \
			__bw_num_str(&___a, ___sa, sizeof(___sa));             \
			__bw_num_str(&___b, ___sb, sizeof(___sb));             \
			__ASSERT_FAIL("%s: actual %s " op " bound %s", (name), \
				      ___sa, ___sb);                           \
		}                                                              \
		___ok;                                                         \
	})

#define ASSERT_LE(actual, bound, name)                                         \
	__ASSERT_CMP(actual, bound, ___c <= 0, ">", name)

#define ASSERT_GE(actual, bound, name)                                         \
	__ASSERT_CMP(actual, bound, ___c >= 0, "<", name)

#define ASSERT_STREQ(actual, expected, name)                                   \
	({                                                                     \
		__ASSERT_MADE();                                               \
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
		__ASSERT_MADE();                                               \
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
		__ASSERT_MADE();                                               \
		long long ___r = (long long)(res);                             \
		bool ___ok = ___r == 0;                                        \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: unexpected error %lld (errno %d)",  \
				      (name), ___r, errno);                    \
		___ok;                                                         \
	})

#define ASSERT_ERR(res, name)                                                  \
	({                                                                     \
		__ASSERT_MADE();                                               \
		long long ___r = (long long)(res);                             \
		bool ___ok = ___r < 0;                                         \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: unexpected success %lld", (name),   \
				      ___r);                                   \
		___ok;                                                         \
	})

#define ASSERT_OK_PTR(ptr, name)                                               \
	({                                                                     \
		__ASSERT_MADE();                                               \
		const void *___p = (ptr);                                      \
		bool ___ok = ___p != NULL;                                     \
		if (!___ok)                                                    \
			__ASSERT_FAIL("%s: unexpected NULL (errno %d)",        \
				      (name), errno);                          \
		___ok;                                                         \
	})

/*
 * Mark the running test skipped (e.g. no privileges); it counts neither way,
 * and needs no assertion. The reason goes to stderr, under the test's name.
 */
#define TEST_SKIP(why)                                                         \
	do {                                                                   \
		bw_test_skip_flag = true;                                      \
		fprintf(stderr, "  skipped: %s\n", (why));                     \
	} while (0)

/*
 * A failed assertion fails the test; else a skip skips it; else a test that
 * made no assertion tested nothing, and fails for it.
 */
#define RUN_TEST_NAMED(fn, name)                                               \
	do {                                                                   \
		bw_test_failed_asserts = 0;                                    \
		bw_test_asserts = 0;                                           \
		bw_test_skip_flag = false;                                     \
		fn();                                                          \
		if (bw_test_failed_asserts) {                                  \
			bw_tests_failed++;                                     \
			printf("[%s] FAIL\n", (name));                         \
		} else if (bw_test_skip_flag) {                                \
			bw_tests_skipped++;                                    \
			printf("[%s] SKIPPED\n", (name));                      \
		} else if (!bw_test_asserts) {                                 \
			bw_tests_failed++;                                     \
			fflush(stdout);                                        \
			fprintf(stderr,                                        \
				"  %s made no assertion and was not skipped: " \
				"it tested nothing\n",                         \
				(name));                                       \
			printf("[%s] FAIL (no assertion)\n", (name));          \
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
 * The test data (the real blocklists and captures, tests/data/README.md):
 * $BW_DATA_DIR, else BW_TEST_DATA_DEFAULT. A relative path is taken from
 * the current directory, which is the repository's root under make and
 * tests/run.sh. tests/e2e/run.sh and tests/bench follow the same rule.
 */
#define BW_TEST_DATA_DEFAULT "tests/data"

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
 * Captures what is written to fd (STDOUT_FILENO or STDERR_FILENO) between
 * bw_capture_fd() and bw_capture_end(), which restores it and returns the
 * text (free() it). bw_capture_start() captures stderr.
 */
struct bw_capture {
	FILE *tmp;
	int fd, saved;
};

static inline void bw_capture_fd(struct bw_capture *c, int fd)
{
	fflush(fd == STDOUT_FILENO ? stdout : stderr);
	c->fd = fd;
	c->tmp = tmpfile();
	c->saved = dup(fd);
	if (c->tmp)
		dup2(fileno(c->tmp), fd);
}

static inline void bw_capture_start(struct bw_capture *c)
{
	bw_capture_fd(c, STDERR_FILENO);
}

static inline char *bw_capture_end(struct bw_capture *c)
{
	char *buf;
	long len;

	fflush(c->fd == STDOUT_FILENO ? stdout : stderr);
	dup2(c->saved, c->fd);
	close(c->saved);
	if (!c->tmp)
		return strdup("(no capture)");
	len = ftell(c->tmp);
	buf = calloc(1, (size_t)(len > 0 ? len : 0) + 1);
	rewind(c->tmp);
	if (buf && len > 0 && fread(buf, 1, (size_t)len, c->tmp) != (size_t)len)
		buf[0] = '\0';
	fclose(c->tmp);
	return buf;
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
	__attribute__((constructor)) static void __bw_register_##fn(void)      \
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

/* Exit status of a suite that ran no test: its filter matched none. */
#define BW_TEST_EXIT_NO_MATCH 2
/* Of a suite that needs root and runs without it (tests/datapath/main.c). */
#define BW_TEST_EXIT_NEEDS_ROOT 3

/*
 * main() of a suite: runs every registered test whose name contains argv[1]
 * (all without an argument), then the summary line. A filter that matches
 * no test is a mistake, not a pass: said on stderr, exit 2, no summary.
 */
static inline int bw_test_main(const char *suite, int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	struct bw_test *t;
	int matched = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (t = bw_test_head; t; t = t->next)
		matched += !filter || strstr(t->name, filter);
	if (!matched) {
		if (filter)
			fprintf(stderr, "%s: no test matches '%s'\n", suite,
				filter);
		else
			fprintf(stderr, "%s: no test registered\n", suite);
		return BW_TEST_EXIT_NO_MATCH;
	}
	for (t = bw_test_head; t; t = t->next) {
		if (filter && !strstr(t->name, filter))
			continue;
		RUN_TEST_NAMED(t->fn, t->name);
	}
	return bw_test_summary(suite);
}

#endif /* __BW_TEST_HELPERS_H */
