// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Prometheus' text format, the shared pieces (prom.h). */
#include <string.h>

#include "base/output.h"
#include "out/prom.h"

/*
 * The value as status prints it (bw_esc_mem: printable ASCII, the rest as
 * \xHH), then in the format's escapes: it keeps only \\, \" and \n, so
 * each other escape's backslash is doubled and reads back as the text
 * \xHH. A label thus never carries an ESC sequence to a terminal, nor a
 * byte that is not UTF-8, which would fail the whole scrape.
 */
void bw_prom_label(FILE *f, const char *name, const char *val, bool first)
{
	char buf[BW_ESC_BUF(64)], *p;
	size_t len = strlen(val), took;

	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	while (len) {
		took = bw_esc_mem(buf, sizeof(buf) - 1, val, len, true);
		for (p = buf; *p; p++) {
			if (*p == '\\' && p[1] != '\\' && p[1] != '"' &&
			    p[1] != 'n')
				fputc('\\', f);
			else if (*p == '\\')
				fputc(*p++, f);
			fputc(*p, f);
		}
		val += took;
		len -= took;
	}
	fputc('"', f);
}

void bw_prom_help(FILE *f, const char *name, const char *type, const char *text)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}
