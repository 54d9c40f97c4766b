// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The guard of a change to both hooks (hooks_guard.h).
 *
 * Why a process, not an order or a shared switch: the kernel swaps one
 * hook per request, so some instant has one hook new and the other old,
 * and a command killed there cannot finish its own work. A switch both
 * programs read (a map the XDP program would look up per packet) costs
 * every packet a lookup; the guard costs a fork per change, and only on
 * an interface with an egress hook. It rolls the egress hook to what the
 * XDP hook runs, not the XDP hook back: that one request needs no
 * expected program and no link, so it is the step that can always be
 * made, forward or back.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "base/log.h"
#include "kernel/egress.h"
#include "kernel/filter_map.h"
#include "kernel/hook.h"
#include "kernel/hooks_guard.h"
#include "kernel/lock.h"

/* Whether ifindex's XDP hook runs bloomwall's program id (0: none of ours). */
static bool xdp_runs(int ifindex, __u32 id)
{
	struct bw_xdp_info x;

	if (!id)
		return !bw_hook_prog_id(ifindex);
	return !bw_xdp_info(ifindex, id, &x) && x.ours;
}

/* The egress program's id at bloomwall's handle, 0 for none. */
static __u32 egress_id(int ifindex)
{
	struct bw_egress e;
	__u32 id;

	if (bw_egress_find(ifindex, &e))
		return 0;
	id = e.prog_id;
	bw_egress_close(&e);
	return id;
}

/* Gives the egress hook the program that goes with what the XDP hook runs. */
static void settle(const char *iface, int ifindex,
		   const struct bw_hooks_state *old,
		   const struct bw_hooks_state *new)
{
	const struct bw_hooks_state *want;
	__u32 id;
	int err = 0, tries;

	want = xdp_runs(ifindex, new->xdp_id)	? new
	       : xdp_runs(ifindex, old->xdp_id) ? old
						: NULL;
	if (!want) {
		pr_warn("%s: its XDP hook runs neither the old nor the new program; its egress hook is left as it is\n",
			iface);
		return;
	}
	id = want->tc_fd >= 0 ? bw_obj_id(want->tc_fd) : 0;
	if (egress_id(ifindex) == id)
		return;
	for (tries = 0; tries < 3; tries++) {
		err = id ? bw_egress_attach(ifindex, want->tc_fd)
			 : bw_egress_detach(ifindex);
		if (!err || err == -ENOENT)
			break;
		usleep(10000);
	}
	if (err && err != -ENOENT)
		pr_warn("%s: the command ended between its two hooks, and its egress hook cannot follow the XDP hook: %s; the next command brings it\n",
			iface, bw_errno_hint(err));
	else
		pr_warn("%s: the command ended between its two hooks: its egress hook %s, as its XDP hook\n",
			iface,
			want == new ? "brought to the new filter"
				    : "given its old program back");
}

/* Closes every descriptor but 0-2 and the kept ones (sorted, -1 skipped). */
static void close_others(const int *keep, int n)
{
	unsigned int from = 3;
	int i;

	for (i = 0; i < n; i++) {
		if (keep[i] < (int)from)
			continue;
		if ((unsigned int)keep[i] > from)
			syscall(SYS_close_range, from, keep[i] - 1, 0);
		from = keep[i] + 1;
	}
	syscall(SYS_close_range, from, ~0U, 0);
}

static int by_value(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void __attribute__((noreturn))
guard_run(const char *iface, int ifindex, int rd,
	  const struct bw_hooks_state *old, const struct bw_hooks_state *new)
{
	static const int ignored[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				       SIGPIPE };
	int keep[] = { rd, old->tc_fd, new->tc_fd, bw_lock_held() };
	sigset_t all;
	char c;
	size_t i;
	ssize_t n;

	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	qsort(keep, sizeof(keep) / sizeof(keep[0]), sizeof(keep[0]), by_value);
	close_others(keep, sizeof(keep) / sizeof(keep[0]));
	do
		n = read(rd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		settle(iface, ifindex, old, new);
	_exit(0);
}

int bw_guard_start(struct bw_guard *g, const char *iface, int ifindex,
		   const struct bw_hooks_state *old,
		   const struct bw_hooks_state *new)
{
	int fds[2], err;
	pid_t pid;

	*g = (struct bw_guard)BW_GUARD_INIT;
	if (old->tc_fd < 0 && new->tc_fd < 0)
		return 0;
	/* A socket, not a pipe: a commit sent to a guard gone is no SIGPIPE. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds))
		goto fail;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		goto fail;
	}
	if (!pid)
		guard_run(iface, ifindex, fds[0], old, new);
	close(fds[0]);
	g->pid = pid;
	g->fd = fds[1];
	return 0;
fail:
	err = -errno;
	pr_warn("%s: cannot start the guard of its two hooks: %s\n", iface,
		bw_errno_hint(err));
	return err;
}

void bw_guard_end(struct bw_guard *g, bool committed)
{
	int status;

	if (!g->pid)
		return;
	if (committed && send(g->fd, "c", 1, MSG_NOSIGNAL) != 1)
		pr_debug(
			"the hooks' guard missed the commit: it checks them\n");
	close(g->fd);
	while (waitpid(g->pid, &status, 0) < 0 && errno == EINTR)
		;
	*g = (struct bw_guard)BW_GUARD_INIT;
}
