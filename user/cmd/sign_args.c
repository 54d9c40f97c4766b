// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The options of signed images (sign_args.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/output.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/sign_args.h"
#include "image/sign_key.h"

/* --serial: a number from 0 to 2^64-1, decimal (__u64). */
static int parse_u64(const struct bw_opt_val *o, void *field)
{
	const char *s = o->arg;
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || *s == '+') {
		pr_warn("bloomwall %s: %s takes a number from 0 to 18446744073709551615, not '%s'\n",
			o->verb, o->opt, s);
		return -BW_EUSAGE;
	}
	*(__u64 *)field = n;
	return 0;
}

const struct bw_opt bw_sign_build_opts[] = {
	BW_OPT("sign-key", "SECRET", sign.sign_key, bw_parse_str,
	       "sign the image with the secret key file SECRET ('bloomwall keygen')"),
	BW_OPT("serial", "N", sign.serial, parse_u64,
	       "the image's serial (default: its lists' newest mtime, in microseconds)",
	       .set = BW_FIELD(sign.serial_set)),
	{ 0 },
};

#define VERIFY_KEY_OPT                                                                   \
	BW_OPT("verify-key", "PUBLIC", sign.verify_key, bw_parse_str,                    \
	       "require a signature by a key in PUBLIC (default: " BW_VERIFY_KEY_DEFAULT \
	       " if there)")

const struct bw_opt bw_verify_opts[] = {
	VERIFY_KEY_OPT,
	{ 0 },
};

const struct bw_opt bw_verify_load_opts[] = {
	VERIFY_KEY_OPT,
	BW_OPT("allow-rollback", NULL, sign.allow_rollback, bw_parse_flag,
	       "take an image with a lower serial than the running filter's (or equal, other bytes)"),
	{ 0 },
};

const struct bw_opt bw_keygen_opts[] = {
	BW_OPT("force", NULL, sign.force, bw_parse_flag,
	       "replace existing key files"),
	{ 0 },
};
