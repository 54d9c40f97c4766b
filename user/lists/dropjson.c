// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Spamhaus DROP JSON lines (dropjson.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "lists/dropjson.h"
#include "lists/list_parse.h"
#include "lists/text.h"

bool bw_dropjson_detect(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && bw_is_blank(line[i]))
		i++;
	if (i == len || line[i++] != '{')
		return false;
	/* An object with a key: not an nftables "{ 10.0.0.1 }". */
	while (i < len && bw_is_blank(line[i]))
		i++;
	return i < len && line[i] == '"';
}

static const char asn_hint[] =
	"an AS number record (Spamhaus asndrop.json): bloomwall drops addresses, not AS numbers; "
	"it needs the prefixes each AS announces (an ASN-to-prefix source, such as a routing "
	"table dump), written as a list of prefixes: give that list instead";

static int record(struct bw_dropjson *d, struct bw_list *l,
		  struct json_object *o, const char *line, size_t len,
		  size_t lineno, const struct bw_list_opts *opts, char *err,
		  size_t errlen)
{
	struct json_object *v;
	const char *s;

	if (json_object_object_get_ex(o, "type", &v)) {
		s = json_object_get_string(v);
		if (!s || strcmp(s, "metadata"))
			return bw_list_fail(err, errlen,
					    "a JSON line of an unknown type",
					    line, len);
		if (d->meta >= 0)
			return bw_list_fail(err, errlen,
					    "a second metadata line", line,
					    len);
		if (!json_object_object_get_ex(o, "records", &v) ||
		    !json_object_is_type(v, json_type_int) ||
		    json_object_get_int64(v) < 0)
			return bw_list_fail(
				err, errlen,
				"a metadata line without its \"records\" count",
				line, len);
		d->meta = json_object_get_int64(v);
		d->meta_line = lineno;
		return 0;
	}
	if (d->meta >= 0)
		return bw_list_fail(err, errlen,
				    "a record after the metadata line", line,
				    len);
	if (json_object_object_get_ex(o, "asn", &v))
		return bw_list_fail(err, errlen, asn_hint, line, len);
	if (!json_object_object_get_ex(o, "cidr", &v) ||
	    !json_object_is_type(v, json_type_string))
		return bw_list_fail(err, errlen,
				    "a JSON line without a \"cidr\" string",
				    line, len);
	s = json_object_get_string(v);
	d->records++;
	return bw_list_parse_addr(l, s, (size_t)json_object_get_string_len(v),
				  opts, err, errlen);
}

int bw_dropjson_line(struct bw_dropjson *d, struct bw_list *l, const char *line,
		     size_t len, size_t lineno, const struct bw_list_opts *opts,
		     char *err, size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *o;
	size_t i = 0;
	int ret;

	while (i < len && bw_is_blank(line[i]))
		i++;
	while (len > i && (bw_is_blank(line[len - 1]) || line[len - 1] == '\r'))
		len--;
	if (i == len)
		return 0;
	tok = json_tokener_new_ex(8);
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, line + i, (int)(len - i));
	/* Anything but one whole object on the line is no record. */
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    (size_t)json_tokener_get_parse_end(tok) + i < len ||
	    !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		json_tokener_free(tok);
		return bw_list_fail(err, errlen, "not a JSON object", line,
				    len);
	}
	json_tokener_free(tok);
	ret = record(d, l, o, line, len, lineno, opts, err, errlen);
	json_object_put(o);
	return ret;
}

int bw_dropjson_end(const struct bw_dropjson *d, char *err, size_t errlen)
{
	if (d->meta < 0) {
		snprintf(
			err, errlen,
			"no closing metadata line ({\"type\":\"metadata\",...}) after %zu records: a cut download?",
			d->records);
		return -EINVAL;
	}
	if ((size_t)d->meta != d->records) {
		snprintf(
			err, errlen,
			"the metadata line (line %zu) counts %lld records, the file has %zu: a cut or mixed download?",
			d->meta_line, d->meta, d->records);
		return -EINVAL;
	}
	return 0;
}

void bw_dropjson_note(const struct bw_dropjson *d, char *buf, size_t len)
{
	snprintf(
		buf, len,
		"read as Spamhaus DROP JSON lines: %zu records, as its metadata line counts",
		d->records);
}
