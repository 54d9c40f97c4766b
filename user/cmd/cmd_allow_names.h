/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* allow/unallow IFACE NAME...: the name allowlist (cmd_allow_names.c). */
#ifndef __BW_CMD_ALLOW_NAMES_H
#define __BW_CMD_ALLOW_NAMES_H

#include <stdbool.h>

struct bw_args;

/* on: allow (else unallow); verb names the verb in messages. */
int bw_allow_names_verb(const char *verb, struct bw_args *a, bool on);

#endif /* __BW_CMD_ALLOW_NAMES_H */
