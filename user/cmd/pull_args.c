// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * watch --url's options (pull_args.h).
 */

#include "base/log.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/pull_args.h"

/* --url URL, in order, up to BW_PULL_MAX_URLS (struct bw_pull_cfg). */
static int add_url(const struct bw_opt_val *o, void *field)
{
	struct bw_pull_cfg *c = field;

	if (c->nurls == BW_PULL_MAX_URLS) {
		pr_warn("bloomwall %s: at most %d --url\n", o->verb,
			BW_PULL_MAX_URLS);
		return -BW_EUSAGE;
	}
	c->urls[c->nurls++] = o->arg;
	return 0;
}

const struct bw_opt bw_pull_opts[] = {
	BW_OPT("url", "URL", pull, add_url,
	       "pull the image from URL (http/https; again: mirrors, tried in order)"),
	BW_OPT("ca-file", "FILE", pull.ca_file, bw_parse_str,
	       "trust the CAs in FILE (PEM) for https, not the system's"),
	BW_OPT("client-cert", "FILE", pull.cert_file, bw_parse_str,
	       "present the TLS client certificate in FILE (PEM)"),
	BW_OPT("client-key", "FILE", pull.key_file, bw_parse_str,
	       "its private key (default: in --client-cert's file)"),
	BW_OPT("connect-timeout", "SECS", pull.connect_timeout,
	       bw_parse_seconds, "give up connecting after SECS (default 10)",
	       .min = 0.1),
	BW_OPT("timeout", "SECS", pull.timeout, bw_parse_seconds,
	       "give up a whole pull of one URL after SECS (default 60)",
	       .min = 0.1),
	BW_OPT("state-dir", "DIR", pull.state_dir, bw_parse_str,
	       "keep the downloads and the last good image in DIR/IFACE (default " BW_PULL_STATE_DIR
	       ")"),
	{ 0 },
};
