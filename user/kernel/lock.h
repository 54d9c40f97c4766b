/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The lock that keeps two mutating commands from interleaving: a flock on
 * the state directory (pin.h); and the drop log's, one reader a ring.
 */
#ifndef __BW_LOCK_H
#define __BW_LOCK_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Takes the exclusive lock on the state directory (created if needed).
 * When another process holds it, says once who (pid, command line) and
 * waits; refuses (-BW_EUNSAFE) to wait for a holder that is neither root nor
 * us. Returns the lock fd or -errno (printed). Release with
 * bw_lock_release(); the directory stays.
 */
int bw_lock_acquire(void);
void bw_lock_release(int fd);

/*
 * The fd of the lock this process holds (bw_lock_acquire or bw_lock_try),
 * -1 when none: what a child that must hold it on keeps open.
 */
int bw_lock_held(void);

/*
 * The same lock, taken only if free at once (a daemon's loop never waits):
 * the lock fd, -EAGAIN when another process holds it, or -errno (not
 * printed).
 */
int bw_lock_try(void);

/*
 * The drop log's reader lock of iface, held for the reader's life: a BPF
 * ring buffer has one consumer, and two would each move the other's read
 * position and print records half written. A flock on the interface's
 * state directory BW_PIN_ROOT/IFACE (made when missing): as wide as the
 * ring, which lives as long as bloomwall runs there. Does not wait: when
 * another reader holds it, said with the holder's pid and command
 * line, -EALREADY. Returns the lock fd or -errno (printed); release it
 * with bw_lock_release().
 */
int bw_lock_log_reader(const char *iface);

/*
 * The lock of the watch that keeps iface's filter, held for its life: a
 * flock on BW_PIN_ROOT/watch:IFACE (made when missing). Does not wait:
 * when another watch holds it, said with the holder's pid and command
 * line, -EALREADY. A directory its last holder removed between our open
 * and our flock is taken again. Returns the lock fd or -errno (printed);
 * release it with bw_lock_watch_release().
 */
int bw_lock_watch(const char *iface);
/* Lets go of the watch lock fd, removing its directory first. */
void bw_lock_watch_release(const char *iface, int fd);
/*
 * Removes iface's watch directory, and the watch's files in BW_STATE_DIR
 * (base/run_dir.h), when no watch holds its lock (what a killed watch
 * left): detach's, so that no interface leaves state behind.
 */
void bw_lock_watch_clear(const char *iface);

/*
 * The pid of the watch holding iface's watch lock (status: is a daemon
 * taking expired entries out?), read from /proc/locks without taking the
 * lock (a try would make a watch starting just then refuse): 0 when none
 * holds it (or the holder is in a pid namespace we do not see), -errno.
 */
int bw_lock_watch_holder(const char *iface);

/*
 * For the lock's message, exposed for the unit tests: the pid holding a
 * flock on (dev, ino) in f, read as /proc/locks (0: none, or in a pid
 * namespace we do not see); and a NUL-separated command line as one
 * printable line ("flock /x sleep 9"), cut to len - 1 bytes.
 */
pid_t bw_locks_holder(FILE *f, dev_t dev, ino_t ino);
void bw_cmdline_text(char *buf, size_t len, const char *raw, size_t n);

#endif /* __BW_LOCK_H */
