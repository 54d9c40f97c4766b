// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's rebuilds (watch_rebuild.h): one at a time in a child, its
 * end taken, the log line, and the pull's swaps as rebuilds.
 */
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <stdio.h>

#include "base/duration.h"
#include "base/log.h"
#include "daemon/watch_cs.h"
#include "daemon/watch_log.h"
#include "daemon/watch_pull.h"
#include "daemon/watch_rebuild.h"
#include "daemon/watch_state.h"
#include "kernel/hook.h"

static void pull_swap(void *ctx, const char *path, const char *trigger);
static __u64 pull_generation(void *ctx);
static void pull_publish(void *ctx);

/* What the pull needs of the watch: its swaps are the watch's rebuilds. */
#define PULL_OPS(w)                                                    \
	((const struct bw_watch_pull_ops){ pull_swap, pull_generation, \
					   pull_publish, (w) })

/* What a rebuild's end means for the next: kept, kept out, read again. */
static void after(struct watch *w, int err, const struct bw_watch_outcome *o)
{
	w->shrunk = err == -BW_WATCH_ESHRUNK;
	w->shrunk_ticks = 0;
	if (err == -BW_WATCH_ETORN)
		w->settle = bw_mono() + fmax(w->c->debounce, 0.1);
	/* The rebuild died (killed, out of memory): tried again, later. */
	if (err == -EIO) {
		bw_watch_files_forget(&w->fs);
		w->settle = bw_mono() + fmax(w->c->debounce, 1.0);
	}
	if (err)
		return;
	w->kept_gen = o->generation;
	w->replaced_said = false;
	w->last_keys = o->keys;
	if (o->empty)
		pr_warn("warning: the lists hold no entries: the filter on %s passes everything\n",
			w->c->iface);
}

bool bw_watch_rebuild_busy(const struct watch *w)
{
	return w->job.pid > 0;
}

/*
 * A rebuild ended with err (o: what runs now): the log line (the one
 * thing printed; the operations' warnings went to stderr as ever), the
 * counts, what it means for the next, and for the start or the pull that
 * asked for it.
 */
static void rebuilt(struct watch *w, int err, const struct bw_watch_outcome *o)
{
	struct bw_watch_rebuilt r = { .iface = w->c->iface,
				      .trigger = w->trigger,
				      .o = o,
				      .err = err,
				      .old_gen = w->job_old_gen };
	char name[IF_NAMESIZE];

	r.seconds = bw_mono() - w->job_t0;
	if (err == -ENODEV)
		r.renamed = bw_watch_renamed_to(w, name);
	/* What runs now: a rebuild that died may have swapped in first. */
	if (err)
		r.old_gen = bw_watch_generation_on(r.renamed ?: w->c->iface);
	/* A bad file at start with nothing running: nothing to keep. */
	r.ends_watch = w->job_start && err &&
		       !bw_hook_prog_id((int)if_nametoindex(w->c->iface));
	bw_watch_log_rebuild(&r, w->c->json);
	if (err != -BW_WATCH_ETORN)
		bw_watch_count(w, err, r.seconds);
	after(w, err, o);
	bw_watch_cs_rebuilt(&w->cs, err);
	bw_watch_write_metrics(w);
	if (w->job_pull)
		bw_watch_pull_swapped(w->pull, err,
				      bw_watch_running_generation(w),
				      &PULL_OPS(w));
	if (r.ends_watch) {
		printf("%s: watch stopped: no filter could be attached\n",
		       w->c->iface);
		w->end_err = err;
	}
	w->job_start = w->job_pull = false;
	bw_watch_publish(w);
}

void bw_watch_rebuild_ended(struct watch *w)
{
	struct bw_watch_outcome o;
	int err = bw_watch_apply_end(&w->job, w->live, false, &o);

	rebuilt(w, err, &o);
}

/*
 * A rebuild starts, in a child through the operations the verbs use; the
 * loop goes on meanwhile (job_ended takes its end). 0, or the error it
 * could not start with (said, and its log line written).
 */
static int rebuild_cfg(struct watch *w, const struct bw_watch_cfg *c,
		       const char *trigger, bool allow_shrink)
{
	struct bw_watch_guard g = { .fs = &w->fs,
				    .last_keys = w->last_keys,
				    .allow_shrink =
					    allow_shrink || w->c->allow_shrink,
				    .live = w->live };
	struct bw_watch_outcome o = { 0 };
	int err;

	snprintf(w->trigger, sizeof(w->trigger), "%s", trigger);
	w->job_t0 = bw_mono();
	w->job_old_gen = bw_watch_running_generation(w);
	/* A bad file is tried again only when it changes. */
	bw_watch_files_remember(&w->fs);
	err = bw_watch_apply_start(c, &g, &w->job);
	if (err)
		rebuilt(w, err, &o);
	return err;
}

int bw_watch_rebuild(struct watch *w, const char *trigger, bool allow_shrink)
{
	return rebuild_cfg(w, w->c, trigger, allow_shrink);
}

/* ---- watch --url: the pull swaps its download in as --image would -------- */

static void pull_swap(void *ctx, const char *path, const char *trigger)
{
	struct watch *w = ctx;
	struct bw_watch_cfg c = *w->c;

	c.image = path;
	/* Its end, or its failure to start, comes to the pull (rebuilt). */
	w->job_pull = true;
	rebuild_cfg(w, &c, trigger, false);
}

static __u64 pull_generation(void *ctx)
{
	return bw_watch_running_generation(ctx);
}

static void pull_publish(void *ctx)
{
	bw_watch_publish(ctx);
}

void bw_watch_rebuild_pull(struct watch *w, bool force,
			   const struct pollfd *pfd, int n)
{
	if (bw_watch_pull_step(w->pull, w->c, force, pfd, n, &PULL_OPS(w)))
		bw_watch_write_metrics(w);
}

void bw_watch_rebuild_pull_start(struct watch *w)
{
	bw_watch_pull_start(w->pull, w->c, &PULL_OPS(w));
}
