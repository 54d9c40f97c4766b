// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* watch's CrowdSec options (cs_args.h). */
#include <string.h>

#include "base/log.h"
#include "base/output.h"
#include "cmd/args.h"
#include "cmd/cli.h"
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

/* --widest-range LEN4,LEN6 ("8,19", "/8,/19"): unsigned int[2]. */
static int widest(const struct bw_opt_val *o, void *field)
{
	const char *s = o->arg, *comma = strchr(s, ',');
	unsigned int *v = field;

	if (!comma || one_plen(s, (size_t)(comma - s), 32, &v[0]) ||
	    one_plen(comma + 1, strlen(comma + 1), 128, &v[1])) {
		pr_warn("bloomwall %s: --widest-range takes LEN4,LEN6: the widest IPv4 range (1-32) and IPv6 range (1-128) taken, as 8,19; not '%s'\n",
			o->verb, s);
		return -BW_EUSAGE;
	}
	return 0;
}

/* Each sets cs.any too: bw_cs_args_cfg() asks for --crowdsec then. */
#define CS_OPT(name, metavar, member, parse, help, ...)   \
	BW_OPT(name, metavar, cs.cfg.member, parse, help, \
	       .set = BW_FIELD(cs.any), __VA_ARGS__)

const struct bw_opt bw_cs_opts[] = {
	CS_OPT("crowdsec", "URL", url, bw_parse_str,
	       "enforce the decisions of the CrowdSec local API at URL (a bouncer)"),
	CS_OPT("crowdsec-key-file", "FILE", key_file, bw_parse_str,
	       "the bouncer's API key ('cscli bouncers add'), in FILE (0600, root's)"),
	CS_OPT("crowdsec-cert", "FILE", cert_file, bw_parse_str,
	       "a TLS client certificate (PEM) instead of a key (https:// only)"),
	CS_OPT("crowdsec-cert-key", "FILE", cert_key_file, bw_parse_str,
	       "its private key, when not in the --crowdsec-cert FILE"),
	CS_OPT("crowdsec-ca", "FILE", ca_file, bw_parse_str,
	       "CA certificates for the LAPI's (default: the system's)"),
	CS_OPT("crowdsec-timeout", "SECS", timeout, bw_parse_seconds,
	       "give up a request to the LAPI after SECS (default 60)",
	       .min = 0.1),
	CS_OPT("update-frequency", "SECS", update_frequency, bw_parse_seconds,
	       "ask the LAPI for new and deleted decisions every SECS (default 10)",
	       .min = 0.1),
	CS_OPT("decision-types", "LIST", filter.types, bw_parse_str,
	       "decision types to enforce, comma-separated (default: ban)"),
	CS_OPT("origins", "LIST", filter.origins, bw_parse_str,
	       "only decisions of these origins (crowdsec,cscli,CAPI,lists...)"),
	CS_OPT("scenarios-containing", "LIST", filter.scenarios_containing,
	       bw_parse_str,
	       "only decisions whose scenario contains one of these words"),
	CS_OPT("scenarios-not-containing", "LIST",
	       filter.scenarios_not_containing, bw_parse_str,
	       "no decision whose scenario contains one of these words"),
	CS_OPT("widest-range", "LEN4,LEN6", filter.min_plen, widest,
	       "refuse range decisions wider than /LEN4 (IPv4), /LEN6 (default 8,19)"),
	{ 0 },
};

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
