/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What status shows of one interface (ops/status.h gathers it), through
 * the output layer, as text or JSON, so both say the same.
 */
#ifndef __BW_STATUS_VIEW_H
#define __BW_STATUS_VIEW_H

#include <stdbool.h>
#include <json-c/json.h>

#include "ops/status.h"

/*
 * v, as status shows it (after a blank line unless first); sr: the
 * filter's records, NULL when they could not be read (then no expiring
 * entries and no provenance are shown); sw: what the interface's watch
 * said of itself (its next expiry, its CrowdSec and Pull sections), or
 * last published when it did not answer (said).
 */
void bw_status_out(const struct bw_status_view *v,
		   const struct bw_status_records *sr,
		   const struct bw_status_watch *sw, bool first);

#endif /* __BW_STATUS_VIEW_H */
