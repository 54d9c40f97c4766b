// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The XDP hook: inspect, replace, detach (putting a program on it is
 * hook_attach.c's).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "kernel/filter_map.h"
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

static int hook_find_once(int ifindex, struct bw_xdp_info *x, __u32 *ids)
{
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

int bw_hook_find(int ifindex, struct bw_xdp_info *x)
{
	__u32 ids[4], again[4];
	struct bw_xdp_info y;
	int tries, fd;

	/*
	 * A swap between reading the hook's ids and opening them frees the
	 * old program: found gone, the hook is asked again while it changes.
	 */
	for (tries = 0;; tries++) {
		fd = hook_find_once(ifindex, x, ids);
		if (fd != -ENOENT || !x->prog_id || tries == 4 ||
		    query_hook(ifindex, &y, again) ||
		    !memcmp(ids, again, sizeof(ids)))
			return fd;
	}
}

__u32 bw_hook_prog_id(int ifindex)
{
	struct bw_xdp_info x;
	int fd = ifindex ? bw_hook_find(ifindex, &x) : -ENOENT;
	__u32 id;

	if (fd < 0)
		return 0;
	id = bw_obj_id(fd);
	close(fd);
	return id;
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
