/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall stats IFACE: the verb's table (cmd_stats.c). */
#ifndef __BW_CMD_STATS_H
#define __BW_CMD_STATS_H

struct bw_verb;

extern const struct bw_verb bw_verb_stats;

#endif /* __BW_CMD_STATS_H */
