/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The files a TLS connection trusts or authenticates with, judged before
 * a daemon uses them (base/file.h's bw_file_trusted: ssh's rule).
 */
#ifndef __BW_NET_TLS_FILES_H
#define __BW_NET_TLS_FILES_H

/*
 * ca: the CAs trusted (another user who could change it could make the
 * daemon trust his server); cert: the client certificate, secret when key
 * is NULL (the key is in it); key: its private key, secret. Each may be
 * NULL. opt names the options for messages ("--crowdsec-ca"...): ca_opt,
 * cert_opt, key_opt. 0, or -EPERM (or -errno) after saying which file is
 * refused, why and how to fix it.
 */
int bw_tls_files_trusted(const char *ca, const char *ca_opt, const char *cert,
			 const char *cert_opt, const char *key,
			 const char *key_opt);

#endif /* __BW_NET_TLS_FILES_H */
