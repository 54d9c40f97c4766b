// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The swap: commit a filter (load its program, install it, record its id),
 * with the exact trie and allowlist staged around it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bloomwall.h"
#include "cli.h"
#include "hook.h"
#include "log.h"
#include "lpm.h"
#include "output.h"
#include "pin.h"
#include "swap.h"

/* ---- installing a program ------------------------------------------------ */

int bw_keep_prog(void *fd_ptr, int prog_fd)
{
	int *kept = fd_ptr, fd = dup(prog_fd);

	if (fd < 0)
		return -errno;
	if (*kept >= 0)
		close(*kept);
	*kept = fd;
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
	int old_fd, link_fd, err;

	old_fd = bw_pin_open(h->iface, BW_PIN_PROG);
	if (old_fd < 0)
		return old_fd;
	link_fd = bw_pin_open(h->iface, BW_PIN_LINK);
	err = bw_hook_replace(h->iface, h->ifindex, link_fd, old_fd, new_fd);
	if (!err) {
		err = repin_prog(h->iface, new_fd);
		/* Put the old one back: the pin must name what runs. */
		if (err && bw_hook_replace(h->iface, h->ifindex, link_fd,
					   new_fd, old_fd))
			pr_warn("%s: the new program runs but is not pinned, and the old one could not be put back: run 'bloomwall detach %s' and attach again\n",
				h->iface, h->iface);
	}
	if (link_fd >= 0)
		close(link_fd);
	close(old_fd);
	return err;
}

void bw_hook_installer(struct bw_hook *hook, struct bw_installer *in)
{
	in->install = install_on_hook;
	in->ctx = hook;
}

int bw_filter_commit(const struct bw_maps *mp, const struct bw_filter_map *m,
		     const struct bw_installer *in)
{
	__u32 key = 0, old_id = 0;
	int prog, err;

	if (!m->id)
		return -EINVAL;
	prog = bw_prog_load(mp, m);
	if (prog < 0)
		return prog;
	/* The registry first: the data path does not read it. */
	bpf_map_lookup_elem(mp->filter_id, &key, &old_id);
	err = bpf_map_update_elem(mp->filter_id, &key, &m->id, BPF_ANY) ? -errno
									: 0;
	if (!err) {
		err = in->install(in->ctx, prog);
		if (err)
			bpf_map_update_elem(mp->filter_id, &key, &old_id,
					    BPF_ANY);
	}
	close(prog);
	return err;
}

/* ---- a built filter ------------------------------------------------------ */

void bw_built_close(struct bw_built *b)
{
	bw_filter_close(&b->filter);
	if (b->exact_fd >= 0)
		close(b->exact_fd);
	b->exact_fd = -1;
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

/* The swap failed: take back what stage() put in, so nothing has changed. */
static void unstage(const struct bw_swap *s, __u8 slot,
		    const struct bw_built *b, const bool *fresh)
{
	if (b->exact_fd >= 0)
		bw_exact_clear(s->exact_fd, slot);
	if (s->allow_fd >= 0)
		bw_allow_undo(s->allow_fd, s->allow, fresh);
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
	bw_out_open_object("allow");
	bw_out_text("%s: allowlist replaced: ", c->iface);
	bw_out_u64("entries", "%'llu ", c->allow->n4 + c->allow->n6);
	bw_out_text("%s",
		    bw_plural(c->allow->n4 + c->allow->n6, "entry", "entries"));
	bw_out_u64("added", " (%'llu added, ", added);
	bw_out_u64("removed", "%'llu removed)\n", removed);
	bw_out_close_object();
}

/* "IFACE: swapped in generation N (replaces M)"; JSON the object "swap". */
static void say_swapped(const struct bw_swap *s, const struct bw_built *b)
{
	const struct bw_info *info =
		(const void *)((char *)b->filter.mem + BW_BLOCK_BYTES);

	bw_out_open_object("swap");
	bw_out_text("%s: ", s->iface);
	bw_out_u64("generation", "swapped in generation %llu (replaces ",
		   info->generation);
	/* Generation 0: the running filter could not be read. */
	if (s->old_generation)
		bw_out_u64("replaces", "%llu", s->old_generation);
	else
		bw_out_null("replaces", "the unreadable filter");
	bw_out_bool("verify", NULL, b->exact_fd >= 0);
	bw_out_text(")%s\n", b->exact_fd >= 0 ? ", verify mode" : "");
	bw_out_close_object();
}

int bw_swap_in(const struct bw_swap *s, const struct bw_built *b)
{
	const struct bw_hdr *hdr = b->filter.mem;
	bool *fresh = NULL;
	size_t added = 0;
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
		say_swapped(s, b);
		finish(s, hdr->exact_slot, b->exact_fd >= 0, added);
	}
	free(fresh);
	return err;
}
