/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The builder's record area (builder.h): what a filter was built from,
 * for a later rebuild, status and query --why.
 */
#ifndef __BW_BUILD_RECORDS_H
#define __BW_BUILD_RECORDS_H

#include "filter/bloom.h"
#include "filter/build_req.h"
#include "filter/records.h"
#include "lists/list.h"

/*
 * What the filter was built from, into r (initialised here); src: what
 * each list file was (provenance.h). 0 or -errno (said).
 */
int bw_build_records(const struct bw_build_req *req, struct bw_rec_source *src,
		     struct bw_records *r);

/*
 * What the regions were sized for (BW_REC_SIZED): each region's keys and
 * the room for live entries it was given, before any runtime add.
 */
void bw_build_record_sized(const struct bw_plan *p, struct bw_records *r);

#endif /* __BW_BUILD_RECORDS_H */
