// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The checks' shared pieces (check_fail.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "filter/bloom.h"
#include "image/check_fail.h"

const char *const bw_check_fam_names[BW_FAMILIES] = { "IPv4", "IPv6" };

int bw_check_fail(char *why, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A rate --fpr takes; NaN and subnormals fail isnormal. */
static bool fpr_ok(double f)
{
	return isnormal(f) && f >= BW_MIN_FPR && f < 0.5;
}

double bw_check_fpr_of(__u64 bits)
{
	double f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

int bw_check_rate(const char *what, __u64 bits, char *why, size_t errlen)
{
	if (fpr_ok(bw_check_fpr_of(bits)))
		return 0;
	return bw_check_fail(
		why, errlen,
		"%s is %g (bits 0x%016llx); a build takes a rate from %g to 0.5",
		what, bw_check_fpr_of(bits), (unsigned long long)bits,
		BW_MIN_FPR);
}

const struct bw_info *bw_check_info_of(const void *mem)
{
	return (const struct bw_info *)bw_block_at(mem, 1);
}
