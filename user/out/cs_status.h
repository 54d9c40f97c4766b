/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * status's "CrowdSec" section: what a running watch's CrowdSec source
 * published in the state file (daemon_state.h, section "crowdsec"): the
 * LAPI's URL, the last whole sync and the last try, the decisions held by
 * origin and scope, those refused or filtered out, the requests by result.
 * Nothing when no watch with a source runs on the interface.
 */
#ifndef __BW_CS_STATUS_H
#define __BW_CS_STATUS_H

#include <json-c/json.h>

/*
 * Prints the section (text rows, JSON object "crowdsec") of state, what
 * bw_dstate_read() read of the interface (err: what it returned).
 */
void bw_cs_status_out(struct json_object *state, int err);

#endif /* __BW_CS_STATUS_H */
