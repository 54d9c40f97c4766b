// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The typed parsers every verb shares (interface, mode, rate, numbers,
 * addresses) and the privilege check: 0, or -BW_EUSAGE after saying what
 * is wrong and what is expected.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "bloomwall.h"
#include "cli.h"
#include "list.h"
#include "log.h"
#include "output.h"

/* Also keeps the name usable as one directory under the pin root. */
bool bw_iface_name_ok(const char *name)
{
	return *name && strlen(name) < IFNAMSIZ && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

int bw_parse_iface(const char *name, int *ifindex)
{
	if (!bw_iface_name_ok(name)) {
		pr_warn("bloomwall: '%s' is not a valid interface name\n",
			name);
		return -BW_EUSAGE;
	}
	*ifindex = (int)if_nametoindex(name);
	if (!*ifindex) {
		pr_warn("bloomwall: there is no interface named '%s' here (see 'ip link')\n",
			name);
		return -BW_EUSAGE;
	}
	return 0;
}

int bw_parse_mode(const char *s, enum xdp_attach_mode *mode)
{
	if (!strcmp(s, "native"))
		*mode = XDP_MODE_NATIVE;
	else if (!strcmp(s, "skb"))
		*mode = XDP_MODE_SKB;
	else if (!strcmp(s, "auto"))
		*mode = XDP_MODE_UNSPEC;
	else {
		pr_warn("bloomwall: --mode must be native, skb or auto, not '%s'\n",
			s);
		return -BW_EUSAGE;
	}
	return 0;
}

int bw_parse_fpr(const char *s, double *fpr)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && *end == '%' && end[1] == '\0') {
		v /= 100.0;
		end++;
	}
	if (errno || end == s || *end || !isfinite(v) || v <= 0.0 || v >= 0.5) {
		pr_warn("bloomwall: --fpr takes a false-positive rate between 0 and 0.5 exclusive (e.g. 0.001 or 0.1%%), not '%s'\n",
			s);
		return -BW_EUSAGE;
	}
	*fpr = v;
	return 0;
}

int bw_parse_u32(const char *opt, const char *s, __u32 *v)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	unsigned long long n;
	char *end;

	/* strtoull alone would take octal, signs and leading blanks. */
	errno = 0;
	n = hex ? strtoull(digits, &end, 16) : strtoull(digits, &end, 10);
	if (!(hex ? isxdigit((unsigned char)*digits)
		  : isdigit((unsigned char)*digits)) ||
	    errno || *end || n > 0xffffffffULL) {
		pr_warn("bloomwall: %s takes a number from 0 to 4294967295 (decimal, or hexadecimal after 0x), not '%s'\n",
			opt, s);
		return -BW_EUSAGE;
	}
	*v = (__u32)n;
	return 0;
}

int bw_parse_match(const char *s, __u16 *match)
{
	if (!strcmp(s, "src"))
		*match = BW_F_MATCH_SRC;
	else if (!strcmp(s, "dst"))
		*match = BW_F_MATCH_DST;
	else if (!strcmp(s, "both"))
		*match = BW_F_MATCH_SRC | BW_F_MATCH_DST;
	else {
		pr_warn("bloomwall: --match must be src, dst or both, not '%s'\n",
			s);
		return -BW_EUSAGE;
	}
	return 0;
}

static int parse_one_length(const char *s, char **end, unsigned int *v)
{
	unsigned long n;

	errno = 0;
	n = strtoul(s, end, 10);
	if (errno || *end == s || *s == '-' || *s == '+' || n < 1 ||
	    n > BW_MAX_LENGTHS)
		return -EINVAL;
	*v = (unsigned int)n;
	return 0;
}

int bw_parse_max_lengths(const char *s, unsigned int *max_lengths)
{
	char *end;
	int err;

	err = parse_one_length(s, &end, &max_lengths[BW_V4]);
	max_lengths[BW_V6] = max_lengths[BW_V4];
	if (!err && *end == ',')
		err = parse_one_length(end + 1, &end, &max_lengths[BW_V6]);
	if (err || *end) {
		pr_warn("bloomwall: --max-lengths takes N or N,M (IPv4,IPv6), each from 1 to %d, not '%s'\n",
			BW_MAX_LENGTHS, s);
		return -BW_EUSAGE;
	}
	return 0;
}

int bw_parse_addrs(const char *verb, char **s, int n, bool prefixes,
		   struct bw_prefix **out)
{
	char why[BW_ERRLEN];
	struct bw_prefix *p;
	int i;

	p = calloc(n ?: 1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (bw_parse_prefix(s[i], &p[i], why, sizeof(why))) {
			pr_warn("bloomwall %s: %s\n", verb, why);
			break;
		}
		if (why[0]) /* a note: ::ffff:a.b.c.d taken as IPv4 */
			pr_warn("bloomwall %s: %s\n", verb, why);
		if (!prefixes &&
		    p[i].plen != (p[i].family == BW_V4 ? 32 : 128)) {
			pr_warn("bloomwall %s: '%s' is a prefix; give single addresses\n",
				verb, s[i]);
			break;
		}
	}
	if (i < n) {
		free(p);
		return -BW_EUSAGE;
	}
	*out = p;
	return 0;
}

#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap >> 5].effective & (1U << (cap & 31));
}

int bw_check_privileges(const char *verb)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

	if (geteuid() == 0)
		return 0;
	if (!syscall(SYS_capget, &hdr, d) &&
	    (has_cap(d, CAP_SYS_ADMIN) ||
	     (has_cap(d, CAP_BPF) && has_cap(d, CAP_NET_ADMIN))))
		return 0;
	pr_warn("bloomwall %s: needs root (or CAP_BPF and CAP_NET_ADMIN); try 'sudo bloomwall %s ...'\n",
		verb, verb);
	return -EPERM;
}

const char *bw_mode_name(enum xdp_attach_mode mode)
{
	switch (mode) {
	case XDP_MODE_NATIVE:
		return "native";
	case XDP_MODE_SKB:
		return "skb";
	case XDP_MODE_HW:
		return "hw";
	default:
		return "auto";
	}
}
