// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall config check FILE | config show FILE [--interface IFACE]: the
 * watch's config file (conf.h) checked, or what a watch would run with,
 * as YAML. Neither needs a privilege: no BPF, no interface.
 */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/run_dir.h"
#include "base/yaml.h"
#include "cmd/cli.h"
#include "cmd/cmd_config.h"
#include "cmd/cmd_watch.h"
#include "cmd/conf.h"
#include "cmd/conf_keys.h"

static const struct bw_opt config_only_opts[] = {
	BW_OPT("interface", "IFACE", conf_iface, bw_parse_str,
	       "show: IFACE's settings (the top level, then interfaces.IFACE)"),
	{ 0 },
};

static const struct bw_opt *const config_opts[] = { config_only_opts, NULL };

/* A scalar as YAML: plain when it reads back the same, else quoted. */
static void put_scalar(const char *s, bool quoted)
{
	const char *p;

	if (!quoted && *s &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyz"
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._/,+-") == strlen(s)) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if ((unsigned char)*p < ' ' || *p == 0x7f)
			printf("\\x%02x", (unsigned char)*p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void put_value(const struct bw_yaml *y)
{
	size_t i;

	if (y->kind == BW_YAML_SCALAR) {
		put_scalar(y->text, y->quoted);
		return;
	}
	/* The keys take lists of values alone (conf_value.c). */
	printf("[");
	for (i = 0; i < y->n; i++) {
		printf("%s", i ? ", " : "");
		if (y->kids[i].kind == BW_YAML_SCALAR)
			put_scalar(y->kids[i].text, y->kids[i].quoted);
	}
	printf("]");
}

/* A list with mappings (lists: sources of their own) as a block, each
 * value with its line. */
static bool put_block(const struct bw_yaml *y, const char *file)
{
	const struct bw_yaml *it, *kv;
	size_t i, j;

	for (i = 0; y->kind == BW_YAML_SEQ && i < y->n; i++)
		if (y->kids[i].kind == BW_YAML_MAP)
			break;
	if (y->kind != BW_YAML_SEQ || i == y->n)
		return false;
	printf(" # %s:%u\n", file, y->line);
	for (i = 0; i < y->n; i++) {
		it = &y->kids[i];
		if (it->kind == BW_YAML_SCALAR) {
			printf("  - ");
			put_scalar(it->text, it->quoted);
			printf("  # %s:%u\n", file, it->line);
		}
		for (j = 0; it->kind == BW_YAML_MAP && j < it->n; j++) {
			kv = &it->kids[j];
			printf("  %s %s: ", j ? " " : "-", kv->key);
			put_value(kv);
			printf("  # %s:%u\n", file, kv->line);
		}
	}
	return true;
}

static void show_key(const struct bw_conf *c, const struct bw_conf_key *k,
		     bool *in_prom)
{
	const char *name = k->key, *file, *dot = strchr(k->key, '.');
	const struct bw_yaml *y = bw_conf_value(c, k, &file);

	if (dot && !*in_prom)
		printf("prometheus:\n");
	*in_prom = dot;
	printf("%s%s: ", dot ? "  " : "", dot ? dot + 1 : name);
	if (!y)
		printf("%s  # default\n", k->dflt);
	else if (k->kind == BW_CONF_API_KEY)
		printf("\"(redacted)\"  # %s:%u\n", file, y->line);
	else if (!put_block(y, file)) {
		put_value(y);
		printf("  # %s:%u\n", file, y->line);
	}
}

static int show(struct bw_conf *c, const char *path, const char *iface)
{
	const struct bw_conf_key *k;
	const char *name;
	bool in_prom = false;
	unsigned int i;

	if (iface && !bw_iface_name_ok(iface))
		return bw_cli_usage_error(&bw_verb_config,
					  "'%s' is not an interface name",
					  iface);
	bw_conf_select(c, iface);
	printf("# bloomwall watch %s --config %s: FILE.local over FILE, key by key",
	       iface ?: "IFACE", path);
	printf(iface ? ";\n# the top level, then interfaces.%s\n"
		     : "; the top level alone\n",
	       iface);
	for (i = 0; (name = bw_conf_iface(c, i)); i++)
		printf("%s%s", i ? ", " : "# interfaces: ", name);
	if (i)
		printf(" (config show --interface IFACE)\n");
	for (k = bw_conf_keys; k->key; k++)
		show_key(c, k, &in_prom);
	return 0;
}

static int do_config(struct bw_args *a)
{
	const char *path = a->pos[0];
	bool is_show = !strcmp(a->file, "show");
	struct bw_conf *c;
	int err;

	if (!is_show && strcmp(a->file, "check"))
		return bw_cli_usage_error(
			&bw_verb_config, "config takes check or show, not '%s'",
			a->file);
	if (!is_show && a->conf_iface)
		return bw_cli_usage_error(
			&bw_verb_config, "%s",
			"--interface goes with show (check checks every interface)");
	err = bw_conf_read(&bw_verb_watch, path, true, &c);
	if (!c)
		return err;
	if (!err && is_show)
		err = show(c, path, a->conf_iface);
	else if (!err)
		printf("%s: ok\n", path);
	bw_conf_free(c);
	return err;
}

const struct bw_verb bw_verb_config = {
	.name = "config",
	.summary = "check a config file, or show what a watch would run with",
	.synopsis = "check FILE  |  show FILE [--interface IFACE]",
	.details =
		"The watch's config file (bloomwall.yaml(5)), read as 'watch IFACE --config\n"
		"FILE' reads it: FILE, then FILE.local key by key over it when it is there.\n"
		"check: every key of both files, of every interface, through the parser of\n"
		"the option it equals; each error as FILE:LINE: key: what; exit 0 and\n"
		"'FILE: ok', or 1. show: the settings of the top level (and of\n"
		"interfaces.IFACE with --interface), every key, defaults included, as\n"
		"YAML with where each value comes from; api_key redacted. Neither needs\n"
		"privileges.\n",
	.opts = config_opts,
	.pos = { .first = BW_POS_FILE, .rest = "FILE", .min_rest = 1 },
	.run = do_config,
};
