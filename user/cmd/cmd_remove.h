/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall remove IFACE ADDR|CIDR|NAME...: the verb's table (cmd_remove.c). */
#ifndef __BW_CMD_REMOVE_H
#define __BW_CMD_REMOVE_H

struct bw_verb;

extern const struct bw_verb bw_verb_remove;

#endif /* __BW_CMD_REMOVE_H */
