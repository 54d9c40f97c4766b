/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The bouncer's API key, read from a file (--crowdsec-key-file), never
 * from the command line, where ps and /proc/PID/cmdline show it to every
 * user. The file must be a regular file that only root (or the user the
 * daemon runs as) can read or change, along its whole path (0600 or 0400,
 * bw_file_trusted in base/file.h), and hold one line of printable ASCII without blanks: what 'cscli bouncers
 * add NAME -o raw' prints. Anything else is refused, saying why.
 */
#ifndef __BW_CROWDSEC_KEY_H
#define __BW_CROWDSEC_KEY_H

#include <stddef.h>

/* Longest key taken (CrowdSec's are 32 hex digits). */
#define BW_CS_KEY_MAX 256

/* Reads path's key into buf (cap bytes, NUL-terminated). 0 or -errno. */
int bw_cs_key_read(const char *path, char *buf, size_t cap);

#endif /* __BW_CROWDSEC_KEY_H */
