// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A rebuild's hand-over of the watch's live entries (live_stage.h): the
 * child stages the new filter's bases into a memfd, the parent takes the
 * new running map over from them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "base/file.h"
#include "base/log.h"
#include "daemon/live_priv.h"
#include "daemon/live_stage.h"
#include "filter/records.h"
#include "filter/records_edit.h"
#include "filter/records_gone.h"
#include "filter/records_read.h"
#include "kernel/running.h"

#define STAGE_MAGIC 0x564c5742U /* "BWLV" */
/* stage_hdr.flags: an add the new filter cannot keep live. */
#define STAGE_IN_BASE 1U

/* At the start of the memfd; the bases follow. */
struct stage_hdr {
	__u32 magic;
	__u32 map_id; /* of the new filter they are of */
	__u32 n;
	__u32 flags;
};

int bw_wlive_fork_begin(struct bw_wlive *l)
{
	if (l->memfd < 0)
		l->memfd = memfd_create("bloomwall-live", MFD_CLOEXEC);
	if (l->memfd < 0 || ftruncate(l->memfd, 0)) {
		pr_warn("%s: live entries: memfd: %s\n", l->iface,
			strerror(errno));
		return -errno;
	}
	bw_wsize_begin(&l->size);
	bw_wlive_enter(l, BW_WLIVE_STAGING, NULL, 0);
	return 0;
}

/* len bytes of buf at off of fd: 0 or -errno. */
static int write_at(int fd, const void *buf, size_t len, off_t off)
{
	if (lseek(fd, off, SEEK_SET) < 0)
		return -errno;
	return bw_write_all(fd, buf, len);
}

int bw_wlive_stage(void *ctx, const struct bw_filter_map *m)
{
	struct bw_wlive *l = ctx;
	struct stage_hdr h = { .magic = STAGE_MAGIC, .map_id = m->id };
	struct bw_live_rec *recs;
	int err;

	if (!l || l->run != BW_WLIVE_STAGING)
		return 0;
	err = bw_live_layout(&l->set, m->mem);
	if (!err)
		err = bw_wlive_adopt(l, m, m->mem, true);
	if (err == -ENOENT || err == -E2BIG) {
		h.flags = STAGE_IN_BASE;
		write_at(l->memfd, &h, sizeof(h), 0);
		pr_warn("%s: not swapped in; the next rebuild builds the adds in\n",
			l->iface);
		return err;
	}
	h.n = (__u32)bw_live_nblocks(&l->set);
	recs = err ? NULL : calloc(h.n ? h.n : 1, sizeof(*recs));
	if (!recs) {
		pr_warn("%s: live entries: no memory for the new filter's bases\n",
			l->iface);
		return -ENOMEM;
	}
	bw_live_snapshot(&l->set, recs);
	err = write_at(l->memfd, recs, h.n * sizeof(*recs), sizeof(h));
	free(recs);
	/* The header last: a child killed before it leaves none. */
	if (!err)
		err = write_at(l->memfd, &h, sizeof(h), 0);
	if (err) {
		pr_warn("%s: live entries: cannot hand the bases over: %s\n",
			l->iface, strerror(-err));
		return err;
	}
	bw_live_reapply(&l->set, m->mem);
	return 0;
}

/* The child's bases for map_id: mapped from the memfd, or NULL. */
static struct bw_live_rec *staged_recs(struct bw_wlive *l, __u32 map_id,
				       size_t *n, void **map, size_t *len)
{
	struct stage_hdr h;
	off_t size;

	*map = NULL;
	if (l->memfd < 0 ||
	    pread(l->memfd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    h.magic != STAGE_MAGIC)
		return NULL;
	if (h.flags & STAGE_IN_BASE) {
		l->adds_in_base = true;
		l->want =
			"live entries: adds the new filter cannot keep live, built in";
	}
	if (h.map_id != map_id)
		return NULL;
	size = lseek(l->memfd, 0, SEEK_END);
	if (size < 0 ||
	    (__u64)size < sizeof(h) + h.n * sizeof(struct bw_live_rec))
		return NULL;
	*len = (size_t)size;
	*map = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE, l->memfd,
		    0);
	if (*map == MAP_FAILED) {
		*map = NULL;
		return NULL;
	}
	*n = (size_t)h.n;
	return (struct bw_live_rec *)((char *)*map + sizeof(h));
}

/*
 * A filter the watch built the adds into: rebuilt at their next end, and
 * kept so while its records hold one.
 */
static void adopt_built(struct bw_wlive *l)
{
	__u64 now = (__u64)time(NULL);
	struct bw_records r;
	size_t held;

	/* Verify mode builds them in: they end and go by rebuilds. */
	if (bw_wlive_verify(l->map.mem))
		l->adds_in_base = true;
	if (!l->adds_in_base)
		return;
	l->base_expiry = 0;
	if (bw_records_read(l->map.mem, l->map.nblocks, &r))
		return;
	held = r.added.n - bw_records_expired(&r, BW_ENTRY_ANY, now);
	l->base_expiry = bw_records_next_expiry(&r);
	bw_records_free(&r);
	if (!held)
		l->adds_in_base = false;
}

void bw_wlive_fork_end(struct bw_wlive *l)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_live_rec *recs;
	__u32 prog = 0;
	size_t n = 0, len = 0;
	void *map = NULL;
	bool own = false;

	if (l->run != BW_WLIVE_STAGING)
		return;
	if (bw_running_map(l->iface, true, &m, &prog)) {
		bw_wlive_enter(l, l->resume, NULL, l->prog_id);
		goto out;
	}
	recs = staged_recs(l, m.id, &n, &map, &len);
	if (m.id == l->map.id && l->map.fd >= 0) {
		/* Not swapped: the old filter runs, as the set left it. */
		bw_filter_close(&m);
		bw_wlive_enter(l, l->resume, NULL, prog);
		goto out;
	}
	if (!recs) {
		/* Not the filter the child staged: someone else's. */
		bw_wlive_take_over(l, &m, prog);
		goto out;
	}
	bw_wlive_enter(l, BW_WLIVE_OWN, &m, prog);
	adopt_built(l);
	if (bw_live_layout(&l->set, l->map.mem) ||
	    bw_wlive_adopt(l, &l->map, NULL, false))
		pr_warn("%s: live entries: no memory to lay them out\n",
			l->iface);
	else
		bw_live_rebase(&l->set, l->map.mem, recs, n);
	l->want = NULL;
	l->changed = true;
	own = true;
out:
	bw_wsize_end(&l->size, own);
	if (map)
		munmap(map, len);
	if (l->memfd >= 0 && ftruncate(l->memfd, 0))
		pr_debug("%s: live entries: memfd: %s\n", l->iface,
			 strerror(errno));
}
