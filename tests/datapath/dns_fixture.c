// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The DNS datapath fixture: filters with name regions, query frames,
 * runs with the frame kept, counter deltas (dns_fixture.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>

#include "dns_fixture.h"
#include "lists/names.h"
#include "test_helpers.h"

#define DNS_CLIENT_PORT 40000
#define ADDR_BLOCKS 4
#define DNS_HDR_BYTES 12

static struct bw_block *block_at(void *mem, __u32 idx)
{
	return (struct bw_block *)((char *)mem + (size_t)idx * BW_BLOCK_BYTES);
}

/* The subtree key of the whole name (bw_name_key_exact of it: its exact key). */
static int name_key(const char *name, __u32 seed, __u64 *key)
{
	__u64 keys[BW_NAME_LABELS_MAX];
	int n = bw_name_hashes(name, strlen(name), seed, keys,
			       BW_NAME_LABELS_MAX);

	if (n <= 0)
		return n ? n : -EINVAL;
	*key = keys[n - 1];
	return 0;
}

static void set_key(void *mem, __u32 start, __u32 nblocks, __u64 key)
{
	bw_block_set(block_at(mem, start + bw_block_index(key, nblocks)), key,
		     BW_ROUND_PROBES);
}

static void set_keys(void *mem, const __u64 *keys, size_t n, __u32 start)
{
	size_t i;

	for (i = 0; i < n; i++)
		set_key(mem, start, DNS_REGION_BLOCKS, keys[i]);
}

static int set_names(void *mem, const char *const *names, __u32 start,
		     __u32 seed, bool exact)
{
	__u64 key;
	int err;

	for (; names && *names; names++) {
		err = name_key(*names, seed, &key);
		if (err)
			return err;
		set_key(mem, start, DNS_REGION_BLOCKS,
			exact ? bw_name_key_exact(key) : key);
	}
	return 0;
}

static void put_header(struct bw_hdr *hdr, const struct dns_filter *f,
		       __u32 seed)
{
	__u32 end = BW_HDR_BLOCKS + (f->block_addr ? ADDR_BLOCKS : 0), r;

	hdr->magic = BW_MAGIC;
	hdr->version = BW_VERSION;
	hdr->flags = BW_F_MATCH_SRC | f->flags | (f->no_dns ? 0 : BW_F_DNS);
	hdr->seed = seed;
	if (f->block_addr) {
		hdr->nlengths[BW_V4] = 1;
		hdr->plen[BW_V4][0] = 32;
		hdr->probes[0] = BW_ROUND_PROBES;
	}
	for (r = 0; r < BW_REGIONS; r++)
		hdr->region_end[r] = end;
}

int dns_commit(struct bw_dp *dp, const struct dns_filter *f,
	       struct bw_filter_map *m)
{
	__u32 seed = f->seed_set ? f->seed : DNS_SEED, nb_exact, nb_sub, at;
	struct bw_hdr hdr = {};
	struct bw_dns_hdr *dns;
	struct bw_prefix a;
	int err;

	put_header(&hdr, f, seed);
	at = bw_dns_block(&hdr);
	nb_exact = (f->exact && *f->exact) || f->nexact_keys ? DNS_REGION_BLOCKS
							     : 0;
	nb_sub = (f->subtree && *f->subtree) || f->nsubtree_keys
			 ? DNS_REGION_BLOCKS
			 : 0;
	err = bw_filter_create(at + 1 + nb_exact + nb_sub, m);
	if (err)
		return err;
	memcpy(m->mem, &hdr, sizeof(hdr));
	dns = (struct bw_dns_hdr *)block_at(m->mem, at);
	dns->magic = BW_DNS_MAGIC;
	dns->action = f->action;
	dns->flags = f->dns_flags;
	dns->probes[BW_NAME_EXACT] = BW_ROUND_PROBES;
	dns->probes[BW_NAME_SUBTREE] = BW_ROUND_PROBES;
	dns->ttl = f->ttl;
	dns->region_end[BW_NAME_EXACT] = at + 1 + nb_exact;
	dns->region_end[BW_NAME_SUBTREE] = at + 1 + nb_exact + nb_sub;
	err = set_names(m->mem, f->exact, at + 1, seed, true);
	if (!err)
		err = set_names(m->mem, f->subtree, at + 1 + nb_exact, seed,
				false);
	if (err)
		return err;
	set_keys(m->mem, f->exact_keys, f->nexact_keys, at + 1);
	set_keys(m->mem, f->subtree_keys, f->nsubtree_keys, at + 1 + nb_exact);
	if (f->block_addr) {
		a = bw_addr(f->block_addr);
		set_key(m->mem, BW_HDR_BLOCKS, ADDR_BLOCKS,
			bw_hash_v4((__u32)a.lo, 32, seed));
	}
	return bw_dp_commit(dp, m);
}

static bool region_has(const void *mem, __u32 start, __u32 end, __u64 key,
		       __u32 probes)
{
	if (end <= start)
		return false;
	return bw_block_test(
		block_at((void *)mem, start + bw_block_index(key, end - start)),
		key, probes);
}

bool dns_listed(const struct bw_filter_map *m, const char *name)
{
	const struct bw_hdr *hdr = m->mem;
	const struct bw_dns_hdr *dns =
		(const struct bw_dns_hdr *)block_at(m->mem, bw_dns_block(hdr));
	__u32 e0 = bw_dns_block(hdr) + 1, e1 = dns->region_end[BW_NAME_EXACT];
	__u64 keys[BW_NAME_LABELS_MAX];
	int n, k;

	n = bw_name_hashes(name, strlen(name), hdr->seed, keys,
			   BW_NAME_LABELS_MAX);
	for (k = 0; k < n; k++)
		if (region_has(m->mem, e1, dns->region_end[BW_NAME_SUBTREE],
			       keys[k], dns->probes[BW_NAME_SUBTREE]))
			return true;
	return n > 0 &&
	       region_has(m->mem, e0, e1, bw_name_key_exact(keys[n - 1]),
			  dns->probes[BW_NAME_EXACT]);
}

int dns_allow(struct bw_dp *dp, const char *name, bool subtree)
{
	__u8 one = 1;
	__u64 key;
	int err = name_key(name, BW_NAME_ALLOW_SEED, &key);

	if (err)
		return err;
	if (!subtree)
		key = bw_name_key_exact(key);
	return bpf_map_update_elem(dp->maps.allow_names, &key, &one, BPF_ANY)
		       ? -errno
		       : 0;
}

/* ---- query frames -------------------------------------------------------- */

static bool q_v6(const struct dns_q *q)
{
	return q->src && strchr(q->src, ':');
}

/* The question name as the query carries it (case kept). */
static size_t put_name(const struct dns_q *q, __u8 *p)
{
	const char *name = q->name ? q->name : "";
	size_t len = strlen(name), i, start = 0, w = 0;

	if (q->wire) {
		memcpy(p, q->wire, q->wire_len);
		return q->wire_len;
	}
	for (i = 0; len && i <= len; i++) {
		if (i < len && name[i] != '.')
			continue;
		p[w++] = (__u8)(i - start);
		memcpy(p + w, name + start, i - start);
		w += i - start;
		start = i + 1;
	}
	p[w++] = 0;
	return w;
}

static void put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* The DNS message; its length. */
static size_t put_msg(const struct dns_q *q, __u8 *p)
{
	size_t n;

	put16(p, 0x1234);
	put16(p + 2, q->flags_set ? q->flags : 0x0100);
	put16(p + 4, q->qdcount_set ? q->qdcount : 1);
	put16(p + 6, 0);
	put16(p + 8, 0);
	put16(p + 10, q->edns ? 1 : 0);
	n = DNS_HDR_BYTES + put_name(q, p + DNS_HDR_BYTES);
	put16(p + n, q->qtype ? q->qtype : 1);
	put16(p + n + 2, q->qclass ? q->qclass : 1);
	n += 4;
	if (q->edns) {
		/* Root owner, OPT, 4096 bytes, no extended RCODE or flags. */
		memcpy(p + n, "\x00\x00\x29\x10\x00\x00\x00\x00\x00\x00\x00",
		       11);
		n += 11;
	}
	if (q->cut > 0 && (size_t)(q->cut - 1) < n)
		n = q->cut - 1;
	return n;
}

static __u32 sum16(const __u8 *p, size_t len, __u32 sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

static __u16 fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* An extension header's bytes: destination options take 16, to vary. */
static size_t ext_len(__u8 type)
{
	return type == IPPROTO_DSTOPTS ? 16 : 8;
}

size_t dns_ip_hlen(const struct dns_q *q)
{
	size_t n = 40, i;

	if (!q_v6(q))
		return 20 + q->ip_opts_len;
	for (i = 0; i < q->nv6_ext; i++)
		n += ext_len(q->v6_ext[i]);
	return n + (q->v6_frag ? 8 : 0);
}

size_t dns_msg_off(const struct dns_q *q)
{
	size_t off = ETH_HLEN + 4 * (!!q->tpid[0] + !!q->tpid[1]);

	off += dns_ip_hlen(q);
	return off + (q->tcp ? 20 + 2 : 8);
}

static size_t put_eth(const struct dns_q *q, __u8 *buf)
{
	__u16 proto = q_v6(q) ? ETH_P_IPV6 : ETH_P_IP;
	size_t off = 12;
	int i;

	memcpy(buf, q->dst_mac ? q->dst_mac : (const __u8 *)"\x02\0\0\0\0\x53",
	       ETH_ALEN);
	memcpy(buf + ETH_ALEN, "\x02\x00\x00\x00\x00\x01", ETH_ALEN);
	for (i = 0; i < 2 && q->tpid[i]; i++) {
		put16(buf + off, q->tpid[i]);
		put16(buf + off + 2, 100 + i);
		off += 4;
	}
	put16(buf + off, proto);
	return off + 2;
}

/* The L4 header before the message at l4 (msg bytes already there). */
static size_t put_l4(const struct dns_q *q, __u8 *l4, size_t mlen)
{
	if (q->tcp) {
		memset(l4, 0, 20);
		put16(l4, DNS_CLIENT_PORT);
		put16(l4 + 2, q->dport ? q->dport : 53);
		l4[12] = 5 << 4;
		l4[13] = 0x18; /* PSH, ACK */
		put16(l4 + 20, mlen);
		return 22 + mlen;
	}
	put16(l4, DNS_CLIENT_PORT);
	put16(l4 + 2, q->dport ? q->dport : 53);
	put16(l4 + 4, 8 + mlen);
	put16(l4 + 6, 0);
	return 8 + mlen;
}

static void put_addrs(const struct dns_q *q, __u8 *src, __u8 *dst, int af)
{
	const char *d = q->dst		 ? q->dst
			: af == AF_INET6 ? "2001:db8::53"
					 : "192.0.2.53";

	inet_pton(af, q->src, src);
	inet_pton(af, d, dst);
}

/*
 * The extension headers at p, the first after the fixed header: each
 * names the next, the last names proto. Options are PadN; a routing
 * header is type 0 with q->v6_rt_left segments left. The byte that
 * names the first goes to *first.
 */
static void put_v6_ext(const struct dns_q *q, __u8 *p, __u8 *first, __u8 proto)
{
	size_t i, n = q->nv6_ext + (q->v6_frag ? 1 : 0), len;
	__u8 t, *nh = first;

	for (i = 0; i < n; i++) {
		t = i < q->nv6_ext ? q->v6_ext[i] : IPPROTO_FRAGMENT;
		*nh = t;
		len = ext_len(t);
		memset(p, 0, len);
		nh = p;
		if (t == IPPROTO_FRAGMENT) {
			put16(p + 2, q->v6_frag_off);
			memcpy(p + 4, "\x12\x34\x56\x78", 4);
		} else if (t == IPPROTO_ROUTING) {
			p[3] = q->v6_rt_left;
		} else {
			p[1] = len / 8 - 1;
			p[2] = 1; /* PadN over the rest */
			p[3] = len - 4;
		}
		p += len;
	}
	*nh = proto;
}

size_t dns_query(const struct dns_q *q, __u8 *buf)
{
	size_t off, l3, l4len, mlen, iplen;
	size_t hlen = dns_ip_hlen(q);
	__u8 *ip, *l4;
	__u32 sum;

	memset(buf, 0, DNS_PKT_MAX);
	off = put_eth(q, buf);
	l3 = off;
	ip = buf + l3;
	l4 = ip + hlen;
	mlen = put_msg(q, l4 + (q->tcp ? 22 : 8));
	l4len = put_l4(q, l4, mlen);
	iplen = hlen + (q->frag_bytes ? q->frag_bytes : l4len);
	if (q_v6(q)) {
		ip[0] = 0x60;
		put16(ip + 4, iplen - 40);
		put_v6_ext(q, ip + 40, ip + 6,
			   q->tcp ? IPPROTO_TCP : IPPROTO_UDP);
		ip[7] = 64;
		put_addrs(q, ip + 8, ip + 24, AF_INET6);
		sum = sum16(ip + 8, 32, 0);
	} else {
		ip[0] = 0x40 | hlen / 4;
		put16(ip + 2, iplen);
		if (q->ip_opts_len)
			memcpy(ip + 20, q->ip_opts, q->ip_opts_len);
		put16(ip + 4, 0x4242);
		put16(ip + 6, q->frag);
		ip[8] = 64;
		ip[9] = q->tcp ? IPPROTO_TCP : IPPROTO_UDP;
		put_addrs(q, ip + 12, ip + 16, AF_INET);
		put16(ip + 10, fold(sum16(ip, hlen, 0)));
		sum = sum16(ip + 12, 8, 0);
	}
	if (!q->tcp) {
		sum += IPPROTO_UDP + l4len;
		put16(l4 + 6, fold(sum16(l4, l4len, sum)) ?: 0xffff);
		/* After the checksum: a wrong length is the point. */
		put16(l4 + 4, l4len + q->udp_len_delta);
	}
	/* A first fragment: the rest of the datagram is not in the frame. */
	if (q->frag_bytes)
		memset(l4 + q->frag_bytes, 0, l4len - q->frag_bytes);
	return l3 + iplen + q->pad;
}

/* ---- runs and counters --------------------------------------------------- */

static int dns_stats(struct bw_dp *dp, struct bw_dns_stats *s)
{
	return bw_dns_stats_read(dp->maps.dns_stats, s);
}

static int run_out(struct bw_dp *dp, const void *pkt, size_t len, __u8 *out,
		   __u32 *out_len, __u32 *retval, const struct xdp_md *ctx)
{
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = pkt, .data_size_in = len,
		    .data_out = out, .data_size_out = DNS_PKT_MAX, .repeat = 1,
		    .ctx_in = ctx, .ctx_size_in = ctx ? sizeof(*ctx) : 0);

	if (bpf_prog_test_run_opts(dp->prog_fd, &t))
		return -errno;
	*retval = t.retval;
	*out_len = t.data_size_out;
	return 0;
}

static void check_deltas(const char *what, const struct dns_want *w,
			 const struct bw_stats *b, const struct bw_stats *a,
			 const struct bw_dns_stats *db,
			 const struct bw_dns_stats *da)
{
	const struct bw_stats_field *f;
	struct bw_stats d;
	char desc[200];
	size_t i;

	bw_outcome_delta(w->stats, &d);
	for (i = 0; i < bw_stats_nfields; i++) {
		f = &bw_stats_fields[i];
		snprintf(desc, sizeof(desc), "%s: stats %s delta", what,
			 f->name);
		ASSERT_EQ(bw_stats_get(a, f) - bw_stats_get(b, f),
			  bw_stats_get(&d, f), desc);
	}
	for (i = 0; i < bw_dns_stats_nfields; i++) {
		f = &bw_dns_stats_fields[i];
		snprintf(desc, sizeof(desc), "%s: dns_stats %s delta", what,
			 f->name);
		ASSERT_EQ(bw_dns_stats_get(da, f) - bw_dns_stats_get(db, f),
			  bw_dns_stats_get(&w->dns, f), desc);
	}
}

bool dns_expect(struct bw_dp *dp, const char *what, const void *pkt, size_t len,
		const struct dns_want *w, __u8 *out, __u32 *out_len)
{
	return dns_expect_ctx(dp, what, pkt, len, w, out, out_len, NULL);
}

bool dns_expect_ctx(struct bw_dp *dp, const char *what, const void *pkt,
		    size_t len, const struct dns_want *w, __u8 *out,
		    __u32 *out_len, const struct xdp_md *ctx)
{
	struct bw_dns_stats db, da;
	struct bw_stats b, a;
	int failed = bw_test_failed_asserts;
	__u32 retval = ~0U;
	char desc[200];

	if (!ASSERT_OK(bw_dp_stats(dp, &b), "stats") ||
	    !ASSERT_OK(dns_stats(dp, &db), "dns_stats") ||
	    !ASSERT_OK(run_out(dp, pkt, len, out, out_len, &retval, ctx),
		       what) ||
	    !ASSERT_OK(bw_dp_stats(dp, &a), "stats") ||
	    !ASSERT_OK(dns_stats(dp, &da), "dns_stats"))
		return false;
	snprintf(desc, sizeof(desc), "%s (len %zu): XDP action", what, len);
	ASSERT_EQ(retval, w->xdp, desc);
	check_deltas(what, w, &b, &a, &db, &da);
	if (w->xdp != XDP_TX) {
		snprintf(desc, sizeof(desc), "%s: frame unchanged", what);
		ASSERT_TRUE(*out_len == len && !memcmp(out, pkt, len), desc);
	}
	return bw_test_failed_asserts == failed;
}

static enum bw_outcome dropped(const struct dns_q *q)
{
	return q_v6(q) ? BW_OUT_DROP_V6 : BW_OUT_DROP_V4;
}

struct dns_want dns_want_pass(const struct dns_q *q)
{
	return (struct dns_want){ .xdp = XDP_PASS, .stats = BW_OUT_PASS };
}

struct dns_want dns_want_query(const struct dns_q *q)
{
	struct dns_want w = dns_want_pass(q);

	w.dns.queries = 1;
	return w;
}

struct dns_want dns_want_malformed(const struct dns_q *q)
{
	struct dns_want w = dns_want_pass(q);

	w.dns.malformed = 1;
	return w;
}

struct dns_want dns_want_blocked(const struct dns_q *q, __u8 action)
{
	struct dns_want w = { .stats = dropped(q) };

	w.xdp = action == BW_DNS_DROP ? XDP_DROP : XDP_TX;
	w.dns.queries = 1;
	w.dns.blocked[action] = 1;
	return w;
}

bool dns_expect_q(struct bw_dp *dp, const char *what, const struct dns_q *q,
		  const struct dns_want *w)
{
	static __u8 pkt[DNS_PKT_MAX], out[DNS_PKT_MAX];
	__u32 olen = 0;

	return dns_expect(dp, what, pkt, dns_query(q, pkt), w, out, &olen);
}

bool dns_expect_blocked(struct bw_dp *dp, const char *what,
			const struct dns_q *q, __u8 action, __u32 ttl)
{
	static __u8 pkt[DNS_PKT_MAX], out[DNS_PKT_MAX];
	struct dns_want w = dns_want_blocked(q, action);
	size_t len = dns_query(q, pkt);
	__u32 olen = 0;

	if (!dns_expect(dp, what, pkt, len, &w, out, &olen))
		return false;
	if (w.xdp != XDP_TX)
		return true;
	return dns_check_answer(what, q, pkt, len, out, olen, action, ttl);
}
