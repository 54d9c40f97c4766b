// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Reading JSON objects back (json.h). */
#include "base/json.h"

const char *bw_json_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}
