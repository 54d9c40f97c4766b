// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Parsing the options of signed images (sign_args.h); their tables are
 * in sign_opts.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/output.h"
#include "cmd/sign_args.h"

static int parse_u64(const char *verb, const char *opt, const char *s, __u64 *v)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || *s == '+') {
		pr_warn("bloomwall %s: %s takes a number from 0 to 18446744073709551615, not '%s'\n",
			verb, opt, s);
		return -BW_EUSAGE;
	}
	*v = n;
	return 0;
}

int bw_sign_opt(const char *verb, struct bw_sign_args *s, int id,
		const char *arg)
{
	switch (id) {
	case BW_OPT_SIGN_KEY:
		s->sign_key = arg;
		return 0;
	case BW_OPT_SERIAL:
		s->serial_set = true;
		return parse_u64(verb, "--serial", arg, &s->serial);
	case BW_OPT_VERIFY_KEY:
		s->verify_key = arg;
		return 0;
	case BW_OPT_ALLOW_ROLLBACK:
		s->allow_rollback = true;
		return 0;
	case BW_OPT_FORCE:
		s->force = true;
		return 0;
	}
	pr_warn("bloomwall %s: internal error: unhandled option\n", verb);
	return -BW_EUSAGE;
}
