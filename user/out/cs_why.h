/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * query --why's CrowdSec side: which decisions of a running watch's
 * CrowdSec source cover an address. A million decisions do not fit in the
 * state file (daemon_state.h), nor should the daemon rewrite them all on
 * every change: the watch answers over a unix socket of its own,
 * BW_STATE_DIR/IFACE.sock (0600, root's), one question a connection:
 *
 *   -> "why ADDR\n"
 *   <- one JSON object, then the daemon closes:
 *      {"url": URL, "decisions": [{"id", "origin", "scenario", "scope",
 *       "value", "type", "until"}], "more": N}
 *
 * (at most BW_CS_WHY_MAX decisions listed, "more" counts the rest; none
 * for a watch without a CrowdSec source). This module is the question
 * and the answer's text and JSON output; base/run_ask.c asks,
 * daemon/watch_sock.c takes the question, crowdsec_why.c answers.
 */
#ifndef __BW_CS_WHY_H
#define __BW_CS_WHY_H

#include <stddef.h>

/* Decisions listed in one answer. */
#define BW_CS_WHY_MAX 64

/*
 * Asks iface's watch about addr and prints its answer under query's line
 * ("  why: CrowdSec decision ID: ..." a decision; JSON: "crowdsec"
 * {"url", "decisions": [...], "more"}). Returns how many decisions cover
 * addr: 0 also when no watch with a CrowdSec source runs (nothing printed
 * then), -errno when the watch did not answer (said).
 */
int bw_cs_why_out(const char *iface, const char *addr);

#endif /* __BW_CS_WHY_H */
