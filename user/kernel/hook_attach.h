/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Putting a program on an interface's XDP hook: through libxdp, or a
 * bpf_link of bloomwall's own.
 *
 * int functions return 0 or -errno; they print only where they say so.
 */
#ifndef __BW_HOOK_ATTACH_H
#define __BW_HOOK_ATTACH_H

#include <stdbool.h>
#include <xdp/libxdp.h>

/* How a program went onto the hook. */
struct bw_hook_attach {
	struct xdp_program *xprog; /* through libxdp (NULL otherwise) */
	int link_fd;		   /* a bpf_link of our own, else -1 */
	char libxdp_err[128];	   /* why libxdp was not used, or "" */
	enum xdp_attach_mode mode; /* the mode it went on in */
};

#define BW_HOOK_ATTACH_INIT   \
	{                     \
		.link_fd = -1 \
	}

/*
 * Puts prog_fd on ifindex: through libxdp unless own_link, else (or when
 * libxdp fails) with a bpf_link of our own. Says what failed. With
 * XDP_MODE_UNSPEC (--mode auto): native mode, or where the interface
 * refuses native XDP, skb mode with a warning that gives the kernel's
 * reason.
 */
int bw_hook_attach(const char *iface, int ifindex, enum xdp_attach_mode mode,
		   int prog_fd, bool own_link, struct bw_hook_attach *h);

/*
 * Takes back what bw_hook_attach did (an unpinned link detaches on close)
 * and frees h. With undo false only frees h.
 */
void bw_hook_attach_close(struct bw_hook_attach *h, int ifindex,
			  enum xdp_attach_mode mode, bool undo);

#endif /* __BW_HOOK_ATTACH_H */
