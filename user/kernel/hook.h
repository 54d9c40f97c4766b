/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * An interface's XDP hook: what runs there, replacing it in one atomic
 * step, and taking it off. Putting a program on it is hook_attach.h's.
 *
 * int functions return 0 or -errno; they print only where they say so.
 */
#ifndef __BW_HOOK_H
#define __BW_HOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

/* The XDP hook of an interface, as far as bloomwall cares. */
struct bw_xdp_info {
	__u32 prog_id;	  /* program on the hook (a dispatcher, maybe) */
	__u8 attach_mode; /* XDP_ATTACHED_* */
	bool dispatcher;  /* libxdp dispatcher with our program in it */
	bool ours;	  /* our_id is attached, directly or not */
};

/* What ifindex's hook holds; our_id (0: none) is looked for there. */
int bw_xdp_info(int ifindex, __u32 our_id, struct bw_xdp_info *x);

/*
 * Finds bloomwall's program on ifindex's hook, directly or behind a libxdp
 * dispatcher: an fd of it (*x describes the hook, x->ours set), -ENOENT
 * when the hook runs none, or -errno. Prints nothing.
 */
int bw_hook_find(int ifindex, struct bw_xdp_info *x);

/* The id of bloomwall's program on ifindex's hook; 0 when none (or no ifindex). */
__u32 bw_hook_prog_id(int ifindex);

/*
 * The XDP bpf_link that holds prog_id on ifindex: its fd, or -ENOENT (a
 * plain or libxdp attach). Found by walking the kernel's links.
 */
int bw_hook_link(int ifindex, __u32 prog_id);

/* "native", "skb", "hw", "multi" or "none". */
const char *bw_attached_mode_name(__u8 attach_mode);

/*
 * The program on the hook is old_fd; make it new_fd, in one step:
 * bpf_link_update through link_fd (>= 0), else XDP_FLAGS_REPLACE. Behind a
 * libxdp dispatcher the new program is added before the old one is
 * removed, so a packet in between meets both filters, never neither.
 * -ESTALE, with nothing changed, when old_fd is no longer on the hook.
 */
int bw_hook_replace(const char *iface, int ifindex, int link_fd, int old_fd,
		    int new_fd);

/*
 * Takes prog_fd off ifindex: through link_fd (>= 0), the dispatcher, or a
 * plain detach of exactly that program. Another program there is left
 * alone, and said so; so is a program no longer attached.
 */
int bw_hook_detach(const char *iface, int ifindex, int link_fd, int prog_fd);

#endif /* __BW_HOOK_H */
