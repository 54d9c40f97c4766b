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

/*
 * status: the provenance of the filter iface runs; nothing when it runs
 * none or its filter is not readable (status says so elsewhere).
 */
void bw_prov_out_iface(const char *iface, int ifindex);

#endif /* __BW_PROV_VIEW_H */
