// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall allow IFACE ADDR|CIDR...    bloomwall unallow IFACE ADDR|CIDR...
 *
 * The allowlist is an LPM trie the data path consults on a Bloom hit only:
 * an address it covers is never dropped. These verbs change it in place;
 * each entry is one update of the trie, visible to the next packet. The
 * first entry into an empty allowlist, and the last one out, also load the
 * program again with the filter's BW_F_ALLOW flag changed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "cli.h"
#include "list.h"
#include "log.h"
#include "output.h"
#include "lpm.h"
#include "pin.h"
#include "reload.h"
#include "running.h"

/* Parsed entries and the open, locked allowlist of a->iface. */
struct allow_ctx {
	struct bw_prefix *p;
	int lock;
	int fd;
};

static int allow_open(const char *verb, struct bw_args *a, struct allow_ctx *c)
{
	int err;

	bw_out_string("iface", NULL, a->iface);
	c->p = NULL;
	c->lock = c->fd = -1;
	err = bw_parse_addrs(verb, a->pos, a->npos, true, &c->p);
	if (!err)
		err = bw_check_privileges(verb);
	if (err)
		return err;
	c->lock = bw_lock_acquire();
	if (c->lock < 0)
		return c->lock;
	c->fd = bw_open_pinned_map(a->iface, BW_PIN_ALLOW);
	return c->fd < 0 ? c->fd : 0;
}

static void allow_close(struct allow_ctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
	bw_lock_release(c->lock);
	free(c->p);
}

/* "IFACE: N of M added (allowlist now K entries)"; JSON what, total, entries. */
static void print_total(const struct bw_args *a, int fd, const char *what,
			int n)
{
	long long total = bw_lpm_count(fd);

	bw_out_text("%s: ", a->iface);
	bw_out_int(what, "%lld of ", n);
	bw_out_int("total", "%lld ", a->npos);
	bw_out_text("%s", what);
	if (total >= 0) {
		bw_out_int("allowlist_entries", " (allowlist now %'lld ",
			   total);
		bw_out_text("%s)", bw_plural(total, "entry", "entries"));
	} else {
		bw_out_null("allowlist_entries", NULL);
	}
	bw_out_text("\n");
}

/* "ADDR  allowed"; JSON {address, result}. */
static void say_entry(const char *addr, const char *result, const char *text)
{
	bw_out_open_object(NULL);
	bw_out_string("address", "%s  ", addr);
	bw_out_string("result", NULL, result);
	bw_out_text("%s\n", text);
	bw_out_close_object();
}

/* Takes back the entries do_allow() put in: the flag could not follow. */
static void take_back(struct bw_args *a, struct allow_ctx *c, const bool *added)
{
	struct bw_lpm_key k;
	int i;

	for (i = 0; i < a->npos; i++) {
		if (!added[i])
			continue;
		bw_lpm_key_of(&k, &c->p[i]);
		if (bpf_map_delete_elem(c->fd, &k))
			pr_warn("%s: cannot take %s back out of the allowlist: %s\n",
				a->iface, a->pos[i], bw_errno_hint(-errno));
	}
}

/*
 * The running filter's BW_F_ALLOW follows the trie: set once it has entries
 * (after they are in), cleared once it is empty. The program reads it as a
 * constant, so a change loads the program again; if that fails the new
 * entries are taken back out, and nothing has changed.
 */
static int do_allow(struct bw_args *a)
{
	struct bw_lpm_key k;
	struct allow_ctx c;
	bool *added = NULL;
	int i, n = 0, err;
	__u8 v = 1;

	err = allow_open("allow", a, &c);
	bw_out_open_array("addresses");
	if (!err) {
		added = calloc(a->npos, sizeof(*added));
		err = added ? 0 : -ENOMEM;
	}
	for (i = 0; !err && i < a->npos; i++) {
		bw_lpm_key_of(&k, &c.p[i]);
		if (!bpf_map_update_elem(c.fd, &k, &v, BPF_NOEXIST)) {
			added[i] = true;
			n++;
		} else if (errno == EEXIST) {
			say_entry(a->pos[i], "already", "already allowed");
		} else {
			err = -errno;
			pr_warn("%s: cannot add %s to the allowlist: %s\n",
				a->iface, a->pos[i],
				err == -E2BIG ? "it is full"
					      : bw_errno_hint(err));
		}
	}
	if (n && bw_running_allow_flag(a->iface, a->ifindex, true)) {
		pr_warn("%s: cannot load the program that consults the allowlist; the new entries are taken back out\n",
			a->iface);
		take_back(a, &c, added);
		err = err ?: -EIO;
		n = 0;
	}
	for (i = 0; n && i < a->npos; i++)
		if (added[i])
			say_entry(a->pos[i], "allowed", "allowed");
	bw_out_close_array();
	if (c.fd >= 0)
		print_total(a, c.fd, "added", n);
	free(added);
	allow_close(&c);
	return err;
}

static int do_unallow(struct bw_args *a)
{
	struct bw_lpm_key k;
	struct allow_ctx c;
	int i, n = 0, absent = 0, err;

	err = allow_open("unallow", a, &c);
	bw_out_open_array("addresses");
	for (i = 0; !err && i < a->npos; i++) {
		bw_lpm_key_of(&k, &c.p[i]);
		if (!bpf_map_delete_elem(c.fd, &k)) {
			say_entry(a->pos[i], "removed", "removed");
			n++;
		} else if (errno == ENOENT) {
			say_entry(a->pos[i], "absent", "not in the allowlist");
			absent++;
		} else {
			err = -errno;
			pr_warn("%s: cannot remove %s from the allowlist: %s\n",
				a->iface, a->pos[i], bw_errno_hint(err));
		}
	}
	bw_out_close_array();
	if (c.fd >= 0)
		print_total(a, c.fd, "removed", n);
	/* A stale flag only costs a lookup in an empty trie: warn, no error. */
	if (n && c.fd >= 0 && bw_lpm_count(c.fd) == 0 &&
	    bw_running_allow_flag(a->iface, a->ifindex, false))
		pr_warn("%s: the allowlist is empty, but the program could not be loaded without it; it still consults it until the next reload\n",
			a->iface);
	if (!err && absent) {
		pr_warn("%s: %d of %d entries were not in the allowlist (an entry is removed with the prefix it was added with; 'bloomwall status %s' counts them)\n",
			a->iface, absent, a->npos, a->iface);
		err = -ENOENT;
	}
	allow_close(&c);
	return err;
}

const struct bw_verb bw_verb_allow = {
	.name = "allow",
	.summary = "add addresses or prefixes to the allowlist on IFACE",
	.details =
		"An allowlisted address is never dropped, whatever the blocklist says.\n"
		"The allowlist is an exact LPM trie (IPv4 and IPv6) consulted only when the\n"
		"Bloom filter hits, so it costs nothing on the unlisted path. It lasts until\n"
		"detach; 'bloomwall reload --allow FILE' replaces it, a reload without\n"
		"--allow keeps it. Prefixes must have no host bits set.\n"
		"With --json: {\"iface\", \"addresses\": [{\"address\", \"result\": \"allowed\"|\"already\"}],\n"
		"\"added\", \"total\", \"allowlist_entries\"}.\n",
	.opts = NULL,
	.pos = { .rest = "ADDR|CIDR", .min_rest = 1, .rest_many = true },
	.run = do_allow,
};

const struct bw_verb bw_verb_unallow = {
	.name = "unallow",
	.summary = "remove addresses or prefixes from the allowlist on IFACE",
	.details =
		"Each entry is removed as it was added: unallow 10.0.0.0/24 removes the /24,\n"
		"not an allowed 10.0.0.7 inside it. An entry that is not in the allowlist\n"
		"is reported, the others are still removed, and the exit status is 1.\n"
		"With --json: {\"iface\", \"addresses\": [{\"address\", \"result\": \"removed\"|\"absent\"}],\n"
		"\"removed\", \"total\", \"allowlist_entries\"}.\n",
	.opts = NULL,
	.pos = { .rest = "ADDR|CIDR", .min_rest = 1, .rest_many = true },
	.run = do_unallow,
};
