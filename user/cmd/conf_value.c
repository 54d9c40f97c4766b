// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* A config key's value checked and applied through its option (conf_value.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/duration.h"
#include "base/log.h"
#include "base/yaml.h"
#include "cmd/cli.h"
#include "cmd/conf_keys.h"
#include "cmd/conf_value.h"
#include "daemon/crowdsec_key.h"

int bw_conf_say(struct bw_conf_mem *c, const char *file,
		const struct bw_yaml *y, const char *key, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pr_warn("bloomwall %s:%u: %s: %s\n", file, y->line, key, what);
	c->errors++;
	return -EINVAL;
}

char *bw_conf_own(struct bw_conf_mem *c, char *s)
{
	char **o;

	if (!s)
		return NULL;
	o = realloc(c->owned, (c->nowned + 1) * sizeof(*o));
	if (!o) {
		free(s);
		return NULL;
	}
	c->owned = o;
	return c->owned[c->nowned++] = s;
}

static int bad(const struct bw_conf_val *x, const char *what)
{
	return bw_conf_say(x->c, x->file, x->y, x->key, "%s", what);
}

/* A scalar, or a list of scalars: its items (one for a scalar). */
static int items(const struct bw_conf_val *x, const struct bw_yaml **first,
		 size_t *n)
{
	size_t i;

	if (x->y->kind == BW_YAML_SCALAR) {
		*first = x->y;
		*n = 1;
		return 0;
	}
	if (x->y->kind != BW_YAML_SEQ)
		return bad(x, "takes a list or a value, not a mapping");
	for (i = 0; i < x->y->n; i++)
		if (x->y->kids[i].kind != BW_YAML_SCALAR)
			return bad(x, "takes a list of values, not of lists");
	*first = x->y->kids;
	*n = x->y->n;
	return 0;
}

/*
 * The option's parser on arg, as the command line's would be; what it
 * says is said after FILE:LINE: key.
 */
static int parse(const struct bw_conf_val *x, const struct bw_opt *o,
		 const char *arg)
{
	char said[1024], *what, *nl;
	int err;

	if (!x->a)
		return 0;
	bw_log_capture(said, sizeof(said));
	err = bw_cli_apply(x->v, x->a, o, arg, x->key);
	bw_log_capture(NULL, 0);
	if (!err)
		return 0;
	/* "bloomwall: what" or "bloomwall KEY: what": the what. */
	what = strstr(said, ": ");
	what = what ? what + 2 : said;
	nl = strchr(what, '\n');
	if (nl && !nl[1])
		*nl = '\0';
	return bw_conf_say(x->c, x->file, x->y, x->key, "%s",
			   *what ? what : "refused");
}

static const struct bw_opt *opt_of(const struct bw_conf_val *x)
{
	const struct bw_opt *o = bw_cli_find_opt(x->v, x->k->opt);

	if (!o)
		bad(x, "internal error: its option is not the verb's");
	return o;
}

static int scalar_opt(const struct bw_conf_val *x, const struct bw_opt *o)
{
	char secs[32];
	__u64 n;
	bool b;

	if (x->y->kind != BW_YAML_SCALAR)
		return bw_conf_say(x->c, x->file, x->y, x->key,
				   "takes a value, not %s",
				   bw_yaml_kind_name(x->y));
	if (!o->metavar) {
		if (bw_yaml_bool(x->y, &b))
			return bw_conf_say(x->c, x->file, x->y, x->key,
					   "takes true or false, not '%s'",
					   x->y->text);
		return b ? parse(x, o, NULL) : 0;
	}
	/* cs-firewall-bouncer's "10s" as well as seconds. */
	if (x->k->kind == BW_CONF_SECS && !bw_parse_duration(x->y->text, &n) &&
	    strspn(x->y->text, "0123456789") != strlen(x->y->text)) {
		snprintf(secs, sizeof(secs), "%llu", (unsigned long long)n);
		return parse(x, o, secs);
	}
	return parse(x, o, x->y->text);
}

/* A list joined with ',' for an option that takes "a,b,c". */
static int list_opt(const struct bw_conf_val *x, const struct bw_opt *o)
{
	const struct bw_yaml *it;
	size_t n, i, len = 1;
	char *s;
	int err = items(x, &it, &n);

	if (err)
		return err;
	for (i = 0; i < n; i++)
		len += strlen(it[i].text) + 1;
	s = bw_conf_own(x->c, calloc(1, len));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (strchr(it[i].text, ','))
			return bw_conf_say(x->c, x->file, &it[i], x->key,
					   "'%s': one item a line, no commas",
					   it[i].text);
		if (i)
			strcat(s, ",");
		strcat(s, it[i].text);
	}
	return parse(x, o, s);
}

static int repeat_opt(const struct bw_conf_val *x, const struct bw_opt *o)
{
	const struct bw_yaml *it;
	size_t n, i;
	int err = items(x, &it, &n);

	for (i = 0; !err && i < n; i++)
		err = parse(x, o, it[i].text);
	return err;
}

/* The key itself: what crowdsec_key.h takes from a key file. */
static int api_key(const struct bw_conf_val *x)
{
	const char *s = x->y->text;
	size_t i;

	if (x->y->kind != BW_YAML_SCALAR)
		return bad(x, "takes the key, not a list");
	for (i = 0; s[i]; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return bad(
				x,
				"not a key: the key alone, as 'cscli bouncers add NAME -o raw' prints it");
	if (i > BW_CS_KEY_MAX)
		return bad(x, "longer than a key");
	if (x->a) {
		x->a->cs.cfg.key = s;
		x->a->cs.any = true;
	}
	return 0;
}

static int scopes(const struct bw_conf_val *x)
{
	const struct bw_yaml *it;
	size_t n, i;
	int err = items(x, &it, &n), ip = 0, range = 0;

	for (i = 0; !err && i < n; i++) {
		if (!strcasecmp(it[i].text, "ip"))
			ip = 1;
		else if (!strcasecmp(it[i].text, "range"))
			range = 1;
		else
			return bw_conf_say(
				x->c, x->file, &it[i], x->key,
				"'%s': bloomwall takes the decisions of scopes ip and range, the addresses and prefixes a filter holds",
				it[i].text);
	}
	if (!err && !(ip && range))
		return bad(
			x,
			"bloomwall takes the decisions of both scopes, ip and range: give [ip, range] or leave it out");
	return err;
}

static int prom(const struct bw_conf_val *x)
{
	unsigned long port;
	char *end;
	bool b;

	if (x->y->kind != BW_YAML_SCALAR)
		return bad(x, "takes a value, not a list or a mapping");
	if (!strcmp(x->k->key, "prometheus.enabled") && bw_yaml_bool(x->y, &b))
		return bad(x, "takes true or false");
	if (!strcmp(x->k->key, "prometheus.listen_port")) {
		errno = 0;
		port = strtoul(x->y->text, &end, 10);
		if (errno || *end || end == x->y->text || !port || port > 65535)
			return bw_conf_say(x->c, x->file, x->y, x->key,
					   "takes a port, 1 to 65535, not '%s'",
					   x->y->text);
	}
	return 0;
}

/* A key file: read as the watch will (crowdsec_key.h), by config check. */
static int key_file(const struct bw_conf_val *x, const struct bw_opt *o)
{
	char key[BW_CS_KEY_MAX + 1], said[1024], *what;
	int err = scalar_opt(x, o);

	if (err || !x->c->check)
		return err;
	bw_log_capture(said, sizeof(said));
	err = bw_cs_key_read(x->y->text, key, sizeof(key));
	bw_log_capture(NULL, 0);
	memset(key, 0, sizeof(key));
	if (!err)
		return 0;
	what = strstr(said, ": ");
	what = what ? what + 2 : said;
	what[strcspn(what, "\n")] = '\0';
	return bad(x, what);
}

int bw_conf_take(const struct bw_conf_val *x)
{
	const struct bw_opt *o = NULL;
	bool b;

	if (x->k->opt && !(o = opt_of(x)))
		return -EINVAL;
	switch (x->k->kind) {
	case BW_CONF_OPT:
	case BW_CONF_SECS:
		return scalar_opt(x, o);
	case BW_CONF_LIST:
		return list_opt(x, o);
	case BW_CONF_REPEAT:
		return repeat_opt(x, o);
	case BW_CONF_LISTS: /* conf_list.h: its items take keys */
		return bad(x, "internal error: lists are conf_list.h's");
	case BW_CONF_API_KEY:
		return api_key(x);
	case BW_CONF_KEY_FILE:
		return key_file(x, o);
	case BW_CONF_SCOPES:
		return scopes(x);
	case BW_CONF_INSECURE:
		if (bw_yaml_bool(x->y, &b))
			return bad(x, "takes true or false");
		return b ? bad(x,
			       "bloomwall always checks the local API's certificate: give its CA with ca_cert_path instead")
			 : 0;
	case BW_CONF_PROM:
		return prom(x);
	}
	return 0;
}

void bw_conf_mem_free(struct bw_conf_mem *c)
{
	size_t i;

	for (i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
}
