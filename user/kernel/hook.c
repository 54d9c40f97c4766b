// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The XDP hook: inspect, attach (--mode auto: native, else skb with the
 * kernel's reason), replace, detach.
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

#include "cmd/cli.h"
#include "kernel/hook.h"
#include "base/log.h"
#include "kernel/prog.h"

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

/*
 * The first program behind a libxdp dispatcher on ifindex that match()
 * takes (a value >= 0, returned), else -ENOENT.
 */
static int dispatcher_find(int ifindex, int (*match)(__u32 id, void *ctx),
			   void *ctx)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	int ret = -ENOENT;

	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (!mp || libxdp_get_error(mp))
		return -ENOENT;
	if (!xdp_multiprog__is_legacy(mp)) {
		for (p = xdp_multiprog__next_prog(NULL, mp); p && ret < 0;
		     p = xdp_multiprog__next_prog(p, mp))
			ret = match(xdp_program__id(p), ctx);
	}
	xdp_multiprog__close(mp);
	return ret;
}

/*
 * What the hook holds: x's program and mode, and in ids the program of
 * each mode (direct, driver, skb, hw), 0 where there is none.
 */
static int query_hook(int ifindex, struct bw_xdp_info *x, __u32 ids[4])
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	memset(x, 0, sizeof(*x));
	if (bpf_xdp_query(ifindex, 0, &q))
		return -errno;
	x->attach_mode = q.attach_mode;
	x->prog_id = q.prog_id ?: q.drv_prog_id ?: q.skb_prog_id ?: q.hw_prog_id;
	ids[0] = q.prog_id;
	ids[1] = q.drv_prog_id;
	ids[2] = q.skb_prog_id;
	ids[3] = q.hw_prog_id;
	return 0;
}

static int is_id(__u32 id, void *ctx)
{
	return id == *(const __u32 *)ctx ? 0 : -ENOENT;
}

int bw_xdp_info(int ifindex, __u32 our_id, struct bw_xdp_info *x)
{
	__u32 ids[4];
	int i, err;

	err = query_hook(ifindex, x, ids);
	if (err || !our_id || !x->prog_id)
		return err;
	for (i = 0; i < 4; i++)
		x->ours |= ids[i] == our_id;
	if (!x->ours && !dispatcher_find(ifindex, is_id, &our_id))
		x->ours = x->dispatcher = true;
	return 0;
}

/* An fd of the program with this id if it is bloomwall's, else -ENOENT. */
static int ours_by_id(__u32 id, void *ctx)
{
	int fd;

	if (!id)
		return -ENOENT;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	if (bw_prog_is_ours(fd))
		return fd;
	close(fd);
	return -ENOENT;
}

int bw_hook_find(int ifindex, struct bw_xdp_info *x)
{
	__u32 ids[4];
	int i, fd, err;

	err = query_hook(ifindex, x, ids);
	if (err)
		return err;
	for (i = 0, fd = -ENOENT; i < 4 && fd == -ENOENT; i++)
		fd = ours_by_id(ids[i], NULL);
	if (fd == -ENOENT && x->prog_id) {
		fd = dispatcher_find(ifindex, ours_by_id, NULL);
		x->dispatcher = fd >= 0;
	}
	x->ours = fd >= 0;
	return fd;
}

int bw_hook_link(int ifindex, __u32 prog_id)
{
	struct bpf_link_info info;
	__u32 id = 0, len;
	int fd;

	while (!bpf_link_get_next_id(id, &id)) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    info.type == BPF_LINK_TYPE_XDP &&
		    (int)info.xdp.ifindex == ifindex && info.prog_id == prog_id)
			return fd;
		close(fd);
	}
	return -ENOENT;
}

/* ---- attach -------------------------------------------------------------- */

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

/* ---- replace ------------------------------------------------------------- */

static __u32 attached_flags(__u8 attach_mode)
{
	if (attach_mode == XDP_ATTACHED_SKB)
		return XDP_FLAGS_SKB_MODE;
	if (attach_mode == XDP_ATTACHED_HW)
		return XDP_FLAGS_HW_MODE;
	return XDP_FLAGS_DRV_MODE;
}

static int detach_dispatcher(int ifindex, __u32 id)
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

/* libxdp swaps the whole dispatcher each time: the new one in first. */
static int replace_in_dispatcher(const char *iface, int ifindex, int old_fd,
				 int new_fd)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	enum xdp_attach_mode mode;
	int err;

	mp = xdp_multiprog__get_from_ifindex(ifindex);
	err = libxdp_get_error(mp);
	if (err)
		return err;
	mode = xdp_multiprog__attach_mode(mp);
	xdp_multiprog__close(mp);
	p = xdp_program__from_fd(new_fd);
	err = libxdp_get_error(p);
	if (err)
		return err;
	err = xdp_program__attach(p, ifindex, mode, 0);
	xdp_program__close(p);
	if (err)
		return err;
	err = detach_dispatcher(ifindex, bw_obj_id(old_fd));
	if (err)
		pr_warn("warning: %s: the new filter runs, but the old program (id %u) is still in the dispatcher: %s\n",
			iface, bw_obj_id(old_fd), bw_errno_hint(err));
	return 0;
}

int bw_hook_replace(const char *iface, int ifindex, int link_fd, int old_fd,
		    int new_fd)
{
	LIBBPF_OPTS(bpf_link_update_opts, lo, .old_prog_fd = old_fd,
		    .flags = BPF_F_REPLACE);
	LIBBPF_OPTS(bpf_xdp_attach_opts, xo, .old_prog_fd = old_fd);
	struct bw_xdp_info x;
	int err;

	if (link_fd >= 0) {
		err = bpf_link_update(link_fd, new_fd, &lo) ? -errno : 0;
		/* The link holds another program than the one we read. */
		return err == -EPERM ? -ESTALE : err;
	}
	err = bw_xdp_info(ifindex, bw_obj_id(old_fd), &x);
	if (err)
		return err;
	if (!x.ours)
		return -ESTALE;
	if (x.dispatcher)
		return replace_in_dispatcher(iface, ifindex, old_fd, new_fd);
	/* The kernel swaps only if old_fd is still the one on the hook. */
	if (bpf_xdp_attach(ifindex, new_fd,
			   XDP_FLAGS_REPLACE | attached_flags(x.attach_mode),
			   &xo))
		return errno == EEXIST ? -ESTALE : -errno;
	return 0;
}

/* ---- detach -------------------------------------------------------------- */

/* Plain attach: replace exactly our program with nothing, never another. */
static int detach_plain(int ifindex, int prog_fd, __u8 attach_mode)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = prog_fd);

	if (bpf_xdp_detach(ifindex, attached_flags(attach_mode), &opts))
		return -errno;
	return 0;
}

int bw_hook_detach(const char *iface, int ifindex, int link_fd, int prog_fd)
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
	if (link_fd >= 0)
		err = bpf_link_detach(link_fd) ? -errno : 0;
	else if (x.dispatcher)
		err = detach_dispatcher(ifindex, id);
	else
		err = detach_plain(ifindex, prog_fd, x.attach_mode);
	if (err)
		pr_warn("%s: cannot detach the XDP program (id %u): %s\n",
			iface, id, bw_errno_hint(err));
	return err;
}
