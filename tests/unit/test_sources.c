// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Lists given by URL (issue 31): Spamhaus DROP JSON lines, unpacking by
 * magic bytes, and the cache's names and meta.
 */
#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "base/log.h"
#include "lists/list.h"
#include "lists/list_load.h"
#include "lists/list_stream.h"
#include "lists/unpack.h"
#include "net/src_cache.h"
#include "net/url.h"
#include "test_helpers.h"

/* text read as a list file: 0 or -errno; *n4, *n6 its entries. */
static int load_text(const char *text, size_t *n4, size_t *n6)
{
	struct bw_list_opts o = { .threads = 1 };
	struct bw_list l;
	int fd = memfd_create("t", MFD_CLOEXEC), err;

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    lseek(fd, 0, SEEK_SET))
		abort();
	bw_list_init(&l);
	err = bw_list_load_fd(&l, fd, "t", &o);
	*n4 = l.n4;
	*n6 = l.n6;
	bw_list_free(&l);
	close(fd);
	return err;
}

#define META_2 \
	"{\"type\":\"metadata\",\"timestamp\":1,\"size\":2,\"records\":2}\n"
#define REC_4 \
	"{\"cidr\":\"1.10.16.0/20\",\"sblid\":\"SBL256894\",\"rir\":\"apnic\"}\n"
#define REC_6 \
	"{\"cidr\":\"2001:db8::/32\",\"sblid\":\"SBL1\",\"rir\":\"ripencc\"}\n"

BW_TEST(test_dropjson)
{
	size_t n4, n6;
	int lvl = bw_log_level;

	bw_log_level = BW_LOG_NONE;
	ASSERT_OK(load_text(REC_4 REC_6 META_2, &n4, &n6), "drop json");
	ASSERT_EQ(n4, 1, "an IPv4 record");
	ASSERT_EQ(n6, 1, "an IPv6 record");
	ASSERT_OK(load_text("\n" REC_4 "  \n" REC_6 META_2, &n4, &n6),
		  "blank lines");
	ASSERT_EQ(load_text(REC_4 REC_6, &n4, &n6), -EINVAL,
		  "no metadata line: a cut download");
	ASSERT_EQ(load_text(REC_4 META_2, &n4, &n6), -EINVAL,
		  "a count that disagrees");
	ASSERT_EQ(load_text(REC_4 REC_6 META_2 REC_4, &n4, &n6), -EINVAL,
		  "a record after the metadata line");
	ASSERT_EQ(load_text(REC_4 REC_6 META_2 META_2, &n4, &n6), -EINVAL,
		  "two metadata lines");
	ASSERT_EQ(
		load_text("{\"asn\":6939,\"rir\":\"arin\"}\n" META_2, &n4, &n6),
		-EINVAL, "asndrop refused");
	ASSERT_EQ(load_text("{\"cidr\":6939}\n" META_2, &n4, &n6), -EINVAL,
		  "a cidr that is no string");
	ASSERT_EQ(load_text("{\"cidr\":\"1.2.3.0/24\"} x\n" META_2, &n4, &n6),
		  -EINVAL, "bytes after the object");
	ASSERT_EQ(load_text("{\"cidr\":\"1.2.3.4/24\"}\n" META_2, &n4, &n6),
		  -EINVAL, "host bits set, as in any list");
	bw_log_level = lvl;
}

struct sink {
	char buf[1 << 16];
	size_t n;
};

static int to_sink(void *ctx, const void *buf, size_t len)
{
	struct sink *s = ctx;

	if (s->n + len > sizeof(s->buf))
		return -ENOSPC;
	memcpy(s->buf + s->n, buf, len);
	s->n += len;
	return 0;
}

/* in unpacked, fed in pieces of step bytes: 0 or -errno, out in *s. */
static int unpack(const void *in, size_t len, size_t step, __u64 max,
		  struct sink *s, enum bw_pack *kind)
{
	struct bw_unpack u;
	int err = 0;

	s->n = 0;
	bw_unpack_init(&u, max, to_sink, s);
	for (size_t i = 0; i < len && !err; i += step)
		err = bw_unpack_feed(&u, (const char *)in + i,
				     len - i < step ? len - i : step);
	if (!err)
		err = bw_unpack_end(&u);
	*kind = u.kind;
	bw_unpack_free(&u);
	return err;
}

static size_t gz(const char *text, unsigned char *out, size_t cap)
{
	z_stream z = { 0 };

	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY))
		abort();
	z.next_in = (unsigned char *)text;
	z.avail_in = (uInt)strlen(text);
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	deflateEnd(&z);
	return cap - z.avail_out;
}

static void check_kind(const unsigned char *c, size_t n, const char *text,
		       enum bw_pack want, const char *name)
{
	static struct sink s;
	enum bw_pack kind;
	size_t steps[] = { 1, 7, 4096 };

	for (size_t i = 0; i < sizeof(steps) / sizeof(*steps); i++) {
		ASSERT_OK(unpack(c, n, steps[i], 0, &s, &kind), name);
		ASSERT_EQ(kind, want, name);
		ASSERT_EQ(s.n, strlen(text), name);
		ASSERT_TRUE(!memcmp(s.buf, text, s.n), name);
	}
	ASSERT_EQ(unpack(c, n - 3, 5, 0, &s, &kind), -EPIPE,
		  "a compressed stream cut short");
	ASSERT_EQ(unpack(c, n, 64, 10, &s, &kind), -EFBIG,
		  "past the bound unpacked");
}

BW_TEST(test_unpack)
{
	const char *text = "192.0.2.1\n198.51.100.0/24\n# a comment\n"
			   "203.0.113.7\n203.0.113.8\n203.0.113.9\n";
	static unsigned char c[4096], two[8192];
	static struct sink s;
	unsigned int bn = sizeof(c);
	enum bw_pack kind;
	size_t n, m;

	n = gz(text, c, sizeof(c));
	check_kind(c, n, text, BW_PACK_GZIP, "gzip");
	/* Two members (gzip -c a b): both, as gunzip gives them. */
	memcpy(two, c, n);
	memcpy(two + n, c, n);
	ASSERT_OK(unpack(two, 2 * n, 3, 0, &s, &kind), "two gzip members");
	ASSERT_EQ(s.n, 2 * strlen(text), "two gzip members");

	m = 0;
	ASSERT_EQ(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL,
					  (const uint8_t *)text, strlen(text),
					  c, &m, sizeof(c)),
		  LZMA_OK, "xz");
	check_kind(c, m, text, BW_PACK_XZ, "xz");

	ASSERT_EQ(BZ2_bzBuffToBuffCompress((char *)c, &bn, (char *)text,
					   (unsigned int)strlen(text), 9, 0, 0),
		  BZ_OK, "bzip2");
	check_kind(c, bn, text, BW_PACK_BZIP2, "bzip2");

	ASSERT_OK(unpack(text, strlen(text), 2, 0, &s, &kind), "plain");
	ASSERT_EQ(kind, BW_PACK_NONE, "plain");
	ASSERT_EQ(s.n, strlen(text), "plain as it is");
	ASSERT_OK(unpack("", 0, 1, 0, &s, &kind), "empty");
	ASSERT_EQ(s.n, 0, "empty");
	ASSERT_OK(unpack("\x1f", 1, 1, 0, &s, &kind), "one byte of a magic");
	ASSERT_EQ(kind, BW_PACK_NONE, "too short to be gzip");
	ASSERT_EQ(s.n, 1, "the byte as it is");
	n = gz(text, c, sizeof(c));
	c[20] ^= 0xff;
	ASSERT_NEQ(unpack(c, n, 4096, 0, &s, &kind), 0, "corrupt gzip");
}

static int to_count(void *ctx, const void *buf, size_t len)
{
	(void)buf;
	*(__u64 *)ctx += len;
	return 0;
}

/* A small gzip that unpacks to 8 MiB of one line: ended near the floor. */
BW_TEST(test_unpack_bomb)
{
	size_t len = 8U << 20, cap = 1U << 20, n;
	char *text = malloc(len + 1);
	unsigned char *c = malloc(cap);
	struct bw_unpack u;
	__u64 got = 0;
	int err = 0;

	if (!text || !c)
		abort();
	for (size_t i = 0; i + 9 <= len; i += 9)
		memcpy(text + i, "10.0.0.1\n", 9);
	text[len - len % 9] = '\0';
	n = gz(text, c, cap);
	ASSERT_TRUE(n * 100 < strlen(text), "the gzip packs over 100 times");
	bw_unpack_init(&u, 0, to_count, &got);
	u.max_ratio = 100;
	for (size_t i = 0; i < n && !err; i += 4096)
		err = bw_unpack_feed(&u, c + i, n - i < 4096 ? n - i : 4096);
	ASSERT_EQ(err, -EFBIG, "a bomb ended");
	ASSERT_TRUE(u.bomb, "by the ratio, not max_out");
	ASSERT_TRUE(got <= BW_UNPACK_RATIO_FLOOR + 4096 * 100,
		    "near the floor, not at its end");
	bw_unpack_free(&u);

	got = 0;
	bw_unpack_init(&u, 0, to_count, &got);
	ASSERT_OK(bw_unpack_feed(&u, c, n), "no ratio: unpacked whole");
	ASSERT_OK(bw_unpack_end(&u), "no ratio: whole");
	ASSERT_EQ(got, strlen(text), "no ratio: every byte");
	bw_unpack_free(&u);
	free(text);
	free(c);
}

BW_TEST(test_src_cache)
{
	char dir[64], p[4096], q[4096], url[2048];
	struct bw_src_meta m = { .last_modified = 1700000000,
				 .fetched = 1700000100,
				 .checked = 1700000200,
				 .bytes = 42,
				 .entries = 3 },
			   r;
	FILE *f;

	ASSERT_TRUE(bw_src_is_url("https://x/y"), "https");
	ASSERT_TRUE(bw_src_is_url("HTTP://x/y"), "any case");
	ASSERT_FALSE(bw_src_is_url("/etc/x"), "a path");
	ASSERT_FALSE(bw_src_is_url("ftp://x/y"), "ftp");

	strcpy(dir, "/tmp/bw-src.XXXXXX");
	if (!ASSERT_OK_PTR(mkdtemp(dir), "a directory"))
		return;
	ASSERT_OK(
		bw_src_path(dir,
			    "https://www.spamhaus.org/drop/drop_v4.json?x=1#y",
			    p, sizeof(p)),
		"a path");
	ASSERT_STRSTR(p, "-drop_v4.json", "named by its last part");
	ASSERT_TRUE(!strncmp(p, dir, strlen(dir)), "in the state dir");
	ASSERT_OK(bw_src_path(dir, "https://example.org/", q, sizeof(q)),
		  "no path part");
	ASSERT_STRSTR(q, "-list", "a name of its own");
	ASSERT_OK(bw_src_path(dir, "http://h/a b/..%2f", q, sizeof(q)),
		  "odd bytes");
	ASSERT_TRUE(!strstr(strrchr(q, '/'), " ") && !strstr(q, "%"),
		    "odd bytes replaced");
	ASSERT_OK(bw_src_path(dir, "http://h/x", q, sizeof(q)), "x");
	ASSERT_OK(bw_src_path(dir, "http://h/y/x", url, sizeof(url)), "y/x");
	ASSERT_TRUE(strcmp(q, url), "two URLs, two copies");

	ASSERT_OK(bw_src_dir_make(dir), "lists/ made");
	snprintf(m.url, sizeof(m.url), "%s",
		 "https://www.spamhaus.org/drop/drop_v4.json?x=1#y");
	snprintf(m.etag, sizeof(m.etag), "%s", "\"abc\"");
	snprintf(m.pack, sizeof(m.pack), "%s", "gzip");
	ASSERT_OK(bw_src_meta_write(p, &m), "meta written");
	ASSERT_OK(bw_src_meta_read(p, &r), "meta read");
	ASSERT_STREQ(r.url, m.url, "url");
	ASSERT_STREQ(r.etag, m.etag, "etag");
	ASSERT_STREQ(r.pack, "gzip", "pack");
	ASSERT_EQ(r.last_modified, m.last_modified, "last_modified");
	ASSERT_EQ(r.fetched, m.fetched, "fetched");
	ASSERT_EQ(r.checked, m.checked, "checked");
	ASSERT_EQ(r.entries, 3, "entries");
	f = fopen(p, "w");
	if (f)
		fclose(f);
	/* The copy names its URL, for its default state dir's name only. */
	ASSERT_TRUE(bw_src_url_of(p, url, sizeof(url)), "the copy's URL");
	ASSERT_STREQ(url, m.url, "the copy's URL");
	snprintf(q, sizeof(q), "%s/lists/other.txt", dir);
	ASSERT_FALSE(bw_src_url_of(q, url, sizeof(url)), "another file");
	ASSERT_EQ(bw_src_meta_read(q, &r), -ENOENT, "no meta");
	snprintf(q, sizeof(q), "rm -rf %s", dir);
	if (system(q))
		fprintf(stderr, "could not remove %s\n", dir);
}

/* A file at dir/name, its mtime age seconds ago: 0 or -1. */
static int file_aged(const char *dir, const char *name, time_t age)
{
	struct timespec t[2] = { { .tv_sec = time(NULL) - age },
				 { .tv_sec = time(NULL) - age } };
	char p[4096];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return utimensat(AT_FDCWD, p, t, 0);
}

static bool file_there(const char *dir, const char *name)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/*
 * A fetch killed with SIGKILL leaves its PATH.tmp.XXXXXX or
 * PATH.meta.tmp.XXXXXX: the sweep each fetch begins with removes the
 * stale ones, and only those.
 */
BW_TEST(test_src_tmp_stale)
{
	char dir[64], path[4096], tmp[4096], cmd[128];

	strcpy(dir, "/tmp/bw-srctmp.XXXXXX");
	if (!ASSERT_OK_PTR(mkdtemp(dir), "a directory"))
		return;
	snprintf(path, sizeof(path), "%s/a-list.txt", dir);
	ASSERT_OK(
		file_aged(dir, "a-list.txt.tmp.AbC123", BW_SRC_TMP_STALE + 60),
		"a killed fetch's file");
	ASSERT_OK(file_aged(dir, "a-list.txt.meta.tmp.MeT123",
			    BW_SRC_TMP_STALE + 60),
		  "a killed fetch's meta");
	ASSERT_OK(file_aged(dir, "a-list.txt.tmp.dEf456", 60),
		  "a live fetch's file");
	ASSERT_OK(
		file_aged(dir, "b-list.txt.tmp.GhI789", BW_SRC_TMP_STALE + 60),
		"another source's");
	ASSERT_OK(file_aged(dir, "a-list.txt.tmp.old", BW_SRC_TMP_STALE + 60),
		  "not a name of ours");
	/* A link in the name of ours is not ours: it and its target stay. */
	ASSERT_OK(file_aged(dir, "target", BW_SRC_TMP_STALE + 60), "a target");
	snprintf(tmp, sizeof(tmp), "%s/a-list.txt.tmp.LnK000", dir);
	ASSERT_OK(symlink("target", tmp), "a link");
	bw_src_sweep(path);
	ASSERT_FALSE(file_there(dir, "a-list.txt.tmp.AbC123"), "stale removed");
	ASSERT_FALSE(file_there(dir, "a-list.txt.meta.tmp.MeT123"),
		     "stale meta removed");
	ASSERT_TRUE(file_there(dir, "a-list.txt.tmp.dEf456"), "live kept");
	ASSERT_TRUE(file_there(dir, "b-list.txt.tmp.GhI789"),
		    "another source's kept");
	ASSERT_TRUE(file_there(dir, "a-list.txt.tmp.old"), "other names kept");
	ASSERT_TRUE(file_there(dir, "a-list.txt.tmp.LnK000"), "a link kept");
	ASSERT_TRUE(file_there(dir, "target"), "its target kept");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

/* text checked through a stream in pieces of step bytes: 0 or -errno. */
static int stream(const char *text, size_t step, bool skip, __u64 *entries)
{
	struct bw_list_opts o = { .skip_invalid = skip, .domains = true };
	struct bw_list_stream s;
	size_t len = strlen(text);
	int err = bw_list_stream_init(&s, "t", &o);

	for (size_t i = 0; i < len && !err; i += step)
		err = bw_list_stream_feed(&s, text + i,
					  len - i < step ? len - i : step);
	if (!err)
		err = bw_list_stream_end(&s);
	*entries = s.entries;
	bw_list_stream_free(&s);
	return err;
}

BW_TEST(test_list_stream)
{
	static char big[BW_LINE_MAX + 64];
	__u64 n;

	for (size_t step = 1; step < 40; step += 7) {
		ASSERT_OK(
			stream("192.0.2.1\n# c\n198.51.100.0/24\nexample.com\n",
			       step, false, &n),
			"a list in pieces");
		ASSERT_EQ(n, 3, "its entries");
		ASSERT_OK(stream(REC_4 REC_6 META_2, step, false, &n),
			  "DROP JSON in pieces");
		ASSERT_EQ(n, 2, "its records");
	}
	ASSERT_OK(stream("\xef\xbb\xbf"
			 "192.0.2.1",
			 3, false, &n),
		  "a BOM, no newline at the end");
	ASSERT_EQ(n, 1, "the last line read");
	ASSERT_EQ(stream("192.0.2.1\nnope nope\n", 4, false, &n), -EINVAL,
		  "a bad line");
	ASSERT_OK(stream("192.0.2.1\nnope nope\n", 4, true, &n),
		  "skipped with skip_invalid");
	ASSERT_EQ(stream(REC_4 REC_6, 5, false, &n), -EINVAL,
		  "DROP JSON without its metadata line");
	memset(big, '1', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\n';
	ASSERT_EQ(stream(big, 1000, false, &n), -EINVAL, "a line too long");
	{
		struct bw_list_opts o = { .domains = true };
		struct bw_list_stream s;

		bw_list_stream_init(&s, "t", &o);
		ASSERT_EQ(bw_list_stream_feed(&s, "1.2.3.4\n\0", 9), -EINVAL,
			  "a NUL byte: no text list");
		ASSERT_STRSTR(s.err, "NUL byte", "said");
		bw_list_stream_free(&s);
	}
}

/*
 * A list URL's password never leaves the request: redacted in what is
 * printed and kept, the rest of the URL as given (a copy's identity).
 */
BW_TEST(test_url_redacted)
{
	static const struct {
		const char *url, *want;
	} t[] = {
		{ "https://bob:pw@h.example/l.txt",
		  "https://bob:***@h.example/l.txt" },
		{ "http://bob:p:w@h.example:8080/a?b=c",
		  "http://bob:***@h.example:8080/a?b=c" },
		{ "http://bob@h.example/l", "http://bob@h.example/l" },
		{ "http://h.example/x@y:z", "http://h.example/x@y:z" },
		{ "http://h.example/p?u=a:b@c", "http://h.example/p?u=a:b@c" },
		{ "http://a:b@c@h.example/", "http://a:***@h.example/" },
		{ "not a url", "not a url" },
	};
	char buf[256], said[64], a[4096], b[4096];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ASSERT_STREQ(bw_url_redacted(t[i].url, buf, sizeof(buf)),
			     t[i].want, t[i].url);
	ASSERT_STREQ(bw_url_said("http://u:pw@h/\x1b[1m", said, sizeof(said)),
		     "http://u:***@h/\\x1b[1m", "said: redacted and escaped");
	ASSERT_EQ(bw_src_path("/s", "http://u:one@h/l.txt", a, sizeof(a)), 0,
		  "path");
	ASSERT_EQ(bw_src_path("/s", "http://u:two@h/l.txt", b, sizeof(b)), 0,
		  "path");
	ASSERT_STREQ(a, b, "a copy's name does not hang on the password");
}
