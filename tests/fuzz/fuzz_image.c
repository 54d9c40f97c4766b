// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libFuzzer target for the image reader (user/image.c): any bytes are
 * checked without reading out of bounds; an image that passes is re-encoded
 * from its filter to the same bytes, and its filter answers lookups.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bloom.h"
#include "image.h"
#include "list.h"
#include "records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bw_prefix p = { .family = BW_V4, .plen = 32 };
	struct bw_records rec;
	struct bw_image img;
	char why[256];
	void *buf, *again = NULL;
	size_t len;

	buf = malloc(size ?: 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (!bw_image_check(buf, size, &img, why, sizeof(why))) {
		if (bw_image_encode(img.filter, img.nblocks, &again, &len) ||
		    len != size || memcmp(again, data, size))
			abort(); /* an accepted image is what its filter encodes */
		if (bw_records_read(img.filter, img.nblocks, &rec))
			abort(); /* the check read the same area */
		bw_records_free(&rec);
		bw_filter_lookup(img.filter, &p, NULL);
		free(again);
	}
	free(buf);
	return 0;
}
