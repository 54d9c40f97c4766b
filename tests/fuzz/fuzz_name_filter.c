// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libFuzzer target for the names in a filter: list lines with domains
 * kept become a filter's name regions (bw_plan_filter, bw_fill_filter) and
 * every block entry must then test positive through bw_name_lookup (the
 * data path's twin), as exact or subtree as written, for its own name and
 * a subtree entry for a name under it; the filter must pass its own check;
 * the names kept as runtime adds must read back from the record area as
 * they went in. Each line is also looked up as a query name.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "filter/builder.h"
#include "filter/records.h"
#include "filter/records_edit.h"
#include "filter/records_read.h"
#include "filter/records_write.h"
#include "lists/list.h"
#include "lists/list_parse.h"
#include "lists/names.h"

static void parse(const char *text, size_t size, struct bw_list *l)
{
	struct bw_list_opts o = { .domains = true };
	char err[BW_ERRLEN], *copy, *save, *line;

	copy = strndup(text, size);
	if (!copy)
		return;
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		bw_list_parse_line(l, line, &o, err, sizeof(err));
	free(copy);
	bw_list_finish(l);
}

/* Every block entry hits, a subtree entry also for a child of it. */
static void check_hits(const void *mem, const struct bw_list *l)
{
	char child[BW_NAME_MAX + 3];
	struct bw_name_hit hit;
	const struct bw_domain *d;
	size_t i;

	for (i = 0; i < l->ndom; i++) {
		d = &l->dom[i];
		if (d->flags & BW_DOM_ALLOW)
			continue;
		if (bw_name_lookup(mem, bw_domain_name(l, d), d->len, &hit) !=
		    1)
			abort(); /* a false negative */
		if (!(d->flags & BW_DOM_SUBTREE) || d->len + 2 > BW_NAME_MAX)
			continue;
		memcpy(child, "x.", 2);
		memcpy(child + 2, bw_domain_name(l, d), d->len);
		if (bw_name_lookup(mem, child, d->len + 2U, &hit) != 1 ||
		    hit.labels > hit.nlabels)
			abort(); /* a subtree that misses its child */
	}
}

/* The block entries as runtime adds: written and read back alike. */
static void check_records(void *mem, __u32 nblocks, const struct bw_list *l)
{
	struct bw_records r, back;
	size_t i;

	bw_records_init(&r);
	for (i = 0; i < l->ndom; i++)
		if (!(l->dom[i].flags & BW_DOM_ALLOW))
			bw_records_add(
				&r,
				bw_key_name(bw_domain_name(l, &l->dom[i]),
					    l->dom[i].len, l->dom[i].flags));
	if (!bw_records_write(mem, nblocks, &r)) {
		if (bw_records_read(mem, nblocks, &back) ||
		    !bw_records_same_added(&r, &back))
			abort();
		bw_records_free(&back);
	}
	bw_records_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bw_build_opts o = { .fpr = 0.01, .seed = 1 };
	struct bw_name_hit hit;
	struct bw_plan plan;
	struct bw_list l;
	__u32 nblocks;
	void *mem;

	bw_log_level = BW_LOG_NONE;
	bw_list_init(&l);
	parse((const char *)data, size, &l);
	if (!bw_plan_filter(&l, &o, &plan)) {
		/* Room for the record area after the regions. */
		nblocks = plan.nblocks + 64 + (__u32)(l.names_len / 32);
		mem = calloc(nblocks, BW_BLOCK_BYTES);
		if (mem) {
			bw_fill_filter(mem, &plan, &l);
			if (bw_filter_check(mem, nblocks))
				abort();
			check_hits(mem, &l);
			bw_name_lookup(mem, (const char *)data,
				       size > BW_NAME_MAX ? BW_NAME_MAX : size,
				       &hit);
			check_records(mem, nblocks, &l);
			free(mem);
		}
	}
	bw_list_free(&l);
	return 0;
}
