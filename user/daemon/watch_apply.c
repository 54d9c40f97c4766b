// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's rebuild step (watch_apply.h).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "base/log.h"
#include "daemon/watch_apply.h"
#include "filter/provenance.h"
#include "image/image.h"
#include "kernel/hook.h"
#include "ops/attach_lists.h"
#include "ops/reload.h"

bool bw_watch_attached(int ifindex)
{
	struct bw_xdp_info x;
	int fd = ifindex ? bw_hook_find(ifindex, &x) : -ENOENT;

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

static void outcome_of(const struct bw_build_figures *f, __u64 generation,
		       struct bw_watch_outcome *o)
{
	o->generation = generation ?: f->plan.info.generation;
	o->entries = bw_build_figures_entries(f);
	o->bytes = (__u64)f->plan.nblocks * BW_BLOCK_BYTES;
	o->empty = !f->image && bw_build_figures_empty(f);
}

static int attach(const struct bw_watch_cfg *c, int ifindex,
		  const char *const *lists, int nlists,
		  struct bw_watch_outcome *o)
{
	struct bw_attach_req rq = { .iface = c->iface,
				    .ifindex = ifindex,
				    .mode = c->mode,
				    .own_link = c->own_link,
				    .args = c->build,
				    .lists = lists,
				    .nlists = nlists };
	struct bw_attach_result res;
	int err;

	err = bw_attach_lists(&rq, &res);
	if (res.built)
		outcome_of(&res.build, 0, o);
	return err;
}

/* An image on an interface that runs nothing: an empty filter first. */
static int attach_empty(const struct bw_watch_cfg *c, int ifindex)
{
	struct bw_watch_outcome o;
	char path[32];
	const char *empty[] = { path };
	int fd = memfd_create("bloomwall-empty", MFD_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	/* A regular file with nothing in it, and no file left behind. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err = attach(c, ifindex, empty, 1, &o);
	close(fd);
	return err;
}

static void reloaded(const struct bw_reload_result *res,
		     struct bw_watch_outcome *o)
{
	if (res->nbuilds)
		outcome_of(&res->build[res->nbuilds - 1],
			   res->swapped ? res->generation : 0, o);
}

static int load_image(const struct bw_watch_cfg *c, int ifindex,
		      struct bw_watch_outcome *o)
{
	struct bw_build_args ba = { .forget_added = true };
	struct bw_image img;
	struct bw_reload_req r = { .iface = c->iface,
				   .ifindex = ifindex,
				   .args = &ba,
				   .image = &img,
				   .image_path = c->image,
				   .origin = BW_ORIGIN_WATCH };
	struct bw_reload_result res;
	int err;

	err = bw_image_read_file(c->image, &img);
	if (err)
		return err;
	err = bw_reload(&r, &res);
	reloaded(&res, o);
	bw_image_free(&img);
	return err;
}

int bw_watch_apply(const struct bw_watch_cfg *c, struct bw_watch_outcome *o)
{
	struct bw_reload_req r = { .iface = c->iface,
				   .args = c->build,
				   .lists = c->lists,
				   .nlists = c->nlists,
				   .origin = BW_ORIGIN_WATCH };
	struct bw_reload_result res;
	int ifindex, err;

	memset(o, 0, sizeof(*o));
	ifindex = (int)if_nametoindex(c->iface);
	if (!ifindex) {
		pr_warn("%s: there is no such interface (anymore)\n", c->iface);
		return -ENODEV;
	}
	if (!bw_watch_attached(ifindex)) {
		if (!c->image)
			return attach(c, ifindex, c->lists, c->nlists, o);
		err = attach_empty(c, ifindex);
		return err ?: load_image(c, ifindex, o);
	}
	if (c->image)
		return load_image(c, ifindex, o);
	r.ifindex = ifindex;
	err = bw_reload(&r, &res);
	reloaded(&res, o);
	return err;
}
