// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Prometheus' text format, the shared pieces (prom.h). */
#include "out/prom.h"

void bw_prom_label(FILE *f, const char *name, const char *val, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (; *val; val++) {
		if (*val == '\\' || *val == '"')
			fprintf(f, "\\%c", *val);
		else if (*val == '\n')
			fputs("\\n", f);
		else
			fputc(*val, f);
	}
	fputc('"', f);
}

void bw_prom_help(FILE *f, const char *name, const char *type, const char *text)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}
