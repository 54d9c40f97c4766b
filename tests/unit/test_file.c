// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Files the CLI trusts (user/base/file.c, bw_file_trusted): real files and
 * directories with the modes and owners that let another user change a
 * key, each refused naming the path at fault and its fix; a root-owned
 * sticky directory (/tmp) let through, one of another user's not; a
 * symbolic link judged by where it leads; a secret open to others refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "test_helpers.h"

/* The uid that owns what "another user" owns here (nobody's). */
#define OTHER_UID 65534

static char why[PATH_MAX + 256];

/* bw_file_trusted() of path opened as the CLI opens it; why filled. */
static int trusted(const char *path, bool secret)
{
	struct stat st;
	int fd, err;

	why[0] = '\0';
	fd = bw_open_regular(path, "public key file", &st);
	if (fd < 0)
		return fd;
	err = bw_file_trusted(fd, path,
			      secret ? "secret key file" : "public key file",
			      secret, why, sizeof(why));
	close(fd);
	return err;
}

static void put(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, "x\n", 2) != 2)
		abort();
	if (fchmod(fd, mode))
		abort();
	close(fd);
}

BW_TEST(test_file_trusted_modes)
{
	char dir[64], sub[80], f[96], g[112], link[112], want[512];

	strcpy(dir, "/tmp/bw-trust.XXXXXX");
	if (!ASSERT_OK_PTR(mkdtemp(dir), "a directory"))
		return;
	snprintf(f, sizeof(f), "%s/k.pub", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(g, sizeof(g), "%s/k.pub", sub);
	snprintf(link, sizeof(link), "%s/link.pub", dir);

	/* Root's, 0644, in a 0700 directory under /tmp (1777, root's). */
	put(f, 0644);
	ASSERT_OK(trusted(f, false), "0644 in a 0700 directory");
	chmod(dir, 0755);
	ASSERT_OK(trusted(f, false), "0644 in a 0755 directory");

	/* The file itself writable by others, or by its group. */
	chmod(f, 0666);
	ASSERT_EQ(trusted(f, false), -EPERM, "a 0666 key file");
	snprintf(
		want, sizeof(want),
		"the public key file is writable by group and others (mode 0666): another user could change it (chmod go-w %s)",
		f);
	ASSERT_STREQ(why, want, "names the file and the fix");
	chmod(f, 0620);
	ASSERT_EQ(trusted(f, false), -EPERM, "a 0620 key file");
	ASSERT_STRSTR(why, "writable by its group (mode 0620)", "its group");
	chmod(f, 0602);
	ASSERT_EQ(trusted(f, false), -EPERM, "a 0602 key file");
	ASSERT_STRSTR(why, "writable by others (mode 0602)", "others");
	chmod(f, 0644);

	/* A directory on its path writable by others: that one is named. */
	chmod(dir, 0777);
	ASSERT_EQ(trusted(f, false), -EPERM, "in a 0777 directory");
	snprintf(
		want, sizeof(want),
		"the directory %s above it is writable by group and others (mode 0777): another user could replace the public key file (chmod go-w %s)",
		dir, dir);
	ASSERT_STREQ(why, want, "names the directory and the fix");
	/* Sticky and root's, as /tmp: nobody else renames root's entries. */
	chmod(dir, 01777);
	ASSERT_OK(trusted(f, false), "a root-owned sticky directory");
	chmod(dir, 0700);
	if (!ASSERT_OK(mkdir(sub, 0770), "a subdirectory"))
		goto out;
	chmod(sub, 0770);
	put(g, 0644);
	ASSERT_EQ(trusted(g, false), -EPERM, "two levels down, group-writable");
	ASSERT_STRSTR(why, sub, "the subdirectory named");
	ASSERT_STRSTR(why, "writable by its group (mode 0770)", "its mode");

	/* A symbolic link is judged where it leads, and the other way. */
	if (!ASSERT_OK(symlink(g, link), "a link"))
		goto out;
	ASSERT_EQ(trusted(link, false), -EPERM, "a link into a bad directory");
	ASSERT_STRSTR(why, sub, "the directory it leads into named");
	chmod(sub, 0755);
	ASSERT_OK(trusted(link, false), "a link into a good directory");

	/* A secret: readable by group or others is refused as well. */
	chmod(f, 0640);
	ASSERT_EQ(trusted(f, true), -EPERM, "a 0640 secret");
	snprintf(
		want, sizeof(want),
		"the secret key file is open to group or others (mode 0640): chmod 600 %s",
		f);
	ASSERT_STREQ(why, want, "chmod 600");
	chmod(f, 0600);
	ASSERT_OK(trusted(f, true), "a 0600 secret");
	chmod(f, 0400);
	ASSERT_OK(trusted(f, true), "a 0400 secret");
	chmod(f, 0644);
	ASSERT_OK(trusted(f, false), "0644 is fine for a public key");

	/* Owned by another user: the file, a directory, a sticky one. */
	if (geteuid()) {
		TEST_SKIP("chown needs root");
		goto out;
	}
	ASSERT_OK(chown(f, OTHER_UID, OTHER_UID), "chown the file");
	ASSERT_EQ(trusted(f, false), -EPERM, "another user's file");
	snprintf(
		want, sizeof(want),
		"the public key file is owned by uid %u, not by root or the caller: that user could change it (chown root %s)",
		OTHER_UID, f);
	ASSERT_STREQ(why, want, "names the owner and the fix");
	ASSERT_OK(chown(f, 0, 0), "chown back");
	ASSERT_OK(chown(sub, OTHER_UID, OTHER_UID), "chown the subdirectory");
	ASSERT_EQ(trusted(g, false), -EPERM, "in another user's directory");
	snprintf(
		want, sizeof(want),
		"the directory %s above it is owned by uid %u, not by root or the caller: that user could replace the public key file (chown root %s)",
		sub, OTHER_UID, sub);
	ASSERT_STREQ(why, want, "names the directory's owner and the fix");
	chmod(sub, 01777);
	ASSERT_EQ(trusted(g, false), -EPERM, "another user's sticky directory");
	ASSERT_OK(chown(sub, 0, 0), "chown back");
	chmod(sub, 01777);
	ASSERT_OK(trusted(g, false), "root's sticky directory");
out:
	unlink(link);
	unlink(g);
	rmdir(sub);
	unlink(f);
	rmdir(dir);
}
