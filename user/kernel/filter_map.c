// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Filter maps: create, mmap, open by id, close.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <bpf/bpf.h>

#include "bloomwall.h"
#include "kernel/filter_map.h"
#include "base/log.h"

static int map_memory(struct bw_filter_map *m, bool writable)
{
	int prot = PROT_READ | (writable ? PROT_WRITE : 0);

	m->len = (size_t)m->nblocks * BW_BLOCK_BYTES;
	m->mem = mmap(NULL, m->len, prot, MAP_SHARED, m->fd, 0);
	if (m->mem == MAP_FAILED) {
		m->mem = NULL;
		return -errno;
	}
	return 0;
}

int bw_filter_create(__u32 nblocks, struct bw_filter_map *m)
{
	/* Not BPF_F_INNER_MAP: the verifier inlines no lookup in such a map. */
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	int err;

	m->nblocks = nblocks;
	m->fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, BW_FILTER_MAP_NAME,
			       sizeof(__u32), BW_BLOCK_BYTES, nblocks, &opts);
	if (m->fd < 0) {
		err = -errno;
		if (err == -EPERM)
			pr_warn("Cannot create the filter map: permission denied (run as root, or with CAP_BPF)\n");
		else
			pr_warn("Cannot create a filter map of %u blocks (%.1f MiB): %s\n",
				nblocks,
				nblocks * (double)BW_BLOCK_BYTES / (1 << 20),
				strerror(-err));
		m->fd = -1;
		return err;
	}
	m->id = bw_obj_id(m->fd);
	err = map_memory(m, true);
	if (err) {
		pr_warn("Cannot map the filter into memory: %s\n",
			strerror(-err));
		bw_filter_close(m);
	}
	return err;
}

int bw_filter_open_id(__u32 id, bool writable, struct bw_filter_map *m)
{
	int fd = bpf_map_get_fd_by_id(id);

	if (fd < 0) {
		m->fd = -1;
		return -errno;
	}
	return bw_filter_open_fd(fd, writable, m);
}

int bw_filter_open_fd(int fd, bool writable, struct bw_filter_map *m)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int err;

	m->fd = fd;
	m->mem = NULL;
	if (bpf_obj_get_info_by_fd(m->fd, &info, &len)) {
		err = -errno;
		goto err_close;
	}
	if (info.type != BPF_MAP_TYPE_ARRAY ||
	    info.value_size != BW_BLOCK_BYTES ||
	    info.max_entries < BW_HDR_BLOCKS) {
		err = -EINVAL;
		goto err_close;
	}
	m->id = info.id;
	m->nblocks = info.max_entries;
	err = map_memory(m, writable);
	if (err)
		goto err_close;
	return 0;
err_close:
	bw_filter_close(m);
	return err;
}

int bw_filter_clone(const struct bw_filter_map *src, __u32 extra,
		    struct bw_filter_map *dst)
{
	int err;

	if (extra > BW_MAX_BLOCKS - src->nblocks)
		return -E2BIG;
	err = bw_filter_create(src->nblocks + extra, dst);
	if (err)
		return err;
	memcpy(dst->mem, src->mem, src->len);
	return 0;
}

void bw_filter_close(struct bw_filter_map *m)
{
	if (m->mem)
		munmap(m->mem, m->len);
	if (m->fd >= 0)
		close(m->fd);
	m->mem = NULL;
	m->fd = -1;
}

__u32 bw_obj_id(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	/* prog, map and link info all start with type, id. */
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
}
