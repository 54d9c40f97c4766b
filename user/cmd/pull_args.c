// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Parsing watch --url's options (pull_args.h).
 */

#include "base/log.h"
#include "cmd/args.h"
#include "cmd/pull_args.h"

int bw_pull_opt(const char *verb, struct bw_pull_cfg *c, int id,
		const char *arg)
{
	switch (id) {
	case BW_OPT_URL:
		if (c->nurls == BW_PULL_MAX_URLS) {
			pr_warn("bloomwall %s: at most %d --url\n", verb,
				BW_PULL_MAX_URLS);
			return -BW_EUSAGE;
		}
		c->urls[c->nurls++] = arg;
		return 0;
	case BW_OPT_CA_FILE:
		c->ca_file = arg;
		return 0;
	case BW_OPT_CLIENT_CERT:
		c->cert_file = arg;
		return 0;
	case BW_OPT_CLIENT_KEY:
		c->key_file = arg;
		return 0;
	case BW_OPT_CONNECT_TIMEOUT:
		return bw_parse_seconds(verb, "--connect-timeout", arg, 0.1,
					&c->connect_timeout);
	case BW_OPT_PULL_TIMEOUT:
		return bw_parse_seconds(verb, "--timeout", arg, 0.1,
					&c->timeout);
	case BW_OPT_STATE_DIR:
		c->state_dir = arg;
		return 0;
	}
	pr_warn("bloomwall %s: internal error: unhandled option\n", verb);
	return -BW_EUSAGE;
}
