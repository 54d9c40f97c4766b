// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Lists read fail-closed (user/lists/list_load.c): a read error at any point, running
 * out of memory, a device or a socket given as a list, an endless line:
 * each fails the whole load, never passes for the end of the file. Also
 * the line bound read in bounded memory, FIFOs, IPv4-mapped entries and
 * their note, and how many skipped lines --skip-invalid prints.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bloomwall.h"
#include "lists/list.h"
#include "lists/list_load.h"
#include "lists/list_parse.h"
#include "test_helpers.h"
#include "unit.h"

static char dir[64];

/* A path in a fresh temporary directory (removed by cleanup()). */
static const char *tmp_path(const char *name)
{
	static char path[128];

	if (!dir[0]) {
		strcpy(dir, "/tmp/bwtest-read-XXXXXX");
		if (!mkdtemp(dir))
			return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void cleanup(const char *path)
{
	unlink(path);
	rmdir(dir);
	dir[0] = '\0';
}

/* bw_list_load(path) with stderr captured into *msgs. */
static int load(const char *path, bool skip, struct bw_list *l, char **msgs)
{
	struct bw_list_opts opts = { .skip_invalid = skip };
	struct bw_capture cap;
	int ret;

	bw_capture_start(&cap);
	ret = bw_list_load(l, path, &opts);
	*msgs = bw_capture_end(&cap);
	return ret;
}

/* The same from an open descriptor, named name. */
static int load_fd(int fd, const char *name, bool skip, struct bw_list *l,
		   char **msgs)
{
	struct bw_list_opts opts = { .skip_invalid = skip };
	struct bw_capture cap;
	int ret;

	bw_capture_start(&cap);
	ret = bw_list_load_fd(l, fd, name, &opts);
	*msgs = bw_capture_end(&cap);
	return ret;
}

/*
 * A process writing the given text, then n bytes of fill (no newline), then
 * tail, into the pipe p; returns its pid. It dies of SIGPIPE when the
 * reader stops early.
 */
static pid_t writer(const int p[2], const char *text, size_t n, char fill,
		    const char *tail)
{
	static char chunk[1 << 16];
	int fd = p[1];
	size_t w;
	pid_t pid;

	pid = fork();
	if (pid)
		return pid;
	close(p[0]);
	signal(SIGPIPE, SIG_DFL);
	if (write(fd, text, strlen(text)) < 0)
		_exit(1);
	memset(chunk, fill, sizeof(chunk));
	for (; n; n -= w) {
		w = n < sizeof(chunk) ? n : sizeof(chunk);
		if (write(fd, chunk, w) != (ssize_t)w)
			_exit(1);
	}
	if (write(fd, tail, strlen(tail)) < 0)
		_exit(1);
	_exit(0);
}

/*
 * A real read error in the middle of a list: /proc/self/mem reads this
 * process's memory, and its read() fails with EIO at an unmapped page. The
 * list is put at the end of a mapped page whose successor is unmapped: the
 * first read returns those lines, the next one EIO.
 */
BW_TEST(test_list_read_error_mid_file)
{
	static const char text[] = "1.2.3.4\n5.6.7.8\n10.0.0.";
	long page = sysconf(_SC_PAGESIZE);
	struct bw_list l;
	char *mem, *msgs;
	int fd, ret;

	mem = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ASSERT_TRUE(mem != MAP_FAILED, "mmap"))
		return;
	munmap(mem + page, page);
	memcpy(mem + page - (sizeof(text) - 1), text, sizeof(text) - 1);
	fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	if (!ASSERT_GE(fd, 0, "open /proc/self/mem"))
		goto out;
	lseek(fd, (off_t)(uintptr_t)(mem + page - (sizeof(text) - 1)),
	      SEEK_SET);
	bw_list_init(&l);
	ret = load_fd(fd, "mem.txt", true, &l, &msgs);
	ASSERT_EQ(ret, -EIO,
		  "a read error fails the load, skip_invalid or not");
	ASSERT_STREQ(msgs,
		     "mem.txt: Input/output error (is it a readable list "
		     "file?)\n",
		     "file: reason");
	ASSERT_EQ(l.lines, 2, "the lines before the error were read");
	free(msgs);
	bw_list_free(&l);
	close(fd);
out:
	munmap(mem, page);
}

/* A descriptor that cannot be read at all (a directory): an error, not "". */
BW_TEST(test_list_read_error_first_read)
{
	struct bw_list l;
	char *msgs;
	int fd;

	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!ASSERT_GE(fd, 0, "open /"))
		return;
	bw_list_init(&l);
	ASSERT_EQ(load_fd(fd, "dir", false, &l, &msgs), -EISDIR, "EISDIR");
	ASSERT_STREQ(msgs,
		     "dir: Is a directory (is it a readable list file?)\n",
		     "msg");
	free(msgs);
	close(fd);
}

/* The address space the process has mapped now, in bytes. */
static size_t vm_size(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * Out of memory in the middle of a list (RLIMIT_AS, as `ulimit -v` sets
 * it): the load fails with ENOMEM and says so. In a child, the limit just
 * above what it has mapped; the list, 8M lines, comes from a pipe. Its
 * messages come back through a file; the result as the exit status.
 */
BW_TEST(test_list_read_out_of_memory)
{
	struct bw_list_opts opts = { .skip_invalid = true };
	int p[2], status, out;
	const char *path;
	struct bw_list l;
	pid_t child, w;
	char msgs[512];
	ssize_t n;

	path = tmp_path("oom.err");
	out = path ? open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)
		   : -1;
	if (!ASSERT_GE(out, 0, "error file") || !ASSERT_OK(pipe(p), "pipe"))
		return;
	child = fork();
	if (child == 0) {
		struct rlimit rl;

		close(p[1]);
		dup2(out, STDERR_FILENO);
		rl.rlim_cur = rl.rlim_max = vm_size() + (16 << 20);
		if (setrlimit(RLIMIT_AS, &rl))
			_exit(100);
		bw_list_init(&l);
		_exit(-bw_list_load_fd(&l, p[0], "big.txt", &opts));
	}
	close(p[0]);
	/* The writer's text: 8M lines, 64 MiB, more than the 16 MiB allowed. */
	w = fork();
	if (w == 0) {
		static char chunk[8 << 10];
		size_t i;

		for (i = 0; i < sizeof(chunk); i += 8)
			memcpy(chunk + i, "1.2.3.4\n", 8);
		for (i = 0; i < 8192; i++)
			if (write(p[1], chunk, sizeof(chunk)) < 0)
				_exit(0);
		_exit(0);
	}
	close(p[1]);
	ASSERT_EQ(waitpid(child, &status, 0), child, "wait");
	waitpid(w, NULL, 0);
	ASSERT_TRUE(WIFEXITED(status), "the child exited");
	ASSERT_EQ(WEXITSTATUS(status), ENOMEM, "ENOMEM, not a short list");
	n = pread(out, msgs, sizeof(msgs) - 1, 0);
	msgs[n > 0 ? n : 0] = '\0';
	ASSERT_STRSTR(msgs, ": out of memory while reading the list\n", "msg");
	ASSERT_EQ(strncmp(msgs, "big.txt:", 8), 0, "file:line first");
	close(out);
	cleanup(path);
}

/* Peak resident memory since clear_refs reset it, in KiB. */
static long vm_hwm_kib(void)
{
	char line[128];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static long vm_rss_kib(void)
{
	char line[128];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/*
 * A 256 MiB line, skipped under skip_invalid, is read through in bounded
 * memory: the peak resident size grows by far less than the line (getline
 * would hold all of it). The lines around it are read.
 */
BW_TEST(test_list_read_huge_line_bounded)
{
	size_t n = 256 << 20;
	struct bw_list l;
	long rss, hwm;
	char *msgs;
	int p[2], fd;
	pid_t w;

	if (!ASSERT_OK(pipe(p), "pipe"))
		return;
	w = writer(p, "1.2.3.4\n", n, '#', "\n5.6.7.8\n");
	close(p[1]);
	/* "5" resets VmHWM to the current RSS (proc(5), clear_refs). */
	fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "5", 1) != 1)
			fd = -1;
		close(fd);
	}
	rss = vm_rss_kib();
	bw_list_init(&l);
	ASSERT_OK(load_fd(p[0], "huge.txt", true, &l, &msgs), "skipped");
	hwm = vm_hwm_kib();
	close(p[0]);
	waitpid(w, NULL, 0);
	ASSERT_STREQ(msgs,
		     "huge.txt:2: line too long (more than 4096 bytes) "
		     "(skipped)\n",
		     "msg");
	ASSERT_EQ(l.n4, 2, "the lines around it");
	ASSERT_EQ(l.skipped, 1, "one line skipped");
	if (fd >= 0 && rss > 0 && hwm > 0)
		ASSERT_LE(hwm - rss, 8 << 10, "peak RSS growth in KiB");
	free(msgs);
	bw_list_free(&l);
}

/* Without skip_invalid the load stops at the line: nothing more is read. */
BW_TEST(test_list_read_huge_line_refused)
{
	struct bw_list l;
	char *msgs;
	int p[2], status;
	pid_t w;

	if (!ASSERT_OK(pipe(p), "pipe"))
		return;
	w = writer(p, "1.2.3.4\n", (size_t)1 << 40, '#', "\n");
	close(p[1]);
	bw_list_init(&l);
	ASSERT_EQ(load_fd(p[0], "huge.txt", false, &l, &msgs), -EINVAL,
		  "refused");
	close(p[0]); /* the writer of 1 TiB dies of SIGPIPE */
	ASSERT_EQ(waitpid(w, &status, 0), w, "writer");
	ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE,
		    "the read stopped at the bound");
	ASSERT_STREQ(msgs, "huge.txt:2: line too long (more than 4096 bytes)\n",
		     "msg");
	free(msgs);
	bw_list_free(&l);
}

/* /dev/zero through a descriptor: NUL bytes, refused at line 1, skip or not. */
BW_TEST(test_list_read_dev_zero_fd)
{
	struct bw_list l;
	char *msgs;
	int fd;

	fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (!ASSERT_GE(fd, 0, "open /dev/zero"))
		return;
	bw_list_init(&l);
	ASSERT_EQ(load_fd(fd, "<stdin>", true, &l, &msgs), -EINVAL, "refused");
	ASSERT_STREQ(msgs, "<stdin>:1: NUL byte: not a text list\n", "msg");
	free(msgs);
	close(fd);
}

/* Devices, directories and sockets are not lists, refused before a read. */
BW_TEST(test_list_read_kinds)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path;
	struct bw_list l;
	char *msgs, want[256];
	int s;

	bw_list_init(&l);
	ASSERT_EQ(load("/dev/zero", false, &l, &msgs), -EINVAL, "/dev/zero");
	ASSERT_STREQ(msgs,
		     "/dev/zero: not a regular file or pipe (character "
		     "device): give a list file, or \"-\" for standard input\n",
		     "char device");
	free(msgs);
	ASSERT_EQ(load("/dev/null", false, &l, &msgs), -EINVAL, "/dev/null");
	free(msgs);
	path = tmp_path("sock");
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!ASSERT_TRUE(path && s >= 0, "socket"))
		return;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (ASSERT_OK(bind(s, (struct sockaddr *)&sa, sizeof(sa)), "bind")) {
		ASSERT_EQ(load(path, false, &l, &msgs), -EINVAL, "socket");
		snprintf(want, sizeof(want),
			 "%s: not a regular file or pipe (socket): give a list "
			 "file, or \"-\" for standard input\n",
			 path);
		ASSERT_STREQ(msgs, want, "socket msg");
		free(msgs);
	}
	close(s);
	cleanup(path);
	ASSERT_EQ(l.n4 + l.n6, 0, "nothing read");
}

/* A FIFO is read like a pipe once it has a writer (process substitution). */
BW_TEST(test_list_read_fifo)
{
	const char *path = tmp_path("fifo");
	struct bw_list l;
	char *msgs;
	pid_t w;
	int fd;

	if (!ASSERT_TRUE(path && !mkfifo(path, 0600), "mkfifo"))
		return;
	w = fork();
	if (w == 0) {
		fd = open(path, O_WRONLY);
		_exit(fd < 0 ||
		      write(fd, "1.2.3.4\n2001:db8::1\n10.0.0.0/8", 30) != 30);
	}
	bw_list_init(&l);
	ASSERT_OK(load(path, false, &l, &msgs), "fifo");
	waitpid(w, NULL, 0);
	ASSERT_STREQ(msgs, "", "silent");
	ASSERT_EQ(l.n4, 2, "v4, the last line unterminated");
	ASSERT_EQ(l.n6, 1, "v6");
	free(msgs);
	bw_list_free(&l);
	cleanup(path);
}

/* Writes text to a temporary file; returns its path. */
static const char *file_with(const char *name, const char *text)
{
	const char *path = tmp_path(name);
	FILE *f = path ? fopen(path, "we") : NULL;

	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return path;
}

/* ::ffff:a.b.c.d is read as a.b.c.d, with one note per file. */
BW_TEST(test_list_read_mapped)
{
	const char *path;
	struct bw_list l;
	char *msgs, *at;

	path = file_with("mapped.txt", "# mapped\n"
				       "::ffff:10.99.0.2\n"
				       "::ffff:10.0.0.0/104\n"
				       "::ffff:192.0.2.1\n"
				       "2001:db8::1\n");
	if (!ASSERT_OK_PTR(path, "write"))
		return;
	bw_list_init(&l);
	ASSERT_OK(load(path, false, &l, &msgs), "load");
	at = strstr(msgs, "/mapped.txt:");
	ASSERT_STREQ(at ?: msgs,
		     "/mapped.txt:2: note: ::ffff:10.99.0.2 is IPv4-mapped; "
		     "taken as 10.99.0.2\n",
		     "one note, at the first");
	ASSERT_EQ(l.mapped, 3, "mapped entries");
	ASSERT_EQ(l.n4, 3, "as IPv4");
	ASSERT_EQ(l.n6, 1, "the IPv6 entry");
	ASSERT_EQ(l.v4[1], bw_v4key(0x0a000000, 8), "::ffff:10.0.0.0/104");
	free(msgs);
	/* the next file gets its own note */
	ASSERT_OK(load(path, false, &l, &msgs), "again");
	ASSERT_STRSTR(msgs, "/mapped.txt:2: note:", "a note per file");
	free(msgs);
	bw_list_free(&l);
	cleanup(path);
}

/* The verbs' arguments: the IPv4 prefix, and the note in err. */
BW_TEST(test_parse_prefix_mapped)
{
	char err[BW_ERRLEN];
	struct bw_prefix p;

	ASSERT_OK(bw_parse_prefix("::ffff:10.99.0.2", &p, err, sizeof(err)),
		  "address");
	ASSERT_EQ(p.family, BW_V4, "IPv4");
	ASSERT_EQ(p.lo, 0x0a630002, "10.99.0.2");
	ASSERT_EQ(p.plen, 32, "/32");
	ASSERT_STREQ(err,
		     "note: ::ffff:10.99.0.2 is IPv4-mapped; taken as "
		     "10.99.0.2",
		     "note");
	ASSERT_OK(bw_parse_prefix("::ffff:10.0.0.0/104", &p, err, sizeof(err)),
		  "prefix");
	ASSERT_EQ(p.family, BW_V4, "IPv4 prefix");
	ASSERT_EQ(p.plen, 8, "/8");
	ASSERT_STREQ(err,
		     "note: ::ffff:10.0.0.0/104 is IPv4-mapped; taken as "
		     "10.0.0.0/8",
		     "prefix note");
	ASSERT_OK(bw_parse_prefix("10.99.0.2", &p, err, sizeof(err)), "plain");
	ASSERT_STREQ(err, "", "no note for plain IPv4");
}

/* Counts the lines of s that end with suffix. */
static int lines_ending(const char *s, const char *suffix)
{
	size_t sl = strlen(suffix);
	const char *nl;
	int n = 0;

	for (; (nl = strchr(s, '\n')); s = nl + 1)
		if ((size_t)(nl - s) >= sl && !strncmp(nl - sl, suffix, sl))
			n++;
	return n;
}

/* --skip-invalid: the first BW_SKIP_SHOWN bad lines of a file, then a count. */
BW_TEST(test_list_read_skip_shown)
{
	char text[1024] = "1.2.3.4\n", want[64];
	const char *path;
	struct bw_list l;
	char *msgs, *at;
	int i;

	for (i = 0; i < 12; i++)
		strcat(text, "bad!\n");
	path = file_with("bad.txt", text);
	if (!ASSERT_OK_PTR(path, "write"))
		return;
	bw_list_init(&l);
	ASSERT_OK(load(path, true, &l, &msgs), "load");
	ASSERT_EQ(lines_ending(msgs, " (skipped)"), BW_SKIP_SHOWN, "shown");
	ASSERT_STRSTR(msgs,
		      "/bad.txt:6: not an IP address: \"bad!\" (skipped)\n",
		      "the fifth");
	ASSERT_FALSE(strstr(msgs, "/bad.txt:7:"), "not the sixth");
	snprintf(want, sizeof(want), "%s: 7 more bad lines skipped\n", path);
	at = strstr(msgs, want);
	ASSERT_TRUE(at && !at[strlen(want)], "the count, last");
	ASSERT_EQ(l.skipped, 12, "all counted");
	free(msgs);
	/* a second file: its own five */
	ASSERT_OK(load(path, true, &l, &msgs), "again");
	ASSERT_EQ(lines_ending(msgs, " (skipped)"), BW_SKIP_SHOWN, "per file");
	free(msgs);
	/* six bad lines: "1 more bad line" */
	text[strlen("1.2.3.4\n") + 6 * strlen("bad!\n")] = '\0';
	path = file_with("bad.txt", text);
	ASSERT_OK(load(path, true, &l, &msgs), "six");
	snprintf(want, sizeof(want), "%s: 1 more bad line skipped\n", path);
	ASSERT_STRSTR(msgs, want, "singular");
	free(msgs);
	/* five: no count line */
	text[strlen("1.2.3.4\n") + 5 * strlen("bad!\n")] = '\0';
	path = file_with("bad.txt", text);
	ASSERT_OK(load(path, true, &l, &msgs), "five");
	ASSERT_FALSE(strstr(msgs, "more bad"), "no count");
	free(msgs);
	bw_list_free(&l);
	cleanup(path);
}

/* The real hosts file under skip_invalid: five lines and the count. */
BW_TEST(test_list_read_skip_hosts_file)
{
	struct bw_list_opts opts = { .skip_invalid = true };
	const char *data = bw_test_data_dir();
	struct bw_capture cap;
	char path[512], *msgs;
	struct bw_list l;
	int nl = 0, ret;

	if (!data)
		return;
	snprintf(path, sizeof(path), "%s/domains/stevenblack/hosts", data);
	bw_list_init(&l);
	bw_capture_start(&cap);
	ret = bw_list_load(&l, path, &opts);
	msgs = bw_capture_end(&cap);
	ASSERT_OK(ret, "load");
	for (char *c = msgs; *c; c++)
		nl += *c == '\n';
	ASSERT_EQ(nl, BW_SKIP_SHOWN + 1, "message lines");
	/* Each 0.0.0.0 line but "0.0.0.0 0.0.0.0"; local entries are no error. */
	ASSERT_EQ(l.skipped, 93811, "a bad line a blocked host");
	ASSERT_STRSTR(msgs, "hosts: ", "count line");
	ASSERT_STRSTR(msgs, " more bad lines skipped\n", "count line");
	free(msgs);
	bw_list_free(&l);
}
