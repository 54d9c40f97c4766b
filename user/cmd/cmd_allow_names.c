// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall allow IFACE NAME...    bloomwall unallow IFACE NAME...
 *
 * A name in the name allowlist passes whatever the name regions say,
 * exact or subtree as written ("name", "*.name", "||name^" or
 * "@@||name^"); ops/allow.h changes it, all the names or none.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/output.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_allow_names.h"
#include "lists/list.h"
#include "ops/allow.h"

static void say_name(const char *name, const char *result, const char *text)
{
	bw_out_open_object(NULL);
	bw_out_string("name", "%s  ", name);
	bw_out_string("result", NULL, result);
	bw_out_text("%s\n", text);
	bw_out_close_object();
}

static void say_results(const struct bw_args *a,
			const struct bw_allow_result *res, bool on)
{
	int i;

	for (i = 0; i < a->npos; i++) {
		if (on)
			say_name(a->pos[i],
				 res->changed[i] ? "allowed" : "already",
				 res->changed[i] ? "allowed"
						 : "already allowed");
		else
			say_name(a->pos[i],
				 res->changed[i] ? "removed" : "absent",
				 res->changed[i] ? "removed"
						 : "not in the allowlist");
	}
	bw_out_close_array();
	bw_out_text("%s: ", a->iface);
	bw_out_int(on ? "added" : "removed", "%lld of ", res->changed_n);
	bw_out_int("total", "%lld ", a->npos);
	bw_out_text("%s", on ? "added" : "removed");
	bw_out_int("allowlist_entries", " (name allowlist now %'lld entries)\n",
		   res->entries);
}

int bw_allow_names_verb(const char *verb, struct bw_args *a, bool on)
{
	struct bw_allow_req rq = {
		.iface = a->iface, .ifindex = a->ifindex, .on = on, .n = a->npos
	};
	struct bw_allow_result res = { 0 };
	struct bw_list l;
	int err;

	bw_out_string("iface", NULL, a->iface);
	bw_list_init(&l);
	rq.names = &l;
	err = bw_parse_names(verb, a->pos, a->npos, false, &l)
		      ?: bw_check_privileges(verb);
	if (!err) {
		res.changed = calloc(a->npos ?: 1, sizeof(*res.changed));
		err = res.changed ? bw_allow_names(&rq, &res) : -ENOMEM;
	}
	/* The names' array once the lock was taken, empty after a failure. */
	if (res.locked)
		bw_out_open_array("names");
	if (!err)
		say_results(a, &res, on);
	else if (res.locked)
		bw_out_close_array();
	if (!err && !on && res.changed_n < a->npos) {
		pr_warn("%s: %d of %d names were not in the name allowlist (a name is removed as it was added: \"*.name\" for a subtree)\n",
			a->iface, a->npos - res.changed_n, a->npos);
		err = -ENOENT;
	}
	free(res.changed);
	bw_list_free(&l);
	return err;
}
