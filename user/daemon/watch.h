/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch daemon (bloomwall watch): keeps an interface's filter built
 * from its lists, or from an image, while they change.
 *
 * inotify on the directories of the files, so that an editor's or rsync's
 * rename into place is seen as well as a write in place (and a Kubernetes
 * volume's ..data symlink swap); events are debounced, then the files'
 * identities (device, inode, size, times, through symlinks) are compared
 * with those of the last reload, and only a change rebuilds. Each rebuild
 * goes through the operations the verbs use (ops/reload.h, attach_lists.h): the
 * lock is taken only for the swap, a bad file leaves the running filter as
 * it was, and one line says what happened. Every tick, the running filter
 * is read: runtime adds that pushed a family's estimated rate past twice
 * the target start a rebuild from the lists; the metrics file is written.
 *
 * SIGTERM and SIGINT end it cleanly, the filter left attached (detached
 * with --detach-on-exit); SIGHUP rebuilds.
 */
#ifndef __BW_WATCH_H
#define __BW_WATCH_H

#include "daemon/watch_apply.h"

/* Default seconds between the checks of the running filter. */
#define BW_WATCH_TICK 10.0
/* Default seconds without events before a change is acted on. */
#define BW_WATCH_DEBOUNCE 0.5
/*
 * Seconds SIGHUP's rebuild waits for the fetches SIGHUP started, so that
 * a new copy goes into that rebuild rather than a second one after it.
 */
#define BW_WATCH_HUP_WAIT 10.0

/* Runs until a signal ends it: 0, or -errno when it could not start. */
int bw_watch_run(const struct bw_watch_cfg *c);

#endif /* __BW_WATCH_H */
