/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * libcurl's result codes as the errno values bloomwall's HTTP transfers
 * return (http.h says what each means to a caller).
 */
#ifndef __BW_NET_CURL_ERRNO_H
#define __BW_NET_CURL_ERRNO_H

#include <curl/curl.h>

/* 0 for CURLE_OK, else -errno: -ETIMEDOUT, -ECONNREFUSED, ..., -EIO. */
int bw_curl_errno(CURLcode rc);

#endif /* __BW_NET_CURL_ERRNO_H */
