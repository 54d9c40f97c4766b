/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * watch --url's options (daemon/pull.h): their table, which sets struct
 * bw_args' pull (cli.h).
 */
#ifndef __BW_PULL_ARGS_H
#define __BW_PULL_ARGS_H

struct bw_opt;

extern const struct bw_opt bw_pull_opts[];

#endif /* __BW_PULL_ARGS_H */
