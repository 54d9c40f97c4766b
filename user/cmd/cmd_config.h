/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall config check|show FILE: the verb's table (cmd_config.c). */
#ifndef __BW_CMD_CONFIG_H
#define __BW_CMD_CONFIG_H

struct bw_verb;

extern const struct bw_verb bw_verb_config;

#endif /* __BW_CMD_CONFIG_H */
