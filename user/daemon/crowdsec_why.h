/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch socket's "why" (base/run_ask.h says its fields; daemon/watch.c
 * hands it the question): the decisions covering each address asked,
 * from the decision set at once in the watch's loop (one scan of the set
 * for all of them: some milliseconds for a million decisions).
 */
#ifndef __BW_CROWDSEC_WHY_H
#define __BW_CROWDSEC_WHY_H

#include "net/cs_decisions.h"

#include <json-c/json.h>

/*
 * Fills reply ans to question req from set (url: the source's LAPI);
 * set NULL: no CrowdSec source, no decisions.
 */
void bw_cs_why_answer(const struct bw_cs_set *set, const char *url,
		      struct json_object *req, struct json_object *ans);

#endif /* __BW_CROWDSEC_WHY_H */
