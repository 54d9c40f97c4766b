// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's rebuild step (watch_apply.h): attach when nothing runs, else
 * reload from the lists or swap the image in, through the verbs' own
 * paths; and the figures of what was swapped in, read back from their
 * JSON document.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <json-c/json.h>

#include "kernel/hook.h"
#include "image/image.h"
#include "base/log.h"
#include "ops/reload.h"
#include "cmd/cmd_attach.h"
#include "cmd/watch_apply.h"

static __u64 get_u64(struct json_object *root, const char *obj, const char *key)
{
	struct json_object *o, *v;

	if (!json_object_object_get_ex(root, obj, &o) ||
	    !json_object_object_get_ex(o, key, &v))
		return 0;
	return (__u64)json_object_get_int64(v);
}

void bw_watch_outcome_read(const char *doc, struct bw_watch_outcome *out)
{
	struct json_object *root = doc ? json_tokener_parse(doc) : NULL;

	memset(out, 0, sizeof(*out));
	if (!root)
		return;
	out->generation = get_u64(root, "swap", "generation")
				  ?: get_u64(root, "filter", "generation");
	out->entries = get_u64(root, "filter", "entries");
	out->bytes = get_u64(root, "filter", "bytes");
	json_object_put(root);
}

bool bw_watch_attached(const struct bw_args *a)
{
	struct bw_xdp_info x;
	int fd = a->ifindex ? bw_hook_find(a->ifindex, &x) : -ENOENT;

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* --image on an interface that runs nothing: an empty filter first. */
static int attach_empty(struct bw_args *a)
{
	struct bw_args e = *a;
	char path[32], *empty[] = { path };
	int fd = memfd_create("bloomwall-empty", MFD_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	/* A regular file with nothing in it, and no file left behind. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	e.pos = empty;
	e.npos = 1;
	err = bw_verb_attach.run(&e);
	close(fd);
	return err;
}

static int load_image(struct bw_args *a)
{
	struct bw_build_args ba = { .forget_added = true };
	struct bw_image img;
	struct bw_reload_req r = { .iface = a->iface,
				   .ifindex = a->ifindex,
				   .args = &ba,
				   .image = &img,
				   .image_path = a->ops.image,
				   .origin = BW_ORIGIN_WATCH };
	int err;

	err = bw_image_read_file(a->ops.image, &img);
	if (err)
		return err;
	err = bw_reload(&r);
	bw_image_free(&img);
	return err;
}

/* Attaches when nothing runs, else reloads, through the verbs' own paths. */
int bw_watch_apply(struct bw_args *a)
{
	struct bw_reload_req r = { .iface = a->iface,
				   .args = &a->build,
				   .lists = (const char *const *)a->pos,
				   .nlists = a->npos,
				   .origin = BW_ORIGIN_WATCH };
	int err;

	/* A re-created interface has another index. */
	a->ifindex = (int)if_nametoindex(a->iface);
	if (!a->ifindex) {
		pr_warn("%s: there is no such interface (anymore)\n", a->iface);
		return -ENODEV;
	}
	if (!bw_watch_attached(a)) {
		if (!a->ops.image)
			return bw_verb_attach.run(a);
		err = attach_empty(a);
		return err ?: load_image(a);
	}
	if (a->ops.image)
		return load_image(a);
	r.ifindex = a->ifindex;
	return bw_reload(&r);
}
