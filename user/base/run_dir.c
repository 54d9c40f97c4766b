// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* What a running watch keeps in BW_STATE_DIR, named (run_dir.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <net/if.h>

#include "base/run_dir.h"

int bw_run_path(char *buf, size_t cap, const char *iface, enum bw_run_file f)
{
	static const char *const form[BW_RUN_NFILES] = {
		[BW_RUN_STATE] = "%s/%s.json",
		[BW_RUN_STATE_TEMP] = "%s/.%s.json.tmp",
		[BW_RUN_SOCKET] = "%s/%s.sock",
	};
	int n;

	if (!*iface || strchr(iface, '/') || iface[0] == '.' ||
	    f >= BW_RUN_NFILES)
		return -EINVAL;
	n = snprintf(buf, cap, form[f], BW_STATE_DIR, iface);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

int bw_run_dir(void)
{
	struct stat st;

	if (mkdir(BW_STATE_DIR, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(BW_STATE_DIR, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return -EPERM;
	return 0;
}

void bw_run_clear(const char *iface)
{
	char path[PATH_MAX];
	int f;

	for (f = 0; f < BW_RUN_NFILES; f++)
		if (!bw_run_path(path, sizeof(path), iface, f))
			unlink(path);
}

bool bw_iface_name_ok(const char *name)
{
	return *name && strlen(name) < IFNAMSIZ && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}
