// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall allow IFACE NAME...    bloomwall unallow IFACE NAME...
 *
 * The name allowlist is the program's hash map allow_names (allow_names.h):
 * a name there passes whatever the name regions say, exact or subtree as
 * written ("name", "*.name", "||name^" or "@@||name^"). Entries change in
 * the map in place; the filter's BW_DNS_F_ALLOW, which tells the data path
 * to look, is set (a copy of the filter swapped in with a program that
 * knows it) once the map has an entry, and cleared once it has none.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/allow_names.h"
#include "filter/bloom.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_allow_names.h"
#include "base/log.h"
#include "lists/list_domain.h"
#include "lists/names.h"
#include "base/output.h"
#include "kernel/lock.h"
#include "kernel/pin.h"
#include "filter/provenance.h"
#include "kernel/running.h"
#include "kernel/swap.h"

static int set_flag(void *mem, __u32 nblocks, void *arg)
{
	struct bw_dns_hdr *dns = (struct bw_dns_hdr *)bw_filter_dns(mem);
	bool on = *(bool *)arg;

	(void)nblocks;
	if (on)
		dns->flags |= BW_DNS_F_ALLOW;
	else
		dns->flags &= (__u8)~BW_DNS_F_ALLOW;
	return 0;
}

/* What the copy of the filter gets: the flag if set, and its records. */
struct copy_ctx {
	bool set, on;
	struct bw_records rec;
};

static int edit_copy(void *mem, __u32 nblocks, void *arg)
{
	struct copy_ctx *c = arg;

	if (c->set)
		set_flag(mem, nblocks, &c->on);
	return bw_prov_change_edit(mem, nblocks, &c->rec);
}

/*
 * After a change to the map: a copy of the filter, swapped in, records it
 * (provenance.h) and carries BW_DNS_F_ALLOW as the map now needs it.
 */
static int sync_flag(const struct bw_running *r, int fd, bool on_verb,
		     bool changed)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(r->filter.mem);
	struct copy_ctx c = { .on = bw_allow_names_any(fd, 0xff) };
	struct bw_edit e = { .edit = edit_copy, .ctx = &c, .allow_fd = -1 };
	int err;

	c.set = dns && !!(dns->flags & BW_DNS_F_ALLOW) != c.on;
	if (!c.set && !changed)
		return 0;
	err = bw_running_change_prepare(
		r, on_verb ? BW_CHANGE_ALLOW : BW_CHANGE_UNALLOW, &c.rec,
		&e.extra_blocks);
	if (!err)
		err = bw_swap_running(r, &e);
	bw_records_free(&c.rec);
	return err;
}

static void say_name(const char *name, const char *result, const char *text)
{
	bw_out_open_object(NULL);
	bw_out_string("name", "%s  ", name);
	bw_out_string("result", NULL, result);
	bw_out_text("%s\n", text);
	bw_out_close_object();
}

/* Under the lock: the entries, then the flag. */
static int change(const struct bw_args *a, const struct bw_list *l, bool on,
		  int *n)
{
	struct bw_running r;
	const struct bw_domain *d;
	int fd, i, ret, err;

	err = bw_running_open(a->iface, a->ifindex, BW_RUN_REPAIR, &r);
	if (!err)
		err = bw_running_need_filter(&r);
	fd = r.maps.allow_names;
	if (!err && fd < 0) {
		pr_warn("%s: its program has no name allowlist (a bloomwall from before names): 'bloomwall reload %s' gives it one\n",
			a->iface, a->iface);
		err = -EOPNOTSUPP;
	}
	bw_out_open_array("names");
	for (i = 0; !err && i < a->npos; i++) {
		d = &l->dom[i];
		ret = bw_allow_name_set(fd, bw_domain_name(l, d), d->len,
					d->flags & BW_DOM_SUBTREE,
					BW_ALLOW_NAME_OPERATOR, on);
		if (ret < 0) {
			pr_warn("%s: cannot change the name allowlist: %s\n",
				a->iface, bw_errno_hint(ret));
			err = ret;
			break;
		}
		*n += ret;
		if (on)
			say_name(a->pos[i], ret ? "allowed" : "already",
				 ret ? "allowed" : "already allowed");
		else
			say_name(a->pos[i], ret ? "removed" : "absent",
				 ret ? "removed" : "not in the allowlist");
	}
	bw_out_close_array();
	if (!err)
		err = sync_flag(&r, fd, on, *n > 0);
	if (!err) {
		bw_out_text("%s: ", a->iface);
		bw_out_int(on ? "added" : "removed", "%lld of ", *n);
		bw_out_int("total", "%lld ", a->npos);
		bw_out_text("%s", on ? "added" : "removed");
		bw_out_int("allowlist_entries",
			   " (name allowlist now %'lld entries)\n",
			   (long long)bw_allow_names_count(fd, 0xff));
	}
	bw_running_close(&r);
	return err;
}

int bw_allow_names_verb(const char *verb, struct bw_args *a, bool on)
{
	struct bw_list l;
	int lock, n = 0, err;

	bw_out_string("iface", NULL, a->iface);
	bw_list_init(&l);
	err = bw_parse_names(verb, a->pos, a->npos, false, &l)
		      ?: bw_check_privileges(verb);
	if (!err) {
		lock = bw_lock_acquire();
		err = lock < 0 ? lock : change(a, &l, on, &n);
		bw_lock_release(lock);
	}
	if (!err && !on && n < a->npos) {
		pr_warn("%s: %d of %d names were not in the name allowlist (a name is removed as it was added: \"*.name\" for a subtree)\n",
			a->iface, a->npos - n, a->npos);
		err = -ENOENT;
	}
	bw_list_free(&l);
	return err;
}
