// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch daemon (watch.h): inotify, debounce, the rebuild through
 * reload's path, the log line, the tick (runtime adds, metrics file).
 */
#include <errno.h>
#include <net/if.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/duration.h"
#include "base/log.h"
#include "base/output.h"
#include "base/run_dir.h"
#include "daemon/pull_end.h"
#include "daemon/watch.h"
#include "daemon/watch_apply.h"
#include "daemon/watch_cs.h"
#include "daemon/watch_files.h"
#include "daemon/watch_live.h"
#include "daemon/watch_log.h"
#include "daemon/watch_pull.h"
#include "daemon/watch_state.h"
#include "daemon/watch_sock.h"
#include "kernel/hook.h"
#include "kernel/lock.h"
#include "net/http.h"
#include "ops/daemon_state.h"
#include "out/metrics.h"
#include "out/status_view.h"

/* ---- one rebuild --------------------------------------------------------- */

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

/*
 * One rebuild, in a child through the operations the verbs use: their
 * results give the log line (the one thing printed), their warnings go to
 * stderr as ever. Returns 0 or the rebuild's error.
 */
static int rebuild_cfg(struct watch *w, const struct bw_watch_cfg *c,
		       const char *trigger, bool allow_shrink)
{
	struct bw_watch_guard g = { .fs = &w->fs,
				    .last_keys = w->last_keys,
				    .allow_shrink =
					    allow_shrink || w->c->allow_shrink,
				    .live = w->live };
	struct bw_watch_outcome o;
	struct bw_watch_rebuilt r = { .iface = w->c->iface,
				      .trigger = trigger,
				      .o = &o };
	char name[IF_NAMESIZE];
	double t0 = bw_mono();

	r.old_gen = bw_watch_running_generation(w);
	/* A bad file is tried again only when it changes. */
	bw_watch_files_remember(&w->fs);
	r.err = bw_watch_apply(c, &g, &w->sig, w->lock_fd, &o);
	r.seconds = bw_mono() - t0;
	if (r.err == -BW_WATCH_ESTOPPED)
		return r.err;
	if (r.err == -ENODEV)
		r.renamed = bw_watch_renamed_to(w, name);
	/* What runs now: a rebuild that died may have swapped in first. */
	if (r.err)
		r.old_gen = bw_watch_generation_on(r.renamed ?: w->c->iface);
	bw_watch_log_rebuild(&r, w->c->json);
	if (r.err != -BW_WATCH_ETORN)
		bw_watch_count(w, r.err, r.seconds);
	after(w, r.err, &o);
	bw_watch_cs_rebuilt(&w->cs, r.err);
	bw_watch_write_metrics(w);
	return r.err;
}

static int rebuild(struct watch *w, const char *trigger, bool allow_shrink)
{
	return rebuild_cfg(w, w->c, trigger, allow_shrink);
}

/* ---- watch --url: the pull swaps its download in as --image would -------- */

static int pull_swap(void *ctx, const char *path, const char *trigger)
{
	struct watch *w = ctx;
	struct bw_watch_cfg c = *w->c;

	c.image = path;
	return rebuild_cfg(w, &c, trigger, false);
}

static __u64 pull_generation(void *ctx)
{
	return bw_watch_running_generation(ctx);
}

static void pull_publish(void *ctx)
{
	bw_watch_publish(ctx);
}

/* Its turn in the loop (pfd, n: its sockets as polled). */
static void pull(struct watch *w, bool force, const struct pollfd *pfd, int n)
{
	const struct bw_watch_pull_ops ops = { pull_swap, pull_generation,
					       pull_publish, w };

	if (bw_watch_pull_step(w->pull, w->c, force, pfd, n, &ops))
		bw_watch_write_metrics(w);
}

/* ---- the tick: runtime adds, other commands, metrics ---------------------- */

/* Another command detached the filter, or replaced it: said once. */
static void check_running(struct watch *w, const struct bw_status_view *v)
{
	if (v->prog_err && !w->gone_said)
		printf("%s: bloomwall is not attached anymore; a change of the files (or SIGHUP) attaches it again\n",
		       w->c->iface);
	w->gone_said = v->prog_err != 0;
	if (v->prog_err || v->filter_err || !w->kept_gen ||
	    v->info.generation == w->kept_gen || w->replaced_said)
		return;
	printf("%s: the filter was replaced by another command (generation %llu; this watch put in %llu); a change of the files (or SIGHUP) puts theirs back\n",
	       w->c->iface, (unsigned long long)v->info.generation,
	       (unsigned long long)w->kept_gen);
	w->replaced_said = true;
}

/* Runtime adds past twice the target rate: a rebuild from the lists. */
static bool check_adds(struct watch *w, const struct bw_status_view *v)
{
	char trigger[160];
	int f;

	f = v->prog_err || v->filter_err ? -1 : bw_watch_over_target(v);
	/* Its own build with live entries: a rebuild would set them again. */
	if (f < 0 || v->map_id == w->auto_map ||
	    bw_wlive_own_map(w->live, v->map_id))
		return false;
	w->auto_map = v->map_id;
	snprintf(
		trigger, sizeof(trigger),
		"runtime adds: %s est. fpr %.3g%%, past twice the target %.3g%%",
		f == BW_V4 ? "IPv4" : "IPv6", 100 * v->fam_fpr[f],
		100 * bw_info_fpr(&v->info));
	if (!w->c->image && !w->c->pull) {
		w->counts.rebuilds_auto++;
		rebuild(w, trigger, false);
		return true;
	}
	printf("%s: %s; an image is loaded as it was built: build a new one with the entries\n",
	       w->c->iface, trigger);
	return false;
}

/* A shrunk list that stays as it is goes in after a few checks. */
static bool check_shrunk(struct watch *w)
{
	char what[512];

	if (!w->shrunk)
		return false;
	if (bw_watch_files_changed(&w->fs, what, sizeof(what))) {
		w->shrunk = false;
		return false;
	}
	if (++w->shrunk_ticks < BW_WATCH_SHRINK_TICKS)
		return false;
	rebuild(w, "the shrunk lists stayed as they are", true);
	return true;
}

static void tick(struct watch *w)
{
	struct bw_status_view v;
	const char *writer = bw_watch_files_writing(&w->fs);

	if (bw_watch_files_rearm(&w->fs))
		w->settle = bw_mono();
	if (writer && !w->writer_said) {
		printf("%s: %s is being written; it is read once its writer closes it (SIGHUP reads it now)\n",
		       w->c->iface, writer);
		w->writer_said = true;
	}
	bw_status_gather(&v, w->c->iface);
	check_running(w, &v);
	if (check_shrunk(w) || check_adds(w, &v))
		return;
	if (w->c->metrics_file) {
		bw_watch_live_counts(&w->counts, w->live, &w->cs);
		bw_metrics_write_file(w->c->metrics_file, &v, &w->counts);
	}
}

/*
 * Once a second: live entries whose time came out in place, a filter
 * another command swapped in taken over (and rebuilt for true bases).
 */
static void live_step(struct watch *w)
{
	const char *due = bw_wlive_step(w->live, (__u64)time(NULL));
	char why[160];

	if (due)
		rebuild(w, due, false);
	/* Outgrown: a rebuild with room (an image fixes the layout). */
	else if (!w->c->image &&
		 bw_wlive_outgrown(w->live, bw_mono(), why, sizeof(why)))
		rebuild(w, why, false);
	if (bw_wlive_changed(w->live))
		bw_watch_publish(w);
}

/* ---- the loop ------------------------------------------------------------ */

static struct timespec until(double deadline)
{
	double d = fmax(0.0, deadline - bw_mono());

	return (struct timespec){ .tv_sec = (time_t)d,
				  .tv_nsec = (long)((d - (time_t)d) * 1e9) };
}

/* Just past the next Unix second: an end goes out in the turn it comes. */
static double next_second(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return bw_mono() + 1.0 - ts.tv_nsec / 1e9 + 0.002;
}

/* The events have settled: rebuild if a file changed and none is open. */
static void settled(struct watch *w)
{
	char what[512];

	w->settle = -1;
	if (bw_watch_files_writing(&w->fs))
		return;
	w->writer_said = false;
	if (bw_watch_files_changed(&w->fs, what, sizeof(what)))
		rebuild(w, what, false);
}

/* The first CrowdSec poll, before the loop, stops at once on SIGTERM. */
static bool cs_stop(void *ctx)
{
	struct watch *w = ctx;

	bw_watch_signals_read(&w->sig);
	return w->sig.stop != 0;
}

/*
 * All the watch waits for is an event of this one poll: files, signals,
 * the socket's clients, the HTTP transfers of a CrowdSec poll and of a
 * pull (stepped across turns), timers. No turn waits for a peer.
 */
static void loop(struct watch *w)
{
	struct pollfd p[3 + 2 * BW_HTTP_MAX_FDS] = {
		{ .fd = w->fs.ifd, .events = POLLIN },
		{ .fd = w->sig.fd, .events = POLLIN },
		{ .fd = bw_wsock_fd(&w->sock), .events = POLLIN }
	};
	double interval = w->c->interval ?: BW_WATCH_TICK;
	double next_tick = bw_mono() + interval, next_live = next_second();
	double wake;
	struct timespec ts;
	bool hup = false;
	int ncs, npull, i;

	w->settle = -1;
	while (!w->sig.stop) {
		wake = fmin(next_tick, next_live);
		if (w->settle >= 0)
			wake = fmin(wake, w->settle);
		ncs = bw_watch_cs_fds(&w->cs, p + 3, &wake);
		npull = w->pull ? bw_watch_pull_fds(w->pull, p + 3 + ncs, &wake)
				: 0;
		ts = until(bw_wsock_wake(&w->sock, wake));
		/* Interrupted: no event is to be read from what it left. */
		if (ppoll(p, (nfds_t)(3 + ncs + npull), &ts, NULL) < 0)
			for (i = 0; i < 3 + ncs + npull; i++)
				p[i].revents = 0;
		if (p[0].revents && bw_watch_files_events(&w->fs))
			w->settle = bw_mono() + w->c->debounce;
		bw_watch_signals_read(&w->sig);
		if (w->sig.stop)
			break;
		if (w->sig.hup) {
			w->sig.hup = false;
			w->writer_said = false;
			if (w->pull)
				hup = true;
			else
				rebuild(w, "SIGHUP", false);
		}
		if (!w->sig.stop && w->pull) {
			pull(w, hup, p + 3 + ncs, npull);
			hup = false;
		}
		if (!w->sig.stop && w->settle >= 0 && bw_mono() >= w->settle)
			settled(w);
		if (!w->sig.stop && bw_mono() >= next_tick) {
			tick(w);
			next_tick = bw_mono() + interval;
		}
		/* Every turn: a client's deadline is no event. */
		if (!w->sig.stop)
			bw_wsock_step(&w->sock);
		if (!w->sig.stop && bw_watch_cs_step(&w->cs, p + 3, ncs))
			bw_watch_publish(w);
		if (!w->sig.stop && bw_mono() >= next_live) {
			live_step(w);
			/* What became of the clients, once a second. */
			if (w->sock.changed)
				bw_watch_publish(w);
			next_live = next_second();
		}
	}
}

/*
 * At start: the running filter's keys are what the lists must not halve,
 * its adds left out (a key each: the guard judges the lists), those a
 * remove took out since its build too: its build counted them.
 */
static void start_keys(struct watch *w)
{
	struct bw_status_view v;
	__u64 keys, adds;

	bw_status_gather(&v, w->c->iface);
	if (v.prog_err || v.filter_err)
		return;
	keys = bw_watch_keys(&v.hdr, &v.info, &v.dns);
	adds = v.added_kept > 0 ? (__u64)v.added_kept : 0;
	adds += v.added_gone > 0 ? (__u64)v.added_gone : 0;
	w->last_keys = keys - (adds < keys ? adds : keys);
}

static int start(struct watch *w)
{
	const struct bw_watch_cfg *c = w->c;
	const struct bw_watch_pull_ops ops = { pull_swap, pull_generation,
					       pull_publish, w };
	int err;

	if (c->pull) {
		w->pull = calloc(1, sizeof(*w->pull));
		w->counts.pull = w->pull ? &w->pull->fig : NULL;
		err = w->pull ? bw_watch_files_init(&w->fs, c->iface, NULL, 0)
			      : -ENOMEM;
		return err ?: bw_watch_pull_start(w->pull, c, &ops);
	}
	err = bw_watch_files_init(&w->fs, c->iface,
				  c->image ? &c->image : c->lists,
				  c->image ? 1 : c->nlists);
	if (err)
		return err;
	printf("%s: watching %d %s\n", c->iface, w->fs.n,
	       bw_plural(w->fs.n, "file", "files"));
	start_keys(w);
	/* Starting: whatever runs is made the files' filter. */
	err = rebuild(w, "start", false);
	if (err == -BW_WATCH_ESTOPPED)
		return 0;
	/* A bad file at start with nothing running: nothing to keep. */
	if (err && !bw_hook_prog_id((int)if_nametoindex(c->iface))) {
		printf("%s: watch stopped: no filter could be attached\n",
		       c->iface);
		return err;
	}
	return 0;
}

/* The socket the other verbs ask: without it they ask nothing. */
static void listen_sock(struct watch *w)
{
	int err = bw_wsock_open(&w->sock, w->c->iface, bw_watch_answer, w);

	if (err)
		pr_warn("%s: no socket under %s ('add' swaps a copy in, 'remove' leaves marks the watch finds, 'query --why' lists no decision): %s\n",
			w->c->iface, BW_STATE_DIR, strerror(-err));
}

int bw_watch_run(const struct bw_watch_cfg *c)
{
	struct watch w = { .c = c, .lock_fd = -1, .sig = { .fd = -1 } };
	int err;

	/* A line as it happens, also into a pipe or the journal. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The log lines are the output: no document at the end. */
	bw_out_begin(false, NULL);
	w.counts.last_seconds = -1;
	w.counts.started = (__u64)time(NULL);
	w.ifindex = (int)if_nametoindex(c->iface);
	w.fs.ifd = -1;
	bw_wsock_init(&w.sock);
	/* A decision source: its /32s and /128s get targets of their own. */
	w.live = bw_wlive_new(c->iface, c->crowdsec != NULL);
	bw_watch_cs_init(&w.cs, c);
	err = w.live ? bw_watch_signals_open(&w.sig) : -ENOMEM;
	if (!err) {
		w.lock_fd = bw_lock_watch(c->iface);
		err = w.lock_fd < 0 ? w.lock_fd : 0;
	}
	/* The CrowdSec options checked before anything is attached. */
	if (!err)
		err = bw_watch_cs_open(&w.cs, w.live);
	if (!err)
		listen_sock(&w);
	/* The decisions first: the start's filter has them (none dropped). */
	if (!err)
		bw_watch_cs_first(&w.cs, cs_stop, w.sig.fd, &w);
	if (!err)
		err = start(&w);
	bw_watch_cs_started(&w.cs);
	if (!err) {
		bw_watch_publish(&w);
		loop(&w);
		bw_watch_stop(&w);
	}
	/* The state file is this watch's while it holds the lock. */
	if (w.lock_fd >= 0)
		bw_dstate_remove(c->iface);
	bw_watch_cs_close(&w.cs);
	bw_wsock_close(&w.sock);
	bw_wlive_free(w.live);
	fflush(stdout);
	bw_watch_pull_free(w.pull);
	bw_watch_files_free(&w.fs);
	bw_watch_signals_close(&w.sig);
	bw_lock_watch_release(c->iface, w.lock_fd);
	return err;
}
