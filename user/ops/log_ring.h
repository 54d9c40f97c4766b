/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The drop log's ring of what an interface runs, for log: opened with its
 * reader lock (one reader an interface, kernel/lock.h), and asked whether
 * the interface still logs to it. The ring outlives reloads; a detach or
 * a reload with --log-rate 0 ends it.
 */
#ifndef __BW_LOG_RING_H
#define __BW_LOG_RING_H

#include <stdbool.h>

struct bw_log_ring_req {
	const char *iface;
	int ifindex;
};

struct bw_log_ring {
	int fd; /* the ring buffer map */
	int id; /* its kernel id */
	int lock;
};

/*
 * Opens the ring of the program rq's interface runs and takes its reader
 * lock: 0, or -errno (said; -ENOENT: no program or no drop log, -ENODATA:
 * the log is off).
 */
int bw_log_ring_open(const struct bw_log_ring_req *rq,
		     struct bw_log_ring *ring);

/*
 * Whether the interface still runs a program that logs to ring: not after
 * a detach, nor after a reload with --log-rate 0.
 */
bool bw_log_ring_live(const struct bw_log_ring_req *rq,
		      const struct bw_log_ring *ring);

/* Releases the lock and closes the ring. */
void bw_log_ring_close(struct bw_log_ring *ring);

#endif /* __BW_LOG_RING_H */
