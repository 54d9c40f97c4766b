// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* One decision's fields, durations and times (cs_fields.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "net/cs_fields.h"

/* 2^53 ms: some 285 000 years, far past any ban. */
#define DURATION_MAX_MS (1LL << 53)

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A unit's length in ns and its length in bytes at s, or 0. */
static __s64 unit_ns(const char *s, size_t *len)
{
	static const struct {
		const char *name;
		__s64 ns;
	} units[] = {
		{ "ns", 1 },
		{ "us", 1000 },
		{ "\xc2\xb5s", 1000 }, /* U+00B5 micro sign */
		{ "\xce\xbcs", 1000 }, /* U+03BC Greek mu */
		{ "ms", 1000000 },
		{ "s", 1000000000LL },
		{ "m", 60 * 1000000000LL },
		{ "h", 3600 * 1000000000LL },
	};
	size_t i, n;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		n = strlen(units[i].name);
		/* "m" is not the start of "ms". */
		if (!strncmp(s, units[i].name, n) &&
		    !(n == 1 && s[0] == 'm' && s[1] == 's')) {
			*len = n;
			return units[i].ns;
		}
	}
	return 0;
}

/* One "12.5h" part, added to *ns (in ns, bounded). Advances *s. */
static int duration_part(const char **s, double *ns)
{
	const char *p = *s;
	double whole = 0, frac = 0, scale = 1;
	bool digits = false;
	size_t ulen;
	__s64 u;

	for (; is_digit(*p); p++, digits = true)
		whole = whole * 10 + (*p - '0');
	if (*p == '.')
		for (p++; is_digit(*p); p++, digits = true)
			frac += (*p - '0') * (scale /= 10);
	if (!digits)
		return -EINVAL;
	u = unit_ns(p, &ulen);
	if (!u)
		return -EINVAL;
	*ns += (whole + frac) * (double)u;
	if (*ns > (double)DURATION_MAX_MS * 1e6)
		return -EINVAL;
	*s = p + ulen;
	return 0;
}

int bw_cs_parse_duration(const char *s, __s64 *ms)
{
	bool neg = false;
	double ns = 0;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!strcmp(s, "0")) {
		*ms = 0;
		return 0;
	}
	if (!*s)
		return -EINVAL;
	while (*s)
		if (duration_part(&s, &ns))
			return -EINVAL;
	*ms = (__s64)(ns / 1e6);
	if (neg)
		*ms = -*ms;
	return 0;
}

/* n digits at s as a number, or -1. */
static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* "Z", "+hh:mm" or "-hh:mm" at s: the offset east of UTC in seconds. */
static int zone(const char *s, long *off)
{
	int h, m;

	if ((*s == 'Z' || *s == 'z') && !s[1]) {
		*off = 0;
		return 0;
	}
	if ((*s != '+' && *s != '-') || strlen(s) != 6 || s[3] != ':')
		return -EINVAL;
	h = digits(s + 1, 2);
	m = digits(s + 4, 2);
	if (h < 0 || h > 23 || m < 0 || m > 59)
		return -EINVAL;
	*off = (h * 3600L + m * 60L) * (*s == '-' ? -1 : 1);
	return 0;
}

int bw_cs_parse_time(const char *s, __s64 *t)
{
	struct tm tm = { 0 };
	long off;
	int v[6];

	if (strlen(s) < 20 || s[4] != '-' || s[7] != '-' ||
	    (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':' ||
	    s[16] != ':')
		return -EINVAL;
	v[0] = digits(s, 4);
	v[1] = digits(s + 5, 2);
	v[2] = digits(s + 8, 2);
	v[3] = digits(s + 11, 2);
	v[4] = digits(s + 14, 2);
	v[5] = digits(s + 17, 2);
	if (v[0] < 1970 || v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 ||
	    v[3] < 0 || v[3] > 23 || v[4] < 0 || v[4] > 59 || v[5] < 0 ||
	    v[5] > 60)
		return -EINVAL;
	s += 19;
	if (*s == '.')
		for (s++; is_digit(*s); s++)
			;
	if (zone(s, &off))
		return -EINVAL;
	tm.tm_year = v[0] - 1900;
	tm.tm_mon = v[1] - 1;
	tm.tm_mday = v[2];
	tm.tm_hour = v[3];
	tm.tm_min = v[4];
	tm.tm_sec = v[5];
	*t = (__s64)timegm(&tm) - off;
	return 0;
}

/* ---- the fields ---------------------------------------------------------- */

static void refuse(struct bw_cs_decision *d, const char *field, const char *why)
{
	if (!d->refused[0])
		snprintf(d->refused, sizeof(d->refused), "%s: %s", field, why);
}

/* A string field into dst (cap bytes with the NUL); false: refused. */
static bool text(struct json_object *v, const char *field, char *dst,
		 size_t cap, struct bw_cs_decision *d)
{
	const char *s;
	size_t len;

	if (!json_object_is_type(v, json_type_string)) {
		refuse(d, field, "not a string");
		return false;
	}
	s = json_object_get_string(v);
	len = (size_t)json_object_get_string_len(v);
	if (len >= cap || memchr(s, '\0', len)) {
		refuse(d, field, len >= cap ? "too long" : "holds a NUL");
		return false;
	}
	memcpy(dst, s, len);
	dst[len] = '\0';
	return true;
}

static void read_id(struct json_object *v, struct bw_cs_decision *d)
{
	__s64 id;

	if (!json_object_is_type(v, json_type_int)) {
		refuse(d, "id", "not an integer");
		return;
	}
	errno = 0;
	id = json_object_get_int64(v);
	/* json-c saturates past INT64_MAX (errno not always set). */
	if (id <= 0 || id == INT64_MAX) {
		refuse(d, "id", "not a positive 64-bit integer");
		return;
	}
	d->id = id;
}

static void read_duration(struct json_object *v, struct bw_cs_decision *d)
{
	char s[64];

	if (!text(v, "duration", s, sizeof(s), d))
		return;
	if (bw_cs_parse_duration(s, &d->duration_ms)) {
		refuse(d, "duration", "not a duration");
		return;
	}
	d->has_duration = true;
}

static void read_until(struct json_object *v, struct bw_cs_decision *d)
{
	char s[64];

	/* Some versions send an empty string for none. */
	if (json_object_is_type(v, json_type_null))
		return;
	if (!text(v, "until", s, sizeof(s), d) || !*s)
		return;
	if (bw_cs_parse_time(s, &d->until)) {
		refuse(d, "until", "not an RFC 3339 time");
		return;
	}
	d->has_until = true;
}

static void read_field(const char *key, struct json_object *v,
		       struct bw_cs_decision *d)
{
	if (!strcmp(key, "id"))
		read_id(v, d);
	else if (!strcmp(key, "origin"))
		text(v, key, d->origin, sizeof(d->origin), d);
	else if (!strcmp(key, "type"))
		text(v, key, d->type, sizeof(d->type), d);
	else if (!strcmp(key, "scope"))
		text(v, key, d->scope, sizeof(d->scope), d);
	else if (!strcmp(key, "value"))
		text(v, key, d->value, sizeof(d->value), d);
	else if (!strcmp(key, "scenario"))
		text(v, key, d->scenario, sizeof(d->scenario), d);
	else if (!strcmp(key, "duration"))
		read_duration(v, d);
	else if (!strcmp(key, "until"))
		read_until(v, d);
	else if (!strcmp(key, "simulated") &&
		 !json_object_is_type(v, json_type_null)) {
		if (json_object_is_type(v, json_type_boolean))
			d->simulated = json_object_get_boolean(v);
		else
			refuse(d, key, "not a boolean");
	}
}

void bw_cs_decision_read(struct json_object *obj, struct bw_cs_decision *d)
{
	enum bw_cs_list list = d->list;

	memset(d, 0, sizeof(*d));
	d->list = list;
	if (!json_object_is_type(obj, json_type_object)) {
		refuse(d, "decision", "not an object");
		return;
	}
	json_object_object_foreach(obj, key, v) read_field(key, v, d);
	if (!d->id)
		refuse(d, "id", "missing");
	/* A deletion names an id: the rest is not needed. */
	else if (list == BW_CS_DELETED)
		return;
	else if (!d->value[0])
		refuse(d, "value", "missing or empty");
	else if (!d->scope[0])
		refuse(d, "scope", "missing or empty");
	else if (!d->type[0])
		refuse(d, "type", "missing or empty");
	else if (!d->has_duration)
		refuse(d, "duration", "missing");
}
