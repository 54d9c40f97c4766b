/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The provenance section of status and inspect, text and JSON. */
#ifndef __BW_PROV_VIEW_H
#define __BW_PROV_VIEW_H

#include "filter/records.h"

/*
 * The provenance section of status (text rows and the JSON object
 * "provenance") for records r; compares every list with its file.
 */
void bw_prov_out(const struct bw_records *r);

#endif /* __BW_PROV_VIEW_H */
