// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libcurl's result codes as errno values (curl_errno.h).
 */
#include <errno.h>
#include <curl/curl.h>

#include "net/curl_errno.h"

/* libcurl's codes as errno values; one not listed is -EIO. */
static const int curl_errnos[CURL_LAST] = {
	[CURLE_OPERATION_TIMEDOUT] = ETIMEDOUT,
	[CURLE_COULDNT_CONNECT] = ECONNREFUSED,
	[CURLE_COULDNT_RESOLVE_HOST] = EHOSTUNREACH,
	[CURLE_COULDNT_RESOLVE_PROXY] = EHOSTUNREACH,
	[CURLE_FILESIZE_EXCEEDED] = EFBIG,
	[CURLE_PARTIAL_FILE] = EPIPE,
	[CURLE_RECV_ERROR] = EPIPE,
	[CURLE_GOT_NOTHING] = EPIPE,
	[CURLE_URL_MALFORMAT] = EINVAL,
	[CURLE_UNSUPPORTED_PROTOCOL] = EINVAL,
	[CURLE_OUT_OF_MEMORY] = ENOMEM,
	[CURLE_SSL_CONNECT_ERROR] = EPROTO,
	[CURLE_PEER_FAILED_VERIFICATION] = EPROTO,
	[CURLE_SSL_CERTPROBLEM] = EPROTO,
	[CURLE_SSL_CACERT_BADFILE] = EPROTO,
	[CURLE_TOO_MANY_REDIRECTS] = EPROTO,
	[CURLE_WEIRD_SERVER_REPLY] = EPROTO,
	[CURLE_HTTP2] = EPROTO,
};

int bw_curl_errno(CURLcode rc)
{
	if (rc == CURLE_OK)
		return 0;
	return rc < CURL_LAST && curl_errnos[rc] ? -curl_errnos[rc] : -EIO;
}
