// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The datapath fixture: skeleton, test runs, counters, committed filters. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>

#include "bloomwall.h"
#include "bloomwall.skel.h"
#include "datapath.h"
#include "filter/builder.h"
#include "lists/list_parse.h"
#include "test_helpers.h"

/*
 * libbpf's messages are kept, not printed: a clean load says "Retrying
 * without BTF" for the outer map, which is expected. They are shown when
 * the load fails (the verifier log is the one thing to read then), or
 * always with BW_TEST_VERBOSE=1.
 */
static char libbpf_log[65536];
static size_t libbpf_log_len;

static int keep_libbpf_log(enum libbpf_print_level level, const char *fmt,
			   va_list args)
{
	size_t room = sizeof(libbpf_log) - libbpf_log_len;
	const char *v = getenv("BW_TEST_VERBOSE");
	int n;

	if (v && *v == '1')
		return vfprintf(stderr, fmt, args);
	if (room <= 1)
		return 0;
	n = vsnprintf(libbpf_log + libbpf_log_len, room, fmt, args);
	if (n > 0)
		libbpf_log_len += (size_t)n < room ? (size_t)n : room - 1;
	return 0;
}

/* The fixture's "interface": the program the test runs go through. */
static int dp_install(void *ctx, int prog_fd, int tc_fd,
		      const struct bw_maps *maps)
{
	struct bw_dp *dp = ctx;
	int err =
		bw_keep_prog(&dp->owned_fd, dp->tc ? tc_fd : prog_fd, -1, maps);

	if (!err)
		dp->prog_fd = dp->owned_fd;
	return err;
}

bool bw_dp_open(struct bw_dp *dp)
{
	memset(dp, 0, sizeof(*dp));
	dp->prog_fd = dp->allow_fd = dp->stats_fd = dp->owned_fd = -1;
	dp->installer.install = dp_install;
	dp->installer.ctx = dp;
	if (geteuid() != 0) {
		TEST_SKIP("needs root for BPF_PROG_TEST_RUN");
		return false;
	}
	libbpf_log_len = 0;
	libbpf_log[0] = '\0';
	libbpf_set_print(keep_libbpf_log);
	dp->skel = bloomwall__open_and_load();
	if (!ASSERT_OK_PTR(dp->skel, "bloomwall__open_and_load")) {
		fputs(libbpf_log, stderr);
		return false;
	}
	dp->prog_fd = bpf_program__fd(dp->skel->progs.bloomwall_xdp);
	dp->stats_fd = bpf_map__fd(dp->skel->maps.stats);
	bw_maps_from_skel(dp->skel, &dp->maps);
	dp->ncpus = libbpf_num_possible_cpus();
	return ASSERT_GE(dp->ncpus, 1, "libbpf_num_possible_cpus");
}

bool bw_dp_open_egress(struct bw_dp *dp)
{
	if (!bw_dp_open(dp))
		return false;
	dp->tc = true;
	dp->prog_fd = bpf_program__fd(dp->skel->progs.bloomwall_tc);
	dp->stats_fd = bpf_map__fd(dp->skel->maps.egress_stats);
	dp->egress = (struct bw_egress)BW_EGRESS_INIT;
	dp->egress.stats = dp->stats_fd;
	dp->egress.who = bpf_map__fd(dp->skel->maps.egress_who);
	dp->egress.dns = bpf_map__fd(dp->skel->maps.egress_dns);
	dp->installer.egress = &dp->egress;
	return true;
}

void bw_dp_close(struct bw_dp *dp)
{
	if (dp->owned_fd >= 0)
		close(dp->owned_fd);
	if (dp->allow_fd >= 0)
		close(dp->allow_fd);
	dp->owned_fd = dp->allow_fd = -1;
	bloomwall__destroy(dp->skel);
	dp->skel = NULL;
}

int bw_dp_stats(struct bw_dp *dp, struct bw_stats *sum)
{
	/* The CLI's reader: egress_stats has more after the counters. */
	return bw_stats_read(dp->stats_fd, sum);
}

int bw_dp_run(struct bw_dp *dp, const void *pkt, size_t len, __u32 *retval)
{
	/* No data_out: the program never rewrites a frame. */
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = pkt,
		    .data_size_in = len, .repeat = 1);
	int err;

	err = bpf_prog_test_run_opts(dp->prog_fd, &topts);
	if (err)
		return -errno;
	*retval = topts.retval;
	if (dp->tc)
		*retval = topts.retval == TC_ACT_SHOT ? XDP_DROP
			  : topts.retval == TC_ACT_OK ? XDP_PASS
						      : ~0U;
	return 0;
}

const char *bw_outcome_str(enum bw_outcome o)
{
	static const char *const names[] = {
		[BW_OUT_PASS] = "pass",
		[BW_OUT_NOT_IP] = "not_ip",
		[BW_OUT_MALFORMED] = "malformed",
		[BW_OUT_NO_FILTER] = "no_filter",
		[BW_OUT_MONITOR] = "monitored",
		[BW_OUT_ALLOWED] = "allowed",
		[BW_OUT_FALSE_POS] = "false_pos",
		[BW_OUT_DROP_V4] = "dropped_v4",
		[BW_OUT_DROP_V6] = "dropped_v6",
	};

	return o < sizeof(names) / sizeof(names[0]) ? names[o] : "?";
}

void bw_outcome_delta(enum bw_outcome o, struct bw_stats *d)
{
	memset(d, 0, sizeof(*d));
	if (o == BW_OUT_DROP_V4) {
		d->dropped_v4 = 1;
		return;
	}
	if (o == BW_OUT_DROP_V6) {
		d->dropped_v6 = 1;
		return;
	}
	d->passed = 1;
	d->not_ip = o == BW_OUT_NOT_IP;
	d->malformed = o == BW_OUT_MALFORMED;
	d->no_filter = o == BW_OUT_NO_FILTER;
	d->monitored = o == BW_OUT_MONITOR;
	d->allowed = o == BW_OUT_ALLOWED;
	d->false_pos = o == BW_OUT_FALSE_POS;
}

bool bw_dp_expect(struct bw_dp *dp, const char *name, const void *pkt,
		  size_t len, enum bw_outcome want)
{
	struct bw_stats before, after, d;
	const struct bw_stats_field *f;
	__u32 retval = ~0U;
	int before_failed = bw_test_failed_asserts;
	char what[160];
	size_t i;

	if (!ASSERT_OK(bw_dp_stats(dp, &before), "stats before"))
		return false;
	if (!ASSERT_OK(bw_dp_run(dp, pkt, len, &retval), name))
		return false;
	if (!ASSERT_OK(bw_dp_stats(dp, &after), "stats after"))
		return false;
	bw_outcome_delta(want, &d);
	snprintf(what, sizeof(what), "%s (len %zu): retval", name, len);
	ASSERT_EQ(retval,
		  want == BW_OUT_DROP_V4 || want == BW_OUT_DROP_V6 ? XDP_DROP
								   : XDP_PASS,
		  what);
	for (i = 0; i < bw_stats_nfields; i++) {
		f = &bw_stats_fields[i];
		snprintf(what, sizeof(what), "%s (len %zu, want %s): %s delta",
			 name, len, bw_outcome_str(want), f->name);
		ASSERT_EQ(bw_stats_get(&after, f) - bw_stats_get(&before, f),
			  bw_stats_get(&d, f), what);
	}
	return bw_test_failed_asserts == before_failed;
}

int bw_dp_verdict(struct bw_dp *dp, const void *pkt, size_t len)
{
	__u32 retval = 0;
	int err;

	err = bw_dp_run(dp, pkt, len, &retval);
	return err ? err : (int)retval;
}

int bw_dp_commit(struct bw_dp *dp, const struct bw_filter_map *m)
{
	return bw_filter_commit(&dp->maps, m, &dp->installer);
}

int bw_dp_commit_list(struct bw_dp *dp, const struct bw_list *l,
		      const struct bw_build_opts *o, struct bw_filter_map *m)
{
	struct bw_plan plan;
	int err;

	err = bw_plan_filter(l, o, &plan);
	if (err)
		return err;
	err = bw_filter_create(plan.nblocks, m);
	if (err)
		return err;
	bw_fill_filter(m->mem, &plan, l);
	return bw_dp_commit(dp, m);
}

int bw_dp_commit_addrs(struct bw_dp *dp, const char *const *addrs, __u16 flags,
		       struct bw_filter_map *m)
{
	struct bw_build_opts o;
	struct bw_prefix p;
	struct bw_list l;
	char err[BW_ERRLEN] = "out of memory";
	int ret = 0;

	bw_list_init(&l);
	for (; *addrs; addrs++) {
		ret = bw_parse_prefix(*addrs, &p, err, sizeof(err));
		if (!ret)
			ret = bw_list_push(&l, &p);
		if (ret) {
			fprintf(stderr, "  %s: %s\n", *addrs, err);
			goto out;
		}
	}
	bw_list_finish(&l);
	bw_build_opts_init(&o);
	o.seed = 0x5eed;
	o.flags = flags;
	ret = bw_dp_commit_list(dp, &l, &o, m);
out:
	bw_list_free(&l);
	return ret;
}
