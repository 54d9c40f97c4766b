/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What tests/load/flood.c and its BPF programs agree on. */
#ifndef __FLOOD_H
#define __FLOOD_H

#define FLOOD_SETS 3	/* in both lists, in A only, in neither */
#define FLOOD_SRCS 256	/* sources a set, a power of two */
#define FLOOD_PORT 9000 /* set s goes to UDP port FLOOD_PORT + s */

#endif /* __FLOOD_H */
