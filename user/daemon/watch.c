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

static void pull_swap(void *ctx, const char *path, const char *trigger);
static __u64 pull_generation(void *ctx);
static void pull_publish(void *ctx);

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

/* Whether a rebuild runs (one at a time; what asks for one waits). */
static bool busy(const struct watch *w)
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
	const struct bw_watch_pull_ops ops = { pull_swap, pull_generation,
					       pull_publish, w };
	char name[IF_NAMESIZE];

	r.seconds = bw_mono() - w->job_t0;
	if (err == -ENODEV)
		r.renamed = bw_watch_renamed_to(w, name);
	/* What runs now: a rebuild that died may have swapped in first. */
	if (err)
		r.old_gen = bw_watch_generation_on(r.renamed ?: w->c->iface);
	bw_watch_log_rebuild(&r, w->c->json);
	if (err != -BW_WATCH_ETORN)
		bw_watch_count(w, err, r.seconds);
	after(w, err, o);
	bw_watch_cs_rebuilt(&w->cs, err);
	bw_watch_write_metrics(w);
	if (w->job_pull)
		bw_watch_pull_swapped(w->pull, err,
				      bw_watch_running_generation(w), &ops);
	/* A bad file at start with nothing running: nothing to keep. */
	if (w->job_start && err &&
	    !bw_hook_prog_id((int)if_nametoindex(w->c->iface))) {
		printf("%s: watch stopped: no filter could be attached\n",
		       w->c->iface);
		w->end_err = err;
	}
	w->job_start = w->job_pull = false;
	bw_watch_publish(w);
}

/* The rebuild under way ended (its pipe is readable): its result taken. */
static void job_ended(struct watch *w)
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

static int rebuild(struct watch *w, const char *trigger, bool allow_shrink)
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

	/* While a rebuild runs only ends are due (its end takes over). */
	if (busy(w))
		;
	else if (due)
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

/*
 * The start, once the first CrowdSec poll ended (a failed one too), so
 * that the start's filter is built with the decisions laid out in it:
 * whatever runs is made the files' filter, or the pull's last image.
 */
static void begin(struct watch *w)
{
	const struct bw_watch_pull_ops ops = { pull_swap, pull_generation,
					       pull_publish, w };

	w->begun = true;
	if (w->pull) {
		bw_watch_pull_start(w->pull, w->c, &ops);
		return;
	}
	w->job_start = true;
	rebuild(w, "start", false);
}

/* SIGTERM or SIGINT, or a start that failed: the loop ends. */
static bool ending(const struct watch *w)
{
	return w->sig.stop || w->end_err;
}

/* The start begins once the first decisions came, and ends: READY. */
static void starting(struct watch *w)
{
	if (!w->begun && bw_watch_cs_first_done(&w->cs))
		begin(w);
	if (!w->started && w->begun && !busy(w)) {
		w->started = true;
		bw_watch_cs_started(&w->cs);
		bw_watch_publish(w);
	}
}

/* The turn's work that starts rebuilds: one at a time, none while busy. */
static void rebuilds(struct watch *w, bool hup, const struct pollfd *pfd,
		     int npull, double *next_tick)
{
	if (w->pull && w->started)
		pull(w, hup, pfd, npull);
	else if (hup)
		rebuild(w, "SIGHUP", false);
	if (!w->started || busy(w) || ending(w))
		return;
	if (w->settle >= 0 && bw_mono() >= w->settle)
		settled(w);
	if (!busy(w) && bw_mono() >= *next_tick) {
		tick(w);
		*next_tick = bw_mono() + (w->c->interval ?: BW_WATCH_TICK);
	}
}

/*
 * All the watch waits for is an event of this one poll: files, signals,
 * the socket's clients, the rebuild's child, the HTTP transfers of a
 * CrowdSec poll and of a pull (stepped across turns), timers. No turn
 * waits for a peer, nor for a rebuild.
 */
static void loop(struct watch *w)
{
	struct pollfd p[4 + 2 * BW_HTTP_MAX_FDS] = {
		{ .fd = w->fs.ifd, .events = POLLIN },
		{ .fd = w->sig.fd, .events = POLLIN },
		{ .fd = bw_wsock_fd(&w->sock), .events = POLLIN },
		{ .fd = -1, .events = POLLIN }
	};
	double next_tick = bw_mono() + (w->c->interval ?: BW_WATCH_TICK);
	double next_live = next_second(), wake;
	struct bw_watch_outcome o;
	struct timespec ts;
	bool hup;
	int ncs, npull, i;

	w->settle = -1;
	while (!ending(w)) {
		starting(w);
		if (ending(w))
			break;
		wake = next_live;
		/* A rebuild runs: the tick and the settled events wait. */
		if (w->started && !busy(w))
			wake = fmin(wake, w->settle >= 0
						  ? fmin(w->settle, next_tick)
						  : next_tick);
		p[3].fd = busy(w) ? w->job.fd : -1;
		ncs = bw_watch_cs_fds(&w->cs, p + 4, &wake);
		npull = w->pull ? bw_watch_pull_fds(w->pull, p + 4 + ncs, &wake)
				: 0;
		ts = until(bw_wsock_wake(&w->sock, wake));
		/* Interrupted: no event is to be read from what it left. */
		if (ppoll(p, (nfds_t)(4 + ncs + npull), &ts, NULL) < 0)
			for (i = 0; i < 4 + ncs + npull; i++)
				p[i].revents = 0;
		if (p[0].revents && bw_watch_files_events(&w->fs))
			w->settle = bw_mono() + w->c->debounce;
		bw_watch_signals_read(&w->sig);
		if (w->sig.stop)
			break;
		if (busy(w) && p[3].revents)
			job_ended(w);
		if (w->sig.hup) {
			w->sig.hup = false;
			w->writer_said = false;
			w->hup = true;
		}
		if (bw_watch_cs_step(&w->cs, p + 4, ncs))
			bw_watch_publish(w);
		starting(w);
		/* SIGHUP waits for the start and for the rebuild under way. */
		hup = w->hup && w->started && !busy(w);
		if (hup)
			w->hup = false;
		if (!ending(w))
			rebuilds(w, hup, p + 4 + ncs, npull, &next_tick);
		/* Every turn: a client's deadline is no event. */
		bw_wsock_step(&w->sock);
		if (bw_mono() >= next_live) {
			live_step(w);
			/* What became of the clients, once a second. */
			if (w->sock.changed)
				bw_watch_publish(w);
			next_live = next_second();
		}
	}
	/* Stopped: the rebuild under way killed, what runs taken over. */
	if (busy(w))
		bw_watch_apply_end(&w->job, w->live, true, &o);
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

/* What the start needs before the loop: the files, or the pull. */
static int start(struct watch *w)
{
	const struct bw_watch_cfg *c = w->c;
	int err;

	if (c->pull) {
		w->pull = calloc(1, sizeof(*w->pull));
		w->counts.pull = w->pull ? &w->pull->fig : NULL;
		err = w->pull ? bw_watch_files_init(&w->fs, c->iface, NULL, 0)
			      : -ENOMEM;
		return err ?: bw_watch_pull_init(w->pull, c);
	}
	err = bw_watch_files_init(&w->fs, c->iface,
				  c->image ? &c->image : c->lists,
				  c->image ? 1 : c->nlists);
	if (err)
		return err;
	printf("%s: watching %d %s\n", c->iface, w->fs.n,
	       bw_plural(w->fs.n, "file", "files"));
	start_keys(w);
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
	struct watch w = {
		.c = c, .lock_fd = -1, .sig = { .fd = -1 }, .job = { .fd = -1 }
	};
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
	if (!err)
		err = start(&w);
	/* The decisions first: the start's filter has them (none dropped). */
	if (!err)
		bw_watch_cs_first(&w.cs);
	if (!err) {
		bw_watch_publish(&w);
		loop(&w);
		err = w.end_err;
	}
	if (!err && w.sig.stop)
		bw_watch_stop(&w);
	bw_watch_cs_started(&w.cs);
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
