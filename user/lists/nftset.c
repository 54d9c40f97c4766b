// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * nftables set elements (nftset.h): the file's words, braces and
 * separators read as they come, the blocks they open kept on a stack, the
 * elements of address sets pushed on the line that holds them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bloomwall.h"
#include "lists/list_parse.h"
#include "lists/nftset.h"
#include "lists/text.h"

enum { B_TABLE, B_SET, B_ELEMENTS, B_OTHER };

void bw_nft_init(struct bw_nft *n)
{
	memset(n, 0, sizeof(*n));
	n->family = -1;
}

static bool first_is(const char *line, size_t len, const char *kw,
		     const char *kw2)
{
	const char *w;
	size_t pos = 0, n = bw_word(line, len, &pos, &w);

	if (!bw_word_is(w, n, kw))
		return false;
	if (!kw2)
		return true;
	n = bw_word(line, len, &pos, &w);
	return bw_word_is(w, n, kw2);
}

bool bw_nft_detect(const char *line, size_t len)
{
	return first_is(line, len, "table", NULL) ||
	       first_is(line, len, "flush", "ruleset") ||
	       first_is(line, len, "add", "element") ||
	       first_is(line, len, "add", "set") ||
	       first_is(line, len, "add", "table") ||
	       first_is(line, len, "elements", "=");
}

static bool word_is(const struct bw_nft *n, int i, const char *kw)
{
	return i < n->nwords && !strcmp(n->word[i], kw);
}

/* The block a "{" opens, from the statement before it. */
static int open_kind(const struct bw_nft *n)
{
	if (word_is(n, 0, "table"))
		return B_TABLE;
	if (word_is(n, 0, "set") ||
	    (word_is(n, 0, "add") && word_is(n, 1, "set")))
		return B_SET;
	if (word_is(n, 0, "map"))
		return B_SET; /* its elements are refused */
	if (word_is(n, 0, "elements") && word_is(n, 1, "="))
		return B_ELEMENTS;
	if (word_is(n, 0, "add") && word_is(n, 1, "element"))
		return B_ELEMENTS;
	return B_OTHER;
}

static int open_block(struct bw_nft *n, const char *line, size_t len, char *err,
		      size_t errlen)
{
	int kind = open_kind(n), top = n->depth ? n->stack[n->depth - 1] : -1;

	if (!n->nwords)
		return bw_list_fail(
			err, errlen,
			"a \"{\" that opens no statement on its line", line,
			len);
	if (n->depth == BW_NFT_DEPTH || top == B_ELEMENTS)
		return bw_list_fail(err, errlen, "braces nested too deep", line,
				    len);
	if (kind == B_SET) {
		n->sets++;
		n->family = -1;
		n->not_addr = word_is(n, 0, "map");
	}
	/* An add element names its set: its type is not in this file. */
	if (kind == B_ELEMENTS && top != B_SET) {
		n->family = -1;
		n->not_addr = false;
	}
	if (kind == B_ELEMENTS && n->not_addr)
		return bw_list_fail(
			err, errlen,
			"elements of a set that holds no addresses (or of a map)",
			line, len);
	n->stack[n->depth++] = (__u8)kind;
	n->elem_start = kind == B_ELEMENTS;
	n->nwords = 0;
	return 0;
}

/* A statement inside a set: its type says what the elements are. */
static void set_statement(struct bw_nft *n)
{
	if (word_is(n, 0, "type")) {
		n->family = word_is(n, 1, "ipv4_addr")	 ? BW_V4
			    : word_is(n, 1, "ipv6_addr") ? BW_V6
							 : -1;
		n->not_addr = n->family < 0 || n->nwords > 2;
	} else if (word_is(n, 0, "typeof")) {
		n->family = word_is(n, 1, "ip")	   ? BW_V4
			    : word_is(n, 1, "ip6") ? BW_V6
						   : -1;
		n->not_addr = n->family < 0;
	}
}

static void end_statement(struct bw_nft *n)
{
	if (n->depth && n->stack[n->depth - 1] == B_SET)
		set_statement(n);
	n->nwords = 0;
}

/* One element: an address of the set's family. */
static int element(struct bw_nft *n, struct bw_list *l, const char *w,
		   size_t wn, const struct bw_list_opts *opts, char *err,
		   size_t errlen)
{
	size_t n4 = l->n4, n6 = l->n6, mapped = l->mapped;
	int ret;

	ret = bw_list_parse_addr(l, w, wn, opts, err, errlen);
	if (ret)
		return ret;
	if ((n->family == BW_V4 && l->n6 != n6) ||
	    (n->family == BW_V6 && l->n4 != n4 && l->mapped == mapped)) {
		l->n4 = n4;
		l->n6 = n6;
		return bw_list_fail(
			err, errlen,
			"an element of the other family than the set's type", w,
			wn);
	}
	return 0;
}

static const char *const valued[] = { "timeout", "expires", "comment",
				      "packets", "bytes",   NULL };

/* A word inside elements = { ... }: an element or one of its options. */
static int elements_word(struct bw_nft *n, struct bw_list *l, const char *w,
			 size_t wn, const struct bw_list_opts *opts, char *err,
			 size_t errlen)
{
	const char *const *v;

	if (n->skip) {
		n->skip--;
		return 0;
	}
	if (n->elem_start) {
		n->elem_start = false;
		return element(n, l, w, wn, opts, err, errlen);
	}
	n->options++;
	if (bw_word_is(w, wn, "counter"))
		return 0;
	for (v = valued; *v; v++)
		if (bw_word_is(w, wn, *v)) {
			n->skip = 1;
			return 0;
		}
	return bw_list_fail(err, errlen,
			    "unexpected word after an element (a map's \":\"?)",
			    w, wn);
}

static void keep_word(struct bw_nft *n, const char *w, size_t wn)
{
	size_t i;

	if (n->nwords == 3)
		return;
	for (i = 0; i < wn && i < BW_NFT_WORD - 1; i++)
		n->word[n->nwords][i] =
			(char)(w[i] | (w[i] >= 'A' && w[i] <= 'Z' ? 0x20 : 0));
	n->word[n->nwords++][i] = '\0';
}

static bool in_elements(const struct bw_nft *n)
{
	return n->depth && n->stack[n->depth - 1] == B_ELEMENTS;
}

/* One separator: '{', '}', ';' or ','. */
static int punct(struct bw_nft *n, char c, const char *line, size_t len,
		 char *err, size_t errlen)
{
	if (c == '{')
		return open_block(n, line, len, err, errlen);
	if (c == '}') {
		if (!n->depth)
			return bw_list_fail(err, errlen,
					    "a \"}\" that closes nothing", line,
					    len);
		if (!in_elements(n))
			end_statement(n);
		n->depth--;
		n->nwords = 0;
		return 0;
	}
	if (c == ',' && in_elements(n)) {
		n->elem_start = true;
		n->skip = 0;
	} else if (c == ';') {
		end_statement(n);
	}
	return 0;
}

int bw_nft_line(struct bw_nft *n, struct bw_list *l, const char *line,
		size_t len, const struct bw_list_opts *opts, char *err,
		size_t errlen)
{
	size_t i = 0, start;
	int ret = 0;

	while (!ret && i < len) {
		char c = line[i];

		if (c == '#')
			break;
		if (bw_is_blank(c)) {
			i++;
			continue;
		}
		if (strchr("{};,", c)) {
			ret = punct(n, c, line, len, err, errlen);
			i++;
			continue;
		}
		start = i;
		if (c == '"') {
			const char *q = memchr(line + i + 1, '"', len - i - 1);

			i = q ? (size_t)(q - line) + 1 : len;
		} else if (c == '=') {
			i++;
		} else {
			while (i < len && !bw_is_blank(line[i]) &&
			       !strchr("{};,#=", line[i]))
				i++;
		}
		if (in_elements(n))
			ret = elements_word(n, l, line + start, i - start, opts,
					    err, errlen);
		else
			keep_word(n, line + start, i - start);
	}
	if (!ret && !in_elements(n))
		end_statement(n);
	return ret;
}

int bw_nft_end(const struct bw_nft *n, char *err, size_t errlen)
{
	if (!n->depth)
		return 0;
	snprintf(err, errlen, "%d %s still open at the end of the file",
		 n->depth, n->depth == 1 ? "block" : "blocks");
	return -EINVAL;
}

void bw_nft_note(const struct bw_nft *n, char *buf, size_t len)
{
	snprintf(
		buf, len,
		"read as nftables sets: %zu %s; %zu element options (timeout, comment...) ignored",
		n->sets, n->sets == 1 ? "set" : "sets", n->options);
}
