// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The typed parsers every verb shares (interface, mode, rate, numbers,
 * addresses), and the capabilities each verb needs: 0, or -BW_EUSAGE
 * (-EPERM for a missing capability) after saying what is wrong and what is
 * expected.
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

#include "filter/bloom.h"
#include "bloomwall.h"
#include "cmd/args.h"
#include "filter/owners.h"
#include "filter/bloom_names.h"
#include "lists/entry.h"
#include "lists/list.h"
#include "lists/list_domain.h"
#include "lists/list_parse.h"
#include "lists/names.h"
#include "base/duration.h"
#include "base/log.h"
#include "base/output.h"
#include "base/run_dir.h"

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

int bw_parse_flag(const struct bw_opt_val *o, void *field)
{
	*(bool *)field = true;
	return 0;
}

int bw_parse_str(const struct bw_opt_val *o, void *field)
{
	*(const char **)field = o->arg;
	return 0;
}

int bw_parse_mode(const struct bw_opt_val *o, void *field)
{
	enum xdp_attach_mode *mode = field;
	const char *s = o->arg;

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

int bw_parse_fpr(const struct bw_opt_val *o, void *field)
{
	const char *s = o->arg;
	double *fpr = field, v;
	char *end;

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
	if (v < BW_MIN_FPR) {
		pr_warn("bloomwall: --fpr %s is below %g, the smallest rate a filter is built for\n",
			s, BW_MIN_FPR);
		return -BW_EUSAGE;
	}
	*fpr = v;
	return 0;
}

int bw_parse_u32(const struct bw_opt_val *o, void *field)
{
	const char *s = o->arg;
	__u32 *v = field;
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
			o->opt, s);
		return -BW_EUSAGE;
	}
	*v = (__u32)n;
	return 0;
}

int bw_parse_match(const struct bw_opt_val *o, void *field)
{
	const char *s = o->arg;
	__u16 *match = field;

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

bool bw_arg_is_name(const char *s)
{
	char why[BW_ERRLEN];
	struct bw_prefix p;

	return bw_parse_prefix(s, &p, why, sizeof(why)) &&
	       bw_name_form(s, strlen(s));
}

int bw_parse_dns_action(const struct bw_opt_val *o, void *field)
{
	const char *s = o->arg;
	int a = bw_dns_action_parse(s);
	__u8 *action = field;

	if (a < 0) {
		pr_warn("bloomwall: --dns-action must be null, nxdomain, refused or drop, not '%s'\n",
			s);
		return -BW_EUSAGE;
	}
	*action = (__u8)a;
	return 0;
}

int bw_parse_dns_ttl(const struct bw_opt_val *o, void *field)
{
	const char *s = o->arg;
	__u32 *ttl = field;
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (!isdigit((unsigned char)*s) || errno || *end ||
	    n > BW_MAX_DNS_TTL) {
		pr_warn("bloomwall: --dns-ttl takes seconds from 0 to %u, not '%s'\n",
			BW_MAX_DNS_TTL, s);
		return -BW_EUSAGE;
	}
	*ttl = (__u32)n;
	return 0;
}

int bw_parse_log_rate(const struct bw_opt_val *o, void *field)
{
	const char *s = o->arg;
	__u32 *rate = field;
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (!isdigit((unsigned char)*s) || errno || *end ||
	    n > BW_LOG_RATE_MAX) {
		pr_warn("bloomwall: --log-rate takes events a second from 0 (no drop log) to %u, not '%s'\n",
			BW_LOG_RATE_MAX, s);
		return -BW_EUSAGE;
	}
	*rate = (__u32)n;
	return 0;
}

int bw_parse_timeout(const struct bw_opt_val *o, void *field)
{
	if (!bw_parse_duration(o->arg, field))
		return 0;
	pr_warn("bloomwall: --timeout takes a duration up to 3650d: seconds, or numbers with units s, m, h, d, w (30s, 5m, 4h, 7d, 1h30m; 0: never expires), not '%s'\n",
		o->arg);
	return -BW_EUSAGE;
}

int bw_parse_duration_secs(const struct bw_opt_val *o, void *field)
{
	__u64 secs;

	if (!bw_parse_duration(o->arg, &secs) && (double)secs >= o->min &&
	    (secs || o->min <= 0)) {
		*(double *)field = (double)secs;
		return 0;
	}
	pr_warn("bloomwall %s: %s takes a duration up to 3650d%s: seconds, or numbers with units s, m, h, d, w (90s, 5m, 4h, 7d, 1h30m), not '%s'\n",
		o->verb, o->opt, o->min > 0 ? ", not 0" : "", o->arg);
	return -BW_EUSAGE;
}

int bw_parse_owner(const struct bw_opt_val *o, void *field)
{
	if (!bw_owner_check(o->arg)) {
		*(const char **)field = o->arg;
		return 0;
	}
	pr_warn("bloomwall: --owner takes a name of 1 to %d characters of A-Z a-z 0-9 . _ - (e.g. f2b-sshd), not '%s'\n",
		BW_OWNER_MAX, o->arg);
	return -BW_EUSAGE;
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

int bw_parse_max_lengths(const struct bw_opt_val *o, void *field)
{
	unsigned int *max_lengths = field;
	const char *s = o->arg;
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

/* One address or prefix as a key: 0 or -BW_EUSAGE (said). */
static int parse_addr(const char *verb, const char *s, struct bw_entry_key *k)
{
	char why[BW_ERRLEN];
	struct bw_prefix p;

	if (bw_parse_prefix(s, &p, why, sizeof(why))) {
		pr_warn("bloomwall %s: %s\n", verb, why);
		return -BW_EUSAGE;
	}
	if (why[0]) /* a note: ::ffff:a.b.c.d taken as IPv4 */
		pr_warn("bloomwall %s: %s\n", verb, why);
	*k = bw_key_prefix(&p);
	return 0;
}

/*
 * One name pushed into l as a domain entry: "name" exact, "*.name" or
 * "||name^" subtree; its key (the text in l's arena, until l grows) in
 * *k. 0 or -BW_EUSAGE (said).
 */
static int parse_name(const char *verb, const char *s, unsigned int flags,
		      struct bw_list *l, struct bw_entry_key *k)
{
	const struct bw_list_opts lo = { .domains = true };
	size_t before = l->ndom;
	const struct bw_domain *d;
	char why[BW_ERRLEN];
	int err;

	err = bw_domain_line(l, s, strlen(s), "", 0, false, &lo, why,
			     sizeof(why));
	if (!err && l->ndom != before + 1) {
		snprintf(why, sizeof(why), "not a name: \"%s\"", s);
		err = -EINVAL;
	} else if (!err && (flags & BW_PARSE_NO_ALLOW) &&
		   (l->dom[before].flags & BW_DOM_ALLOW)) {
		snprintf(why, sizeof(why),
			 "\"%s\" is an allow entry: use 'bloomwall allow'", s);
		err = -EINVAL;
	}
	if (err) {
		pr_warn("bloomwall %s: %s\n", verb, why);
		return -BW_EUSAGE;
	}
	d = &l->dom[before];
	/* A name's flags: 0 or BW_DOM_SUBTREE (bw_key_name). */
	*k = bw_key_name(bw_domain_name(l, d), d->len, d->flags);
	return 0;
}

/* With BW_PARSE_ONE_KIND: -BW_EUSAGE (said) when s[i] is not of s[0]'s kind. */
static int one_kind(const char *verb, char **s, int i, __u8 first, __u8 kind)
{
	bool name = kind == BW_ENTRY_NAME;

	if (kind == first)
		return 0;
	pr_warn("bloomwall %s: \"%s\" is %s, \"%s\" %s: one %s takes addresses or names, not both\n",
		verb, s[0], name ? "an address" : "a name", s[i],
		name ? "a name" : "an address", verb);
	return -BW_EUSAGE;
}

int bw_parse_entries(const char *verb, char **s, int n, unsigned int flags,
		     __u64 expires, struct bw_entries *out)
{
	struct bw_entry_key k;
	struct bw_list l;
	__u8 first = 0;
	int i, err = 0;

	bw_list_init(&l);
	for (i = 0; !err && i < n; i++) {
		err = bw_arg_is_name(s[i])
			      ? parse_name(verb, s[i], flags, &l, &k)
			      : parse_addr(verb, s[i], &k);
		if (err)
			break;
		first = first ?: k.kind;
		if (flags & BW_PARSE_ONE_KIND)
			err = one_kind(verb, s, i, first, k.kind);
		if (!err)
			err = bw_entries_push(out, k, expires);
	}
	bw_list_free(&l);
	return err;
}

/*
 * What each verb needs of the kernel, measured on Linux 6.18 by dropping one
 * capability at a time (tests/e2e/caps_tests.sh keeps it true):
 *
 * - CAP_SYS_ADMIN: every verb opens programs and maps by id (the program on
 *   the hook, its filter and tries), and the kernel allows BPF_*_GET_FD_BY_ID
 *   to CAP_SYS_ADMIN only. libxdp 1.3.1 also opens the program's BTF by id:
 *   without CAP_SYS_ADMIN it hands back a program without an fd and then
 *   dereferences NULL (the SIGSEGV of issue 10, item 4).
 * - CAP_NET_ADMIN: whatever changes what the hook runs. Only the netlink
 *   path (a plain or libxdp attach) needs it; a bpf_link of our own does
 *   not, but a verb must not work or fail by how the filter was attached.
 *
 * CAP_BPF and CAP_PERFMON are not asked for: the kernel grants both to
 * CAP_SYS_ADMIN, which every verb needs anyway, so a set written before
 * Linux 5.8 (CAP_SYS_ADMIN and CAP_NET_ADMIN) keeps working.
 */
#define BW_NEED_IDS (1ULL << CAP_SYS_ADMIN)
#define BW_NEED_HOOK (1ULL << CAP_NET_ADMIN)

static const struct {
	const char *verb;
	unsigned long long caps;
} verb_caps[] = {
	{ "attach", BW_NEED_IDS | BW_NEED_HOOK },
	{ "reload", BW_NEED_IDS | BW_NEED_HOOK },
	/* allow, unallow and add swap in a changed copy with a new program. */
	{ "allow", BW_NEED_IDS | BW_NEED_HOOK },
	{ "unallow", BW_NEED_IDS | BW_NEED_HOOK },
	{ "add", BW_NEED_IDS | BW_NEED_HOOK },
	/* remove rebuilds and swaps, as reload does. */
	{ "remove", BW_NEED_IDS | BW_NEED_HOOK },
	{ "detach", BW_NEED_IDS | BW_NEED_HOOK },
	/*
	 * load swaps an image's filter in through reload's path; build and
	 * inspect need nothing (no bpf()) and never ask.
	 */
	{ "load", BW_NEED_IDS | BW_NEED_HOOK },
	/* watch attaches, reloads, loads and (--detach-on-exit) detaches. */
	{ "watch", BW_NEED_IDS | BW_NEED_HOOK },
	{ "status", BW_NEED_IDS },
	{ "stats", BW_NEED_IDS },
	{ "query", BW_NEED_IDS },
	/* log reads the ring buffer the program writes: an fd by id. */
	{ "log", BW_NEED_IDS },
};

static const struct {
	int cap;
	const char *name, *why;
} cap_names[] = {
	{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN",
	  "to open the running program and its maps by id" },
	{ CAP_NET_ADMIN, "CAP_NET_ADMIN",
	  "to change the interface's XDP hook" },
};

static unsigned long long verb_needs(const char *verb)
{
	size_t i;

	for (i = 0; i < sizeof(verb_caps) / sizeof(verb_caps[0]); i++)
		if (!strcmp(verb_caps[i].verb, verb))
			return verb_caps[i].caps;
	/* A verb nobody listed gets the most, never less than it needs. */
	return BW_NEED_IDS | BW_NEED_HOOK;
}

/* The effective set: what the kernel's capable() checks look at. */
static unsigned long long effective_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

	/* Unreadable: let the kernel decide, and bw_errno_hint explain. */
	if (syscall(SYS_capget, &hdr, d))
		return ~0ULL;
	return d[0].effective | (unsigned long long)d[1].effective << 32;
}

int bw_check_privileges(const char *verb)
{
	unsigned long long need = verb_needs(verb), have = effective_caps();
	char msg[512];
	size_t i, n, len = 0;

	if (!(need & ~have))
		return 0;
	for (i = n = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++) {
		unsigned long long bit = 1ULL << cap_names[i].cap;

		if (!(need & bit))
			continue;
		len += snprintf(msg + len, sizeof(msg) - len, "%s%s%s %s",
				n++ ? ", and " : "", cap_names[i].name,
				have & bit ? "" : " (missing)",
				cap_names[i].why);
		if (len >= sizeof(msg))
			break;
	}
	if (geteuid())
		pr_warn("bloomwall %s: needs %s; try 'sudo bloomwall %s ...'\n",
			verb, msg, verb);
	else /* root in a reduced bounding set: capsh, a container, a unit */
		pr_warn("bloomwall %s: needs %s; root here runs with fewer capabilities (see 'capsh --print')\n",
			verb, msg);
	return -EPERM;
}

int bw_parse_seconds(const struct bw_opt_val *o, void *field)
{
	const char *s = o->arg;
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(d) || d < o->min ||
	    d > 86400.0) {
		pr_warn("bloomwall %s: %s takes seconds from %g to 86400, not '%s'\n",
			o->verb, o->opt, o->min, s);
		return -BW_EUSAGE;
	}
	*(double *)field = d;
	return 0;
}
