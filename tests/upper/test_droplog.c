// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The drop log's events in operator words (out/droplog.c): names from
 * wire format (cut, compressed, odd bytes), addresses of both families,
 * the text line and the JSON record, field by field.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <json-c/json.h>

#include "base/output.h"
#include "out/droplog.h"
#include "test_helpers.h"

/* 2026-12-01T16:40:12.123456Z */
#define T_NS 1796143212123456789ULL

BW_TEST(test_droplog_names)
{
	static const __u8 ok[] = "\3ads\7example\3com";
	static const __u8 odd[] = "\2a\n\1b";
	char buf[300];

	ASSERT_OK(bw_log_name(ok, sizeof(ok), buf, sizeof(buf)), "a name");
	ASSERT_STREQ(buf, "ads.example.com", "dotted");
	ASSERT_OK(bw_log_name((const __u8 *)"", 1, buf, sizeof(buf)), "root");
	ASSERT_STREQ(buf, ".", "the root");
	ASSERT_OK(bw_log_name(odd, sizeof(odd), buf, sizeof(buf)), "odd");
	ASSERT_STREQ(buf, "a?.b", "a byte not printable shows as ?");
	/* Cut short, or a pointer: what came before, and an error. */
	ASSERT_ERR(bw_log_name(ok, 6, buf, sizeof(buf)), "cut");
	ASSERT_STREQ(buf, "ads", "the labels before the cut");
	ASSERT_ERR(
		bw_log_name((const __u8 *)"\3ads\xc0\x0c", 7, buf, sizeof(buf)),
		"a compression pointer");
	ASSERT_STREQ(buf, "ads", "the labels before the pointer");
	/* A small buffer: cut, terminated. */
	ASSERT_OK(bw_log_name(ok, sizeof(ok), buf, 6), "small buffer");
	ASSERT_STREQ(buf, "ads.e", "cut to the buffer");
}

static struct bw_log_event v6_event(void)
{
	struct bw_log_event ev = { .family = BW_V6,
				   .proto = IPPROTO_UDP,
				   .reason = BW_LOG_DNS,
				   .action = BW_LOG_ANSWER,
				   .sport = 5353,
				   .dport = 53,
				   .generation = 7,
				   .src = { 0x20010db800000000ULL, 7 },
				   .dst = { 0x20010db800000000ULL, 0x53 } };
	static const __u8 name[] = "\2ad\3com";

	memcpy(ev.name, name, sizeof(name));
	ev.name_len = sizeof(name);
	return ev;
}

BW_TEST(test_droplog_text)
{
	struct bw_log_event ev = v6_event();
	char line[512];

	bw_log_text(&ev, "eth0", T_NS, line, sizeof(line));
	ASSERT_STREQ(
		line,
		"2026-12-01T16:40:12.123456Z eth0 ipv6 udp [2001:db8::7]:5353 -> [2001:db8::53]:53 dns answer gen 7 ad.com",
		"an answered IPv6 query");
	ev = (struct bw_log_event){ .family = BW_V4,
				    .proto = IPPROTO_ICMP,
				    .reason = BW_LOG_ADDRESS,
				    .action = BW_LOG_MONITOR,
				    .generation = 1,
				    .src = { 0, 0xcb00710a },
				    .dst = { 0, 0xc0000201 } };
	bw_log_text(&ev, "eth1", T_NS, line, sizeof(line));
	ASSERT_STREQ(
		line,
		"2026-12-01T16:40:12.123456Z eth1 ipv4 icmp 203.0.113.10 -> 192.0.2.1 address monitor gen 1",
		"ICMP: no ports, no name");
	ev.proto = 47;
	ev.action = BW_LOG_DROP;
	bw_log_text(&ev, "eth1", T_NS, line, sizeof(line));
	ASSERT_STRSTR(line,
		      " ipv4 proto-47 203.0.113.10 -> 192.0.2.1 address drop ",
		      "another protocol by number");
}

static const char *str(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v)
						   : "(none)";
}

/* The event's record as bloomwall log --json prints it, parsed back. */
static struct json_object *event_json(const struct bw_log_event *ev)
{
	struct json_object *o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	bw_out_begin(true, f);
	bw_out_stream_begin();
	bw_out_record_begin();
	bw_log_out(ev, "eth0", T_NS);
	bw_out_record_end();
	bw_out_flush(0);
	fclose(f);
	o = json_tokener_parse(buf);
	free(buf);
	bw_out_begin(false, NULL);
	return o;
}

BW_TEST(test_droplog_json)
{
	struct bw_log_event ev = v6_event();
	struct json_object *o = event_json(&ev), *v;

	ASSERT_STREQ(str(o, "time"), "2026-12-01T16:40:12.123456Z", "time");
	ASSERT_STREQ(str(o, "time_ns"), "1796143212123456789", "time_ns");
	ASSERT_STREQ(str(o, "iface"), "eth0", "iface");
	ASSERT_STREQ(str(o, "family"), "ipv6", "family");
	ASSERT_STREQ(str(o, "proto"), "udp", "proto");
	ASSERT_STREQ(str(o, "src"), "2001:db8::7", "src");
	ASSERT_STREQ(str(o, "dst"), "2001:db8::53", "dst");
	ASSERT_STREQ(str(o, "sport"), "5353", "sport");
	ASSERT_STREQ(str(o, "dport"), "53", "dport");
	ASSERT_STREQ(str(o, "reason"), "dns", "reason");
	ASSERT_STREQ(str(o, "action"), "answer", "action");
	ASSERT_STREQ(str(o, "generation"), "7", "generation");
	ASSERT_STREQ(str(o, "name"), "ad.com", "name");
	json_object_put(o);
	ev.reason = BW_LOG_ADDRESS;
	ev.proto = IPPROTO_ICMPV6;
	o = event_json(&ev);
	ASSERT_FALSE(json_object_object_get_ex(o, "name", &v),
		     "no name for an address");
	ASSERT_FALSE(json_object_object_get_ex(o, "sport", &v),
		     "no ports without TCP or UDP");
	ASSERT_STREQ(str(o, "proto"), "icmpv6", "icmpv6");
	json_object_put(o);
}
