/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * An image's serial and time (its BW_REC_IMAGE record, bw_layout.h) and
 * the rollback rule: an image older than the one that runs is refused
 * unless the operator says otherwise. No bpf().
 *
 * The serial is --serial N, else the newest mtime among the lists and
 * --allow files, in microseconds: a list written later, even in the same
 * second, gives a higher serial, the same files give the same serial (and
 * so the same image bytes). The time is SOURCE_DATE_EPOCH (the
 * reproducible-builds convention) when set, else that same newest mtime:
 * not the wall clock, which would make every build of the same lists
 * another image. Older is by serial: a lower serial than the running
 * filter's is a rollback; an equal one is the same image again, or it is
 * refused when its bytes are not those of the image that runs (two builds
 * with one serial would otherwise replace each other back and forth); an
 * image without a serial (an older bloomwall's) counts as serial 0. A
 * running filter that did not come from an image (attach, reload) has no
 * serial: any image may replace it.
 */
#ifndef __BW_IMAGE_SERIAL_H
#define __BW_IMAGE_SERIAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "filter/records.h"
#include "image/image.h"

/* A rollback refused (no other layer returns EDOM; ESTALE is the hook's). */
#define BW_EROLLBACK EDOM

/*
 * The record a build writes for its input files (lists and --allow files;
 * "-" and other files that are not regular give no mtime): serial as
 * given (serial_set) or derived, time as above, signer and flags zero.
 * *derived_from says whether any file gave an mtime (false: serial 0
 * unless given, time now).
 */
void bw_image_rec_make(const char *const *files, int n, bool serial_set,
		       __u64 serial, struct bw_rec_image *out,
		       bool *derived_from);

/* The record of a checked image: 0, -ENOENT when it has none, -ENOMEM. */
int bw_image_rec_read(const struct bw_image *img, struct bw_rec_image *out);

/*
 * Whether an image whose record is img (NULL: none, serial 0) and whose
 * bytes hash to hash (bw_prov_hash; NULL: unknown) may replace the filter
 * whose records are running (their origin's image hash: what runs): 0,
 * or -BW_EROLLBACK with why saying both serials and times, or that an
 * equal serial holds other bytes.
 */
int bw_image_rollback_check(const struct bw_rec_image *img, const __u8 *hash,
			    const struct bw_records *running, char *why,
			    size_t errlen);

/*
 * The records of a filter loaded from an image: its record says who
 * signed the image (sig), and whether that was checked against a trusted
 * key. Nothing for an image without a record.
 */
void bw_image_rec_stamp(struct bw_records *rec, const struct bw_image_sig *sig);

/* "2026-12-02 03:40:12 UTC" of ns since the epoch, into buf. */
const char *bw_image_time_str(__u64 ns, char *buf, size_t len);

#endif /* __BW_IMAGE_SERIAL_H */
