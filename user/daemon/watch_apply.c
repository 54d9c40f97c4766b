// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's rebuild step (watch_apply.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "filter/builder.h"
#include "base/log.h"
#include "daemon/live_stage.h"
#include "daemon/watch_apply.h"
#include "filter/provenance.h"
#include "image/image.h"
#include "image/image_file.h"
#include "kernel/hook.h"
#include "ops/attach_lists.h"
#include "ops/reload.h"

__u64 bw_watch_keys(const struct bw_hdr *hdr, const struct bw_info *info,
		    const struct bw_dns_hdr *dns)
{
	__u64 n = info->entries;
	int r;

	if (hdr->flags & BW_F_DNS)
		for (r = 0; r < BW_NAME_REGIONS; r++)
			n += dns->region_entries[r];
	return n;
}

/* The guard's state in the child: its own watch on the files themselves. */
struct guard_ctx {
	const struct bw_watch_cfg *c;
	const struct bw_watch_guard *g;
	int ifd; /* -1: none */
};

#define FILE_MASK \
	(IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVE_SELF | IN_DELETE_SELF)
#define NAME_MASK (IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE)

/* Set before anything is read: an event then means a list changed. */
static void guard_arm(struct guard_ctx *gc)
{
	const struct bw_watch_files *fs = gc->g->fs;
	int i;

	gc->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	for (i = 0; gc->ifd >= 0 && i < fs->n; i++) {
		inotify_add_watch(gc->ifd, fs->f[i].path, FILE_MASK);
		inotify_add_watch(gc->ifd, fs->f[i].dir, NAME_MASK);
	}
}

static bool names_a_file(const struct bw_watch_files *fs,
			 const struct inotify_event *ev)
{
	int i;

	if (!(ev->mask & NAME_MASK))
		return true;
	for (i = 0; i < fs->n; i++)
		if (ev->len && !strcmp(ev->name, fs->f[i].base))
			return true;
	return false;
}

/* Whether an event came for a list since guard_arm(). */
static bool guard_events(const struct guard_ctx *gc)
{
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n, off;

	if (gc->ifd < 0)
		return false;
	while ((n = read(gc->ifd, buf, sizeof(buf))) > 0)
		for (off = 0; off + (ssize_t)sizeof(*ev) <= n;
		     off += sizeof(*ev) + ev->len) {
			ev = (const void *)(buf + off);
			if (names_a_file(gc->g->fs, ev))
				return true;
		}
	return false;
}

/*
 * The keys the lists give: the guard judges the lists, never the entries
 * added at run time (removed in bulk, or ended, they are no cut list).
 */
static __u64 figures_keys(const struct bw_build_figures *f)
{
	__u64 n = bw_watch_keys(&f->plan.hdr, &f->plan.info, &f->plan.dns);

	return f->image ? n
			: n - (f->sum.added_keys < n ? f->sum.added_keys : n);
}

/*
 * Before the swap: no list changed while it was read (its identity as it
 * was before, no event since), and the lists did not shrink to under half
 * of what the watch keeps.
 */
static int guard_check(void *ctx, const struct bw_build_figures *f)
{
	const struct guard_ctx *gc = ctx;
	const struct bw_watch_guard *g = gc->g;
	char what[256];
	__u64 keys = figures_keys(f);

	if (guard_events(gc) ||
	    bw_watch_files_changed(g->fs, what, sizeof(what))) {
		pr_warn("%s: a list changed while it was read: not swapped in; it is read again\n",
			gc->c->iface);
		return -BW_WATCH_ETORN;
	}
	if (f->image || g->allow_shrink || !g->last_keys ||
	    keys >= (g->last_keys + 1) / 2)
		return 0;
	pr_warn("%s: the lists hold %'llu keys, under half of the %'llu of the filter this watch keeps (a cut download?): kept out; they go in once they stay as they are for %d checks (--interval), or with --allow-shrink\n",
		gc->c->iface, (unsigned long long)keys,
		(unsigned long long)g->last_keys, BW_WATCH_SHRINK_TICKS);
	return -BW_WATCH_ESHRUNK;
}

/* With the new filter, before the swap: the watch's live entries in it. */
static int live_stage(void *ctx, const struct bw_filter_map *m)
{
	const struct guard_ctx *gc = ctx;

	return gc && gc->g->live ? bw_wlive_stage(gc->g->live, m) : 0;
}

static void outcome_of(const struct bw_build_figures *f, __u64 generation,
		       struct bw_watch_outcome *o)
{
	o->generation = generation ?: f->plan.info.generation;
	o->entries = bw_build_figures_entries(f);
	o->bytes = (__u64)f->plan.nblocks * BW_BLOCK_BYTES;
	o->empty = !f->image && bw_build_figures_empty(f);
	o->keys = figures_keys(f);
}

static int attach(const struct bw_watch_cfg *c, struct guard_ctx *gc,
		  int ifindex, const char *const *lists, int nlists,
		  const struct bw_live_room *room, struct bw_watch_outcome *o)
{
	struct bw_attach_req rq = { .iface = c->iface,
				    .ifindex = ifindex,
				    .mode = c->mode,
				    .own_link = c->own_link,
				    .egress = c->egress,
				    .args = c->build,
				    .lists = lists,
				    .nlists = nlists,
				    .before_swap = gc ? guard_check : NULL,
				    .before_swap_filter =
					    gc ? live_stage : NULL,
				    .room = room,
				    .ctx = gc };
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
	err = attach(c, NULL, ifindex, empty, 1, NULL, &o);
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

/*
 * The image, checked (its signature first) before anything changes: on
 * an interface that runs nothing, an empty filter first, then the image.
 */
static int load_image(const struct bw_watch_cfg *c, struct guard_ctx *gc,
		      int ifindex, bool attached, struct bw_watch_outcome *o)
{
	/* The adds are kept, as 'load' keeps them, and live as with lists. */
	struct bw_build_args ba = { 0 };
	struct bw_image img;
	struct bw_reload_req r = { .iface = c->iface,
				   .ifindex = ifindex,
				   .egress = c->egress,
				   .args = &ba,
				   .image = &img,
				   .image_path = c->image,
				   .origin = BW_ORIGIN_WATCH,
				   .allow_rollback = c->allow_rollback,
				   .before_swap = guard_check,
				   .before_swap_filter = live_stage,
				   .adds_live = gc &&
						bw_wlive_adds_live(gc->g->live),
				   .ctx = gc };
	struct bw_reload_result res;
	int err;

	err = bw_image_read_file_keys(c->image, c->keys, &img);
	if (err)
		return err;
	err = attached ? 0 : attach_empty(c, ifindex);
	if (!err) {
		err = bw_reload(&r, &res);
		reloaded(&res, o);
	}
	bw_image_free(&img);
	return err;
}

/* The rebuild itself, in the child. */
static int apply(const struct bw_watch_cfg *c, struct guard_ctx *gc,
		 struct bw_watch_outcome *o)
{
	struct bw_reload_req r = { .iface = c->iface,
				   .egress = c->egress,
				   .args = c->build,
				   .lists = c->lists,
				   .nlists = c->nlists,
				   .origin = BW_ORIGIN_WATCH,
				   .before_swap = guard_check,
				   .before_swap_filter = live_stage,
				   .adds_live = bw_wlive_adds_live(gc->g->live),
				   .ctx = gc };
	struct bw_reload_result res;
	struct bw_live_room room;
	int ifindex, err;

	/* Room for what is live (and refused), on top of the lists. */
	if (gc->g->live) {
		bw_wlive_room(gc->g->live, &room);
		r.room = &room;
	}
	ifindex = (int)if_nametoindex(c->iface);
	if (!ifindex) {
		pr_warn("%s: there is no such interface (anymore)\n", c->iface);
		return -ENODEV;
	}
	guard_arm(gc);
	if (c->image)
		return load_image(c, gc, ifindex, bw_hook_prog_id(ifindex), o);
	if (!bw_hook_prog_id(ifindex))
		return attach(c, gc, ifindex, c->lists, c->nlists, r.room, o);
	r.ifindex = ifindex;
	err = bw_reload(&r, &res);
	reloaded(&res, o);
	return err;
}

/* What the child hands back. */
struct child_msg {
	int err;
	struct bw_watch_outcome o;
};

/*
 * The watch's sockets closed in the child (its socket's clients, the
 * HTTP transfers): a client the loop answers and closes meanwhile sees
 * its end then, not when the rebuild ends. Other descriptors stay: the
 * operations keep some open across calls (the state directory's).
 */
static void close_sockets(int out)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	struct stat st;
	int fd;

	if (!d)
		return;
	while ((e = readdir(d))) {
		fd = atoi(e->d_name);
		if (fd > 2 && fd != out && fd != dirfd(d) && !fstat(fd, &st) &&
		    S_ISSOCK(st.st_mode))
			close(fd);
	}
	closedir(d);
}

static void __attribute__((noreturn))
child(const struct bw_watch_cfg *c, const struct bw_watch_guard *g,
      pid_t parent, int out)
{
	struct guard_ctx gc = { .c = c, .g = g, .ifd = -1 };
	struct child_msg m = { 0 };

	/* Never a rebuild that outlives its watch. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	close_sockets(out);
	m.err = apply(c, &gc, &m.o);
	if (write(out, &m, sizeof(m)) != (ssize_t)sizeof(m))
		_exit(1);
	_exit(0);
}

int bw_watch_signals_open(struct bw_watch_signals *s)
{
	sigset_t set;

	memset(s, 0, sizeof(*s));
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	s->fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->fd < 0) {
		pr_warn("bloomwall watch: signalfd: %s\n", strerror(errno));
		return -errno;
	}
	return 0;
}

void bw_watch_signals_read(struct bw_watch_signals *s)
{
	struct signalfd_siginfo si;

	while (read(s->fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			s->hup = true;
		else if (!s->stop)
			s->stop = (int)si.ssi_signo;
	}
}

void bw_watch_signals_close(struct bw_watch_signals *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

int bw_watch_apply_start(const struct bw_watch_cfg *c,
			 const struct bw_watch_guard *g, struct bw_watch_job *j)
{
	pid_t parent = getpid(), pid;
	int fds[2], err;

	j->pid = 0;
	j->fd = -1;
	if (g->live) {
		err = bw_wlive_fork_begin(g->live);
		if (err)
			return err;
	}
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK)) {
		err = -errno;
		goto no_child;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(fds[0]);
		close(fds[1]);
		goto no_child;
	}
	if (!pid) {
		close(fds[0]);
		child(c, g, parent, fds[1]);
	}
	close(fds[1]);
	j->pid = pid;
	j->fd = fds[0];
	return 0;
no_child:
	if (g->live)
		bw_wlive_fork_end(g->live);
	pr_warn("%s: the rebuild could not start: %s\n", c->iface,
		strerror(-err));
	return err;
}

int bw_watch_apply_end(struct bw_watch_job *j, struct bw_wlive *live, bool stop,
		       struct bw_watch_outcome *o)
{
	struct child_msg m;
	ssize_t n = -1;
	int status = 0, err;

	memset(o, 0, sizeof(*o));
	if (!j->pid)
		return 0;
	if (stop)
		kill(j->pid, SIGKILL);
	else
		n = read(j->fd, &m, sizeof(m));
	waitpid(j->pid, &status, 0);
	close(j->fd);
	j->pid = 0;
	j->fd = -1;
	/* Whatever the child did: the filter that runs now, taken over. */
	if (live)
		bw_wlive_fork_end(live);
	if (stop)
		return -BW_WATCH_ESTOPPED;
	if (n != (ssize_t)sizeof(m)) {
		pr_warn("bloomwall watch: the rebuild ended without a result (%s %d)\n",
			WIFSIGNALED(status) ? "signal" : "status",
			WIFSIGNALED(status) ? WTERMSIG(status)
					    : WEXITSTATUS(status));
		return -EIO;
	}
	err = m.err;
	*o = m.o;
	return err;
}
