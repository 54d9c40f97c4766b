/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The option tables of signed images, for the verbs that take them; they
 * set struct bw_args' sign (cli.h).
 */
#ifndef __BW_SIGN_ARGS_H
#define __BW_SIGN_ARGS_H

struct bw_opt;

/* build's: --sign-key, --serial. */
extern const struct bw_opt bw_sign_build_opts[];
/* inspect's: --verify-key. */
extern const struct bw_opt bw_verify_opts[];
/* load's and watch's: --verify-key, --allow-rollback. */
extern const struct bw_opt bw_verify_load_opts[];
/* keygen's: --force. */
extern const struct bw_opt bw_keygen_opts[];

#endif /* __BW_SIGN_ARGS_H */
