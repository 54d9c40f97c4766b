// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch daemon (watch.h): inotify, debounce, the rebuild through
 * reload's path, the log line, the tick (runtime adds, metrics file).
 */
#include <errno.h>
#include <libgen.h>
#include <net/if.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/output.h"
#include "daemon/watch.h"
#include "daemon/watch_apply.h"
#include "ops/detach.h"
#include "out/metrics.h"
#include "out/op_report.h"
#include "out/status_view.h"

/* What a change of a file in a watched directory looks like. */
#define WATCH_MASK                                                  \
	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | \
	 IN_DELETE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)

struct watched {
	const char *path;
	char *dir;
	struct stat st; /* as of the last rebuild; st_ino 0: none */
};

struct watch {
	const struct bw_watch_cfg *c;
	struct watched *f;
	int nf;
	int ifd;
	bool json;
	bool gone_said; /* "not attached anymore" said once */
	/* The filter map a rebuild for adds was last tried for: an add swaps
	 * in a copy (a new map) of the same generation. */
	__u32 auto_map;
	struct bw_watch_counts counts;
};

static volatile sig_atomic_t got_stop, got_hup;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		got_hup = 1;
	else
		got_stop = sig;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the files ----------------------------------------------------------- */

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Through symlinks: a volume's ..data swap changes what they reach. */
static void identity(const char *path, struct stat *st)
{
	if (stat(path, st))
		memset(st, 0, sizeof(*st));
}

/* The files that changed since the last rebuild, named in what. */
static int changed(const struct watch *w, char *what, size_t len)
{
	struct stat st;
	size_t n = 0;
	int i, count = 0;

	for (i = 0; i < w->nf; i++) {
		identity(w->f[i].path, &st);
		if (same_file(&st, &w->f[i].st))
			continue;
		if (n < len)
			n += snprintf(what + n, len - n, "%s%s",
				      count ? ", " : "change of ",
				      w->f[i].path);
		count++;
	}
	return count;
}

static void remember(struct watch *w)
{
	int i;

	for (i = 0; i < w->nf; i++)
		identity(w->f[i].path, &w->f[i].st);
}

static int watch_file(struct watch *w, const char *path)
{
	struct watched *f = &w->f[w->nf];
	char *copy;

	if (!strcmp(path, "-")) {
		pr_warn("bloomwall watch: standard input ('-') cannot be watched; give list files\n");
		return -BW_EUSAGE;
	}
	copy = strdup(path);
	f->dir = copy ? strdup(dirname(copy)) : NULL;
	free(copy);
	if (!f->dir)
		return -ENOMEM;
	f->path = path;
	w->nf++;
	/* The same directory twice gives the same watch: no harm. */
	if (inotify_add_watch(w->ifd, f->dir, WATCH_MASK) < 0) {
		pr_warn("bloomwall watch: cannot watch the directory %s: %s\n",
			f->dir, strerror(errno));
		return -errno;
	}
	return 0;
}

static int files_init(struct watch *w)
{
	const struct bw_watch_cfg *c = w->c;
	int i, n = c->image ? 1 : c->nlists, err = 0;

	w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->ifd < 0) {
		pr_warn("bloomwall watch: inotify: %s\n", strerror(errno));
		return -errno;
	}
	w->f = calloc(n, sizeof(*w->f));
	if (!w->f)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++)
		err = watch_file(w, c->image ?: c->lists[i]);
	return err;
}

/* Reads every pending event; 1 if there was any. */
static int drain(int ifd)
{
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	int any = 0;

	while (read(ifd, buf, sizeof(buf)) > 0)
		any = 1;
	return any;
}

/* ---- one rebuild --------------------------------------------------------- */

static void log_line(const struct watch *w, int err, const char *trigger,
		     const struct bw_watch_outcome *o, double secs,
		     __u64 old_gen)
{
	if (w->json) {
		/* One record a reload; the watch prints text otherwise. */
		bw_out_begin(true, NULL);
		bw_out_stream_begin();
		bw_out_record_begin();
		bw_out_string("iface", NULL, w->c->iface);
		bw_out_string("result", NULL, err ? "failed" : "ok");
		bw_out_u64("generation", NULL, err ? old_gen : o->generation);
		bw_out_u64("entries", NULL, o->entries);
		bw_out_u64("bytes", NULL, o->bytes);
		bw_out_double("seconds", NULL, secs);
		bw_out_string("trigger", NULL, trigger);
		bw_out_record_end();
		bw_out_begin(false, NULL);
	} else if (!err) {
		printf("%s: reload ok: generation %llu, %'llu entries, %'llu bytes, %.3f s (%s)\n",
		       w->c->iface, (unsigned long long)o->generation,
		       (unsigned long long)o->entries,
		       (unsigned long long)o->bytes, secs, trigger);
	} else if (old_gen) {
		printf("%s: reload FAILED after %.3f s (%s): the last good filter stays (generation %llu); fix the file and it is tried again\n",
		       w->c->iface, secs, trigger, (unsigned long long)old_gen);
	} else {
		printf("%s: reload FAILED after %.3f s (%s): no filter runs; fix the file and it is tried again\n",
		       w->c->iface, secs, trigger);
	}
	fflush(stdout);
}

static __u64 running_generation(const char *iface)
{
	struct bw_status_view v;

	bw_status_gather(&v, iface);
	return v.filter_err ? 0 : v.info.generation;
}

static void write_metrics(struct watch *w)
{
	struct bw_status_view v;

	if (!w->c->metrics_file)
		return;
	bw_status_gather(&v, w->c->iface);
	bw_metrics_write_file(w->c->metrics_file, &v, &w->counts);
}

/*
 * One rebuild, through the operations the verbs use: their results give
 * the log line (the one thing printed), their warnings go to stderr as
 * ever. Returns 0 or the rebuild's error.
 */
static int rebuild(struct watch *w, const char *trigger)
{
	__u64 old_gen = running_generation(w->c->iface);
	struct bw_watch_outcome o;
	double t0 = mono(), secs;
	int err;

	remember(w); /* a bad file is tried again only when it changes */
	err = bw_watch_apply(w->c, &o);
	secs = mono() - t0;
	if (!err && o.empty)
		pr_warn("warning: the lists hold no entries: the filter on %s passes everything\n",
			w->c->iface);
	log_line(w, err, trigger, &o, secs, old_gen);
	if (err)
		w->counts.reloads_failed++;
	else
		w->counts.reloads_ok++;
	w->counts.last_ok = !err;
	w->counts.last_seconds = secs;
	w->counts.last_time = (double)time(NULL);
	write_metrics(w);
	return err;
}

/* ---- the tick: runtime adds, metrics -------------------------------------- */

/* The family whose estimated rate is past twice the target, or -1. */
static int over_target(const struct bw_status_view *v)
{
	double target = bw_info_fpr(&v->info);
	int f;

	for (f = 0; f < BW_FAMILIES; f++)
		if (v->fam_fpr[f] > 2 * target)
			return f;
	return -1;
}

static void tick(struct watch *w)
{
	struct bw_status_view v;
	char trigger[160];
	int f;

	bw_status_gather(&v, w->c->iface);
	if (v.prog_err && !w->gone_said)
		printf("%s: bloomwall is not attached anymore; a change of the files (or SIGHUP) attaches it again\n",
		       w->c->iface);
	w->gone_said = v.prog_err != 0;
	f = v.prog_err || v.filter_err ? -1 : over_target(&v);
	if (f >= 0 && v.map_id != w->auto_map) {
		w->auto_map = v.map_id;
		snprintf(
			trigger, sizeof(trigger),
			"runtime adds: %s est. fpr %.3g%%, past twice the target %.3g%%",
			f == BW_V4 ? "IPv4" : "IPv6", 100 * v.fam_fpr[f],
			100 * bw_info_fpr(&v.info));
		if (!w->c->image) {
			w->counts.rebuilds_auto++;
			rebuild(w, trigger);
			return;
		}
		printf("%s: %s; an image is loaded as it was built: build a new one with the entries\n",
		       w->c->iface, trigger);
	}
	if (w->c->metrics_file)
		bw_metrics_write_file(w->c->metrics_file, &v, &w->counts);
}

/* ---- the loop ------------------------------------------------------------ */

static void signals(sigset_t *old)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	/* Blocked but while waiting: a rebuild is never cut in two. */
	sigprocmask(SIG_BLOCK, &block, old);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigdelset(old, SIGTERM);
	sigdelset(old, SIGINT);
	sigdelset(old, SIGHUP);
}

static struct timespec until(double deadline)
{
	double d = fmax(0.0, deadline - mono());

	return (struct timespec){ .tv_sec = (time_t)d,
				  .tv_nsec = (long)((d - (time_t)d) * 1e9) };
}

static void loop(struct watch *w, const sigset_t *mask)
{
	struct pollfd p = { .fd = w->ifd, .events = POLLIN };
	double interval = w->c->interval ?: BW_WATCH_TICK;
	double next_tick = mono() + interval, settle = -1;
	char what[512];
	struct timespec ts;

	while (!got_stop) {
		ts = until(settle >= 0 ? fmin(settle, next_tick) : next_tick);
		if (ppoll(&p, 1, &ts, mask) > 0 && drain(w->ifd))
			settle = mono() + w->c->debounce;
		if (got_stop)
			break;
		if (got_hup) {
			got_hup = 0;
			rebuild(w, "SIGHUP");
		}
		if (settle >= 0 && mono() >= settle) {
			settle = -1;
			if (changed(w, what, sizeof(what)))
				rebuild(w, what);
		}
		if (mono() >= next_tick) {
			tick(w);
			next_tick = mono() + interval;
		}
	}
}

static void stop(struct watch *w)
{
	const char *sig = got_stop == SIGINT ? "SIGINT" : "SIGTERM";
	struct bw_detach_req rq = { .iface = w->c->iface };
	struct bw_detach_result res;
	int err;

	if (!w->c->detach_on_exit) {
		printf("%s: watch stopped (%s); the filter stays attached (generation %llu)\n",
		       w->c->iface, sig,
		       (unsigned long long)running_generation(w->c->iface));
		return;
	}
	rq.ifindex = (int)if_nametoindex(w->c->iface);
	err = bw_detach_iface(&rq, &res);
	bw_detach_report(w->c->iface, &res);
	printf(err ? "%s: watch stopped (%s); detaching failed\n"
		   : "%s: watch stopped (%s); bloomwall detached (--detach-on-exit)\n",
	       w->c->iface, sig);
}

int bw_watch_run(const struct bw_watch_cfg *c)
{
	struct watch w = { .c = c, .ifd = -1 };
	sigset_t mask;
	int err, i;

	/* A line as it happens, also into a pipe or the journal. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	w.json = c->json;
	/* The log lines are the output: no document at the end. */
	bw_out_begin(false, NULL);
	w.counts.last_seconds = -1;
	w.counts.started = (__u64)time(NULL);
	signals(&mask);
	err = files_init(&w);
	if (!err) {
		printf("%s: watching %d %s\n", c->iface, w.nf,
		       bw_plural(w.nf, "file", "files"));
		/* Starting: whatever runs is made the files' filter. */
		err = rebuild(&w, "start");
		/* A bad file at start with nothing running: nothing to keep. */
		if (err && !bw_watch_attached((int)if_nametoindex(c->iface)))
			printf("%s: watch stopped: no filter could be attached\n",
			       c->iface);
		else
			err = 0;
	}
	if (!err) {
		loop(&w, &mask);
		stop(&w);
	}
	fflush(stdout);
	for (i = 0; i < w.nf; i++)
		free(w.f[i].dir);
	free(w.f);
	if (w.ifd >= 0)
		close(w.ifd);
	return err;
}
