// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libcurl, libmicrohttpd and libsystemd opened on first use (dl_libs.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "net/dl_libs.h"

/*
 * The sonames of the libraries the headers are for: the Makefile reads
 * them from the build's libcurl.so and libmicrohttpd.so; these are
 * Debian's (libcurl4-openssl-dev, libmicrohttpd-dev), for a build that
 * could not. The packages are what the message names.
 */
#ifndef BW_CURL_SONAME
#define BW_CURL_SONAME "libcurl.so.4"
#endif
#ifndef BW_MHD_SONAME
#define BW_MHD_SONAME "libmicrohttpd.so.12"
#endif
#ifndef BW_SYSTEMD_SONAME
#define BW_SYSTEMD_SONAME "libsystemd.so.0"
#endif
#define BW_CURL_PACKAGE "libcurl4"
#define BW_MHD_PACKAGE "libmicrohttpd12"
#define BW_SYSTEMD_PACKAGE "libsystemd0"

struct bw_curl_lib bw_curl;
struct bw_mhd_lib bw_mhd;
struct bw_systemd_lib bw_systemd;

/* A function of a library: its symbol, and its slot in the table. */
struct sym {
	const char *name;
	size_t off;
};

#define CURL_SYM(f)                                         \
	{                                                   \
		"curl_" #f, offsetof(struct bw_curl_lib, f) \
	}
static const struct sym curl_syms[] = {
	CURL_SYM(global_init),
	CURL_SYM(easy_init),
	CURL_SYM(easy_setopt),
	CURL_SYM(easy_getinfo),
	CURL_SYM(easy_header),
	CURL_SYM(easy_strerror),
	CURL_SYM(easy_cleanup),
	CURL_SYM(multi_init),
	CURL_SYM(multi_setopt),
	CURL_SYM(multi_add_handle),
	CURL_SYM(multi_remove_handle),
	CURL_SYM(multi_socket_action),
	CURL_SYM(multi_info_read),
	CURL_SYM(multi_timeout),
	CURL_SYM(multi_cleanup),
	CURL_SYM(slist_append),
	CURL_SYM(slist_free_all),
	CURL_SYM(url),
	CURL_SYM(url_set),
	CURL_SYM(url_get),
	CURL_SYM(url_cleanup),
	CURL_SYM(free),
};

#define MHD_SYM(f)                                        \
	{                                                 \
		"MHD_" #f, offsetof(struct bw_mhd_lib, f) \
	}
static const struct sym mhd_syms[] = {
	MHD_SYM(start_daemon),
	MHD_SYM(stop_daemon),
	MHD_SYM(create_response_from_buffer),
	MHD_SYM(add_response_header),
	MHD_SYM(queue_response),
	MHD_SYM(destroy_response),
};

static const struct sym systemd_syms[] = {
	{ "sd_notifyf", offsetof(struct bw_systemd_lib, notifyf) },
};

/* Every slot of a table has its symbol: none is left NULL to be called. */
_Static_assert(sizeof(curl_syms) / sizeof(curl_syms[0]) ==
		       sizeof(struct bw_curl_lib) / sizeof(void (*)(void)),
	       "a bw_curl_lib slot without its symbol");
_Static_assert(sizeof(mhd_syms) / sizeof(mhd_syms[0]) ==
		       sizeof(struct bw_mhd_lib) / sizeof(void (*)(void)),
	       "a bw_mhd_lib slot without its symbol");
_Static_assert(sizeof(systemd_syms) / sizeof(systemd_syms[0]) ==
		       sizeof(struct bw_systemd_lib) / sizeof(void (*)(void)),
	       "a bw_systemd_lib slot without its symbol");

/*
 * Opens soname and fills table from syms: 0, or -ELIBACC with the reason
 * in why (the table is then not to be read). The library stays open for
 * the process's life.
 */
static int open_lib(const char *soname, const char *package,
		    const struct sym *syms, size_t n, void *table, char *why,
		    size_t cap)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	const char *err = NULL;

	for (size_t i = 0; h && !err && i < n; i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f)
			err = dlerror();
		/* POSIX lets a function pointer hold what dlsym returns. */
		memcpy((char *)table + syms[i].off, &f, sizeof(f));
	}
	if (h && !err)
		return 0;
	if (!h)
		err = dlerror();
	snprintf(why, cap, "%s cannot be loaded (Debian package %s): %s",
		 soname, package, err ?: "?");
	if (h)
		dlclose(h);
	return -ELIBACC;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;
static pthread_once_t systemd_once = PTHREAD_ONCE_INIT;
static int curl_err, mhd_err, systemd_err;
static char curl_why[320], mhd_why[320], systemd_why[320];

static void curl_open(void)
{
	CURLcode rc;

	curl_err = open_lib(BW_CURL_SONAME, BW_CURL_PACKAGE, curl_syms,
			    sizeof(curl_syms) / sizeof(curl_syms[0]), &bw_curl,
			    curl_why, sizeof(curl_why));
	if (curl_err)
		return;
	rc = bw_curl.global_init(CURL_GLOBAL_DEFAULT);
	if (rc != CURLE_OK) {
		snprintf(curl_why, sizeof(curl_why), "libcurl: %s",
			 bw_curl.easy_strerror(rc));
		curl_err = -EIO;
	}
}

static void mhd_open(void)
{
	mhd_err = open_lib(BW_MHD_SONAME, BW_MHD_PACKAGE, mhd_syms,
			   sizeof(mhd_syms) / sizeof(mhd_syms[0]), &bw_mhd,
			   mhd_why, sizeof(mhd_why));
}

static void systemd_open(void)
{
	systemd_err =
		open_lib(BW_SYSTEMD_SONAME, BW_SYSTEMD_PACKAGE, systemd_syms,
			 sizeof(systemd_syms) / sizeof(systemd_syms[0]),
			 &bw_systemd, systemd_why, sizeof(systemd_why));
}

/* err, its reason copied to why when there is one. */
static int said(int err, const char *reason, char *why, size_t cap)
{
	if (err && why && cap)
		snprintf(why, cap, "%s", reason);
	return err;
}

int bw_curl_load(char *why, size_t cap)
{
	pthread_once(&curl_once, curl_open);
	return said(curl_err, curl_why, why, cap);
}

int bw_mhd_load(char *why, size_t cap)
{
	pthread_once(&mhd_once, mhd_open);
	return said(mhd_err, mhd_why, why, cap);
}

int bw_systemd_load(char *why, size_t cap)
{
	pthread_once(&systemd_once, systemd_open);
	return said(systemd_err, systemd_why, why, cap);
}
