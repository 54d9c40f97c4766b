// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall query IFACE ADDR...: the data path's test, run in userspace on
 * the running filter (mapped read-only), so the answer is the one a packet
 * would get.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "attach.h"
#include "cli.h"
#include "list.h"
#include "log.h"

static void answer(const char *addr, const void *mem, const struct bw_prefix *p)
{
	const struct bw_hdr *hdr = mem;
	int r = 0;

	if (!bw_filter_lookup(mem, p, &r)) {
		printf("%s  pass\n", addr);
		return;
	}
	if (hdr->flags & BW_F_MONITOR) {
		printf("%s  pass (monitor mode: would drop)\n", addr);
		return;
	}
	printf("%s  drop (in blocklist /%u region)\n", addr,
	       hdr->plen[r / BW_MAX_LENGTHS][r % BW_MAX_LENGTHS]);
}

static int do_query(struct bw_args *a)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_prefix *addrs = NULL;
	int i, outer_fd = -1, err;

	err = bw_parse_addrs("query", a->pos, a->npos, false, &addrs);
	if (err)
		return err;
	err = bw_check_privileges("query");
	if (err)
		goto out;
	err = bw_open_running(a->iface, false, &outer_fd, &m);
	if (err)
		goto out;
	for (i = 0; i < a->npos; i++)
		answer(a->pos[i], m.mem, &addrs[i]);
out:
	bw_filter_close(&m);
	if (outer_fd >= 0)
		close(outer_fd);
	free(addrs);
	return err;
}

const struct bw_verb bw_verb_query = {
	.name = "query",
	.usage = "IFACE ADDR...",
	.summary =
		"say whether the running filter on IFACE would drop each ADDR",
	.details =
		"Prints 'ADDR  drop (in blocklist /LEN region)', 'ADDR  pass', or, in monitor\n"
		"mode, 'ADDR  pass (monitor mode: would drop)'. A Bloom filter may answer\n"
		"drop for an address that is in no list (a false positive), never pass for\n"
		"one that is.\n",
	.opts = NULL,
	.min_pos = 2,
	.max_pos = -1,
	.run = do_query,
};
