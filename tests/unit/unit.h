/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Helpers shared by the unit test files; defined in test_list.c unless
 * said otherwise.
 */
#ifndef __BW_UNIT_H
#define __BW_UNIT_H

#include <stdbool.h>
#include <stdio.h>

#include "lists/list.h"

/*
 * A small filter (10.0.0.1 and 2001:db8::/48, seed 7) with room for
 * `extra` blocks after its regions, whose end goes in *tail; calloc'ed,
 * NULL on failure. Defined in test_records.c.
 */
void *bw_test_small_filter(__u32 extra, __u32 *tail);

/* The prefix s ("10.0.0.9", "2001:db8::/48"), zeroed if it is none. */
struct bw_prefix bw_test_prefix(const char *s);

/* Loads bw_test_data_dir()/rel into l; 0 or -errno. */
int bw_test_load_data(struct bw_list *l, const char *rel);

#endif /* __BW_UNIT_H */
