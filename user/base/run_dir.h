/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * BW_STATE_DIR, where a running watch keeps what the other verbs ask it
 * (not the kernel's state, which is on the hook and in bpffs): its state
 * file IFACE.json (ops/daemon_state.h) with that file's temporary
 * .IFACE.json.tmp, and the socket the other verbs ask it over (query
 * --why's CrowdSec answers, remove's sync: daemon/watch_sock.h),
 * IFACE.sock. One place names them, so that what a killed watch left can
 * be cleared (detach, once no watch holds the interface's watch lock).
 */
#ifndef __BW_RUN_DIR_H
#define __BW_RUN_DIR_H

#include <stdbool.h>
#include <stddef.h>

#define BW_STATE_DIR "/run/bloomwall"

/* The files of a watch on an interface, in BW_STATE_DIR. */
enum bw_run_file {
	BW_RUN_STATE,	   /* IFACE.json */
	BW_RUN_STATE_TEMP, /* .IFACE.json.tmp: the one writer's, renamed */
	BW_RUN_SOCKET,	   /* IFACE.sock */
	BW_RUN_NFILES,
};

/*
 * BW_STATE_DIR's file f of iface in buf: 0, -EINVAL (an iface that is no
 * interface name: empty, with a '/', or starting with '.'), -ENAMETOOLONG.
 */
int bw_run_path(char *buf, size_t cap, const char *iface, enum bw_run_file f);

/* Makes BW_STATE_DIR (0700) when missing: 0, -EPERM when it is not a
 * directory of ours, -errno. */
int bw_run_dir(void);

/*
 * An interface name that is also one file or directory name, as the pin
 * root (kernel/pin.h) and the lock directory name interfaces: not empty,
 * under IFNAMSIZ bytes, no '/', not "." or "..".
 */
bool bw_iface_name_ok(const char *name);

/* Removes every file of iface there (those of a watch that is gone). */
void bw_run_clear(const char *iface);

#endif /* __BW_RUN_DIR_H */
