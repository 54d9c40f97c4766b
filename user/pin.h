/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Where bloomwall keeps its state: pins under BW_PIN_ROOT/IFACE/ (prog,
 * link, stats, allow, exact), the bpffs they live on, and the lock that keeps two
 * mutating commands from interleaving.
 *
 * int functions return 0 or -errno; they print nothing unless they say so.
 */
#ifndef __BW_PIN_H
#define __BW_PIN_H

#include <stdbool.h>
#include <stddef.h>

#include "bloomwall.h"

#define BW_PIN_PROG "prog"
#define BW_PIN_LINK "link"
#define BW_PIN_STATS bw_textify(BW_MAP_STATS)

/* BW_PIN_ROOT/iface/name, or BW_PIN_ROOT/iface when name is NULL. */
int bw_pin_path(char *buf, size_t len, const char *iface, const char *name);

/* Mounts a bpffs at /sys/fs/bpf unless one is there; prints on failure. */
int bw_bpffs_ensure(void);

/*
 * Takes the exclusive lock on BW_PIN_ROOT (created if needed). Returns the
 * lock fd or -errno (printed). Release with bw_lock_release(), which also
 * removes BW_PIN_ROOT once it is empty.
 */
int bw_lock_acquire(void);
void bw_lock_release(int fd);

bool bw_pin_dir_exists(const char *iface);
bool bw_pin_exists(const char *iface, const char *name);
int bw_pin_dir_create(const char *iface);

/* bpf_obj_get() of BW_PIN_ROOT/iface/name: an fd or -errno. */
int bw_pin_open(const char *iface, const char *name);
int bw_pin_fd(int fd, const char *iface, const char *name);

/*
 * Has BW_PIN_ROOT/iface/name name the object fd: 0 when it did already, 1
 * when it was pinned or replaced (pinned beside, then renamed over: the
 * name never names nothing), or -errno.
 */
int bw_pin_replace(int fd, const char *iface, const char *name);

/* Removes BW_PIN_ROOT/iface/name: 1 if it was there, 0 if not, or -errno. */
int bw_pin_remove(const char *iface, const char *name);

/* Removes every pin in BW_PIN_ROOT/iface and the directory itself. */
int bw_unpin_all(const char *iface);

/*
 * Calls fn for every interface directory under BW_PIN_ROOT, in name order.
 * Returns the number of interfaces, or the first negative value fn returns.
 */
int bw_for_each_pinned(int (*fn)(const char *iface, void *ctx), void *ctx);

#endif /* __BW_PIN_H */
