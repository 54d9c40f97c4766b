// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Part l: what the drop log costs per packet. bloomwall's program loaded
 * for one small filter with --log-rate 0 (no logging code), with a rate
 * whose bucket is empty (every listed packet takes the bucket's path and
 * is counted lost), and with a rate high enough that every listed packet
 * is written to the ring; the unlisted path with logging off and on.
 * BPF_PROG_TEST_RUN with repeat LOG_REPEAT, fewer than the ring holds, so
 * "written" really writes every event: the ring is drained between trials
 * and the events are counted. Median of the trials, side by side as
 * ratios to logging off.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "bench_extra.h"
#include "bloomwall.h"
#include "bloomwall.skel.h"
#include "ops/reload.h"
#include "kernel/stats.h"

/* Runs per trial: fewer than the ring's BW_LOG_RING_BYTES / 328 events. */
#define LOG_REPEAT 512
#define LOG_TRIALS 101
#define LOG_ROWS 5

enum log_row {
	ROW_UNLISTED_OFF,
	ROW_UNLISTED_ON,
	ROW_LISTED_OFF,
	ROW_LISTED_LIMITED,
	ROW_LISTED_WRITTEN,
};

static const char *const row_name[LOG_ROWS] = {
	"unlisted, log off (--log-rate 0)",
	"unlisted, log on",
	"listed (drop), log off (--log-rate 0)",
	"listed, log on, bucket empty (lost_rate)",
	"listed, log on, every drop written",
};

static double row_ns[LOG_ROWS];
static bool measured;

struct log_ctx {
	struct bloomwall *skel;
	struct bw_maps maps;
	struct bw_built b;
	struct ring_buffer *rb;
	__u64 events;
};

static int count_event(void *ctx, void *data, size_t size)
{
	(*(__u64 *)ctx)++;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* finish_stats() holds BENCH_MAX_TRIALS; these rows take more. */
static double median(double *t, int n)
{
	qsort(t, n, sizeof(*t), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static int frame_from(const char *src, __u8 *frame)
{
	__u32 a;

	if (inet_pton(AF_INET, src, &a) != 1)
		return -EINVAL;
	build_frame(frame, a);
	return 0;
}

/*
 * Times src through a program loaded with rate: checks the verdict, then
 * LOG_TRIALS runs of LOG_REPEAT, the ring drained after each. written:
 * every run must have written its event.
 */
static int time_row(struct log_ctx *x, long rate, const char *src, __u32 want,
		    bool written, double *ns)
{
	double t[LOG_TRIALS];
	__u8 frame[BENCH_FRAME_LEN];
	__u32 retval = ~0U;
	int prog, i, err;

	x->maps.log_rate = rate;
	prog = bw_prog_load(&x->maps, &x->b.filter);
	if (prog < 0)
		return prog;
	err = frame_from(src, frame) ?: run_prog(prog, frame, 1, &retval, NULL);
	if (!err && retval != want) {
		fprintf(stderr, "bench: log: %s: action %u, expected %u\n", src,
			retval, want);
		err = -EINVAL;
	}
	for (i = 0; !err && i < LOG_TRIALS; i++) {
		ring_buffer__consume(x->rb);
		x->events = 0;
		err = run_prog(prog, frame, LOG_REPEAT, NULL, &t[i]);
		ring_buffer__consume(x->rb);
		if (!err && written && x->events != LOG_REPEAT) {
			fprintf(stderr,
				"bench: log: %llu of %u events written\n",
				(unsigned long long)x->events, LOG_REPEAT);
			err = -EIO;
		}
	}
	close(prog);
	if (!err)
		*ns = median(t, LOG_TRIALS);
	return err;
}

static int build_small(struct log_ctx *x)
{
	static const char *const lines[] = { "198.51.100.7", NULL };
	char path[] = "/tmp/bw-bench-log-XXXXXX";
	const char *files[1] = { path };
	struct bw_build_req req;
	FILE *f;
	int fd, err;

	fd = mkstemp(path);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f)
		return -errno;
	fprintf(f, "%s\n", lines[0]);
	fclose(f);
	bw_build_req_init(&req, "bench");
	req.lists = files;
	req.nlists = 1;
	req.opts.seed = 0x5eed;
	req.opts.flags = BW_F_MATCH_SRC;
	req.generation = 1;
	err = bw_build_lists(&req, &x->b);
	unlink(path);
	return err;
}

int bench_droplog(const struct bench_cfg *cfg)
{
	struct log_ctx x = { .b = BW_BUILT_INIT };
	int err;

	x.skel = bloomwall__open_and_load();
	if (!x.skel)
		return -errno;
	bw_maps_from_skel(x.skel, &x.maps);
	x.rb = ring_buffer__new(x.maps.log_ring, count_event, &x.events, NULL);
	err = x.rb ? build_small(&x) : -errno;
	if (!err)
		err = time_row(&x, 0, "198.51.100.8", XDP_PASS, false,
			       &row_ns[ROW_UNLISTED_OFF]) ?:
			      time_row(&x, BW_LOG_RATE_DEFAULT, "198.51.100.8",
				       XDP_PASS, false,
				       &row_ns[ROW_UNLISTED_ON]) ?:
			      time_row(&x, 0, "198.51.100.7", XDP_DROP, false,
				       &row_ns[ROW_LISTED_OFF]) ?:
			      time_row(&x, 1, "198.51.100.7", XDP_DROP, false,
				       &row_ns[ROW_LISTED_LIMITED]) ?:
			      time_row(&x, BW_LOG_RATE_MAX, "198.51.100.7",
				       XDP_DROP, true,
				       &row_ns[ROW_LISTED_WRITTEN]);
	measured = !err;
	ring_buffer__free(x.rb);
	bw_built_close(&x.b);
	bloomwall__destroy(x.skel);
	return err;
}

void print_droplog(FILE *f)
{
	double base;
	int i;

	if (!measured)
		return;
	fprintf(f,
		"### The drop log (test_run, repeat %d, hot cache, median "
		"ns)\n\n",
		LOG_REPEAT);
	fprintf(f, "| packet | ns | x log off |\n|---|---:|---:|\n");
	for (i = 0; i < LOG_ROWS; i++) {
		base = row_ns[i < ROW_LISTED_OFF ? ROW_UNLISTED_OFF
						 : ROW_LISTED_OFF];
		fprintf(f, "| %s | %.1f | %.2f |\n", row_name[i], row_ns[i],
			base > 0 ? row_ns[i] / base : 0.0);
	}
	fprintf(f, "\n");
}
