// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Key files (user/image/sign_key.c) and serials (user/image/image_serial.c):
 * keygen's modes and its refusal to overwrite, a secret key open to
 * others or corrupt refused, files of public keys with several keys and
 * bad lines, the default key used only when it is there (and an error
 * when it is there but broken); the serial from the newest mtime or
 * --serial, the time from SOURCE_DATE_EPOCH, the rollback rule, the
 * record a load stamps, and an image whose record claims a signer refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "filter/builder.h"
#include "filter/records.h"
#include "image/image.h"
#include "image/image_serial.h"
#include "image/sign_key.h"
#include "test_helpers.h"

/* A fresh directory for key files: path (PATH_MAX). */
static bool key_dir(char *path)
{
	strcpy(path, "/tmp/bw-keys.XXXXXX");
	return mkdtemp(path) != NULL;
}

static void put_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		abort();
	fchmod(fd, mode);
	close(fd);
}

static char *slurp(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_mode & 07777;
}

BW_TEST(test_keygen_files)
{
	char dir[PATH_MAX], sec[PATH_MAX + 16], pub[PATH_MAX + 16];
	char before[4096], hex[BW_KEY_ID_HEX];
	struct bw_pubkey p, p2;
	struct bw_verify_keys ks;
	struct bw_seckey k;

	if (!ASSERT_TRUE(key_dir(dir), "a directory"))
		return;
	snprintf(sec, sizeof(sec), "%s/s.key", dir);
	snprintf(pub, sizeof(pub), "%s/p.pub", dir);
	ASSERT_OK(bw_keygen(sec, pub, false, &p), "keygen");
	ASSERT_EQ(mode_of(sec), 0600, "the secret key is 0600");
	ASSERT_EQ(mode_of(pub), 0644, "the public key is 0644");
	ASSERT_STRSTR(slurp(pub), bw_key_id_hex(p.id, hex),
		      "the public key file names its id");
	ASSERT_TRUE(!strncmp(slurp(sec), "bloomwall-ed25519-secret ", 25),
		    "the secret key's tag");
	snprintf(before, sizeof(before), "%s", slurp(sec));
	ASSERT_EQ(bw_keygen(sec, pub, false, &p2), -EEXIST,
		  "no overwrite without force");
	ASSERT_STREQ(slurp(sec), before, "the secret key as it was");
	ASSERT_OK(bw_seckey_read(sec, &k), "the secret key reads");
	ASSERT_TRUE(!memcmp(k.pub.id, p.id, sizeof(p.id)), "the same key");
	ASSERT_OK(bw_verify_keys_read(pub, &ks), "the public key reads");
	ASSERT_TRUE(ks.n == 1 && !memcmp(ks.k[0].pk, p.pk, sizeof(p.pk)),
		    "one key, the pair's");
	ASSERT_OK(bw_keygen(sec, pub, true, &p2), "--force");
	ASSERT_TRUE(strcmp(slurp(sec), before) != 0, "a new secret key");
	ASSERT_EQ(bw_keygen(sec, sec, true, &p2), -EINVAL, "one file for both");
	/* Open to others: refused, whatever it holds. */
	chmod(sec, 0640);
	ASSERT_EQ(bw_seckey_read(sec, &k), -EPERM, "a 0640 secret key");
	chmod(sec, 0604);
	ASSERT_EQ(bw_seckey_read(sec, &k), -EPERM, "a 0604 secret key");
	chmod(sec, 0600);
	ASSERT_OK(bw_seckey_read(sec, &k), "0600 again");
	bw_seckey_wipe(&k);
	unlink(sec);
	unlink(pub);
	rmdir(dir);
}

BW_TEST(test_keys_malformed)
{
	char dir[PATH_MAX], f[PATH_MAX + 16], text[8192];
	const char *line1, *nl;
	struct bw_verify_keys ks;
	struct bw_seckey k;
	struct bw_pubkey a, b;
	char sa[PATH_MAX + 16], pa[PATH_MAX + 16], pb[PATH_MAX + 16];
	char sb[PATH_MAX + 16];

	if (!ASSERT_TRUE(key_dir(dir), "a directory"))
		return;
	snprintf(sa, sizeof(sa), "%s/a.key", dir);
	snprintf(pa, sizeof(pa), "%s/a.pub", dir);
	snprintf(sb, sizeof(sb), "%s/b.key", dir);
	snprintf(pb, sizeof(pb), "%s/b.pub", dir);
	snprintf(f, sizeof(f), "%s/f", dir);
	if (bw_keygen(sa, pa, false, &a) || bw_keygen(sb, pb, false, &b))
		return (void)ASSERT_TRUE(false, "two key pairs");
	/* Two keys, a comment and an empty line: a rotation's file. */
	snprintf(text, sizeof(text), "# old and new\n\n%s", slurp(pa));
	line1 = slurp(pb);
	strncat(text, line1, sizeof(text) - strlen(text) - 1);
	put_file(f, text, 0644);
	ASSERT_OK(bw_verify_keys_read(f, &ks), "two keys");
	ASSERT_EQ(ks.n, 2, "both read");
	ASSERT_TRUE(bw_verify_keys_find(&ks, b.id) != NULL, "b is trusted");
	put_file(f, "bloomwall-ed25519-pub AAAA\n", 0644);
	ASSERT_EQ(bw_verify_keys_read(f, &ks), -EINVAL, "a short key");
	put_file(f, "ssh-ed25519 AAAAC3Nza\n", 0644);
	ASSERT_EQ(bw_verify_keys_read(f, &ks), -EINVAL, "another tag");
	put_file(f, "# nothing\n", 0644);
	ASSERT_EQ(bw_verify_keys_read(f, &ks), -EINVAL, "no key at all");
	/* A public key is no secret key, nor the other way round. */
	put_file(f, slurp(pa), 0600);
	ASSERT_EQ(bw_seckey_read(f, &k), -EINVAL, "a public key as secret");
	ASSERT_EQ(bw_verify_keys_read(sa, &ks), -EINVAL,
		  "a secret key as public");
	/* A secret whose public half is not its seed's. */
	snprintf(text, sizeof(text), "%s", slurp(sa));
	nl = strchr(text, '=');
	if (nl)
		text[nl - text - 3] = text[nl - text - 3] == 'A' ? 'B' : 'A';
	put_file(f, text, 0600);
	ASSERT_EQ(bw_seckey_read(f, &k), -EINVAL, "a corrupt secret key");
	/* The default: used when there, an error when broken, none when not. */
	ASSERT_OK(bw_verify_keys_resolve(NULL, "/nonexistent/verify.pub", &ks),
		  "no default");
	ASSERT_EQ(ks.n, 0, "no key required");
	ASSERT_OK(bw_verify_keys_resolve(NULL, pa, &ks), "the default");
	ASSERT_EQ(ks.n, 1, "its key required");
	ASSERT_STRSTR(ks.source, "(the default)", "said to be the default");
	ASSERT_OK(bw_verify_keys_resolve(pb, pa, &ks), "given beats default");
	ASSERT_TRUE(ks.n == 1 && !memcmp(ks.k[0].id, b.id, sizeof(b.id)),
		    "the given key");
	put_file(f, "garbage\n", 0644);
	ASSERT_EQ(bw_verify_keys_resolve(NULL, f, &ks), -EINVAL,
		  "a broken default is an error");
	ASSERT_ERR(bw_verify_keys_resolve("/nonexistent/k.pub", NULL, &ks),
		   "a given file that is not there");
	unlink(f);
	unlink(sa);
	unlink(pa);
	unlink(sb);
	unlink(pb);
	rmdir(dir);
}

BW_TEST(test_image_serial_rule)
{
	char dir[PATH_MAX], f1[PATH_MAX + 8], f2[PATH_MAX + 8];
	struct timespec ts[2] = { { 1600000000, 0 }, { 1600000000, 0 } };
	const char *files[] = { NULL, NULL, "-" };
	struct bw_rec_image ri, old;
	struct bw_records run;
	struct bw_image_sig sig = { .present = true, .verified = true };
	__u8 h1[16], h2[16];
	bool derived;
	char why[320];

	memset(h1, 0x11, sizeof(h1));
	memset(h2, 0x22, sizeof(h2));
	if (!ASSERT_TRUE(key_dir(dir), "a directory"))
		return;
	snprintf(f1, sizeof(f1), "%s/1", dir);
	snprintf(f2, sizeof(f2), "%s/2", dir);
	put_file(f1, "10.0.0.1\n", 0644);
	put_file(f2, "10.0.0.2\n", 0644);
	utimensat(AT_FDCWD, f1, ts, 0);
	ts[1].tv_sec = 1700000000;
	utimensat(AT_FDCWD, f2, ts, 0);
	files[0] = f1;
	files[1] = f2;
	unsetenv("SOURCE_DATE_EPOCH");
	bw_image_rec_make(files, 3, false, 0, &ri, &derived);
	ASSERT_TRUE(derived, "from the files' mtimes");
	ASSERT_EQ_U64(ri.serial, 1700000000ULL * 1000000ULL,
		      "the newest mtime, in microseconds");
	ASSERT_EQ_U64(ri.time_ns, 1700000000ULL * 1000000000ULL,
		      "the time too");
	setenv("SOURCE_DATE_EPOCH", "1234", 1);
	bw_image_rec_make(files, 2, true, 99, &ri, &derived);
	ASSERT_EQ_U64(ri.serial, 99, "--serial");
	ASSERT_EQ_U64(ri.time_ns, 1234000000000ULL, "SOURCE_DATE_EPOCH");
	unsetenv("SOURCE_DATE_EPOCH");
	bw_image_rec_make(files + 2, 1, false, 0, &ri, &derived);
	ASSERT_FALSE(derived, "standard input has no mtime");
	ASSERT_EQ_U64(ri.serial, 0, "serial 0 then");
	/* The same second, a microsecond later: a higher serial. */
	ts[1].tv_nsec = 1000;
	utimensat(AT_FDCWD, f2, ts, 0);
	bw_image_rec_make(files, 2, false, 0, &ri, &derived);
	ASSERT_EQ_U64(ri.serial, 1700000000ULL * 1000000ULL + 1,
		      "a microsecond later, one more");

	/* What runs has serial 1700000000, from an image of hash 0x11... */
	bw_records_init(&run);
	ri = (struct bw_rec_image){ .serial = 5 };
	ASSERT_OK(bw_image_rollback_check(&ri, h2, &run, why, sizeof(why)),
		  "a filter from lists: any image");
	run.have_image = true;
	run.image.serial = 1700000000;
	old = (struct bw_rec_image){ .serial = 1699999999 };
	ASSERT_EQ(bw_image_rollback_check(&old, h2, &run, why, sizeof(why)),
		  -BW_EROLLBACK, "one second older");
	ASSERT_STRSTR(why, "serial 1699999999 (of ", "names the serial");
	ASSERT_STRSTR(why, "older than the running filter's 1700000000",
		      "and the running one");
	old.serial = 1700000000;
	ASSERT_OK(bw_image_rollback_check(&old, h2, &run, why, sizeof(why)),
		  "an equal serial, what runs has no image hash");
	run.have_origin = true;
	memset(run.origin.image_hash, 0x11, sizeof(run.origin.image_hash));
	ASSERT_OK(bw_image_rollback_check(&old, h1, &run, why, sizeof(why)),
		  "an equal serial, the same image again");
	ASSERT_EQ(bw_image_rollback_check(&old, h2, &run, why, sizeof(why)),
		  -BW_EROLLBACK, "an equal serial, other bytes");
	ASSERT_STRSTR(why, "serial 1700000000 (of ", "names the serial");
	ASSERT_STRSTR(why, "the image is not the one that runs", "says why");
	old.serial = 1700000001;
	ASSERT_OK(bw_image_rollback_check(&old, h2, &run, why, sizeof(why)),
		  "a higher serial, other bytes");
	ASSERT_EQ(bw_image_rollback_check(NULL, h2, &run, why, sizeof(why)),
		  -BW_EROLLBACK, "an image without a serial");
	/* The record a load writes: who signed it. */
	memset(sig.key_id, 0xab, sizeof(sig.key_id));
	bw_image_rec_stamp(&run, &sig);
	ASSERT_EQ(run.image.flags, BW_REC_IMAGE_SIGNED | BW_REC_IMAGE_VERIFIED,
		  "signed and verified");
	ASSERT_EQ(run.image.signer[7], 0xab, "by the key");
	sig.present = sig.verified = false;
	bw_image_rec_stamp(&run, &sig);
	ASSERT_EQ(run.image.flags, 0, "unsigned");
	ASSERT_EQ(run.image.signer[0], 0, "no signer");
	bw_records_free(&run);
	unlink(f1);
	unlink(f2);
	rmdir(dir);
}

/* An image whose record claims a signer: only a load writes one. */
BW_TEST(test_image_record_checked)
{
	char path[64], why[256];
	const char *lists[] = { path };
	struct bw_build_req req;
	struct bw_image img;
	struct bw_build b;
	void *mem = NULL, *buf = NULL;
	size_t len = 0;
	__u32 nblocks;

	snprintf(path, sizeof(path), "/tmp/bw-keys-list.%d", (int)getpid());
	put_file(path, "10.0.0.1\n", 0644);
	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 1;
	req.opts.seed = 3;
	req.origin = 0;
	if (!ASSERT_OK(bw_build_plan(&req, &b), "plan"))
		return;
	b.rec.have_image = true;
	b.rec.image = (struct bw_rec_image){ .serial = 1, .flags = 1 };
	nblocks = bw_build_blocks(&b);
	mem = calloc(nblocks, BW_BLOCK_BYTES);
	if (mem) {
		bw_build_fill(&b, mem);
		if (bw_image_encode(mem, nblocks, &buf, &len))
			buf = NULL;
	}
	bw_build_free(&b);
	if (ASSERT_OK_PTR(buf, "image")) {
		ASSERT_EQ(bw_image_check(buf, len, &img, why, sizeof(why)),
			  -EINVAL, "a signer in the file's record");
		ASSERT_STRSTR(why, "image record: signer or flags set",
			      "says which record");
	}
	free(buf);
	free(mem);
	unlink(path);
}
