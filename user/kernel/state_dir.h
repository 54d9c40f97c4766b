/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The state directory BW_PIN_ROOT and its bpffs. Nothing under it is
 * followed through a symlink or used when another user owns it: such an
 * entry is refused with a message saying so (once per path) and
 * -BW_EUNSAFE, and never removed.
 */
#ifndef __BW_STATE_DIR_H
#define __BW_STATE_DIR_H

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>

/* An entry of the state directory refused as unsafe (the message is out). */
#define BW_EUNSAFE EUCLEAN

/*
 * The state directory, checked (created first when create): an fd kept open
 * for the life of the process (do not close it), or -errno.
 */
int bw_state_dir_fd(bool create);
/* Root, or our effective uid: who may own what is in the state directory. */
bool bw_uid_trusted(uid_t uid);
/* Mounts a bpffs at /sys/fs/bpf unless one is there; prints on failure. */
int bw_bpffs_ensure(void);

/* 0, -ENOENT, or a refusal of name in dirfd, seen without following it. */
int bw_state_check_entry(int dirfd, const char *name, const char *path,
			 bool dir);
/* The directory name in dirfd, checked: its fd or -errno. */
int bw_state_open_dir(int dirfd, const char *name, const char *path);

#endif /* __BW_STATE_DIR_H */
