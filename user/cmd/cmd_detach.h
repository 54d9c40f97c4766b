/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall detach IFACE: the verb's table (cmd_detach.c). */
#ifndef __BW_CMD_DETACH_H
#define __BW_CMD_DETACH_H

struct bw_verb;

extern const struct bw_verb bw_verb_detach;

#endif /* __BW_CMD_DETACH_H */
