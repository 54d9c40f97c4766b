// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The allowlist through the XDP program: an allowlisted address or prefix
 * inside a blocked prefix passes and is counted in `allowed`; replacing the
 * allowlist drops what left it; BW_F_ALLOW in the header gates the lookup;
 * a swap that fails takes back what it staged; no IPv6 entry covers an
 * IPv4 address.
 */
#include <stdio.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kernel/allowlist.h"
#include "bloomwall.h"
#include "lists_fixture.h"
#include "kernel/lpm.h"
#include "test_helpers.h"

static const char *const blocked_list[] = { "10.0.0.0/8", "2001:db8::/32",
					    NULL };
static const char *const allow_list[] = {
	"10.1.2.3",    "10.9.9.0/28",	    "192.0.2.7",
	"2001:db8::5", "2001:db8:0:1::/64", NULL,
};

static const struct {
	const char *addr;
	enum bw_outcome want;
} allow_flows[] = {
	{ "10.1.2.3", BW_OUT_ALLOWED },
	{ "10.1.2.4", BW_OUT_DROP_V4 },
	{ "10.1.2.2", BW_OUT_DROP_V4 },
	{ "10.9.9.0", BW_OUT_ALLOWED },
	{ "10.9.9.15", BW_OUT_ALLOWED },
	{ "10.9.9.16", BW_OUT_DROP_V4 },
	{ "10.9.8.255", BW_OUT_DROP_V4 },
	{ "2001:db8::5", BW_OUT_ALLOWED },
	{ "2001:db8::6", BW_OUT_DROP_V6 },
	{ "2001:db8:0:1::", BW_OUT_ALLOWED },
	{ "2001:db8:0:1:ffff:ffff:ffff:ffff", BW_OUT_ALLOWED },
	{ "2001:db8:0:2::", BW_OUT_DROP_V6 },
	/* Not blocked: the allowlist is not even consulted, nothing counted. */
	{ "192.0.2.7", BW_OUT_PASS },
};

static void check_flows(struct bw_dp *dp, const void *mem)
{
	struct bw_prefix a;
	size_t i;

	for (i = 0; i < sizeof(allow_flows) / sizeof(allow_flows[0]); i++) {
		a = bw_addr(allow_flows[i].addr);
		if (allow_flows[i].want == BW_OUT_PASS &&
		    !ASSERT_EQ(bw_filter_lookup(mem, &a, NULL), 0,
			       "precondition: not a false positive"))
			continue;
		lf_expect(dp, &a, allow_flows[i].want);
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

	if (!bw_dp_open(dp) || !lf_tmp_setup())
		return false;
	lists[0] = lf_write_list("blocked.txt", blocked_list);
	files[0] = lf_write_list("allow.txt", allow_list);
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
		lf_req_init(&req, lists, 1, verify, 0, verify + 1);
		if (!ASSERT_OK(bw_build_lists(&req, &b), "build") ||
		    !ASSERT_OK(lf_swap_in(&dp, &b, &allow), "swap"))
			goto out;
		ASSERT_EQ(bw_lpm_count(lf_allow_fd(&dp)), 5,
			  "allowlist entries");
		check_flows(&dp, b.filter.mem);
	}
	/* Replace the allowlist: only 10.1.2.3 stays. */
	bw_list_free(&allow);
	files[0] = lf_write_list("allow1.txt", one);
	if (!ASSERT_OK(bw_load_allow("dp", files, 1, false, &allow), "allow") ||
	    !ASSERT_OK(lf_swap_in(&dp, &b, &allow), "swap"))
		goto out;
	ASSERT_EQ(bw_lpm_count(lf_allow_fd(&dp)), 1, "allowlist entries");
	lf_expect(&dp, &(struct bw_prefix){ .lo = 0x0a010203, .plen = 32 },
		  BW_OUT_ALLOWED);
	lf_expect(&dp, &(struct bw_prefix){ .lo = 0x0a090901, .plen = 32 },
		  BW_OUT_DROP_V4);
	lf_expect(&dp,
		  &(struct bw_prefix){ .hi = 0x20010db800000000ULL,
				       .lo = 5,
				       .family = BW_V6,
				       .plen = 128 },
		  BW_OUT_DROP_V6);
	/* The header flag gates the trie: the swap set it, clearing it
	 * (which only an empty allowlist does) skips the lookup, from the
	 * program loaded for the header on. */
	ASSERT_TRUE(((const struct bw_hdr *)b.filter.mem)->flags & BW_F_ALLOW,
		    "swap with a non-empty allowlist sets BW_F_ALLOW");
	bw_set_allow_flag(b.filter.mem, false);
	lf_expect(&dp, &(struct bw_prefix){ .lo = 0x0a010203, .plen = 32 },
		  BW_OUT_ALLOWED);
	if (ASSERT_OK(bw_dp_commit(&dp, &b.filter), "load without BW_F_ALLOW"))
		lf_expect(&dp,
			  &(struct bw_prefix){ .lo = 0x0a010203, .plen = 32 },
			  BW_OUT_DROP_V4);
	bw_set_allow_flag(b.filter.mem, true);
	if (ASSERT_OK(bw_dp_commit(&dp, &b.filter), "load with BW_F_ALLOW"))
		lf_expect(&dp,
			  &(struct bw_prefix){ .lo = 0x0a010203, .plen = 32 },
			  BW_OUT_ALLOWED);
	/* An emptied allowlist clears it in the next filter. */
	bw_list_free(&allow);
	bw_list_init(&allow);
	if (ASSERT_OK(lf_swap_in(&dp, &b, &allow), "swap, empty allowlist"))
		ASSERT_FALSE(((const struct bw_hdr *)b.filter.mem)->flags &
				     BW_F_ALLOW,
			     "swap with an empty allowlist clears BW_F_ALLOW");
out:
	bw_list_free(&allow);
	bw_built_close(&b);
	bw_dp_close(&dp);
	lf_tmp_cleanup();
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
	lf_req_init(&req, lists, 1, true, 0, 1);
	if (!ASSERT_OK(bw_build_lists(&req, &a), "build 1") ||
	    !ASSERT_OK(lf_swap_in(&dp, &a, &allow), "swap 1"))
		goto out;
	lf_expect(&dp, &in_old, BW_OUT_ALLOWED);
	lf_expect(&dp, &in_new, BW_OUT_DROP_V4);
	/* Generation 2 would put its trie in slot 1 and replace the allowlist. */
	files[0] = lf_write_list("allow2.txt", next);
	if (!ASSERT_OK(bw_load_allow("dp", files, 1, false, &allow2), "allow2"))
		goto out;
	lf_req_init(&req, lists, 1, true, 1, 2);
	if (!ASSERT_OK(bw_build_lists(&req, &b), "build 2"))
		goto out;
	no_slot = dp.maps;
	no_slot.stats = -1;
	no_slot.allow = bw_allow_create(&allow2);
	if (!ASSERT_GE(no_slot.allow, 0, "the new allowlist"))
		goto out;
	s.maps = &no_slot;
	s.installer = &dp.installer;
	s.old_generation = 1;
	ASSERT_ERR(bw_swap_in(&s, &b), "swap without a stats map fails");
	close(no_slot.allow);
	ASSERT_EQ(bw_lpm_count(lf_allow_fd(&dp)), 5, "allowlist as it was");
	ASSERT_ERR(bw_exact_open(lf_exact_fd(&dp), 1), "slot 1 empty again");
	if (ASSERT_OK(bw_prog_filter(dp.prog_fd, false, &cur),
		      "running filter"))
		ASSERT_EQ(cur.id, a.filter.id, "generation 1 still running");
	lf_expect(&dp, &in_old, BW_OUT_ALLOWED);
	lf_expect(&dp, &in_new, BW_OUT_DROP_V4);
out:
	bw_filter_close(&cur);
	bw_list_free(&allow);
	bw_list_free(&allow2);
	bw_built_close(&a);
	bw_built_close(&b);
	bw_dp_close(&dp);
	lf_tmp_cleanup();
}

/*
 * The family is part of a trie key: an IPv6 prefix over ::ffff:0:0/96
 * (where IPv4 addresses were once mapped into the tries) covers IPv6
 * addresses only. As an allowlist entry it does not allow an IPv4 source;
 * as verify mode's exact entry it does not confirm an IPv4 hit.
 */
BW_TEST(test_allow_family_in_key)
{
	const struct bw_prefix v4 = { .lo = 0x0a010203, .plen = 32 };
	const struct bw_prefix mapped_v4 = { .lo = 0x0000ffff0a010203ULL,
					     .family = BW_V6,
					     .plen = 128 };
	struct bw_prefix all_mapped = { .lo = 0x0000ffff00000000ULL,
					.family = BW_V6,
					.plen = 96 };
	struct bw_built b = BW_BUILT_INIT;
	struct bw_list allow, none;
	struct bw_build_req req;
	struct bw_lpm_key k;
	struct bw_dp dp = {};
	char *lists[1];
	__u8 one = 1;
	int fd = -1;

	bw_list_init(&allow);
	bw_list_init(&none);
	if (!bw_dp_open(&dp) || !lf_tmp_setup())
		goto out;
	lists[0] = lf_write_list("blocked.txt", blocked_list);
	/* Pushed as IPv6, whatever the list syntax makes of ::ffff:. */
	if (!ASSERT_OK(bw_list_push(&allow, &all_mapped), "push"))
		goto out;
	bw_list_finish(&allow);
	lf_req_init(&req, lists, 1, false, 0, 1);
	if (!ASSERT_OK(bw_build_lists(&req, &b), "build") ||
	    !ASSERT_OK(lf_swap_in(&dp, &b, &allow), "swap"))
		goto out;
	ASSERT_EQ(bw_lpm_match(lf_allow_fd(&dp), &mapped_v4), 1,
		  "::ffff:0:0/96 covers ::ffff:10.1.2.3");
	ASSERT_EQ(bw_lpm_match(lf_allow_fd(&dp), &v4), 0,
		  "::ffff:0:0/96 does not cover 10.1.2.3");
	lf_expect(&dp, &v4, BW_OUT_DROP_V4);

	/* Verify mode, its exact trie holding ::ffff:10.0.0.0/104 only. */
	bw_built_close(&b);
	lf_req_init(&req, lists, 1, true, 0, 2);
	if (!ASSERT_OK(bw_build_lists(&req, &b), "build verify") ||
	    !ASSERT_OK(lf_swap_in(&dp, &b, &none), "swap verify"))
		goto out;
	lf_expect(&dp, &v4, BW_OUT_DROP_V4);
	fd = bw_exact_open(lf_exact_fd(&dp), 0);
	if (!ASSERT_GE(fd, 0, "exact trie in slot 0"))
		goto out;
	bw_lpm_key_of(&k, &(struct bw_prefix){ .lo = 0x0a000000, .plen = 8 });
	ASSERT_OK(bpf_map_delete_elem(fd, &k), "delete 10.0.0.0/8");
	all_mapped.lo = 0x0000ffff0a000000ULL;
	all_mapped.plen = 104;
	bw_lpm_key_of(&k, &all_mapped);
	ASSERT_OK(bpf_map_update_elem(fd, &k, &one, BPF_ANY),
		  "insert ::ffff:10.0.0.0/104");
	ASSERT_EQ(bw_lpm_match(fd, &mapped_v4), 1,
		  "::ffff:10.0.0.0/104 covers ::ffff:10.1.2.3");
	lf_expect(&dp, &v4, BW_OUT_FALSE_POS);
out:
	if (fd >= 0)
		close(fd);
	bw_list_free(&allow);
	bw_list_free(&none);
	bw_built_close(&b);
	bw_dp_close(&dp);
	lf_tmp_cleanup();
}

/*
 * A trie pinned by a bloomwall from before the family was in the key (20
 * bytes, IPv4 as ::ffff:a.b.c.d) is refused when opened, not used with
 * today's keys (which would never match its entries).
 */
BW_TEST(test_allow_old_key_refused)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	int old, cur;

	old = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "old_allow", 20, 1, 16,
			     &opts);
	cur = bw_lpm_create("allow", 16);
	if (!ASSERT_GE(old, 0, "old trie") || !ASSERT_GE(cur, 0, "trie"))
		goto out;
	ASSERT_EQ(bw_lpm_pin_check(old, "dp", "allow"), -ESTALE, "20 bytes");
	ASSERT_OK(bw_lpm_pin_check(cur, "dp", "allow"), "today's key");
	ASSERT_OK(bw_lpm_pin_check(old, "dp", "stats"), "not a trie pin");
out:
	if (old >= 0)
		close(old);
	if (cur >= 0)
		close(cur);
}

/*
 * An older bloomwall's allowlist (keys without the family) is read as it
 * was keyed, so that a reload carries its entries over into a trie of
 * today's key: IPv4 from ::ffff:a.b.c.d with its length less 96, IPv6 as
 * it is.
 */
BW_TEST(test_allow_read_v1)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	struct bw_lpm_key_v1 k4 = {
		.prefixlen = 96 + 24,
		.addr = { [10] = 0xff, [11] = 0xff, 10, 7, 7 }
	};
	struct bw_lpm_key_v1 k6 = {
		.prefixlen = 48, .addr = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x2a }
	};
	struct bw_prefix want4 = { .family = BW_V4,
				   .lo = 0x0a070700,
				   .plen = 24 };
	struct bw_prefix want6 = { .family = BW_V6,
				   .hi = 0x20010db8002a0000ULL,
				   .plen = 48 };
	struct bw_list l;
	__u8 one = 1;
	int old;

	bw_list_init(&l);
	old = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "old_allow",
			     sizeof(struct bw_lpm_key_v1), 1, 16, &opts);
	if (!ASSERT_GE(old, 0, "old trie"))
		goto out;
	ASSERT_TRUE(bw_lpm_is_v1(old), "the older key is told apart");
	if (!ASSERT_OK(bpf_map_update_elem(old, &k4, &one, BPF_ANY), "k4") ||
	    !ASSERT_OK(bpf_map_update_elem(old, &k6, &one, BPF_ANY), "k6"))
		goto out;
	if (!ASSERT_OK(bw_allow_read(old, &l), "read the older trie"))
		goto out;
	ASSERT_EQ(l.n4 + l.n6, 2, "both entries");
	ASSERT_TRUE(bw_list_has(&l, &want4), "10.7.7.0/24 as IPv4");
	ASSERT_TRUE(bw_list_has(&l, &want6), "2001:db8:0:2a::/48 as IPv6");
out:
	bw_list_free(&l);
	if (old >= 0)
		close(old);
}
