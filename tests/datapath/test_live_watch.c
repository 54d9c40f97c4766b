// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's live entries (user/daemon/live.c) on a real attached filter:
 * a veth pair in a network namespace of the test's own (no traffic), a filter
 * attached with ops/attach_lists (generic XDP), frames judged by the
 * program the hook runs (BPF_PROG_TEST_RUN on it). A live add drops a
 * frame and a live delete passes it again with the same program (no
 * swap); a rebuild through the reload with the watch's hook keeps the
 * entry in the new filter; a filter another command swapped in is taken
 * over within a step (the entry set in it again, its delete kept back
 * until the watch's own rebuild); an expiry takes it out in place.
 */
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "daemon/live.h"
#include "daemon/live_stage.h"
#include "datapath.h"
#include "kernel/running.h"
#include "ops/attach_lists.h"
#include "ops/detach.h"
#include "ops/reload.h"
#include "test_helpers.h"

struct lw {
	char iface[IF_NAMESIZE];
	char list[64];
	const char *lists[1];
	struct bw_build_args args;
	struct bw_wlive *live;
	int ifindex;
};

/* The hook's program and its verdict on a frame from src. */
static int verdict(const struct lw *t, const char *src, __u32 *prog_id)
{
	struct bw_pkt_spec s = { .src = src, .dst = "192.0.2.1" };
	__u8 buf[BW_PKT_MAX];
	size_t len = bw_pkt_build(&s, buf);
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = buf, .data_size_in = len,
		    .repeat = 1);
	struct bw_running r;
	int err;

	err = bw_running_open(t->iface, t->ifindex,
			      BW_RUN_QUIET | BW_RUN_OLD_OK, &r);
	if (err)
		return err;
	*prog_id = r.prog_id;
	err = bpf_prog_test_run_opts(r.prog_fd, &o) ? -errno : (int)o.retval;
	bw_running_close(&r);
	return err;
}

/* A rebuild as the watch runs it (the hook in-process, not forked). */
static int rebuild(struct lw *t, bool with_hook)
{
	struct bw_reload_req r = { .iface = t->iface,
				   .ifindex = t->ifindex,
				   .args = &t->args,
				   .lists = t->lists,
				   .nlists = 1 };
	struct bw_reload_result res;
	int err;

	if (with_hook) {
		r.before_swap_filter = bw_wlive_stage;
		r.ctx = t->live;
		err = bw_wlive_fork_begin(t->live);
		if (err)
			return err;
	}
	err = bw_reload(&r, &res);
	if (with_hook)
		bw_wlive_fork_end(t->live);
	return err;
}

static bool setup(struct lw *t)
{
	struct bw_attach_req rq = { .mode = XDP_MODE_SKB };
	struct bw_attach_result res;
	char cmd[160];
	int fd;

	snprintf(t->iface, sizeof(t->iface), "bwlive%d", getpid() % 100000);
	snprintf(t->list, sizeof(t->list), "/tmp/bw-live-watch-%d.txt",
		 getpid());
	t->lists[0] = t->list;
	fd = open(t->list, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!ASSERT_TRUE(fd >= 0 && write(fd, "10.9.0.1\n", 9) == 9, "list"))
		return false;
	close(fd);
	if (!ASSERT_OK(unshare(CLONE_NEWNET), "unshare"))
		return false;
	snprintf(cmd, sizeof(cmd),
		 "ip link add %s type veth peer name %sp && ip link set %s up",
		 t->iface, t->iface, t->iface);
	if (!ASSERT_OK(system(cmd), "veth pair"))
		return false;
	t->ifindex = (int)if_nametoindex(t->iface);
	rq.iface = t->iface;
	rq.ifindex = t->ifindex;
	rq.args = &t->args;
	rq.lists = t->lists;
	rq.nlists = 1;
	return ASSERT_OK(bw_attach_lists(&rq, &res), "attach");
}

static void teardown(struct lw *t)
{
	struct bw_detach_req rq = { .iface = t->iface, .ifindex = t->ifindex };
	struct bw_detach_result res;

	if (t->ifindex)
		bw_detach_iface(&rq, &res);
	unlink(t->list);
}

BW_TEST(test_live_watch_in_place)
{
	struct bw_prefix p = bw_addr("198.51.100.0");
	const char *src = "198.51.100.7";
	__u32 id0 = 0, id = 0, id2 = 0;
	int netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	struct lw t;

	memset(&t, 0, sizeof(t));
	p.plen = 24;
	if (geteuid() || netns < 0) {
		if (netns >= 0)
			close(netns);
		TEST_SKIP("needs root");
		return;
	}
	t.live = bw_wlive_new(t.iface, false);
	if (!ASSERT_TRUE(t.live, "live entries") || !setup(&t))
		goto out;
	ASSERT_EQ(verdict(&t, "10.9.0.1", &id0), XDP_DROP, "listed: dropped");
	ASSERT_EQ(verdict(&t, src, &id), XDP_PASS, "unlisted: passed");

	ASSERT_OK(bw_wlive_add(t.live, &p, 0), "live add");
	ASSERT_EQ(verdict(&t, src, &id), XDP_DROP, "live add: dropped");
	ASSERT_EQ(id, id0, "no swap for the add");
	ASSERT_OK(bw_wlive_del(t.live, &p), "live del");
	ASSERT_EQ(verdict(&t, src, &id), XDP_PASS, "live del: passed again");
	ASSERT_EQ(id, id0, "no swap for the delete");
	ASSERT_EQ(verdict(&t, "10.9.0.1", &id), XDP_DROP, "listed still");

	/* The watch's own rebuild: the entry set in the new filter. */
	ASSERT_OK(bw_wlive_add(t.live, &p, 0), "live add again");
	ASSERT_OK(rebuild(&t, true), "rebuild with the hook");
	ASSERT_EQ(verdict(&t, src, &id), XDP_DROP, "kept across the rebuild");
	ASSERT_NEQ(id, id0, "a new program");
	ASSERT_OK(bw_wlive_del(t.live, &p), "del on the new filter");
	ASSERT_EQ(verdict(&t, src, &id2), XDP_PASS, "passed again");
	ASSERT_EQ(id2, id, "in place on it");
	ASSERT_EQ(verdict(&t, "10.9.0.1", &id), XDP_DROP, "listed still");

	/* Another command's swap: taken over by the next step. */
	ASSERT_OK(bw_wlive_add(t.live, &p, 0), "live add 3");
	ASSERT_OK(rebuild(&t, false), "a reload of another command");
	ASSERT_EQ(verdict(&t, src, &id), XDP_PASS, "not in their filter");
	ASSERT_TRUE(bw_wlive_step(t.live, (__u64)time(NULL)),
		    "the step asks for a rebuild");
	ASSERT_EQ(verdict(&t, src, &id2), XDP_DROP, "set in their filter");
	ASSERT_EQ(id2, id, "without a swap");
	ASSERT_OK(bw_wlive_del(t.live, &p), "del kept back");
	ASSERT_EQ(verdict(&t, src, &id), XDP_DROP,
		  "no base of theirs: still set");
	ASSERT_OK(rebuild(&t, true), "the watch's rebuild");
	ASSERT_EQ(verdict(&t, src, &id), XDP_PASS, "the delete applied");
	ASSERT_FALSE(bw_wlive_step(t.live, (__u64)time(NULL)),
		     "no rebuild asked again");

	/* An expiry: out in place by the step after it. */
	ASSERT_OK(bw_wlive_add(t.live, &p, 1000), "expiring add");
	ASSERT_EQ(verdict(&t, src, &id), XDP_DROP, "expiring: dropped");
	bw_wlive_step(t.live, 999);
	ASSERT_EQ(verdict(&t, src, &id2), XDP_DROP, "before its time");
	bw_wlive_step(t.live, 1000);
	ASSERT_EQ(verdict(&t, src, &id2), XDP_PASS, "expired: passed");
	ASSERT_EQ(id2, id, "no swap for the expiry");

	/* Another command's swap with nothing live: its blocks are bases. */
	ASSERT_OK(rebuild(&t, false), "another reload, nothing live");
	ASSERT_FALSE(bw_wlive_step(t.live, (__u64)time(NULL)),
		     "no rebuild asked for it");
	ASSERT_OK(bw_wlive_add(t.live, &p, 0), "live add on their filter");
	ASSERT_EQ(verdict(&t, src, &id), XDP_DROP, "dropped");
	ASSERT_OK(bw_wlive_del(t.live, &p), "live del on their filter");
	ASSERT_EQ(verdict(&t, src, &id2), XDP_PASS, "passed: not kept back");
	ASSERT_EQ(id2, id, "in place");
	ASSERT_EQ(verdict(&t, "10.9.0.1", &id), XDP_DROP, "listed still");
out:
	teardown(&t);
	bw_wlive_free(t.live);
	if (setns(netns, CLONE_NEWNET))
		perror("setns");
	close(netns);
}
