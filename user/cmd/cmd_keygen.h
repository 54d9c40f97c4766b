/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall keygen SECRET PUBLIC: the verb's table (cmd_keygen.c). */
#ifndef __BW_CMD_KEYGEN_H
#define __BW_CMD_KEYGEN_H

struct bw_verb;

extern const struct bw_verb bw_verb_keygen;

#endif /* __BW_CMD_KEYGEN_H */
