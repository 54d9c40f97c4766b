/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall watch IFACE [OPTIONS] LIST...: the verb's table (cmd_watch.c). */
#ifndef __BW_CMD_WATCH_H
#define __BW_CMD_WATCH_H

struct bw_verb;

extern const struct bw_verb bw_verb_watch;

#endif /* __BW_CMD_WATCH_H */
