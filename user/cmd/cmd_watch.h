/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall watch IFACE [OPTIONS] LIST...: the verb's table (cmd_watch.c). */
#ifndef __BW_CMD_WATCH_H
#define __BW_CMD_WATCH_H

struct bw_verb;
struct bw_cs_args;
struct bw_cs_cfg;

extern const struct bw_verb bw_verb_watch;

/*
 * The CrowdSec source's options (--crowdsec URL and the rest), NULL
 * without --crowdsec (-BW_EUSAGE in *err when other CrowdSec options came
 * without it, said).
 */
const struct bw_cs_cfg *bw_cs_args_cfg(const struct bw_cs_args *a, int *err);

#endif /* __BW_CMD_WATCH_H */
