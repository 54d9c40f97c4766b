/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * One CrowdSec decision object (models.Decision of the LAPI) read into a
 * struct bw_cs_decision, field by field, each checked: what cs_stream.c
 * calls for every element of "new" and "deleted". Also the two text forms
 * of time the LAPI sends: Go's durations and RFC 3339 times.
 */
#ifndef __BW_CS_FIELDS_H
#define __BW_CS_FIELDS_H

#include <stdbool.h>
#include <linux/types.h>
#include <json-c/json.h>

/* Bounds of the text fields kept (a longer one refuses the decision). */
#define BW_CS_ORIGIN_MAX 64
#define BW_CS_TYPE_MAX 32
#define BW_CS_SCOPE_MAX 32
#define BW_CS_VALUE_MAX 128
#define BW_CS_SCENARIO_MAX 256

enum bw_cs_list { BW_CS_NEW, BW_CS_DELETED };

struct bw_cs_decision {
	enum bw_cs_list list; /* "new" or "deleted" */
	__s64 id;
	char origin[BW_CS_ORIGIN_MAX];
	char type[BW_CS_TYPE_MAX];
	char scope[BW_CS_SCOPE_MAX];
	char value[BW_CS_VALUE_MAX];
	char scenario[BW_CS_SCENARIO_MAX];
	__s64 duration_ms; /* negative: already expired */
	bool has_duration;
	__s64 until; /* Unix seconds of "until", when given */
	bool has_until;
	bool simulated;
	/* Set when the decision is refused: which field, and why. */
	char refused[128];
};

/*
 * Reads obj into d (d->list set by the caller and kept). A field of the
 * wrong kind or out of bounds, or a missing id, value, scope or type (or
 * duration, in "new"), sets d->refused. Unknown fields are ignored.
 */
void bw_cs_decision_read(struct json_object *obj, struct bw_cs_decision *d);

/*
 * Go's time.Duration text ("3h59m58.123456s", "-1.5s", "300ms", "0s") in
 * milliseconds, rounded towards zero. 0 or -EINVAL (not a duration, or
 * past 2^53 ms).
 */
int bw_cs_parse_duration(const char *s, __s64 *ms);

/*
 * An RFC 3339 time ("2026-12-02T05:40:00Z", fractions and +hh:mm offsets
 * allowed) in Unix seconds. 0 or -EINVAL.
 */
int bw_cs_parse_time(const char *s, __s64 *t);

#endif /* __BW_CS_FIELDS_H */
