// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The end of a pull (pull_end.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/duration.h"
#include "base/file.h"
#include "base/log.h"
#include "base/output.h"
#include "daemon/pull_end.h"
#include "daemon/pull_sched.h"
#include "image/image_serial.h"
#include "image/image_sign.h"

static void set_next(struct bw_pull *p, double delay)
{
	p->next = bw_mono() + delay;
	p->next_real = (double)time(NULL) + delay;
}

void bw_pull_schedule_first(struct bw_pull *p, bool running)
{
	set_next(p,
		 bw_pull_first_delay(p->interval, running, bw_pull_uniform()));
}

/* The download went in: it is the last good image now. */
static void keep(struct bw_pull *p)
{
	struct bw_pull_url *u = &p->url[p->fetched];

	if (rename(p->tmp, p->cur)) {
		pr_warn("%s: cannot keep the image as %s: %s\n", p->iface,
			p->cur, strerror(errno));
		unlink(p->tmp);
	}
	bw_fsync_dir(p->dir);
	snprintf(p->sha, sizeof(p->sha), "%s", p->fetched_sha);
	snprintf(u->etag, sizeof(u->etag), "%s", p->fetched_etag);
	u->last_modified = p->fetched_lm;
}

/* Why the swap of a download failed: a refusal, or this host's doing. */
static enum bw_pull_reason swap_reason(int err)
{
	switch (-err) {
	case BW_EKEYREJECTED:
		return BW_PULL_R_SIGNATURE;
	case BW_EROLLBACK:
		return BW_PULL_R_ROLLBACK;
	case EINVAL:
	case EPROTO:
	case EBADMSG:
		return BW_PULL_R_REFUSED;
	default:
		return BW_PULL_R_LOCAL;
	}
}

bool bw_pull_next_mirror(struct bw_pull *p, int swap_err)
{
	static const char *const what[BW_PULL_NREASONS] = {
		[BW_PULL_R_SIGNATURE] = "its signature was refused",
		[BW_PULL_R_ROLLBACK] = "older than the image that runs",
		[BW_PULL_R_REFUSED] = "the image was refused",
	};
	enum bw_pull_reason why = swap_reason(swap_err);
	int i = p->fetched;

	if (i < 0 || i + 1 >= p->c->nurls || !what[why])
		return false;
	unlink(p->tmp);
	p->why = why;
	p->fig.failures[why]++;
	bw_pull_add_reason(p, i, what[why]);
	printf("%s: pull: the image of %s was refused (%s); asking %s\n",
	       p->iface, p->url[i].url, bw_pull_reason_name(why),
	       p->url[i + 1].url);
	return !bw_pull_begin_at(p, i + 1);
}

static void swap_failed(struct bw_pull *p, int err)
{
	static const char *const what[BW_PULL_NREASONS] = {
		[BW_PULL_R_SIGNATURE] = "its signature was refused",
		[BW_PULL_R_ROLLBACK] = "not newer than the image that runs",
		[BW_PULL_R_REFUSED] = "the image was refused",
	};

	p->why = swap_reason(err);
	p->fig.failures[p->why]++;
	if (what[p->why])
		snprintf(p->reason, sizeof(p->reason),
			 "%s: %s (the reason is above)", p->url[p->fetched].url,
			 what[p->why]);
	else
		snprintf(p->reason, sizeof(p->reason), "%s: %s",
			 p->url[p->fetched].url, strerror(-err));
	unlink(p->tmp);
}

static enum bw_pull_result result_of(struct bw_pull *p, int rc, int swap_err)
{
	if (rc == 1)
		return BW_PULL_UNCHANGED;
	if (rc) {
		snprintf(p->reason, sizeof(p->reason), "%s", p->trying);
		return BW_PULL_FAILED;
	}
	if (swap_err) {
		swap_failed(p, swap_err);
		return BW_PULL_FAILED;
	}
	keep(p);
	return BW_PULL_OK;
}

/* With --json: one record a failure and a row's end, as the rebuilds'. */
static void log_json(const struct bw_pull *p, __u64 gen, double delay)
{
	const struct bw_pull_figures *f = &p->fig;

	bw_out_begin(true, NULL);
	bw_out_stream_begin();
	bw_out_record_begin();
	bw_out_string("iface", NULL, p->iface);
	bw_out_string("event", NULL, "pull");
	bw_out_string("result", NULL, bw_pull_result_name(f->last));
	if (f->last == BW_PULL_FAILED)
		bw_out_string("reason", NULL, bw_pull_reason_name(p->why));
	bw_out_string("why", NULL, p->reason);
	bw_out_u64("generation", NULL, gen);
	bw_out_u64("consecutive_failures", NULL, f->consecutive);
	bw_out_double("next_try", NULL, delay);
	bw_out_record_end();
	bw_out_begin(false, NULL);
	fflush(stdout);
}

static void log_failed(const struct bw_pull *p, __u64 gen, double delay)
{
	char runs[64];

	if (p->json) {
		log_json(p, gen, delay);
		return;
	}
	if (gen)
		snprintf(runs, sizeof(runs),
			 "the last good filter stays (generation %llu)",
			 (unsigned long long)gen);
	else
		snprintf(runs, sizeof(runs), "no filter runs");
	printf("%s: pull FAILED (%s): %s: %s; next try in %.1f s (%llu in a row)\n",
	       p->iface, bw_pull_reason_name(p->why), p->reason, runs, delay,
	       (unsigned long long)p->fig.consecutive);
	fflush(stdout);
}

void bw_pull_finish(struct bw_pull *p, int rc, int swap_err, __u64 gen)
{
	enum bw_pull_result r = result_of(p, rc, swap_err);
	struct bw_pull_figures *f = &p->fig;
	double delay;

	f->results[r]++;
	f->last = r;
	f->last_time = (double)time(NULL);
	if (r == BW_PULL_FAILED) {
		f->consecutive++;
	} else {
		snprintf(p->reason, sizeof(p->reason), "%s from %s",
			 r == BW_PULL_OK ? "swapped in" : "unchanged",
			 p->url[p->answered].url);
		if (f->consecutive && p->json)
			log_json(p, gen, 0);
		else if (f->consecutive)
			printf("%s: pull from %s works again (%s) after %llu failed\n",
			       p->iface, p->url[p->answered].url,
			       bw_pull_result_name(r),
			       (unsigned long long)f->consecutive);
		fflush(stdout);
		f->consecutive = 0;
		f->last_ok = f->last_time;
	}
	delay = bw_pull_delay(
		p->interval,
		(unsigned int)(f->consecutive ? f->consecutive : 0),
		bw_pull_uniform());
	set_next(p, delay);
	if (r == BW_PULL_FAILED)
		log_failed(p, gen, delay);
	p->fetched = -1;
}

void bw_pull_json(const struct bw_pull *p, struct json_object *root)
{
	struct json_object *o = json_object_new_object();
	struct json_object *urls = json_object_new_array();
	const struct bw_pull_url *a =
		p->answered >= 0 ? &p->url[p->answered] : NULL;
	int i;

	for (i = 0; i < p->c->nurls; i++)
		json_object_array_add(urls,
				      json_object_new_string(p->url[i].url));
	json_object_object_add(o, "urls", urls);
	json_object_object_add(o, "answered",
			       a ? json_object_new_string(a->url) : NULL);
	json_object_object_add(o, "interval",
			       json_object_new_double(p->interval));
	json_object_object_add(o, "etag",
			       json_object_new_string(a ? a->etag : ""));
	json_object_object_add(o, "last_modified",
			       json_object_new_int64(a ? a->last_modified : 0));
	json_object_object_add(o, "image", json_object_new_string(p->cur));
	json_object_object_add(o, "image_sha256",
			       json_object_new_string(p->sha));
	json_object_object_add(o, "last_reason",
			       json_object_new_string(p->reason));
	json_object_object_add(o, "next_pull",
			       json_object_new_int64((int64_t)p->next_real));
	bw_pull_figures_json(o, &p->fig);
	json_object_object_add(root, "pull", o);
}
