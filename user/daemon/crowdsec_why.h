/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's answer to query --why's question "why ADDR" (out/cs_why.h
 * says the protocol; daemon/watch.c hands it the question): the
 * decisions covering ADDR, from the decision set at once in the watch's
 * loop (a scan of the set: some milliseconds for a million decisions).
 */
#ifndef __BW_CROWDSEC_WHY_H
#define __BW_CROWDSEC_WHY_H

#include "net/cs_decisions.h"

#include <json-c/json.h>

/* The answer about addr from set (url: the source's); NULL: no memory. */
struct json_object *bw_cs_why_answer(const struct bw_cs_set *set,
				     const char *url, const char *addr);

#endif /* __BW_CROWDSEC_WHY_H */
