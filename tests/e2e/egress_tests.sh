# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of attach --egress (the TC egress program). Sourced by
# tests/e2e/run.sh, whose helpers they use, on its topology: this
# namespace (A) holds $BW_RX (10.77.0.1, fd00:77::1), where bloomwall
# attaches; the sender namespace $BW_NS (B) holds 10.77.0.2 .3 .4 and
# fd00:77::2 ::3 ::4. The A addresses of B are listed; B and C are not.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $EGRESS_TESTS"

# shellcheck disable=SC2034 # read by tests/e2e/run.sh, which sources this
EGRESS_TESTS="test_egress test_egress_modes test_egress_reload_on
test_allow_names_sized test_egress_log test_egress_dns test_who_dst"

# egress_in_b COUNTER: B's counter from its /proc/net/snmp or snmp6 (Icmp
# InEchos, Icmp6InEchos, Udp InDatagrams + NoPorts as "udp_in", Tcp
# PassiveOpens + AttemptFails... as the SYNs it took: "tcp_in" = InSegs).
egress_in_b()
{
	ip netns exec "$BW_NS" python3 - "$1" <<'PY'
import sys

want = sys.argv[1]
snmp = {}
lines = open("/proc/net/snmp").read().splitlines()
for head, vals in zip(lines[::2], lines[1::2]):
    proto = head.split(":")[0]
    for k, v in zip(head.split()[1:], vals.split()[1:]):
        snmp[proto + k] = int(v)
for line in open("/proc/net/snmp6"):
    k, v = line.split()
    snmp[k] = int(v)
if want == "udp_in":
    print(snmp["UdpInDatagrams"] + snmp["UdpNoPorts"] + snmp["UdpInErrors"])
elif want == "tcp_in":
    print(snmp["TcpInSegs"])
else:
    print(snmp[want])
PY
}

# egress_ping DST: pings DST from this namespace (A, over $BW_RX); prints
# the replies.
egress_ping()
{
	local out

	out=$(ping -n -q -c 3 -i 0.05 -W 1 "$1" 2>&1)
	sed -nE 's/.* ([0-9]+) (packets )?received.*/\1/p' <<<"$out" |
		head -n 1 | grep . || echo "no ping summary: $(head -n 1 <<<"$out")"
}

# expect_egress_dropped DST COUNTER: A's pings to DST get no reply and B's
# COUNTER (its echo requests taken in) does not move.
expect_egress_dropped()
{
	local before n

	before=$(egress_in_b "$2")
	n=$(egress_ping "$1")
	echo "  ping A -> $1: $n/3 replies, B's $2 $before -> $(egress_in_b "$2")"
	assert_eq "$n" 0 "A's pings to listed $1 should be dropped on the way out"
	assert_eq "$(egress_in_b "$2")" "$before" \
		"B's $2 should not move: nothing to $1 may reach it"
}

expect_egress_answered()
{
	local n

	n=$(egress_ping "$1")
	echo "  ping A -> $1: $n/3 replies"
	assert_eq "$n" 3 "A's pings to unlisted $1 should be answered"
}

# egress_status_json EXPR: the Python expression on status --json's
# document for $BW_RX.
egress_status_json()
{
	"$BLOOMWALL" --json status "$BW_RX" >"$TMP_DIR/status.json" 2>/dev/null
	json "$TMP_DIR/status.json" "(lambda d: $1)(d[0])"
}

# egress_tc_progs: bloomwall's programs on $BW_RX's TC hooks (bpftool's
# listing, one name a line).
egress_tc_progs()
{
	bpftool -j net show dev "$BW_RX" | python3 -c '
import json, sys
for d in json.load(sys.stdin):
    for hook in d.get("tc", []):
        print(hook.get("name", ""))'
}

# egress_sharing: checks the acceptance's sharing rule on the kernel's own
# view: the XDP program's largest array map (its filter) is one of the TC
# program's maps, and the maps only the TC program has hold at most 0.3x
# that filter's memory. Prints the figures.
egress_sharing()
{
	python3 - "$1" "$2" <<'PY'
import json, subprocess, sys

def bt(*a):
    return json.loads(subprocess.check_output(["bpftool", "-j"] + list(a)))

xdp = bt("prog", "show", "id", sys.argv[1])
tc = bt("prog", "show", "id", sys.argv[2])
maps = {m: bt("map", "show", "id", str(m)) for m in xdp["map_ids"] + tc["map_ids"]}
arrays = [m for m in xdp["map_ids"] if maps[m]["type"] == "array"]
filt = max(arrays, key=lambda m: maps[m]["bytes_memlock"])
alone = sum(maps[m]["bytes_memlock"] for m in set(tc["map_ids"]) - set(xdp["map_ids"]))
fmem = maps[filt]["bytes_memlock"]
print("filter map %d (%s): %d bytes; TC program's own maps: %d bytes (%.3fx)"
      % (filt, maps[filt]["name"], fmem, alone, alone / fmem))
if filt not in tc["map_ids"]:
    print("the filter map is not one of the TC program's maps")
    sys.exit(1)
if alone > 0.3 * fmem:
    print("the TC program's own maps exceed 0.3x the filter")
    sys.exit(1)
total = sum(maps[m]["bytes_memlock"] for m in set(xdp["map_ids"] + tc["map_ids"]))
print("every map of both programs: %d bytes (%.3fx the filter)" % (total, total / fmem))
PY
}

# The acceptance: A's host traffic to the listed IPv4 and IPv6 addresses
# of B (among 1,000,000 other listed addresses) never reaches B, unlisted
# ones answer; TCP and UDP to a listed address fail; B's pings from the
# listed address are dropped on the way in; one filter map for both hooks;
# a live add reaches egress; status speaks of egress and who tried;
# detach leaves no XDP and no TC program.
test_egress()
{
	local l xdp tc

	l=$TMP_DIR/big.txt
	{
		echo "$BW_A4"
		echo "$BW_A6"
		python3 -c '
import random
r = random.Random(7)
seen = set()
while len(seen) < 1000000:
    a = r.getrandbits(32)
    if a >> 24 in (0, 10, 127) or a >> 28 >= 14:
        continue
    seen.add(a)
print("\n".join("%d.%d.%d.%d" % (a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255)
                for a in seen))'
	} >"$l"
	bw 0 attach "$BW_RX" --egress "${SEED[@]}" "$l"

	expect_egress_dropped "$BW_A4" IcmpInEchos
	expect_egress_dropped "$BW_A6" Icmp6InEchos
	expect_egress_answered "$BW_B4"
	expect_egress_answered "$BW_B6"

	# TCP and UDP to the listed address: nothing arrives at B.
	local tcp udp
	tcp=$(egress_in_b tcp_in)
	udp=$(egress_in_b udp_in)
	python3 - "$BW_A4" <<'PY' && fail "a TCP connect to a listed address went through"
import socket, sys
try:
    socket.create_connection((sys.argv[1], 9), timeout=2)
except OSError:
    sys.exit(1)
PY
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(3):
    s.sendto(b"x", (sys.argv[1], 9999))' "$BW_A4" ||
		fail "sendto to a listed address failed in the sender itself"
	sleep 0.3
	assert_eq "$(egress_in_b tcp_in)" "$tcp" "no TCP segment may reach B"
	assert_eq "$(egress_in_b udp_in)" "$udp" "no UDP datagram may reach B"
	# The same to an unlisted address does arrive (B answers with a reset).
	python3 -c 'import socket, sys
try:
    socket.create_connection((sys.argv[1], 9), timeout=2)
except ConnectionRefusedError:
    sys.exit(0)
sys.exit(1)' "$BW_B4" || fail "a TCP connect to an unlisted address got no reset"

	# Ingress still drops the listed source.
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4

	# One filter, two hooks.
	xdp=$(egress_status_json 'd["program"]["id"]')
	tc=$(egress_status_json 'd["egress"]["program_id"]')
	egress_sharing "$xdp" "$tc" >"$TMP_DIR/sharing" ||
		fail "the two programs do not share the filter as they must: $(cat "$TMP_DIR/sharing")"
	cat "$TMP_DIR/sharing"
	# status counts the same maps, each once, as bpftool does.
	assert_eq "$(egress_status_json 'd["kernel_memory"]')" \
		"$(sed -nE 's/^every map of both programs: ([0-9]+) bytes.*/\1/p' "$TMP_DIR/sharing")" \
		"status' kernel memory is bpftool's bytes_memlock of every map"

	# status speaks of egress: its drops, and who tried.
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^  Egress " "status has an Egress section"
	assert_grep "$OUT" "^    egress +bloomwall_tc id $tc, the XDP program's filter$" \
		"status names the egress program"
	[ "$(egress_status_json 'd["egress"]["counters"]["dropped_v4"]')" -ge 6 ] ||
		fail "egress dropped_v4 should count the pings, the SYN and the UDP"
	# ping counts a request the hook refused as not sent and tries again:
	# at least the 3 it was asked for.
	[ "$(egress_status_json 'd["egress"]["counters"]["dropped_v6"]')" -ge 3 ] ||
		fail "egress dropped_v6 should count the pings"
	assert_eq "$(egress_status_json '[w["source"] for w in d["egress"]["who_tried"]]')" \
		"[\"$BW_RX4\",\"$BW_RX6\"]" "who tried: A's two addresses, IPv4 most"

	# The metrics: egress counters by field, who tried, the memory of both.
	bw 0 stats "$BW_RX" --prometheus
	assert_grep "$OUT" "^bloomwall_egress_packets_total\\{iface=\"$BW_RX\",counter=\"dropped_v6\"\\} [1-9][0-9]*$" \
		"metrics: egress drops by counter"
	assert_grep "$OUT" "^bloomwall_egress_tried_packets\\{iface=\"$BW_RX\",source=\"$BW_RX4\"\\} [1-9][0-9]*$" \
		"metrics: who tried"
	assert_grep "$OUT" "^bloomwall_kernel_memory_bytes\\{iface=\"$BW_RX\"\\} [1-9][0-9]*$" \
		"metrics: the kernel memory of both programs"

	# A live add reaches egress.
	expect_egress_answered "$BW_C4"
	bw 0 add "$BW_RX" "$BW_C4"
	expect_egress_dropped "$BW_C4" IcmpInEchos
	[ "$(egress_status_json 'd["egress"]["same_filter"]')" = true ] ||
		fail "after add, both hooks must run the same filter"

	# detach: no XDP and no TC program left.
	bw 0 detach "$BW_RX"
	assert_detached
	[ -z "$(egress_tc_progs)" ] || fail "a TC program is left on $BW_RX: $(egress_tc_progs)"
	expect_egress_answered "$BW_A4"
}

# Monitor mode and the allowlist apply on the way out; reload keeps the
# egress hook and swaps both programs.
test_egress_modes()
{
	local l a tc1 tc2

	l=$(list l.txt "$BW_A4" "$BW_B4" "$BW_A6")
	a=$(list allow.txt "$BW_B4")
	bw 0 attach "$BW_RX" --egress --allow "$a" "${SEED[@]}" "$l"
	expect_egress_dropped "$BW_A4" IcmpInEchos
	expect_egress_answered "$BW_B4"
	assert_eq "$(egress_status_json 'd["egress"]["counters"]["allowed"]')" 3 \
		"egress counts the allowed hits"
	tc1=$(egress_status_json 'd["egress"]["program_id"]')
	bw 0 reload "$BW_RX" --monitor "${SEED[@]}" "$l"
	tc2=$(egress_status_json 'd["egress"]["program_id"]')
	[ "$tc1" != "$tc2" ] || fail "reload must replace the egress program too"
	expect_egress_answered "$BW_A4"
	[ "$(egress_status_json 'd["egress"]["counters"]["monitored"]')" -ge 3 ] ||
		fail "egress counts the monitored hits"
	bw 0 reload "$BW_RX" --enforce "${SEED[@]}" "$(list l2.txt "$BW_C4")"
	expect_egress_answered "$BW_A4"
	expect_egress_dropped "$BW_C4" IcmpInEchos
	bw 0 detach "$BW_RX"
	assert_detached
	[ -z "$(egress_tc_progs)" ] || fail "a TC program is left on $BW_RX"
}

# reload --egress puts the egress program on an interface attached without.
test_egress_reload_on()
{
	local l

	l=$(list l.txt "$BW_A4")
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	assert_eq "$(egress_status_json 'd["egress"]')" null "no egress without --egress"
	# Without egress the requests reach B (its replies, from a listed
	# source, are dropped on the way in).
	local before
	before=$(egress_in_b IcmpInEchos)
	egress_ping "$BW_A4" >/dev/null
	assert_eq $(($(egress_in_b IcmpInEchos) - before)) 3 \
		"without egress, A's requests reach B"
	bw 0 reload "$BW_RX" --egress "${SEED[@]}" "$l"
	expect_egress_dropped "$BW_A4" IcmpInEchos
	# A reload without --egress keeps what runs.
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l"
	expect_egress_dropped "$BW_A4" IcmpInEchos
	bw 0 detach "$BW_RX"
	[ -z "$(egress_tc_progs)" ] || fail "a TC program is left on $BW_RX"
}

# The name allowlist is sized by what it holds: small without names, and a
# reload whose lists allow more names than it has room for gives the new
# program a larger one, with every entry.
test_allow_names_sized()
{
	local a n

	a=$(list a.txt "$BW_A4")
	n=$TMP_DIR/names.txt
	{
		echo "||blocked.test^"
		seq -f '@@||n%g.blocked.test^' 1 5000
	} >"$n"
	bw 0 attach "$BW_RX" "${SEED[@]}" "$a"
	assert_eq "$(egress_allow_names max_entries)" 4096 "no names: the least room"
	bw 0 reload "$BW_RX" "${SEED[@]}" "$a" "$n"
	[ "$(egress_allow_names max_entries)" -ge 5000 ] ||
		fail "5000 allow names need a larger map: $(egress_allow_names max_entries)"
	assert_eq "$(egress_allow_names entries)" 5000 "every allow name is in it"
	bw 0 query "$BW_RX" n4321.blocked.test x.blocked.test
	assert_grep "$OUT" "^n4321\.blocked\.test +pass" "an allowed name passes"
	assert_grep "$OUT" "^x\.blocked\.test +block" "the others are blocked"
	bw 0 detach "$BW_RX"
}

# egress_allow_names max_entries|entries: of the allow_names map of the
# program on $BW_RX's XDP hook.
egress_allow_names()
{
	python3 - "$(egress_status_json 'd["program"]["id"]')" "$1" <<'PY'
import json, subprocess, sys

def bt(*a):
    return json.loads(subprocess.check_output(["bpftool", "-j"] + list(a)))

for m in bt("prog", "show", "id", sys.argv[1])["map_ids"]:
    info = bt("map", "show", "id", str(m))
    if info["name"] == "allow_names":
        if sys.argv[2] == "entries":
            print(len(bt("map", "dump", "id", str(m))))
        else:
            print(info["max_entries"])
PY
}

# egress_udp DST: one UDP datagram from A to DST:9999, from a socket that
# lives while ss looks at it; prints its port, cookie (SO_COOKIE), uid
# and the sk: that 'ss -e' shows for it.
egress_udp()
{
	python3 - "$1" <<'PY'
import os, socket, struct, subprocess, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 0))
port = s.getsockname()[1]
s.sendto(b"x", (sys.argv[1], 9999))
cookie = struct.unpack("=Q", s.getsockopt(socket.SOL_SOCKET, 57, 8))[0]
out = subprocess.run(["ss", "-uaepnH", "sport", "= :%d" % port],
                     capture_output=True, text=True).stdout
sk = [w[3:] for w in out.split() if w.startswith("sk:")]
print(port, cookie, os.geteuid(), sk[0] if sk else "none")
PY
}

# The drop log on the way out: A's own datagram and ping to listed places
# are logged as egress, with the local source, the destination and the
# socket that sent them (its uid; its cookie, which ss -e shows as sk:).
# query --why says which hooks drop the address.
test_egress_log()
{
	local l port cookie uid sk

	l=$(list l.txt "$BW_A4" "$BW_A6")
	bw 0 attach "$BW_RX" --egress --log-rate 100 "${SEED[@]}" "$l"
	read -r port cookie uid sk < <(egress_udp "$BW_A4")
	echo "  socket: port $port, cookie $cookie, uid $uid, ss sk:$sk"
	assert_eq "$(printf %x "$cookie")" "$sk" "ss -e's sk: is the socket's cookie"
	ping -n -q -c 1 -W 1 "$BW_A6" >/dev/null 2>&1
	bw 0 log "$BW_RX" --json --count 2
	cp "$OUT" "$TMP_DIR/events"
	assert_eq "$(log_json "$TMP_DIR/events" 0 '[e[k] for k in ("direction", "family", "proto", "src", "sport", "dst", "dport", "reason", "action", "uid", "socket_cookie")]')" \
		"[\"egress\",\"ipv4\",\"udp\",\"$BW_RX4\",$port,\"$BW_A4\",9999,\"address\",\"drop\",$uid,$cookie]" \
		"the datagram's event names the socket that sent it"
	assert_eq "$(log_json "$TMP_DIR/events" 1 '[e[k] for k in ("direction", "proto", "src", "dst", "uid")] + [e["socket_cookie"] > 0]')" \
		"[\"egress\",\"icmpv6\",\"$BW_RX6\",\"$BW_A6\",$uid,true]" \
		"the ping's event"
	read -r port cookie uid sk < <(egress_udp "$BW_A4")
	bw 0 log "$BW_RX" --count 1
	assert_grep "$OUT" \
		"^20[0-9-]{8}T[0-9:.]{15}Z $BW_RX ipv4 udp $BW_RX4:$port -> $BW_A4:9999 address drop gen 1 egress uid $uid sk:$sk\$" \
		"the text line: egress, the uid, the socket as ss -e names it"
	bw 0 query "$BW_RX" --why "$BW_A4"
	assert_line "$OUT" "  why: dropped as a source on ingress (XDP), as a destination on egress (TC, attach --egress)" \
		"query --why: both hooks, each direction"
	assert_line "$OUT" "  why: $l:1: $BW_A4" "query --why: the list line"
	bw 0 query "$BW_RX" --json --why "$BW_A4"
	assert_eq "$(json "$OUT" '[[h["hook"], h["direction"], h["as"]] for h in d["addresses"][0]["why"]["hooks"]]')" \
		'[["xdp","ingress","source"],["tc","egress","destination"]]' \
		"query --why JSON: the hooks"
	bw 0 detach "$BW_RX"
}

# egress_dns_server ADDR FILE: a DNS server in B on ADDR port 53 that
# answers every query A 192.0.2.10 and writes each question's name to
# FILE; stopped when the test's subshell exits.
egress_dns_server()
{
	nsenter --net="/run/netns/$BW_NS" python3 - "$1" "$2" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 53))
seen = open(sys.argv[2], "a", buffering=1)
while True:
    q, peer = s.recvfrom(4096)
    i, labels = 12, []
    while i < len(q) and q[i]:
        labels.append(q[i + 1:i + 1 + q[i]].decode(errors="replace"))
        i += 1 + q[i]
    seen.write(".".join(labels) + "\n")
    a = (q[:2] + b"\x81\x80" + q[4:6] + b"\x00\x01\x00\x00\x00\x00" +
         q[12:i + 5] + b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04" +
         bytes([192, 0, 2, 10]))
    s.sendto(a, peer)
PY
	EGRESS_DNS_PID=$!
	# shellcheck disable=SC2064 # the pid is known now
	trap "kill $EGRESS_DNS_PID 2>/dev/null; wait $EGRESS_DNS_PID 2>/dev/null" EXIT
}

# egress_dig NAME: A's query for NAME to B's server: its answer, or timeout.
egress_dig()
{
	local out

	out=$(dig +tries=1 +timeout=1 +short @"$BW_B4" "$1" A 2>&1)
	if grep -q "timed out\|no servers" <<<"$out"; then
		echo timeout
	else
		echo "$out"
	fi
}

# DNS going out: with names in the filter, A's queries for listed names
# to B's server are dropped on the way out (the server never sees them)
# and counted; an unlisted name is answered.
test_egress_dns()
{
	local l n

	command -v dig >/dev/null || skip "no dig (scripts/install-deps.sh)"
	egress_dns_server "$BW_B4" "$TMP_DIR/seen"
	for ((n = 0; n < 50; n++)); do
		[ "$(egress_dig ready.test)" = 192.0.2.10 ] && break
		sleep 0.1
	done
	[ "$n" -lt 50 ] || fail "the DNS server in B does not answer"
	l=$(list names.txt blocked.test '*.ads.test' "$BW_C4")
	bw 0 attach "$BW_RX" --egress "${SEED[@]}" "$l"
	assert_eq "$(egress_dig blocked.test)" timeout "a listed name gets no answer"
	assert_eq "$(egress_dig www.ads.test)" timeout "a name under a listed subtree neither"
	assert_eq "$(egress_dig good.test)" 192.0.2.10 "an unlisted name is answered"
	assert_eq "$(grep -c 'blocked\|ads' "$TMP_DIR/seen")" 0 \
		"B's server saw no query for a listed name"
	grep -qx good.test "$TMP_DIR/seen" || fail "B's server saw no query for good.test"
	assert_eq "$(egress_status_json '[d["egress"]["dns_counters"][k] for k in ("queries", "blocked_drop")]')" \
		"[3,2]" "egress DNS counters: 3 queries, 2 dropped"
	[ "$(egress_status_json 'd["egress"]["counters"]["dropped_v4"]')" -ge 2 ] ||
		fail "egress dropped_v4 counts the dropped queries"
	assert_eq "$(egress_status_json 'd["dns_counters"]["queries"]')" 0 \
		"the ingress DNS counters see none of them"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "dns blocked_drop" 2 "status: the egress DNS drops"
	bw 0 stats "$BW_RX" --prometheus
	assert_grep "$OUT" "^bloomwall_egress_dns_total\\{iface=\"$BW_RX\",counter=\"blocked_drop\"\\} 2$" \
		"metrics: the egress DNS drops"
	bw 0 detach "$BW_RX"
}

# Who tried with --match dst (a router's LAN side): the sources of the
# packets the XDP program drops for their destination, in status and the
# metrics, kept over a reload; query --why says which hook drops it.
test_who_dst()
{
	local l

	l=$(list dst.txt "$BW_RX4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --match dst "$l"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	bw 0 reload "$BW_RX" "${SEED[@]}" --match dst "$l"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	assert_eq "$(egress_status_json '[[w["source"], w["packets"]] for w in d["ingress_who_tried"]]')" \
		"[[\"$BW_B4\",6],[\"$BW_C4\",3]]" "who tried on ingress, most first, over the reload"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^  Ingress who tried " "status: the section"
	assert_kv "$OUT" "who tried" "$BW_B4: 6 packets" "status: the top source"
	bw 0 stats "$BW_RX" --prometheus
	assert_grep "$OUT" "^bloomwall_ingress_tried_packets\\{iface=\"$BW_RX\",source=\"$BW_C4\"\\} 3$" \
		"metrics: who tried on ingress"
	bw 0 query "$BW_RX" --why "$BW_RX4"
	assert_line "$OUT" "  why: dropped as a destination on ingress (XDP, --match dst)" \
		"query --why: the hook and the direction"
	bw 0 detach "$BW_RX"
}

# ---- the egress hook's pins, the name allowlist's room, a watch's egress
# shellcheck disable=SC2034 # read by tests/e2e/run.sh, which sources this
EGRESS_TESTS="$EGRESS_TESTS test_egress_pins test_allow_names_room
test_watch_egress_attached"

# egress_pins_named: the pins egress_stats and egress_who name the maps of
# the TC program on $BW_RX's egress hook; prints what it found.
egress_pins_named()
{
	python3 - "$BW_PIN_ROOT/$BW_RX" <<'PY'
import json, subprocess, sys

def bt(*a):
    return json.loads(subprocess.check_output(["bpftool", "-j"] + list(a)))

tc = [h["id"] for d in bt("net", "show") for h in d.get("tc", [])
      if h.get("name", "").startswith("bloomwall_tc")]
if len(tc) != 1:
    sys.exit("bloomwall TC programs: %s" % tc)
ids = bt("prog", "show", "id", str(tc[0]))["map_ids"]
for name in ("egress_stats", "egress_who"):
    m = bt("map", "show", "pinned", sys.argv[1] + "/" + name)
    print("%s/%s: map %d (%s); the TC program's maps: %s"
          % (sys.argv[1], name, m["id"], m["name"], ids))
    if m["id"] not in ids or m["name"] != name:
        sys.exit("the pin %s does not name the egress program's map" % name)
PY
}

# egress_pinned SUM|ROWS|VALUES|PACKETS MAP: read through the pin with
# bpftool: the sum of MAP's dropped_v4 over the CPUs (egress_stats), its
# rows or the sum of its values (egress_who), or the sum of the packets of
# the CPUs' latest sources (egress_stats).
egress_pinned()
{
	bpftool -j map dump pinned "$BW_PIN_ROOT/$BW_RX/$2" | python3 -c '
import json, sys

rows = json.load(sys.stdin)
def walk(v, key):
    if isinstance(v, dict):
        return sum(walk(x, key) if k != key else int(x) for k, x in v.items())
    if isinstance(v, list):
        return sum(walk(x, key) for x in v)
    return 0
how = sys.argv[1]
if how == "SUM":
    print(walk(rows, "dropped_v4"))
elif how == "PACKETS":
    print(walk(rows, "packets"))
elif how == "VALUES":
    print(sum(int(r["value"]) for r in rows))
else:
    print(len(rows))' "$1"
}

# The egress program's own maps are pinned beside the ingress maps, name
# what the egress hook runs through swaps, and read with bpftool; without
# an egress hook there are none, and detach removes them.
test_egress_pins()
{
	local l p=$BW_PIN_ROOT/$BW_RX n

	l=$(list l.txt "$BW_A4")
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	if [ -e "$p/egress_stats" ] || [ -e "$p/egress_who" ]; then
		fail "egress pins without an egress hook: $(ls "$p")"
	fi
	bw 0 reload "$BW_RX" --egress "${SEED[@]}" "$l"
	egress_pins_named || fail "reload --egress: the egress pins"
	expect_egress_dropped "$BW_A4" IcmpInEchos
	n=$(egress_pinned SUM egress_stats)
	[ "$n" -ge 3 ] || fail "bpftool reads the pinned egress counters: dropped_v4 $n"
	assert_eq "$n" "$(egress_status_json 'd["egress"]["counters"]["dropped_v4"]')" \
		"the pinned counters are the ones status reads"
	# A's packets wait as its CPU's latest until another source comes.
	assert_eq $(($(egress_pinned VALUES egress_who) + \
		$(egress_pinned PACKETS egress_stats))) "$n" \
		"who tried, pinned: A's packets, in egress_who and the CPUs' latest"
	# A swap keeps them (the new egress program has the same maps), and
	# takes away the per-CPU slots' pin of an earlier version.
	bpftool map pin pinned "$p/egress_who" "$p/egress_who_cpu" ||
		fail "bpftool could not pin $p/egress_who_cpu"
	bw 0 add "$BW_RX" "$BW_C4"
	egress_pins_named || fail "after add: the egress pins"
	[ ! -e "$p/egress_who_cpu" ] || fail "the old pin egress_who_cpu stayed"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    pins +$BW_PIN_ROOT/$BW_RX \(name what runs\)$" \
		"status: the pins name what runs"
	bw 0 detach "$BW_RX"
	[ ! -e "$p" ] || fail "detach left $p: $(ls "$p")"
	# attach --egress pins them at once.
	bw 0 attach "$BW_RX" --egress "${SEED[@]}" "$l"
	egress_pins_named || fail "attach --egress: the egress pins"
	bw 0 detach "$BW_RX"
	[ ! -e "$p" ] || fail "detach left $p"
}

# allow NAME past the name allowlist's room fails before any name goes in,
# saying the room and what to do; the reload it names makes the room.
test_allow_names_room()
{
	local a n i names=() more=()

	a=$(list a.txt "$BW_A4")
	n=$(list n.txt "||blocked.test^")
	bw 0 attach "$BW_RX" "${SEED[@]}" "$a" "$n"
	assert_eq "$(egress_allow_names max_entries)" 4096 "the least room"
	mapfile -t names < <(seq -f 'n%g.blocked.test' 1 4090)
	bw 0 allow "$BW_RX" "${names[@]}"
	for i in $(seq 10); do
		more+=("x$i.blocked.test")
	done
	bw 1 allow "$BW_RX" "${more[@]}"
	assert_grep "$ERR" "^$BW_RX: the name allowlist has room for 4096 names and holds 4090: the 10 this command adds do not fit; nothing changed\. 'bloomwall reload $BW_RX LIST\.\.\.' makes room for twice what it holds" \
		"allow past the room says the room and what to do"
	assert_eq "$(egress_allow_names entries)" 4090 "nothing of the failed allow went in"
	bw 0 query "$BW_RX" x1.blocked.test n7.blocked.test
	assert_grep "$OUT" "^x1\.blocked\.test +block" "a name of the failed allow is still blocked"
	assert_grep "$OUT" "^n7\.blocked\.test +pass" "the names allowed before pass"
	bw 0 reload "$BW_RX" "${SEED[@]}" "$a" "$n"
	[ "$(egress_allow_names max_entries)" -ge 8180 ] ||
		fail "the reload makes room for twice what it holds: $(egress_allow_names max_entries)"
	assert_eq "$(egress_allow_names entries)" 4090 "the reload keeps the operator's names"
	bw 0 allow "$BW_RX" "${more[@]}"
	bw 0 query "$BW_RX" x1.blocked.test
	assert_grep "$OUT" "^x1\.blocked\.test +pass" "then the allow goes in"
	bw 0 detach "$BW_RX"
}

# A watch that finds the interface attached: with egress (the config
# file's egress: true, or --egress) its first rebuild puts the egress hook
# on; without, an egress hook there is kept (said at the start) and its
# rebuilds swap both hooks.
test_watch_egress_attached()
{
	local l tc1 tc2 conf=$TMP_DIR/bloomwall.yaml

	trap kill_watch EXIT
	l=$(list l.txt "$BW_A4")
	printf 'lists: [%s]\nseed: 4242\negress: true\n' "$l" >"$conf"
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	start_watch --config "$conf"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	assert_grep "$WATCH_OUT" "^$BW_RX: it has no egress hook yet: the first rebuild puts the TC program on \(--egress\)$" \
		"the watch says it puts the egress hook on"
	expect_egress_dropped "$BW_A4" IcmpInEchos
	assert_eq "$(egress_status_json 'd["egress"]["same_filter"]')" true \
		"both hooks on the watch's filter"
	stop_watch TERM
	tc1=$(egress_status_json 'd["egress"]["program_id"]')
	start_watch "${SEED[@]}" "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	assert_grep "$WATCH_OUT" "^$BW_RX: its egress hook runs bloomwall's TC program \(id $tc1\): kept, and each rebuild swaps both hooks \('bloomwall detach $BW_RX' takes both off\)$" \
		"the watch says it keeps the egress hook"
	tc2=$(egress_status_json 'd["egress"]["program_id"]')
	if [ -z "$tc2" ] || [ "$tc2" = null ] || [ "$tc2" = "$tc1" ]; then
		fail "the watch's rebuild swaps the egress program too: $tc1 -> $tc2"
	fi
	assert_eq "$(egress_status_json 'd["egress"]["same_filter"]')" true \
		"both hooks on the watch's filter"
	expect_egress_dropped "$BW_A4" IcmpInEchos
	stop_watch TERM
	bw 0 detach "$BW_RX"
	[ -z "$(egress_tc_progs)" ] || fail "a TC program is left on $BW_RX"
	# --egress as the config's key.
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	start_watch "${SEED[@]}" --egress "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	expect_egress_dropped "$BW_A4" IcmpInEchos
	stop_watch TERM
	bw 0 detach "$BW_RX"
}
