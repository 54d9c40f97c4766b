/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall log IFACE: the verb's table (cmd_log.c). */
#ifndef __BW_CMD_LOG_H
#define __BW_CMD_LOG_H

struct bw_verb;

extern const struct bw_verb bw_verb_log;

#endif /* __BW_CMD_LOG_H */
