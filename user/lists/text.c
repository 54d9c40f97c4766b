// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Text for messages about list lines and arguments: the offending bytes
 * quoted and escaped, and the "what: "text"" form every bad line takes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/output.h"
#include "lists/text.h"

/*
 * Quotes s for a message: "text", cut to BW_QUOTE_MAX characters with "...".
 * A bad line may hold anything, and printed raw its bytes would reach the
 * operator's terminal (escape sequences, invisible characters): escaped as
 * base/output.h's bw_esc_mem does, '"' too.
 */
const char *bw_quote(char *out, size_t outlen, const char *s, size_t len)
{
	size_t o, i = bw_esc_mem(out, BW_QUOTE_MAX, s, len, true);

	o = strlen(out);
	snprintf(out + o, outlen - o, "%s", i < len ? "..." : "");
	return out;
}

/* Formats "what: "text"", the text quoted. */
int bw_list_fail(char *err, size_t errlen, const char *what, const char *s,
		 size_t len)
{
	char q[BW_QUOTE_BUF];

	snprintf(err, errlen, "%s: \"%s\"", what,
		 bw_quote(q, sizeof(q), s, len));
	return -EINVAL;
}

size_t bw_word(const char *s, size_t len, size_t *pos, const char **w)
{
	size_t i = *pos, start;
	const char *q;

	while (i < len && bw_is_blank(s[i]))
		i++;
	start = i;
	if (i < len && s[i] == '"') {
		q = memchr(s + i + 1, '"', len - i - 1);
		i = q ? (size_t)(q - s) + 1 : len;
	} else {
		while (i < len && !bw_is_blank(s[i]))
			i++;
	}
	*w = s + start;
	*pos = i;
	return i - start;
}

bool bw_word_is(const char *w, size_t n, const char *kw)
{
	return strlen(kw) == n && !strncasecmp(w, kw, n);
}
