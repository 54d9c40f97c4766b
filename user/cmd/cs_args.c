// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* watch's CrowdSec options (cs_args.h). */
#include <string.h>

#include "base/log.h"
#include "base/output.h"
#include "cmd/args.h"
#include "cmd/cs_args.h"

/* A prefix length 1..max ("8" or "/8") from s, len bytes. */
static int one_plen(const char *s, size_t len, unsigned int max,
		    unsigned int *v)
{
	unsigned int n = 0;
	size_t i = 0;

	if (len && s[0] == '/')
		i++;
	if (i == len || len - i > 3)
		return -1;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		n = n * 10 + (unsigned int)(s[i] - '0');
	}
	if (n < 1 || n > max)
		return -1;
	*v = n;
	return 0;
}

/* --widest-range LEN4,LEN6 ("8,19", "/8,/19"). */
static int widest(const char *verb, const char *s, unsigned int *v)
{
	const char *comma = strchr(s, ',');

	if (!comma || one_plen(s, (size_t)(comma - s), 32, &v[0]) ||
	    one_plen(comma + 1, strlen(comma + 1), 128, &v[1])) {
		pr_warn("bloomwall %s: --widest-range takes LEN4,LEN6: the widest IPv4 range (1-32) and IPv6 range (1-128) taken, as 8,19; not '%s'\n",
			verb, s);
		return -BW_EUSAGE;
	}
	return 0;
}

int bw_cs_opt(const char *verb, struct bw_cs_args *a, int id, const char *arg)
{
	struct bw_cs_cfg *c = &a->cfg;

	a->any = true;
	switch (id) {
	case BW_OPT_CROWDSEC:
		c->url = arg;
		return 0;
	case BW_OPT_CS_KEY_FILE:
		c->key_file = arg;
		return 0;
	case BW_OPT_CS_CERT:
		c->cert_file = arg;
		return 0;
	case BW_OPT_CS_CERT_KEY:
		c->cert_key_file = arg;
		return 0;
	case BW_OPT_CS_CA:
		c->ca_file = arg;
		return 0;
	case BW_OPT_CS_UPDATE_FREQUENCY:
		return bw_parse_seconds(verb, "--update-frequency", arg, 0.1,
					&c->update_frequency);
	case BW_OPT_CS_TIMEOUT:
		return bw_parse_seconds(verb, "--crowdsec-timeout", arg, 0.1,
					&c->timeout);
	case BW_OPT_CS_TYPES:
		c->filter.types = arg;
		return 0;
	case BW_OPT_CS_ORIGINS:
		c->filter.origins = arg;
		return 0;
	case BW_OPT_CS_SCENARIOS_IN:
		c->filter.scenarios_containing = arg;
		return 0;
	case BW_OPT_CS_SCENARIOS_OUT:
		c->filter.scenarios_not_containing = arg;
		return 0;
	case BW_OPT_CS_WIDEST:
		return widest(verb, arg, c->filter.min_plen);
	}
	pr_warn("bloomwall %s: internal error: unhandled option\n", verb);
	return -BW_EUSAGE;
}

const struct bw_cs_cfg *bw_cs_args_cfg(const struct bw_cs_args *a, int *err)
{
	*err = 0;
	if (a->cfg.url)
		return &a->cfg;
	if (a->any) {
		pr_warn("bloomwall watch: the CrowdSec options need --crowdsec URL\n");
		*err = -BW_EUSAGE;
	}
	return NULL;
}
