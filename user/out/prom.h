/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Prometheus' text exposition format, the pieces every metrics writer
 * (metrics.c, cs_metrics.c, pull_out.c) shares: a label escaped as the
 * format asks, and a family's HELP and TYPE lines.
 */
#ifndef __BW_PROM_H
#define __BW_PROM_H

#include <stdbool.h>
#include <stdio.h>

/*
 * name="val" (first: no comma before it): \, " and newline escaped as the
 * format asks, other bytes outside printable ASCII as the text \xHH.
 */
void bw_prom_label(FILE *f, const char *name, const char *val, bool first);

/* "# HELP name text" and "# TYPE name type". */
void bw_prom_help(FILE *f, const char *name, const char *type,
		  const char *text);

#endif /* __BW_PROM_H */
