// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall allow IFACE ADDR|CIDR...    bloomwall unallow IFACE ADDR|CIDR...
 *
 * The allowlist is an LPM trie the data path consults on a Bloom hit only:
 * an address it covers is never dropped. These verbs change it in place;
 * each entry is one update of the trie, visible to the next packet.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "attach.h"
#include "cli.h"
#include "list.h"
#include "log.h"
#include "lpm.h"
#include "pin.h"

/* Parsed entries and the open, locked allowlist of a->iface. */
struct allow_ctx {
	struct bw_prefix *p;
	int lock;
	int fd;
};

static int allow_open(const char *verb, struct bw_args *a, struct allow_ctx *c)
{
	int err;

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

static void print_total(const struct bw_args *a, int fd, const char *what,
			int n)
{
	long long total = bw_lpm_count(fd);

	if (total >= 0)
		printf("%s: %d of %d %s (allowlist now %'lld %s)\n", a->iface,
		       n, a->npos, what, total,
		       bw_plural(total, "entry", "entries"));
	else
		printf("%s: %d of %d %s\n", a->iface, n, a->npos, what);
}

/*
 * The running filter's BW_F_ALLOW follows the trie: set once it has entries
 * (after they are in), cleared once it is empty. Without the flag the data
 * path skips the trie, so a failure here is said out loud.
 */
static void set_running_flag(const struct bw_args *a, bool on)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	int outer = -1;

	if (bw_open_running(a->iface, true, &outer, &m)) {
		pr_warn("%s: cannot update the running filter's allowlist flag; a 'bloomwall reload' sets it\n",
			a->iface);
		return;
	}
	bw_set_allow_flag(m.mem, on);
	bw_filter_close(&m);
	close(outer);
}

static int do_allow(struct bw_args *a)
{
	struct bw_lpm_key k;
	struct allow_ctx c;
	int i, n = 0, err;
	__u8 v = 1;

	err = allow_open("allow", a, &c);
	for (i = 0; !err && i < a->npos; i++) {
		bw_lpm_key_of(&k, &c.p[i]);
		if (!bpf_map_update_elem(c.fd, &k, &v, BPF_NOEXIST)) {
			printf("%s  allowed\n", a->pos[i]);
			n++;
		} else if (errno == EEXIST) {
			printf("%s  already allowed\n", a->pos[i]);
		} else {
			err = -errno;
			pr_warn("%s: cannot add %s to the allowlist: %s\n",
				a->iface, a->pos[i],
				err == -E2BIG ? "it is full"
					      : bw_errno_hint(err));
		}
	}
	if (c.fd >= 0)
		print_total(a, c.fd, "added", n);
	if (n)
		set_running_flag(a, true);
	allow_close(&c);
	return err;
}

static int do_unallow(struct bw_args *a)
{
	struct bw_lpm_key k;
	struct allow_ctx c;
	int i, n = 0, absent = 0, err;

	err = allow_open("unallow", a, &c);
	for (i = 0; !err && i < a->npos; i++) {
		bw_lpm_key_of(&k, &c.p[i]);
		if (!bpf_map_delete_elem(c.fd, &k)) {
			printf("%s  removed\n", a->pos[i]);
			n++;
		} else if (errno == ENOENT) {
			printf("%s  not in the allowlist\n", a->pos[i]);
			absent++;
		} else {
			err = -errno;
			pr_warn("%s: cannot remove %s from the allowlist: %s\n",
				a->iface, a->pos[i], bw_errno_hint(err));
		}
	}
	if (c.fd >= 0)
		print_total(a, c.fd, "removed", n);
	if (n && c.fd >= 0 && bw_lpm_count(c.fd) == 0)
		set_running_flag(a, false);
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
	.usage = "IFACE ADDR|CIDR...",
	.summary = "add addresses or prefixes to the allowlist on IFACE",
	.details =
		"An allowlisted address is never dropped, whatever the blocklist says.\n"
		"The allowlist is an exact LPM trie (IPv4 and IPv6) consulted only when the\n"
		"Bloom filter hits, so it costs nothing on the unlisted path. It lasts until\n"
		"detach; 'bloomwall reload --allow FILE' replaces it, a reload without\n"
		"--allow keeps it. Prefixes must have no host bits set.\n",
	.opts = NULL,
	.min_pos = 2,
	.max_pos = -1,
	.run = do_allow,
};

const struct bw_verb bw_verb_unallow = {
	.name = "unallow",
	.usage = "IFACE ADDR|CIDR...",
	.summary = "remove addresses or prefixes from the allowlist on IFACE",
	.details =
		"Each entry is removed as it was added: unallow 10.0.0.0/24 removes the /24,\n"
		"not an allowed 10.0.0.7 inside it. An entry that is not in the allowlist\n"
		"is reported, the others are still removed, and the exit status is 1.\n",
	.opts = NULL,
	.min_pos = 2,
	.max_pos = -1,
	.run = do_unallow,
};
