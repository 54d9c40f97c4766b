// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Filter images in plain memory and in files (image.h): encoding, the
 * checks a reader makes before it trusts one, the atomic write, the seed
 * derived from the lists. No bpf().
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "filter/bloom.h"
#include "filter/records.h"
#include "image/crc.h"
#include "image/image.h"
#include "image/image_sec.h"

/* crc32 of an image with its crc field taken as zero. */
static __u32 image_crc(const void *buf, size_t len)
{
	struct bw_image_hdr h;
	__u32 crc;

	memcpy(&h, buf, sizeof(h));
	h.crc = 0;
	crc = bw_crc32(&h, sizeof(h));
	return bw_crc32_more(crc, (const char *)buf + sizeof(h),
			     len - sizeof(h));
}

int bw_image_encode(const void *mem, __u32 nblocks, void **out, size_t *len)
{
	return bw_image_encode_lists(mem, nblocks, NULL, out, len);
}

int bw_image_encode_lists(const void *mem, __u32 nblocks,
			  const struct bw_image_lists *ls, void **out,
			  size_t *len)
{
	size_t fbytes = (size_t)nblocks * BW_BLOCK_BYTES, off;
	__u32 present = ls ? ls->present & BW_IMAGE_S_ALL : 0;
	struct bw_image_hdr *h;
	int i;

	*len = sizeof(*h) + fbytes;
	for (i = 0; i < BW_IMAGE_NSEC; i++)
		if (present & (1U << i))
			*len += bw_image_sec_bytes(&ls->l[i]);
	*out = calloc(1, *len);
	if (!*out)
		return -ENOMEM;
	h = *out;
	memcpy(h->magic, BW_IMAGE_MAGIC, sizeof(h->magic));
	h->bom = BW_IMAGE_BOM;
	h->version = BW_IMAGE_VERSION;
	h->hdr_bytes = sizeof(*h);
	/* The filter's own: a format 2 filter stays one in its image. */
	h->filter_version = ((const struct bw_hdr *)mem)->version;
	h->nblocks = nblocks;
	h->filter_bytes = fbytes;
	h->image_bytes = *len;
	h->flags = present;
	memcpy((char *)*out + sizeof(*h), mem, fbytes);
	off = sizeof(*h) + fbytes;
	for (i = 0; i < BW_IMAGE_NSEC; i++)
		if (present & (1U << i))
			off += bw_image_sec_put((char *)*out + off, i,
						&ls->l[i]);
	h->crc = image_crc(*out, *len);
	return 0;
}

static int why_set(char *why, size_t errlen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int why_set(char *why, size_t errlen, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, errlen, fmt, ap);
	va_end(ap);
	return err;
}

static bool all_zero(const __u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* The header's own fields, before the crc is worth computing. */
static int check_hdr(const struct bw_image_hdr *h, size_t len, char *why,
		     size_t errlen)
{
	if (h->bom == __builtin_bswap32(BW_IMAGE_BOM))
		return why_set(
			why, errlen, -EPROTO,
			"written on a host of the other byte order (its byte-order mark reads 0x%08x here); build it on a host of this one",
			h->bom);
	if (h->bom != BW_IMAGE_BOM)
		return why_set(why, errlen, -EINVAL,
			       "corrupt header: byte-order mark 0x%08x",
			       h->bom);
	if (h->version < BW_IMAGE_VERSION_MIN || h->version > BW_IMAGE_VERSION)
		return why_set(
			why, errlen, -EPROTO,
			"image format version %u; this bloomwall reads versions %u to %u",
			h->version, BW_IMAGE_VERSION_MIN, BW_IMAGE_VERSION);
	if (h->hdr_bytes != sizeof(*h))
		return why_set(why, errlen, -EINVAL,
			       "corrupt header: header size %u, not %zu",
			       h->hdr_bytes, sizeof(*h));
	if (h->image_bytes > len)
		return why_set(
			why, errlen, -EINVAL,
			"truncated: %zu bytes of the %llu its header says", len,
			(unsigned long long)h->image_bytes);
	if (h->image_bytes < len)
		return why_set(
			why, errlen, -EINVAL,
			"%zu bytes where its header says %llu: data after the image",
			len, (unsigned long long)h->image_bytes);
	/* Format 1 has no sections: its filter ends the file. */
	if (h->nblocks < BW_HDR_BLOCKS || h->nblocks > BW_MAX_BLOCKS ||
	    h->filter_bytes != (__u64)h->nblocks * BW_BLOCK_BYTES ||
	    h->image_bytes < sizeof(*h) + h->filter_bytes ||
	    (h->version == 1 && h->image_bytes != sizeof(*h) + h->filter_bytes))
		return why_set(
			why, errlen, -EINVAL,
			"corrupt header: %u blocks, %llu filter bytes, %llu image bytes do not agree",
			h->nblocks, (unsigned long long)h->filter_bytes,
			(unsigned long long)h->image_bytes);
	return 0;
}

/*
 * The filter's flags and the sections agree: verify mode has its exact
 * set (and only verify mode), an allowlist flag its allowlist, a name
 * allowlist flag the entries for it.
 */
static int check_agree(const struct bw_image_hdr *h, const struct bw_hdr *fh,
		       const void *mem, char *why, size_t errlen)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(mem);
	bool exact = h->flags & (1U << BW_IMAGE_EXACT);

	if (!(fh->flags & BW_F_VERIFY) != !exact)
		return why_set(
			why, errlen, -EINVAL,
			exact ? "carries an exact prefix set, but its filter is not in verify mode"
			      : "the filter asks for verify mode, but the image carries no exact prefix set");
	if ((fh->flags & BW_F_ALLOW) && !(h->flags & (1U << BW_IMAGE_ALLOW)))
		return why_set(
			why, errlen, -EINVAL,
			"the filter asks for an allowlist, but the image carries none");
	if (dns && (dns->flags & BW_DNS_F_ALLOW) &&
	    !(h->flags & (1U << BW_IMAGE_ALLOW | 1U << BW_IMAGE_NAMES)))
		return why_set(
			why, errlen, -EINVAL,
			"the filter asks for a name allowlist, but the image carries no allow entries");
	return 0;
}

/* The filter inside, once the crc says it is what was written. */
static int check_filter(const struct bw_image_hdr *h, void *mem, char *why,
			size_t errlen)
{
	const struct bw_hdr *fh = mem;
	struct bw_records rec;
	int err;

	if ((h->flags & ~BW_IMAGE_S_ALL) || (h->version == 1 && h->flags) ||
	    !all_zero(h->pad, sizeof(h->pad)))
		return why_set(
			why, errlen, -EPROTO,
			"has sections this bloomwall does not know (flags 0x%x)",
			h->flags);
	/* Every filter format from BW_VERSION_MIN on loads: the data path reads each. */
	if (h->filter_version < BW_VERSION_MIN ||
	    h->filter_version > BW_VERSION || fh->version != h->filter_version)
		return why_set(
			why, errlen, -EPROTO,
			"holds a filter of format version %u; this bloomwall reads %u to %u",
			h->filter_version, BW_VERSION_MIN, BW_VERSION);
	if (bw_filter_check(mem, h->nblocks))
		return why_set(
			why, errlen, -EINVAL,
			"the filter inside is not valid (header, or regions past its %u blocks)",
			h->nblocks);
	err = check_agree(h, fh, mem, why, errlen);
	if (err)
		return err;
	if (bw_records_read(mem, h->nblocks, &rec))
		return why_set(
			why, errlen, -EINVAL,
			"the record area after the regions is malformed");
	bw_records_free(&rec);
	return 0;
}

int bw_image_check(void *buf, size_t len, struct bw_image *img, char *why,
		   size_t errlen)
{
	const struct bw_image_hdr *h = buf;
	__u32 crc;
	int err;

	memset(img, 0, sizeof(*img));
	if (len < sizeof(h->magic) ||
	    memcmp(h->magic, BW_IMAGE_MAGIC, sizeof(h->magic)))
		return why_set(
			why, errlen, -EINVAL,
			len < sizeof(h->magic)
				? "truncated: %zu bytes, not even a magic"
				: "not a bloomwall image (no magic; %zu bytes)",
			len);
	if (len < sizeof(*h))
		return why_set(
			why, errlen, -EINVAL,
			"truncated: %zu bytes, shorter than the %zu-byte header",
			len, sizeof(*h));
	err = check_hdr(h, len, why, errlen);
	if (err)
		return err;
	crc = image_crc(buf, len);
	if (crc != h->crc)
		return why_set(
			why, errlen, -EINVAL,
			"corrupted: crc32 0x%08x, its header says 0x%08x", crc,
			h->crc);
	err = check_filter(h, (char *)buf + sizeof(*h), why, errlen);
	if (!err)
		err = bw_image_sec_check(buf, len, sizeof(*h) + h->filter_bytes,
					 h->flags, img->sec, why, errlen);
	if (err) {
		memset(img, 0, sizeof(*img));
		return err;
	}
	img->buf = buf;
	img->len = len;
	img->hdr = h;
	img->filter = (char *)buf + sizeof(*h);
	img->nblocks = h->nblocks;
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The directory path is in, for the temporary file and its fsync. */
static char *dir_of(const char *path)
{
	char *copy = strdup(path), *d;

	if (!copy)
		return NULL;
	d = strdup(dirname(copy));
	free(copy);
	return d;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

int bw_image_write_file(const char *path, const void *buf, size_t len)
{
	char *dir = dir_of(path), *tmp = NULL;
	mode_t mask;
	int fd = -1, err = -ENOMEM;

	if (dir && asprintf(&tmp, "%s/.bloomwall-image.XXXXXX", dir) < 0)
		tmp = NULL;
	if (!tmp)
		goto out;
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		pr_warn("%s: cannot create a temporary file in %s: %s\n", path,
			dir, strerror(-err));
		goto out;
	}
	mask = umask(0);
	umask(mask);
	err = fchmod(fd, 0666 & ~mask) ? -errno : 0;
	err = err ?: write_all(fd, buf, len);
	if (!err && fsync(fd))
		err = -errno;
	if (!err && close(fd))
		err = -errno;
	fd = -1;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		pr_warn("%s: cannot write the image: %s\n", path,
			strerror(-err));
		unlink(tmp);
		goto out;
	}
	err = sync_dir(dir);
	if (err)
		pr_warn("%s: written, but the directory's fsync failed: %s\n",
			path, strerror(-err));
out:
	if (err == -ENOMEM)
		pr_warn("%s: out of memory\n", path);
	if (fd >= 0)
		close(fd);
	free(tmp);
	free(dir);
	return err;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO; /* shrank while read */
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int bw_image_read_file(const char *path, struct bw_image *img)
{
	char why[256];
	struct stat st;
	void *buf = NULL;
	int fd, err;

	memset(img, 0, sizeof(*img));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pr_warn("%s: cannot open the image: %s\n", path,
			strerror(-err));
		return err;
	}
	err = fstat(fd, &st) ? -errno : 0;
	if (!err && !S_ISREG(st.st_mode))
		err = -EINVAL;
	if (!err &&
	    (__u64)st.st_size > sizeof(struct bw_image_hdr) +
					(__u64)BW_MAX_BLOCKS * BW_BLOCK_BYTES +
					BW_IMAGE_SEC_MAX)
		err = -EFBIG;
	if (!err) {
		buf = malloc(st.st_size ?: 1);
		err = buf ? read_all(fd, buf, st.st_size) : -ENOMEM;
	}
	close(fd);
	if (err) {
		pr_warn("%s: cannot read the image: %s\n", path,
			err == -EINVAL	? "not a regular file"
			: err == -EFBIG ? "larger than any image"
					: strerror(-err));
		free(buf);
		return err;
	}
	err = bw_image_check(buf, st.st_size, img, why, sizeof(why));
	if (err) {
		pr_warn("%s: refused: %s\n", path, why);
		free(buf);
	}
	return err;
}

void bw_image_free(struct bw_image *img)
{
	free(img->buf);
	memset(img, 0, sizeof(*img));
}

int bw_image_lists_read(const struct bw_image *img, struct bw_image_lists *ls)
{
	int i, err;

	bw_image_lists_init(ls);
	for (i = 0; i < BW_IMAGE_NSEC; i++) {
		if (!img->sec[i])
			continue;
		err = bw_image_sec_read(img->sec[i], &ls->l[i]);
		if (err) {
			bw_image_lists_free(ls);
			return err;
		}
		ls->present |= 1U << i;
	}
	return 0;
}
