/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The detach operation: bloomwall's program off an interface's hook and
 * its pins removed, or the pins an earlier one left behind. detach and
 * watch --detach-on-exit use it.
 */
#ifndef __BW_DETACH_H
#define __BW_DETACH_H

#include <stdbool.h>

struct bw_detach_req {
	const char *iface;
	int ifindex; /* 0: the interface is gone */
};

struct bw_detach_result {
	bool detached;	   /* a program was taken off the hook */
	bool pins_removed; /* the pins naming it (or left behind) are gone */
	bool interface_gone;
};

/*
 * Under the lock: takes iface's bloomwall program off its hook and removes
 * its pins; with none running, removes the pins it left, unless they name
 * a program that runs on another interface (a rename: -ENOENT, said, as
 * for no pins at all). res says what was done; nothing is printed on
 * stdout.
 */
int bw_detach_iface(const struct bw_detach_req *rq,
		    struct bw_detach_result *res);

#endif /* __BW_DETACH_H */
