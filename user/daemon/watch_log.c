// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's log (watch_log.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/output.h"
#include "daemon/watch_log.h"

static const char *result_name(int err)
{
	switch (-err) {
	case 0:
		return "ok";
	case BW_WATCH_ETORN:
		return "deferred";
	case BW_WATCH_ESHRUNK:
		return "kept_out";
	default:
		return "failed";
	}
}

static void log_json(const struct bw_watch_rebuilt *r)
{
	const struct bw_watch_outcome *o = r->o;

	/* One record a reload; the watch prints text otherwise. */
	bw_out_begin(true, NULL);
	bw_out_stream_begin();
	bw_out_record_begin();
	bw_out_string("iface", NULL, r->iface);
	bw_out_string("result", NULL, result_name(r->err));
	bw_out_u64("generation", NULL, r->err ? r->old_gen : o->generation);
	bw_out_u64("entries", NULL, o->entries);
	bw_out_u64("bytes", NULL, o->bytes);
	bw_out_double("seconds", NULL, r->seconds);
	bw_out_string("trigger", NULL, r->trigger);
	if (r->renamed)
		bw_out_string("renamed_to", NULL, r->renamed);
	bw_out_record_end();
	bw_out_begin(false, NULL);
}

/* After a failure: what runs now, and what happens next. */
static void log_failed(const struct bw_watch_rebuilt *r)
{
	const char *what = r->err == -BW_WATCH_ESHRUNK ? "KEPT OUT" : "FAILED";

	if (r->renamed)
		printf("%s: reload FAILED after %.3f s (%s): there is no %s; it was renamed to %s, where its filter runs (generation %llu); the watch waits for an interface named %s\n",
		       r->iface, r->seconds, r->trigger, r->iface, r->renamed,
		       (unsigned long long)r->old_gen, r->iface);
	else if (r->old_gen)
		printf("%s: reload %s after %.3f s (%s): the last good filter stays (generation %llu); %s\n",
		       r->iface, what, r->seconds, r->trigger,
		       (unsigned long long)r->old_gen,
		       r->err == -BW_WATCH_ESHRUNK
			       ? "it goes in once the lists stay as they are, or with --allow-shrink"
		       : strncmp(r->trigger, "pull of ", 8)
			       ? "fix the file and it is tried again"
			       : "the next pull tries again");
	else
		printf("%s: reload FAILED after %.3f s (%s): no filter runs%s\n",
		       r->iface, r->seconds, r->trigger,
		       r->ends_watch ? ""
				     : "; fix the file and it is tried again");
}

void bw_watch_log_rebuild(const struct bw_watch_rebuilt *r, bool json)
{
	const struct bw_watch_outcome *o = r->o;

	if (json)
		log_json(r);
	else if (!r->err)
		printf("%s: reload ok: generation %llu, %'llu entries, %'llu bytes, %.3f s (%s)\n",
		       r->iface, (unsigned long long)o->generation,
		       (unsigned long long)o->entries,
		       (unsigned long long)o->bytes, r->seconds, r->trigger);
	else if (r->err == -BW_WATCH_ETORN)
		printf("%s: reload deferred after %.3f s (%s): a list changed while it was read; it is read again\n",
		       r->iface, r->seconds, r->trigger);
	else
		log_failed(r);
	fflush(stdout);
}
