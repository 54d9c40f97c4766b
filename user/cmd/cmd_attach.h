/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall attach IFACE [OPTIONS] LIST...: the verb's table (cmd_attach.c). */
#ifndef __BW_CMD_ATTACH_H
#define __BW_CMD_ATTACH_H

struct bw_verb;

extern const struct bw_verb bw_verb_attach;

#endif /* __BW_CMD_ATTACH_H */
