// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Serials, times and the rollback rule of images (image_serial.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "image/image_serial.h"
#include "image/sign_key.h"
#include "filter/records_read.h"

/* SOURCE_DATE_EPOCH in ns when set to a number of seconds, else 0. */
static __u64 source_date_epoch(void)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	unsigned long long v;
	char *end;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > 18446744073ULL)
		return 0;
	return (__u64)v * 1000000000ULL;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

void bw_image_rec_make(const char *const *files, int n, bool serial_set,
		       __u64 serial, struct bw_rec_image *out,
		       bool *derived_from)
{
	__u64 newest = 0, t;
	struct stat st;
	int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		if (!strcmp(files[i], "-") || stat(files[i], &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		t = (__u64)st.st_mtim.tv_sec * 1000000000ULL +
		    (__u64)st.st_mtim.tv_nsec;
		if (t > newest)
			newest = t;
	}
	*derived_from = newest != 0;
	/* Microseconds: exact in a float64 (a metric), finer than builds. */
	out->serial = serial_set ? serial : newest / 1000ULL;
	out->time_ns = source_date_epoch() ?: newest ?: now_ns();
}

int bw_image_rec_read(const struct bw_image *img, struct bw_rec_image *out)
{
	struct bw_records rec;
	int err;

	err = bw_records_read(img->filter, img->nblocks, &rec);
	if (err)
		return err;
	err = rec.have_image ? 0 : -ENOENT;
	if (!err)
		*out = rec.image;
	bw_records_free(&rec);
	return err;
}

const char *bw_image_time_str(__u64 ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
}

/* Whether the running filter came from another image than one of hash. */
static bool other_content(const __u8 *hash, const struct bw_records *running)
{
	static const __u8 none[sizeof(running->origin.image_hash)];
	const __u8 *run = running->origin.image_hash;

	return hash && running->have_origin &&
	       memcmp(run, none, sizeof(none)) &&
	       memcmp(run, hash, sizeof(none));
}

int bw_image_rollback_check(const struct bw_rec_image *img, const __u8 *hash,
			    const struct bw_records *running, char *why,
			    size_t errlen)
{
	const struct bw_rec_image *run = &running->image;
	char t1[64], t2[64];

	if (!running->have_image || (img && img->serial > run->serial))
		return 0;
	if (img && img->serial == run->serial) {
		if (!other_content(hash, running))
			return 0; /* the same image again */
		snprintf(
			why, errlen,
			"serial %llu (of %s) is the running filter's, and the image is not the one that runs (its bytes differ): two builds got the same serial; give the new one a higher --serial (--allow-rollback takes it)",
			(unsigned long long)img->serial,
			bw_image_time_str(img->time_ns, t1, sizeof(t1)));
		return -BW_EROLLBACK;
	}
	if (!img)
		snprintf(
			why, errlen,
			"a rollback: the image has no serial (an older bloomwall built it), the running filter's image has serial %llu (of %s); --allow-rollback takes it",
			(unsigned long long)run->serial,
			bw_image_time_str(run->time_ns, t2, sizeof(t2)));
	else
		snprintf(
			why, errlen,
			"a rollback: serial %llu (of %s) is older than the running filter's %llu (of %s); --allow-rollback takes it",
			(unsigned long long)img->serial,
			bw_image_time_str(img->time_ns, t1, sizeof(t1)),
			(unsigned long long)run->serial,
			bw_image_time_str(run->time_ns, t2, sizeof(t2)));
	return -BW_EROLLBACK;
}

void bw_image_rec_stamp(struct bw_records *rec, const struct bw_image_sig *sig)
{
	struct bw_rec_image *r = &rec->image;

	if (!rec->have_image)
		return;
	memset(r->signer, 0, sizeof(r->signer));
	r->flags = 0;
	if (!sig->present)
		return;
	memcpy(r->signer, sig->key_id, sizeof(r->signer));
	r->flags = BW_REC_IMAGE_SIGNED |
		   (sig->verified ? BW_REC_IMAGE_VERIFIED : 0);
}
