// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall log IFACE [--json] [--count N]: follows the drop log, the
 * events the running program writes to its ring buffer (bpf/droplog.h),
 * a line each (a JSON object a line with --json), until SIGINT or SIGTERM
 * or N events. It takes no lock of the mutating verbs, only the ring's
 * own: one reader an interface (ops/log_ring.h). The ring outlives reloads, so a
 * reload does not end the log; a detach does (said), and so does standard
 * output that can no longer be written (a pipe's reader gone, with
 * SIGPIPE ignored): said, exit status 1, as coreutils do.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>

#include <bpf/libbpf.h>

#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_log.h"
#include "out/cs_why.h"
#include "out/droplog.h"
#include "base/log.h"
#include "base/output.h"
#include "ops/log_ring.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

struct follow {
	const char *iface;
	long count; /* 0: until stopped */
	long seen;
	int write_err; /* -errno: standard output failed, the log ends */
	__s64 real_minus_mono; /* ns: CLOCK_REALTIME - CLOCK_MONOTONIC */
};

static __s64 clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__s64)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The event's ifindex names it; the one asked for when it has gone. */
static const char *event_iface(const struct follow *f, __u32 ifindex, char *buf)
{
	return ifindex && if_indextoname(ifindex, buf) ? buf : f->iface;
}

/*
 * An address drop a CrowdSec decision explains: its decisions (origin,
 * scenario) under the event, asked of the interface's watch (nothing
 * without one with --crowdsec).
 */
static void crowdsec_why(const struct bw_log_event *ev, const char *iface)
{
	char src[64];
	const char *addr = src;
	struct bw_cs_why w;

	if (ev->reason != BW_LOG_ADDRESS)
		return;
	/* On the way out the listed address is the destination. */
	bw_log_addr(ev, ev->direction == BW_LOG_EGRESS, src, sizeof(src));
	if (!bw_query_cs_why(iface, &addr, 1, &w))
		bw_cs_why_out(&w, 0);
	bw_query_cs_why_free(&w);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct follow *f = ctx;
	struct bw_log_event ev;
	char name[IF_NAMESIZE];
	__u64 real;

	if (size < BW_LOG_EVENT_MIN || (f->count && f->seen >= f->count))
		return 0;
	bw_log_event_read(data, size, &ev);
	real = (__u64)((__s64)ev.time_ns + f->real_minus_mono);
	bw_out_record_begin();
	bw_log_out(&ev, event_iface(f, ev.ifindex, name), real);
	crowdsec_why(&ev, event_iface(f, ev.ifindex, name));
	errno = 0;
	if (bw_out_record_end()) {
		f->write_err = errno ? -errno : -EIO;
		return f->write_err;
	}
	f->seen++;
	/* Ends this poll: the count is reached. */
	return f->count && f->seen >= f->count ? 1 : 0;
}

/*
 * Our end of a pipe whose reader has gone polls POLLERR: the log ends
 * then even when no event comes to fail a write.
 */
static bool stdout_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

static int follow(const struct bw_args *a, const struct bw_log_ring_req *rq,
		  const struct bw_log_ring *ring)
{
	struct follow f = { .iface = a->iface, .count = a->count };
	struct ring_buffer *rb;
	__s64 checked = clock_ns(CLOCK_MONOTONIC);
	int n, err = 0;

	f.real_minus_mono = clock_ns(CLOCK_REALTIME) - checked;
	rb = ring_buffer__new(ring->fd, on_event, &f, NULL);
	if (!rb) {
		err = -errno;
		pr_warn("%s: cannot read the drop log: %s\n", a->iface,
			bw_errno_hint(err));
		return err;
	}
	/* Lines as they come: not one document at the end. */
	bw_out_stream_begin();
	while (!stop && !(f.count && f.seen >= f.count)) {
		n = ring_buffer__poll(rb, 250);
		if (f.write_err)
			break;
		if (n < 0 && n != -EINTR) {
			err = n;
			pr_warn("%s: cannot read the drop log: %s\n", a->iface,
				bw_errno_hint(err));
			break;
		}
		if (clock_ns(CLOCK_MONOTONIC) - checked < 1000000000LL)
			continue;
		/* Once a second: the clocks, and the hook. */
		checked = clock_ns(CLOCK_MONOTONIC);
		f.real_minus_mono = clock_ns(CLOCK_REALTIME) - checked;
		if (stdout_gone()) {
			f.write_err = -EPIPE;
			break;
		}
		if (!bw_log_ring_live(rq, ring)) {
			ring_buffer__consume(rb);
			pr_warn("%s: bloomwall's drop log is no longer on (detached, or reloaded with --log-rate 0); the log ends\n",
				a->iface);
			break;
		}
	}
	ring_buffer__free(rb);
	if (f.write_err) {
		pr_warn("bloomwall log: cannot write to standard output: %s; the log ends\n",
			strerror(-f.write_err));
		err = f.write_err;
	}
	return err;
}

static int do_log(struct bw_args *a)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct bw_log_ring_req rq = { .iface = a->iface,
				      .ifindex = a->ifindex };
	struct bw_log_ring ring;
	int err;

	err = bw_check_privileges("log");
	if (err)
		return err;
	/* No SA_RESTART: the signal ends the poll. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	err = bw_log_ring_open(&rq, &ring);
	if (err)
		return err;
	err = follow(a, &rq, &ring);
	bw_log_ring_close(&ring);
	return err;
}

static const struct bw_opt log_only_opts[] = {
	BW_OPT("count", "N", count, bw_parse_u32,
	       "exit after N events (default: follow)"),
	{ 0 },
};

static const struct bw_opt *const log_opts[] = { log_only_opts, NULL };

const struct bw_verb bw_verb_log = {
	.name = "log",
	.summary = "follow the drop log of IFACE (sampled drops, as they come)",
	.details =
		"Prints the drops the running program samples into its ring buffer, a\n"
		"line each, until SIGINT or SIGTERM (or N events with --count N):\n"
		"  TIME IFACE FAMILY PROTO SRC[:PORT] -> DST[:PORT] REASON ACTION gen N [NAME]\n"
		"REASON is address (a listed address) or dns (a query for a listed name,\n"
		"NAME); ACTION is drop, answer (a blocked query answered in place) or\n"
		"monitor (a listed address passed in monitor mode); gen is the generation\n"
		"of the filter that judged it. A drop of the egress program (attach\n"
		"--egress: the host's own packet, SRC local) ends in \"egress\", the uid\n"
		"that owns the sending socket and its cookie (\"sk:\" in hex, as 'ss -e'\n"
		"prints it), where the packet has them; never a pid (bloomwall.8, DROP LOG).\n"
		"With --json one object a line: {\"time\", \"time_ns\", \"iface\",\n"
		"\"family\", \"proto\", \"src\", \"dst\", \"sport\", \"dport\", \"reason\",\n"
		"\"action\", \"generation\", \"name\", \"direction\", \"uid\",\n"
		"\"socket_cookie\"} (ports for TCP and UDP only, name for dns only, uid and\n"
		"socket_cookie where known).\n"
		"The program samples with a token bucket per CPU: at most --log-rate N\n"
		"events a second on each CPU (attach, reload, load and watch set it; a\n"
		"program keeps its rate when they do not; default 10, 0 turns logging\n"
		"off). Drops past the rate and events the full ring had no room for are\n"
		"counted: 'bloomwall status' shows them. A ring has one reader: a second\n"
		"'bloomwall log' of the same interface is refused, naming the first's pid.\n"
		"When standard output can no longer be written (a pipe whose reader has\n"
		"gone, with SIGPIPE ignored), the log says so and exits with status 1.\n",
	.opts = log_opts,
	.pos = {},
	.run = do_log,
};
