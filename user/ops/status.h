/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What status shows of one interface, gathered before anything is output
 * (out/status_view.h renders it): the program its hook runs (the truth)
 * and whether the pins agree, the running filter and its regions, the
 * tries, the counters; and apart, the filter's records (its expiring
 * entries and provenance). Reads only: no lock.
 */
#ifndef __BW_STATUS_H
#define __BW_STATUS_H

#include <stdbool.h>
#include <json-c/json.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "filter/records.h"
#include "kernel/egress.h"
#include "kernel/hook.h"
#include "kernel/stats.h"

/* The sources status shows of who tried (egress_who, ingress_who). */
#define BW_STATUS_WHO 10

struct bw_region_row {
	int region, family;
	unsigned int plen, probes;
	__u32 blocks, entries;
	double fill, fpr;
};

struct bw_status_view {
	const char *iface;
	int ifindex; /* 0: the interface is gone */
	/* Program */
	int prog_err; /* bloomwall's program on the hook: 0, or -ENOENT */
	__u32 prog_id;
	int xdp_err; /* querying the hook: 0 or -errno */
	struct bw_xdp_info x;
	const char *kind;
	bool link;	  /* held by a bpf_link */
	int prog_hdr_err; /* the program's header copy: 0 or -errno */
	struct bw_hdr prog_hdr;
	/* Pins: whether they name what runs; where a pinned program runs */
	bool pins_in_step;
	bool pins_left; /* not running, but pins are there */
	char moved_to[16];
	/* Filter */
	int filter_err;
	__u32 map_id, nblocks;
	struct bw_hdr hdr;
	struct bw_info info;
	int nrows;
	struct bw_region_row rows[BW_REGIONS];
	double fam_fpr[BW_FAMILIES]; /* < 0: no region in the family */
	/* Entries kept from 'bloomwall add'; < 0 when the area is malformed */
	long long added_kept;
	/* Adds taken out in place since the build (the build counted them) */
	long long added_gone;
	/* The address keys the build sized the regions for (BW_REC_SIZED) */
	bool have_sized;
	__u64 sized_entries;
	/* The image it came from (BW_REC_IMAGE, BW_REC_ORIGIN's hash) */
	bool have_image;
	struct bw_rec_image image;
	__u8 image_hash[16];  /* zero: none recorded */
	long long filter_mem; /* memlock of the filter map, < 0 unknown */
	/* Tries: entries and memory; < 0 when there is none (or unreadable) */
	long long allow_entries, allow_mem;
	long long exact_entries, exact_mem;
	/* Names: the DNS block (has_dns), else the recorded options */
	bool has_dns;
	struct bw_dns_hdr dns;
	struct bw_rec_dns dns_opts;
	double name_fill[BW_NAME_REGIONS], name_fpr[BW_NAME_REGIONS];
	long long names_kept;  /* names added at run time, < 0 unknown */
	long long allow_names; /* name allowlist entries, < 0: no map */
	/* DNS counters: -ENOENT when the program has no dns_stats map */
	int dns_stats_err;
	struct bw_dns_stats dns_stats;
	/* Blocked queries by family: -ENOENT when the program has no dns_drops */
	int dns_drops_err;
	struct bw_dns_drops dns_drops;
	/* Drop log: -ENOENT when the program has no log_stats map */
	int log_stats_err;
	long log_rate; /* events a second per CPU; < 0: unknown */
	struct bw_log_stats log_stats;
	/* Counters */
	int stats_err;
	struct bw_stats stats;
	/*
	 * Egress (attach --egress): what the interface's TC egress hook runs
	 * of bloomwall's; -ENOENT: nothing.
	 */
	int egress_err;
	__u32 egress_id;
	bool egress_behind; /* it reads another filter than the XDP program */
	int egress_stats_err;
	struct bw_stats egress_stats;
	int nwho; /* who tried: the top sources, most packets first */
	struct bw_who_row who[BW_STATUS_WHO];
	/* Its DNS counters (egress_dns): -ENOENT when it has none */
	int egress_dns_err;
	struct bw_dns_stats egress_dns;
	/*
	 * Who tried on ingress (ingress_who, --match dst): the sources of
	 * packets the XDP program stopped for their destination.
	 */
	int nwho_in;
	struct bw_who_row who_in[BW_STATUS_WHO];
	/* Every map of both programs, each once (bytes_memlock); < 0 unknown */
	long long kernel_mem;
};

/*
 * The region rows and per-family rates of the filter at mem (whose info
 * block is in v->info already): status's, and inspect's of an image.
 */
void bw_status_regions(struct bw_status_view *v, const void *mem);

/*
 * The names of the filter at mem: its DNS block and name regions' fill
 * (v->dns_opts, names_kept and allow_names are the caller's to set).
 */
void bw_status_names(struct bw_status_view *v, const void *mem);

/* Everything status shows of iface; the errors are in the view. */
void bw_status_gather(struct bw_status_view *v, const char *iface);

/* The records of the filter an interface runs, and its watch. */
struct bw_status_records {
	struct bw_records rec;
	int watch_pid; /* the watch that takes expired entries out, <= 0: none */
};

/*
 * bw_status_gather, and from the same opening of what runs (once per
 * command: test_verb_syscalls) its records (a malformed area warned
 * about and taken as empty) and the pid of its watch into sr: 0, or
 * -ENOENT when it runs no valid filter, -errno when they cannot be read
 * (said). sr is the caller's to free (bw_status_records_free) either way.
 */
int bw_status_gather_all(struct bw_status_view *v, const char *iface,
			 struct bw_status_records *sr);
void bw_status_records_free(struct bw_status_records *sr);

/* How long status waits for the watch's answer (a rebuild holds its loop). */
#define BW_STATUS_ASK_MS 1000

/* What the interface's watch says of itself, for status. */
struct bw_status_watch {
	/*
	 * Its state (base/run_ask.h, "status": "pid", "updated", "live",
	 * "socket", "crowdsec", "pull"); NULL: none.
	 */
	struct json_object *state;
	/*
	 * 0; -ENOENT: no watch; -ESRCH: no watch answered and the state file's
	 * is gone (state: as it last was); -errno: its state file unreadable.
	 */
	int err;
	/*
	 * The watch runs but did not answer within BW_STATUS_ASK_MS (or has
	 * no socket): state is what it last published, ask_err why.
	 */
	bool published;
	int ask_err;
};

/*
 * Asks iface's watch for its state, within BW_STATUS_ASK_MS; without an
 * answer, reads the state file it publishes (ops/daemon_state.h). sw is
 * the caller's to free (bw_status_watch_free) either way.
 */
void bw_status_watch(const char *iface, struct bw_status_watch *sw);
void bw_status_watch_free(struct bw_status_watch *sw);

/* Whether iface has a pin directory (an interface gone may have left one). */
bool bw_status_pinned(const char *iface);

/*
 * Calls fn with each interface status shows: those with pins, in name
 * order, then those whose hook runs bloomwall and that have none. The
 * number of interfaces, or -errno (said) when the pins cannot be listed.
 */
int bw_status_each(int (*fn)(const char *iface, void *arg), void *arg);

/*
 * 0 when iface has something to show (its hook runs bloomwall, or it has
 * pins), else -ENOENT, said with what to do.
 */
int bw_status_find(const char *iface, int ifindex);

/*
 * stats: the counters of the program iface runs, summed over CPUs: 0, or
 * -errno (said; -ENOENT: none runs).
 */
int bw_status_counters(const char *iface, int ifindex, struct bw_stats *s);

/*
 * stats: the drop log's rate (events a second per CPU, < 0: unknown) and
 * counters: 0, -ENOENT when no program with a drop log runs (nothing
 * said), or -errno.
 */
int bw_status_log(const char *iface, int ifindex, long *rate,
		  struct bw_log_stats *ls);

/* -ENOENT, said with what to do: iface runs no bloomwall program. */
int bw_status_not_attached(const char *iface);

#endif /* __BW_STATUS_H */
