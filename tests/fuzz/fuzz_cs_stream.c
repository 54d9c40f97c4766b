// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libFuzzer target for what reads a CrowdSec LAPI's answer, a server's
 * bytes: the stream scanner (cs_stream.c) fed in pieces whose sizes come
 * from the input, each decision's fields (cs_fields.c), and the decision
 * set they go into (cs_decisions.c: values, ranges, filters, resync and
 * expiry). Built with ASan and UBSan by 'make fuzz'; a crash, a leak or
 * undefined behaviour is a finding, and so is a set whose counts disagree
 * with what its sink was told.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "net/cs_decisions.h"
#include "net/cs_stream.h"

struct run {
	struct bw_cs_set *set;
	long covered;
};

static int cover(void *ctx, const struct bw_prefix *p, __s64 until_ms)
{
	struct run *r = ctx;

	(void)until_ms;
	/* Some values refused, as a filter without the length would. */
	if (p->plen % 7 == 3)
		return -2;
	r->covered++;
	return 0;
}

static void uncover(void *ctx, const struct bw_prefix *p)
{
	struct run *r = ctx;

	(void)p;
	r->covered--;
}

static int on_decision(void *ctx, const struct bw_cs_decision *d)
{
	struct run *r = ctx;
	int skip;

	return bw_cs_set_apply(r->set, d, 1000000, &skip);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct bw_cs_filter f = { .origins = size & 1 ? "cscli" : NULL,
					.scenarios_not_containing = "x" };
	struct run r = { 0 };
	const struct bw_cs_sink sink = { cover, uncover, &r };
	struct bw_cs_stream *s;
	size_t off = 0, n, step = size ? data[0] % 17 + 1 : 1;
	int err = 0;

	bw_log_level = BW_LOG_NONE;
	r.set = bw_cs_set_new(&f, &sink);
	s = bw_cs_stream_new(on_decision, &r);
	if (!r.set || !s)
		goto out;
	bw_cs_set_sync_begin(r.set);
	for (off = 0; off < size && !err; off += n) {
		n = step < size - off ? step : size - off;
		err = bw_cs_stream_feed(s, data + off, n);
	}
	if (!err && !bw_cs_stream_end(s))
		bw_cs_set_sync_end(r.set);
	if ((size_t)r.covered != bw_cs_set_values(r.set))
		abort();
	bw_cs_set_expire(r.set, 1000000 + 3600000, NULL);
	bw_cs_set_sync_begin(r.set);
	bw_cs_set_sync_end(r.set);
	if (r.covered != 0 || bw_cs_set_count(r.set) != 0)
		abort();
out:
	bw_cs_stream_free(s);
	bw_cs_set_free(r.set);
	return 0;
}
