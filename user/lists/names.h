/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Domain names in userspace: the name rules, case folding, the wire
 * format, and the suffix hashes of include/bw_hash.h over a dotted or a
 * wire-format name (the twin of what the data path computes).
 *
 * Names here are dotted text. A checked name is case-folded, has no
 * trailing dot, labels of 1..63 bytes of a-z, 0-9, '-' and '_' (IDN names
 * in their ASCII "xn--" form), at most BW_NAME_MAX bytes and a top label
 * that is not all digits (that is an address). Errors: -EINVAL with the
 * reason in err, the text quoted, as list lines report them.
 */
#ifndef __BW_NAMES_H
#define __BW_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"

/* A name in wire format: length-prefixed labels and the root's 0. */
#define BW_WIRE_MAX (BW_NAME_MAX + 2)

/*
 * Checks the name s[0..len) (one trailing dot allowed) and writes it
 * folded, without the dot, to out (room for BW_NAME_MAX bytes; not
 * NUL-terminated). Returns its length, or -EINVAL with the reason in err.
 */
int bw_name_check(const char *s, size_t len, char *out, char *err,
		  size_t errlen);

/*
 * The local entries of hosts files that are no blocked names: localhost,
 * localhost.localdomain, local, broadcasthost, ip6-* and 0.0.0.0, in any
 * case.
 */
bool bw_name_is_local(const char *s, size_t len);

/* A checked name to wire format; returns the wire length. */
size_t bw_name_to_wire(const char *name, size_t len, __u8 *wire);

/*
 * Wire format back to a dotted, folded name (out: room for BW_NAME_MAX).
 * Returns its length (0 for the root), or -EINVAL for what a query name
 * may not be: a compression pointer, a label over 63 bytes, a name over
 * 255 bytes, no root label within len.
 */
int bw_name_from_wire(const __u8 *wire, size_t len, char *out);

/*
 * Suffix hashes of a dotted name, folding as they read: keys[k] is the
 * subtree key of the suffix of k + 1 labels (keys[0] the TLD's, the last
 * the whole name's; bw_name_key_exact() of it is the exact key). One pass
 * from the right. Returns the number of labels, -EINVAL for an empty
 * label or one over 63 bytes, -E2BIG for more than max labels.
 */
int bw_name_hashes(const char *name, size_t len, __u32 seed, __u64 *keys,
		   size_t max);

/*
 * The same from a wire-format name, as a packet holds it: each label
 * hashed as it is read from the left, then the chain from the right, the
 * order the data path must use. Returns the number of labels or -EINVAL
 * (as bw_name_from_wire()).
 */
int bw_name_wire_hashes(const __u8 *wire, size_t len, __u32 seed, __u64 *keys,
			size_t max);

/* The suffix of name (len bytes) that holds its last labels labels. */
const char *bw_name_suffix(const char *name, size_t len, int labels);

#endif /* __BW_NAMES_H */
