/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Reading the JSON objects bloomwall writes elsewhere and reads back (a
 * watch's answers, its state file): a member checked for its type.
 */
#ifndef __BW_JSON_H
#define __BW_JSON_H

#include <json-c/json.h>

/* o's member key when it is a string, else NULL. */
const char *bw_json_str(struct json_object *o, const char *key);

#endif /* __BW_JSON_H */
