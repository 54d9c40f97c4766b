/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall load IFACE FILE: the verb's table (cmd_load.c). */
#ifndef __BW_CMD_LOAD_H
#define __BW_CMD_LOAD_H

struct bw_verb;

extern const struct bw_verb bw_verb_load;

#endif /* __BW_CMD_LOAD_H */
