/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * add with a watch running: the entries are handed to the watch over its
 * socket (daemon/watch_sock.h, the question "add"), which appends them to
 * the running filter's add log and sets them live in place: no rebuild,
 * no swap, the same program on the hook. The watch is the one owner of
 * the live entries; without one, or where it cannot add in place, the
 * caller does the add itself.
 */
#ifndef __BW_WATCH_ADD_H
#define __BW_WATCH_ADD_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "lists/list.h"

struct bw_watch_add_req {
	const char *iface;
	const struct bw_prefix *p; /* n of them, or */
	size_t n;
	const struct bw_list *names; /* names (flags 0 or BW_DOM_SUBTREE) */
	__u64 expires;		     /* Unix seconds, 0: never */
};

/* Entry i of the request, as the watch answered for it. */
struct bw_watch_add_entry {
	bool already; /* it was live before */
};

struct bw_watch_add_result {
	struct bw_watch_add_entry *e; /* one per entry asked, in order */
	char why[256];		      /* the watch's word when not in place */
};

/*
 * Hands rq to iface's watch: 0 when it added every entry in place (res->e
 * filled; free it with bw_watch_add_free); -ENOENT when no watch listens
 * (or one that knows no "add"); -EXDEV when the watch cannot add them in
 * place (res->why says why); either way the caller adds them itself.
 * -ETIMEDOUT when the watch did not answer, -errno. A busy lock is asked
 * again for a while.
 */
int bw_watch_add(const struct bw_watch_add_req *rq,
		 struct bw_watch_add_result *res);

void bw_watch_add_free(struct bw_watch_add_result *res);

#endif /* __BW_WATCH_ADD_H */
