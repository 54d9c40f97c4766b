// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The added names of a record area, read (rec_names.h). */
#include <errno.h>
#include <string.h>

#include "filter/rec_names.h"
#include "bloomwall.h"
#include "lists/names.h"

bool bw_rec_name_ok(const __u8 *p, __u8 len)
{
	char name[BW_NAME_MAX], why[BW_ERRLEN];
	int n = bw_name_check((const char *)p, len, name, why, sizeof(why));

	return n > 0 && n == len && !memcmp(name, p, len);
}

int bw_rec_names_read(struct bw_entries *added, struct bw_entries *gone,
		      const __u8 *body, __u32 len)
{
	const char *name;
	__u32 off = 0;
	__u8 kind, n;

	while (off < len) {
		if (len - off < 2)
			return -EINVAL;
		kind = body[off] & (__u8)~BW_REC_NAME_GONE;
		n = body[off + 1];
		if (kind > BW_NAME_SUBTREE || n > len - off - 2 ||
		    !bw_rec_name_ok(body + off + 2, n))
			return -EINVAL;
		name = (const char *)body + off + 2;
		if (bw_entries_push(
			    body[off] & BW_REC_NAME_GONE ? gone : added,
			    bw_key_name(name, n, kind ? BW_DOM_SUBTREE : 0), 0))
			return -ENOMEM;
		off += 2 + (__u32)n;
	}
	return 0;
}
