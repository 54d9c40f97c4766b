// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The seed of a build that has none given: a crc32 of the lists' content
 * and the options, so the same input builds the same image.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/log.h"
#include "image/crc.h"
#include "image/image_seed.h"

/* Each list's bytes and length go in, so moving a line between lists counts. */
static int seed_list(const char *path, __u32 *crc)
{
	unsigned char buf[1 << 16];
	__u64 total = 0;
	ssize_t n;
	int fd;

	struct stat st;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* A pipe read here would be empty for the build. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ESPIPE;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return (int)n;
		}
		*crc = bw_crc32_more(*crc, buf, (size_t)n);
		total += (__u64)n;
	}
	close(fd);
	*crc = bw_crc32_more(*crc, &total, sizeof(total));
	return 0;
}

static int seed_lists(const char *const *lists, int n, __u32 *crc)
{
	int i, err;

	for (i = 0; i < n; i++) {
		if (!strcmp(lists[i], "-")) {
			pr_warn("bloomwall build: a list on standard input cannot be read twice to derive the seed from it; give --seed\n");
			return -EINVAL;
		}
		err = seed_list(lists[i], crc);
		if (err == -ESPIPE)
			pr_warn("%s: not a regular file, which cannot be read twice to derive the seed from it; give --seed\n",
				lists[i]);
		else if (err)
			pr_warn("%s: cannot read: %s\n", lists[i],
				strerror(-err));
		if (err)
			return err;
	}
	return 0;
}

int bw_image_seed(const char *const *lists, int n, const char *const *allow,
		  int nallow, const void *opts, size_t optlen, __u32 *seed)
{
	static const char tag[] = "bloomwall image seed 1";
	static const char allow_tag[] = "--allow";
	__u32 crc = bw_crc32(tag, sizeof(tag));
	int err;

	err = seed_lists(lists, n, &crc);
	/* Without --allow files the seed stays what format 1 derived. */
	if (!err && nallow) {
		crc = bw_crc32_more(crc, allow_tag, sizeof(allow_tag));
		err = seed_lists(allow, nallow, &crc);
	}
	if (err)
		return err;
	*seed = bw_crc32_more(crc, opts, optlen);
	return 0;
}
