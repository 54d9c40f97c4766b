/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's rebuild step (watch.h): attach when nothing runs, else
 * reload from the lists or swap the image in, through the operations the
 * verbs use (ops/), whose results give the log line its figures.
 */
#ifndef __BW_WATCH_APPLY_H
#define __BW_WATCH_APPLY_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

#include "daemon/live.h"
#include "daemon/pull.h"
#include "daemon/watch_files.h"
#include "bloomwall.h"
#include "ops/build.h"
#include "image/sign_key.h"

/* A rebuild not swapped in: a list changed while it was read. */
#define BW_WATCH_ETORN EAGAIN
/* Nor one whose lists shrank to under half (BW_WATCH_SHRINK). */
#define BW_WATCH_ESHRUNK ERANGE
/* Checks of the running filter a shrunk list must stay the same for. */
#define BW_WATCH_SHRINK_TICKS 3
/* A rebuild cut short by SIGTERM or SIGINT. */
#define BW_WATCH_ESTOPPED EINTR

struct bw_cs_cfg;   /* daemon/crowdsec.h */
struct bw_wsrc_cfg; /* daemon/watch_src.h */

/* What a watch keeps running, and how (bloomwall watch's options). */
struct bw_watch_cfg {
	const char *iface;
	const char *const *lists; /* the list files, or none with image */
	int nlists;
	const char *image; /* --image FILE */
	const struct bw_build_args *build;
	enum xdp_attach_mode mode; /* when it attaches */
	bool own_link;
	bool egress;	 /* --egress: the TC program too (put on if missing) */
	double interval; /* seconds between ticks; 0: BW_WATCH_TICK */
	double debounce; /* seconds without events before a rebuild */
	const char *metrics_file;
	const char *metrics_listen; /* ADDR:PORT served /metrics, or NULL */
	bool detach_on_exit;
	bool json;	   /* one JSON record a rebuild */
	bool allow_shrink; /* --allow-shrink */
	/* An image must be signed by one of these (NULL or none: need not). */
	const struct bw_verify_keys *keys;
	bool allow_rollback; /* --allow-rollback: take an older image */
	/* A CrowdSec decision source (--crowdsec URL), or NULL. */
	const struct bw_cs_cfg *crowdsec;
	const struct bw_pull_cfg *pull; /* --url ...: the image pulled */
	/* The lists given by URL (their copies among lists), or NULL. */
	const struct bw_wsrc_cfg *src;
};

/*
 * SIGTERM, SIGINT and SIGHUP, blocked and read from a signalfd: a poll
 * that always has events ready still sees them.
 */
struct bw_watch_signals {
	int fd;
	int stop; /* SIGTERM or SIGINT came (the first), else 0 */
	bool hup;
};

/* Blocks the three and opens the fd. 0 or -errno (said). */
int bw_watch_signals_open(struct bw_watch_signals *s);
/* Takes what came in on s->fd into stop and hup. */
void bw_watch_signals_read(struct bw_watch_signals *s);
void bw_watch_signals_close(struct bw_watch_signals *s);

/* What a rebuild must hold to be swapped in. */
struct bw_watch_guard {
	/* The files, with their identities taken before the rebuild. */
	const struct bw_watch_files *fs;
	/* The keys of the filter the watch keeps: fewer than half of them
	 * is refused; 0: no check. */
	__u64 last_keys;
	bool allow_shrink; /* this once, or --allow-shrink */
	/* The watch's live entries, set in the new filter before the swap
	 * (daemon/live.h), or NULL. */
	struct bw_wlive *live;
};

/* What a rebuild did, for the log line. */
struct bw_watch_outcome {
	__u64 generation, entries, bytes;
	__u64 keys; /* entries and names: what the shrink check counts */
	bool empty; /* built from lists that hold no entries */
};

/* The keys of a filter (its addresses' and names'), as the check counts. */
__u64 bw_watch_keys(const struct bw_hdr *hdr, const struct bw_info *info,
		    const struct bw_dns_hdr *dns);

/* Whether the interface ifindex runs bloomwall's program. */
bool bw_watch_attached(int ifindex);

/* A rebuild under way: its child, and the pipe its result comes on. */
struct bw_watch_job {
	pid_t pid; /* 0: none */
	int fd;	   /* readable once the child ended */
};

/*
 * Starts a rebuild in a child process, so that the watch's loop goes on
 * while it runs and a signal can always end the watch at once (a killed
 * rebuild leaves the old filter or the new one, whole): it attaches (with
 * an image: an empty filter, then the image) when nothing runs, else
 * reloads from the lists or swaps the image in, if g holds; its own index
 * of the interface each time (a re-created interface has another). g's
 * live entries go to STAGING until bw_watch_apply_end. 0 (j set), or
 * -errno (said; no child, nothing changed).
 */
int bw_watch_apply_start(const struct bw_watch_cfg *c,
			 const struct bw_watch_guard *g,
			 struct bw_watch_job *j);

/*
 * Once j->fd is readable: the child's result, 0 or -errno (said on
 * stderr by the child; -EIO: it died without one), o what runs now, and
 * the filter that runs taken over by live (g's, or NULL). stop: the
 * child is killed first (SIGTERM came): -BW_WATCH_ESTOPPED. j is free
 * again after it.
 */
int bw_watch_apply_end(struct bw_watch_job *j, struct bw_wlive *live, bool stop,
		       struct bw_watch_outcome *o);

#endif /* __BW_WATCH_APPLY_H */
