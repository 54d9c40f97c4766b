/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's socket, BW_STATE_DIR/IFACE.sock (0600, root's), where the
 * other verbs ask a running watch (base/run_ask.h: the protocol and its
 * client). One question a connection: a line of at most
 * BW_WSOCK_QUESTION_MAX bytes, its newline included; the answer is one
 * JSON object and a newline, then the watch closes. Who may ask: root,
 * the socket file's owner, or a member of its group (SO_PEERCRED,
 * SO_PEERGROUPS: chgrp and chmod 0660 the file to let a group in);
 * others get the protocol's error "refused".
 *
 * Nothing here waits: the clients are non-blocking and served as their
 * fds are ready, in the watch's one loop. A question must be whole within
 * BW_WSOCK_DEADLINE of the connection, the answer taken within
 * BW_WSOCK_DEADLINE of being ready, else the client is dropped; at most
 * BW_WSOCK_CLIENTS at once (a new one pushes out the oldest still asking).
 * No client can delay the loop, another client, or the watch's end.
 *
 * The loop polls bw_wsock_fd() for POLLIN, sleeps no longer than
 * bw_wsock_wake() and then calls bw_wsock_step(): each whole question
 * goes to the answer function given to bw_wsock_open(), in the loop.
 */
#ifndef __BW_WATCH_SOCK_H
#define __BW_WATCH_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include <linux/types.h>

#include "base/run_ask.h"

#define BW_WSOCK_CLIENTS 64
#define BW_WSOCK_DEADLINE 1.0 /* seconds */

/*
 * Answers question q (len bytes, NUL-terminated in place of its newline;
 * it may hold a NUL before len): the answer, sent and then put by the
 * socket, or NULL (out of memory: the client gets an error object).
 */
typedef struct json_object *bw_wsock_answer_fn(void *ctx, const char *q,
					       size_t len);

/* What became of the clients, since the watch started. */
struct bw_wsock_counts {
	__u64 answered;	  /* the answer sent whole */
	__u64 refused;	  /* neither root nor the socket's owner or group */
	__u64 late;	  /* question or answer not done by its deadline */
	__u64 too_long;	  /* a question past BW_WSOCK_QUESTION_MAX */
	__u64 pushed_out; /* still asking when a new client needed the room */
	__u64 busy;	  /* new, with all BW_WSOCK_CLIENTS taking answers */
};

struct bw_wsock_client;

struct bw_wsock {
	int fd; /* listening, -1: none */
	int ep; /* epoll of fd and the clients: what the loop polls */
	char path[108];
	bw_wsock_answer_fn *answer;
	void *ctx;
	struct bw_wsock_client *cl; /* BW_WSOCK_CLIENTS slots */
	struct bw_wsock_counts counts;
	bool changed;	   /* counts changed since the state was published */
	double rest_until; /* out of fds: no accept before, 0: none */
};

/* Sets s up as closed (before anything can fail). */
void bw_wsock_init(struct bw_wsock *s);

/*
 * Listens on iface's socket (a stale one replaced), questions answered by
 * answer(ctx, ...): 0 or -errno (s stays closed).
 */
int bw_wsock_open(struct bw_wsock *s, const char *iface,
		  bw_wsock_answer_fn *answer, void *ctx);
/* The same at path (tests/upper). */
int bw_wsock_open_at(struct bw_wsock *s, const char *path,
		     bw_wsock_answer_fn *answer, void *ctx);

/* The fd to poll for POLLIN (-1 when closed). */
int bw_wsock_fd(const struct bw_wsock *s);

/* t, or sooner when a client's deadline comes (CLOCK_MONOTONIC seconds). */
double bw_wsock_wake(const struct bw_wsock *s, double t);

/* Serves what is ready and drops the clients past their deadline. */
void bw_wsock_step(struct bw_wsock *s);

/* Its section "socket" in root (the watch's state file): the counts. */
void bw_wsock_json(const struct bw_wsock *s, struct json_object *root);

/* Closes every client and the socket, and removes the socket's file. */
void bw_wsock_close(struct bw_wsock *s);

#endif /* __BW_WATCH_SOCK_H */
