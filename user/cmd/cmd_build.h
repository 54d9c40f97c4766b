/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bloomwall build -o FILE [OPTIONS] LIST...: the verb's table (cmd_build.c). */
#ifndef __BW_CMD_BUILD_H
#define __BW_CMD_BUILD_H

struct bw_verb;

extern const struct bw_verb bw_verb_build;

#endif /* __BW_CMD_BUILD_H */
