/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * bloomwall.h - everything the XDP program and the CLI share, in one
 * include: the layout contract (bw_layout.h) and the hash and block code
 * (bw_hash.h). New code may include just the one it needs.
 */
#ifndef __BLOOMWALL_H
#define __BLOOMWALL_H

#include "bw_layout.h"
#include "bw_hash.h"

#endif /* __BLOOMWALL_H */
