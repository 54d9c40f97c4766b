// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The state file a running watch publishes (daemon_state.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "base/run_dir.h"
#include "ops/daemon_state.h"

/* A state file is small; a larger one is not ours. */
#define STATE_MAX (1U << 20)

int bw_dstate_write(const char *iface, struct json_object *root)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	const char *s;
	int fd, err;
	size_t len;

	err = bw_run_path(path, sizeof(path), iface, BW_RUN_STATE);
	if (!err)
		err = bw_run_path(tmp, sizeof(tmp), iface, BW_RUN_STATE_TEMP);
	if (!err)
		err = bw_run_dir();
	if (err)
		return err;
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	len = strlen(s);
	/* One writer, the watch holding the lock: a temporary of one name,
	 * so a killed watch leaves at most it (detach clears it). */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -errno;
	if (write(fd, s, len) != (ssize_t)len || write(fd, "\n", 1) != 1)
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int read_all(const char *path, char **out)
{
	struct stat st;
	int fd = bw_open_regular(path, "state file", &st);
	char *buf;
	ssize_t n;

	if (fd < 0)
		return fd;
	if (st.st_size > STATE_MAX) {
		close(fd);
		return -EINVAL;
	}
	buf = malloc(st.st_size + 1);
	n = buf ? read(fd, buf, st.st_size) : -1;
	close(fd);
	if (n < 0) {
		free(buf);
		return -ENOMEM;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

int bw_dstate_read(const char *iface, struct json_object **root)
{
	struct json_object *pid;
	char path[PATH_MAX];
	char *buf = NULL;
	int err;

	*root = NULL;
	err = bw_run_path(path, sizeof(path), iface, BW_RUN_STATE);
	if (err)
		return err;
	if (access(path, F_OK))
		return -errno;
	err = read_all(path, &buf);
	if (err)
		return err;
	*root = json_tokener_parse(buf);
	free(buf);
	if (!*root || !json_object_is_type(*root, json_type_object)) {
		json_object_put(*root);
		*root = NULL;
		return -EINVAL;
	}
	if (!json_object_object_get_ex(*root, "pid", &pid) ||
	    kill((pid_t)json_object_get_int64(pid), 0))
		return -ESRCH;
	return 0;
}

void bw_dstate_remove(const char *iface)
{
	char path[PATH_MAX];

	if (!bw_run_path(path, sizeof(path), iface, BW_RUN_STATE))
		unlink(path);
	if (!bw_run_path(path, sizeof(path), iface, BW_RUN_STATE_TEMP))
		unlink(path);
}
