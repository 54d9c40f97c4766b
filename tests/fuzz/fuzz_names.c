// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libFuzzer target for domain names: list lines with names kept and
 * refused, the name rules, and the userspace name hash against its wire
 * twin. Besides crashes, leaks and undefined behaviour, a broken invariant
 * aborts: a checked name must be folded and within bounds, survive the
 * wire format unchanged, and hash alike from its dotted and wire forms and
 * in any case.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "lists/list.h"
#include "lists/list_parse.h"
#include "lists/names.h"

/* The input split into lines, read with and without domains. */
static void parse_lines(const char *text, size_t size, bool domains)
{
	struct bw_list_opts o = { .domains = domains };
	char err[BW_ERRLEN], *copy, *save, *line;
	struct bw_list l;
	size_t i, ndom;

	copy = strndup(text, size);
	if (!copy)
		return;
	bw_list_init(&l);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		ndom = l.ndom;
		if (bw_list_parse_line(&l, line, &o, err, sizeof(err)) &&
		    l.ndom != ndom)
			abort(); /* a bad line added names */
		if (!domains && l.ndom)
			abort();
	}
	bw_list_finish(&l);
	for (i = 1; i < l.ndom; i++)
		if (l.dom[i].len == l.dom[i - 1].len &&
		    l.dom[i].flags == l.dom[i - 1].flags &&
		    !memcmp(bw_domain_name(&l, &l.dom[i]),
			    bw_domain_name(&l, &l.dom[i - 1]), l.dom[i].len))
			abort(); /* a duplicate survived */
	bw_domains_subtree(&l);
	bw_list_finish(&l);
	bw_list_free(&l);
	free(copy);
}

/* A checked name's invariants. */
static void check_name(const char *s, size_t len)
{
	__u64 k1[BW_NAME_LABELS_MAX], k2[BW_NAME_LABELS_MAX];
	char out[BW_NAME_MAX], back[BW_NAME_MAX], upper[BW_NAME_MAX];
	char err[BW_ERRLEN];
	__u8 wire[BW_WIRE_MAX];
	int n, m, i;
	size_t w;

	n = bw_name_check(s, len, out, err, sizeof(err));
	if (n < 0)
		return;
	if (n > BW_NAME_MAX)
		abort();
	for (i = 0; i < n; i++)
		if (out[i] >= 'A' && out[i] <= 'Z')
			abort();
	w = bw_name_to_wire(out, (size_t)n, wire);
	if (w != (size_t)n + 2 || bw_name_from_wire(wire, w, back) != n ||
	    memcmp(back, out, (size_t)n))
		abort();
	m = bw_name_hashes(out, (size_t)n, 42, k1, BW_NAME_LABELS_MAX);
	if (m < 1 ||
	    bw_name_wire_hashes(wire, w, 42, k2, BW_NAME_LABELS_MAX) != m ||
	    memcmp(k1, k2, (size_t)m * sizeof(k1[0])))
		abort();
	for (i = 0; i < n; i++)
		upper[i] =
			out[i] >= 'a' && out[i] <= 'z' ? out[i] - 32 : out[i];
	if (bw_name_hashes(upper, (size_t)n, 42, k2, BW_NAME_LABELS_MAX) != m ||
	    memcmp(k1, k2, (size_t)m * sizeof(k1[0])))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	__u64 keys[BW_NAME_LABELS_MAX];
	char out[BW_NAME_MAX];

	bw_log_level = BW_LOG_NONE;
	parse_lines((const char *)data, size, true);
	parse_lines((const char *)data, size, false);
	check_name((const char *)data, size);
	/* Unchecked input straight into the hash and the wire reader. */
	bw_name_hashes((const char *)data, size, 1, keys, BW_NAME_LABELS_MAX);
	bw_name_wire_hashes(data, size, 1, keys, BW_NAME_LABELS_MAX);
	bw_name_from_wire(data, size, out);
	return 0;
}
