/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What bloomwall asks of a URL it fetches (http.h): its scheme, and its
 * origin, which a request with credentials never leaves.
 */
#ifndef __BW_URL_H
#define __BW_URL_H

#include <stdbool.h>
#include <stddef.h>

/* "http" or "https" (the scheme of url, lower case), or NULL for others. */
const char *bw_url_scheme(const char *url);

/*
 * url's origin, "scheme://host:port" in lower case (the scheme's port
 * when it names none), into buf; false when url does not parse (libcurl's
 * URL parser), buf is too short or libcurl cannot be loaded.
 */
bool bw_url_origin(const char *url, char *buf, size_t len);

/*
 * url with the password of its userinfo ("user:secret@host") as "***",
 * into buf (cut to fit): the form a URL is printed, logged, exported and
 * kept in a cache's meta in, so that a list's credential goes only to its
 * server. A URL without one is copied as it is. Returns buf.
 */
const char *bw_url_redacted(const char *url, char *buf, size_t len);

/*
 * url as a message prints it: redacted, and escaped as status prints
 * outside text (base/output.h's bw_esc: no control byte reaches a
 * terminal or splits a log line), cut with "..." to fit buf. Returns buf.
 */
const char *bw_url_said(const char *url, char *buf, size_t len);

#endif /* __BW_URL_H */
