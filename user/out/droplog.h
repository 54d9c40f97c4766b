/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The drop log's events (struct bw_log_event, bpf/droplog.h writes them)
 * in operator words: the question's name as text, a line of text, and
 * both a line and a JSON record through the output layer (cmd_log.c reads
 * the ring).
 */
#ifndef __BW_DROPLOG_H
#define __BW_DROPLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "bloomwall.h"

/* Dotted text of a name in wire format ("a.example"; "." for the root). */
int bw_log_name(const __u8 *wire, size_t len, char *buf, size_t size);

/* An event's address, as text (IPv4 or IPv6). */
void bw_log_addr(const struct bw_log_event *ev, bool dst, char *buf,
		 size_t size);

/* "tcp", "udp", "icmp", "icmpv6", or the number. */
const char *bw_log_proto(__u8 proto, char *buf, size_t size);
const char *bw_log_reason(__u8 reason);
const char *bw_log_action(__u8 action);
/* "ingress" or "egress". */
const char *bw_log_direction(__u8 direction);

/* The event's time as UTC text with microseconds (real_ns: since 1970). */
void bw_log_time(__u64 real_ns, char *buf, size_t size);

/*
 * One line, no newline:
 * TIME IFACE FAMILY PROTO SRC[:PORT] -> DST[:PORT] REASON ACTION gen N [NAME]
 * and for an egress event " egress [uid U] [sk:COOKIE]" (the cookie in
 * hex, as `ss -e` prints it).
 */
void bw_log_text(const struct bw_log_event *ev, const char *iface,
		 __u64 real_ns, char *buf, size_t size);

/*
 * One event through the output layer, in the record the caller opened:
 * text the line above and a newline; JSON {"time", "time_ns", "iface",
 * "family", "proto", "src", "dst", "sport", "dport", "reason", "action",
 * "generation", "name", "direction", "uid", "socket_cookie"}: the ports
 * only for TCP and UDP, the name only for DNS, uid and socket_cookie
 * only where the event has them (egress).
 */
void bw_log_out(const struct bw_log_event *ev, const char *iface,
		__u64 real_ns);

/*
 * The event of size bytes from the ring into *ev: one of an older
 * program (shorter, BW_LOG_EVENT_MIN at least) reads as ingress, no
 * socket.
 */
void bw_log_event_read(const void *data, size_t size, struct bw_log_event *ev);

#endif /* __BW_DROPLOG_H */
