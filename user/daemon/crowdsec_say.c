// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The CrowdSec source's log lines (crowdsec_say.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/output.h"
#include "daemon/crowdsec_say.h"

void bw_cs_say_refused(const char *iface, const struct bw_cs_decision *d,
		       int kind, int cover_err, const unsigned int min_plen[2])
{
	char scope[BW_ESC_BUF(BW_CS_SCOPE_MAX)];
	char value[BW_ESC_BUF(BW_CS_VALUE_MAX)];
	char origin[BW_ESC_BUF(BW_CS_ORIGIN_MAX)];
	char why[200];

	if (kind > BW_CS_REFUSED_FILTER)
		return;
	bw_esc(scope, sizeof(scope), d->scope);
	bw_esc(value, sizeof(value), d->value);
	bw_esc(origin, sizeof(origin), d->origin[0] ? d->origin : "-");
	if (kind == BW_CS_REFUSED_FIELD)
		snprintf(why, sizeof(why), "a bad field: %s", d->refused);
	else if (kind == BW_CS_REFUSED_VALUE)
		snprintf(why, sizeof(why),
			 "not an address or prefix of scope %s", scope);
	else if (kind == BW_CS_REFUSED_WIDE)
		snprintf(
			why, sizeof(why),
			"a range wider than the limit (/%u IPv4, /%u IPv6: --widest-range)",
			min_plen[0] ?: BW_CS_MIN_PLEN4,
			min_plen[1] ?: BW_CS_MIN_PLEN6);
	else
		snprintf(
			why, sizeof(why),
			"the running filter cannot take it: %s",
			cover_err == -ENOENT
				? "no target length for its family and prefix length (the lists hold no entry this long: add one, or raise --max-lengths)"
			: cover_err == -E2BIG ? "too many live keys"
					      : strerror(-cover_err));
	printf("%s: crowdsec: decision %lld (%s %s, origin %s) refused: %s\n",
	       iface, (long long)d->id, scope, value, origin, why);
}

void bw_cs_say_answer(const char *iface, const struct bw_cs_set *set,
		      const struct bw_cs_answer *a)
{
	size_t held = bw_cs_set_count(set), values = bw_cs_set_values(set);
	char kept[128];

	if (!a->full && !a->got_new && !a->got_deleted)
		return;
	snprintf(kept, sizeof(kept), "%zu %s held on %zu %s (%.2f s)", held,
		 bw_plural(held, "decision", "decisions"), values,
		 bw_plural(values, "value", "values"), a->secs);
	if (a->resync)
		printf("%s: crowdsec: resync ok: drift %llu (%llu put in, %llu taken out: what the updates had not said); %llu in the answer, %s\n",
		       iface,
		       (unsigned long long)(a->drift.added + a->drift.removed),
		       (unsigned long long)a->drift.added,
		       (unsigned long long)a->drift.removed,
		       (unsigned long long)a->got_new, kept);
	else
		printf("%s: crowdsec: %s: %llu new, %llu deleted; %s\n", iface,
		       a->full ? "full sync ok" : "update",
		       (unsigned long long)a->got_new,
		       (unsigned long long)a->got_deleted, kept);
	if (a->refused > BW_CS_SAID_MAX)
		printf("%s: crowdsec: %llu more decisions refused in this answer (see 'bloomwall status')\n",
		       iface,
		       (unsigned long long)(a->refused - BW_CS_SAID_MAX));
}
