// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Key files for signed images (sign_key.h): generating a pair, reading a
 * secret key and a file of trusted public keys. libsodium does the
 * cryptography; this file the formats and the file handling.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/log.h"
#include "image/sign_key.h"

/* Longest key file read: a file of BW_KEYS_MAX keys with comments. */
#define KEY_FILE_MAX (64 * 1024)

static int sodium_ready(void)
{
	if (sodium_init() < 0) {
		pr_warn("bloomwall: libsodium cannot start\n");
		return -EIO;
	}
	return 0;
}

void bw_key_id(const __u8 pk[BW_KEY_PK_BYTES], __u8 id[BW_KEY_ID_BYTES])
{
	__u8 h[crypto_hash_sha256_BYTES];

	crypto_hash_sha256(h, pk, BW_KEY_PK_BYTES);
	memcpy(id, h, BW_KEY_ID_BYTES);
}

const char *bw_key_id_hex(const __u8 id[BW_KEY_ID_BYTES], char *buf)
{
	sodium_bin2hex(buf, BW_KEY_ID_HEX, id, BW_KEY_ID_BYTES);
	return buf;
}

void bw_seckey_wipe(struct bw_seckey *k)
{
	sodium_memzero(k, sizeof(*k));
}

/*
 * The whole of a small regular file that only root and the caller can
 * change (bw_file_trusted; and read, when secret), NUL-terminated; free()
 * it. -EPERM, said, for one others could change.
 */
static int read_small(const char *path, const char *what, bool secret,
		      char **out)
{
	char why[PATH_MAX + 256];
	struct stat st;
	size_t len = 0;
	ssize_t n;
	char *buf;
	int fd, err;

	fd = bw_open_regular(path, what, &st);
	if (fd < 0)
		return fd;
	err = bw_file_trusted(fd, path, what, secret, why, sizeof(why));
	if (err) {
		pr_warn("%s: refused: %s\n", path, why);
		close(fd);
		return err;
	}
	buf = malloc(KEY_FILE_MAX + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len <= KEY_FILE_MAX &&
	       (n = read(fd, buf + len, KEY_FILE_MAX + 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			pr_warn("%s: cannot read the %s: %s\n", path, what,
				strerror((int)-n));
			sodium_memzero(buf, KEY_FILE_MAX + 1);
			free(buf);
			close(fd);
			return (int)n;
		}
		len += (size_t)n;
	}
	close(fd);
	if (len > KEY_FILE_MAX) {
		pr_warn("%s: not a %s: longer than %d bytes\n", path, what,
			KEY_FILE_MAX);
		free(buf);
		return -EINVAL;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/*
 * "TAG BASE64[ COMMENT]" of exactly n bytes into out; 0, or -EINVAL with
 * why. line ends at its newline or NUL.
 */
static int parse_line(const char *line, const char *tag, __u8 *out, size_t n,
		      const char **why)
{
	size_t tl = strlen(tag), bl, got = 0;
	const char *b64, *end;

	if (strncmp(line, tag, tl) || line[tl] != ' ') {
		*why = "it does not start with the key's tag";
		return -EINVAL;
	}
	b64 = line + tl + 1;
	for (end = b64; *end && *end != ' ' && *end != '\n' && *end != '\r';
	     end++)
		;
	bl = (size_t)(end - b64);
	if (sodium_base642bin(out, n, b64, bl, NULL, &got, NULL,
			      sodium_base64_VARIANT_ORIGINAL) ||
	    got != n) {
		*why = "its key is not base64 of the right length";
		return -EINVAL;
	}
	return 0;
}

int bw_seckey_read(const char *path, struct bw_seckey *k)
{
	__u8 pk[BW_KEY_PK_BYTES], sk[BW_KEY_SK_BYTES];
	const char *why = NULL;
	char *text = NULL;
	int err;

	memset(k, 0, sizeof(*k));
	err = sodium_ready()
		      ?: read_small(path, "secret key file", true, &text);
	if (err)
		return err;
	if (parse_line(text, BW_KEY_SEC_TAG, k->sk, sizeof(k->sk), &why)) {
		pr_warn("%s: not a bloomwall secret key (\"%s BASE64\"): %s\n",
			path, BW_KEY_SEC_TAG, why);
		err = -EINVAL;
	} else {
		/* The public half must be what the seed gives. */
		crypto_sign_seed_keypair(pk, sk, k->sk);
		sodium_memzero(sk, sizeof(sk));
		if (memcmp(pk, k->sk + 32, sizeof(pk))) {
			pr_warn("%s: a corrupt secret key: its public half is not its seed's\n",
				path);
			err = -EINVAL;
		}
	}
	sodium_memzero(text, strlen(text));
	free(text);
	if (err) {
		bw_seckey_wipe(k);
		return err;
	}
	memcpy(k->pub.pk, k->sk + 32, sizeof(k->pub.pk));
	bw_key_id(k->pub.pk, k->pub.id);
	return 0;
}

/* One line of a public key file: a key (1), nothing (0), or -EINVAL. */
static int read_pub_line(const char *path, int lineno, const char *line,
			 struct bw_verify_keys *ks)
{
	const char *why = NULL;
	struct bw_pubkey *k;

	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line || *line == '\n' || *line == '\r' || *line == '#')
		return 0;
	if (ks->n == BW_KEYS_MAX) {
		pr_warn("%s:%d: more than %d keys\n", path, lineno,
			BW_KEYS_MAX);
		return -EINVAL;
	}
	k = &ks->k[ks->n];
	if (parse_line(line, BW_KEY_PUB_TAG, k->pk, sizeof(k->pk), &why)) {
		pr_warn("%s:%d: not a bloomwall public key (\"%s BASE64\"): %s\n",
			path, lineno, BW_KEY_PUB_TAG, why);
		return -EINVAL;
	}
	bw_key_id(k->pk, k->id);
	ks->n++;
	return 1;
}

int bw_verify_keys_read(const char *path, struct bw_verify_keys *ks)
{
	char *text = NULL, *line, *nl;
	int lineno = 0, err;

	ks->n = 0;
	err = sodium_ready()
		      ?: read_small(path, "public key file", false, &text);
	if (err)
		return err;
	for (line = text; !err && line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		err = read_pub_line(path, ++lineno, line, ks);
		err = err < 0 ? err : 0;
	}
	free(text);
	if (!err && !ks->n) {
		pr_warn("%s: holds no public key (\"%s BASE64\" lines)\n", path,
			BW_KEY_PUB_TAG);
		err = -EINVAL;
	}
	if (err)
		ks->n = 0;
	return err;
}

int bw_verify_keys_resolve(const char *given, const char *def,
			   struct bw_verify_keys *ks)
{
	struct stat st;

	ks->n = 0;
	ks->source[0] = '\0';
	if (given) {
		snprintf(ks->source, sizeof(ks->source), "%s", given);
		return bw_verify_keys_read(given, ks);
	}
	/* A default that is there is trusted, or refuses: never skipped. */
	if (!def || (lstat(def, &st) && errno == ENOENT))
		return 0;
	snprintf(ks->source, sizeof(ks->source), "%s (the default)", def);
	return bw_verify_keys_read(def, ks);
}

const struct bw_pubkey *bw_verify_keys_find(const struct bw_verify_keys *ks,
					    const __u8 id[BW_KEY_ID_BYTES])
{
	int i;

	for (i = 0; ks && i < ks->n; i++)
		if (!memcmp(ks->k[i].id, id, BW_KEY_ID_BYTES))
			return &ks->k[i];
	return NULL;
}

const char *bw_verify_keys_ids(const struct bw_verify_keys *ks, char *buf,
			       size_t len)
{
	char hex[BW_KEY_ID_HEX];
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < ks->n && off < len; i++) {
		if (i == 4) {
			snprintf(buf + off, len - off, ", ...");
			break;
		}
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? ", " : "",
					bw_key_id_hex(ks->k[i].id, hex));
	}
	return buf;
}

/*
 * text into path, mode mode, atomically: a temporary file (0600 from its
 * creation) beside it, fsync, then link (no force: an existing path stays
 * and -EEXIST) or rename over it. Says what failed.
 */
static int write_key_file(const char *path, const char *text, mode_t mode,
			  bool force)
{
	char *dir = bw_dir_of(path), *tmp = NULL;
	int fd = -1, err = -ENOMEM;

	if (dir && asprintf(&tmp, "%s/.bloomwall-key.XXXXXX", dir) < 0)
		tmp = NULL;
	if (tmp)
		fd = mkstemp(tmp);
	if (tmp && fd < 0)
		err = -errno;
	if (fd >= 0) {
		err = fchmod(fd, mode) ? -errno : 0;
		err = err ?: bw_write_all(fd, text, strlen(text));
		if (!err && fsync(fd))
			err = -errno;
		if (close(fd) && !err)
			err = -errno;
		if (!err)
			err = force ? (rename(tmp, path) ? -errno : 0)
				    : (link(tmp, path) ? -errno : 0);
		unlink(tmp); /* after link; gone already after rename */
	}
	if (err == -EEXIST)
		pr_warn("%s: exists: not replaced (--force replaces it)\n",
			path);
	else if (err)
		pr_warn("%s: cannot write the key: %s\n", path, strerror(-err));
	free(tmp);
	free(dir);
	return err;
}

/* "TAG BASE64[ COMMENT]\n" of n bytes; free() it. */
static char *key_line(const char *tag, const __u8 *key, size_t n,
		      const char *comment)
{
	size_t b64len =
		sodium_base64_encoded_len(n, sodium_base64_VARIANT_ORIGINAL);
	char *b64 = malloc(b64len), *line = NULL;

	if (!b64)
		return NULL;
	sodium_bin2base64(b64, b64len, key, n, sodium_base64_VARIANT_ORIGINAL);
	if (asprintf(&line, "%s %s%s%s\n", tag, b64, comment ? " " : "",
		     comment ?: "") < 0)
		line = NULL;
	sodium_memzero(b64, b64len);
	free(b64);
	return line;
}

/* Neither file there (without force), before anything is written. */
static int check_free(const char *path, bool force)
{
	struct stat st;

	if (lstat(path, &st))
		return 0;
	if (!S_ISREG(st.st_mode))
		return bw_check_replaceable(path, "key file");
	if (force)
		return 0;
	pr_warn("%s: exists: not replaced (--force replaces it)\n", path);
	return -EEXIST;
}

int bw_keygen(const char *sec_path, const char *pub_path, bool force,
	      struct bw_pubkey *out)
{
	struct bw_seckey k;
	char hex[BW_KEY_ID_HEX], comment[40];
	char *sline = NULL, *pline = NULL;
	int err;

	if (!strcmp(sec_path, pub_path)) {
		pr_warn("bloomwall keygen: the secret and the public key need two files\n");
		return -EINVAL;
	}
	err = sodium_ready() ?: check_free(sec_path, force);
	err = err ?: check_free(pub_path, force);
	if (err)
		return err;
	crypto_sign_keypair(k.pub.pk, k.sk);
	bw_key_id(k.pub.pk, k.pub.id);
	snprintf(comment, sizeof(comment), "key-id:%s",
		 bw_key_id_hex(k.pub.id, hex));
	sline = key_line(BW_KEY_SEC_TAG, k.sk, sizeof(k.sk), NULL);
	pline = key_line(BW_KEY_PUB_TAG, k.pub.pk, sizeof(k.pub.pk), comment);
	err = sline && pline ? 0 : -ENOMEM;
	if (err)
		pr_warn("bloomwall keygen: out of memory\n");
	err = err ?: write_key_file(sec_path, sline, 0600, force);
	if (!err) {
		err = write_key_file(pub_path, pline, 0644, force);
		/* No secret without its public key: the pair, or neither. */
		if (err && !force)
			unlink(sec_path);
	}
	if (!err)
		*out = k.pub;
	if (sline)
		sodium_memzero(sline, strlen(sline));
	free(sline);
	free(pline);
	bw_seckey_wipe(&k);
	return err;
}
