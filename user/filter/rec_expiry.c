// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The expiry records of a record area, read (rec_expiry.h). */
#include <errno.h>
#include <string.h>

#include "bloomwall.h"
#include "filter/rec_expiry.h"
#include "filter/rec_names.h"
#include "filter/rec_prefix.h"

int bw_rec_expiries_read(struct bw_entries *e, const __u8 *body, __u32 len)
{
	struct bw_rec_expiry o;
	struct bw_prefix p;
	__u32 off;

	if (len % sizeof(o))
		return -EINVAL;
	for (off = 0; off < len; off += sizeof(o)) {
		memcpy(&o, body + off, sizeof(o));
		if (!o.expires || o.expires > BW_REC_EXPIRES_MAX ||
		    bw_rec_prefix_read(&o.prefix, &p))
			return -EINVAL;
		if (bw_entries_push(e, bw_key_prefix(&p), o.expires))
			return -ENOMEM;
	}
	return 0;
}

int bw_rec_name_expiries_read(struct bw_entries *e, const __u8 *body, __u32 len)
{
	__u32 off = 0;
	__u64 expires;
	__u8 n;

	while (off < len) {
		if (len - off < 2)
			return -EINVAL;
		n = body[off + 1];
		if (body[off] > BW_NAME_SUBTREE ||
		    len - off - 2 < (__u32)n + sizeof(expires) ||
		    !bw_rec_name_ok(body + off + 2, n))
			return -EINVAL;
		memcpy(&expires, body + off + 2 + n, sizeof(expires));
		if (!expires || expires > BW_REC_EXPIRES_MAX)
			return -EINVAL;
		if (bw_entries_push(e,
				    bw_key_name((const char *)body + off + 2, n,
						body[off] ? BW_DOM_SUBTREE : 0),
				    expires))
			return -ENOMEM;
		off += 2 + (__u32)n + sizeof(expires);
	}
	return 0;
}
