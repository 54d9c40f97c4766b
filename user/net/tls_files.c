// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * TLS files judged as the trusted keys are (tls_files.h).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/log.h"
#include "net/tls_files.h"

/* A PEM file larger than this holds no key bloomwall would look for. */
#define PEM_MAX (1 << 20)

/* Whether the PEM file fd (size bytes) holds a private key. */
static bool holds_key(int fd, off_t size)
{
	static const char tag[] = "PRIVATE KEY-----";
	size_t len = size < PEM_MAX ? (size_t)size : PEM_MAX;
	bool found = false;
	ssize_t n;
	char *buf;

	buf = malloc(len + 1);
	if (!buf)
		return true; /* judged as the stricter kind */
	n = pread(fd, buf, len, 0);
	if (n > 0)
		found = memmem(buf, n, tag, sizeof(tag) - 1);
	free(buf);
	return found;
}

static int one(const char *path, const char *opt, const char *what, bool secret)
{
	char why[PATH_MAX + 256];
	struct stat st;
	int fd, err;

	if (!path)
		return 0;
	fd = bw_open_regular(path, what, &st);
	if (fd < 0)
		return fd;
	/* A certificate without --*-key may carry its key, as libcurl reads it. */
	if (secret && strstr(what, "certificate"))
		secret = holds_key(fd, st.st_size);
	err = bw_file_trusted(fd, path, what, secret, why, sizeof(why));
	close(fd);
	if (err)
		pr_warn("bloomwall watch: %s %s: refused: %s\n", opt, path,
			why);
	return err;
}

int bw_tls_files_trusted(const char *ca, const char *ca_opt, const char *cert,
			 const char *cert_opt, const char *key,
			 const char *key_opt)
{
	return one(ca, ca_opt, "CA file", false)
		       ?: one(cert, cert_opt,
			      key ? "client certificate" :
				    "client certificate and key file",
			      !key)
		       ?: one(key, key_opt, "client key file", true);
}
