// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The bouncer's key file (crowdsec_key.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/log.h"
#include "daemon/crowdsec_key.h"

static int refuse(const char *path, const char *why)
{
	pr_warn("bloomwall watch: --crowdsec-key-file %s refused: %s\n", path,
		why);
	return -EPERM;
}

/* One line of printable ASCII, its newline cut. */
static int check_text(const char *path, char *buf, ssize_t n)
{
	ssize_t i;

	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	if (!n)
		return refuse(path, "it is empty");
	for (i = 0; i < n; i++)
		if (buf[i] <= ' ' || buf[i] > '~')
			return refuse(
				path,
				"it holds more than one line of printable text without blanks (the key alone, as 'cscli bouncers add NAME -o raw' prints it)");
	return 0;
}

int bw_cs_key_read(const char *path, char *buf, size_t cap)
{
	char why[PATH_MAX + 256];
	struct stat st;
	ssize_t n;
	int fd, err;

	fd = bw_open_regular(path, "API key file", &st);
	if (fd < 0)
		return fd;
	err = bw_file_trusted(fd, path, "API key file", true, why, sizeof(why));
	n = err ? 0 : read(fd, buf, cap - 1);
	close(fd);
	if (err)
		return refuse(path, why);
	if (n < 0) {
		pr_warn("bloomwall watch: --crowdsec-key-file %s: %s\n", path,
			strerror(errno));
		return -EIO;
	}
	if ((size_t)n == cap - 1)
		return refuse(path, "longer than a key");
	return check_text(path, buf, n);
}
