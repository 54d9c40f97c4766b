// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The bounded YAML reader (user/base/yaml.c): what the config file's
 * documents become, with their lines; and what it refuses, with the line
 * and why: bad syntax, aliases, tags, keys twice, a second document, too
 * deep, too many values, too large.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/yaml.h"
#include "test_helpers.h"

static struct bw_yaml *parse(const char *s, char *err, size_t len, int *ret)
{
	struct bw_yaml *y = NULL;

	*ret = bw_yaml_parse(s, strlen(s), "t.yaml", &y, err, len);
	return y;
}

BW_TEST(test_yaml_tree)
{
	const char *doc = "# a comment\n"
			  "fpr: 0.01\n"
			  "lists:\n"
			  "  - /a\n"
			  "  - \"/b c\"\n"
			  "empty:\n"
			  "interfaces:\n"
			  "  eth0: {monitor: true}\n";
	const struct bw_yaml *v, *ifs;
	struct bw_yaml *y;
	char err[256];
	bool b = false;
	int ret;

	y = parse(doc, err, sizeof(err), &ret);
	if (!ASSERT_OK(ret, "a document parses") || !ASSERT_OK_PTR(y, "tree"))
		return;
	ASSERT_EQ(y->kind, BW_YAML_MAP, "the top is a mapping");
	ASSERT_EQ(y->n, 4, "four keys");
	v = bw_yaml_get(y, "fpr");
	ASSERT_TRUE(v && v->kind == BW_YAML_SCALAR, "fpr is a value");
	ASSERT_STREQ(v ? v->text : "", "0.01", "fpr's text");
	ASSERT_EQ(v ? v->line : 0, 2, "fpr's line");
	v = bw_yaml_get(y, "lists");
	ASSERT_TRUE(v && v->kind == BW_YAML_SEQ && v->n == 2, "lists: 2 items");
	if (v && v->n == 2) {
		ASSERT_STREQ(v->kids[1].text, "/b c", "a quoted item");
		ASSERT_TRUE(v->kids[1].quoted, "it is quoted");
		ASSERT_FALSE(v->kids[0].quoted, "the first is plain");
		ASSERT_EQ(v->kids[1].line, 5, "its line");
	}
	v = bw_yaml_get(y, "empty");
	ASSERT_TRUE(v && bw_yaml_is_null(v), "a key without a value is null");
	ifs = bw_yaml_get(y, "interfaces");
	v = bw_yaml_get(bw_yaml_get(ifs, "eth0"), "monitor");
	ASSERT_TRUE(v && !bw_yaml_bool(v, &b) && b, "a flow mapping's bool");
	ASSERT_EQ(v ? v->line : 0, 8, "a flow mapping's line");
	ASSERT_TRUE(!bw_yaml_get(y, "nope") && !bw_yaml_get(v, "x"),
		    "no such key; a value has no keys");
	bw_yaml_free(y);

	y = parse("# only comments\n", err, sizeof(err), &ret);
	ASSERT_OK(ret, "an empty document");
	ASSERT_TRUE(y && y->kind == BW_YAML_MAP && !y->n,
		    "an empty document is an empty mapping");
	bw_yaml_free(y);
}

BW_TEST(test_yaml_scalars)
{
	static const struct {
		const char *doc;
		int is_bool, value, is_null;
	} cases[] = {
		{ "k: true\n", 1, 1, 0 },     { "k: False\n", 1, 0, 0 },
		{ "k: yes\n", 1, 1, 0 },      { "k: off\n", 1, 0, 0 },
		{ "k: \"true\"\n", 0, 0, 0 }, { "k: 1\n", 0, 0, 0 },
		{ "k: ~\n", 0, 0, 1 },	      { "k: null\n", 0, 0, 1 },
		{ "k: 'null'\n", 0, 0, 0 },   { "k: ''\n", 0, 0, 0 },
	};
	struct bw_yaml *y;
	char err[256];
	size_t i;
	bool b;
	int ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		y = parse(cases[i].doc, err, sizeof(err), &ret);
		if (!ASSERT_OK(ret, cases[i].doc))
			continue;
		b = !cases[i].value;
		ASSERT_EQ(!bw_yaml_bool(bw_yaml_get(y, "k"), &b),
			  cases[i].is_bool, cases[i].doc);
		if (cases[i].is_bool)
			ASSERT_EQ(b, cases[i].value, cases[i].doc);
		ASSERT_EQ(bw_yaml_is_null(bw_yaml_get(y, "k")),
			  cases[i].is_null, cases[i].doc);
		bw_yaml_free(y);
	}
}

/* doc refused, its message exactly want. */
static void refused(const char *doc, const char *want)
{
	struct bw_yaml *y;
	char err[256];
	int ret;

	y = parse(doc, err, sizeof(err), &ret);
	ASSERT_EQ(ret, -EINVAL, want);
	ASSERT_TRUE(!y, "no tree after an error");
	ASSERT_STREQ(err, want, doc);
}

BW_TEST(test_yaml_refused)
{
	refused("a: 1\nb: [1, 2\n",
		"t.yaml:3: not valid YAML: did not find expected ',' or ']' while parsing a flow sequence");
	refused("a: &x 1\nb: *x\n",
		"t.yaml:1: anchors and aliases (&, *) are not taken");
	refused("a: !!str 1\n", "t.yaml:1: tags (!, !!) are not taken");
	refused("a: 1\nb: 2\na: 3\n", "t.yaml:3: a: given twice");
	refused("a: 1\n---\nb: 2\n",
		"t.yaml:2: a second document (---): one only");
	refused("[1, 2]: x\n",
		"t.yaml:1: a key must be a word, not a structure");
	refused("a: \"x\\0y\"\n", "t.yaml:1: a NUL character in a value");
}

BW_TEST(test_yaml_bounds)
{
	size_t n = BW_YAML_MAX_NODES + 10, i, len = 0;
	char *doc = malloc(n * 4 + 64), err[256], want[128];
	struct bw_yaml *y;
	int ret;

	if (!ASSERT_OK_PTR(doc, "malloc"))
		return;
	/* Too deep: a list in a list ... */
	for (i = 0; i < BW_YAML_MAX_DEPTH + 1; i++)
		doc[len++] = '[';
	for (i = 0; i < BW_YAML_MAX_DEPTH + 1; i++)
		doc[len++] = ']';
	doc[len] = '\0';
	snprintf(want, sizeof(want), "t.yaml:1: nested deeper than %d levels",
		 BW_YAML_MAX_DEPTH);
	refused(doc, want);
	/* As deep as taken. */
	len = 0;
	for (i = 0; i < BW_YAML_MAX_DEPTH - 1; i++)
		doc[len++] = '[';
	for (i = 0; i < BW_YAML_MAX_DEPTH - 1; i++)
		doc[len++] = ']';
	doc[len] = '\0';
	y = parse(doc, err, sizeof(err), &ret);
	ASSERT_OK(ret, "nested as deep as taken");
	bw_yaml_free(y);
	/* Too many values, in one flow list. */
	len = 0;
	doc[len++] = '[';
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(doc + len, "1,");
	doc[len++] = ']';
	doc[len] = '\0';
	snprintf(want, sizeof(want), "t.yaml:1: more than %d values",
		 BW_YAML_MAX_NODES);
	refused(doc, want);
	free(doc);

	ret = bw_yaml_parse("", BW_YAML_MAX_BYTES + 1, "t.yaml", &y, err,
			    sizeof(err));
	ASSERT_EQ(ret, -EFBIG, "larger than the bound");
	snprintf(want, sizeof(want), "t.yaml: larger than %u bytes",
		 BW_YAML_MAX_BYTES);
	ASSERT_STREQ(err, want, "larger than the bound: said");
}
