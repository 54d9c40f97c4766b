// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * allow and unallow (allow.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "filter/bloom.h"
#include "filter/provenance.h"
#include "kernel/allow_names.h"
#include "kernel/allowlist.h"
#include "kernel/lock.h"
#include "kernel/lpm.h"
#include "kernel/running.h"
#include "kernel/swap.h"
#include "lists/entry.h"
#include "lists/list_domain.h"
#include "ops/allow.h"

/* ---- addresses ----------------------------------------------------------- */

/* The running state and its allowlist, under the lock. */
struct allow_ctx {
	struct bw_running r;
	struct bw_list old, new;
};

static int allow_open(const struct bw_allow_req *rq, struct allow_ctx *c)
{
	int err;

	err = bw_running_open(rq->iface, rq->ifindex, BW_RUN_REPAIR, &c->r);
	if (!err)
		err = bw_running_need_filter(&c->r);
	if (!err)
		err = bw_allow_read(c->r.maps.allow, &c->old);
	if (err == -ENOMEM)
		pr_warn("%s: out of memory while reading the allowlist\n",
			rq->iface);
	return err;
}

/*
 * Entry i of asked (the command line's, indexed) is in the allowlist, or
 * given earlier on this command line.
 */
static bool seen(const struct allow_ctx *c, const struct bw_entries *asked,
		 size_t i)
{
	return bw_list_has(&c->old, &asked->v[i].p) ||
	       bw_entries_find(asked, bw_entries_key(asked, i)) < (long)i;
}

/*
 * The new allowlist goes in with a program whose BW_F_ALLOW says whether
 * it has entries (the data path reads the flag as a constant of its own):
 * one swap, so a packet meets the old allowlist or the new one.
 */
static int swap_allowlist(struct allow_ctx *c, const char *iface, __u8 verb)
{
	struct bw_edit e = { .allow_on = c->new.n4 + c->new.n6 > 0,
			     .edit = bw_prov_change_edit };
	struct bw_records rec;
	int err;

	/* The copy records the change (provenance.h): the old records, stamped. */
	err = bw_running_change_prepare(&c->r, verb, &rec, &e.extra_blocks);
	if (err)
		return err;
	e.ctx = &rec;
	e.allow_fd = bw_allow_create(&c->new);
	if (e.allow_fd < 0) {
		pr_warn("%s: cannot make the new allowlist: %s\n", iface,
			e.allow_fd == -E2BIG ? "it is full"
					     : bw_errno_hint(e.allow_fd));
		bw_records_free(&rec);
		return e.allow_fd;
	}
	err = bw_swap_running(&c->r, &e);
	bw_records_free(&rec);
	close(e.allow_fd);
	if (err)
		pr_warn("%s: nothing changed: the allowlist is as it was\n",
			iface);
	return err;
}

/* The allowlist and the entries to add (finish() drops the repeats). */
static int with(struct allow_ctx *c, const struct bw_prefix *add, int nadd)
{
	struct bw_prefix p;
	size_t i;
	int j, err = 0;

	for (i = 0; !err && i < c->old.n4 + c->old.n6; i++) {
		bw_list_prefix(&c->old, i, &p);
		err = bw_list_push(&c->new, &p);
	}
	for (j = 0; !err && j < nadd; j++)
		err = bw_list_push(&c->new, &add[j]);
	return err;
}

static int allow(const struct bw_allow_req *rq, struct allow_ctx *c,
		 struct bw_allow_result *res)
{
	struct bw_entries asked;
	int i, err = 0;

	/* Indexed: R entries cost O(R), not a scan of those before each. */
	bw_entries_init(&asked);
	for (i = 0; !err && i < rq->n; i++)
		err = bw_entries_push(&asked, bw_key_prefix(&rq->addrs[i]), 0);
	err = err ?: bw_entries_index(&asked);
	for (i = 0; !err && i < rq->n; i++) {
		res->changed[i] = !seen(c, &asked, (size_t)i);
		res->changed_n += res->changed[i];
	}
	bw_entries_free(&asked);
	if (err)
		pr_warn("%s: out of memory\n", rq->iface);
	else
		err = with(c, rq->addrs, rq->n);
	if (!err) {
		bw_list_finish(&c->new);
		if (res->changed_n)
			err = swap_allowlist(c, rq->iface, BW_CHANGE_ALLOW);
	}
	return err;
}

/* The allowlist without the entries to remove. */
static int without(struct allow_ctx *c, const struct bw_list *gone)
{
	struct bw_prefix p;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < c->old.n4 + c->old.n6; i++) {
		bw_list_prefix(&c->old, i, &p);
		if (!bw_list_has(gone, &p))
			err = bw_list_push(&c->new, &p);
	}
	bw_list_finish(&c->new);
	return err;
}

static int unallow(const struct bw_allow_req *rq, struct allow_ctx *c,
		   struct bw_allow_result *res)
{
	struct bw_list gone;
	int i, err = 0;

	bw_list_init(&gone);
	for (i = 0; !err && i < rq->n; i++) {
		res->changed[i] = bw_list_has(&c->old, &rq->addrs[i]);
		if (res->changed[i])
			err = bw_list_push(&gone, &rq->addrs[i]);
	}
	if (!err) {
		bw_list_finish(&gone);
		res->changed_n = gone.n4 + gone.n6;
		err = without(c, &gone);
	}
	if (!err && res->changed_n)
		err = swap_allowlist(c, rq->iface, BW_CHANGE_UNALLOW);
	bw_list_free(&gone);
	return err;
}

int bw_allow_addrs(const struct bw_allow_req *rq, struct bw_allow_result *res)
{
	struct allow_ctx c;
	int lock, err;

	res->changed_n = 0;
	res->entries = 0;
	res->locked = false;
	c.r = (struct bw_running)BW_RUNNING_INIT;
	bw_list_init(&c.old);
	bw_list_init(&c.new);
	lock = bw_lock_acquire();
	if (lock < 0)
		return lock;
	res->locked = true;
	err = allow_open(rq, &c);
	if (!err)
		err = rq->on ? allow(rq, &c, res) : unallow(rq, &c, res);
	res->entries = (long long)(c.new.n4 + c.new.n6);
	bw_running_close(&c.r);
	bw_lock_release(lock);
	bw_list_free(&c.old);
	bw_list_free(&c.new);
	return err;
}

/* ---- names --------------------------------------------------------------- */

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
static int apply(const struct bw_allow_req *rq, const struct bw_running *r,
		 struct bw_allow_result *res)
{
	int fd = r->maps.allow_names, i, ret, err = 0;

	for (i = 0; i < rq->n; i++) {
		ret = set_entry(fd, rq->names, i, rq->on);
		if (ret < 0) {
			pr_warn("%s: cannot change the name allowlist: %s\n",
				rq->iface, bw_errno_hint(ret));
			err = ret;
			break;
		}
		res->changed[i] = ret;
		res->changed_n += ret;
	}
	if (!err)
		err = sync_flag(r, fd, rq->on, res->changed_n > 0);
	if (err) {
		roll_back(rq->iface, fd, rq->names, res->changed, rq->n,
			  rq->on);
		res->changed_n = 0;
	}
	return err;
}

/*
 * Under the lock. The signals that end a command wait while the map and
 * the filter disagree: a Ctrl-C then ends it after the swap or the roll
 * back, not between them.
 */
static int change(const struct bw_allow_req *rq, struct bw_allow_result *res)
{
	struct bw_running r;
	sigset_t block, old;
	int err;

	err = bw_running_open(rq->iface, rq->ifindex, BW_RUN_REPAIR, &r);
	if (!err)
		err = bw_running_need_filter(&r);
	if (!err && r.maps.allow_names < 0) {
		pr_warn("%s: its program has no name allowlist (a bloomwall from before names): 'bloomwall reload %s' gives it one\n",
			rq->iface, rq->iface);
		err = -EOPNOTSUPP;
	}
	if (!err) {
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGHUP);
		sigaddset(&block, SIGQUIT);
		sigprocmask(SIG_BLOCK, &block, &old);
		err = apply(rq, &r, res);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	if (!err)
		res->entries = (long long)bw_allow_names_count(
			r.maps.allow_names, 0xff);
	bw_running_close(&r);
	return err;
}

int bw_allow_names(const struct bw_allow_req *rq, struct bw_allow_result *res)
{
	int lock, err;

	res->changed_n = 0;
	res->entries = 0;
	res->locked = false;
	memset(res->changed, 0, (size_t)rq->n * sizeof(*res->changed));
	lock = bw_lock_acquire();
	if (lock < 0)
		return lock;
	res->locked = true;
	err = change(rq, res);
	bw_lock_release(lock);
	return err;
}
