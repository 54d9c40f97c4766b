/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall inspect FILE: the verb's table (cmd_inspect.c). */
#ifndef __BW_CMD_INSPECT_H
#define __BW_CMD_INSPECT_H

struct bw_verb;

extern const struct bw_verb bw_verb_inspect;

#endif /* __BW_CMD_INSPECT_H */
