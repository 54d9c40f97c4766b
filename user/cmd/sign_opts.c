// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The option tables of signed images (sign_opts.h); sign_args.c parses
 * them.
 */
#include "cmd/cli.h"
#include "cmd/sign_opts.h"
#include "image/sign_key.h"

const struct bw_opt bw_sign_build_opts[] = {
	{ "sign-key", BW_OPT_SIGN_KEY, "SECRET",
	  "sign the image with the secret key file SECRET ('bloomwall keygen')" },
	{ "serial", BW_OPT_SERIAL, "N",
	  "the image's serial (default: its lists' newest mtime, in seconds)" },
	{ 0 },
};

#define VERIFY_KEY_OPT                                                                            \
	{                                                                                         \
		"verify-key", BW_OPT_VERIFY_KEY, "PUBLIC",                                        \
			"require a signature by a key in PUBLIC (default: " BW_VERIFY_KEY_DEFAULT \
			" if there)"                                                              \
	}

const struct bw_opt bw_verify_opts[] = {
	VERIFY_KEY_OPT,
	{ 0 },
};

const struct bw_opt bw_verify_load_opts[] = {
	VERIFY_KEY_OPT,
	{ "allow-rollback", BW_OPT_ALLOW_ROLLBACK, NULL,
	  "take an image with a lower serial than the running filter's" },
	{ 0 },
};

const struct bw_opt bw_keygen_opts[] = {
	{ "force", BW_OPT_FORCE, NULL, "replace existing key files" },
	{ 0 },
};
