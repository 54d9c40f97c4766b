/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * watch's CrowdSec options (--crowdsec URL and the rest): their table,
 * which sets struct bw_args' cs (cli.h), and the check of them once
 * parsed.
 */
#ifndef __BW_CS_ARGS_H
#define __BW_CS_ARGS_H

struct bw_opt;
struct bw_cs_args;
struct bw_cs_cfg;

/* A CrowdSec decision source (daemon/crowdsec.h, README "CrowdSec bouncer"). */
extern const struct bw_opt bw_cs_opts[];

/* The source's options, NULL without --crowdsec (-BW_EUSAGE in *err when
 * other CrowdSec options came without it, said). */
const struct bw_cs_cfg *bw_cs_args_cfg(const struct bw_cs_args *a, int *err);

#endif /* __BW_CS_ARGS_H */
