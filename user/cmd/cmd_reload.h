/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall reload IFACE [OPTIONS] LIST...: the verb's table (cmd_reload.c). */
#ifndef __BW_CMD_RELOAD_H
#define __BW_CMD_RELOAD_H

struct bw_verb;

extern const struct bw_verb bw_verb_reload;

#endif /* __BW_CMD_RELOAD_H */
