// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Building filters into the kernel, attaching and detaching the program.
 *
 * The order matters: the program is loaded with its first filter as its own
 * map before it goes onto the interface, so no packet ever meets an
 * attached program without a filter. A reload loads a new program for the
 * new filter and replaces the old one on the hook in one atomic update.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_link.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "attach.h"
#include "bloomwall.h"
#include "bloomwall.skel.h"
#include "cli.h"
#include "list.h"
#include "log.h"
#include "lpm.h"
#include "pin.h"

/* ---- building ---------------------------------------------------------- */

static int load_files(char *const *files, int n, const struct bw_list_opts *lo,
		      struct bw_list *l)
{
	int i, err;

	for (i = 0; i < n; i++) {
		err = bw_list_load(l, files[i], lo);
		if (err == -ENOMEM)
			pr_warn("%s: out of memory while reading the list\n",
				files[i]);
		if (err)
			return err;
	}
	bw_list_finish(l);
	return 0;
}

/* "10" or "8-12": the probes per key over the regions in use. */
static void probes_str(const struct bw_plan *p, char *buf, size_t len)
{
	unsigned int lo = BW_MAX_PROBES, hi = 0, r;

	for (r = 0; r < BW_REGIONS; r++) {
		if (p->hdr.region_end[r] == bw_region_start(&p->hdr, r))
			continue;
		lo = p->hdr.probes[r] < lo ? p->hdr.probes[r] : lo;
		hi = p->hdr.probes[r] > hi ? p->hdr.probes[r] : hi;
	}
	if (!hi)
		snprintf(buf, len, "no");
	else if (lo == hi)
		snprintf(buf, len, "%u", hi);
	else
		snprintf(buf, len, "%u-%u", lo, hi);
}

/* "IPv4 /32 /24, IPv6 /48": the target lengths of the families present. */
static void targets_str(const struct bw_hdr *hdr, char *buf, size_t len)
{
	size_t n = 0;
	int f, i;

	buf[0] = '\0';
	for (f = 0; f < BW_FAMILIES; f++) {
		if (!hdr->nlengths[f])
			continue;
		n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
			      f == BW_V4 ? "IPv4" : "IPv6");
		for (i = 0; i < hdr->nlengths[f] && n < len; i++)
			n += snprintf(buf + n, len - n, " /%u",
				      hdr->plen[f][i]);
		if (n >= len)
			return;
	}
	if (!n)
		snprintf(buf, len, "none");
}

static void print_summary(const struct bw_build_req *req,
			  const struct bw_plan *p, size_t dups, size_t skipped,
			  const struct bw_cidr_stats *st)
{
	__u64 merged = st->fam[BW_V4].merged + st->fam[BW_V6].merged;
	char probes[16], targets[96];

	probes_str(p, probes, sizeof(probes));
	targets_str(&p->hdr, targets, sizeof(targets));
	printf("%s: filter generation %llu: %'llu prefixes (%'zu duplicates removed, %'zu lines skipped), %'llu after merging, %'llu entries at target lengths %s (x%.2f), %'u blocks (%'llu bytes), %s probe%s per key, target fpr %g%%\n",
	       req->iface, (unsigned long long)p->info.generation,
	       (unsigned long long)p->info.source_entries, dups, skipped,
	       (unsigned long long)merged, (unsigned long long)p->info.entries,
	       targets,
	       p->info.source_entries
		       ? (double)p->info.entries / p->info.source_entries
		       : 1.0,
	       p->nblocks, (unsigned long long)p->nblocks * BW_BLOCK_BYTES,
	       probes, strcmp(probes, "1") ? "s" : "", req->opts.fpr * 100.0);
	if (!p->info.entries)
		pr_warn("warning: the lists hold no entries: the filter on %s passes everything\n",
			req->iface);
}

/* A /0 after merging is the whole family: say so, it is rarely meant. */
static void warn_everything(const struct bw_build_req *req,
			    const struct bw_cidr_stats *st)
{
	int f;

	for (f = 0; f < BW_FAMILIES; f++)
		if (st->fam[f].merged && st->fam[f].shortest == 0)
			pr_warn("warning: %s: the lists hold %s: the filter drops every %s packet\n",
				req->iface, f == BW_V4 ? "0.0.0.0/0" : "::/0",
				f == BW_V4 ? "IPv4" : "IPv6");
}

static void explain_plan_error(int err, const struct bw_build_req *req)
{
	if (err == -E2BIG)
		pr_warn("%s: the filter would exceed %u blocks (%u MiB); use fewer entries, a higher --fpr or fewer target lengths (--max-lengths)\n",
			req->iface, BW_MAX_BLOCKS,
			(unsigned int)((BW_MAX_BLOCKS *
					(__u64)BW_BLOCK_BYTES) >>
				       20));
	else
		pr_warn("%s: cannot size the filter: %s\n", req->iface,
			strerror(-err));
}

void bw_build_req_init(struct bw_build_req *req, const struct bw_args *a,
		       double fpr, __u16 flags, __u64 generation)
{
	int f;

	memset(req, 0, sizeof(*req));
	bw_build_opts_init(&req->opts);
	bw_cidr_opts_init(&req->cidr);
	req->iface = a->iface;
	req->lists = a->pos;
	req->nlists = a->npos;
	req->opts.fpr = a->fpr_set ? a->fpr : fpr;
	if (a->seed_set)
		req->opts.seed = a->seed;
	req->opts.flags = flags | (a->verify ? BW_F_VERIFY : 0);
	for (f = 0; f < BW_FAMILIES; f++)
		if (a->max_lengths[f])
			req->cidr.max_lengths[f] = a->max_lengths[f];
	req->skip_invalid = a->skip_invalid;
	req->mask_host_bits = a->mask_host_bits;
	req->generation = generation;
}

void bw_built_close(struct bw_built *b)
{
	bw_filter_close(&b->filter);
	if (b->exact_fd >= 0)
		close(b->exact_fd);
	b->exact_fd = -1;
}

/* Room for 'bloomwall add' on top: the trie allocates per entry anyway. */
static __u32 exact_cap(size_t n)
{
	__u64 cap = (__u64)n + BW_ALLOW_MAX;

	return cap > 0xffffffffULL ? 0xffffffffU : (__u32)cap;
}

/*
 * Verify mode: the exact trie holds the merged prefixes (as few entries as
 * cover the lists exactly), not the expanded keys. Merges src in place.
 */
static int build_exact(const struct bw_build_req *req, struct bw_list *src,
		       struct bw_built *b)
{
	size_t n;
	int err;

	bw_cidr_merge(src, NULL);
	n = src->n4 + src->n6;
	b->exact_fd = bw_lpm_create(BW_PIN_EXACT, exact_cap(n));
	if (b->exact_fd < 0) {
		err = b->exact_fd;
		b->exact_fd = -1;
		pr_warn("%s: cannot create the exact trie for --verify: %s\n",
			req->iface, bw_errno_hint(err));
		return err;
	}
	err = bw_lpm_fill(b->exact_fd, src);
	if (err) {
		pr_warn("%s: cannot fill the exact trie (%'zu prefixes) for --verify: %s\n",
			req->iface, n, bw_errno_hint(err));
		return err;
	}
	b->exact_entries = n;
	return 0;
}

static int plan_and_fill(const struct bw_build_req *req,
			 const struct bw_list *keys,
			 const struct bw_cidr_stats *st, struct bw_plan *plan,
			 struct bw_built *b)
{
	int err;

	err = bw_plan_filter(keys, &req->opts, plan);
	if (err) {
		explain_plan_error(err, req);
		return err;
	}
	plan->info.generation = req->generation;
	plan->info.source_entries =
		st->fam[BW_V4].source + st->fam[BW_V6].source;
	plan->hdr.exact_slot = req->exact_slot;
	err = bw_filter_create(plan->nblocks, &b->filter);
	if (err)
		return err;
	bw_fill_filter(b->filter.mem, plan, keys);
	return 0;
}

int bw_build_lists(const struct bw_build_req *req, struct bw_built *b)
{
	struct bw_list_opts lo = { .skip_invalid = req->skip_invalid,
				   .allow_cidr = true,
				   .mask_host_bits = req->mask_host_bits };
	struct bw_cidr_stats st;
	struct bw_list src, keys;
	struct bw_plan plan;
	size_t dups, skipped;
	int err;

	bw_list_init(&src);
	bw_list_init(&keys);
	err = load_files(req->lists, req->nlists, &lo, &src);
	if (!err) {
		err = bw_cidr_prepare(&src, &req->cidr, &keys, &st);
		if (err && err != -E2BIG)
			pr_warn("%s: cannot expand the prefixes: %s\n",
				req->iface, bw_errno_hint(err));
	}
	if (!err)
		warn_everything(req, &st);
	if (!err)
		err = plan_and_fill(req, &keys, &st, &plan, b);
	dups = src.duplicates;
	skipped = src.skipped;
	if (!err && (req->opts.flags & BW_F_VERIFY))
		err = build_exact(req, &src, b);
	if (!err)
		print_summary(req, &plan, dups, skipped, &st);
	if (!err && b->exact_fd >= 0)
		printf("%s: verify mode: exact trie of %'llu prefixes\n",
		       req->iface, (unsigned long long)b->exact_entries);
	bw_list_free(&keys);
	bw_list_free(&src);
	if (err)
		bw_built_close(b);
	return err;
}

int bw_load_allow(const char *iface, const char *const *files, int n,
		  bool mask_host_bits, struct bw_list *l)
{
	struct bw_list_opts lo = { .allow_cidr = true,
				   .mask_host_bits = mask_host_bits };
	int err;

	err = load_files((char *const *)files, n, &lo, l);
	if (err) {
		pr_warn("%s: the allowlist is not usable; nothing changed\n",
			iface);
		return err;
	}
	if (l->n4 + l->n6 > BW_ALLOW_MAX) {
		pr_warn("%s: the allowlist holds %'zu entries, more than the %'u it can hold\n",
			iface, l->n4 + l->n6, BW_ALLOW_MAX);
		return -E2BIG;
	}
	return 0;
}

int bw_open_pinned_map(const char *iface, const char *name)
{
	int fd = bw_pin_open(iface, name);

	if (fd >= 0)
		return fd;
	if (fd != -ENOENT || !bw_pin_dir_exists(iface)) {
		if (fd == -ENOENT)
			return bw_explain_not_attached(iface);
		pr_warn("%s: cannot open %s/%s/%s: %s\n", iface, BW_PIN_ROOT,
			iface, name, bw_errno_hint(fd));
		return fd;
	}
	pr_warn("%s: bloomwall is attached but has no '%s' map pinned (attached by an older version?). Run 'bloomwall detach %s' and attach again.\n",
		iface, name, iface);
	return fd;
}

int bw_open_maps(const char *iface, struct bw_maps *mp)
{
	struct {
		int *fd;
		const char *name;
	} pins[] = {
		{ &mp->filter, BW_PIN_FILTER },
		{ &mp->stats, BW_PIN_STATS },
		{ &mp->allow, BW_PIN_ALLOW },
		{ &mp->exact, BW_PIN_EXACT },
	};
	size_t i;

	for (i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) {
		*pins[i].fd = bw_open_pinned_map(iface, pins[i].name);
		if (*pins[i].fd < 0) {
			int err = *pins[i].fd;

			*pins[i].fd = -1;
			bw_maps_close(mp);
			return err;
		}
	}
	return 0;
}

/* ---- swapping ------------------------------------------------------------ */

/*
 * Before the swap: the new trie into the slot the running filter does not
 * use, the new allowlist entries added. Nothing a packet sees changes yet
 * (but the additions to the allowlist).
 */
static int stage(const struct bw_swap *c, __u8 slot, const struct bw_built *b,
		 bool *fresh, size_t *added)
{
	int err;

	if (b->exact_fd >= 0) {
		err = bw_exact_set(c->exact_fd, slot, b->exact_fd);
		if (err) {
			pr_warn("%s: cannot stage the exact trie: %s\n",
				c->iface, bw_errno_hint(err));
			return err;
		}
	}
	if (c->allow_fd < 0)
		return 0;
	err = bw_allow_add(c->allow_fd, c->allow, fresh, added);
	if (err) {
		pr_warn("%s: cannot add to the allowlist: %s\n", c->iface,
			bw_errno_hint(err));
		if (b->exact_fd >= 0)
			bw_exact_clear(c->exact_fd, slot);
	}
	return err;
}

/*
 * After the swap: the tries no filter names any more go (a packet still on
 * the old filter that finds no trie passes: counted as false_pos), and so
 * do the allowlist entries not in the new list.
 */
static void finish(const struct bw_swap *c, __u8 live, bool verify,
		   size_t added)
{
	size_t removed = 0;
	__u32 slot;
	int err;

	for (slot = 0; c->exact_fd >= 0 && slot < BW_EXACT_SLOTS; slot++) {
		if (verify && slot == live)
			continue;
		err = bw_exact_clear(c->exact_fd, slot);
		if (err)
			pr_warn("warning: %s: cannot free exact trie slot %u: %s\n",
				c->iface, slot, bw_errno_hint(err));
	}
	if (c->allow_fd < 0)
		return;
	err = bw_allow_prune(c->allow_fd, c->allow, &removed);
	if (err)
		pr_warn("warning: %s: cannot remove old allowlist entries: %s; 'bloomwall unallow' removes them\n",
			c->iface, bw_errno_hint(err));
	printf("%s: allowlist replaced: %'zu %s (%'zu added, %'zu removed)\n",
	       c->iface, c->allow->n4 + c->allow->n6,
	       bw_plural(c->allow->n4 + c->allow->n6, "entry", "entries"),
	       added, removed);
}

/* The data path reads the allowlist only when the header says it has entries. */
void bw_set_allow_flag(void *filter_mem, bool on)
{
	struct bw_hdr *hdr = filter_mem;

	if (on)
		__atomic_fetch_or(&hdr->flags, BW_F_ALLOW, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&hdr->flags, (__u16)~BW_F_ALLOW,
				   __ATOMIC_RELEASE);
}

void bw_say_unchanged(const char *iface, __u64 generation)
{
	if (generation)
		pr_warn("%s: nothing changed: the running filter (generation %llu) is as it was\n",
			iface, (unsigned long long)generation);
	else
		pr_warn("%s: nothing changed: the running filter is as it was\n",
			iface);
}

/* The swap failed: take back what stage() put in, so nothing has changed. */
static void unstage(const struct bw_swap *s, __u8 slot,
		    const struct bw_built *b, const bool *fresh)
{
	if (b->exact_fd >= 0)
		bw_exact_clear(s->exact_fd, slot);
	if (s->allow_fd >= 0)
		bw_allow_undo(s->allow_fd, s->allow, fresh);
}

int bw_swap_in(const struct bw_swap *s, const struct bw_built *b)
{
	const struct bw_hdr *hdr = b->filter.mem;
	const struct bw_info *info =
		(const void *)((char *)b->filter.mem + BW_BLOCK_BYTES);
	bool verify = b->exact_fd >= 0, *fresh = NULL;
	size_t added = 0;
	char old[32] = "the unreadable filter"; /* generation 0 */
	int err = 0;

	/* A replaced allowlist decides; else the builder kept the old flag. */
	if (s->allow_fd >= 0) {
		bw_set_allow_flag(b->filter.mem, s->allow->n4 + s->allow->n6);
		fresh = calloc(s->allow->n4 + s->allow->n6 ?: 1,
			       sizeof(*fresh));
		err = fresh ? 0 : -ENOMEM;
	}
	if (!err)
		err = stage(s, hdr->exact_slot, b, fresh, &added);
	if (!err) {
		err = bw_filter_commit(s->maps, &b->filter, s->installer);
		if (err) {
			pr_warn("%s: cannot swap in the new filter: %s\n",
				s->iface, bw_errno_hint(err));
			unstage(s, hdr->exact_slot, b, fresh);
		}
	}
	if (err) {
		bw_say_unchanged(s->iface, s->old_generation);
	} else {
		if (s->old_generation)
			snprintf(old, sizeof(old), "%llu",
				 (unsigned long long)s->old_generation);
		printf("%s: swapped in generation %llu (replaces %s)%s\n",
		       s->iface, (unsigned long long)info->generation, old,
		       verify ? ", verify mode" : "");
		finish(s, hdr->exact_slot, verify, added);
	}
	free(fresh);
	return err;
}

/* ---- the XDP hook -------------------------------------------------------- */

__u32 bw_obj_id(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	/* prog and map info both start with type, id. */
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
}

const char *bw_attached_mode_name(__u8 attach_mode)
{
	switch (attach_mode) {
	case XDP_ATTACHED_DRV:
		return "native";
	case XDP_ATTACHED_SKB:
		return "skb";
	case XDP_ATTACHED_HW:
		return "hw";
	case XDP_ATTACHED_MULTI:
		return "multi";
	default:
		return "none";
	}
}

/* Is our_id one of the programs behind a libxdp dispatcher on ifindex? */
static bool in_dispatcher(int ifindex, __u32 our_id)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	bool found = false;

	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (!mp || libxdp_get_error(mp))
		return false;
	if (!xdp_multiprog__is_legacy(mp)) {
		for (p = xdp_multiprog__next_prog(NULL, mp); p && !found;
		     p = xdp_multiprog__next_prog(p, mp))
			found = xdp_program__id(p) == our_id;
	}
	xdp_multiprog__close(mp);
	return found;
}

int bw_xdp_info(int ifindex, __u32 our_id, struct bw_xdp_info *x)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	memset(x, 0, sizeof(*x));
	if (bpf_xdp_query(ifindex, 0, &q))
		return -errno;
	x->attach_mode = q.attach_mode;
	x->prog_id = q.prog_id ?: q.drv_prog_id ?: q.skb_prog_id ?: q.hw_prog_id;
	if (!our_id || !x->prog_id)
		return 0;
	x->ours = q.prog_id == our_id || q.drv_prog_id == our_id ||
		  q.skb_prog_id == our_id || q.hw_prog_id == our_id;
	if (!x->ours && in_dispatcher(ifindex, our_id))
		x->ours = x->dispatcher = true;
	return 0;
}

/* ---- attach -------------------------------------------------------------- */

struct attach_ctx {
	const char *iface;
	int ifindex;
	enum xdp_attach_mode mode;
	struct bloomwall *skel;
	struct xdp_program *xprog;
	int exact_fd; /* outer map of the exact tries */
	int allow_fd;
	int link_fd;
	int prog_fd;
	bool xdp_attached;
	char libxdp_err[128];
};

/* The first filter is the program's own map: no copy, no swap. */
static int reuse_filter(struct attach_ctx *c, const struct bw_filter_map *f)
{
	int err = bpf_map__reuse_fd(c->skel->maps.blocks, f->fd);

	if (!err)
		err = bw_prog_specialise(c->skel, f);

	if (err)
		pr_warn("%s: cannot hand the filter to the program: %s\n",
			c->iface, strerror(-err));
	return err;
}

/*
 * The program loaded with its filter and the filter's id in the registry:
 * from here on it can go onto the interface.
 */
static int load_program(struct attach_ctx *c, const struct bw_filter_map *f)
{
	__u32 key = 0;
	int err;

	err = bloomwall__load(c->skel);
	if (err) {
		pr_warn("%s: cannot load the XDP program: %s (run with -v for the verifier's log)\n",
			c->iface, bw_errno_hint(err));
		return err;
	}
	if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.filter), &key, &f->id,
				BPF_ANY)) {
		err = -errno;
		pr_warn("%s: cannot put the filter in place: %s\n", c->iface,
			bw_errno_hint(err));
		return err;
	}
	c->prog_fd = bpf_program__fd(c->skel->progs.bloomwall_xdp);
	return 0;
}

/*
 * The exact tries' outer map, also ours: in verify mode the first trie is
 * in the slot the filter names before the program can read it. Without
 * verify a one-entry trie serves as the inner template only.
 */
static int create_exact(struct attach_ctx *c, const struct bw_built *b)
{
	const struct bw_hdr *hdr = b->filter.mem;
	int tmpl = b->exact_fd, err = 0;

	if (tmpl < 0)
		tmpl = bw_lpm_create("exact_tmpl", 1);
	c->exact_fd = tmpl < 0 ? tmpl : bw_exact_outer_create(tmpl);
	if (c->exact_fd >= 0 && b->exact_fd >= 0)
		err = bw_exact_set(c->exact_fd, hdr->exact_slot, b->exact_fd);
	if (tmpl >= 0 && tmpl != b->exact_fd)
		close(tmpl);
	if (c->exact_fd < 0 || err) {
		err = c->exact_fd < 0 ? c->exact_fd : err;
		pr_warn("%s: cannot create the exact trie's outer map: %s\n",
			c->iface, bw_errno_hint(err));
		return err;
	}
	err = bpf_map__reuse_fd(c->skel->maps.exact, c->exact_fd);
	if (err)
		pr_warn("%s: cannot hand the exact trie to the program: %s\n",
			c->iface, strerror(-err));
	return err;
}

/*
 * The allowlist, filled after the load and before the attach: the program
 * sees no packet before it is complete. libbpf creates the trie with the
 * object's BTF, so bpftool shows its keys by field.
 */
static int fill_allow(struct attach_ctx *c, const struct bw_list *allow)
{
	size_t added = 0;
	int err = 0;

	c->allow_fd = dup(bpf_map__fd(c->skel->maps.allow));
	if (c->allow_fd < 0)
		err = -errno;
	else if (allow)
		err = bw_allow_add(c->allow_fd, allow, NULL, &added);
	if (err) {
		pr_warn("%s: cannot fill the allowlist: %s\n", c->iface,
			bw_errno_hint(err));
		return err;
	}
	if (allow)
		printf("%s: allowlist: %'zu %s\n", c->iface, added,
		       bw_plural(added, "entry", "entries"));
	return 0;
}

static int attach_libxdp(struct attach_ctx *c)
{
	int err;

	c->xprog = xdp_program__from_fd(c->prog_fd);
	err = libxdp_get_error(c->xprog);
	if (err) {
		c->xprog = NULL;
		libxdp_strerror(err, c->libxdp_err, sizeof(c->libxdp_err));
		return err;
	}
	err = xdp_program__attach(c->xprog, c->ifindex, c->mode, 0);
	if (err) {
		libxdp_strerror(err, c->libxdp_err, sizeof(c->libxdp_err));
		return err;
	}
	c->xdp_attached = true;
	return 0;
}

static __u32 mode_flags(enum xdp_attach_mode mode)
{
	if (mode == XDP_MODE_NATIVE)
		return XDP_FLAGS_DRV_MODE;
	if (mode == XDP_MODE_SKB)
		return XDP_FLAGS_SKB_MODE;
	return 0;
}

/* When libxdp fails entirely: a bpf_link of our own, pinned below. */
static int attach_link(struct attach_ctx *c)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = mode_flags(c->mode));
	int err;

	c->link_fd = bpf_link_create(c->prog_fd, c->ifindex, BPF_XDP, &opts);
	if (c->link_fd < 0) {
		err = -errno;
		pr_warn("%s: cannot attach the XDP program (libxdp: %s; plain attach: %s)\n",
			c->iface, c->libxdp_err, bw_errno_hint(err));
		return err;
	}
	return 0;
}

static int pin_all(struct attach_ctx *c)
{
	int err;

	err = bw_pin_dir_create(c->iface);
	if (err) {
		pr_warn("%s: cannot create %s/%s: %s\n", c->iface, BW_PIN_ROOT,
			c->iface, strerror(-err));
		return err;
	}
	err = bw_pin_fd(c->prog_fd, c->iface, BW_PIN_PROG);
	if (!err)
		err = bw_pin_fd(bpf_map__fd(c->skel->maps.filter), c->iface,
				BW_PIN_FILTER);
	if (!err)
		err = bw_pin_fd(bpf_map__fd(c->skel->maps.stats), c->iface,
				BW_PIN_STATS);
	if (!err)
		err = bw_pin_fd(c->allow_fd, c->iface, BW_PIN_ALLOW);
	if (!err)
		err = bw_pin_fd(c->exact_fd, c->iface, BW_PIN_EXACT);
	if (!err && c->link_fd >= 0)
		err = bw_pin_fd(c->link_fd, c->iface, BW_PIN_LINK);
	return err;
}

static void report_attach(const struct attach_ctx *c)
{
	struct bw_xdp_info x;
	__u32 id = bw_obj_id(c->prog_fd);
	const char *how;

	bw_xdp_info(c->ifindex, id, &x);
	if (c->link_fd >= 0) {
		printf("%s: attached in %s mode (bpf_link of bloomwall's own; libxdp: %s), program id %u\n",
		       c->iface, bw_attached_mode_name(x.attach_mode),
		       c->libxdp_err, id);
		return;
	}
	if (x.dispatcher)
		how = "through the libxdp dispatcher";
	else if (getenv("LIBXDP_SKIP_DISPATCHER"))
		how = "plain attach: LIBXDP_SKIP_DISPATCHER is set";
	else
		how = "plain attach: libxdp dispatcher unavailable";
	printf("%s: attached in %s mode (%s), program id %u\n", c->iface,
	       bw_attached_mode_name(x.attach_mode), how, id);
}

/* Undoes a half-done attach: nothing of it stays on the interface. */
static void undo_attach(struct attach_ctx *c)
{
	bw_unpin_all(c->iface);
	if (c->xdp_attached)
		xdp_program__detach(c->xprog, c->ifindex, c->mode, 0);
	if (c->link_fd >= 0)
		close(c->link_fd); /* an unpinned link detaches on close */
	c->link_fd = -1;
}

static void close_ctx(struct attach_ctx *c)
{
	int *fds[] = { &c->link_fd, &c->exact_fd, &c->allow_fd };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	xdp_program__close(c->xprog);
	bloomwall__destroy(c->skel);
}

int bw_attach(const char *iface, int ifindex, enum xdp_attach_mode mode,
	      bool own_link, const struct bw_built *b,
	      const struct bw_list *allow)
{
	struct attach_ctx c = { .iface = iface,
				.ifindex = ifindex,
				.mode = mode,
				.exact_fd = -1,
				.allow_fd = -1,
				.link_fd = -1,
				.prog_fd = -1 };
	int err;

	bw_set_allow_flag(b->filter.mem, allow && allow->n4 + allow->n6);
	c.skel = bloomwall__open();
	if (!c.skel) {
		err = -errno;
		pr_warn("%s: cannot open the BPF object: %s\n", iface,
			strerror(-err));
		return err;
	}
	err = reuse_filter(&c, &b->filter);
	if (!err)
		err = create_exact(&c, b);
	if (!err)
		err = load_program(&c, &b->filter);
	if (!err)
		err = fill_allow(&c, allow);
	if (!err && own_link) {
		snprintf(c.libxdp_err, sizeof(c.libxdp_err),
			 "not used (--link)");
		err = attach_link(&c);
	} else if (!err && attach_libxdp(&c)) {
		pr_debug("libxdp attach failed (%s); trying a plain bpf_link\n",
			 c.libxdp_err);
		err = attach_link(&c);
	}
	if (!err)
		err = pin_all(&c);
	if (err)
		undo_attach(&c);
	else
		report_attach(&c);
	close_ctx(&c);
	return err;
}

/* ---- detach -------------------------------------------------------------- */

static __u32 attached_flags(__u8 attach_mode)
{
	if (attach_mode == XDP_ATTACHED_SKB)
		return XDP_FLAGS_SKB_MODE;
	if (attach_mode == XDP_ATTACHED_HW)
		return XDP_FLAGS_HW_MODE;
	return XDP_FLAGS_DRV_MODE;
}

static int detach_dispatcher(const char *iface, int ifindex, __u32 id)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	int err;

	p = xdp_program__from_id(id);
	err = libxdp_get_error(p);
	if (err)
		return err;
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	err = libxdp_get_error(mp);
	if (!err) {
		err = xdp_program__detach(p, ifindex,
					  xdp_multiprog__attach_mode(mp), 0);
		xdp_multiprog__close(mp);
	}
	xdp_program__close(p);
	return err;
}

/*
 * Behind a libxdp dispatcher: the new program in before the old one goes
 * (libxdp swaps the whole dispatcher each time), so a packet meets both
 * filters or one, never neither.
 */
static int replace_in_dispatcher(const struct bw_hook *h, int old_fd,
				 int new_fd)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	enum xdp_attach_mode mode;
	int err;

	mp = xdp_multiprog__get_from_ifindex(h->ifindex);
	err = libxdp_get_error(mp);
	if (err)
		return err;
	mode = xdp_multiprog__attach_mode(mp);
	xdp_multiprog__close(mp);
	p = xdp_program__from_fd(new_fd);
	err = libxdp_get_error(p);
	if (err)
		return err;
	err = xdp_program__attach(p, h->ifindex, mode, 0);
	xdp_program__close(p);
	if (err)
		return err;
	err = detach_dispatcher(h->iface, h->ifindex, bw_obj_id(old_fd));
	if (err)
		pr_warn("warning: %s: the new filter runs, but the old program (id %u) is still in the dispatcher: %s\n",
			h->iface, bw_obj_id(old_fd), bw_errno_hint(err));
	return 0;
}

/* Plain attach: replace exactly our program with nothing, never another. */
static int detach_plain(int ifindex, int prog_fd, __u8 attach_mode)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = prog_fd);

	if (bpf_xdp_detach(ifindex, attached_flags(attach_mode), &opts))
		return -errno;
	return 0;
}

static int detach_link(const char *iface)
{
	int fd, err = 0;

	fd = bw_pin_open(iface, BW_PIN_LINK);
	if (fd < 0)
		return fd;
	if (bpf_link_detach(fd))
		err = -errno;
	close(fd);
	return err;
}

/* Takes our program off the hook; *gone when it was not there at all. */
static int detach_prog(const char *iface, int ifindex, int prog_fd)
{
	__u32 id = bw_obj_id(prog_fd);
	struct bw_xdp_info x;
	int err;

	err = bw_xdp_info(ifindex, id, &x);
	if (err)
		return err;
	if (!x.ours) {
		if (x.prog_id)
			pr_warn("%s: the XDP program there (id %u) is not bloomwall's; left it alone\n",
				iface, x.prog_id);
		else
			pr_warn("%s: bloomwall's program was no longer attached\n",
				iface);
		return 0;
	}
	if (bw_pin_exists(iface, BW_PIN_LINK))
		err = detach_link(iface);
	else if (x.dispatcher)
		err = detach_dispatcher(iface, ifindex, id);
	else
		err = detach_plain(ifindex, prog_fd, x.attach_mode);
	if (err)
		pr_warn("%s: cannot detach the XDP program (id %u): %s\n",
			iface, id, bw_errno_hint(err));
	return err;
}

int bw_detach(const char *iface, int ifindex)
{
	int prog_fd, err = 0;

	prog_fd = bw_pin_open(iface, BW_PIN_PROG);
	if (!ifindex)
		printf("%s: the interface is gone; removing the pins it left behind\n",
		       iface);
	else if (prog_fd < 0)
		pr_warn("%s: no pinned program (%s/%s/%s missing); removing the remaining pins\n",
			iface, BW_PIN_ROOT, iface, BW_PIN_PROG);
	else
		err = detach_prog(iface, ifindex, prog_fd);
	if (prog_fd >= 0)
		close(prog_fd);
	if (err)
		return err;
	return bw_unpin_all(iface);
}

/* ---- replacing the program on the hook -------------------------------- */

/* The program on the hook is old_fd; make it new_fd, in one step. */
static int replace_prog(const struct bw_hook *h, int old_fd, int new_fd)
{
	LIBBPF_OPTS(bpf_link_update_opts, lo, .old_prog_fd = old_fd,
		    .flags = BPF_F_REPLACE);
	LIBBPF_OPTS(bpf_xdp_attach_opts, xo, .old_prog_fd = old_fd);
	struct bw_xdp_info x;
	int fd, err;

	fd = bw_pin_open(h->iface, BW_PIN_LINK);
	if (fd >= 0) {
		err = bpf_link_update(fd, new_fd, &lo) ? -errno : 0;
		close(fd);
		return err;
	}
	err = bw_xdp_info(h->ifindex, bw_obj_id(old_fd), &x);
	if (err || !x.ours)
		return err;
	if (x.dispatcher)
		return replace_in_dispatcher(h, old_fd, new_fd);
	if (bpf_xdp_attach(h->ifindex, new_fd,
			   XDP_FLAGS_REPLACE | attached_flags(x.attach_mode),
			   &xo))
		return -errno;
	return 0;
}

/* The prog pin names new_fd: pinned beside (bpffs refuses dots in names), then renamed over the old. */
static int repin_prog(const char *iface, int new_fd)
{
	char tmp[256], path[256];
	int err;

	err = bw_pin_path(tmp, sizeof(tmp), iface, BW_PIN_PROG "_new");
	if (!err)
		err = bw_pin_path(path, sizeof(path), iface, BW_PIN_PROG);
	if (err)
		return err;
	unlink(tmp);
	if (bpf_obj_pin(new_fd, tmp))
		return -errno;
	if (rename(tmp, path)) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}

static int install_on_hook(void *ctx, int new_fd)
{
	const struct bw_hook *h = ctx;
	int old_fd, err;

	old_fd = bw_pin_open(h->iface, BW_PIN_PROG);
	if (old_fd < 0)
		return old_fd;
	err = replace_prog(h, old_fd, new_fd);
	if (!err) {
		err = repin_prog(h->iface, new_fd);
		/* Put the old one back: the pin must name what runs. */
		if (err && replace_prog(h, new_fd, old_fd))
			pr_warn("%s: the new program runs but is not pinned, and the old one could not be put back: run 'bloomwall detach %s' and attach again\n",
				h->iface, h->iface);
	}
	close(old_fd);
	return err;
}

void bw_hook_installer(struct bw_hook *hook, struct bw_installer *in)
{
	in->install = install_on_hook;
	in->ctx = hook;
}

int bw_running_allow_flag(const char *iface, int ifindex, bool on)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_hook hook = { .iface = iface, .ifindex = ifindex };
	struct bw_maps maps = BW_MAPS_INIT;
	struct bw_installer in;
	struct bw_hdr *hdr;
	int registry = -1, err;

	err = bw_open_running(iface, true, &registry, &m);
	if (err)
		return err;
	hdr = m.mem;
	if (!!(hdr->flags & BW_F_ALLOW) == on)
		goto out;
	err = bw_open_maps(iface, &maps);
	if (err)
		goto out;
	bw_hook_installer(&hook, &in);
	bw_set_allow_flag(m.mem, on);
	err = bw_filter_commit(&maps, &m, &in);
	if (err)
		bw_set_allow_flag(m.mem, !on);
out:
	bw_maps_close(&maps);
	bw_filter_close(&m);
	if (registry >= 0)
		close(registry);
	return err;
}

/* ---- pinned state -------------------------------------------------------- */

const char *bw_prog_name(__u32 id, char *buf, size_t len)
{
	struct bpf_prog_info info = {};
	__u32 ilen = sizeof(info);
	int fd;

	buf[0] = '\0';
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return buf;
	if (!bpf_obj_get_info_by_fd(fd, &info, &ilen))
		snprintf(buf, len, "%s", info.name);
	close(fd);
	return buf;
}

__u32 bw_unpinned_prog(int ifindex)
{
	struct bw_xdp_info x;
	char name[BPF_OBJ_NAME_LEN];

	if (bw_xdp_info(ifindex, 0, &x) || !x.prog_id)
		return 0;
	bw_prog_name(x.prog_id, name, sizeof(name));
	return strcmp(name, "bloomwall_xdp") ? 0 : x.prog_id;
}

int bw_detach_unpinned(const char *iface, int ifindex, __u32 id)
{
	struct bw_xdp_info x;
	int fd, err;

	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	err = bw_xdp_info(ifindex, id, &x);
	if (!err)
		err = detach_plain(ifindex, fd, x.attach_mode);
	close(fd);
	if (err)
		pr_warn("%s: cannot detach the XDP program (id %u): %s\n",
			iface, id, bw_errno_hint(err));
	return err;
}

int bw_explain_not_attached(const char *iface)
{
	__u32 id = 0;
	int ifindex = (int)if_nametoindex(iface);

	if (ifindex)
		id = bw_unpinned_prog(ifindex);
	if (id)
		pr_warn("%s: a bloomwall program (id %u) is attached but its pins under %s/%s are gone (was it attached from 'ip netns exec', whose /sys is private?). Remove it with 'bloomwall detach %s'.\n",
			iface, id, BW_PIN_ROOT, iface, iface);
	else
		pr_warn("%s: bloomwall is not attached (nothing pinned at %s/%s). Try 'bloomwall status', or 'bloomwall attach %s LIST...'.\n",
			iface, BW_PIN_ROOT, iface, iface);
	return -ENOENT;
}

static int open_running(const char *iface, bool writable, int *registry_fd,
			struct bw_filter_map *m, bool quiet_invalid)
{
	int err;

	*registry_fd = bw_pin_open(iface, BW_PIN_FILTER);
	if (*registry_fd == -ENOENT) {
		return bw_explain_not_attached(iface);
	}
	if (*registry_fd < 0) {
		pr_warn("%s: cannot open %s/%s/%s: %s\n", iface, BW_PIN_ROOT,
			iface, BW_PIN_FILTER, bw_errno_hint(*registry_fd));
		return *registry_fd;
	}
	err = bw_filter_open_current(*registry_fd, writable, m);
	if (!err && bw_filter_check(m->mem, m->nblocks))
		err = -EINVAL;
	if (err && !(quiet_invalid && err == -EINVAL))
		pr_warn("%s: cannot read the running filter: %s. Rebuild it with 'bloomwall reload %s LIST...'.\n",
			iface,
			err == -EINVAL ? "it is not a valid bloomwall filter"
				       : bw_errno_hint(err),
			iface);
	if (err) {
		bw_filter_close(m);
		close(*registry_fd);
		*registry_fd = -1;
	}
	return err;
}

int bw_open_running(const char *iface, bool writable, int *registry_fd,
		    struct bw_filter_map *m)
{
	return open_running(iface, writable, registry_fd, m, false);
}

int bw_open_running_or_invalid(const char *iface, int *registry_fd,
			       struct bw_filter_map *m)
{
	return open_running(iface, false, registry_fd, m, true);
}
