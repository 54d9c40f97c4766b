// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Attaching the first program of an interface, and detaching the last.
 *
 * The order matters: the program is loaded with its first filter as its own
 * map before it goes onto the interface, so no packet ever meets an
 * attached program without a filter.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/attach.h"
#include "bloomwall.h"
#include "bloomwall.skel.h"
#include "kernel/allow_names.h"
#include "kernel/egress.h"
#include "kernel/hook.h"
#include "kernel/hook_attach.h"
#include "kernel/hooks_guard.h"
#include "base/log.h"
#include "kernel/lpm.h"
#include "kernel/pin.h"
#include "kernel/prog.h"
#include "kernel/prog_spec.h"
#include "kernel/running.h"

struct attach_ctx {
	const char *iface;
	int ifindex;
	enum xdp_attach_mode mode;
	struct bloomwall *skel;
	struct bw_hook_attach hook;
	bool egress;  /* --egress: the TC program too */
	int exact_fd; /* outer map of the exact tries */
	int allow_fd;
	int prog_fd;
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

/* The program loaded with its filter: from here on it can go on the hook. */
static int load_program(struct attach_ctx *c)
{
	int err;

	err = bloomwall__load(c->skel);
	if (err) {
		pr_warn("%s: cannot load the XDP program: %s (run with -v for the verifier's log)\n",
			c->iface, bw_errno_hint(err));
		return err;
	}
	c->prog_fd = bpf_program__fd(c->skel->progs.bloomwall_xdp);
	return 0;
}

/*
 * After the XDP hook: the egress program, of the same object, reads the
 * same filter map and the same allowlist and tries.
 */
static int attach_egress(struct attach_ctx *c)
{
	int err;

	if (!c->egress)
		return 0;
	err = bw_egress_attach(c->ifindex,
			       bpf_program__fd(c->skel->progs.bloomwall_tc));
	if (err)
		pr_warn("%s: cannot attach the egress program to its clsact egress hook: %s\n",
			c->iface, bw_errno_hint(err));
	return err;
}

/*
 * With --egress, both hooks go on under a guard (hooks_guard.h): an attach
 * killed after the XDP hook still gets its egress hook, once the lock is
 * free.
 */
static int start_guard(struct attach_ctx *c, struct bw_guard *g)
{
	struct bw_hooks_state none = { 0, -1 }, ours = { 0, -1 };

	if (!c->egress)
		return 0;
	ours.xdp_id = bw_obj_id(c->prog_fd);
	ours.tc_fd = bpf_program__fd(c->skel->progs.bloomwall_tc);
	return bw_guard_start(g, c->iface, c->ifindex, &none, &ours);
}

/*
 * The exact tries' outer map, also ours: in verify mode the first trie is
 * in the slot the filter names before the program can read it.
 */
static int create_exact(struct attach_ctx *c, const struct bw_built *b)
{
	const struct bw_hdr *hdr = b->filter.mem;
	int err = 0;

	c->exact_fd = bw_exact_outer_create();
	if (c->exact_fd >= 0 && b->exact_fd >= 0)
		err = bw_exact_set(c->exact_fd, hdr->exact_slot, b->exact_fd);
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
	int err = 0;

	c->allow_fd = dup(bpf_map__fd(c->skel->maps.allow));
	if (c->allow_fd < 0)
		err = -errno;
	else if (allow)
		err = bw_lpm_fill(c->allow_fd, allow);
	if (err) {
		pr_warn("%s: cannot fill the allowlist: %s\n", c->iface,
			bw_errno_hint(err));
		return err;
	}
	return 0;
}

/*
 * The pins are a cache of what the hooks run (the egress hook's maps too:
 * hence after it), but a bpf_link of our own lives only as long as its pin
 * (or this process): without it the attach is undone.
 */
static int pin_all(struct attach_ctx *c)
{
	struct bw_maps maps;
	int err;

	bw_maps_from_skel(c->skel, &maps);
	err = bw_pins_sync(c->iface, c->prog_fd, &maps, c->hook.link_fd, true);

	if (err)
		pr_warn("%s: cannot pin the program and its maps under %s/%s: %s\n",
			c->iface, BW_PIN_ROOT, c->iface, bw_errno_hint(err));
	return err;
}

/* How the program went onto the hook. */
static void attach_how(const struct attach_ctx *c, const struct bw_xdp_info *x,
		       struct bw_attach_figures *f)
{
	f->how = BW_ATTACH_PLAIN;
	if (c->hook.link_fd >= 0) {
		f->how = BW_ATTACH_LINK;
		snprintf(f->libxdp_error, sizeof(f->libxdp_error), "%s",
			 c->hook.libxdp_err);
	} else if (x->dispatcher) {
		f->how = BW_ATTACH_DISPATCHER;
	} else if (getenv("LIBXDP_SKIP_DISPATCHER")) {
		f->how = BW_ATTACH_PLAIN_SKIPPED;
	}
}

static void get_figures(const struct attach_ctx *c, const struct bw_list *allow,
			struct bw_attach_figures *f)
{
	struct bw_xdp_info x;

	memset(f, 0, sizeof(*f));
	f->program_id = bw_obj_id(c->prog_fd);
	if (c->egress)
		f->egress_id = bpf_program__fd(c->skel->progs.bloomwall_tc) >= 0
				       ? bw_obj_id(bpf_program__fd(
						 c->skel->progs.bloomwall_tc))
				       : 0;
	bw_xdp_info(c->ifindex, f->program_id, &x);
	f->attach_mode = x.attach_mode;
	attach_how(c, &x, f);
	/* A new trie and a finished list: every entry is one more. */
	f->allow = allow != NULL;
	f->allow_entries = allow ? allow->n4 + allow->n6 : 0;
}

static void close_ctx(struct attach_ctx *c, bool undo)
{
	if (undo && c->egress)
		bw_egress_detach(c->ifindex);
	if (undo)
		bw_unpin_all(c->iface);
	bw_hook_attach_close(&c->hook, c->ifindex, c->mode, undo);
	if (c->exact_fd >= 0)
		close(c->exact_fd);
	if (c->allow_fd >= 0)
		close(c->allow_fd);
	bloomwall__destroy(c->skel);
}

int bw_attach(const char *iface, int ifindex, enum xdp_attach_mode mode,
	      bool own_link, bool egress, const struct bw_built *b,
	      const struct bw_list *allow, struct bw_attach_figures *out)
{
	struct attach_ctx c = { .iface = iface,
				.ifindex = ifindex,
				.mode = mode,
				.egress = egress,
				.hook = BW_HOOK_ATTACH_INIT,
				.exact_fd = -1,
				.allow_fd = -1,
				.prog_fd = -1 };
	struct bw_guard g = BW_GUARD_INIT;
	int err;

	bw_set_allow_flag(b->filter.mem, allow && allow->n4 + allow->n6);
	c.skel = bloomwall__open();
	if (!c.skel) {
		err = -errno;
		pr_warn("%s: cannot open the BPF object: %s\n", iface,
			strerror(-err));
		return err;
	}
	err = bpf_program__set_autoload(c.skel->progs.bloomwall_tc, egress);
	if (!err)
		err = bpf_map__set_max_entries(
			c.skel->maps.allow_names,
			bw_allow_names_room(b->allow_names.ndom +
					    (allow ? allow->ndom : 0)));
	if (!err)
		err = reuse_filter(&c, &b->filter);
	if (!err)
		err = create_exact(&c, b);
	if (!err)
		err = load_program(&c);
	if (!err)
		err = fill_allow(&c, allow);
	if (!err)
		err = start_guard(&c, &g);
	if (!err)
		err = bw_hook_attach(iface, ifindex, mode, c.prog_fd, own_link,
				     &c.hook);
	if (!err)
		err = attach_egress(&c);
	if (!err)
		err = pin_all(&c);
	if (!err)
		get_figures(&c, allow, out);
	close_ctx(&c, err);
	/* Undone or not, the guard sees both hooks agree before it lets go. */
	bw_guard_end(&g, !err);
	return err;
}

int bw_detach(const struct bw_running *r)
{
	struct bw_hooks_state old = { r->prog_id, r->egress.prog_fd },
			      none = { 0, -1 };
	struct bw_guard g;
	int err;

	/*
	 * Egress first, under a guard: a detach cut short before the XDP
	 * hook gets its egress program back (both there), one cut short
	 * after it loses both.
	 */
	err = bw_guard_start(&g, r->iface, r->ifindex, &old, &none);
	if (!err && r->egress.prog_fd >= 0)
		err = bw_egress_detach(r->ifindex);
	if (err && err != -ENOENT) {
		pr_warn("%s: cannot take the egress program off: %s\n",
			r->iface, bw_errno_hint(err));
		bw_guard_end(&g, false);
		return err;
	}
	err = bw_hook_detach(r->iface, r->ifindex, r->link_fd, r->prog_fd);
	bw_guard_end(&g, !err);
	if (!err)
		err = bw_unpin_all(r->iface);
	if (!err)
		bw_unpin_others(r->iface, r->prog_id);
	return err;
}
