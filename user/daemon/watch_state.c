// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* What a running watch holds, and what it does with it (watch_state.h). */
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/run_ask.h"
#include "daemon/live_view.h"
#include "daemon/pull_end.h"
#include "daemon/watch_live.h"
#include "daemon/watch_state.h"
#include "ops/detach.h"
#include "out/op_report.h"
#include "ops/daemon_state.h"
#include "out/status_view.h"

__u64 bw_watch_generation_on(const char *iface)
{
	struct bw_status_view v;

	bw_status_gather(&v, iface);
	return v.filter_err ? 0 : v.info.generation;
}

__u64 bw_watch_running_generation(const struct watch *w)
{
	return bw_watch_generation_on(w->c->iface);
}

/* The interface's new name, if the one watch started on was renamed. */
const char *bw_watch_renamed_to(const struct watch *w, char *buf)
{
	if (if_nametoindex(w->c->iface) || !w->ifindex ||
	    !if_indextoname((unsigned int)w->ifindex, buf))
		return NULL;
	return strcmp(buf, w->c->iface) ? buf : NULL;
}

void bw_watch_state(struct watch *w, struct json_object *root)
{
	json_object_object_add(root, "pid", json_object_new_int64(getpid()));
	json_object_object_add(root, "updated",
			       json_object_new_int64(time(NULL)));
	bw_wlive_publish(w->live, root);
	bw_watch_cs_publish(&w->cs, root);
	if (w->pull)
		bw_pull_json(w->pull, root);
	bw_wsrc_json(&w->src, root);
	bw_wsock_json(&w->sock, root);
}

/* What the watch publishes beside the kernel's state (daemon_state.h). */
void bw_watch_publish(struct watch *w)
{
	struct json_object *root = json_object_new_object();
	int err;

	if (!root)
		return;
	bw_watch_state(w, root);
	err = bw_dstate_write(w->c->iface, root);
	if (err && !w->state_said)
		pr_warn("%s: cannot write its state under %s: %s\n",
			w->c->iface, BW_STATE_DIR, strerror(-err));
	w->state_said = err != 0;
	json_object_put(root);
	bw_wlive_published(w->live);
	w->sock.changed = false;
}

void bw_watch_put_metrics(struct watch *w, const struct bw_status_view *v)
{
	size_t len;
	char *text;

	bw_watch_live_counts(&w->counts, w->live, &w->cs);
	w->counts.kept_gen = w->kept_gen;
	if (w->c->metrics_file)
		bw_metrics_write_file(w->c->metrics_file, v, &w->counts);
	/* One renderer: the file's exposition, served as it was last made. */
	if (w->http && !bw_metrics_render(&text, &len, v, &w->counts))
		bw_http_serve_set(w->http, text, len);
}

void bw_watch_write_metrics(struct watch *w)
{
	struct bw_status_view v;

	if (!w->c->metrics_file && !w->http)
		return;
	bw_status_gather(&v, w->c->iface);
	bw_watch_put_metrics(w, &v);
}

void bw_watch_count(struct watch *w, int err, double secs)
{
	if (err)
		w->counts.reloads_failed++;
	else
		w->counts.reloads_ok++;
	w->counts.last_ok = !err;
	w->counts.last_seconds = secs;
	w->counts.last_time = (double)time(NULL);
}

void bw_watch_stop(struct watch *w)
{
	const char *sig = w->sig.stop == SIGINT ? "SIGINT" : "SIGTERM";
	struct bw_detach_req rq = { .iface = w->c->iface };
	struct bw_detach_result res;
	char name[IF_NAMESIZE];
	const char *renamed = bw_watch_renamed_to(w, name);
	int err;

	if (renamed) {
		printf("%s: watch stopped (%s); there is no %s (renamed to %s, where its filter runs): nothing detached\n",
		       w->c->iface, sig, w->c->iface, renamed);
		return;
	}
	if (!w->c->detach_on_exit && !bw_watch_running_generation(w)) {
		printf("%s: watch stopped (%s); no filter runs\n", w->c->iface,
		       sig);
		return;
	}
	if (!w->c->detach_on_exit) {
		printf("%s: watch stopped (%s); the filter stays attached (generation %llu)\n",
		       w->c->iface, sig,
		       (unsigned long long)bw_watch_running_generation(w));
		return;
	}
	rq.ifindex = (int)if_nametoindex(w->c->iface);
	err = bw_detach_iface(&rq, &res);
	bw_detach_report(w->c->iface, &res);
	printf(err ? "%s: watch stopped (%s); detaching failed\n"
		   : "%s: watch stopped (%s); bloomwall detached (--detach-on-exit)\n",
	       w->c->iface, sig);
}

/*
 * The watch socket's questions (watch_sock.h), answered in the loop; the
 * protocol is base/run_ask.h's: add and remove (daemon/live_view.h),
 * why (the CrowdSec decisions, daemon/watch_cs.h), status (the
 * state the state file holds, at this moment).
 */
struct json_object *bw_watch_answer(void *ctx, const char *q, size_t len)
{
	struct watch *w = ctx;
	struct json_object *req, *ans;
	enum bw_ask_op op;

	ans = bw_ask_reply(q, len, &req, &op);
	if (!req)
		return ans;
	switch (op) {
	case BW_ASK_ADD:
		bw_wlive_add_answer(w->live, req, ans);
		break;
	case BW_ASK_REMOVE:
		bw_wlive_remove_answer(w->live, req, ans);
		break;
	case BW_ASK_WHY:
		bw_watch_cs_why(&w->cs, req, ans);
		break;
	default:
		bw_watch_state(w, ans);
	}
	json_object_put(req);
	if (bw_wlive_changed(w->live))
		bw_watch_publish(w);
	return ans;
}
