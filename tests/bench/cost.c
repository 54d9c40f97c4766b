// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Part c: what one packet costs through bloomwall's program as the CLI
 * builds and swaps it (the skeleton, bw_build_lists, bw_swap_in): its size,
 * a two-entry filter (IPv4 and IPv6, listed and unlisted), and the real
 * lists with and without verify mode and with an allowlisted source.
 * BPF_PROG_TEST_RUN with repeat: one frame, hot cache; the median of the
 * trials. Each frame's verdict is checked before it is timed. The
 * datapath tests assert the same verdicts (test_prog_info,
 * test_verify_allow_real_lists) without timing them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/allowlist.h"
#include "bench.h"
#include "bench_extra.h"
#include "bloomwall.h"
#include "bloomwall.skel.h"
#include "lists/cidr.h"
#include "ops/reload.h"

#define COST_MAX 16
#define COST_LISTS 4

struct cost_row {
	char what[64];
	double ns;
};

static struct cost_row rows[COST_MAX];
static int nrows;
static char prog_line[160];

/* One UDP frame of BENCH_FRAME_LEN bytes from src (IPv4 or IPv6 text). */
static int cost_frame(const char *src, __u8 *frame)
{
	struct ethhdr *eth = (void *)frame;
	struct iphdr *ip = (void *)(eth + 1);
	struct ipv6hdr *ip6 = (void *)(eth + 1);
	struct udphdr *udp;

	memset(frame, 0, BENCH_FRAME_LEN);
	if (inet_pton(AF_INET, src, &ip->saddr) == 1) {
		eth->h_proto = htons(ETH_P_IP);
		ip->version = 4;
		ip->ihl = 5;
		ip->ttl = 64;
		ip->protocol = IPPROTO_UDP;
		ip->tot_len = htons(BENCH_FRAME_LEN - sizeof(*eth));
		inet_pton(AF_INET, "192.0.2.1", &ip->daddr);
		udp = (void *)(ip + 1);
	} else if (inet_pton(AF_INET6, src, &ip6->saddr) == 1) {
		eth->h_proto = htons(ETH_P_IPV6);
		ip6->version = 6;
		ip6->hop_limit = 64;
		ip6->nexthdr = IPPROTO_UDP;
		ip6->payload_len = htons(sizeof(*udp));
		inet_pton(AF_INET6, "2001:db8::1", &ip6->daddr);
		udp = (void *)(ip6 + 1);
	} else {
		return -EINVAL;
	}
	udp->source = htons(4242);
	udp->dest = htons(4242);
	udp->len = htons(sizeof(*udp));
	return 0;
}

/* Checks the frame's verdict once, then times it; one row of the table. */
static int cost_row(const struct bench_cfg *cfg, int prog_fd, const char *what,
		    const char *src, __u32 want)
{
	double t[BENCH_MAX_TRIALS], min;
	__u8 frame[BENCH_FRAME_LEN];
	__u32 retval = ~0U;
	struct cost_row *r;
	int i, err;

	if (nrows == COST_MAX)
		return -E2BIG;
	err = cost_frame(src, frame)
		      ?: run_prog(prog_fd, frame, 1, &retval, NULL);
	if (err)
		return err;
	if (retval != want) {
		fprintf(stderr, "bench: %s: action %u, expected %u\n", what,
			retval, want);
		return -EINVAL;
	}
	for (i = 0; i < cfg->trials; i++) {
		err = run_prog(prog_fd, frame, cfg->repeat_warm, NULL, &t[i]);
		if (err)
			return err;
	}
	r = &rows[nrows++];
	snprintf(r->what, sizeof(r->what), "%s", what);
	finish_stats(t, cfg->trials, &r->ns, &min);
	return 0;
}

/* The skeleton as the datapath tests hold it: its maps, its program. */
struct cost_ctx {
	struct bloomwall *skel;
	struct bw_maps maps;
	struct bw_installer installer;
	int prog_fd;
};

static int cost_swap(struct cost_ctx *x, char **files, int n, bool verify,
		     __u64 gen, const struct bw_list *allow, struct bw_built *b)
{
	struct bw_build_req req;
	struct bw_maps maps = x->maps;
	struct bw_swap s = { .iface = "bench",
			     .maps = &maps,
			     .installer = &x->installer,
			     .old_generation = gen - 1 };
	int err;

	bw_build_req_init(&req, "bench");
	req.lists = (const char *const *)files;
	req.nlists = n;
	req.opts.seed = 0x5eed;
	req.opts.flags = BW_F_MATCH_SRC | (verify ? BW_F_VERIFY : 0);
	req.generation = gen;
	req.exact_slot = (__u8)(gen & 1); /* not the running filter's */
	err = b->filter.mem ? 0 : bw_build_lists(&req, b);
	/* A new allowlist is a new trie, swapped in with the program. */
	if (!err && allow) {
		maps.allow = bw_allow_create(allow);
		err = maps.allow < 0 ? maps.allow : 0;
		bw_set_allow_flag(b->filter.mem, allow->n4 + allow->n6);
	}
	if (!err)
		err = bw_swap_in(&s, b);
	if (allow && maps.allow >= 0)
		close(maps.allow); /* the program holds it now */
	return err;
}

static void prog_info(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	snprintf(prog_line, sizeof(prog_line),
		 "%s: xlated %u bytes (%u insns), jited %u bytes, verifier "
		 "processed %u insns (two-entry filter)",
		 info.name, info.xlated_prog_len, info.xlated_prog_len / 8,
		 info.jited_prog_len, info.verified_insns);
}

/* Writes lines to a temporary list file; its path in path. */
static int tmp_list(char *path, const char *const *lines)
{
	int fd = mkstemp(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (!f)
		return -errno;
	for (; *lines; lines++)
		fprintf(f, "%s\n", *lines);
	return fclose(f) ? -errno : 0;
}

static int cost_small(const struct bench_cfg *cfg, struct cost_ctx *x)
{
	static const char *const listed[] = { "198.51.100.7", "2001:db8:bad::7",
					      NULL };
	char path[] = "/tmp/bw-bench-cost-XXXXXX", *files[1] = { path };
	struct bw_built b = BW_BUILT_INIT;
	int err;

	err = tmp_list(path, listed)
		      ?: cost_swap(x, files, 1, false, 1, NULL, &b);
	if (!err) {
		prog_info(x->prog_fd);
		err = cost_row(cfg, x->prog_fd, "ipv4 unlisted", "198.51.100.8",
			       XDP_PASS) ?:
			      cost_row(cfg, x->prog_fd, "ipv4 listed (drop)",
				       "198.51.100.7", XDP_DROP) ?:
			      cost_row(cfg, x->prog_fd, "ipv6 unlisted",
				       "2001:db8:bad::8", XDP_PASS) ?:
			      cost_row(cfg, x->prog_fd, "ipv6 listed (drop)",
				       "2001:db8:bad::7", XDP_DROP);
	}
	unlink(path);
	bw_built_close(&b);
	return err;
}

static int cost_real(const struct bench_cfg *cfg, struct cost_ctx *x,
		     const char *dir)
{
	static const char *const rel[COST_LISTS] = {
		"ipv4/firehol/firehol_level1.netset",
		"spamhaus/drop.txt",
		"spamhaus/dropv6.txt",
		"ipv4/firehol/firehol_level4.netset",
	};
	static const char *const allowed[] = { "10.1.2.3", NULL };
	char paths[COST_LISTS][512], *files[COST_LISTS];
	char allow_path[] = "/tmp/bw-bench-allow-XXXXXX";
	const char *allow_files[1] = { allow_path };
	struct bw_built b1 = BW_BUILT_INIT, b2 = BW_BUILT_INIT;
	struct bw_list allow;
	int i, err;

	bw_list_init(&allow);
	for (i = 0; i < COST_LISTS; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, rel[i]);
		files[i] = paths[i];
	}
	/* 8.8.8.8 is in none of these lists, 10.1.2.3 in firehol_level1. */
	err = cost_swap(x, files, COST_LISTS, false, 2, NULL, &b1) ?:
		      cost_row(cfg, x->prog_fd, "real lists: unlisted (8.8.8.8)",
			       "8.8.8.8", XDP_PASS) ?:
		      cost_row(cfg, x->prog_fd, "real lists: listed, drop",
			       "10.1.2.3", XDP_DROP) ?:
		      cost_swap(x, files, COST_LISTS, true, 3, NULL, &b2) ?:
		      cost_row(cfg, x->prog_fd, "verify: unlisted (8.8.8.8)",
			       "8.8.8.8", XDP_PASS) ?:
		      cost_row(cfg, x->prog_fd, "verify: listed, confirmed drop",
			       "10.1.2.3", XDP_DROP) ?:
		      tmp_list(allow_path, allowed) ?:
		      bw_load_allow("bench", allow_files, 1, false, &allow) ?:
		      cost_swap(x, files, COST_LISTS, true, 3, &allow, &b2) ?:
		      cost_row(cfg, x->prog_fd, "verify: listed, allowlisted",
			       "10.1.2.3", XDP_PASS);
	unlink(allow_path);
	bw_list_free(&allow);
	bw_built_close(&b1);
	bw_built_close(&b2);
	return err;
}

int bench_prog_cost(const struct bench_cfg *cfg)
{
	const char *dir = cfg->data_dir;
	struct cost_ctx x = { .prog_fd = -1 };
	int err;

	x.skel = bloomwall__open_and_load();
	if (!x.skel)
		return -errno;
	x.prog_fd = dup(bpf_program__fd(x.skel->progs.bloomwall_xdp));
	bw_maps_from_skel(x.skel, &x.maps);
	x.installer.install = bw_keep_prog;
	x.installer.ctx = &x.prog_fd;
	err = cost_small(cfg, &x);
	if (!err && access(dir, R_OK) == 0)
		err = cost_real(cfg, &x, dir);
	else if (!err)
		fprintf(stderr,
			"bench: no data dir at %s (set BW_DATA_DIR): "
			"no real-list rows\n",
			dir);
	if (x.prog_fd >= 0)
		close(x.prog_fd);
	bloomwall__destroy(x.skel);
	return err;
}

void print_prog_cost(FILE *f)
{
	int i;

	if (!nrows)
		return;
	fprintf(f, "### One packet through the program (test_run, hot cache, "
		   "median ns)\n\n");
	if (prog_line[0])
		fprintf(f, "%s\n\n", prog_line);
	fprintf(f, "| packet | ns |\n|---|---:|\n");
	for (i = 0; i < nrows; i++)
		fprintf(f, "| %s | %.1f |\n", rows[i].what, rows[i].ns);
	fprintf(f, "\n");
}
