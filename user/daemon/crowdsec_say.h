/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What the CrowdSec source (crowdsec.c) says in the watch's log about an
 * answer: a refused decision, and the answer taken whole (an update, a
 * full sync, a resync and its drift). The LAPI's strings in them are
 * escaped (base/output.h): a value or an origin may hold a line of its
 * own, or an escape sequence.
 */
#ifndef __BW_CROWDSEC_SAY_H
#define __BW_CROWDSEC_SAY_H

#include <stdbool.h>
#include <linux/types.h>

#include "net/cs_decisions.h"

/* Refused decisions said one by one in an answer; then a count. */
#define BW_CS_SAID_MAX 5

/*
 * Decision d refused as kind (enum bw_cs_skip; nothing for an ignored
 * one): cover_err is the filter's error of a BW_CS_REFUSED_FILTER,
 * min_plen --widest-range's (0: the defaults).
 */
void bw_cs_say_refused(const char *iface, const struct bw_cs_decision *d,
		       int kind, int cover_err, const unsigned int min_plen[2]);

/* An answer taken whole, as crowdsec.c counted it. */
struct bw_cs_answer {
	bool full, resync; /* a full one; one of the periodic resyncs */
	__u64 got_new, got_deleted; /* decisions in "new", "deleted" */
	__u64 refused;		  /* refused ones (said up to BW_CS_SAID_MAX) */
	struct bw_cs_drift drift; /* a resync's */
	double secs;
};

/* Its line (none for an update that brought nothing), set as it holds now. */
void bw_cs_say_answer(const char *iface, const struct bw_cs_set *set,
		      const struct bw_cs_answer *a);

#endif /* __BW_CROWDSEC_SAY_H */
