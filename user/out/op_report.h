/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The reports of the operations that change what an interface runs
 * (attach, reload and load, detach), printed from their results as text
 * or JSON: each stage that was reached, in the order it was done.
 */
#ifndef __BW_OP_REPORT_H
#define __BW_OP_REPORT_H

#include "ops/add.h"
#include "ops/allow.h"
#include "ops/handover.h"
#include "ops/attach_lists.h"
#include "ops/detach.h"
#include "ops/reload.h"

/*
 * Each build's report (build_report.h); once swapped, "IFACE: swapped in
 * generation N (replaces M)", the new allowlist and the entries added at
 * run time kept and left out. JSON: "filter", "names", "verify", "swap",
 * "allow", "added_kept", "added_forgotten".
 */
void bw_reload_report(const char *iface, const struct bw_reload_result *res);

/*
 * The build's report; once attached, the allowlist and "IFACE: attached
 * in MODE mode (how), program id N". JSON: "filter", "names", "verify",
 * "allow", "attach".
 */
void bw_attach_report(const char *iface, const struct bw_attach_result *res);

/* "IFACE: bloomwall detached, pins removed"; JSON "interface_gone", ... */
void bw_detach_report(const char *iface, const struct bw_detach_result *res);

/*
 * allow, unallow of rq's entries (given: as the command line gave them):
 * "ENTRY  allowed" a line each in the order given, then "IFACE: N of M
 * added (allowlist now K entries, name allowlist now L entries)", each
 * allowlist the command touched. JSON: "addresses" and "names" (those the
 * command has): [{"address" or "name", "result"}], "added" or "removed",
 * "total", "allowlist_entries" (the addresses'; of a command of names
 * only, the names'), "name_allowlist_entries". After a failure (err) only
 * the arrays, empty.
 */
void bw_allow_report(const struct bw_allow_req *rq, char *const *given,
		     const struct bw_allow_result *res, int err);

/*
 * add by a swap: "ENTRY  added" (or "already in the filter", the keys a
 * prefix took, its expiry) a line each, JSON "addresses": [{"address",
 * "result", "keys", "new_keys", "prefix", "expires", "expires_in"}] or
 * "names": [{"name", "result", ...}], then "IFACE: N of M added to filter
 * generation G", JSON "added", "total", "generation", ("entries"),
 * "added_kept"; a warning when a touched region is past twice its target.
 */
void bw_add_report(const struct bw_add_req *rq,
		   const struct bw_add_result *res);

/*
 * add that grew the filter by a rebuild (after bw_reload_report), had[i]
 * whether entry i was kept before, unexpired[i] whether this add ended
 * its expiry: as bw_add_report, "IFACE: N of M
 * added to filter generation G, grown with room for the adds", JSON
 * "added", "total", "generation", "grown".
 */
void bw_add_grown_report(const struct bw_add_req *rq, const bool *had,
			 const bool *unexpired,
			 const struct bw_reload_result *rr);

/*
 * add handed to the watch, how[i] what it did with entry i: as
 * bw_add_report, "IFACE: N of M added in place by the watch (no swap)",
 * JSON "added", "total", "in_place".
 */
void bw_add_handed_report(const struct bw_add_req *rq,
			  const enum bw_handover_how *how);

#endif /* __BW_OP_REPORT_H */
