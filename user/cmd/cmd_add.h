/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall add IFACE ADDR|CIDR|NAME...: the verb's table (cmd_add.c). */
#ifndef __BW_CMD_ADD_H
#define __BW_CMD_ADD_H

struct bw_verb;

extern const struct bw_verb bw_verb_add;

#endif /* __BW_CMD_ADD_H */
