// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* A bounded YAML document into a tree, through libyaml (yaml.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <yaml.h>

#include "base/yaml.h"

struct ctx {
	yaml_parser_t p;
	const char *name;
	char *err;
	size_t errlen;
	size_t nodes;
};

static int __attribute__((format(printf, 3, 4)))
fail(struct ctx *c, size_t line, const char *fmt, ...)
{
	int n;
	va_list ap;

	n = snprintf(c->err, c->errlen, "%s:%zu: ", c->name, line);
	if (n < 0 || (size_t)n >= c->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int next(struct ctx *c, yaml_event_t *ev)
{
	if (yaml_parser_parse(&c->p, ev))
		return 0;
	if (c->p.error == YAML_MEMORY_ERROR)
		return -ENOMEM;
	return fail(c, c->p.problem_mark.line + 1, "not valid YAML: %s%s%s",
		    c->p.problem ?: "a syntax error", c->p.context ? " " : "",
		    c->p.context ?: "");
}

static size_t line_of(const yaml_event_t *ev)
{
	return ev->start_mark.line + 1;
}

/* Anchors and tags: neither is taken (aliases could multiply the nodes). */
static int plain_node(struct ctx *c, const yaml_event_t *ev,
		      const yaml_char_t *anchor, const yaml_char_t *tag)
{
	if (anchor)
		return fail(c, line_of(ev),
			    "anchors and aliases (&, *) are not taken");
	if (tag)
		return fail(c, line_of(ev), "tags (!, !!) are not taken");
	return 0;
}

static int parse_node(struct ctx *c, const yaml_event_t *ev, struct bw_yaml *y,
		      int depth);

/* A new last kid of y, zeroed and counted before it is filled. */
static struct bw_yaml *add_kid(struct ctx *c, struct bw_yaml *y,
			       const yaml_event_t *ev, int *err)
{
	struct bw_yaml *k;

	if (++c->nodes > BW_YAML_MAX_NODES) {
		*err = fail(c, line_of(ev), "more than %d values",
			    BW_YAML_MAX_NODES);
		return NULL;
	}
	k = realloc(y->kids, (y->n + 1) * sizeof(*k));
	if (!k) {
		*err = -ENOMEM;
		return NULL;
	}
	y->kids = k;
	k = &y->kids[y->n++];
	memset(k, 0, sizeof(*k));
	return k;
}

static int parse_scalar(struct ctx *c, const yaml_event_t *ev,
			struct bw_yaml *y)
{
	const char *v = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	int err =
		plain_node(c, ev, ev->data.scalar.anchor, ev->data.scalar.tag);

	if (err)
		return err;
	if (memchr(v, '\0', len))
		return fail(c, line_of(ev), "a NUL character in a value");
	y->kind = BW_YAML_SCALAR;
	y->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
	y->text = strndup(v, len);
	return y->text ? 0 : -ENOMEM;
}

static bool has_key(const struct bw_yaml *y, const char *key)
{
	size_t i;

	/* Bounded by the node count: quadratic in at most that. */
	for (i = 0; i + 1 < y->n; i++)
		if (!strcmp(y->kids[i].key, key))
			return true;
	return false;
}

/* After a mapping's start: key, value, ... up to its end. */
static int parse_map(struct ctx *c, struct bw_yaml *y, int depth)
{
	yaml_event_t kev, vev;
	struct bw_yaml *k;
	int err;

	for (;;) {
		err = next(c, &kev);
		if (err)
			return err;
		if (kev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&kev);
			return 0;
		}
		if (kev.type != YAML_SCALAR_EVENT) {
			err = fail(c, line_of(&kev),
				   "a key must be a word, not %s",
				   kev.type == YAML_ALIAS_EVENT
					   ? "an alias"
					   : "a structure");
			yaml_event_delete(&kev);
			return err;
		}
		err = 0;
		k = add_kid(c, y, &kev, &err);
		if (k)
			err = parse_scalar(c, &kev, k);
		if (k && !err && has_key(y, k->text))
			err = fail(c, line_of(&kev), "%s: given twice",
				   k->text);
		yaml_event_delete(&kev);
		if (err)
			return err;
		/* The kid becomes the value; its text is its key. */
		k->key = k->text;
		k->text = NULL;
		err = next(c, &vev);
		if (err)
			return err;
		err = parse_node(c, &vev, k, depth + 1);
		yaml_event_delete(&vev);
		if (err)
			return err;
	}
}

static int parse_seq(struct ctx *c, struct bw_yaml *y, int depth)
{
	yaml_event_t ev;
	struct bw_yaml *k;
	int err;

	for (;;) {
		err = next(c, &ev);
		if (err)
			return err;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		err = 0;
		k = add_kid(c, y, &ev, &err);
		if (k)
			err = parse_node(c, &ev, k, depth + 1);
		yaml_event_delete(&ev);
		if (err)
			return err;
	}
}

static int parse_node(struct ctx *c, const yaml_event_t *ev, struct bw_yaml *y,
		      int depth)
{
	int err;

	y->line = (unsigned int)line_of(ev);
	if (depth > BW_YAML_MAX_DEPTH)
		return fail(c, line_of(ev), "nested deeper than %d levels",
			    BW_YAML_MAX_DEPTH);
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		return parse_scalar(c, ev, y);
	case YAML_SEQUENCE_START_EVENT:
		y->kind = BW_YAML_SEQ;
		err = plain_node(c, ev, ev->data.sequence_start.anchor,
				 ev->data.sequence_start.tag);
		return err ?: parse_seq(c, y, depth);
	case YAML_MAPPING_START_EVENT:
		y->kind = BW_YAML_MAP;
		err = plain_node(c, ev, ev->data.mapping_start.anchor,
				 ev->data.mapping_start.tag);
		return err ?: parse_map(c, y, depth);
	case YAML_ALIAS_EVENT:
		return fail(c, line_of(ev),
			    "anchors and aliases (&, *) are not taken");
	default:
		return fail(c, line_of(ev), "not valid YAML here");
	}
}

/* Stream start, at most one document, stream end. */
static int parse_stream(struct ctx *c, struct bw_yaml *root)
{
	yaml_event_t ev;
	int err, i;

	root->kind = BW_YAML_MAP;
	root->line = 1;
	for (i = 0;; i++) {
		err = next(c, &ev);
		if (err)
			return err;
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		if (ev.type == YAML_DOCUMENT_START_EVENT && i > 1)
			err = fail(c, line_of(&ev),
				   "a second document (---): one only");
		else if (ev.type != YAML_STREAM_START_EVENT &&
			 ev.type != YAML_DOCUMENT_START_EVENT &&
			 ev.type != YAML_DOCUMENT_END_EVENT) {
			c->nodes++;
			err = parse_node(c, &ev, root, 1);
		}
		yaml_event_delete(&ev);
		if (err)
			return err;
	}
}

int bw_yaml_parse(const char *buf, size_t len, const char *name,
		  struct bw_yaml **out, char *err, size_t errlen)
{
	struct ctx c = { .name = name, .err = err, .errlen = errlen };
	struct bw_yaml *root;
	int e;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (len > BW_YAML_MAX_BYTES) {
		snprintf(err, errlen, "%s: larger than %u bytes", name,
			 BW_YAML_MAX_BYTES);
		return -EFBIG;
	}
	root = calloc(1, sizeof(*root));
	if (!root || !yaml_parser_initialize(&c.p)) {
		free(root);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&c.p, (const unsigned char *)buf, len);
	e = parse_stream(&c, root);
	yaml_parser_delete(&c.p);
	if (e) {
		if (e == -ENOMEM)
			snprintf(err, errlen, "%s: out of memory", name);
		bw_yaml_free(root);
		return e;
	}
	*out = root;
	return 0;
}

int bw_yaml_read_fd(int fd, const char *name, struct bw_yaml **out, char *err,
		    size_t errlen)
{
	size_t len = 0, cap = BW_YAML_MAX_BYTES + 1;
	char *buf = malloc(cap);
	ssize_t n;
	int e;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	while (len < cap) {
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = -errno;
			snprintf(err, errlen, "%s: %s", name, strerror(-e));
			free(buf);
			return e;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	e = bw_yaml_parse(buf, len, name, out, err, errlen);
	free(buf);
	return e;
}

static void free_kids(struct bw_yaml *y)
{
	size_t i;

	for (i = 0; i < y->n; i++)
		free_kids(&y->kids[i]);
	free(y->kids);
	free(y->key);
	free(y->text);
}

void bw_yaml_free(struct bw_yaml *y)
{
	if (!y)
		return;
	free_kids(y);
	free(y);
}

const struct bw_yaml *bw_yaml_get(const struct bw_yaml *y, const char *key)
{
	size_t i;

	if (!y || y->kind != BW_YAML_MAP)
		return NULL;
	for (i = 0; i < y->n; i++)
		if (!strcmp(y->kids[i].key, key))
			return &y->kids[i];
	return NULL;
}

bool bw_yaml_is_null(const struct bw_yaml *y)
{
	return y->kind == BW_YAML_SCALAR && !y->quoted &&
	       (!y->text[0] || !strcmp(y->text, "~") ||
		!strcasecmp(y->text, "null"));
}

int bw_yaml_bool(const struct bw_yaml *y, bool *v)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	size_t i;

	if (y->kind != BW_YAML_SCALAR || y->quoted)
		return -EINVAL;
	for (i = 0; i < 3; i++) {
		if (!strcasecmp(y->text, yes[i]))
			*v = true;
		else if (!strcasecmp(y->text, no[i]))
			*v = false;
		else
			continue;
		return 0;
	}
	return -EINVAL;
}

const char *bw_yaml_kind_name(const struct bw_yaml *y)
{
	switch (y->kind) {
	case BW_YAML_SEQ:
		return "a list";
	case BW_YAML_MAP:
		return "a mapping";
	default:
		return "a value";
	}
}
