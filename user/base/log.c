// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Messages: the log levels, libbpf's messages routed through them, and the
 * sentences that end a message about a kernel error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "base/log.h"

enum bw_log_level bw_log_level = BW_LOG_INFO;

static struct {
	char *buf;
	size_t len;
} capture;

void bw_log_capture(char *buf, size_t len)
{
	capture.buf = len ? buf : NULL;
	capture.len = len;
	if (capture.buf)
		buf[0] = '\0';
}

static void bw_vlog(enum bw_log_level level, const char *fmt, va_list ap)
{
	size_t n;

	if (level > bw_log_level)
		return;
	if (level == BW_LOG_WARN && capture.buf) {
		n = strlen(capture.buf);
		vsnprintf(capture.buf + n, capture.len - n, fmt, ap);
		return;
	}
	vfprintf(level == BW_LOG_INFO ? stdout : stderr, fmt, ap);
}

void bw_log(enum bw_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bw_vlog(level, fmt, ap);
	va_end(ap);
}

/*
 * libbpf warns about things bloomwall handles itself (e.g. "Retrying without
 * BTF" when it creates the map-in-map): its messages are debug output
 * unless --verbose asks for them.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (bw_log_level < BW_LOG_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void bw_log_setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

const char *bw_errno_hint(int err)
{
	switch (err < 0 ? -err : err) {
	case EPERM:
	case EACCES:
		return "permission denied: needs root with CAP_SYS_ADMIN and CAP_NET_ADMIN (and before Linux 5.11 a high enough 'ulimit -l')";
	case ENOENT:
		return "it does not exist (anymore)";
	case E2BIG:
		return "too large for the kernel's limits";
	case ENOMEM:
		return "out of memory (kernel or process); try a higher --fpr or fewer entries";
	case EBUSY:
	case EEXIST:
		return "something else is attached there already";
	case ESTALE:
		return "the interface's XDP program changed meanwhile; run the command again";
	case EOPNOTSUPP:
		return "not supported by this kernel or driver; try --mode skb";
	case EKEYREJECTED: /* image/image_sign.h */
		return "the image's signature is refused (unsigned where a key is required, another key's, or bad)";
	case EDOM: /* image/image_serial.h */
		return "the image is older than the running filter's (a rollback; --allow-rollback takes it)";
	default:
		return strerror(err < 0 ? -err : err);
	}
}
