/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * bloomwall load's build step: an image's filter staged for reload's swap.
 */
#ifndef __BW_IMAGE_LOAD_H
#define __BW_IMAGE_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "kernel/swap.h"

struct bw_image;
struct bw_records;

/* What the new filter of an image is to be. */
struct bw_image_stage_req {
	const char *iface;
	const struct bw_image *img;
	const char *path; /* the image's file, for its records */
	__u8 origin;	  /* enum bw_origin; 0: BW_ORIGIN_LOAD */
	bool allow;	  /* the program reads its allowlist */
	bool allow_names; /* and its name allowlist */
	__u8 exact_slot;
	__u64 generation;
	/* Take an image older than the running filter's (image_serial.h). */
	bool allow_rollback;
	/* The kept adds go in the records only (bw_reload_req.adds_live). */
	bool adds_live;
};

/*
 * bloomwall load: a new filter map holding st->img's filter, numbered
 * st->generation, reading the allowlist if st->allow (the name allowlist
 * if st->allow_names), its exact slot st->exact_slot, with the entries kept from
 * 'bloomwall add' set in it and recorded (those it has no region for are
 * taken out of kept, said, and counted in *left_out); prints one line.
 * kept holds the running filter's records: an image older than the one
 * that runs (by serial) is refused, -BW_EROLLBACK, unless
 * st->allow_rollback. The new filter's image record says who signed the
 * image (st->img->sig).
 * Nothing in the kernel changes: the caller commits b or closes it. On
 * failure b is closed.
 */
int bw_image_stage(const struct bw_image_stage_req *st, struct bw_records *kept,
		   size_t *left_out, struct bw_built *b);

/*
 * Whether img may replace what iface (ifindex) runs now by the rollback
 * rule (image_serial.h): 0 (also when nothing, or a filter without an
 * image record, runs), -BW_EROLLBACK with why, or -errno (said) when the
 * running filter cannot be read. Advice before a download is put in
 * place: the reload checks again under the lock (bw_image_stage).
 */
int bw_image_rollback_running(const char *iface, int ifindex,
			      const struct bw_image *img, char *why,
			      size_t errlen);

#endif /* __BW_IMAGE_LOAD_H */
