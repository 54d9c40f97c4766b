// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall attach IFACE [OPTIONS] LIST...
 */
#include "cmd/cli.h"
#include "cmd/list_urls.h"
#include "cmd/cmd_attach.h"
#include "base/output.h"
#include "ops/attach_lists.h"
#include "out/op_report.h"

static const struct bw_opt attach_only_opts[] = {
	BW_OPT("mode", "MODE", mode, bw_parse_mode,
	       "native, skb or auto (default): where XDP runs", .letter = 'm'),
	BW_OPT("link", NULL, link, bw_parse_flag,
	       "attach with a bpf_link of bloomwall's own, not through libxdp"),
	BW_OPT("egress", NULL, egress, bw_parse_flag,
	       "also drop the host's own packets to listed destinations (TC egress)"),
	{ 0 },
};

static const struct bw_opt *const attach_opts[] = {
	attach_only_opts, bw_build_opts, bw_list_url_opts, bw_log_opts, NULL
};

static int do_attach(struct bw_args *a)
{
	struct bw_attach_req rq = { .iface = a->iface,
				    .ifindex = a->ifindex,
				    .mode = a->mode,
				    .own_link = a->link,
				    .egress = a->egress,
				    .args = &a->build,
				    .lists = (const char *const *)a->pos,
				    .nlists = a->npos };
	struct bw_attach_result res;
	int err;

	bw_out_string("iface", NULL, a->iface);
	err = bw_check_privileges("attach");
	err = err ?: bw_list_urls_fetch(a, "attach");
	if (err)
		return err;
	err = bw_attach_lists(&rq, &res);
	bw_attach_report(a->iface, &res);
	return err;
}

const struct bw_verb bw_verb_attach = {
	.name = "attach",
	.summary = "build a filter from the LIST files and attach it to IFACE",
	.details =
		"Each LIST holds one entry a line ('-' is standard input): an IPv4 or IPv6\n"
		"address, a prefix (10.0.0.0/8, 2001:db8::/32), an IPv4 range\n"
		"(a.b.c.d-e.f.g.h), or Spamhaus' 'CIDR ; SBL123'. A prefix with host bits\n"
		"set is an error (file:line) unless --mask-host-bits. Prefixes are merged\n"
		"and expanded to at most --max-lengths target lengths per family.\n"
		"--allow FILE (same formats) is never dropped; --verify confirms every\n"
		"Bloom hit in an exact trie, so no false positive is dropped.\n"
		"The program and maps are pinned under " BW_PIN_ROOT
		"/IFACE/ and keep\n"
		"filtering after bloomwall exits. A second attach on IFACE is an error.\n"
		"With --json: {\"iface\", \"filter\": {the build's figures}, \"verify\", \"allow\",\n"
		"\"attach\": {\"mode\", \"how\", \"program_id\"}}; see bloomwall(8).\n",
	.opts = attach_opts,
	.pos = { .rest = "LIST", .min_rest = 1, .rest_many = true },
	.run = do_attach,
};
