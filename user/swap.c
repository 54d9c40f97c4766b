// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Filter maps: create, mmap, load a program for, swap in, reopen.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>
#include <sys/mman.h>

#include <bpf/bpf.h>

#include "bloomwall.h"
#include "bloomwall.skel.h"
#include "log.h"
#include "swap.h"

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

static void fill_id(struct bw_filter_map *m)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (!bpf_obj_get_info_by_fd(m->fd, &info, &len))
		m->id = info.id;
}

int bw_filter_create(__u32 nblocks, struct bw_filter_map *m)
{
	/* Not BPF_F_INNER_MAP: the verifier inlines no lookup in such a map. */
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	int err;

	m->nblocks = nblocks;
	m->fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bw_filter", sizeof(__u32),
			       BW_BLOCK_BYTES, nblocks, &opts);
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
	fill_id(m);
	err = map_memory(m, true);
	if (err) {
		pr_warn("Cannot map the filter into memory: %s\n",
			strerror(-err));
		bw_filter_close(m);
	}
	return err;
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

void bw_maps_close(struct bw_maps *mp)
{
	int *fds[] = { &mp->filter, &mp->stats, &mp->allow, &mp->exact };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

void bw_maps_from_skel(const struct bloomwall *skel, struct bw_maps *mp)
{
	mp->filter = bpf_map__fd(skel->maps.filter);
	mp->stats = bpf_map__fd(skel->maps.stats);
	mp->allow = bpf_map__fd(skel->maps.allow);
	mp->exact = bpf_map__fd(skel->maps.exact);
}

static int reuse_maps(struct bloomwall *skel, const struct bw_maps *mp,
		      const struct bw_filter_map *m)
{
	struct {
		struct bpf_map *map;
		int fd;
	} r[] = {
		{ skel->maps.blocks, m->fd },
		{ skel->maps.filter, mp->filter },
		{ skel->maps.stats, mp->stats },
		{ skel->maps.allow, mp->allow },
		{ skel->maps.exact, mp->exact },
	};
	size_t i;
	int err;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		if (r[i].fd < 0)
			return -EBADF;
		err = bpf_map__reuse_fd(r[i].map, r[i].fd);
		if (err)
			return err;
	}
	return 0;
}

int bw_prog_specialise(struct bloomwall *skel, const struct bw_filter_map *m)
{
	struct bw_hdr *dst = (struct bw_hdr *)&skel->rodata->filter_hdr;
	struct bpf_map_info info = {};
	__u32 key = 0, len = sizeof(info), r;
	struct bw_block blk;

	if (bpf_obj_get_info_by_fd(m->fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_ARRAY ||
	    info.value_size != BW_BLOCK_BYTES ||
	    info.max_entries < BW_HDR_BLOCKS)
		return -EINVAL;
	if (m->mem)
		memcpy(&blk, m->mem, sizeof(blk));
	else if (bpf_map_lookup_elem(m->fd, &key, &blk))
		return -errno;
	memcpy(dst, &blk, sizeof(*dst));
	/*
	 * The program would load and pass everything; refuse it, so that a
	 * commit never swaps a working filter for none.
	 */
	if (!bw_hdr_valid(dst))
		return -EINVAL;
	for (r = 0; r < BW_REGIONS; r++)
		bw_region_consts_init(dst, r,
				      (struct bw_region_consts *)&skel->rodata
					      ->region_consts[r]);
	return 0;
}

/* The .rodata map of a loaded program, or -ENOENT. */
static int rodata_of(int prog_fd, __u32 *value_size)
{
	struct bpf_prog_info info = {};
	struct bpf_map_info mi;
	__u32 ids[16], len = sizeof(info), mlen, i;
	int fd;

	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	for (i = 0; i < info.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]);
	     i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		mlen = sizeof(mi);
		if (!bpf_obj_get_info_by_fd(fd, &mi, &mlen) &&
		    strstr(mi.name, ".rodata") &&
		    mi.value_size >= sizeof(struct bloomwall__rodata)) {
			*value_size = mi.value_size;
			return fd;
		}
		close(fd);
	}
	return -ENOENT;
}

int bw_prog_header(int prog_fd, struct bw_hdr *hdr)
{
	__u32 key = 0, size;
	char *buf;
	int fd, err = 0;

	fd = rodata_of(prog_fd, &size);
	if (fd < 0)
		return fd;
	buf = calloc(1, size);
	if (!buf)
		err = -ENOMEM;
	else if (bpf_map_lookup_elem(fd, &key, buf))
		err = -errno;
	else
		memcpy(hdr,
		       buf + offsetof(struct bloomwall__rodata, filter_hdr),
		       sizeof(*hdr));
	free(buf);
	close(fd);
	return err;
}

int bw_prog_load(const struct bw_maps *mp, const struct bw_filter_map *m)
{
	struct bloomwall *skel;
	int fd, err;

	skel = bloomwall__open();
	if (!skel)
		return -errno;
	err = reuse_maps(skel, mp, m);
	if (!err)
		err = bw_prog_specialise(skel, m);
	if (!err)
		err = bloomwall__load(skel);
	fd = err ? -1 : dup(bpf_program__fd(skel->progs.bloomwall_xdp));
	if (!err && fd < 0)
		err = -errno;
	bloomwall__destroy(skel);
	return err ? err : fd;
}

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
	bpf_map_lookup_elem(mp->filter, &key, &old_id);
	err = bpf_map_update_elem(mp->filter, &key, &m->id, BPF_ANY) ? -errno
								     : 0;
	if (!err) {
		err = in->install(in->ctx, prog);
		if (err)
			bpf_map_update_elem(mp->filter, &key, &old_id, BPF_ANY);
	}
	close(prog);
	return err;
}

/* The slot holds an id; the map behind it may be freed by a concurrent swap. */
#define OPEN_RETRIES 5

int bw_filter_open_current(int registry_fd, bool writable,
			   struct bw_filter_map *m)
{
	struct bpf_map_info info = {};
	__u32 key = 0, id, len = sizeof(info);
	int tries, err;

	for (tries = 0; tries < OPEN_RETRIES; tries++) {
		if (bpf_map_lookup_elem(registry_fd, &key, &id))
			return errno == ENOENT ? -ENOENT : -errno;
		if (!id)
			return -ENOENT;
		m->fd = bpf_map_get_fd_by_id(id);
		if (m->fd >= 0)
			break;
		if (errno != ENOENT)
			return -errno;
	}
	if (m->fd < 0)
		return -ENOENT;
	if (bpf_obj_get_info_by_fd(m->fd, &info, &len)) {
		err = -errno;
		goto err_close;
	}
	if (info.value_size != BW_BLOCK_BYTES ||
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
