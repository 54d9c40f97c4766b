/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What expires when: the entries 'bloomwall add --timeout' put in, as add,
 * status and query show them (text and JSON), and status's warning when
 * entries past their expiry are still in the filter with no watch running
 * to take them out.
 */
#ifndef __BW_EXPIRY_VIEW_H
#define __BW_EXPIRY_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "filter/records.h"
#include "lists/list.h"

/*
 * "2026-12-02 03:45:10 UTC (in 2m58s)", or "(5s ago)" once past; expires
 * is Unix seconds. Returns buf.
 */
const char *bw_expiry_text(__u64 expires, __u64 now, char *buf, size_t len);

/*
 * JSON only: "expires" (Unix seconds, null: never) and "expires_in"
 * (seconds left, negative once past; null: never).
 */
void bw_expiry_json(__u64 expires, __u64 now);

/* A watch's next expiry not known (its state file is not its own). */
#define BW_EXPIRY_UNKNOWN ((__u64)-1)

/*
 * status, in the filter's section: of the records r, the entries and
 * names that expire, the next, each with its expiry (text: the first
 * BW_EXPIRY_ROWS, JSON all, object "expiring": "entries" counts both,
 * "names" the names), and how many are past with whether a watch (pid
 * watch_pid, <= 0: none) took them out ("taken_out": its state file's
 * next expiry, watch_next, 0: none, is later than every past one) or
 * takes them out.
 */
void bw_expiry_out_status(const struct bw_records *r, int watch_pid,
			  __u64 watch_next);

#define BW_EXPIRY_ROWS 20

/*
 * add, after an entry's or a name's result: ", expires TIME (in 4h)" when
 * it was added with --timeout (expires), ", no longer expires" when it
 * had an expiry and the add ended it (unexpired), then the newline; JSON
 * "expires" and "expires_in" (bw_expiry_json).
 */
void bw_expiry_say_add(__u64 expires, __u64 now, bool unexpired);

/*
 * query --why: the runtime adds that cover a (an address: the prefixes
 * that hold it; a name, checked and folded: the names, "*.NAME" for a
 * subtree), a line each ("  why: added at run time: ENTRY (...)", with
 * its expiry if it has one); JSON "added" (the entries) and "expires"
 * (bw_expiry_out_covering's). Returns how many.
 */
size_t bw_expiry_why_added(const struct bw_records *rec, struct bw_entry_key a);

/*
 * query: the expiring runtime adds that cover a (as above), a line each
 * ("  expires: ENTRY (added at run time) TIME (in 2m)"); JSON array
 * "expires" of {"entry", "expires", "expires_in"}. Nothing when none.
 * text false: JSON only (query --why says it in its own lines).
 */
void bw_expiry_out_covering(const struct bw_records *rec, struct bw_entry_key a,
			    bool text);

#endif /* __BW_EXPIRY_VIEW_H */
