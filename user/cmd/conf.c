// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The config file read, checked, merged and applied (conf.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/log.h"
#include "base/run_dir.h"
#include "base/yaml.h"
#include "cmd/cli.h"
#include "cmd/conf.h"
#include "cmd/conf_keys.h"
#include "cmd/conf_list.h"
#include "cmd/conf_value.h"

#define BW_CONF_FILES 2 /* FILE and FILE.local */
#define BW_CONF_MAX_KEYS 64
#define BW_CONF_SAID 64

struct bw_conf {
	struct bw_conf_file {
		char *path;
		struct bw_yaml *root;
	} f[BW_CONF_FILES];
	int nf;
	/* The selected values, by row of bw_conf_keys, and their files. */
	const struct bw_yaml *val[BW_CONF_MAX_KEYS];
	const char *from[BW_CONF_MAX_KEYS];
	struct bw_conf_mem mem;
	const struct bw_yaml *said[BW_CONF_SAID]; /* cross errors said */
	int nsaid;
};

static size_t row_of(const struct bw_conf_key *k)
{
	return (size_t)(k - bw_conf_keys);
}

static int take(const struct bw_conf_val *x)
{
	return x->k->kind == BW_CONF_LISTS ? bw_conf_lists(x) : bw_conf_take(x);
}

/* One key of a scope ("interfaces.eth0." its prefix) checked. */
static void check_key(struct bw_conf *c, const struct bw_verb *v,
		      const char *file, const struct bw_yaml *y,
		      const char *name, const char *prefix, struct bw_args *a)
{
	struct bw_conf_val x = { &c->mem, v, bw_conf_key_find(name), y, file,
				 NULL,	  a };
	char key[256];
	const char *near;

	snprintf(key, sizeof(key), "%s%s", prefix, name);
	x.key = key;
	if (bw_yaml_is_null(y))
		return;
	if (!x.k) {
		near = bw_conf_key_near(name);
		bw_conf_say(&c->mem, file, y, key, "unknown key%s%s%s",
			    near ? " (" : "", near ?: "", near ? "?)" : "");
		return;
	}
	take(&x);
}

static void check_scope(struct bw_conf *c, const struct bw_verb *v,
			const char *file, const struct bw_yaml *m,
			const char *prefix, bool values);

static void check_ifaces(struct bw_conf *c, const struct bw_verb *v,
			 const char *file, const struct bw_yaml *y, bool values)
{
	char prefix[64];
	size_t i;

	if (y->kind != BW_YAML_MAP) {
		bw_conf_say(
			&c->mem, file, y, "interfaces",
			"takes a mapping: an interface's name, then its keys");
		return;
	}
	for (i = 0; i < y->n; i++) {
		if (!bw_iface_name_ok(y->kids[i].key)) {
			bw_conf_say(&c->mem, file, &y->kids[i], "interfaces",
				    "'%.64s' is not an interface name",
				    y->kids[i].key);
			continue;
		}
		snprintf(prefix, sizeof(prefix), "interfaces.%s.",
			 y->kids[i].key);
		if (y->kids[i].kind == BW_YAML_MAP)
			check_scope(c, v, file, &y->kids[i], prefix, values);
		else if (!bw_yaml_is_null(&y->kids[i]))
			bw_conf_say(&c->mem, file, &y->kids[i], prefix,
				    "takes a mapping of keys, not %s",
				    bw_yaml_kind_name(&y->kids[i]));
	}
}

/* A scope's keys (the top level, or one interface's), with values into a
 * scratch of its own. */
static void check_scope(struct bw_conf *c, const struct bw_verb *v,
			const char *file, const struct bw_yaml *m,
			const char *prefix, bool values)
{
	struct bw_args *a = values ? calloc(1, sizeof(*a)) : NULL;
	const struct bw_yaml *y;
	char sub[64];
	size_t i, j;

	for (i = 0; i < m->n; i++) {
		y = &m->kids[i];
		if (!strcmp(y->key, "interfaces") && !*prefix) {
			check_ifaces(c, v, file, y, values);
		} else if (!strcmp(y->key, "prometheus") &&
			   y->kind != BW_YAML_MAP) {
			if (!bw_yaml_is_null(y))
				bw_conf_say(
					&c->mem, file, y, "prometheus",
					"takes a mapping: enabled, listen_addr, listen_port");
		} else if (!strcmp(y->key, "prometheus")) {
			for (j = 0; j < y->n; j++) {
				snprintf(sub, sizeof(sub), "prometheus.%.40s",
					 y->kids[j].key);
				check_key(c, v, file, &y->kids[j], sub, prefix,
					  a);
			}
		} else {
			check_key(c, v, file, y, y->key, prefix, a);
		}
	}
	free(a);
}

static bool holds_key(const struct bw_yaml *root)
{
	const struct bw_yaml *ifs = bw_yaml_get(root, "interfaces");
	size_t i;

	if (bw_yaml_get(root, "api_key"))
		return true;
	for (i = 0; ifs && ifs->kind == BW_YAML_MAP && i < ifs->n; i++)
		if (bw_yaml_get(&ifs->kids[i], "api_key"))
			return true;
	return false;
}

/* One file read and trusted; its keys checked. */
static int read_one(struct bw_conf *c, const struct bw_verb *v,
		    const char *path, bool values)
{
	struct bw_conf_file *f = &c->f[c->nf];
	char err[PATH_MAX + 256], why[PATH_MAX + 200];
	struct stat st;
	int fd, e;

	fd = bw_open_regular(path, "config file", &st);
	if (fd < 0) {
		c->mem.errors++;
		return fd;
	}
	f->path = strdup(path);
	e = f->path ? bw_yaml_read_fd(fd, path, &f->root, err, sizeof(err))
		    : -ENOMEM;
	if (!e && f->root->kind != BW_YAML_MAP) {
		snprintf(err, sizeof(err),
			 "%s:%u: the file holds %s, not keys and values", path,
			 f->root->line, bw_yaml_kind_name(f->root));
		e = -EINVAL;
	}
	if (!e && bw_file_trusted(fd, path, "config file", holds_key(f->root),
				  why, sizeof(why))) {
		snprintf(err, sizeof(err), "%s: refused: %s", path, why);
		e = -EPERM;
	}
	close(fd);
	c->nf++;
	if (e) {
		pr_warn("bloomwall %s\n", err);
		c->mem.errors++;
		return e;
	}
	check_scope(c, v, path, f->root, "", values);
	return 0;
}

/* Whether y's cross error was said already (once for every interface). */
static bool said(struct bw_conf *c, const struct bw_yaml *y)
{
	int i;

	for (i = 0; i < c->nsaid; i++)
		if (c->said[i] == y)
			return true;
	if (c->nsaid < BW_CONF_SAID)
		c->said[c->nsaid++] = y;
	return false;
}

/* The selection's values together; each error said once. */
static int cross(struct bw_conf *c, const struct bw_verb *v, struct bw_args *a)
{
	const struct bw_yaml
		*key = c->val[row_of(bw_conf_key_find("api_key"))],
		*file = c->val[row_of(bw_conf_key_find("api_key_file"))];
	size_t en = row_of(bw_conf_key_find("prometheus.enabled"));
	const struct bw_yaml *addr =
		c->val[row_of(bw_conf_key_find("prometheus.listen_addr"))];
	const struct bw_yaml *port =
		c->val[row_of(bw_conf_key_find("prometheus.listen_port"))];
	const struct bw_opt *o;
	char *listen;
	bool on = false;

	if (key && file && !said(c, key))
		bw_conf_say(&c->mem,
			    c->from[row_of(bw_conf_key_find("api_key"))], key,
			    "api_key",
			    "give api_key or api_key_file, not both");
	if (!c->val[en] || bw_yaml_bool(c->val[en], &on) || !on)
		return 0;
	if (port && port->kind != BW_YAML_SCALAR) {
		if (!said(c, port))
			bw_conf_say(&c->mem,
				    c->from[row_of(bw_conf_key_find(
					    "prometheus.listen_port"))],
				    port, "prometheus.listen_port",
				    "takes a port, 1-65535");
		return -EINVAL;
	}
	o = bw_cli_find_opt(v, BW_CONF_METRICS_OPT);
	if (!o) {
		if (!said(c, c->val[en]))
			pr_warn("bloomwall %s:%u: prometheus: accepted and ignored: this bloomwall serves no /metrics over HTTP (--" BW_CONF_METRICS_OPT
				"); metrics_file writes them for node_exporter\n",
				c->from[en], c->val[en]->line);
		return 0;
	}
	if (!a || bw_cli_given(o))
		return 0;
	if (addr && addr->kind != BW_YAML_SCALAR)
		addr = NULL;
	if (asprintf(&listen,
		     strchr(addr ? addr->text : "", ':') ? "[%s]:%s" : "%s:%s",
		     addr ? addr->text : "127.0.0.1",
		     port ? port->text : BW_METRICS_PORT) < 0 ||
	    !bw_conf_own(&c->mem, listen))
		return -ENOMEM;
	return bw_cli_apply(v, a, o, listen, "prometheus");
}

int bw_conf_read(const struct bw_verb *v, const char *path, bool values,
		 struct bw_conf **out)
{
	struct bw_conf *c = calloc(1, sizeof(*c));
	char local[PATH_MAX];
	const char *iface;
	struct stat st;
	unsigned int i;

	*out = c;
	if (!c)
		return -ENOMEM;
	c->mem.check = values;
	read_one(c, v, path, values);
	snprintf(local, sizeof(local), "%s.local", path);
	if (!lstat(local, &st) || errno != ENOENT)
		read_one(c, v, local, values);
	for (i = 0; values; i++) {
		iface = i ? bw_conf_iface(c, i - 1) : NULL;
		if (i && !iface)
			break;
		bw_conf_select(c, iface);
		cross(c, v, NULL);
	}
	return c->mem.errors ? -EINVAL : 0;
}

/* A scope's keys over what is selected. */
static void assign(struct bw_conf *c, const char *file, const struct bw_yaml *m)
{
	const struct bw_conf_key *k;
	const struct bw_yaml *y;
	char sub[64];
	size_t i, j;

	for (i = 0; m && m->kind == BW_YAML_MAP && i < m->n; i++) {
		y = &m->kids[i];
		if (!strcmp(y->key, "prometheus") && y->kind == BW_YAML_MAP) {
			for (j = 0; j < y->n; j++) {
				snprintf(sub, sizeof(sub), "prometheus.%.40s",
					 y->kids[j].key);
				k = bw_conf_key_find(sub);
				if (k && !bw_yaml_is_null(&y->kids[j])) {
					c->val[row_of(k)] = &y->kids[j];
					c->from[row_of(k)] = file;
				}
			}
			continue;
		}
		k = bw_conf_key_find(y->key);
		if (k && !bw_yaml_is_null(y)) {
			c->val[row_of(k)] = y;
			c->from[row_of(k)] = file;
		}
	}
}

void bw_conf_select(struct bw_conf *c, const char *iface)
{
	const struct bw_yaml *ifs;
	int i;

	memset(c->val, 0, sizeof(c->val));
	memset(c->from, 0, sizeof(c->from));
	for (i = 0; i < c->nf; i++) {
		if (!c->f[i].root)
			continue;
		assign(c, c->f[i].path, c->f[i].root);
		ifs = bw_yaml_get(c->f[i].root, "interfaces");
		if (iface)
			assign(c, c->f[i].path, bw_yaml_get(ifs, iface));
	}
}

/* Whether the command line gave o, the option named name. */
static bool given(const struct bw_verb *v, const char *name)
{
	const struct bw_opt *o = name ? bw_cli_find_opt(v, name) : NULL;

	return o && bw_cli_given(o);
}

/* Whether the command line's options win over k. */
static bool overridden(const struct bw_verb *v, const struct bw_args *a,
		       const struct bw_conf_key *k)
{
	if (k->source && (a->npos > 0 || given(v, "image") || given(v, "url")))
		return true;
	return given(v, k->opt) || given(v, k->also);
}

int bw_conf_apply(struct bw_conf *c, const struct bw_verb *v, struct bw_args *a)
{
	const struct bw_conf_key *k;
	struct bw_conf_val x;
	size_t r;
	int err = 0;

	for (k = bw_conf_keys; k->key; k++) {
		r = row_of(k);
		if (!c->val[r] || k->kind == BW_CONF_PROM ||
		    overridden(v, a, k))
			continue;
		x = (struct bw_conf_val){ &c->mem,    v,      k, c->val[r],
					  c->from[r], k->key, a };
		err = take(&x) ?: err;
	}
	err = cross(c, v, a) ?: err;
	return err ? -EINVAL : 0;
}

const struct bw_yaml *bw_conf_value(const struct bw_conf *c,
				    const struct bw_conf_key *k,
				    const char **file)
{
	*file = c->from[row_of(k)];
	return c->val[row_of(k)];
}

const char *bw_conf_iface(const struct bw_conf *c, unsigned int n)
{
	const struct bw_yaml *ifs, *first;
	int i, j;
	size_t k;

	for (i = 0; i < c->nf; i++) {
		ifs = bw_yaml_get(c->f[i].root, "interfaces");
		for (k = 0; ifs && ifs->kind == BW_YAML_MAP && k < ifs->n;
		     k++) {
			/* Counted in the first file that names it. */
			for (j = 0, first = NULL; j < i && !first; j++)
				first = bw_yaml_get(
					bw_yaml_get(c->f[j].root, "interfaces"),
					ifs->kids[k].key);
			if (!first && !n--)
				return ifs->kids[k].key;
		}
	}
	return NULL;
}

void bw_conf_free(struct bw_conf *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < BW_CONF_FILES; i++) {
		free(c->f[i].path);
		bw_yaml_free(c->f[i].root);
	}
	bw_conf_mem_free(&c->mem);
	free(c);
}
