// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall status [--json] [IFACE]: program, filter and counters of each
 * interface bloomwall is attached to. Reads only: no lock, nothing changes.
 * What is shown is gathered first (ops/status.h), then output once
 * through the output layer, as text or JSON, so both say the same
 * (out/status_view.h).
 */
#include "base/output.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_status.h"
#include "ops/status.h"
#include "out/status_view.h"

static int show_iface(const char *iface, void *arg)
{
	struct bw_status_records sr;
	struct bw_status_watch sw;
	struct bw_status_view v;
	int *shown = arg;
	bool rec;

	/* The expiring entries and the provenance: of a valid filter. */
	rec = !bw_status_gather_all(&v, iface, &sr) && !v.filter_err;
	bw_status_watch(iface, &sw);
	bw_status_out(&v, rec ? &sr : NULL, &sw, !*shown);
	bw_status_watch_free(&sw);
	bw_status_records_free(&sr);
	(*shown)++;
	return 0;
}

static int do_status(struct bw_args *a)
{
	int shown = 0, err, n;

	/* JSON: an array, one object per interface; [] after a failure. */
	bw_out_open_array(NULL);
	if (a->iface && !a->ifindex && !bw_status_pinned(a->iface))
		return bw_parse_iface(a->iface, &a->ifindex);
	err = bw_check_privileges("status");
	if (err)
		return err;
	if (a->iface) {
		err = bw_status_find(a->iface, a->ifindex);
		return err ? err : show_iface(a->iface, &shown);
	}
	n = bw_status_each(show_iface, &shown);
	if (n < 0)
		return n;
	if (!n)
		bw_out_text("bloomwall is not attached to any interface\n");
	return 0;
}

const struct bw_verb bw_verb_status = {
	.name = "status",
	.summary =
		"show program, filter and counters (of every attached interface)",
	.details =
		"Filter: generation, entries, source prefixes and the expansion factor,\n"
		"target prefix lengths per family, size, and per region the prefix length,\n"
		"probes per key, fill (share of bits set) and the false-positive rate\n"
		"estimated from that fill; the allowlist's entries; verify mode with its\n"
		"exact trie's entries and the measured false positives (Bloom hits the trie\n"
		"refused); the kernel memory of the filter and of each trie (memlock).\n"
		"Provenance: when and how the filter was built (attach, reload, load of an\n"
		"image with its hash) and each list it was read from, with the entries it\n"
		"gave, its lines, bytes and mtime, and whether the file is unchanged,\n"
		"changed (its XXH3-128 hash differs) or missing now.\n"
		"Expiring entries ('add --timeout'): how many, the next, each with its\n"
		"expiry (JSON \"expiring\": {\"entries\", \"next\", \"list\", \"past\",\n"
		"\"watch_pid\"}); entries past their expiry still in the filter are named,\n"
		"and whether a watch runs to take them out.\n"
		"The interface's watch is asked for its state (its CrowdSec source, its\n"
		"pulls, its next expiry); one that does not answer within 1 s (a rebuild\n"
		"holds it) is said, and what it last published is shown (JSON \"watch\":\n"
		"{\"pid\", \"answered\", \"updated\"}, null without a watch).\n"
		"Counters are the sums of the per-CPU stats map.\n"
		"What is shown is what the interface's XDP hook runs; the pins under\n" BW_PIN_ROOT
		"/IFACE are a cache of it (\"pins\" says whether\n"
		"they agree). With --json: an array, one object per interface; \"pinned\"\n"
		"is false when the pins do not name what runs.\n",
	.opts = NULL,
	.pos = { .first_optional = true, .iface_may_vanish = true },
	.run = do_status,
};
