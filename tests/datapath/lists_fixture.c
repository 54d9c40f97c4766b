// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Filters built from list files and swapped in the CLI's way: see the .h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bloomwall.h"
#include "bloomwall.skel.h"
#include "kernel/allowlist.h"
#include "lists/cidr.h"
#include "lists_fixture.h"
#include "kernel/lpm.h"
#include "lists/list_load.h"
#include "lists/list_parse.h"
#include "test_helpers.h"

static char tmpdir[64];

bool lf_tmp_setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/bw-lists-XXXXXX");
	return ASSERT_OK_PTR(mkdtemp(tmpdir), "mkdtemp");
}

void lf_tmp_cleanup(void)
{
	char cmd[96];

	if (!tmpdir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "  cannot remove %s\n", tmpdir);
	tmpdir[0] = '\0';
}

const char *lf_tmp_dir(void)
{
	return tmpdir;
}

char *lf_write_list(const char *name, const char *const *lines)
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

void lf_req_init(struct bw_build_req *req, char **files, int n, bool verify,
		 __u8 slot, __u64 generation)
{
	bw_build_req_init(req, "dp");
	req->lists = (const char *const *)files;
	req->nlists = n;
	req->opts.seed = LF_SEED;
	req->opts.flags = BW_F_MATCH_SRC | (verify ? BW_F_VERIFY : 0);
	req->exact_slot = slot;
	req->generation = generation;
}

int lf_exact_fd(struct bw_dp *dp)
{
	return bpf_map__fd(dp->skel->maps.exact);
}

int lf_allow_fd(struct bw_dp *dp)
{
	return dp->maps.allow;
}

/*
 * As reload does it: a new allowlist is a new trie that goes in with the
 * new program, and the filter's header says whether it has entries.
 */
int lf_swap_in(struct bw_dp *dp, const struct bw_built *b,
	       const struct bw_list *allow)
{
	struct bw_maps maps = dp->maps;
	struct bw_swap s = { .iface = "dp",
			     .maps = &maps,
			     .installer = &dp->installer };
	const struct bw_info *info =
		(const void *)((char *)b->filter.mem + BW_BLOCK_BYTES);
	int err;

	if (allow) {
		maps.allow = bw_allow_create(allow);
		if (maps.allow < 0)
			return maps.allow;
		bw_set_allow_flag(b->filter.mem, allow->n4 + allow->n6);
	}
	s.old_generation = info->generation - 1;
	err = bw_swap_in(&s, b);
	if (allow && err) {
		close(maps.allow);
	} else if (allow) {
		if (dp->allow_fd >= 0)
			close(dp->allow_fd);
		dp->allow_fd = dp->maps.allow = maps.allow;
	}
	return err;
}

bool lf_build_swap(struct bw_dp *dp, char **files, int n, bool verify,
		   __u64 gen, struct bw_built *b)
{
	struct bw_build_req req;
	struct bw_filter_map cur = BW_FILTER_MAP_INIT;
	__u8 slot = 0;

	/* The slot the running filter does not name, as reload picks it. */
	if (gen > 1 && !bw_prog_filter(dp->prog_fd, false, &cur))
		slot = !((const struct bw_hdr *)cur.mem)->exact_slot;
	bw_filter_close(&cur);
	lf_req_init(&req, files, n, verify, slot, gen);
	if (!ASSERT_OK(bw_build_lists(&req, b), "bw_build_lists"))
		return false;
	return ASSERT_OK(lf_swap_in(dp, b, NULL), "bw_swap_in");
}

static struct bw_prefix dst_of(int family)
{
	return bw_addr(family == BW_V4 ? "192.0.2.1" : "2001:db8::1");
}

bool lf_expect(struct bw_dp *dp, const struct bw_prefix *src,
	       enum bw_outcome want)
{
	struct bw_pkt_spec s = { .payload = 16 };
	struct bw_prefix dst = dst_of(src->family);
	__u8 buf[BW_PKT_MAX];
	char txt[64];
	size_t len = bw_pkt_build_addr(&s, src, &dst, buf);

	return bw_dp_expect(dp, bw_prefix_str(src, txt, sizeof(txt)), buf, len,
			    want);
}

void lf_run_all(struct bw_dp *dp, const struct bw_prefix *a, size_t n,
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

u128 lf_addr_num(const struct bw_prefix *p)
{
	return p->family == BW_V4 ? (u128)(__u32)p->lo
				  : (u128)p->hi << 64 | p->lo;
}

struct bw_prefix lf_addr_at(int family, u128 n)
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

u128 lf_span_of(const struct bw_prefix *p)
{
	unsigned int host = (p->family == BW_V4 ? 32 : 128) - p->plen;

	return host >= 128 ? ~(u128)0 : ((u128)1 << host) - 1;
}

enum bw_outcome lf_outside(const void *mem, const struct bw_prefix *a)
{
	const struct bw_hdr *hdr = mem;

	if (!bw_filter_lookup(mem, a, NULL))
		return BW_OUT_PASS;
	return hdr->flags & BW_F_VERIFY ? BW_OUT_FALSE_POS : lf_drop(a->family);
}

__u64 lf_rnd(void)
{
	static __u64 state = 0x9e3779b97f4a7c15ULL;

	return bw_test_xorshift64s(&state);
}

bool lf_load_src(char *const *files, int n, struct bw_list *l)
{
	struct bw_list_opts lo = {};
	int i;

	for (i = 0; i < n; i++)
		if (!ASSERT_OK(bw_list_load(l, files[i], &lo), files[i]))
			return false;
	bw_list_finish(l);
	return true;
}

void lf_probes_of(const struct bw_prefix *p, struct bw_prefix out[3])
{
	u128 first = lf_addr_num(p), span = lf_span_of(p);
	u128 r = ((u128)lf_rnd() << 64 | lf_rnd()) & span;

	out[0] = lf_addr_at(p->family, first);
	out[1] = lf_addr_at(p->family, first + span);
	out[2] = lf_addr_at(p->family, first + r);
}

size_t lf_member_misses(struct bw_dp *dp, const struct bw_list *src)
{
	struct bw_prefix p, probe[3];
	size_t i, n = src->n4 + src->n6, missed = 0, drops;
	char txt[64];

	for (i = 0; i < n; i++) {
		bw_list_prefix(src, i, &p);
		lf_probes_of(&p, probe);
		lf_run_all(dp, probe, 3, &drops);
		if (drops == 3)
			continue;
		if (missed++ < 5)
			fprintf(stderr, "  not dropped: inside %s\n",
				bw_prefix_str(&p, txt, sizeof(txt)));
	}
	return missed;
}

void lf_real_lists(const char *dir, char paths[LF_NREAL][LF_PATH_MAX],
		   char *files[LF_NREAL])
{
	static const char *const real[LF_NREAL] = {
		"ipv4/firehol/firehol_level1.netset",
		"spamhaus/drop.txt",
		"spamhaus/dropv6.txt",
		"ipv4/firehol/firehol_level4.netset",
	};
	int i;

	for (i = 0; i < LF_NREAL; i++) {
		snprintf(paths[i], LF_PATH_MAX, "%s/%s", dir, real[i]);
		files[i] = paths[i];
	}
}
