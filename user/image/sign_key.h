/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The keys images are signed with (libsodium's Ed25519): made by
 * 'bloomwall keygen', read by 'build --sign-key' (the secret) and by the
 * verbs that take '--verify-key' (the public ones). No bpf().
 *
 * Both files are one line of text:
 *
 *   bloomwall-ed25519-secret BASE64        (the 64-byte libsodium secret
 *                                           key: seed, then public key)
 *   bloomwall-ed25519-pub BASE64 [COMMENT] (the 32-byte public key)
 *
 * BASE64 is standard base64 with padding. A file of public keys may hold
 * several, one a line (a key rotation trusts the old and the new); empty
 * lines and lines from '#' are skipped. keygen writes the key id as the
 * public line's comment. A key's id is the first 8 bytes of the SHA-256
 * of its 32 raw bytes, in hex ("base64 -d | sha256sum" gives it), and
 * names the key everywhere (inspect, status, metrics, messages).
 *
 * A secret key file must be the caller's alone: one that group or others
 * may read or write is refused (chmod 600). keygen writes both files
 * atomically (a temporary file beside each, fsync, link or rename) and
 * never replaces an existing one without force.
 */
#ifndef __BW_SIGN_KEY_H
#define __BW_SIGN_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define BW_KEY_PUB_TAG "bloomwall-ed25519-pub"
#define BW_KEY_SEC_TAG "bloomwall-ed25519-secret"
#define BW_KEY_PK_BYTES 32
#define BW_KEY_SK_BYTES 64
#define BW_KEY_ID_BYTES 8
#define BW_KEY_ID_HEX (2 * BW_KEY_ID_BYTES + 1)
/* A file of public keys holds at most this many. */
#define BW_KEYS_MAX 64
/* The trusted keys used when no --verify-key is given, if the file is there. */
#define BW_VERIFY_KEY_DEFAULT "/etc/bloomwall/verify.pub"

struct bw_pubkey {
	__u8 pk[BW_KEY_PK_BYTES];
	__u8 id[BW_KEY_ID_BYTES];
};

struct bw_seckey {
	__u8 sk[BW_KEY_SK_BYTES];
	struct bw_pubkey pub;
};

/*
 * The keys an image must be signed by, one of them: none (n 0) means no
 * signature is required. source names them in messages ("FILE", or
 * "/etc/bloomwall/verify.pub (the default)").
 */
struct bw_verify_keys {
	struct bw_pubkey k[BW_KEYS_MAX];
	int n;
	char source[320];
};

/* The id of a public key (SHA-256, first 8 bytes). */
void bw_key_id(const __u8 pk[BW_KEY_PK_BYTES], __u8 id[BW_KEY_ID_BYTES]);

/* 16 hex digits and a NUL in buf (BW_KEY_ID_HEX bytes): buf. */
const char *bw_key_id_hex(const __u8 id[BW_KEY_ID_BYTES], char *buf);

/*
 * A new key pair written to sec_path (mode 0600) and pub_path (0644),
 * neither replaced unless force; *out is its public key. Says what
 * failed, naming the file; -EEXIST for one there without force, -errno.
 */
int bw_keygen(const char *sec_path, const char *pub_path, bool force,
	      struct bw_pubkey *out);

/*
 * Reads a secret key file: a regular file of the caller's alone, one
 * line, a key whose public half is what its seed gives. Says what is
 * wrong, naming path; -EPERM for a file group or others may read or
 * write, -EINVAL for one that is not a key, -errno.
 */
int bw_seckey_read(const char *path, struct bw_seckey *k);

/* Wipes a secret key from memory. */
void bw_seckey_wipe(struct bw_seckey *k);

/*
 * Reads the public keys of path into ks (replacing what it held): at
 * least one. Says what is wrong with which line; -EINVAL, -errno.
 */
int bw_verify_keys_read(const char *path, struct bw_verify_keys *ks);

/*
 * The keys a verb requires: those of given (--verify-key), else those of
 * def when that file exists (BW_VERIFY_KEY_DEFAULT; NULL: no default),
 * else none (ks->n 0). A default that is there but unreadable or not
 * keys is an error, never "no keys". -errno, said.
 */
int bw_verify_keys_resolve(const char *given, const char *def,
			   struct bw_verify_keys *ks);

/* The trusted key of id in ks, or NULL. */
const struct bw_pubkey *bw_verify_keys_find(const struct bw_verify_keys *ks,
					    const __u8 id[BW_KEY_ID_BYTES]);

/* "KEYID, KEYID" of ks (at most a few, then "..."), into buf. */
const char *bw_verify_keys_ids(const struct bw_verify_keys *ks, char *buf,
			       size_t len);

#endif /* __BW_SIGN_KEY_H */
