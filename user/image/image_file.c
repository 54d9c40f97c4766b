// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Images in files (image_file.h): the atomic write, and the read that
 * checks the header before it reads more, then the signature, then the
 * rest (image.c, image_sign.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/log.h"
#include "image/image.h"
#include "image/image_file.h"
#include "image/image_sign.h"

int bw_image_write_file(const char *path, const void *buf, size_t len)
{
	char *dir = bw_dir_of(path), *tmp = NULL;
	mode_t mask;
	int fd = -1, err;

	err = bw_check_replaceable(path, "image");
	if (err) {
		free(dir);
		return err;
	}
	err = -ENOMEM;
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
	err = err ?: bw_write_all(fd, buf, len);
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
	err = bw_fsync_dir(dir);
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

static int pread_all(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = pread(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO; /* shrank while read */
		p += n;
		off += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * How many bytes to read: the header's image_bytes once the header alone
 * checks out against the file's size, so that no byte past a bad header
 * is read, nor more than an image may hold. A file shorter than a header
 * is read whole (a few bytes) for bw_image_check to say what it is.
 */
static int image_size(int fd, const char *path, __u64 size, size_t *len)
{
	struct bw_image_hdr h;
	char why[256];
	int err;

	*len = size;
	if (size < sizeof(h))
		return 0;
	err = pread_all(fd, &h, sizeof(h), 0);
	if (err) {
		pr_warn("%s: cannot read the image: %s\n", path,
			strerror(-err));
		return err;
	}
	err = bw_image_check_hdr(&h, size, why, sizeof(why));
	if (err)
		pr_warn("%s: refused: %s\n", path, why);
	return err;
}

int bw_image_read_file(const char *path, struct bw_image *img)
{
	return bw_image_read_file_keys(path, NULL, img);
}

int bw_image_read_file_keys(const char *path, const struct bw_verify_keys *keys,
			    struct bw_image *img)
{
	char why[256];
	struct stat st;
	void *buf = NULL;
	size_t len = 0;
	int fd, err;

	memset(img, 0, sizeof(*img));
	fd = bw_open_regular(path, "image", &st);
	if (fd < 0)
		return fd;
	err = image_size(fd, path, (__u64)st.st_size, &len);
	if (!err) {
		buf = malloc(len ?: 1);
		err = buf ? pread_all(fd, buf, len, 0) : -ENOMEM;
		if (err)
			pr_warn("%s: cannot read the image: %s\n", path,
				strerror(-err));
	}
	close(fd);
	if (!err) {
		err = bw_image_check_keys(buf, len, keys, img, why,
					  sizeof(why));
		if (err)
			pr_warn("%s: refused: %s\n", path, why);
	}
	if (err)
		free(buf);
	return err;
}
