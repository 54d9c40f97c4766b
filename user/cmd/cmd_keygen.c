// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall keygen SECRET PUBLIC: an Ed25519 key pair for signed images
 * (sign_key.h): the secret key for 'build --sign-key', the public key for
 * '--verify-key' (or /etc/bloomwall/verify.pub). No root, no bpf().
 */
#include "base/output.h"
#include "cmd/cli.h"
#include "cmd/cmd_keygen.h"
#include "cmd/sign_args.h"
#include "image/sign_key.h"

static int do_keygen(struct bw_args *a)
{
	char hex[BW_KEY_ID_HEX];
	struct bw_pubkey pub;
	int err;

	err = bw_keygen(a->file, a->pos[0], a->sign.force, &pub);
	if (err)
		return err;
	bw_out_string("secret", "%s: secret key written (mode 0600)\n",
		      a->file);
	bw_out_string("public", "%s: public key written: ", a->pos[0]);
	bw_out_string("key_id", "key id %s\n", bw_key_id_hex(pub.id, hex));
	return 0;
}

const struct bw_verb bw_verb_keygen = {
	.name = "keygen",
	.summary = "write a new key pair for signed images",
	.synopsis = "[--force] SECRET PUBLIC",
	.details =
		"Writes an Ed25519 key pair (libsodium): the secret key to SECRET, mode\n"
		"0600, for 'bloomwall build --sign-key SECRET'; the public key to PUBLIC,\n"
		"for '--verify-key PUBLIC' of load, inspect and watch, or to install as\n"
		"/etc/bloomwall/verify.pub, which they then require by default. Each file\n"
		"is one line: \"bloomwall-ed25519-secret BASE64\" and\n"
		"\"bloomwall-ed25519-pub BASE64 key-id:ID\"; a public key file may hold\n"
		"several keys, one a line (a rotation trusts the old and the new). The key\n"
		"id is the first 8 bytes of the SHA-256 of the 32-byte public key, in hex.\n"
		"Both are written atomically; an existing file is never replaced unless\n"
		"--force. A secret key file open to group or others is refused when used.\n"
		"With --json: {\"secret\", \"public\", \"key_id\"}.\n",
	.opts = (const struct bw_opt *const[]){ bw_keygen_opts, NULL },
	.pos = { .first = BW_POS_FILE, .rest = "PUBLIC", .min_rest = 1 },
	.run = do_keygen,
};
