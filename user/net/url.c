// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * URLs (url.h), parsed by libcurl's URL API (net/dl_libs.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>

#include "base/output.h"
#include "net/dl_libs.h"
#include "net/url.h"

const char *bw_url_scheme(const char *url)
{
	if (!strncasecmp(url, "https://", 8))
		return "https";
	if (!strncasecmp(url, "http://", 7))
		return "http";
	return NULL;
}

bool bw_url_origin(const char *url, char *buf, size_t len)
{
	CURLU *u;
	char *scheme = NULL, *host = NULL, *port = NULL;
	bool ok;

	if (bw_curl_load(NULL, 0))
		return false;
	u = bw_curl.url();
	ok = u && !bw_curl.url_set(u, CURLUPART_URL, url, 0) &&
	     !bw_curl.url_get(u, CURLUPART_SCHEME, &scheme, 0) &&
	     !bw_curl.url_get(u, CURLUPART_HOST, &host, 0) &&
	     !bw_curl.url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
	if (ok)
		ok = snprintf(buf, len, "%s://%s:%s", scheme, host, port) <
		     (int)len;
	if (ok)
		for (char *c = buf; *c; c++)
			*c = (char)tolower((unsigned char)*c);
	bw_curl.free(scheme);
	bw_curl.free(host);
	bw_curl.free(port);
	bw_curl.url_cleanup(u);
	return ok;
}

const char *bw_url_redacted(const char *url, char *buf, size_t len)
{
	const char *auth = strstr(url, "://"), *end, *at = NULL, *colon, *p;

	if (auth) {
		auth += 3;
		end = auth + strcspn(auth, "/?#");
		/* The userinfo ends at the authority's last '@'. */
		for (p = auth; p < end; p++)
			if (*p == '@')
				at = p;
		colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
		if (colon) {
			snprintf(buf, len, "%.*s***%s", (int)(colon + 1 - url),
				 url, at);
			return buf;
		}
	}
	snprintf(buf, len, "%s", url);
	return buf;
}

const char *bw_url_said(const char *url, char *buf, size_t len)
{
	char shown[2048];

	return bw_esc(buf, len, bw_url_redacted(url, shown, sizeof(shown)));
}
