/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * ipset save files ("ipset save", FireHOL's and others' restore files),
 * read a line at a time into a list's addresses (list.h):
 *
 *   create NAME hash:ip|hash:net|bitmap:ip [family inet|inet6] [...]
 *   add NAME ENTRY [timeout N] [comment "x"] [packets N] [bytes N] ...
 *
 * ENTRY is an address, a prefix or an IPv4 range; a hash:ip set's
 * "netmask N" makes each entry the /N it stands for. The options of an
 * add line are ignored and counted. "nomatch" (an exception inside a
 * listed prefix) is a bad line: a block list has no exceptions, and read
 * without it the exception would be dropped; put it in an --allow file.
 * Sets of other types (hash:ip,port, hash:net,iface...) hold more than
 * addresses: their create line is a bad line. An add to a set not
 * created above, or an entry of the other family, is a bad line.
 */
#ifndef __BW_IPSET_H
#define __BW_IPSET_H

#include <stdbool.h>
#include <stddef.h>

#include "lists/list.h"

#define BW_IPSET_SETS 64
#define BW_IPSET_NAME 32 /* IPSET_MAXNAMELEN */

struct bw_ipset {
	struct {
		char name[BW_IPSET_NAME];
		__u8 family;  /* BW_V4 or BW_V6 */
		__u8 netmask; /* 0: none */
	} set[BW_IPSET_SETS];
	int nsets;
	size_t options; /* add lines' options ignored */
};

/* Whether a line is an ipset save file's (create or add NAME ...). */
bool bw_ipset_detect(const char *line, size_t len);

/* One line (NUL-terminated). 0, -EINVAL with the reason in err, -ENOMEM. */
int bw_ipset_line(struct bw_ipset *s, struct bw_list *l, const char *line,
		  size_t len, const struct bw_list_opts *opts, char *err,
		  size_t errlen);

void bw_ipset_note(const struct bw_ipset *s, char *buf, size_t len);

#endif /* __BW_IPSET_H */
