/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Helpers of the list format tests, defined in test_formats.c. */
#ifndef __BW_TEST_FORMATS_H
#define __BW_TEST_FORMATS_H

#include <stdbool.h>

#include "lists/list.h"

/* Writes text to name in the tests' temporary directory; its path. */
const char *bw_fmt_test_file(const char *name, const char *text);

/*
 * bw_list_load(path) with names taken, stderr captured into *msgs
 * (free it).
 */
int bw_fmt_test_load(const char *path, bool skip, struct bw_list *l,
		     char **msgs);

/* The entries in push order: prefixes, then names ("*." subtree, "+" allow). */
const char *bw_fmt_test_dump(const struct bw_list *l);

#endif /* __BW_TEST_FORMATS_H */
