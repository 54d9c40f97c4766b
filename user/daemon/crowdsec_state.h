/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What the CrowdSec source (crowdsec.h) shows of itself: the state file's
 * "crowdsec" section (ops/daemon_state.h), which status reads
 * (out/cs_status.h), and the metrics' counts (out/cs_metrics.h).
 */
#ifndef __BW_CROWDSEC_STATE_H
#define __BW_CROWDSEC_STATE_H

#include <json-c/json.h>

#include "daemon/crowdsec.h"
#include "out/cs_metrics.h"

/* Sets the "crowdsec" section of the state file's root. */
void bw_crowdsec_publish(const struct bw_crowdsec *cs,
			 struct json_object *root);

/* Fills m for the metrics file (out/cs_metrics.h). */
void bw_crowdsec_metrics(const struct bw_crowdsec *cs, struct bw_cs_metrics *m);

#endif /* __BW_CROWDSEC_STATE_H */
