/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall query IFACE ADDR|NAME...: the verb's table (cmd_query.c). */
#ifndef __BW_CMD_QUERY_H
#define __BW_CMD_QUERY_H

struct bw_verb;

extern const struct bw_verb bw_verb_query;

#endif /* __BW_CMD_QUERY_H */
