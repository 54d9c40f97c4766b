/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * libcurl, libmicrohttpd and libsystemd, opened (dlopen) by the verbs
 * that use them instead of linked: their dependencies (OpenSSL, GnuTLS,
 * Kerberos, LDAP, libgcrypt...) cost every bloomwall start milliseconds
 * of relocations, and most runs (fail2ban's one per ban) fetch, serve and
 * notify nothing.
 *
 * bw_curl_load and bw_mhd_load open their library once, from any thread;
 * once they return 0, its functions are called through bw_curl and bw_mhd
 * (bw_curl.easy_init() for curl_easy_init()). Without the library, the
 * verb fails naming it and its Debian package.
 */
#ifndef __BW_NET_DL_LIBS_H
#define __BW_NET_DL_LIBS_H

#include <stddef.h>
#include <curl/curl.h>
#include <microhttpd.h>
#include <systemd/sd-daemon.h>

/* The type of each is the header's own: a call checks as a direct one. */
struct bw_curl_lib {
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_header) *easy_header;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_multi_init) *multi_init;
	__typeof__(curl_multi_setopt) *multi_setopt;
	__typeof__(curl_multi_add_handle) *multi_add_handle;
	__typeof__(curl_multi_remove_handle) *multi_remove_handle;
	__typeof__(curl_multi_socket_action) *multi_socket_action;
	__typeof__(curl_multi_info_read) *multi_info_read;
	__typeof__(curl_multi_timeout) *multi_timeout;
	__typeof__(curl_multi_cleanup) *multi_cleanup;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
	__typeof__(curl_url) *url;
	__typeof__(curl_url_set) *url_set;
	__typeof__(curl_url_get) *url_get;
	__typeof__(curl_url_cleanup) *url_cleanup;
	__typeof__(curl_free) *free;
};

struct bw_mhd_lib {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer)
		*create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
};

struct bw_systemd_lib {
	__typeof__(sd_notifyf) *notifyf;
};

/* Set by the bw_*_load below; read only after they return 0. */
extern struct bw_curl_lib bw_curl;
extern struct bw_mhd_lib bw_mhd;
extern struct bw_systemd_lib bw_systemd;

/*
 * libcurl opened and curl_global_init run, once: 0, or -errno with the
 * reason in why (unless NULL): -ELIBACC names the missing library and
 * its package, -EIO a failed curl_global_init.
 */
int bw_curl_load(char *why, size_t cap);

/* libmicrohttpd opened, once: 0, or -ELIBACC with why as above. */
int bw_mhd_load(char *why, size_t cap);

/* libsystemd opened, once: 0, or -ELIBACC with why as above. */
int bw_systemd_load(char *why, size_t cap);

#endif /* __BW_NET_DL_LIBS_H */
