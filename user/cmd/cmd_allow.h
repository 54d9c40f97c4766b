/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * bloomwall allow and unallow IFACE ADDR|CIDR|NAME...: the verbs' tables
 * (cmd_allow.c).
 */
#ifndef __BW_CMD_ALLOW_H
#define __BW_CMD_ALLOW_H

struct bw_verb;

extern const struct bw_verb bw_verb_allow;
extern const struct bw_verb bw_verb_unallow;

#endif /* __BW_CMD_ALLOW_H */
