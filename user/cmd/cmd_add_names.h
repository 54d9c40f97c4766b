/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* add IFACE NAME...: names instead of addresses (cmd_add_names.c). */
#ifndef __BW_CMD_ADD_NAMES_H
#define __BW_CMD_ADD_NAMES_H

struct bw_args;

int bw_add_names(struct bw_args *a);

#endif /* __BW_CMD_ADD_NAMES_H */
