// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * CIDR lists, the allowlist and verify mode through the XDP program, with
 * filters built by the CLI's own build function (bw_build_lists) from list
 * files and swapped in by its own swap (bw_swap_in):
 *
 *  - the edges of every prefix at every chosen target length, expanded or
 *    not: first and last address drop, the neighbours pass;
 *  - an allowlisted address or prefix inside a blocked prefix passes and is
 *    counted in `allowed`; replacing the allowlist drops what left it;
 *  - verify mode: members drop, no non-member ever does, and every Bloom hit
 *    the exact trie refuses is counted in `false_pos`, exactly;
 *  - the real lists (firehol_level1, spamhaus drop/dropv6, firehol_level4)
 *    in verify mode: zero false negatives, zero false positives;
 *  - the swap keeps filter and trie in step, generation after generation;
 *  - every list file of the shared data builds, with no false negative.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "bloomwall.h"
#include "bloomwall.skel.h"
#include "cidr.h"
#include "datapath.h"
#include "lpm.h"
#include "stats.h"
#include "test_helpers.h"

typedef unsigned __int128 u128;

#define SEED 0x5eed

/* ---- helpers ------------------------------------------------------------- */

/* What one packet must do, and the counters that move with it. */
enum want {
	W_DROP,
	W_PASS,	     /* a Bloom miss */
	W_ALLOWED,   /* a hit the allowlist passed */
	W_FALSE_POS, /* a hit the exact trie refused */
};

static const char *const want_names[] = { "drop", "pass", "allowed",
					  "false_pos" };

static char tmpdir[64];

static bool tmp_setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/bw-allow-XXXXXX");
	return ASSERT_OK_PTR(mkdtemp(tmpdir), "mkdtemp");
}

static void tmp_cleanup(void)
{
	char cmd[96];

	if (!tmpdir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "  cannot remove %s\n", tmpdir);
	tmpdir[0] = '\0';
}

/* Writes a NULL-terminated list of lines to tmpdir/name; its path (static). */
static char *write_list(const char *name, const char *const *lines)
{
	static char paths[4][128];
	static int next;
	char *path = paths[next++ % 4];
	FILE *f;

	snprintf(path, sizeof(paths[0]), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!ASSERT_OK_PTR(f, path))
		return NULL;
	for (; *lines; lines++)
		fprintf(f, "%s\n", *lines);
	fclose(f);
	return path;
}

static void req_init(struct bw_build_req *req, char **files, int n, bool verify,
		     __u8 slot, __u64 generation)
{
	memset(req, 0, sizeof(*req));
	bw_build_opts_init(&req->opts);
	bw_cidr_opts_init(&req->cidr);
	req->iface = "dp";
	req->lists = files;
	req->nlists = n;
	req->opts.seed = SEED;
	req->opts.flags = BW_F_MATCH_SRC | (verify ? BW_F_VERIFY : 0);
	req->exact_slot = slot;
	req->generation = generation;
}

static int exact_outer(struct bw_dp *dp)
{
	return bpf_map__fd(dp->skel->maps.exact);
}

static int allow_map(struct bw_dp *dp)
{
	return bpf_map__fd(dp->skel->maps.allow);
}

/* The CLI's swap into the fixture's maps; allow NULL leaves it alone. */
static int swap_in(struct bw_dp *dp, const struct bw_built *b,
		   const struct bw_list *allow)
{
	struct bw_swap s = { .iface = "dp",
			     .maps = &dp->maps,
			     .installer = &dp->installer,
			     .exact_fd = exact_outer(dp),
			     .allow_fd = allow ? allow_map(dp) : -1,
			     .allow = allow };
	const struct bw_info *info =
		(const void *)((char *)b->filter.mem + BW_BLOCK_BYTES);

	s.old_generation = info->generation - 1;
	return bw_swap_in(&s, b);
}

/* Builds files into b (verify or not) and swaps it in. */
static bool build_swap(struct bw_dp *dp, char **files, int n, bool verify,
		       __u64 gen, struct bw_built *b)
{
	struct bw_build_req req;
	struct bw_filter_map cur = BW_FILTER_MAP_INIT;
	__u8 slot = 0;

	/* The slot the running filter does not name, as reload picks it. */
	if (gen > 1 && !bw_filter_open_current(dp->registry_fd, false, &cur))
		slot = !((const struct bw_hdr *)cur.mem)->exact_slot;
	bw_filter_close(&cur);
	req_init(&req, files, n, verify, slot, gen);
	if (!ASSERT_OK(bw_build_lists(&req, b), "bw_build_lists"))
		return false;
	return ASSERT_OK(swap_in(dp, b, NULL), "bw_swap_in");
}

static struct bw_prefix dst_of(int family)
{
	return bw_addr(family == BW_V4 ? "192.0.2.1" : "2001:db8::1");
}

/* Runs one packet from src; asserts its action and every counter delta. */
static bool expect(struct bw_dp *dp, const struct bw_prefix *src, enum want w)
{
	struct bw_pkt_spec s = { .payload = 16 };
	struct bw_prefix dst = dst_of(src->family);
	struct bw_stats b, a, d = {};
	__u8 buf[BW_PKT_MAX];
	char what[128], txt[64];
	size_t len = bw_pkt_build_addr(&s, src, &dst, buf);
	const __u64 *pa = (const __u64 *)&a, *pb = (const __u64 *)&b;
	const __u64 *pd = (const __u64 *)&d;
	int ret, fails = bw_test_failed_asserts;
	size_t f;

	if (w == W_DROP)
		*(src->family == BW_V4 ? &d.dropped_v4 : &d.dropped_v6) = 1;
	else
		d.passed = 1;
	d.allowed = w == W_ALLOWED;
	d.false_pos = w == W_FALSE_POS;
	snprintf(what, sizeof(what), "%s (want %s)",
		 bw_prefix_str(src, txt, sizeof(txt)), want_names[w]);
	if (!ASSERT_OK(bw_dp_stats(dp, &b), "stats"))
		return false;
	ret = bw_dp_verdict(dp, buf, len);
	if (!ASSERT_OK(bw_dp_stats(dp, &a), "stats"))
		return false;
	ASSERT_EQ(ret, w == W_DROP ? XDP_DROP : XDP_PASS, what);
	for (f = 0; f < bw_stats_nfields; f++) {
		if (pa[f] - pb[f] == pd[f])
			continue;
		snprintf(what, sizeof(what), "%s (want %s): %s delta", txt,
			 want_names[w], bw_stats_fields[f].name);
		ASSERT_EQ(pa[f] - pb[f], pd[f], what);
	}
	return bw_test_failed_asserts == fails;
}

/* Runs every address; counts drops (XDP_DROP) in *drops. */
static void run_all(struct bw_dp *dp, const struct bw_prefix *a, size_t n,
		    size_t *drops)
{
	struct bw_pkt_spec s = { .payload = 16 };
	struct bw_prefix dst;
	__u8 buf[BW_PKT_MAX];
	size_t i, len;

	*drops = 0;
	for (i = 0; i < n; i++) {
		dst = dst_of(a[i].family);
		len = bw_pkt_build_addr(&s, &a[i], &dst, buf);
		*drops += bw_dp_verdict(dp, buf, len) == XDP_DROP;
	}
}

/* Address arithmetic on both families as 128-bit numbers. */
static u128 addr_num(const struct bw_prefix *p)
{
	return p->family == BW_V4 ? (u128)(__u32)p->lo
				  : (u128)p->hi << 64 | p->lo;
}

static struct bw_prefix addr_at(int family, u128 n)
{
	struct bw_prefix p = { .family = (__u8)family };

	if (family == BW_V4) {
		p.lo = (__u32)n;
		p.plen = 32;
	} else {
		p.hi = (__u64)(n >> 64);
		p.lo = (__u64)n;
		p.plen = 128;
	}
	return p;
}

/* Host part of a prefix: all ones below its length. */
static u128 span_of(const struct bw_prefix *p)
{
	unsigned int host = (p->family == BW_V4 ? 32 : 128) - p->plen;

	return host >= 128 ? ~(u128)0 : ((u128)1 << host) - 1;
}

/* Outcome of an address outside every listed prefix, from the filter. */
static enum want outside(const void *mem, const struct bw_prefix *a)
{
	const struct bw_hdr *hdr = mem;

	if (!bw_filter_lookup(mem, a, NULL))
		return W_PASS;
	return hdr->flags & BW_F_VERIFY ? W_FALSE_POS : W_DROP;
}

/* Reproducible addresses. */
static __u64 rnd_state = 0x9e3779b97f4a7c15ULL;

static __u64 rnd(void)
{
	return bw_test_xorshift64s(&rnd_state);
}

/* ---- prefix edges at every target length --------------------------------- */

/*
 * Six lengths per family, four targets: the DP keeps the lengths that
 * would cost most to expand and expands the cheap ones (/22 -> 4 x /24,
 * /15 -> 2 x /16; /47 -> 2 x /48, /31 -> 2 x /32). A target must save more
 * than 4096 keys to be kept, so edge_bulk gives IPv4's /8, /16 and /24
 * sixteen more prefixes each (IPv6's short lengths are worth it alone).
 */
static const char *const edge_list[] = {
	"203.0.113.7",	       "203.0.113.9/32",
	"198.51.100.0/24",     "192.0.0.0/22",
	"172.20.0.0/16",       "100.64.0.0/15",
	"10.0.0.0/8",	       "2001:db8::1",
	"2001:db8:aa:bb::/64", "2001:db8:1::/48",
	"2001:db8:4::/47",     "2001:db9::/32",
	"2001:dc0::/31",       NULL,
};

#define EDGE_BULK 16

/*
 * The edge list, then EDGE_BULK more /8s, /16s and /24s, NULL-terminated;
 * none next to an edge prefix (whose neighbours must be unlisted) nor to
 * each other (siblings would merge).
 */
static const char **edge_bulk_list(void)
{
	static char bulk[3 * EDGE_BULK][24];
	static const char *
		lines[sizeof(edge_list) / sizeof(edge_list[0]) + 3 * EDGE_BULK];
	size_t n = 0, i;

	for (i = 0; edge_list[i]; i++)
		lines[n++] = edge_list[i];
	for (i = 0; i < EDGE_BULK; i++) {
		snprintf(bulk[3 * i], sizeof(bulk[0]), "%zu.0.0.0/8",
			 30 + 2 * i);
		snprintf(bulk[3 * i + 1], sizeof(bulk[0]), "172.%zu.0.0/16",
			 40 + 2 * i);
		snprintf(bulk[3 * i + 2], sizeof(bulk[0]), "198.51.%zu.0/24",
			 120 + 2 * i);
		lines[n++] = bulk[3 * i];
		lines[n++] = bulk[3 * i + 1];
		lines[n++] = bulk[3 * i + 2];
	}
	lines[n] = NULL;
	return lines;
}

static void check_targets(const struct bw_hdr *hdr)
{
	static const __u8 want[BW_FAMILIES][BW_MAX_LENGTHS] = {
		{ 32, 24, 16, 8 },
		{ 128, 64, 48, 32 },
	};
	int f, i;

	for (f = 0; f < BW_FAMILIES; f++) {
		ASSERT_EQ(hdr->nlengths[f], BW_MAX_LENGTHS, "target lengths");
		for (i = 0; i < BW_MAX_LENGTHS; i++)
			ASSERT_EQ(hdr->plen[f][i], want[f][i], "target length");
	}
}

/* First and last address drop; the ones just outside do not. */
static void check_edges(struct bw_dp *dp, const void *mem)
{
	const char *const *s;
	struct bw_prefix p, a;
	char err[BW_ERRLEN];
	u128 first, last;

	for (s = edge_list; *s; s++) {
		if (!ASSERT_OK(bw_parse_prefix(*s, &p, err, sizeof(err)), *s))
			continue;
		first = addr_num(&p);
		last = first + span_of(&p);
		a = addr_at(p.family, first);
		expect(dp, &a, W_DROP);
		a = addr_at(p.family, last);
		expect(dp, &a, W_DROP);
		a = addr_at(p.family, first - 1);
		expect(dp, &a, outside(mem, &a));
		a = addr_at(p.family, last + 1);
		expect(dp, &a, outside(mem, &a));
	}
}

BW_TEST(test_allow_prefix_edges)
{
	struct bw_built b = BW_BUILT_INIT;
	const struct bw_info *info;
	struct bw_dp dp = {};
	char *files[1];
	int verify;

	if (!bw_dp_open(&dp) || !tmp_setup())
		goto out;
	files[0] = write_list("edges.txt", edge_bulk_list());
	for (verify = 0; files[0] && verify < 2; verify++) {
		bw_built_close(&b);
		if (!build_swap(&dp, files, 1, verify, verify + 1, &b))
			break;
		info = (const void *)((char *)b.filter.mem + BW_BLOCK_BYTES);
		check_targets(b.filter.mem);
		ASSERT_EQ(info->source_entries, 13 + 3 * EDGE_BULK,
			  "source prefixes");
		/* /22 +3, /15 +1, /47 +1, /31 +1 */
		ASSERT_EQ(info->entries, 13 + 3 * EDGE_BULK + 6,
			  "expanded entries");
		check_edges(&dp, b.filter.mem);
	}
out:
	bw_built_close(&b);
	bw_dp_close(&dp);
	tmp_cleanup();
}

/* ---- the allowlist ------------------------------------------------------- */

static const char *const blocked_list[] = { "10.0.0.0/8", "2001:db8::/32",
					    NULL };
static const char *const allow_list[] = {
	"10.1.2.3",    "10.9.9.0/28",	    "192.0.2.7",
	"2001:db8::5", "2001:db8:0:1::/64", NULL,
};

static const struct {
	const char *addr;
	enum want want;
} allow_flows[] = {
	{ "10.1.2.3", W_ALLOWED },
	{ "10.1.2.4", W_DROP },
	{ "10.1.2.2", W_DROP },
	{ "10.9.9.0", W_ALLOWED },
	{ "10.9.9.15", W_ALLOWED },
	{ "10.9.9.16", W_DROP },
	{ "10.9.8.255", W_DROP },
	{ "2001:db8::5", W_ALLOWED },
	{ "2001:db8::6", W_DROP },
	{ "2001:db8:0:1::", W_ALLOWED },
	{ "2001:db8:0:1:ffff:ffff:ffff:ffff", W_ALLOWED },
	{ "2001:db8:0:2::", W_DROP },
	/* Not blocked: the allowlist is not even consulted, nothing counted. */
	{ "192.0.2.7", W_PASS },
};

static void check_flows(struct bw_dp *dp, const void *mem)
{
	struct bw_prefix a;
	size_t i;

	for (i = 0; i < sizeof(allow_flows) / sizeof(allow_flows[0]); i++) {
		a = bw_addr(allow_flows[i].addr);
		if (allow_flows[i].want == W_PASS &&
		    !ASSERT_EQ(bw_filter_lookup(mem, &a, NULL), 0,
			       "precondition: not a false positive"))
			continue;
		expect(dp, &a, allow_flows[i].want);
	}
}

/*
 * Allowlisted addresses and a /28 inside a blocked /8 (and /32) pass, with
 * `allowed` counted; replacing the allowlist (as reload --allow does) drops
 * what left it and keeps what stayed.
 */
/*
 * What the allowlist tests start from: the fixture open, blocked_list
 * written to lists[0], allow_list written and loaded into allow.
 */
static bool open_blocked_allowed(struct bw_dp *dp, char **lists,
				 struct bw_list *allow)
{
	const char *files[1];

	if (!bw_dp_open(dp) || !tmp_setup())
		return false;
	lists[0] = write_list("blocked.txt", blocked_list);
	files[0] = write_list("allow.txt", allow_list);
	return lists[0] && files[0] &&
	       ASSERT_OK(bw_load_allow("dp", files, 1, false, allow), "allow");
}

BW_TEST(test_allow_inside_blocked_prefix)
{
	struct bw_built b = BW_BUILT_INIT;
	const char *const one[] = { "10.1.2.3", NULL };
	struct bw_build_req req;
	const char *files[1];
	struct bw_list allow;
	struct bw_dp dp = {};
	char *lists[1];
	int verify;

	bw_list_init(&allow);
	if (!open_blocked_allowed(&dp, lists, &allow))
		goto out;
	/* With and without verify: the allowlist comes first either way. */
	for (verify = 0; verify < 2; verify++) {
		bw_built_close(&b);
		/* Slot 0: the running filter (if any) does not verify. */
		req_init(&req, lists, 1, verify, 0, verify + 1);
		if (!ASSERT_OK(bw_build_lists(&req, &b), "build") ||
		    !ASSERT_OK(swap_in(&dp, &b, &allow), "swap"))
			goto out;
		ASSERT_EQ(bw_lpm_count(allow_map(&dp)), 5, "allowlist entries");
		check_flows(&dp, b.filter.mem);
	}
	/* Replace the allowlist: only 10.1.2.3 stays. */
	bw_list_free(&allow);
	files[0] = write_list("allow1.txt", one);
	if (!ASSERT_OK(bw_load_allow("dp", files, 1, false, &allow), "allow") ||
	    !ASSERT_OK(swap_in(&dp, &b, &allow), "swap"))
		goto out;
	ASSERT_EQ(bw_lpm_count(allow_map(&dp)), 1, "allowlist entries");
	expect(&dp, &(struct bw_prefix){ .lo = 0x0a010203, .plen = 32 },
	       W_ALLOWED);
	expect(&dp, &(struct bw_prefix){ .lo = 0x0a090901, .plen = 32 },
	       W_DROP);
	expect(&dp,
	       &(struct bw_prefix){ .hi = 0x20010db800000000ULL,
				    .lo = 5,
				    .family = BW_V6,
				    .plen = 128 },
	       W_DROP);
	/* The header flag gates the trie: the swap set it, clearing it
	 * (which only an empty allowlist does) skips the lookup, from the
	 * program loaded for the header on. */
	ASSERT_TRUE(((const struct bw_hdr *)b.filter.mem)->flags & BW_F_ALLOW,
		    "swap with a non-empty allowlist sets BW_F_ALLOW");
	bw_set_allow_flag(b.filter.mem, false);
	expect(&dp, &(struct bw_prefix){ .lo = 0x0a010203, .plen = 32 },
	       W_ALLOWED);
	if (ASSERT_OK(bw_dp_commit(&dp, &b.filter), "load without BW_F_ALLOW"))
		expect(&dp, &(struct bw_prefix){ .lo = 0x0a010203, .plen = 32 },
		       W_DROP);
	bw_set_allow_flag(b.filter.mem, true);
	if (ASSERT_OK(bw_dp_commit(&dp, &b.filter), "load with BW_F_ALLOW"))
		expect(&dp, &(struct bw_prefix){ .lo = 0x0a010203, .plen = 32 },
		       W_ALLOWED);
	/* An emptied allowlist clears it in the next filter. */
	bw_list_free(&allow);
	bw_list_init(&allow);
	if (ASSERT_OK(swap_in(&dp, &b, &allow), "swap, empty allowlist"))
		ASSERT_FALSE(((const struct bw_hdr *)b.filter.mem)->flags &
				     BW_F_ALLOW,
			     "swap with an empty allowlist clears BW_F_ALLOW");
out:
	bw_list_free(&allow);
	bw_built_close(&b);
	bw_dp_close(&dp);
	tmp_cleanup();
}

/*
 * A swap that fails at the commit (here: no outer map to update) takes back
 * what it staged: the new allowlist entries and the new exact trie go, the
 * running filter, its trie and the old allowlist stay, verdicts unchanged.
 */
BW_TEST(test_allow_failed_swap_changes_nothing)
{
	const char *const next[] = { "10.1.2.3", "10.7.7.7", NULL };
	const struct bw_prefix in_old = { .lo = 0x0a090901, .plen = 32 };
	const struct bw_prefix in_new = { .lo = 0x0a070707, .plen = 32 };
	struct bw_built a = BW_BUILT_INIT, b = BW_BUILT_INIT;
	struct bw_filter_map cur = BW_FILTER_MAP_INIT;
	struct bw_list allow, allow2;
	struct bw_build_req req;
	const char *files[1];
	struct bw_swap s = { .iface = "dp" };
	struct bw_maps no_slot;
	struct bw_dp dp = {};
	char *lists[1];

	bw_list_init(&allow);
	bw_list_init(&allow2);
	if (!open_blocked_allowed(&dp, lists, &allow))
		goto out;
	/* Generation 1: verify, trie in slot 0, five allowlist entries. */
	req_init(&req, lists, 1, true, 0, 1);
	if (!ASSERT_OK(bw_build_lists(&req, &a), "build 1") ||
	    !ASSERT_OK(swap_in(&dp, &a, &allow), "swap 1"))
		goto out;
	expect(&dp, &in_old, W_ALLOWED);
	expect(&dp, &in_new, W_DROP);
	/* Generation 2 would put its trie in slot 1 and replace the allowlist. */
	files[0] = write_list("allow2.txt", next);
	if (!ASSERT_OK(bw_load_allow("dp", files, 1, false, &allow2), "allow2"))
		goto out;
	req_init(&req, lists, 1, true, 1, 2);
	if (!ASSERT_OK(bw_build_lists(&req, &b), "build 2"))
		goto out;
	no_slot = dp.maps;
	no_slot.stats = -1;
	s.maps = &no_slot;
	s.installer = &dp.installer;
	s.exact_fd = exact_outer(&dp);
	s.allow_fd = allow_map(&dp);
	s.allow = &allow2;
	s.old_generation = 1;
	ASSERT_ERR(bw_swap_in(&s, &b), "swap without a stats map fails");
	ASSERT_EQ(bw_lpm_count(allow_map(&dp)), 5, "allowlist as it was");
	ASSERT_ERR(bw_exact_open(exact_outer(&dp), 1), "slot 1 empty again");
	if (ASSERT_OK(bw_filter_open_current(dp.registry_fd, false, &cur),
		      "running filter"))
		ASSERT_EQ(cur.id, a.filter.id, "generation 1 still running");
	expect(&dp, &in_old, W_ALLOWED);
	expect(&dp, &in_new, W_DROP);
out:
	bw_filter_close(&cur);
	bw_list_free(&allow);
	bw_list_free(&allow2);
	bw_built_close(&a);
	bw_built_close(&b);
	bw_dp_close(&dp);
	tmp_cleanup();
}

/* ---- members --------------------------------------------------------- */

/* Reads list files as the CLI does (prefixes, ranges), finished. */
static bool load_src(char *const *files, int n, struct bw_list *l)
{
	struct bw_list_opts lo = { .allow_cidr = true };
	int i;

	for (i = 0; i < n; i++)
		if (!ASSERT_OK(bw_list_load(l, files[i], &lo), files[i]))
			return false;
	bw_list_finish(l);
	return true;
}

/* First, last and one random address of prefix p. */
static void probes_of(const struct bw_prefix *p, struct bw_prefix out[3])
{
	u128 first = addr_num(p), span = span_of(p);
	u128 r = ((u128)rnd() << 64 | rnd()) & span;

	out[0] = addr_at(p->family, first);
	out[1] = addr_at(p->family, first + span);
	out[2] = addr_at(p->family, first + r);
}

/* Packets from inside every listed prefix that were not dropped. */
static size_t member_misses(struct bw_dp *dp, const struct bw_list *src)
{
	struct bw_prefix p, probe[3];
	size_t i, n = src->n4 + src->n6, missed = 0, drops;
	char txt[64];

	for (i = 0; i < n; i++) {
		bw_list_prefix(src, i, &p);
		probes_of(&p, probe);
		run_all(dp, probe, 3, &drops);
		if (drops == 3)
			continue;
		if (missed++ < 5)
			fprintf(stderr, "  not dropped: inside %s\n",
				bw_prefix_str(&p, txt, sizeof(txt)));
	}
	return missed;
}

static void expect_members(struct bw_dp *dp, char *file)
{
	struct bw_list src;

	bw_list_init(&src);
	if (load_src(&file, 1, &src))
		ASSERT_EQ(member_misses(dp, &src), 0,
			  "false negatives (listed addresses not dropped)");
	bw_list_free(&src);
}

/* ---- verify mode: measured false positives ------------------------------ */

#define NONMEMBERS 100000

/*
 * A synthetic list: IPv4 inside 100.0.0.0/8, IPv6 inside 2001:db8::/32, at
 * lengths that get expanded. Everything outside those two is a non-member
 * by construction, without asking any trie.
 */
static char *write_synthetic(void)
{
	static const struct {
		int family;
		unsigned int plen, n;
	} mix[] = { { BW_V4, 32, 4000 },  { BW_V4, 24, 1000 },
		    { BW_V4, 22, 200 },	  { BW_V4, 19, 20 },
		    { BW_V6, 128, 2000 }, { BW_V6, 64, 500 },
		    { BW_V6, 48, 300 },	  { BW_V6, 44, 50 } };
	static char path[128];
	struct bw_prefix p;
	char txt[64];
	size_t i, j;
	FILE *f;

	snprintf(path, sizeof(path), "%s/synthetic.txt", tmpdir);
	f = fopen(path, "w");
	if (!ASSERT_OK_PTR(f, path))
		return NULL;
	for (i = 0; i < sizeof(mix) / sizeof(mix[0]); i++) {
		for (j = 0; j < mix[i].n; j++) {
			p = (struct bw_prefix){ .family = (__u8)mix[i].family,
						.plen = (__u8)mix[i].plen };
			if (p.family == BW_V4) {
				p.lo = bw_mask_v4(0x64000000 |
							  (rnd() & 0xffffff),
						  p.plen);
			} else {
				p.hi = bw_mask64(0x20010db800000000ULL |
							 (rnd() >> 32),
						 p.plen);
				p.lo = p.plen > 64 ? rnd() : 0;
			}
			fprintf(f, "%s\n", bw_prefix_str(&p, txt, sizeof(txt)));
		}
	}
	fclose(f);
	return path;
}

/* Random addresses outside 100.0.0.0/8 and 2001:db8::/32, half each. */
static void nonmembers(struct bw_prefix *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i & 1) {
			a[i] = addr_at(BW_V6, (u128)rnd() << 64 | rnd());
			if ((a[i].hi >> 32) == 0x20010db8)
				a[i].hi ^= 1ULL << 63;
			continue;
		}
		a[i] = addr_at(BW_V4, (__u32)rnd());
		if ((a[i].lo >> 24) == 100)
			a[i].lo ^= 1U << 31;
	}
}

static size_t bloom_hits(const void *mem, const struct bw_prefix *a, size_t n,
			 struct bw_prefix *hits)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (bw_filter_lookup(mem, &a[i], NULL))
			hits[k++] = a[i];
	return k;
}

/*
 * The same filter (same keys, same seed) without and with verify. Without,
 * the Bloom hits among 100,000 non-members are real drops; with, not one
 * non-member is dropped and exactly those hits are counted in false_pos.
 */
BW_TEST(test_verify_zero_false_positives)
{
	struct bw_built b1 = BW_BUILT_INIT, b2 = BW_BUILT_INIT;
	struct bw_prefix *a = NULL, *hits = NULL;
	struct bw_stats s0, s1;
	struct bw_build_req req;
	size_t nhits, drops;
	struct bw_dp dp = {};
	char *files[1];

	if (!bw_dp_open(&dp) || !tmp_setup())
		goto out;
	files[0] = write_synthetic();
	a = calloc(NONMEMBERS, sizeof(*a));
	hits = calloc(NONMEMBERS, sizeof(*hits));
	if (!files[0] || !ASSERT_OK_PTR(a, "calloc") ||
	    !ASSERT_OK_PTR(hits, "calloc"))
		goto out;
	nonmembers(a, NONMEMBERS);
	req_init(&req, files, 1, false, 0, 1);
	req.opts.fpr = 0.02; /* a Bloom filter with plenty of false hits */
	if (!ASSERT_OK(bw_build_lists(&req, &b1), "build") ||
	    !ASSERT_OK(swap_in(&dp, &b1, NULL), "swap"))
		goto out;
	nhits = bloom_hits(b1.filter.mem, a, NONMEMBERS, hits);
	printf("  %zu of %d non-members hit the Bloom filter (target fpr 2%%)\n",
	       nhits, NONMEMBERS);
	ASSERT_GE(nhits, 100, "Bloom hits without verify");
	run_all(&dp, hits, nhits, &drops);
	ASSERT_EQ(drops, nhits, "without verify every Bloom hit drops");

	req_init(&req, files, 1, true, 1, 2);
	req.opts.fpr = 0.02;
	if (!ASSERT_OK(bw_build_lists(&req, &b2), "build verify") ||
	    !ASSERT_OK(swap_in(&dp, &b2, NULL), "swap verify"))
		goto out;
	ASSERT_EQ(bloom_hits(b2.filter.mem, a, NONMEMBERS, hits), nhits,
		  "the verify filter has the same Bloom hits");
	bw_dp_stats(&dp, &s0);
	run_all(&dp, a, NONMEMBERS, &drops);
	bw_dp_stats(&dp, &s1);
	ASSERT_EQ(drops, 0, "non-members dropped in verify mode");
	ASSERT_EQ(s1.dropped_v4 + s1.dropped_v6 - s0.dropped_v4 - s0.dropped_v6,
		  0, "dropped counters");
	ASSERT_EQ(s1.false_pos - s0.false_pos, nhits,
		  "false_pos counts exactly the Bloom hits");
	ASSERT_EQ(s1.passed - s0.passed, NONMEMBERS, "passed");
	expect_members(&dp, files[0]);
out:
	free(a);
	free(hits);
	bw_built_close(&b1);
	bw_built_close(&b2);
	bw_dp_close(&dp);
	tmp_cleanup();
}

/* ---- verify mode with the real lists ------------------------------------- */

static const char *const real_files[] = {
	"ipv4/firehol/firehol_level1.netset",
	"spamhaus/drop.txt",
	"spamhaus/dropv6.txt",
	"ipv4/firehol/firehol_level4.netset",
};

#define NREAL (sizeof(real_files) / sizeof(real_files[0]))

/*
 * Is a covered by a merged (disjoint, sorted) list? Binary search for the
 * last prefix starting at or before a: userspace, independent of any trie.
 */
static bool covered(const struct bw_list *m, const struct bw_prefix *a)
{
	size_t lo = 0, hi, mid, base = a->family == BW_V4 ? 0 : m->n4;
	u128 x = addr_num(a);
	struct bw_prefix p;

	hi = a->family == BW_V4 ? m->n4 : m->n6;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		bw_list_prefix(m, base + mid, &p);
		if (addr_num(&p) <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	bw_list_prefix(m, base + lo - 1, &p);
	return x - addr_num(&p) <= span_of(&p);
}

/* Random addresses: IPv4 over the whole space, IPv6 mostly in 2000::/4. */
static void random_addrs(struct bw_prefix *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i % 4 == 3)
			a[i] = addr_at(BW_V6, ((u128)rnd() << 64 | rnd()) >> 4 |
						      (u128)2 << 124);
		else
			a[i] = addr_at(BW_V4, (__u32)rnd());
	}
}

/* Members of the sample drop, non-members pass; false_pos counts the hits. */
static void check_sample(struct bw_dp *dp, const void *mem,
			 const struct bw_list *merged)
{
	size_t i, n = NONMEMBERS, members = 0, hits = 0, drops;
	struct bw_stats s0, s1;
	struct bw_prefix *a;

	a = calloc(n, sizeof(*a));
	if (!ASSERT_OK_PTR(a, "calloc"))
		return;
	random_addrs(a, n);
	for (i = 0; i < n; i++) {
		if (covered(merged, &a[i]))
			members++;
		else
			hits += bw_filter_lookup(mem, &a[i], NULL);
	}
	bw_dp_stats(dp, &s0);
	run_all(dp, a, n, &drops);
	bw_dp_stats(dp, &s1);
	printf("  sample of %zu: %zu listed, %zu unlisted Bloom hits\n", n,
	       members, hits);
	ASSERT_EQ(drops, members, "dropped = listed (no false positive)");
	ASSERT_EQ(s1.false_pos - s0.false_pos, hits,
		  "false_pos = unlisted Bloom hits");
	ASSERT_GE(members, 1, "the sample has listed addresses");
	/* Without verify these would be drops: the filter keeps its target. */
	ASSERT_LE(hits, 2 * 0.001 * (n - members), "Bloom false positives");
	free(a);
}

/*
 * The acceptance lists, together, in verify mode through the CLI's build:
 * every listed prefix drops at its first, last and a random address; on a
 * random sample drops are exactly the listed addresses.
 */
BW_TEST(test_verify_real_lists)
{
	const char *dir = bw_test_data_dir();
	struct bw_built b = BW_BUILT_INIT;
	char paths[NREAL][512], *files[NREAL];
	struct bw_list src, merged;
	struct bw_dp dp = {};
	size_t i;

	bw_list_init(&src);
	bw_list_init(&merged);
	if (!dir)
		goto out;
	for (i = 0; i < NREAL; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir,
			 real_files[i]);
		files[i] = paths[i];
	}
	if (!bw_dp_open(&dp) || !load_src(files, NREAL, &src) ||
	    !load_src(files, NREAL, &merged) ||
	    !build_swap(&dp, files, NREAL, true, 1, &b))
		goto out;
	bw_cidr_merge(&merged, NULL);
	ASSERT_EQ(b.exact_entries, merged.n4 + merged.n6, "exact entries");
	ASSERT_EQ(bw_lpm_count(b.exact_fd), merged.n4 + merged.n6,
		  "entries in the kernel's trie");
	ASSERT_EQ(member_misses(&dp, &src), 0, "false negatives");
	check_sample(&dp, b.filter.mem, &merged);
out:
	bw_built_close(&b);
	bw_dp_close(&dp);
	bw_list_free(&src);
	bw_list_free(&merged);
}

/* ---- the swap keeps filter and trie in step ------------------------------ */

static const char *const gen_a[] = { "10.1.0.0/16", "2001:db8:a::/48", NULL };
static const char *const gen_b[] = { "10.2.0.0/16", "2001:db8:b::/48", NULL };

/* Map id of the trie in a slot, 0 when the slot is empty. */
static __u32 slot_id(struct bw_dp *dp, __u32 slot)
{
	int fd = bw_exact_open(exact_outer(dp), slot);
	__u32 id = bw_obj_id(fd);

	if (fd >= 0)
		close(fd);
	return id;
}

/* The running filter: its generation and slot, and the tries in the slots. */
static void expect_state(struct bw_dp *dp, const struct bw_built *b, __u64 gen,
			 bool verify)
{
	const struct bw_hdr *hdr = b->filter.mem;
	const struct bw_info *info =
		(const void *)((char *)b->filter.mem + BW_BLOCK_BYTES);
	struct bw_filter_map cur = BW_FILTER_MAP_INIT;
	__u32 live = hdr->exact_slot;

	if (ASSERT_OK(bw_filter_open_current(dp->registry_fd, false, &cur),
		      "open current"))
		ASSERT_EQ(cur.id, b->filter.id, "the new filter is live");
	bw_filter_close(&cur);
	ASSERT_EQ(info->generation, gen, "generation");
	ASSERT_EQ(!!(hdr->flags & BW_F_VERIFY), verify, "verify flag");
	if (verify)
		ASSERT_EQ(slot_id(dp, live), bw_obj_id(b->exact_fd),
			  "the slot it names holds its own trie");
	ASSERT_EQ(slot_id(dp, !live), 0, "the other slot is empty");
	if (!verify)
		ASSERT_EQ(slot_id(dp, live), 0, "no trie without verify");
}

static void expect_list(struct bw_dp *dp, const void *mem,
			const char *const *in, const char *const *out)
{
	struct bw_prefix a;

	for (; *in; in++) {
		a = bw_addr(*in);
		expect(dp, &a, W_DROP);
	}
	for (; *out; out++) {
		a = bw_addr(*out);
		expect(dp, &a, outside(mem, &a));
	}
}

/*
 * Generation N with its trie, then N+1 with its own in the other slot:
 * staging the new trie changes nothing for the running filter; after the
 * swap the new filter names the new trie and the old one is gone; a
 * filter whose slot is empty passes its hits (false_pos), never drops.
 */
BW_TEST(test_verify_swap_generations)
{
	const char *const a_in[] = { "10.1.0.0", "2001:db8:a::1", NULL };
	const char *const b_in[] = { "10.2.255.255", "2001:db8:b::1", NULL };
	struct bw_built b1 = BW_BUILT_INIT, b2 = BW_BUILT_INIT,
			b3 = BW_BUILT_INIT;
	struct bw_build_req req;
	struct bw_dp dp = {};
	char *la[1], *lb[1];
	struct bw_prefix x;

	if (!bw_dp_open(&dp) || !tmp_setup())
		goto out;
	la[0] = write_list("a.txt", gen_a);
	lb[0] = write_list("b.txt", gen_b);
	if (!la[0] || !lb[0] || !build_swap(&dp, la, 1, true, 1, &b1))
		goto out;
	expect_state(&dp, &b1, 1, true);
	expect_list(&dp, b1.filter.mem, a_in, b_in);

	/* Gen 2 staged by hand: its trie in slot 1, the filter not yet. */
	req_init(&req, lb, 1, true, 1, 2);
	if (!ASSERT_OK(bw_build_lists(&req, &b2), "build gen 2") ||
	    !ASSERT_OK(bw_exact_set(exact_outer(&dp), 1, b2.exact_fd), "stage"))
		goto out;
	expect_list(&dp, b1.filter.mem, a_in, b_in);
	bw_exact_clear(exact_outer(&dp), 1);
	ASSERT_OK(swap_in(&dp, &b2, NULL), "swap gen 2");
	expect_state(&dp, &b2, 2, true);
	expect_list(&dp, b2.filter.mem, b_in, a_in);

	/* A filter naming an empty slot: hits pass as false_pos. */
	ASSERT_OK(bw_exact_clear(exact_outer(&dp), 1), "clear live slot");
	x = bw_addr("10.2.0.1");
	expect(&dp, &x, W_FALSE_POS);

	/* Gen 3 without verify: both slots cleared, hits drop again. */
	ASSERT_OK(bw_exact_set(exact_outer(&dp), 1, b2.exact_fd), "restore");
	if (!build_swap(&dp, lb, 1, false, 3, &b3))
		goto out;
	expect_state(&dp, &b3, 3, false);
	ASSERT_EQ(slot_id(&dp, 1), 0, "gen 2's trie is gone");
	expect_list(&dp, b3.filter.mem, b_in, a_in);
out:
	bw_built_close(&b1);
	bw_built_close(&b2);
	bw_built_close(&b3);
	bw_dp_close(&dp);
	tmp_cleanup();
}

/* ---- every list of the shared data loads --------------------------------- */

/* Userspace lookups: first and last address of every source prefix hit. */
static size_t lookup_misses(const void *mem, const struct bw_list *src)
{
	struct bw_prefix p, probe[3];
	size_t i, n = src->n4 + src->n6, missed = 0;
	int j;

	for (i = 0; i < n; i++) {
		bw_list_prefix(src, i, &p);
		probes_of(&p, probe);
		for (j = 0; j < 3; j++)
			missed += !bw_filter_lookup(mem, &probe[j], NULL);
	}
	return missed;
}

/* Builds one file with the CLI's build; checks size and false negatives. */
static void check_file(const char *path)
{
	struct bw_built b = BW_BUILT_INIT;
	const struct bw_info *info;
	struct bw_build_req req;
	char *files[1] = { (char *)path };
	struct bw_list src;

	bw_list_init(&src);
	req_init(&req, files, 1, false, 0, 1);
	if (!ASSERT_OK(bw_build_lists(&req, &b), path) ||
	    !load_src(files, 1, &src))
		goto out;
	info = (const void *)((char *)b.filter.mem + BW_BLOCK_BYTES);
	/* At 0.1 % a blocked Bloom filter needs about 2 bytes a key. */
	ASSERT_LE((double)b.filter.nblocks * BW_BLOCK_BYTES,
		  4.0 * info->entries + 4 * BW_BLOCK_BYTES, "filter bytes");
	ASSERT_EQ(lookup_misses(b.filter.mem, &src), 0, "false negatives");
out:
	bw_list_free(&src);
	bw_built_close(&b);
}

static int walk(const char *dir, int depth)
{
	char path[768];
	struct dirent *de;
	struct stat st;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!ASSERT_OK_PTR(d, dir))
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode) && depth < 4) {
			n += walk(path, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			check_file(path);
			n++;
		}
	}
	closedir(d);
	return n;
}

/* Every file under ipv4/, ipv6/ and spamhaus/ builds, none misses a key. */
BW_TEST(test_cidr_all_data_files_load)
{
	static const char *const dirs[] = { "ipv4", "ipv6", "spamhaus" };
	const char *dir = bw_test_data_dir();
	char path[512];
	size_t i;
	int n = 0;

	if (!dir)
		return;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, dirs[i]);
		n += walk(path, 0);
	}
	ASSERT_GE(n, 10, "list files found");
}

/*
 * firehol_level1 (0.0.0.0/8, 10.0.0.0/8, 224.0.0.0/3 ...) gets the targets
 * the README quotes, and 224.0.0.0/3 becomes 512 keys of /12, no more.
 */
BW_TEST(test_cidr_level1_targets)
{
	static const __u8 want[] = { 32, 24, 19, 12 };
	const char *dir = bw_test_data_dir();
	struct bw_built b = BW_BUILT_INIT;
	const struct bw_hdr *hdr;
	const struct bw_info *info;
	struct bw_build_req req;
	char path[512], *files[1] = { path };
	int i;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/ipv4/firehol/firehol_level1.netset",
		 dir);
	req_init(&req, files, 1, false, 0, 1);
	if (!ASSERT_OK(bw_build_lists(&req, &b), "build"))
		return;
	hdr = b.filter.mem;
	info = (const void *)((char *)b.filter.mem + BW_BLOCK_BYTES);
	ASSERT_EQ(hdr->nlengths[BW_V4], 4, "IPv4 targets");
	for (i = 0; i < 4; i++)
		ASSERT_EQ(hdr->plen[BW_V4][i], want[i], "target length");
	ASSERT_LE((double)info->entries / info->source_entries, 4.0,
		  "expansion factor");
	ASSERT_LE(info->region_entries[3], 1024, "/12 keys (224/3 is 512)");
	bw_built_close(&b);
}

/* ---- what the confirmation costs (printed, not asserted) ----------------- */

static void print_cost(struct bw_dp *dp, const char *what, const char *src)
{
	struct bw_pkt_spec s = { .src = src, .payload = 16 };
	__u8 buf[BW_PKT_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = buf, .repeat = 100000);

	topts.data_size_in = (__u32)bw_pkt_build(&s, buf);
	if (ASSERT_OK(bpf_prog_test_run_opts(dp->prog_fd, &topts), what))
		printf("  %-40s %4u ns/packet (test_run, hot cache)\n", what,
		       topts.duration);
}

/*
 * The real lists with and without verify, and an allowlisted address: the
 * unlisted path is the same; only hits pay for the LPM lookups.
 */
BW_TEST(test_verify_cost)
{
	const char *dir = bw_test_data_dir();
	struct bw_built b1 = BW_BUILT_INIT, b2 = BW_BUILT_INIT;
	char paths[NREAL][512], *files[NREAL];
	struct bw_prefix a = bw_addr("10.1.2.3");
	struct bw_lpm_key k;
	struct bw_dp dp = {};
	__u8 one = 1;
	size_t i;

	if (!dir)
		return;
	for (i = 0; i < NREAL; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir,
			 real_files[i]);
		files[i] = paths[i];
	}
	if (!bw_dp_open(&dp) || !build_swap(&dp, files, NREAL, false, 1, &b1))
		goto out;
	print_cost(&dp, "unlisted (8.8.8.8)", "8.8.8.8");
	print_cost(&dp, "listed, drop (10.1.2.3)", "10.1.2.3");
	if (!build_swap(&dp, files, NREAL, true, 2, &b2))
		goto out;
	print_cost(&dp, "verify: unlisted (8.8.8.8)", "8.8.8.8");
	print_cost(&dp, "verify: listed, confirmed drop", "10.1.2.3");
	bw_lpm_key_of(&k, &a);
	ASSERT_OK(bpf_map_update_elem(allow_map(&dp), &k, &one, BPF_ANY),
		  "allow");
	print_cost(&dp, "verify: listed, allowlisted", "10.1.2.3");
out:
	bw_built_close(&b1);
	bw_built_close(&b2);
	bw_dp_close(&dp);
}
