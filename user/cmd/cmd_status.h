/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall status [IFACE]: the verb's table (cmd_status.c). */
#ifndef __BW_CMD_STATUS_H
#define __BW_CMD_STATUS_H

struct bw_verb;

extern const struct bw_verb bw_verb_status;

#endif /* __BW_CMD_STATUS_H */
