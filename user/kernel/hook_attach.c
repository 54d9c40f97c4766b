// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Putting a program on the XDP hook (hook_attach.h): libxdp, else a
 * bpf_link of our own; --mode auto: native, else skb with the kernel's
 * reason.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "base/log.h"
#include "kernel/hook_attach.h"

static int attach_libxdp(int ifindex, enum xdp_attach_mode mode, int prog_fd,
			 struct bw_hook_attach *h)
{
	int err;

	h->xprog = xdp_program__from_fd(prog_fd);
	err = libxdp_get_error(h->xprog);
	if (err) {
		h->xprog = NULL;
		libxdp_strerror(err, h->libxdp_err, sizeof(h->libxdp_err));
		return err;
	}
	/*
	 * libxdp 1.3.1 returns success without an fd when it may not open the
	 * program's BTF by id (no CAP_SYS_ADMIN), and its attach then crashes.
	 */
	if (xdp_program__fd(h->xprog) < 0) {
		xdp_program__close(h->xprog);
		h->xprog = NULL;
		snprintf(
			h->libxdp_err, sizeof(h->libxdp_err),
			"cannot open the program (its BTF by id needs CAP_SYS_ADMIN)");
		return -EPERM;
	}
	err = xdp_program__attach(h->xprog, ifindex, mode, 0);
	if (err) {
		libxdp_strerror(err, h->libxdp_err, sizeof(h->libxdp_err));
		xdp_program__close(h->xprog);
		h->xprog = NULL;
	}
	return err;
}

static __u32 mode_flags(enum xdp_attach_mode mode)
{
	if (mode == XDP_MODE_NATIVE)
		return XDP_FLAGS_DRV_MODE;
	if (mode == XDP_MODE_SKB)
		return XDP_FLAGS_SKB_MODE;
	return 0;
}

/* When libxdp fails entirely: a bpf_link of our own. 0 or -errno. */
static int attach_link(int ifindex, enum xdp_attach_mode mode, int prog_fd,
		       struct bw_hook_attach *h)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = mode_flags(mode));
	int err;

	h->link_fd = bpf_link_create(prog_fd, ifindex, BPF_XDP, &opts);
	if (h->link_fd < 0) {
		err = -errno;
		h->link_fd = -1;
		return err;
	}
	return 0;
}

/*
 * One mode: through libxdp unless own_link, else (or when libxdp fails)
 * with a bpf_link of our own. 0 or the bpf_link's -errno; prints nothing
 * but debug output.
 */
static int attach_in_mode(int ifindex, enum xdp_attach_mode mode, int prog_fd,
			  bool own_link, struct bw_hook_attach *h)
{
	int err;

	h->libxdp_err[0] = '\0';
	if (own_link) {
		snprintf(h->libxdp_err, sizeof(h->libxdp_err),
			 "not used (--link)");
	} else {
		if (!attach_libxdp(ifindex, mode, prog_fd, h))
			goto out;
		pr_debug("libxdp attach failed (%s); trying a plain bpf_link\n",
			 h->libxdp_err);
	}
	err = attach_link(ifindex, mode, prog_fd, h);
	if (err)
		return err;
out:
	h->mode = mode;
	return 0;
}

/*
 * The kernel says why it refuses an attach in an extended ack, which only
 * the netlink call (libxdp's plain attach, through libbpf) receives;
 * libbpf prints it as a warning. While an attach runs, libbpf's messages
 * pass through here (on to the usual printer) and the last such reason is
 * kept. A bpf_link attach (--link) gets none: its reason is the errno.
 */
#define KERNEL_MSG_TAG "Kernel error message: "

static libbpf_print_fn_t outer_print;
static char kernel_msg[160];

static int catch_kernel_msg(enum libbpf_print_level level, const char *fmt,
			    va_list ap)
{
	char line[256];
	const char *m;
	va_list copy;

	va_copy(copy, ap);
	vsnprintf(line, sizeof(line), fmt, copy);
	va_end(copy);
	m = strstr(line, KERNEL_MSG_TAG);
	if (m) {
		m += strlen(KERNEL_MSG_TAG);
		snprintf(kernel_msg, sizeof(kernel_msg), "%.*s",
			 (int)strcspn(m, "\n"), m);
	}
	return outer_print ? outer_print(level, fmt, ap) : 0;
}

/* attach_in_mode(), with the kernel's reason in why when it refuses. */
static int attach_explained(int ifindex, enum xdp_attach_mode mode, int prog_fd,
			    bool own_link, struct bw_hook_attach *h, char *why,
			    size_t len)
{
	int err;

	kernel_msg[0] = '\0';
	outer_print = libbpf_set_print(catch_kernel_msg);
	err = attach_in_mode(ifindex, mode, prog_fd, own_link, h);
	libbpf_set_print(outer_print);
	if (err)
		snprintf(why, len, "%s",
			 kernel_msg[0] ? kernel_msg : strerror(-err));
	return err;
}

/*
 * Refusals that are not about the mode: another program holds the hook
 * (in either mode the kernel keeps one), or we may not attach at all.
 * Generic mode would fail the same way.
 */
static bool mode_independent(int err)
{
	return err == -EEXIST || err == -EBUSY || err == -EPERM ||
	       err == -EACCES;
}

static void attach_failed(const char *iface, const struct bw_hook_attach *h,
			  int err)
{
	pr_warn("%s: cannot attach the XDP program (libxdp: %s; plain attach: %s)\n",
		iface, h->libxdp_err, bw_errno_hint(err));
}

/*
 * --mode auto: native XDP where the interface takes it, else generic (skb)
 * mode, and say why in one line with the kernel's own reason. Native is
 * asked for explicitly: the kernel's own choice (no mode flag) falls back
 * to generic silently where the driver has no native XDP, and not at all
 * where the driver has native XDP but refuses this program or this
 * configuration (a veth whose peer's MTU is too large for the program).
 */
static int attach_auto(const char *iface, int ifindex, int prog_fd,
		       bool own_link, struct bw_hook_attach *h)
{
	char why[sizeof(kernel_msg)];
	int err;

	err = attach_explained(ifindex, XDP_MODE_NATIVE, prog_fd, own_link, h,
			       why, sizeof(why));
	if (!err)
		return 0;
	pr_debug("%s: native XDP refused: %s\n", iface, why);
	if (mode_independent(err)) {
		attach_failed(iface, h, err);
		return err;
	}
	err = attach_in_mode(ifindex, XDP_MODE_SKB, prog_fd, own_link, h);
	if (err) {
		pr_warn("%s: cannot attach the XDP program: native XDP refused (%s); skb mode: libxdp: %s; plain attach: %s\n",
			iface, why, h->libxdp_err, bw_errno_hint(err));
		return err;
	}
	pr_warn("%s: native XDP refused (%s); attached in skb mode\n", iface,
		why);
	return 0;
}

int bw_hook_attach(const char *iface, int ifindex, enum xdp_attach_mode mode,
		   int prog_fd, bool own_link, struct bw_hook_attach *h)
{
	int err;

	if (mode == XDP_MODE_UNSPEC)
		return attach_auto(iface, ifindex, prog_fd, own_link, h);
	err = attach_in_mode(ifindex, mode, prog_fd, own_link, h);
	if (err)
		attach_failed(iface, h, err);
	return err;
}

void bw_hook_attach_close(struct bw_hook_attach *h, int ifindex,
			  enum xdp_attach_mode mode, bool undo)
{
	/* --mode auto may have ended in either mode: the one it took. */
	if (h->mode != XDP_MODE_UNSPEC)
		mode = h->mode;
	if (undo && h->xprog)
		xdp_program__detach(h->xprog, ifindex, mode, 0);
	if (h->link_fd >= 0)
		close(h->link_fd); /* an unpinned link detaches on close */
	h->link_fd = -1;
	xdp_program__close(h->xprog);
	h->xprog = NULL;
}
