// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The drop log's events as text and JSON (droplog.h). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/output.h"
#include "out/droplog.h"

int bw_log_name(const __u8 *wire, size_t len, char *buf, size_t size)
{
	size_t pos = 0, out = 0, n, i;

	if (!size)
		return -1;
	while (pos < len && wire[pos]) {
		n = wire[pos++];
		/* A cut or compressed label: the labels before it, and -1. */
		if (n > 63 || pos + n > len) {
			buf[out] = '\0';
			return -1;
		}
		if (out && out + 1 < size)
			buf[out++] = '.';
		for (i = 0; i < n && out + 1 < size; i++) {
			unsigned char ch = wire[pos + i];

			buf[out++] = ch > 0x20 && ch < 0x7f ? ch : '?';
		}
		pos += n;
	}
	if (!out && size > 1)
		buf[out++] = '.';
	buf[out] = '\0';
	return pos < len ? 0 : -1;
}

void bw_log_addr(const struct bw_log_event *ev, bool dst, char *buf,
		 size_t size)
{
	const __u64 *a = dst ? ev->dst : ev->src;
	__u8 b[16];
	__u32 v4;
	int i;

	if (ev->family == BW_V4) {
		v4 = htonl((__u32)a[1]);
		inet_ntop(AF_INET, &v4, buf, size);
		return;
	}
	for (i = 0; i < 8; i++) {
		b[i] = a[0] >> (56 - 8 * i);
		b[8 + i] = a[1] >> (56 - 8 * i);
	}
	inet_ntop(AF_INET6, b, buf, size);
}

const char *bw_log_proto(__u8 proto, char *buf, size_t size)
{
	switch (proto) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	case IPPROTO_ICMP:
		return "icmp";
	case IPPROTO_ICMPV6:
		return "icmpv6";
	}
	snprintf(buf, size, "proto-%u", proto);
	return buf;
}

const char *bw_log_reason(__u8 reason)
{
	return reason == BW_LOG_DNS ? "dns" : "address";
}

const char *bw_log_action(__u8 action)
{
	switch (action) {
	case BW_LOG_MONITOR:
		return "monitor";
	case BW_LOG_ANSWER:
		return "answer";
	}
	return "drop";
}

void bw_log_time(__u64 real_ns, char *buf, size_t size)
{
	time_t s = real_ns / 1000000000ULL;
	struct tm tm;
	char day[32];

	gmtime_r(&s, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%06lluZ", day,
		 (unsigned long long)(real_ns % 1000000000ULL) / 1000);
}

static bool has_ports(const struct bw_log_event *ev)
{
	return ev->proto == IPPROTO_TCP || ev->proto == IPPROTO_UDP;
}

/* ADDR, ADDR:PORT or [ADDR6]:PORT. */
static void endpoint(const struct bw_log_event *ev, bool dst, char *buf,
		     size_t size)
{
	char a[INET6_ADDRSTRLEN];

	bw_log_addr(ev, dst, a, sizeof(a));
	if (!has_ports(ev))
		snprintf(buf, size, "%s", a);
	else if (ev->family == BW_V4)
		snprintf(buf, size, "%s:%u", a, dst ? ev->dport : ev->sport);
	else
		snprintf(buf, size, "[%s]:%u", a, dst ? ev->dport : ev->sport);
}

static void event_name(const struct bw_log_event *ev, char *buf, size_t size)
{
	size_t len = ev->name_len;

	if (len > BW_LOG_NAME_MAX)
		len = BW_LOG_NAME_MAX;
	bw_log_name(ev->name, len, buf, size);
}

const char *bw_log_direction(__u8 direction)
{
	return direction == BW_LOG_EGRESS ? "egress" : "ingress";
}

/* An egress event's socket: " egress", then " uid U" and " sk:HEX". */
static void egress_text(const struct bw_log_event *ev, char *buf, size_t size)
{
	int n;

	n = snprintf(buf, size, " %s", bw_log_direction(ev->direction));
	if (ev->uid != BW_LOG_NO_UID && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - n, " uid %u", ev->uid);
	if (ev->cookie && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - n, " sk:%llx",
			 (unsigned long long)ev->cookie);
}

void bw_log_text(const struct bw_log_event *ev, const char *iface,
		 __u64 real_ns, char *buf, size_t size)
{
	char t[48], src[64], dst[64], p[16], name[BW_LOG_NAME_MAX + 8] = "";
	int n;

	bw_log_time(real_ns, t, sizeof(t));
	endpoint(ev, false, src, sizeof(src));
	endpoint(ev, true, dst, sizeof(dst));
	if (ev->reason == BW_LOG_DNS)
		event_name(ev, name, sizeof(name));
	n = snprintf(buf, size, "%s %s %s %s %s -> %s %s %s gen %llu", t, iface,
		     ev->family == BW_V4 ? "ipv4" : "ipv6",
		     bw_log_proto(ev->proto, p, sizeof(p)), src, dst,
		     bw_log_reason(ev->reason), bw_log_action(ev->action),
		     (unsigned long long)ev->generation);
	if (name[0] && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - n, " %s", name);
	if (ev->direction == BW_LOG_EGRESS && n > 0 && (size_t)n < size)
		egress_text(ev, buf + n, size - n);
}

void bw_log_out(const struct bw_log_event *ev, const char *iface, __u64 real_ns)
{
	char t[48], a[INET6_ADDRSTRLEN], p[16], name[BW_LOG_NAME_MAX + 8];
	char line[512];

	bw_log_text(ev, iface, real_ns, line, sizeof(line));
	bw_out_text("%s\n", line);
	bw_log_time(real_ns, t, sizeof(t));
	bw_out_string("time", NULL, t);
	bw_out_u64("time_ns", NULL, real_ns);
	bw_out_string("iface", NULL, iface);
	bw_out_string("family", NULL, ev->family == BW_V4 ? "ipv4" : "ipv6");
	bw_out_string("proto", NULL, bw_log_proto(ev->proto, p, sizeof(p)));
	bw_log_addr(ev, false, a, sizeof(a));
	bw_out_string("src", NULL, a);
	bw_log_addr(ev, true, a, sizeof(a));
	bw_out_string("dst", NULL, a);
	if (has_ports(ev)) {
		bw_out_u64("sport", NULL, ev->sport);
		bw_out_u64("dport", NULL, ev->dport);
	}
	bw_out_string("reason", NULL, bw_log_reason(ev->reason));
	bw_out_string("action", NULL, bw_log_action(ev->action));
	bw_out_u64("generation", NULL, ev->generation);
	if (ev->reason == BW_LOG_DNS) {
		event_name(ev, name, sizeof(name));
		bw_out_string("name", NULL, name);
	}
	bw_out_string("direction", NULL, bw_log_direction(ev->direction));
	if (ev->uid != BW_LOG_NO_UID)
		bw_out_u64("uid", NULL, ev->uid);
	if (ev->cookie)
		bw_out_u64("socket_cookie", NULL, ev->cookie);
}

void bw_log_event_read(const void *data, size_t size, struct bw_log_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->uid = BW_LOG_NO_UID;
	memcpy(ev, data, size < sizeof(*ev) ? size : sizeof(*ev));
}
