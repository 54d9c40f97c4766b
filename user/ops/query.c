// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * query's reads of the running filter (query.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "base/log.h"
#include "base/run_dir.h"
#include "kernel/allow_names.h"
#include "kernel/allowlist.h"
#include "kernel/hook.h"
#include "kernel/lpm.h"
#include "kernel/running.h"
#include "ops/handover.h"
#include "ops/query.h"

/* The watch answers from memory; a rebuild may hold its loop a while. */
#define WHY_MS 3000

/* The verify trie of the running program, -1 if there is none. */
static int open_exact(const struct bw_running *r)
{
	int fd;

	if (!(r->prog_hdr.flags & BW_F_VERIFY))
		return -1;
	fd = bw_exact_open(r->maps.exact, r->prog_hdr.exact_slot);
	return fd < 0 ? -1 : fd;
}

/*
 * Verify mode: each address looked up in the running program's exact
 * list, the running state opened again until the hook ran the same
 * program before and after the lookups. The slot the program reads is
 * rewritten only for the filter after next (slots alternate): with the
 * same program at the end, the lookups saw it whole, not a rebuild's
 * half-filled trie (a watch may swap several times a second).
 */
static int look_exact(const struct bw_query_req *rq, struct bw_running *r)
{
	struct bw_query_arg *q = rq->q;
	int i, tries, fd, err = 0;

	for (tries = 0; tries < 20; tries++) {
		fd = open_exact(r);
		for (i = 0; i < rq->n; i++)
			q[i].in_exact = !q[i].is_name && fd >= 0 &&
					bw_lpm_match(fd, &q[i].addr) > 0;
		if (fd >= 0)
			close(fd);
		if (!(r->prog_hdr.flags & BW_F_VERIFY) ||
		    bw_hook_prog_id(rq->ifindex) == r->prog_id)
			return 0;
		bw_running_close(r);
		err = bw_running_open(rq->iface, rq->ifindex, 0, r);
		if (!err)
			err = bw_running_need_filter(r);
		if (err)
			return err;
	}
	return 0;
}

/* The allowlists' answers for each argument. */
static void look_allow(const struct bw_query_req *rq,
		       const struct bw_running *r)
{
	struct bw_query_arg *q;
	int i;

	for (i = 0; i < rq->n; i++) {
		q = &rq->q[i];
		if (q->is_name)
			q->name_allowed = bw_allow_names_match(
						  r->maps.allow_names, q->name,
						  (size_t)q->len, &q->allow_sub,
						  &q->allow_labels) > 0;
		else
			q->in_allow = (r->prog_hdr.flags & BW_F_ALLOW) &&
				      bw_lpm_match(r->maps.allow, &q->addr) > 0;
	}
}

/* The address allowlist's entries; none when they cannot be read. */
static void read_allow(const struct bw_running *rn, struct bw_query_result *res)
{
	struct bw_list l;
	size_t k, n;

	bw_list_init(&l);
	if (!(rn->prog_hdr.flags & BW_F_ALLOW) ||
	    bw_allow_read(rn->maps.allow, &l))
		goto out;
	n = l.n4 + l.n6;
	res->allow = calloc(n ?: 1, sizeof(*res->allow));
	for (k = 0; res->allow && k < n; k++)
		bw_list_prefix(&l, k, &res->allow[k]);
	res->nallow = res->allow ? n : 0;
out:
	bw_list_free(&l);
}

/* ---- the CrowdSec decisions, asked of the watch ------------------------- */

static long long num(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v)
						     : 0;
}

static void copy(char *dst, size_t cap, struct json_object *o, const char *key)
{
	snprintf(dst, cap, "%s", bw_json_str(o, key) ?: "");
}

/* One address's result r into a: 0, -EBADMSG, -ENOMEM. */
static int read_addr(struct json_object *r, struct bw_cs_why_addr *a)
{
	struct json_object *ds, *d;
	struct bw_cs_why_dec *x;
	size_t i, n;

	if (!json_object_object_get_ex(r, "decisions", &ds) ||
	    !json_object_is_type(ds, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(ds);
	a->more = num(r, "more");
	a->d = calloc(n ?: 1, sizeof(*a->d));
	if (!a->d)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		d = json_object_array_get_idx(ds, i);
		x = &a->d[i];
		x->id = num(d, "id");
		x->until = num(d, "until");
		copy(x->origin, sizeof(x->origin), d, "origin");
		copy(x->scenario, sizeof(x->scenario), d, "scenario");
		copy(x->scope, sizeof(x->scope), d, "scope");
		copy(x->value, sizeof(x->value), d, "value");
		copy(x->type, sizeof(x->type), d, "type");
	}
	a->n = n;
	return 0;
}

/* The addresses at idx (k of them) asked, their results into w. */
static int ask_why(const char *iface, const char *const *addrs,
		   const size_t *idx, size_t k, struct bw_cs_why *w)
{
	struct json_object *q = json_object_new_object(), *arr, *list, *cs;
	struct bw_watch_reply r;
	size_t i;
	int err;

	arr = json_object_new_array();
	if (!q || !arr) {
		json_object_put(q);
		json_object_put(arr);
		return -ENOMEM;
	}
	for (i = 0; i < k; i++)
		json_object_array_add(arr,
				      json_object_new_string(addrs[idx[i]]));
	json_object_object_add(q, "addresses", arr);
	err = bw_watch_ask(iface, BW_ASK_WHY, q, WHY_MS, &r);
	if (err == -EREMOTEIO)
		pr_warn("%s: the watch refused --why's question on its socket: %s: --why shows no CrowdSec decision\n",
			iface, r.why);
	if (err)
		return err;
	if (!json_object_object_get_ex(r.o, "results", &list) ||
	    !json_object_is_type(list, json_type_array) ||
	    json_object_array_length(list) != k)
		err = -EBADMSG;
	json_object_object_get_ex(r.o, "crowdsec", &cs);
	w->source = !err && json_object_get_boolean(cs);
	copy(w->url, sizeof(w->url), r.o, "url");
	for (i = 0; !err && i < k; i++)
		err = read_addr(json_object_array_get_idx(list, i),
				&w->addr[idx[i]]);
	json_object_put(r.o);
	return err;
}

/*
 * What did not answer is the watch's socket (its loop busy or stopped,
 * too many clients): the watch may have no CrowdSec source at all.
 */
static void said_no_answer(const char *iface, int err)
{
	char path[128];

	if (bw_run_path(path, sizeof(path), iface, BW_RUN_SOCKET))
		snprintf(path, sizeof(path), "of %s", iface);
	if (err == -ETIMEDOUT)
		pr_warn("%s: the watch did not answer on its socket %s within %d s (busy or stopped): --why shows no CrowdSec decision\n",
			iface, path, WHY_MS / 1000);
	else
		pr_warn("%s: the watch's socket %s: %s: --why shows no CrowdSec decision\n",
			iface, path, strerror(-err));
}

int bw_query_cs_why(const char *iface, const char *const *addrs, size_t n,
		    struct bw_cs_why *w)
{
	size_t idx[BW_ASK_WHY_MAX], i, k = 0;
	int err = 0;

	memset(w, 0, sizeof(*w));
	w->addr = calloc(n ?: 1, sizeof(*w->addr));
	if (!w->addr)
		return -ENOMEM;
	w->n = n;
	for (i = 0; i <= n && !err; i++) {
		if (i < n && addrs[i])
			idx[k++] = i;
		if (k && (k == BW_ASK_WHY_MAX || i == n)) {
			err = ask_why(iface, addrs, idx, k, w);
			k = 0;
		}
	}
	/* No watch: nothing to say. */
	if (err == -ENOENT)
		return 0;
	if (err && err != -EREMOTEIO)
		said_no_answer(iface, err);
	return err;
}

void bw_query_cs_why_free(struct bw_cs_why *w)
{
	size_t i;

	for (i = 0; w->addr && i < w->n; i++)
		free(w->addr[i].d);
	free(w->addr);
	memset(w, 0, sizeof(*w));
}

/* ---- the running filter -------------------------------------------------- */

/*
 * --why: reads the running filter's records and scans its lists for the
 * arguments (nothing printed), and reads the address allowlist. 0 or
 * -errno (said).
 */
/*
 * --why of addresses: the watch's decisions, one entry per argument (a
 * watch that did not answer was said; its decisions are left out).
 */
static void ask_decisions(const struct bw_query_req *rq,
			  struct bw_query_result *res)
{
	const char **addrs = calloc(rq->n ?: 1, sizeof(*addrs));
	int i;

	if (!addrs)
		return;
	for (i = 0; i < rq->n; i++)
		addrs[i] = rq->q[i].is_name ? NULL : rq->why[i];
	if (bw_query_cs_why(rq->iface, addrs, (size_t)rq->n, &res->cs))
		bw_query_cs_why_free(&res->cs);
	free(addrs);
}

static int why_prepare(const struct bw_query_req *rq,
		       struct bw_query_result *res)
{
	struct bw_why_target *t = calloc(rq->n ?: 1, sizeof(*t));
	const struct bw_running *rn = res->run;
	char err[BW_ERRLEN];
	int i, ret = 0;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < rq->n && !ret; i++) {
		ret = bw_why_target(rq->why[i], &t[i], err, sizeof(err));
		if (ret)
			pr_warn("bloomwall query: %s\n", err);
	}
	if (!ret)
		ret = bw_running_records(rn, &res->rec);
	if (!ret)
		ret = bw_why_scan_records(&res->why, t, rq->n, &res->rec);
	if (ret == -ENOMEM)
		pr_warn("%s: out of memory while reading the lists for --why\n",
			rn->iface);
	free(t);
	if (!ret)
		read_allow(rn, res);
	if (!ret)
		ask_decisions(rq, res);
	return ret;
}

int bw_query_open(const struct bw_query_req *rq, struct bw_query_result *res)
{
	struct bw_running *r;
	int err;

	memset(res, 0, sizeof(*res));
	res->iface = rq->iface;
	bw_records_init(&res->rec);
	r = res->run = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	*r = (struct bw_running)BW_RUNNING_INIT;
	err = bw_running_open(rq->iface, rq->ifindex, 0, r);
	if (!err)
		err = bw_running_need_filter(r);
	if (!err)
		err = look_exact(rq, r);
	if (err)
		return err;
	res->mem = r->filter.mem;
	res->prog_hdr = r->prog_hdr;
	res->egress = r->egress.prog_fd >= 0;
	look_allow(rq, r);
	/* --why reads the recorded lists, once for all the arguments. */
	if (rq->why)
		return why_prepare(rq, res);
	if (bw_running_records(r, &res->rec)) /* for the expiries only */
		bw_records_init(&res->rec);
	return 0;
}

void bw_query_close(struct bw_query_result *res)
{
	bw_why_free(&res->why);
	bw_query_cs_why_free(&res->cs);
	bw_records_free(&res->rec);
	free(res->allow);
	res->allow = NULL;
	if (res->run)
		bw_running_close(res->run);
	free(res->run);
	res->run = NULL;
	res->mem = NULL;
}
