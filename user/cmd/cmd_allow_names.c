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
 * That swap also records the change (provenance.h), so a command changes
 * both or neither: when an entry cannot change or the swap fails, the
 * entries it changed are put back.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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

/* One name's entry: set (on) or cleared; 1 when it changed, or -errno. */
static int set_entry(int fd, const struct bw_list *l, int i, bool on)
{
	const struct bw_domain *d = &l->dom[i];

	return bw_allow_name_set(fd, bw_domain_name(l, d), d->len,
				 d->flags & BW_DOM_SUBTREE,
				 BW_ALLOW_NAME_OPERATOR, on);
}

/* Puts back the entries this command changed (changed[i]), said. */
static void roll_back(const char *iface, int fd, const struct bw_list *l,
		      const bool *changed, int npos, bool on)
{
	int i, ret, err = 0;

	for (i = 0; i < npos; i++) {
		if (!changed[i])
			continue;
		ret = set_entry(fd, l, i, !on);
		if (ret < 0 && !err)
			err = ret;
	}
	if (!err) {
		pr_warn("%s: nothing changed: the name allowlist is as it was\n",
			iface);
		return;
	}
	pr_warn("%s: cannot put the name allowlist back as it was: %s; it may hold entries its records do not show ('bloomwall status %s')\n",
		iface, bw_errno_hint(err), iface);
}

/* The entries, then the flag and the record; all of them, or none. */
static int apply(const struct bw_args *a, const struct bw_running *r,
		 const struct bw_list *l, bool on, bool *changed, int *n)
{
	int fd = r->maps.allow_names, i, ret, err = 0;

	for (i = 0; i < a->npos; i++) {
		ret = set_entry(fd, l, i, on);
		if (ret < 0) {
			pr_warn("%s: cannot change the name allowlist: %s\n",
				a->iface, bw_errno_hint(ret));
			err = ret;
			break;
		}
		changed[i] = ret;
		*n += ret;
	}
	if (!err)
		err = sync_flag(r, fd, on, *n > 0);
	if (err) {
		roll_back(a->iface, fd, l, changed, a->npos, on);
		*n = 0;
	}
	return err;
}

static void say_results(const struct bw_args *a, int fd, const bool *changed,
			bool on, int n)
{
	int i;

	for (i = 0; i < a->npos; i++) {
		if (on)
			say_name(a->pos[i], changed[i] ? "allowed" : "already",
				 changed[i] ? "allowed" : "already allowed");
		else
			say_name(a->pos[i], changed[i] ? "removed" : "absent",
				 changed[i] ? "removed"
					    : "not in the allowlist");
	}
	bw_out_close_array();
	bw_out_text("%s: ", a->iface);
	bw_out_int(on ? "added" : "removed", "%lld of ", n);
	bw_out_int("total", "%lld ", a->npos);
	bw_out_text("%s", on ? "added" : "removed");
	bw_out_int("allowlist_entries", " (name allowlist now %'lld entries)\n",
		   (long long)bw_allow_names_count(fd, 0xff));
}

/*
 * Under the lock. The signals that end a command wait while the map and
 * the filter disagree: a Ctrl-C then ends it after the swap or the roll
 * back, not between them.
 */
static int change(const struct bw_args *a, const struct bw_list *l, bool on,
		  int *n)
{
	struct bw_running r;
	sigset_t block, old;
	bool *changed;
	int err;

	err = bw_running_open(a->iface, a->ifindex, BW_RUN_REPAIR, &r);
	if (!err)
		err = bw_running_need_filter(&r);
	if (!err && r.maps.allow_names < 0) {
		pr_warn("%s: its program has no name allowlist (a bloomwall from before names): 'bloomwall reload %s' gives it one\n",
			a->iface, a->iface);
		err = -EOPNOTSUPP;
	}
	changed = calloc(a->npos ?: 1, sizeof(*changed));
	if (!err && !changed)
		err = -ENOMEM;
	bw_out_open_array("names");
	if (!err) {
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGHUP);
		sigaddset(&block, SIGQUIT);
		sigprocmask(SIG_BLOCK, &block, &old);
		err = apply(a, &r, l, on, changed, n);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	if (!err)
		say_results(a, r.maps.allow_names, changed, on, *n);
	else
		bw_out_close_array();
	free(changed);
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
