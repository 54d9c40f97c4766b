// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The config file's lists: paths, URLs and sources of their own (conf_list.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/yaml.h"
#include "cmd/cli.h"
#include "cmd/conf_keys.h"
#include "cmd/conf_list.h"
#include "cmd/conf_value.h"
#include "net/src_cache.h"

/* The keys of a source's mapping; after url and path, the top level's. */
static const char *const item_keys[] = { "url",	    "path",	     "refresh",
					 "max_age", "force_refresh", NULL };
#define OWN_KEYS 2 /* item_keys from here on: a source's own settings */

struct item {
	const struct bw_conf_val *x;
	const struct bw_yaml *url, *path; /* taken */
	struct bw_args *scratch;	  /* the option's parser writes here */
	bool force;			  /* force_refresh given */
	int err;
};

static void say(struct item *it, const struct bw_yaml *y, const char *key,
		const char *what)
{
	it->err = bw_conf_say(it->x->c, it->x->file, y, key, "%s", what);
}

/* url or path: a value, a URL under url only. */
static void where(struct item *it, const struct bw_yaml *y, const char *key)
{
	bool url = !strcmp(y->key, "url");

	if (y->kind != BW_YAML_SCALAR) {
		say(it, y, key,
		    url ? "takes an http:// or https:// URL"
			: "takes a list file's path");
		return;
	}
	if (url && !bw_src_is_url(y->text))
		it->err = bw_conf_say(
			it->x->c, it->x->file, y, key,
			"takes an http:// or https:// URL, not '%s' (a file goes under path)",
			y->text);
	else if (!url && bw_src_is_url(y->text))
		it->err = bw_conf_say(it->x->c, it->x->file, y, key,
				      "'%s' is a URL: give it as url", y->text);
	else if (url)
		it->url = y;
	else
		it->path = y;
}

/* A source's own setting, as the top level's key of its name takes it. */
static void own(struct item *it, const struct bw_yaml *y, const char *key)
{
	struct bw_conf_val sub = *it->x;
	int err;

	sub.k = bw_conf_key_find(y->key);
	sub.y = y;
	sub.key = key;
	sub.a = it->scratch;
	err = sub.k ? bw_conf_take(&sub) : -EINVAL;
	if (err)
		it->err = err;
	else if (!strcmp(y->key, "force_refresh"))
		it->force = true;
}

static void item_key(struct item *it, const struct bw_yaml *y)
{
	char key[256];
	const char *near;
	int i;

	snprintf(key, sizeof(key), "%s.%s", it->x->key, y->key);
	for (i = 0; item_keys[i] && strcmp(item_keys[i], y->key); i++)
		;
	if (bw_yaml_is_null(y))
		return;
	if (!item_keys[i]) {
		near = bw_conf_word_near(y->key, item_keys);
		if (near)
			it->err = bw_conf_say(it->x->c, it->x->file, y, key,
					      "unknown key (%s?)", near);
		else if (bw_conf_key_find(y->key))
			it->err = bw_conf_say(
				it->x->c, it->x->file, y, key,
				"not a setting of one source: give it at the top level (or under interfaces)");
		else
			it->err = bw_conf_say(
				it->x->c, it->x->file, y, key,
				"unknown key (a source takes url, path, refresh, max_age and force_refresh)");
		return;
	}
	if (i < OWN_KEYS)
		where(it, y, key);
	else
		own(it, y, key);
}

/* m's value of key, NULL when absent or null. */
static const struct bw_yaml *given(const struct bw_yaml *m, const char *key)
{
	const struct bw_yaml *y = bw_yaml_get(m, key);

	return y && !bw_yaml_is_null(y) ? y : NULL;
}

/* One mapping item: its source into *src, its own settings into *set. */
static int item_map(const struct bw_conf_val *x, const struct bw_yaml *m,
		    char **src, struct bw_wsrc_set *set)
{
	struct item it = { .x = x };
	const struct bw_yaml *path = given(m, "path"), *y;
	char key[256];
	size_t i;

	if (x->a) {
		it.scratch = calloc(1, sizeof(*it.scratch));
		if (!it.scratch)
			return -ENOMEM;
	}
	for (i = 0; i < m->n; i++)
		item_key(&it, &m->kids[i]);
	if (given(m, "url") && path)
		say(&it, m, x->key, "a source is a url or a path, not both");
	else if (!given(m, "url") && !path)
		say(&it, m, x->key,
		    "a source's mapping takes url: URL (or path: FILE)");
	for (i = OWN_KEYS; path && item_keys[i]; i++) {
		y = given(m, item_keys[i]);
		snprintf(key, sizeof(key), "%s.%s", x->key, item_keys[i]);
		if (y)
			say(&it, y, key,
			    "goes with url: a file is read again whenever it changes");
	}
	if (!it.err && it.scratch) {
		*src = it.url ? it.url->text : it.path->text;
		set->refresh = it.scratch->src.refresh;
		set->max_age = it.scratch->src.max_age;
		set->force_set = it.force;
		set->force_refresh = it.scratch->src.force_refresh;
	}
	free(it.scratch);
	return it.err;
}

int bw_conf_lists(const struct bw_conf_val *x)
{
	const struct bw_yaml *items = x->y;
	struct bw_wsrc_set *set = NULL;
	char **pos = NULL;
	bool any = false;
	size_t n = 1, i;
	int err = 0, e;

	if (x->y->kind == BW_YAML_MAP)
		return bw_conf_say(x->c, x->file, x->y, x->key,
				   "takes a list or a value, not a mapping");
	if (x->y->kind == BW_YAML_SEQ) {
		items = x->y->kids;
		n = x->y->n;
	}
	if (x->a) {
		pos = (char **)bw_conf_own(x->c, calloc(n + 1, sizeof(*pos)));
		set = (struct bw_wsrc_set *)bw_conf_own(
			x->c, calloc(n + 1, sizeof(*set)));
		if (!pos || !set)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (items[i].kind == BW_YAML_SCALAR) {
			if (pos)
				pos[i] = items[i].text;
			continue;
		}
		if (items[i].kind == BW_YAML_MAP) {
			any = true;
			e = item_map(x, &items[i], pos ? &pos[i] : NULL,
				     set ? &set[i] : NULL);
		} else {
			e = bw_conf_say(
				x->c, x->file, &items[i], x->key,
				"takes a list of files and URLs (or mappings, one a source), not of lists");
		}
		err = err ?: e;
	}
	if (err || !x->a)
		return err;
	x->a->pos = pos;
	x->a->npos = (int)n;
	x->a->pos_set = any ? set : NULL;
	return 0;
}
