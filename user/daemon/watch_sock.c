// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The watch's socket (watch_sock.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/duration.h"
#include "base/run_dir.h"
#include "daemon/watch_sock.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif

#define STR_(x) #x
#define STR(x) STR_(x)
/* A refusal of the socket's own, in the protocol's envelope (run_ask.h). */
#define ERROR_LINE(code, msg)                                \
	"{\"v\":1,\"op\":null,\"ok\":false,\"code\":\"" code \
	"\",\"error\":\"" msg "\"}\n"
/* BW_WSOCK_QUESTION_MAX */
#define TOO_LONG               \
	ERROR_LINE("too_long", \
		   "question too long: at most 1 MiB, its newline included")
#define BUSY \
	ERROR_LINE("clients", "busy: " STR(BW_WSOCK_CLIENTS) " clients at once")
#define LATE ERROR_LINE("late", "the question was not whole within 1 s")
#define NOT_ALLOWED           \
	ERROR_LINE("refused", \
		   "not allowed: root, the socket's owner or its group only")
#define NO_MEMORY ERROR_LINE("no_memory", "out of memory")

/* New clients taken in one step: a flood waits for the next. */
#define ACCEPTS_A_STEP (2 * BW_WSOCK_CLIENTS)
/* Out of fds: the listener rests this long (seconds), not a busy loop. */
#define ACCEPT_REST 0.1

struct bw_wsock_client {
	int fd;		 /* -1: a free slot */
	bool answering;	 /* the question was whole: the answer goes out */
	double deadline; /* CLOCK_MONOTONIC seconds: dropped past it */
	char *buf;	 /* the question as it comes, then the answer */
	size_t len, cap; /* bytes in buf, its size */
	size_t sent;	 /* of the answer */
};

void bw_wsock_init(struct bw_wsock *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->ep = -1;
}

int bw_wsock_fd(const struct bw_wsock *s)
{
	return s->ep;
}

/*
 * A line said to a client we are done with: it fits in the socket's
 * buffer, or the client is not listening. No SIGPIPE from one that hung
 * up, which would end the watch.
 */
static void say(int fd, const char *line)
{
	(void)send(fd, line, strlen(line), MSG_NOSIGNAL | MSG_DONTWAIT);
}

/*
 * Lets a client go. shutdown() first: a rebuild's child forked meanwhile
 * holds the fd too, and the client must see its end now, not the child's.
 */
static void drop(struct bw_wsock *s, struct bw_wsock_client *c,
		 const char *line)
{
	if (line)
		say(c->fd, line);
	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
	shutdown(c->fd, SHUT_RDWR);
	close(c->fd);
	free(c->buf);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

static void count(struct bw_wsock *s, __u64 *n)
{
	(*n)++;
	s->changed = true;
}

/* Sends what the client takes of its answer; all sent, it is done. */
static void give(struct bw_wsock *s, struct bw_wsock_client *c)
{
	ssize_t n;

	while (c->sent < c->len) {
		n = send(c->fd, c->buf + c->sent, c->len - c->sent,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) {
			drop(s, c, NULL);
			return;
		}
		c->sent += (size_t)n;
	}
	count(s, &s->counts.answered);
	drop(s, c, NULL);
}

/* The question (len bytes at c->buf) is whole: its answer goes out. */
static void ask(struct bw_wsock *s, struct bw_wsock_client *c, size_t len)
{
	struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = c };
	struct json_object *ans = s->answer(s->ctx, c->buf, len);
	const char *text = NO_MEMORY;
	size_t n;

	if (ans)
		text = json_object_to_json_string_ext(ans,
						      JSON_C_TO_STRING_PLAIN);
	/* NO_MEMORY's newline: one is added below. */
	n = strlen(text) - !ans;
	free(c->buf);
	c->buf = malloc(n + 1);
	if (!c->buf) {
		json_object_put(ans);
		drop(s, c, NO_MEMORY);
		return;
	}
	memcpy(c->buf, text, n);
	c->buf[n] = '\n';
	json_object_put(ans);
	c->len = n + 1;
	c->cap = n + 1;
	c->sent = 0;
	c->answering = true;
	c->deadline = bw_mono() + BW_WSOCK_DEADLINE;
	epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
	give(s, c);
}

/* Room for more of the question, up to BW_WSOCK_QUESTION_MAX: 0 or -1. */
static int grow(struct bw_wsock_client *c)
{
	size_t cap = c->cap ? 2 * c->cap : 1024;
	char *b;

	if (cap > BW_WSOCK_QUESTION_MAX)
		cap = BW_WSOCK_QUESTION_MAX;
	b = realloc(c->buf, cap);
	if (!b)
		return -1;
	c->buf = b;
	c->cap = cap;
	return 0;
}

/* Reads what the client sent, up to its question's newline. */
static void take(struct bw_wsock *s, struct bw_wsock_client *c)
{
	char *nl;
	ssize_t n;

	for (;;) {
		if (c->len == c->cap && grow(c)) {
			drop(s, c, NO_MEMORY);
			return;
		}
		n = read(c->fd, c->buf + c->len, c->cap - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		/* Gone before its newline: a cut question is not asked. */
		if (n <= 0) {
			drop(s, c, NULL);
			return;
		}
		nl = memchr(c->buf + c->len, '\n', (size_t)n);
		c->len += (size_t)n;
		if (nl) {
			*nl = '\0';
			ask(s, c, (size_t)(nl - c->buf));
			return;
		}
		if (c->len == BW_WSOCK_QUESTION_MAX) {
			count(s, &s->counts.too_long);
			drop(s, c, TOO_LONG);
			return;
		}
	}
}

/* Root, the socket file's owner, or a member of its group. */
static bool allowed(const struct bw_wsock *s, int fd)
{
	struct ucred u;
	socklen_t len = sizeof(u);
	gid_t groups[256];
	struct stat st;
	size_t i;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &u, &len))
		return false;
	if (u.uid == 0)
		return true;
	if (stat(s->path, &st))
		return false;
	if (u.uid == st.st_uid || u.gid == st.st_gid)
		return true;
	/* More groups than that: only the primary one counts. */
	len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len))
		return false;
	for (i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == st.st_gid)
			return true;
	return false;
}

/* A free slot for a new client: the oldest still asking is pushed out. */
static struct bw_wsock_client *room(struct bw_wsock *s)
{
	struct bw_wsock_client *c, *old = NULL;

	for (c = s->cl; c < s->cl + BW_WSOCK_CLIENTS; c++) {
		if (c->fd < 0)
			return c;
		if (!c->answering && (!old || c->deadline < old->deadline))
			old = c;
	}
	if (old) {
		count(s, &s->counts.pushed_out);
		drop(s, old, BUSY);
	}
	return old;
}

/* The new clients, each read at once (its question is often there). */
static void welcome(struct bw_wsock *s)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct bw_wsock_client *c;
	int i, fd;

	for (i = 0; i < ACCEPTS_A_STEP; i++) {
		fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		if (fd < 0 && errno != EAGAIN &&
		    !epoll_ctl(s->ep, EPOLL_CTL_DEL, s->fd, NULL))
			s->rest_until = bw_mono() + ACCEPT_REST;
		if (fd < 0)
			return;
		if (!allowed(s, fd)) {
			count(s, &s->counts.refused);
			say(fd, NOT_ALLOWED);
			shutdown(fd, SHUT_RDWR);
			close(fd);
			continue;
		}
		c = room(s);
		ev.data.ptr = c;
		if (!c || epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
			if (!c)
				count(s, &s->counts.busy);
			say(fd, BUSY);
			shutdown(fd, SHUT_RDWR);
			close(fd);
			continue;
		}
		c->fd = fd;
		c->deadline = bw_mono() + BW_WSOCK_DEADLINE;
		take(s, c);
	}
}

void bw_wsock_step(struct bw_wsock *s)
{
	struct epoll_event ev[BW_WSOCK_CLIENTS + 1];
	struct bw_wsock_client *c;
	bool listener = false;
	double now;
	int i, n;

	if (s->ep < 0)
		return;
	if (s->rest_until && bw_mono() >= s->rest_until &&
	    !epoll_ctl(s->ep, EPOLL_CTL_ADD, s->fd,
		       &(struct epoll_event){ .events = EPOLLIN }))
		s->rest_until = 0;
	n = epoll_wait(s->ep, ev, BW_WSOCK_CLIENTS + 1, 0);
	for (i = 0; i < n; i++) {
		c = ev[i].data.ptr;
		if (!c)
			listener = true;
		else if (c->fd < 0)
			continue;
		else if (c->answering)
			give(s, c);
		else
			take(s, c);
	}
	if (listener)
		welcome(s);
	/* After the reads: what a busy loop left in the kernel counts. */
	now = bw_mono();
	for (c = s->cl; c < s->cl + BW_WSOCK_CLIENTS; c++) {
		if (c->fd < 0 || c->deadline > now)
			continue;
		count(s, &s->counts.late);
		drop(s, c, c->answering ? NULL : LATE);
	}
}

double bw_wsock_wake(const struct bw_wsock *s, double t)
{
	const struct bw_wsock_client *c;

	if (!s->cl)
		return t;
	if (s->rest_until && s->rest_until < t)
		t = s->rest_until;
	for (c = s->cl; c < s->cl + BW_WSOCK_CLIENTS; c++)
		if (c->fd >= 0 && c->deadline < t)
			t = c->deadline;
	return t;
}

int bw_wsock_open_at(struct bw_wsock *s, const char *path,
		     bw_wsock_answer_fn *answer, void *ctx)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int i, err;

	bw_wsock_init(s);
	s->answer = answer;
	s->ctx = ctx;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	s->cl = calloc(BW_WSOCK_CLIENTS, sizeof(*s->cl));
	if (!s->cl)
		return -ENOMEM;
	for (i = 0; i < BW_WSOCK_CLIENTS; i++)
		s->cl[i].fd = -1;
	memcpy(s->path, sa.sun_path, sizeof(s->path));
	unlink(s->path);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->ep < 0 || s->fd < 0 ||
	    bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(sa.sun_path, 0600) || listen(s->fd, SOMAXCONN) ||
	    epoll_ctl(s->ep, EPOLL_CTL_ADD, s->fd, &ev)) {
		err = -errno;
		bw_wsock_close(s);
		unlink(sa.sun_path);
		return err;
	}
	return 0;
}

int bw_wsock_open(struct bw_wsock *s, const char *iface,
		  bw_wsock_answer_fn *answer, void *ctx)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int err;

	bw_wsock_init(s);
	err = bw_run_path(path, sizeof(path), iface, BW_RUN_SOCKET);
	if (!err)
		err = bw_run_dir();
	return err ?: bw_wsock_open_at(s, path, answer, ctx);
}

void bw_wsock_json(const struct bw_wsock *s, struct json_object *root)
{
	const struct bw_wsock_counts *k = &s->counts;
	struct json_object *o;

	if (s->fd < 0 || !(o = json_object_new_object()))
		return;
	json_object_object_add(o, "answered",
			       json_object_new_int64((int64_t)k->answered));
	json_object_object_add(o, "refused",
			       json_object_new_int64((int64_t)k->refused));
	json_object_object_add(o, "late",
			       json_object_new_int64((int64_t)k->late));
	json_object_object_add(o, "too_long",
			       json_object_new_int64((int64_t)k->too_long));
	json_object_object_add(o, "pushed_out",
			       json_object_new_int64((int64_t)k->pushed_out));
	json_object_object_add(o, "busy",
			       json_object_new_int64((int64_t)k->busy));
	json_object_object_add(root, "socket", o);
}

void bw_wsock_close(struct bw_wsock *s)
{
	int i;

	for (i = 0; s->cl && i < BW_WSOCK_CLIENTS; i++)
		if (s->cl[i].fd >= 0)
			drop(s, &s->cl[i], NULL);
	free(s->cl);
	if (s->ep >= 0)
		close(s->ep);
	if (s->fd >= 0) {
		close(s->fd);
		unlink(s->path);
	}
	bw_wsock_init(s);
}
