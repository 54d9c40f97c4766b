// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * What a command waiting for the lock says about its holder: the holder's
 * pid found in /proc/locks text, its command line made one printable line.
 */
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "kernel/lock.h"
#include "test_helpers.h"

/* As /proc/locks shows them: a POSIX lock, a waiter, then the holder. */
static const char locks[] = "1: POSIX  ADVISORY  WRITE 700 00:2a:42 0 EOF\n"
			    "2: FLOCK  ADVISORY  WRITE 900 fe:01:42 0 EOF\n"
			    "3: FLOCK  ADVISORY  WRITE 123 00:2a:42 0 EOF\n"
			    "3: -> FLOCK  ADVISORY  WRITE 456 00:2a:42 0 EOF\n"
			    "4: FLOCK  ADVISORY  WRITE 0 00:2a:43 0 EOF\n";

static pid_t holder(dev_t dev, ino_t ino)
{
	FILE *f = fmemopen((void *)locks, sizeof(locks) - 1, "r");
	pid_t pid;

	if (!f)
		return -1;
	pid = bw_locks_holder(f, dev, ino);
	fclose(f);
	return pid;
}

BW_TEST(test_lock_holder)
{
	ASSERT_EQ(holder(makedev(0, 0x2a), 42), 123,
		  "the flock's holder, not the POSIX lock's nor the waiter's");
	ASSERT_EQ(holder(makedev(0xfe, 1), 42), 900, "device numbers in hex");
	ASSERT_EQ(holder(makedev(0, 0x2a), 44), 0, "no lock on that inode");
	ASSERT_EQ(holder(makedev(0, 0x2a), 43), 0,
		  "a holder in a pid namespace we do not see");
}

static void cmdline(char *buf, size_t len, const char *raw, size_t n)
{
	memset(buf, 'X', len);
	bw_cmdline_text(buf, len, raw, n);
}

BW_TEST(test_lock_cmdline)
{
	static const char run[] = "/usr/sbin/bloomwall\0reload\0eth0\0a.txt";
	static const char esc[] = "bloomwall\0add\0e\033[2J\0";
	char buf[64];

	cmdline(buf, sizeof(buf), run, sizeof(run));
	ASSERT_STREQ(buf, "bloomwall reload eth0 a.txt",
		     "argv[0] without its directory, arguments spaced");
	cmdline(buf, sizeof(buf), esc, sizeof(esc));
	ASSERT_STREQ(buf, "bloomwall add e\\x1b[2J",
		     "control bytes escaped, trailing NULs dropped");
	cmdline(buf, 15, run, sizeof(run));
	ASSERT_STREQ(buf, "bloomwall relo", "cut to fit, terminated");
	cmdline(buf, 12, esc, sizeof(esc));
	ASSERT_STREQ(buf, "bloomwall a", "cut before a whole escape");
	cmdline(buf, 17, esc, sizeof(esc));
	ASSERT_STREQ(buf, "bloomwall add e", "an escape is never cut");
	cmdline(buf, sizeof(buf), "", 0);
	ASSERT_STREQ(buf, "", "nothing read");
}
