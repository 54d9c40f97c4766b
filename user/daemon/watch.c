// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch daemon (watch.h): inotify, debounce, the loop, the tick
 * (runtime adds, metrics file); its rebuilds are watch_rebuild.c's.
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
#include "daemon/watch_rebuild.h"
#include "daemon/watch_state.h"
#include "daemon/watch_sock.h"
#include "daemon/watch_src.h"
#include "kernel/hook.h"
#include "kernel/lock.h"
#include "net/http.h"
#include "ops/daemon_state.h"
#include "out/metrics.h"
#include "out/status_view.h"

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
		bw_watch_rebuild(w, trigger, false);
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
	bw_watch_rebuild(w, "the shrunk lists stayed as they are", true);
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
	if (w->c->metrics_file || w->http)
		bw_watch_put_metrics(w, &v);
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
	if (bw_watch_rebuild_busy(w))
		;
	else if (due)
		bw_watch_rebuild(w, due, false);
	/* Outgrown: a rebuild with room (an image fixes the layout). */
	else if (!w->c->image &&
		 bw_wlive_outgrown(w->live, bw_mono(), why, sizeof(why)))
		bw_watch_rebuild(w, why, false);
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
		bw_watch_rebuild(w, what, false);
}

/*
 * The start, once the first CrowdSec poll ended (a failed one too), so
 * that the start's filter is built with the decisions laid out in it:
 * whatever runs is made the files' filter, or the pull's last image.
 */
static void begin(struct watch *w)
{
	w->begun = true;
	if (w->pull) {
		bw_watch_rebuild_pull_start(w);
		return;
	}
	w->job_start = true;
	bw_watch_rebuild(w, "start", false);
}

/* SIGTERM or SIGINT, or a start that failed: the loop ends. */
static bool ending(const struct watch *w)
{
	return w->sig.stop || w->end_err;
}

/* The start begins once the first decisions came, and ends: READY. */
static void starting(struct watch *w)
{
	if (!w->begun && bw_watch_cs_first_done(&w->cs) &&
	    bw_wsrc_first_done(&w->src)) {
		/* A list by URL with no copy to start from: as a missing file. */
		if (bw_wsrc_missing(&w->src)) {
			w->end_err = -ENOENT;
			return;
		}
		begin(w);
	}
	if (!w->started && w->begun && !bw_watch_rebuild_busy(w)) {
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
		bw_watch_rebuild_pull(w, hup, pfd, npull);
	else if (hup)
		bw_watch_rebuild(w, "SIGHUP", false);
	if (!w->started || bw_watch_rebuild_busy(w) || ending(w))
		return;
	if (w->settle >= 0 && bw_mono() >= w->settle)
		settled(w);
	if (!bw_watch_rebuild_busy(w) && bw_mono() >= *next_tick) {
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
	struct pollfd p[4 + (2 + BW_SRC_MAX) * BW_HTTP_MAX_FDS] = {
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
	int ncs, npull, nsrc, i;

	w->settle = -1;
	while (!ending(w)) {
		starting(w);
		if (ending(w))
			break;
		wake = next_live;
		/* A rebuild runs: the tick and the settled events wait. */
		if (w->started && !bw_watch_rebuild_busy(w))
			wake = fmin(wake, w->settle >= 0
						  ? fmin(w->settle, next_tick)
						  : next_tick);
		if (w->hup && bw_mono() < w->hup_until)
			wake = fmin(wake, w->hup_until);
		p[3].fd = bw_watch_rebuild_busy(w) ? w->job.fd : -1;
		ncs = bw_watch_cs_fds(&w->cs, p + 4, &wake);
		npull = w->pull ? bw_watch_pull_fds(w->pull, p + 4 + ncs, &wake)
				: 0;
		nsrc = bw_wsrc_fds(&w->src, p + 4 + ncs + npull, &wake);
		ts = until(bw_wsock_wake(&w->sock, wake));
		/* Interrupted: no event is to be read from what it left. */
		if (ppoll(p, (nfds_t)(4 + ncs + npull + nsrc), &ts, NULL) < 0)
			for (i = 0; i < 4 + ncs + npull + nsrc; i++)
				p[i].revents = 0;
		if (p[0].revents && bw_watch_files_events(&w->fs))
			w->settle = bw_mono() + w->c->debounce;
		bw_watch_signals_read(&w->sig);
		if (w->sig.stop)
			break;
		if (bw_watch_rebuild_busy(w) && p[3].revents)
			bw_watch_rebuild_ended(w);
		if (w->sig.hup) {
			w->sig.hup = false;
			w->writer_said = false;
			w->hup = true;
			w->hup_until = bw_mono() + BW_WATCH_HUP_WAIT;
			bw_wsrc_now(&w->src);
		}
		if (bw_watch_cs_step(&w->cs, p + 4, ncs))
			bw_watch_publish(w);
		/* A new copy is a changed list file: inotify says so. */
		if (bw_wsrc_step(&w->src, p + 4 + ncs + npull))
			bw_watch_publish(w);
		starting(w);
		/*
		 * SIGHUP waits for the start, for the rebuild under way and
		 * (for a while) for the fetches it started.
		 */
		hup = w->hup && w->started && !bw_watch_rebuild_busy(w) &&
		      (!bw_wsrc_busy(&w->src) || bw_mono() >= w->hup_until);
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
	if (bw_watch_rebuild_busy(w))
		bw_watch_apply_end(&w->job, w->live, true, &o);
}

/*
 * At start: the running filter's keys are what the lists must not halve,
 * its adds left out (a key each: the guard judges the lists), those a
 * remove took out since its build too: its build counted them.
 */
/*
 * A watch that finds the interface attached keeps its egress hook: with
 * --egress the first rebuild puts one on where there is none; without,
 * one that is there stays, and every swap replaces both.
 */
static void say_egress(const struct watch *w, const struct bw_status_view *v)
{
	const char *iface = w->c->iface;

	if (v->prog_err)
		return;
	if (!w->c->egress && !v->egress_err)
		printf("%s: its egress hook runs bloomwall's TC program (id %u): kept, and each rebuild swaps both hooks ('bloomwall detach %s' takes both off)\n",
		       iface, v->egress_id, iface);
	else if (w->c->egress && v->egress_err == -ENOENT)
		printf("%s: it has no egress hook yet: the first rebuild puts the TC program on (--egress)\n",
		       iface);
}

static void start_keys(struct watch *w)
{
	struct bw_status_view v;
	__u64 keys, adds;

	bw_status_gather(&v, w->c->iface);
	say_egress(w, &v);
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
	err = bw_wsrc_init(&w->src, c->src, c->iface);
	if (err)
		return err;
	w->counts.src = w->src.fig;
	w->counts.nsrc = w->src.n;
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

/*
 * --metrics-listen: the server runs in a thread of its own, started
 * once the signals are blocked (they stay blocked there); what runs is
 * served from the start, then as each tick and rebuild renders it.
 */
static int listen_metrics(struct watch *w)
{
	char why[160];
	int err;

	if (!w->c->metrics_listen)
		return 0;
	err = bw_http_serve_start(&w->http, w->c->metrics_listen, "/metrics",
				  BW_METRICS_CONTENT_TYPE, why, sizeof(why));
	if (err) {
		pr_warn("bloomwall watch: --metrics-listen %s: %s\n",
			w->c->metrics_listen, why);
		return err;
	}
	printf("%s: serving the metrics on http://%s/metrics\n", w->c->iface,
	       w->c->metrics_listen);
	bw_watch_write_metrics(w);
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
		err = listen_metrics(&w);
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
	/* Its peers closed at once, whatever they were doing. */
	bw_http_serve_stop(w.http);
	w.http = NULL;
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
	bw_wsrc_free(&w.src);
	bw_watch_files_free(&w.fs);
	bw_watch_signals_close(&w.sig);
	bw_lock_watch_release(c->iface, w.lock_fd);
	return err;
}
