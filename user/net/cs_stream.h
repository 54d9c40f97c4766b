/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * CrowdSec's decision stream (GET /v1/decisions/stream), parsed as it
 * comes: the answer is {"new": [DECISION...] | null, "deleted": [...] |
 * null}, possibly a million decisions long, so the document is never built.
 * A small scanner follows the outer object and finds where each array
 * element (and each value of an unknown key) begins and ends; the element
 * alone goes through json-c's tokener, which checks it whole, and its
 * fields are read into a struct bw_cs_decision handed to a callback. Memory
 * stays at one element (at most BW_CS_ELEM_MAX bytes) whatever the size of
 * the answer.
 *
 * Field checks: unknown fields are ignored; a known field of the wrong
 * kind or out of bounds refuses that decision (the callback is told why,
 * the stream goes on); bytes that are not JSON, or not this shape, fail
 * the whole answer (-EBADMSG, with a reason and the byte offset).
 */
#ifndef __BW_CS_STREAM_H
#define __BW_CS_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "net/cs_fields.h"

/* The largest element (one decision) read; a larger one is malformed. */
#define BW_CS_ELEM_MAX (64U * 1024)

/*
 * Called per decision, refused ones included (d->refused not empty). 0
 * goes on; a -errno ends the parse with it.
 */
typedef int (*bw_cs_decision_fn)(void *ctx, const struct bw_cs_decision *d);

struct bw_cs_stream;

/* A parser for one answer; NULL when out of memory. */
struct bw_cs_stream *bw_cs_stream_new(bw_cs_decision_fn fn, void *ctx);
void bw_cs_stream_free(struct bw_cs_stream *s);

/*
 * Feeds the next bytes of the body (any split). 0, -EBADMSG (reason in
 * bw_cs_stream_error), -ENOMEM or the callback's error; after an error
 * further calls return it again.
 */
int bw_cs_stream_feed(struct bw_cs_stream *s, const void *buf, size_t len);

/* The body ended: 0 when it was one whole answer, else -EBADMSG. */
int bw_cs_stream_end(struct bw_cs_stream *s);

/* Why the answer was refused ("" when it was not). */
const char *bw_cs_stream_error(const struct bw_cs_stream *s);

/* Decisions seen so far (refused ones too), and bytes fed. */
__u64 bw_cs_stream_count(const struct bw_cs_stream *s);

#endif /* __BW_CS_STREAM_H */
