// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Past the key cap, which prefix lengths cost the keys, an example of
 * each, and what to do about them (cidr_report.h).
 */
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "base/log.h"
#include "lists/cidr_report.h"
#include "lists/list_parse.h"

/*
 * Expanded prefixes of one family, by merged length: short ones (some
 * listed entry in them is shorter than their target) and merged neighbours
 * (every listed entry in them is at least as long as the target: the keys
 * are those entries, aggregated at the target length), each with the
 * index of its first.
 */
struct fam_cost {
	__u64 shorts[BW_CIDR_MAXW + 1], merged[BW_CIDR_MAXW + 1];
	size_t first_short[BW_CIDR_MAXW + 1], first_merged[BW_CIDR_MAXW + 1];
};

static void split_cost(const struct bw_list *l, int f,
		       const struct fam_plan *fp, struct fam_cost *c)
{
	size_t j, n = fam_count(l, f);
	unsigned int len;

	memset(c, 0, sizeof(*c));
	/* Backwards: the first of each length is the one kept. */
	for (j = n; j-- > 0;) {
		len = get_pfx(l, f, j).plen;
		if (fp->tgt[len] == len)
			continue;
		if (get_origin(l, f, j) < fp->tgt[len]) {
			c->shorts[len]++;
			c->first_short[len] = j;
		} else {
			c->merged[len]++;
			c->first_merged[len] = j;
		}
	}
}

/* One line of the cost report: count prefixes of /len -> keys of /tgt. */
static void report_line(const struct bw_list *l, int f, unsigned int len,
			unsigned int tgt, __u64 count, size_t first,
			const char *note)
{
	char buf[INET6_ADDRSTRLEN + 8];
	struct bw_prefix ex = to_prefix(f, get_pfx(l, f, first));

	pr_warn("  %llu prefixes of /%u (e.g. %s) -> %llu keys of /%u%s\n",
		(unsigned long long)count, len,
		bw_prefix_str(&ex, buf, sizeof(buf)),
		(unsigned long long)bw_sat_shl(count, tgt - len), tgt, note);
}

/*
 * Says which lengths cost the most keys, with an example of each, and
 * what to do: shorten the short prefixes, or, when the keys are the lists'
 * own entries, list fewer.
 */
void bw_cidr_report_cost(const struct bw_list *l, int f,
			 const struct fam_plan *fp, __u64 merged,
			 __u64 expanded, unsigned int nlengths, unsigned int k)
{
	unsigned int len, shown = 0, width = (f == BW_V4 ? 32U : 128U);
	struct fam_cost *c = malloc(sizeof(*c));

	pr_warn("%s: %llu prefixes expand to %llu keys at %u target lengths:\n",
		fam_name(f), (unsigned long long)merged,
		(unsigned long long)expanded, nlengths);
	if (!c)
		return;
	split_cost(l, f, fp, c);
	/* The shortest lengths are the expensive ones: list them first. */
	for (len = 0; len <= width && shown < 4; len++) {
		if (!c->shorts[len])
			continue;
		report_line(l, f, len, fp->tgt[len], c->shorts[len],
			    c->first_short[len], "");
		shown++;
	}
	for (len = width + 1; len-- > 0;)
		if (c->merged[len])
			report_line(l, f, len, fp->tgt[len], c->merged[len],
				    c->first_merged[len],
				    " (merged neighbours: the listed entries)");
	free(c);
	if (!shown) {
		pr_warn("  the keys are the lists' own entries: use fewer or smaller lists\n");
		return;
	}
	if (k < BW_MAX_LENGTHS)
		pr_warn("  raise --max-lengths (now %u, at most %d), or ", k,
			BW_MAX_LENGTHS);
	else
		pr_warn("  ");
	pr_warn("remove or split the short prefixes above, or use fewer lists\n");
}
