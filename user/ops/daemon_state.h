/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What a running watch publishes of itself: one JSON object per interface
 * in BW_STATE_DIR/IFACE.json, replaced whole (temporary file, rename), so
 * a reader sees the last state or the one before, never half of one. Its
 * keys are what the socket's "status" answers (base/run_ask.h): "pid",
 * "updated" (Unix seconds), "live", "socket", "crowdsec", "pull".
 *
 * status asks the watch first; the file is what it says when the watch
 * cannot answer: busy (a rebuild holds its loop), or killed (the file
 * stays: what it last did), and what scripts and tests read without a
 * connection. The kernel's hook stays the truth about what runs: this
 * file says only what the daemon knows beyond it. A file whose pid no
 * longer runs is stale: read says -ESRCH.
 */
#ifndef __BW_DAEMON_STATE_H
#define __BW_DAEMON_STATE_H

#include <json-c/json.h>

#include "base/run_dir.h"

/*
 * Writes root (daemon/watch_state.h: bw_watch_state()) as the state of
 * iface, making BW_STATE_DIR (0700) when missing. 0 or
 * -errno (said once per error kind by the caller, not here).
 */
int bw_dstate_write(const char *iface, struct json_object *root);

/*
 * The state a daemon published for iface: 0 with *root (the caller puts
 * it), -ENOENT (none), -ESRCH (its daemon is gone: *root is still set, for
 * a status that says so), -EINVAL (not a JSON object), -errno.
 */
int bw_dstate_read(const char *iface, struct json_object **root);

/* Removes iface's state (the daemon ending). */
void bw_dstate_remove(const char *iface);

#endif /* __BW_DAEMON_STATE_H */
