// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall reload IFACE [OPTIONS] LIST...
 *
 * A new filter is built beside the running one, a program is loaded for it,
 * and that program replaces the one on the interface in one atomic update:
 * every packet meets the old filter or the new one, never neither. A failed
 * build or load changes nothing.
 */
#include "cmd/cli.h"
#include "cmd/list_urls.h"
#include "cmd/cmd_reload.h"
#include "base/output.h"
#include "ops/reload.h"
#include "out/op_report.h"

static const struct bw_opt reload_only_opts[] = {
	BW_OPT("enforce", NULL, build.enforce, bw_parse_flag,
	       "drop matching packets (leave monitor mode)"),
	BW_OPT("forget-added", NULL, build.forget_added, bw_parse_flag,
	       "leave out the entries kept from 'bloomwall add'"),
	BW_OPT("egress", NULL, egress, bw_parse_flag,
	       "also the TC egress program, if IFACE runs none (attach --egress)"),
	{ 0 },
};

static const struct bw_opt *const reload_opts[] = {
	bw_build_opts, reload_only_opts, bw_list_url_opts, bw_log_opts, NULL
};

static int do_reload(struct bw_args *a)
{
	struct bw_reload_req r = { .iface = a->iface,
				   .ifindex = a->ifindex,
				   .args = &a->build,
				   .lists = (const char *const *)a->pos,
				   .nlists = a->npos,
				   .egress = a->egress };
	struct bw_reload_result res;
	int err;

	bw_out_string("iface", NULL, a->iface);
	err = bw_check_privileges("reload");
	err = err ?: bw_list_urls_fetch(a, "reload");
	if (err)
		return err;
	err = bw_reload(&r, &res);
	bw_reload_report(a->iface, &res);
	return err;
}

const struct bw_verb bw_verb_reload = {
	.name = "reload",
	.summary =
		"rebuild the filter on IFACE from the LIST files and swap it in",
	.details =
		"The new filter replaces the running one in a single update: the interface\n"
		"is never without a filter. If any list fails (missing file, bad line, out\n"
		"of memory), the running filter stays exactly as it was. Counters are kept.\n"
		"Entries added with 'bloomwall add' are kept: built into the new filter\n"
		"with the lists' (an add that races the reload too), until 'bloomwall\n"
		"remove' takes them out or --forget-added leaves them all out.\n"
		"Monitor/enforce, --match and --fpr carry over (a fresh seed is drawn unless\n"
		"--seed); --verify does not: a reload without it turns verify mode off.\n"
		"--allow replaces the allowlist (new entries are added before old ones go);\n"
		"without --allow the allowlist stays as it is.\n"
		"With --json: {\"iface\", \"filter\": {the build's figures}, \"verify\", \"swap\":\n"
		"{\"generation\", \"replaces\", \"verify\"}, \"allow\", \"added_kept\",\n"
		"\"added_forgotten\"}; see bloomwall(8).\n",
	.opts = reload_opts,
	.pos = { .rest = "LIST", .min_rest = 1, .rest_many = true },
	.run = do_reload,
};
