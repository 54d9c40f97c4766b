// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The swap: commit a filter (load its program, install it, record its id),
 * with the exact trie and allowlist staged around it.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bloomwall.h"
#include "kernel/egress.h"
#include "kernel/hook.h"
#include "kernel/hooks_guard.h"
#include "base/log.h"
#include "kernel/lpm.h"
#include "kernel/pin.h"
#include "kernel/running.h"
#include "kernel/swap.h"

/* ---- installing a program ------------------------------------------------ */

int bw_keep_prog(void *fd_ptr, int prog_fd, int tc_fd,
		 const struct bw_maps *maps)
{
	int *kept = fd_ptr, fd = dup(prog_fd);

	(void)maps;
	(void)tc_fd;
	if (fd < 0)
		return -errno;
	if (*kept >= 0)
		close(*kept);
	*kept = fd;
	return 0;
}

/* The egress half of a swap; on failure the XDP hook goes back. */
static int install_egress(const struct bw_running *r, int new_fd, int tc_fd)
{
	int err, back;

	err = bw_egress_attach(r->ifindex, tc_fd);
	if (!err)
		return 0;
	pr_warn("%s: cannot replace the egress program: %s\n", r->iface,
		bw_errno_hint(err));
	back = bw_hook_replace(r->iface, r->ifindex, r->link_fd, new_fd,
			       r->prog_fd);
	if (back)
		pr_warn("%s: and cannot give the XDP hook its old program back: %s\n",
			r->iface, bw_errno_hint(back));
	return err;
}

/*
 * Both hooks under a guard (hooks_guard.h): the XDP hook is the commit
 * point, and a command that ends before both are swapped leaves the
 * egress hook to follow it. Without an egress program, no guard.
 */
static int install_on_hook(void *ctx, int new_fd, int tc_fd,
			   const struct bw_maps *maps)
{
	const struct bw_running *r = ctx;
	struct bw_hooks_state old = { r->prog_id, r->egress.prog_fd },
			      new = { bw_obj_id(new_fd), tc_fd };
	struct bw_guard g;
	int err;

	err = bw_guard_start(&g, r->iface, r->ifindex, &old, &new);
	if (!err)
		err = bw_hook_replace(r->iface, r->ifindex, r->link_fd,
				      r->prog_fd, new_fd);
	if (!err && tc_fd >= 0)
		err = install_egress(r, new_fd, tc_fd);
	bw_guard_end(&g, !err);
	if (err)
		return err;
	/* The hook is the truth: pins that lag behind are only a warning. */
	bw_pins_sync(r->iface, new_fd, maps, r->link_fd, true);
	bw_unpin_others(r->iface, r->prog_id);
	return 0;
}

void bw_hook_installer(const struct bw_running *r, struct bw_installer *in)
{
	in->install = install_on_hook;
	in->ctx = (void *)r;
	in->egress = r->egress.prog_fd >= 0 ? &r->egress : NULL;
}

int bw_filter_commit(const struct bw_maps *mp, const struct bw_filter_map *m,
		     const struct bw_installer *in)
{
	int prog, tc = -1, err;

	if (!m->id)
		return -EINVAL;
	prog = bw_prog_load_pair(mp, m, in->egress, &tc);
	if (prog < 0)
		return prog;
	err = in->install(in->ctx, prog, tc, bw_maps_complete(mp) ? mp : NULL);
	close(prog);
	if (tc >= 0)
		close(tc);
	return err;
}

/* ---- a built filter ------------------------------------------------------ */

void bw_built_close(struct bw_built *b)
{
	bw_filter_close(&b->filter);
	if (b->exact_fd >= 0)
		close(b->exact_fd);
	b->exact_fd = -1;
	bw_list_free(&b->allow_names);
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

/* ---- staging around the swap --------------------------------------------- */

/*
 * After the swap: the trie no filter names any more goes (a packet still
 * on the old filter that finds no trie passes: counted as false_pos).
 */
static void clear_old_slots(const struct bw_swap *s, __u8 live, bool verify)
{
	__u32 slot;
	int err;

	for (slot = 0; s->maps->exact >= 0 && slot < BW_EXACT_SLOTS; slot++) {
		if (verify && slot == live)
			continue;
		err = bw_exact_clear(s->maps->exact, slot);
		if (err)
			pr_warn("warning: %s: cannot free exact trie slot %u: %s\n",
				s->iface, slot, bw_errno_hint(err));
	}
}

int bw_swap_in(const struct bw_swap *s, const struct bw_built *b)
{
	const struct bw_hdr *hdr = b->filter.mem;
	bool verify = b->exact_fd >= 0;
	int err = 0;

	/* Into the slot the running filter does not read: nothing changes. */
	if (verify) {
		err = bw_exact_set(s->maps->exact, hdr->exact_slot,
				   b->exact_fd);
		if (err)
			pr_warn("%s: cannot stage the exact trie: %s\n",
				s->iface, bw_errno_hint(err));
	}
	if (!err) {
		err = bw_filter_commit(s->maps, &b->filter, s->installer);
		if (err)
			pr_warn("%s: cannot swap in the new filter: %s\n",
				s->iface, bw_errno_hint(err));
		if (err && verify)
			bw_exact_clear(s->maps->exact, hdr->exact_slot);
	}
	if (err) {
		bw_say_unchanged(s->iface, s->old_generation);
		return err;
	}
	clear_old_slots(s, hdr->exact_slot, verify);
	return 0;
}

/* ---- changes to the running filter --------------------------------------- */

int bw_swap_running(const struct bw_running *r, const struct bw_edit *e)
{
	struct bw_filter_map copy = BW_FILTER_MAP_INIT;
	struct bw_maps maps = BW_MAPS_INIT;
	struct bw_installer in;
	int err;

	err = bw_filter_clone(&r->filter, e->extra_blocks, &copy);
	if (!err)
		err = bw_maps_dup(&r->maps, &maps);
	if (!err && e->allow_fd >= 0) {
		bw_maps_replace(&maps, &maps.allow, dup(e->allow_fd));
		err = maps.allow < 0 ? -errno : 0;
	}
	if (!err && e->allow_fd >= 0)
		bw_set_allow_flag(copy.mem, e->allow_on);
	if (!err && e->edit)
		err = e->edit(copy.mem, copy.nblocks, e->ctx);
	if (!err) {
		bw_hook_installer(r, &in);
		err = bw_filter_commit(&maps, &copy, &in);
		if (err)
			pr_warn("%s: cannot swap in the changed filter: %s\n",
				r->iface, bw_errno_hint(err));
	}
	bw_maps_close(&maps);
	bw_filter_close(&copy);
	return err;
}
