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
#include "ops/allow.h"

/* What one command changes, under the lock. */
struct allow_ctx {
	const struct bw_allow_req *rq;
	struct bw_allow_result *res;
	struct bw_running r;
	size_t naddrs, nnames;	 /* the command's entries of each kind */
	struct bw_list old, new; /* the address allowlist, before and after */
	int allow_fd; /* the new trie; -1: the addresses change nothing */
};

/* The running state and, for addresses, its allowlist. */
static int open_running(struct allow_ctx *c)
{
	const char *iface = c->rq->iface;
	int err;

	err = bw_running_open(iface, c->rq->ifindex, BW_RUN_REPAIR, &c->r);
	if (!err)
		err = bw_running_need_filter(&c->r);
	if (!err && c->nnames && c->r.maps.allow_names < 0) {
		pr_warn("%s: its program has no name allowlist (a bloomwall from before names): 'bloomwall reload %s' gives it one\n",
			iface, iface);
		err = -EOPNOTSUPP;
	}
	if (!err && c->naddrs)
		err = bw_allow_read(c->r.maps.allow, &c->old);
	if (err == -ENOMEM)
		pr_warn("%s: out of memory while reading the allowlist\n",
			iface);
	return err;
}

/*
 * Entry i of asked (the command's entries, indexed: R entries cost O(R),
 * not a scan of those before each) is the same as one before it.
 */
static bool repeat(const struct bw_entries *asked, size_t i)
{
	return bw_entries_find(asked, bw_entries_key(asked, i)) < (long)i;
}

/*
 * The address allowlist as the command leaves it, each address's change,
 * and the trie that holds it when something changed.
 */
static int plan_addrs(struct allow_ctx *c, const struct bw_entries *asked)
{
	const struct bw_entries *s = c->rq->entries;
	struct bw_allow_result *res = c->res;
	bool on = c->rq->on;
	struct bw_prefix p;
	size_t i;
	int err = 0;

	/* The old entries, less those unallowed. */
	for (i = 0; !err && i < c->old.n4 + c->old.n6; i++) {
		bw_list_prefix(&c->old, i, &p);
		if (on || bw_entries_find(asked, bw_key_prefix(&p)) < 0)
			err = bw_list_push(&c->new, &p);
	}
	for (i = 0; !err && i < s->n; i++) {
		if (bw_entry_is_name(&s->v[i]))
			continue;
		res->changed[i] = bw_list_has(&c->old, &s->v[i].p) != on &&
				  !repeat(asked, i);
		res->changed_n += res->changed[i];
		if (on && res->changed[i])
			err = bw_list_push(&c->new, &s->v[i].p);
	}
	if (err) {
		pr_warn("%s: out of memory\n", c->rq->iface);
		return err;
	}
	bw_list_finish(&c->new);
	if (!res->changed_n)
		return 0;
	c->allow_fd = bw_allow_create(&c->new);
	if (c->allow_fd >= 0)
		return 0;
	err = c->allow_fd;
	c->allow_fd = -1;
	pr_warn("%s: cannot make the new allowlist: %s\n", c->rq->iface,
		err == -E2BIG ? "it is full" : bw_errno_hint(err));
	return err;
}

/* What the copy of the filter gets: the flag if set, and its records. */
struct copy_ctx {
	bool set, on;
	struct bw_records rec;
};

static int edit_copy(void *mem, __u32 nblocks, void *arg)
{
	struct bw_dns_hdr *dns = (struct bw_dns_hdr *)bw_filter_dns(mem);
	struct copy_ctx *cc = arg;

	if (cc->set && cc->on)
		dns->flags |= BW_DNS_F_ALLOW;
	else if (cc->set)
		dns->flags &= (__u8)~BW_DNS_F_ALLOW;
	return bw_prov_change_edit(mem, nblocks, &cc->rec);
}

/*
 * The one swap: a copy of the filter that records the change and carries
 * BW_DNS_F_ALLOW as the name map now needs it, and a program with the new
 * trie when the addresses changed. None when nothing changed.
 */
static int swap(const struct allow_ctx *c, bool names_changed)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(c->r.filter.mem);
	struct copy_ctx cc = { 0 };
	struct bw_edit e = { .edit = edit_copy,
			     .ctx = &cc,
			     .allow_fd = c->allow_fd,
			     .allow_on = c->new.n4 + c->new.n6 > 0 };
	int err;

	if (c->nnames) {
		cc.on = bw_allow_names_any(c->r.maps.allow_names, 0xff);
		cc.set = dns && !!(dns->flags & BW_DNS_F_ALLOW) != cc.on;
	}
	if (!cc.set && !names_changed && c->allow_fd < 0)
		return 0;
	err = bw_running_change_prepare(
		&c->r, c->rq->on ? BW_CHANGE_ALLOW : BW_CHANGE_UNALLOW, &cc.rec,
		&e.extra_blocks);
	if (!err)
		err = bw_swap_running(&c->r, &e);
	bw_records_free(&cc.rec);
	return err;
}

/* Name entry i set (on) or cleared: 1 when it changed, 0 not, or -errno. */
static int set_name(int fd, const struct bw_entries *s, size_t i, bool on)
{
	const struct bw_entry *e = &s->v[i];

	return bw_allow_name_set(fd, bw_entry_name(s, e), e->d.len,
				 e->d.flags & BW_DOM_SUBTREE,
				 BW_ALLOW_NAME_OPERATOR, on);
}

/* Puts back the names this command changed (changed[i]), said. */
static void roll_back(const struct allow_ctx *c)
{
	const struct bw_entries *s = c->rq->entries;
	const char *iface = c->rq->iface;
	size_t i;
	int ret, err = 0;

	for (i = 0; i < s->n; i++) {
		if (!bw_entry_is_name(&s->v[i]) || !c->res->changed[i])
			continue;
		ret = set_name(c->r.maps.allow_names, s, i, !c->rq->on);
		if (ret < 0 && !err)
			err = ret;
	}
	if (!err) {
		pr_warn("%s: nothing changed: %s\n", iface,
			!c->nnames ? "the allowlist is as it was"
			: c->naddrs
				? "the allowlist and the name allowlist are as they were"
				: "the name allowlist is as it was");
		return;
	}
	pr_warn("%s: cannot put the name allowlist back as it was: %s; it may hold entries its records do not show ('bloomwall status %s')\n",
		iface, bw_errno_hint(err), iface);
}

/*
 * The names this allow adds must fit in the name allowlist's room, checked
 * before any goes in (the kernel's E2BIG came midway, with the first names
 * already matching packets): 0, or -ENOSPC said with the room and how to
 * make more. A name given twice counts twice: a bound, not a count.
 */
static int check_room(const struct allow_ctx *c)
{
	const struct bw_entries *s = c->rq->entries;
	const char *iface = c->rq->iface;
	int fd = c->r.maps.allow_names;
	const struct bw_entry *e;
	size_t i, adds = 0, held;
	__u32 room;

	if (!c->rq->on || !c->nnames)
		return 0;
	for (i = 0; i < s->n; i++) {
		e = &s->v[i];
		adds += bw_entry_is_name(e) &&
			!bw_allow_name_present(fd, bw_entry_name(s, e),
					       e->d.len,
					       e->d.flags & BW_DOM_SUBTREE);
	}
	room = bw_allow_names_max(fd);
	held = bw_allow_names_count(fd, 0xff);
	if (held + adds <= room)
		return 0;
	pr_warn("%s: the name allowlist has room for %u names and holds %zu: the %zu this command adds do not fit; nothing changed. 'bloomwall reload %s LIST...' makes room for twice what it holds ('reload --allow FILE' for the names in FILE)\n",
		iface, room, held, adds, iface);
	return -ENOSPC;
}

/* The names, then the swap; all of it, or the names put back. */
static int apply(struct allow_ctx *c)
{
	const struct bw_entries *s = c->rq->entries;
	struct bw_allow_result *res = c->res;
	int ret, named = 0, err = 0;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (!bw_entry_is_name(&s->v[i]))
			continue;
		ret = set_name(c->r.maps.allow_names, s, i, c->rq->on);
		if (ret < 0) {
			pr_warn("%s: cannot change the name allowlist: %s\n",
				c->rq->iface,
				ret == -E2BIG
					? "it is full (see 'bloomwall status')"
					: bw_errno_hint(ret));
			err = ret;
			break;
		}
		res->changed[i] = ret;
		named += ret;
	}
	if (!err)
		err = swap(c, named > 0);
	if (err)
		roll_back(c);
	else
		res->changed_n += named;
	return err;
}

/*
 * The signals that end a command wait while the name map and the filter
 * disagree: a Ctrl-C then ends it after the swap or the roll back, not
 * between them.
 */
static int change(struct allow_ctx *c)
{
	sigset_t block, old;
	int err;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &old);
	err = apply(c);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* The command's addresses, indexed (plan_addrs' lookups). */
static int index_addrs(const struct allow_ctx *c, struct bw_entries *asked)
{
	const struct bw_entries *s = c->rq->entries;
	size_t i;
	int err = 0;

	for (i = 0; !err && c->naddrs && i < s->n; i++)
		err = bw_entries_push(asked, bw_entries_key(s, i), 0);
	if (err) {
		pr_warn("%s: out of memory\n", c->rq->iface);
		return err;
	}
	/* Without the index (no memory) the lookups scan: slower, right. */
	bw_entries_index(asked);
	return 0;
}

int bw_allow(const struct bw_allow_req *rq, struct bw_allow_result *res)
{
	struct allow_ctx c = {
		.rq = rq, .res = res, .r = BW_RUNNING_INIT, .allow_fd = -1
	};
	struct bw_entries asked;
	int lock, err;

	res->changed_n = 0;
	res->entries = 0;
	res->names = 0;
	res->locked = false;
	memset(res->changed, 0, rq->entries->n * sizeof(*res->changed));
	c.nnames = bw_entries_count(rq->entries, BW_ENTRY_NAME);
	c.naddrs = rq->entries->n - c.nnames;
	bw_list_init(&c.old);
	bw_list_init(&c.new);
	bw_entries_init(&asked);
	err = index_addrs(&c, &asked);
	lock = err ? err : bw_lock_acquire();
	if (lock < 0) {
		bw_entries_free(&asked);
		return lock;
	}
	res->locked = true;
	err = open_running(&c);
	if (!err && c.naddrs)
		err = plan_addrs(&c, &asked);
	if (!err)
		err = check_room(&c);
	if (!err)
		err = change(&c);
	if (!err) {
		res->entries = (long long)(c.new.n4 + c.new.n6);
		res->names = c.nnames ? (long long)bw_allow_names_count(
						c.r.maps.allow_names, 0xff)
				      : 0;
	}
	if (c.allow_fd >= 0)
		close(c.allow_fd);
	bw_running_close(&c.r);
	bw_lock_release(lock);
	bw_entries_free(&asked);
	bw_list_free(&c.old);
	bw_list_free(&c.new);
	return err;
}
