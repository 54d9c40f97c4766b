// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Lists in memory: reading list files line by line (list_parse.c turns each
 * line into entries), and sorting and de-duplicating ten million entries in
 * well under a second.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "bloomwall.h"
#include "list.h"
#include "log.h"

/* Says what went wrong with the file and what to check. */
static void warn_unreadable(const char *path, int err)
{
	const char *hint = "is it a readable list file?";

	if (err == -ENOENT)
		hint = "check the path; \"-\" reads standard input";
	else if (err == -EACCES || err == -EPERM)
		hint = "check its permissions";
	else if (err == -EISDIR)
		hint = "give a list file, not a directory";
	pr_warn("%s: %s (%s)\n", path, strerror(-err), hint);
}

/* One line read from a file: reports a bad line as path:line: reason. */
static int load_line(struct bw_list *l, const char *path, size_t lineno,
		     char *line, size_t len, const struct bw_list_opts *opts)
{
	char err[BW_ERRLEN];
	int ret;

	/* A UTF-8 byte order mark, as some editors save, is not an entry. */
	if (lineno == 1 && !strncmp(line, "\xef\xbb\xbf", 3)) {
		line += 3;
		len -= 3;
	}
	if (memchr(line, '\0', len)) {
		snprintf(err, sizeof(err), "NUL byte: not a text list");
		ret = -EINVAL;
	} else {
		ret = bw_list_parse_line(l, line, opts, err, sizeof(err));
	}
	if (!ret) {
		if (err[0])
			pr_warn("%s:%zu: %s\n", path, lineno, err);
		return 0;
	}
	if (ret == -EINVAL && opts->skip_invalid) {
		pr_warn("%s:%zu: %s (skipped)\n", path, lineno, err);
		l->skipped++;
		return 0;
	}
	pr_warn("%s:%zu: %s\n", path, lineno, err);
	return ret;
}

int bw_list_load(struct bw_list *l, const char *path,
		 const struct bw_list_opts *opts)
{
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path;
	size_t cap = 0, lineno = 0;
	char *line = NULL;
	ssize_t len;
	FILE *f;
	int ret = 0;

	f = is_stdin ? stdin : fopen(path, "re");
	if (!f) {
		ret = -errno;
		warn_unreadable(name, ret);
		return ret;
	}
	errno = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		ret = load_line(l, name, ++lineno, line, (size_t)len, opts);
		if (ret)
			goto out;
		errno = 0;
	}
	if (ferror(f)) {
		ret = errno ? -errno : -EIO;
		warn_unreadable(name, ret);
	}
out:
	free(line);
	if (is_stdin)
		clearerr(f);
	else
		fclose(f);
	return ret;
}

/*
 * LSD radix sort, a byte a pass. One pass counts every byte's histogram;
 * bytes that are the same in all keys (the top three of an IPv4 key) cost
 * no pass. Falls back to qsort when the scratch buffer is not available.
 */
static int radix_sort_u64(__u64 *v, size_t n)
{
	size_t cnt[8][256];
	__u64 *tmp, *src = v, *dst, *t;
	size_t i, sum, c;
	unsigned int b;

	tmp = malloc(n * sizeof(*v));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < n; i++)
		for (b = 0; b < 8; b++)
			cnt[b][(v[i] >> (8 * b)) & 0xff]++;
	for (b = 0; b < 8; b++) {
		if (cnt[b][(v[0] >> (8 * b)) & 0xff] == n)
			continue;
		for (sum = 0, i = 0; i < 256; i++) {
			c = cnt[b][i];
			cnt[b][i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[b][(src[i] >> (8 * b)) & 0xff]++] = src[i];
		t = src, src = dst, dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static int cmp_v6(const void *a, const void *b)
{
	const struct bw_v6key *x = a, *y = b;

	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->plen > y->plen) - (x->plen < y->plen);
}

/* Drops neighbours equal to the previous kept element; returns the count. */
static size_t unique(void *arr, size_t n, size_t size)
{
	char *base = arr;
	size_t i, out = 0;

	for (i = 0; i < n; i++) {
		if (out &&
		    !memcmp(base + (out - 1) * size, base + i * size, size))
			continue;
		if (out != i)
			memcpy(base + out * size, base + i * size, size);
		out++;
	}
	return out;
}

void bw_list_finish(struct bw_list *l)
{
	size_t n;

	if (l->n4 > 1 && radix_sort_u64(l->v4, l->n4))
		qsort(l->v4, l->n4, sizeof(*l->v4), cmp_u64);
	n = unique(l->v4, l->n4, sizeof(*l->v4));
	l->duplicates += l->n4 - n;
	l->n4 = n;

	if (l->n6 > 1)
		qsort(l->v6, l->n6, sizeof(*l->v6), cmp_v6);
	n = unique(l->v6, l->n6, sizeof(*l->v6));
	l->duplicates += l->n6 - n;
	l->n6 = n;
}
