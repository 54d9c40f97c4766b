// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's socket (daemon/watch_sock.h) served by a thread as the
 * watch's loop serves it, asked by base/run_ask.h and by raw clients: a
 * question far past the old 128 bytes and one of the largest size, a
 * client that does not take its answer, one that hangs up mid-question,
 * a NUL inside a question. In a temporary directory, no privileges.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/run_ask.h"
#include "daemon/watch_sock.h"
#include "test_helpers.h"

struct server {
	char dir[64], path[96];
	struct bw_wsock s;
	int stop[2];
	pthread_t t;
};

/*
 * "big N": an answer of N bytes; else the question's length and whether a
 * NUL came before it ends.
 */
static struct json_object *echo(void *ctx, const char *q, size_t len)
{
	struct json_object *o = json_object_new_object();
	unsigned long n;
	char *big;

	(void)ctx;
	if (sscanf(q, "big %lu", &n) == 1 && (big = malloc(n + 1))) {
		memset(big, 'a', n);
		big[n] = '\0';
		json_object_object_add(o, "big", json_object_new_string(big));
		free(big);
		return o;
	}
	json_object_object_add(o, "len", json_object_new_int64((int64_t)len));
	json_object_object_add(o, "nul",
			       json_object_new_boolean(strlen(q) != len));
	return o;
}

/* The watch's loop, its socket part. */
static void *serve(void *arg)
{
	struct server *v = arg;
	struct pollfd p[2] = { { .fd = bw_wsock_fd(&v->s), .events = POLLIN },
			       { .fd = v->stop[0], .events = POLLIN } };
	struct timespec ts;
	double now;

	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts.tv_sec + ts.tv_nsec / 1e9;
		poll(p, 2,
		     (int)((bw_wsock_wake(&v->s, now + 1) - now) * 1000) + 1);
		if (p[1].revents)
			return NULL;
		bw_wsock_step(&v->s);
	}
}

static bool server_start(struct server *v)
{
	strcpy(v->dir, "/tmp/bw-wsock.XXXXXX");
	if (!ASSERT_OK_PTR(mkdtemp(v->dir), "mkdtemp"))
		return false;
	snprintf(v->path, sizeof(v->path), "%s/t.sock", v->dir);
	if (!ASSERT_OK(bw_wsock_open_at(&v->s, v->path, echo, NULL), "open") ||
	    !ASSERT_OK(pipe(v->stop), "pipe"))
		return false;
	return ASSERT_OK(pthread_create(&v->t, NULL, serve, v), "thread");
}

/* Stops the thread: its counts are then ours to read. */
static void server_stop(struct server *v)
{
	if (write(v->stop[1], "", 1) == 1)
		pthread_join(v->t, NULL);
	close(v->stop[0]);
	close(v->stop[1]);
}

static void server_free(struct server *v)
{
	bw_wsock_close(&v->s);
	rmdir(v->dir);
}

static int raw_client(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	strcpy(sa.sun_path, path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The answer's "len", or -1. */
static long long asked_len(const char *path, const char *q)
{
	struct json_object *ans, *len;
	long long n = -1;

	if (bw_run_ask_at(path, q, 5000, &ans))
		return -1;
	if (json_object_object_get_ex(ans, "len", &len))
		n = json_object_get_int64(len);
	json_object_put(ans);
	return n;
}

BW_TEST(test_wsock_long_questions)
{
	struct json_object *ans = NULL;
	size_t max = BW_WSOCK_QUESTION_MAX - 1;
	struct server v;
	char *q = malloc(max + 2);

	if (!ASSERT_OK_PTR(q, "malloc") || !server_start(&v)) {
		free(q);
		return;
	}
	memset(q, 'x', max + 1);
	q[300000] = '\0';
	ASSERT_EQ(asked_len(v.path, q), 300000, "a question of 300,000 bytes");
	q[300000] = 'x';
	q[max] = '\0';
	ASSERT_EQ(asked_len(v.path, q), (long long)max,
		  "the longest question: 1 MiB with its newline");
	q[max] = 'x';
	q[max + 1] = '\0';
	ASSERT_EQ(bw_run_ask_at(v.path, q, 5000, &ans), -EMSGSIZE,
		  "one byte more: refused by the client");
	ASSERT_EQ(ans == NULL, true, "no answer");
	server_stop(&v);
	ASSERT_EQ(v.s.counts.answered, 2, "answered");
	ASSERT_EQ(v.s.counts.too_long, 0, "none too long at the watch");
	server_free(&v);
	free(q);
}

/*
 * A client that does not take its answer (8 MB, far past the socket's
 * buffer) holds nothing: another is answered meanwhile, and it is dropped
 * at its deadline, its answer cut.
 */
BW_TEST(test_wsock_not_reading)
{
	static const char big[] = "big 8000000\n";
	struct pollfd p = { .events = 0 };
	struct server v;
	size_t got = 0;
	ssize_t n;
	char buf[65536];

	if (!server_start(&v))
		return;
	p.fd = raw_client(v.path);
	if (!ASSERT_EQ(p.fd >= 0, true, "connect"))
		goto out;
	ASSERT_EQ(write(p.fd, big, sizeof(big) - 1), (ssize_t)sizeof(big) - 1,
		  "the question");
	ASSERT_EQ(asked_len(v.path, "hi"), 2, "another client answered");
	/* Dropped: a hang-up (the bound only ends a hang). */
	ASSERT_EQ(poll(&p, 1, 5000), 1, "the watch hung up on it");
	while ((n = read(p.fd, buf, sizeof(buf))) > 0)
		got += (size_t)n;
	ASSERT_EQ(got < 8000000, true, "its answer cut");
	close(p.fd);
	server_stop(&v);
	ASSERT_EQ(v.s.counts.late, 1, "dropped at its deadline");
	ASSERT_EQ(v.s.counts.answered, 1, "the other answered");
out:
	server_free(&v);
}

/* A client gone mid-question is not answered; a NUL is the handler's. */
BW_TEST(test_wsock_cut_and_nul)
{
	struct server v;
	char buf[256];
	int fd;

	if (!server_start(&v))
		return;
	fd = raw_client(v.path);
	if (ASSERT_EQ(fd >= 0, true, "connect")) {
		ASSERT_EQ(write(fd, "abc", 3), 3, "a cut question");
		close(fd);
	}
	fd = raw_client(v.path);
	if (ASSERT_EQ(fd >= 0, true, "connect")) {
		ASSERT_EQ(write(fd, "a\0b\n", 4), 4, "a question with a NUL");
		memset(buf, 0, sizeof(buf));
		ASSERT_EQ(read(fd, buf, sizeof(buf) - 1) > 0, true, "answer");
		ASSERT_STREQ(buf, "{\"len\":3,\"nul\":true}\n",
			     "its whole length, and one JSON line");
		close(fd);
	}
	server_stop(&v);
	ASSERT_EQ(v.s.counts.answered, 1, "only the whole question answered");
	ASSERT_EQ(v.s.counts.late, 0, "nothing late");
	server_free(&v);
}
