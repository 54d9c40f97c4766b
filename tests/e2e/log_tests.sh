# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of the drop log (issue 12, item 4): attach with
# --log-rate, real TCP, UDP and DNS packets from the sender's namespace,
# 'bloomwall log IFACE --json --count N' prints their events (addresses,
# ports, protocol, reason, generation, the query's name); the rate is
# kept by reload, add and load and changed by --log-rate; the token
# bucket lets exactly its burst through; the counters and the ring
# outlive reloads; one reader a ring; the end when standard output is a
# pipe nobody reads; clear errors. Sourced by tests/e2e/run.sh, whose
# helpers (bw, list, fail, skip, assert_eq, assert_line, assert_grep,
# assert_kv, kv, json, msg_not_attached) they use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $LOG_TESTS"

# shellcheck disable=SC2034 # read by run.sh
LOG_TESTS="test_log_events test_log_rate_kept test_log_bucket test_log_dns
test_log_follow test_log_watch test_log_errors test_log_one_reader
test_log_closed_pipe"

# send_l4 PROTO SRC DST SPORT DPORT [N]: N (default 1) UDP datagrams, or
# one TCP SYN, from the sender's namespace, SRC:SPORT -> DST:DPORT.
send_l4()
{
	nsenter --net="/run/netns/$BW_NS" python3 - "$@" <<'EOF'
import socket, sys, time
proto, src, dst, sport, dport = sys.argv[1:6]
n = int(sys.argv[6]) if len(sys.argv) > 6 else 1
fam = socket.AF_INET6 if ":" in src else socket.AF_INET
kind = socket.SOCK_DGRAM if proto == "udp" else socket.SOCK_STREAM
s = socket.socket(fam, kind)
s.bind((src, int(sport)))
if proto == "udp":
    for _ in range(n):
        s.sendto(b"x", (dst, int(dport)))
else:
    # One SYN: the socket is closed long before a retransmission.
    s.setblocking(False)
    try:
        s.connect((dst, int(dport)))
    except BlockingIOError:
        pass
    time.sleep(0.1)
s.close()
EOF
}

# send_query SRC DST NAME: one DNS query (A, IN, RD) from SRC port 5353.
send_query()
{
	nsenter --net="/run/netns/$BW_NS" python3 - "$@" <<'EOF'
import socket, struct, sys
src, dst, name = sys.argv[1:4]
q = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0)
for label in name.split("."):
    q += bytes([len(label)]) + label.encode()
q += b"\0" + struct.pack(">HH", 1, 1)
fam = socket.AF_INET6 if ":" in src else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.bind((src, 5353))
s.sendto(q, (dst, 53))
s.close()
EOF
}

# log_json FILE I EXPR: EXPR (Python) on e, event I (from 0) of the JSON
# lines in FILE, printed back as compact JSON.
log_json()
{
	python3 -c 'import json, sys
e = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2])]
print(json.dumps(eval(sys.argv[3]), separators=(",", ":")))' "$1" "$2" "$3" ||
		fail "$(basename "$1") has no JSON event $2 with $3"
}

# log_stat FIELD: the drop log counter FIELD, from 'stats --json'.
log_stat()
{
	"$BLOOMWALL" stats --json "$BW_RX" >"$TMP_DIR/log_stat.json" ||
		fail "stats --json failed"
	json "$TMP_DIR/log_stat.json" "d[\"log\"][\"$1\"]"
}

# Events of TCP over IPv4 and UDP over IPv6, with their ports; none for an
# unlisted source; the text line; status's rate and counters.
test_log_events()
{
	local l

	l=$(list a.txt "$BW_A4" "$BW_A6")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --log-rate 100 "$l"
	send_l4 tcp "$BW_A4" "$BW_RX4" 40001 80
	send_l4 udp "$BW_B4" "$BW_RX4" 40009 4000
	send_l4 udp "$BW_A6" "$BW_RX6" 40002 4000
	bw 0 log "$BW_RX" --json --count 2
	cp "$OUT" "$TMP_DIR/events"
	assert_eq "$(wc -l <"$TMP_DIR/events")" 2 "two events"
	assert_eq "$(log_json "$TMP_DIR/events" 0 '[e[k] for k in ("iface", "family", "proto", "src", "sport", "dst", "dport", "reason", "action", "generation")]')" \
		"[\"$BW_RX\",\"ipv4\",\"tcp\",\"$BW_A4\",40001,\"$BW_RX4\",80,\"address\",\"drop\",1]" \
		"the TCP SYN's event"
	assert_eq "$(log_json "$TMP_DIR/events" 1 '[e[k] for k in ("family", "proto", "src", "sport", "dst", "dport", "reason", "action")]')" \
		"[\"ipv6\",\"udp\",\"$BW_A6\",40002,\"$BW_RX6\",4000,\"address\",\"drop\"]" \
		"the IPv6 datagram's event (none for the unlisted source)"
	assert_eq "$(log_json "$TMP_DIR/events" 0 '"name" in e')" false \
		"no name for an address's event"
	send_l4 udp "$BW_A4" "$BW_RX4" 40003 4000
	bw 0 log "$BW_RX" --count 1
	assert_grep "$OUT" \
		"^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z $BW_RX ipv4 udp $BW_A4:40003 -> $BW_RX4:4000 address drop gen 1\$" \
		"the text line"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" rate "100 events/s per CPU (burst 100)" "status: the rate"
	assert_kv "$OUT" logged 3 "status: logged"
	assert_kv "$OUT" lost_rate 0 "status: lost_rate"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[d[0]["log"]["rate"], d[0]["log"]["counters"]["logged"]]')" \
		"[100,3]" "status JSON: the log"
	for p in log_ring log_stats dns_drops; do
		[ -e "$BW_PIN_ROOT/$BW_RX/$p" ] || fail "no pin $p"
	done
	bpftool map show pinned "$BW_PIN_ROOT/$BW_RX/log_ring" | grep -q ringbuf ||
		fail "the log_ring pin is no ring buffer"
}

# The rate is the running program's: kept by reload, add and load without
# --log-rate, changed with it; 0 turns the log off.
test_log_rate_kept()
{
	local l img

	l=$(list a.txt "$BW_A4")
	img=$TMP_DIR/a.img
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --log-rate 3 "$l"
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" rate "3 events/s per CPU (burst 3)" "reload keeps the rate"
	bw 0 add "$BW_RX" "$BW_B4"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" rate "3 events/s per CPU (burst 3)" "add keeps the rate"
	bw 0 build -o "$img" "${SEED[@]}" "$l"
	bw 0 load "$BW_RX" "$img" --log-rate 7
	bw 0 status "$BW_RX"
	assert_kv "$OUT" rate "7 events/s per CPU (burst 7)" "load --log-rate sets it"
	bw 0 load "$BW_RX" "$img"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" rate "7 events/s per CPU (burst 7)" "load keeps it"
	bw 0 reload "$BW_RX" "${SEED[@]}" --log-rate 0 "$l"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" rate "off (--log-rate 0)" "reload --log-rate 0"
	send_l4 udp "$BW_A4" "$BW_RX4" 40004 4000
	assert_eq "$(log_stat logged)" 0 "off: nothing logged"
	assert_eq "$(log_stat lost_rate)" 0 "off: nothing counted"
	bw 1 log "$BW_RX" --count 1
	assert_line "$ERR" \
		"$BW_RX: the drop log is off (--log-rate 0); turn it on with 'bloomwall reload $BW_RX LIST... --log-rate N'" \
		"log says the log is off"
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" rate "off (--log-rate 0)" "reload keeps it off"
}

# A burst of 20 datagrams (well under a second) at --log-rate 2: exactly
# the bucket's 2 logged, 18 lost to the rate; the counters and the ring
# outlive a reload.
test_log_bucket()
{
	local l

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --log-rate 2 "$l"
	send_l4 udp "$BW_A4" "$BW_RX4" 40005 4000 20
	assert_eq "$(bw_stat "$BW_RX" dropped_v4)" 20 "the 20 datagrams dropped"
	assert_eq "$(log_stat logged)" 2 "the burst: logged"
	assert_eq "$(log_stat lost_rate)" 18 "the burst: lost to the rate"
	assert_eq "$(log_stat lost_ring)" 0 "the burst: none lost to the ring"
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l"
	assert_eq "$(log_stat logged)" 2 "reload keeps the counters"
	bw 0 log "$BW_RX" --json --count 2
	assert_eq "$(log_json "$OUT" 1 '[e["sport"], e["generation"]]')" \
		"[40005,1]" "the ring kept its events across the reload"
}

# A blocked query's event: the query's addresses and ports, reason dns,
# the name; the metrics tell DNS drops from address drops.
test_log_dns()
{
	local l

	l=$(list d.txt "ads.example.com" "*.doubleclick.net" "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --dns-action drop \
		--log-rate 100 "$l"
	send_query "$BW_B4" "$BW_RX4" ads.example.com
	send_query "$BW_B6" "$BW_RX6" x.y.doubleclick.net
	send_query "$BW_B4" "$BW_RX4" example.com
	send_l4 udp "$BW_A4" "$BW_RX4" 40006 4000
	bw 0 log "$BW_RX" --json --count 3
	cp "$OUT" "$TMP_DIR/events"
	assert_eq "$(log_json "$TMP_DIR/events" 0 '[e[k] for k in ("family", "proto", "src", "sport", "dst", "dport", "reason", "action", "name")]')" \
		"[\"ipv4\",\"udp\",\"$BW_B4\",5353,\"$BW_RX4\",53,\"dns\",\"drop\",\"ads.example.com\"]" \
		"the blocked IPv4 query's event"
	assert_eq "$(log_json "$TMP_DIR/events" 1 '[e[k] for k in ("family", "src", "reason", "name")]')" \
		"[\"ipv6\",\"$BW_B6\",\"dns\",\"x.y.doubleclick.net\"]" \
		"the blocked IPv6 query's event (a subtree entry)"
	assert_eq "$(log_json "$TMP_DIR/events" 2 '[e["reason"], e["sport"]]')" \
		'["address",40006]' "the address drop after them (none for example.com)"
	bw 0 stats "$BW_RX" --prometheus
	assert_grep "$OUT" "^bloomwall_packets_total\\{iface=\"$BW_RX\",verdict=\"drop\",reason=\"dns\",family=\"ipv4\"\\} 1\$" \
		"metrics: one DNS drop over IPv4"
	assert_grep "$OUT" "^bloomwall_packets_total\\{iface=\"$BW_RX\",verdict=\"drop\",reason=\"dns\",family=\"ipv6\"\\} 1\$" \
		"metrics: one DNS drop over IPv6"
	assert_grep "$OUT" "^bloomwall_packets_total\\{iface=\"$BW_RX\",verdict=\"drop\",reason=\"address\",family=\"ipv4\"\\} 1\$" \
		"metrics: the address drop alone"
}

# log follows until SIGINT (exit 0), and ends by itself when the filter is
# reloaded with --log-rate 0 or detached (said).
test_log_follow()
{
	local l pid rc n how

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" rate "10 events/s per CPU (burst 10)" "the default rate"
	"$BLOOMWALL" log "$BW_RX" >"$TMP_DIR/follow" 2>"$TMP_DIR/follow.err" &
	pid=$!
	send_l4 udp "$BW_A4" "$BW_RX4" 40007 4000
	for ((n = 0; n < 50; n++)); do
		grep -q ":40007 " "$TMP_DIR/follow" && break
		sleep 0.1
	done
	grep -q ":40007 " "$TMP_DIR/follow" || fail "log did not print the event"
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	assert_eq "$rc" 0 "log exits 0 on SIGINT"
	for how in "reload --log-rate 0" detach; do
		"$BLOOMWALL" log "$BW_RX" >"$TMP_DIR/follow" 2>"$TMP_DIR/follow.err" &
		pid=$!
		sleep 0.3
		if [ "$how" = detach ]; then
			bw 0 detach "$BW_RX"
		else
			bw 0 reload "$BW_RX" "${SEED[@]}" --log-rate 0 "$l"
		fi
		for ((n = 0; n < 50; n++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null &&
			{ kill "$pid"; fail "log still runs after the $how"; }
		wait "$pid"
		assert_eq "$?" 0 "log exits 0 when the log ends ($how)"
		assert_line "$TMP_DIR/follow.err" \
			"$BW_RX: bloomwall's drop log is no longer on (detached, or reloaded with --log-rate 0); the log ends" \
			"log says why it ended ($how)"
		[ "$how" = detach ] || bw 0 reload "$BW_RX" "${SEED[@]}" --log-rate 10 "$l"
	done
}

# watch --log-rate: the program it attaches and every one it reloads has
# the rate (start_watch, wait_line, kill_watch: ops_tests.sh).
test_log_watch()
{
	local l=$TMP_DIR/w.txt

	trap kill_watch EXIT
	printf '%s\n' "$BW_A4" >"$l"
	start_watch "${SEED[@]}" --debounce 0.2 --log-rate 4 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" rate "4 events/s per CPU (burst 4)" "watch attaches with the rate"
	printf '%s\n' "$BW_B4" >"$TMP_DIR/.w.tmp"
	mv "$TMP_DIR/.w.tmp" "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	bw 0 status "$BW_RX"
	assert_kv "$OUT" generation 2 "the watch reloaded"
	assert_kv "$OUT" rate "4 events/s per CPU (burst 4)" "and kept the rate"
	send_l4 udp "$BW_B4" "$BW_RX4" 40008 4000
	bw 0 log "$BW_RX" --json --count 1
	assert_eq "$(log_json "$OUT" 0 '[e["src"], e["generation"]]')" \
		"[\"$BW_B4\",2]" "the event of generation 2"
}

test_log_errors()
{
	local l

	bw 1 log "$BW_RX"
	assert_line "$ERR" "$(msg_not_attached "$BW_RX")" "not attached"
	bw 2 log
	assert_line "$ERR" "bloomwall log: missing arguments" "no interface"
	l=$(list a.txt "$BW_A4")
	bw 2 attach "$BW_RX" --log-rate ten "$l"
	assert_line "$ERR" \
		"bloomwall: --log-rate takes events a second from 0 (no drop log) to 1000000000, not 'ten'" \
		"a bad rate"
	bw 2 attach "$BW_RX" --log-rate 1000000001 "$l"
	bw 2 build -o "$TMP_DIR/x.img" --log-rate 5 "$l"
	assert_line "$ERR" "bloomwall build: unknown option '--log-rate'" \
		"build makes no program: no rate"
	bw 0 log --help
	assert_grep "$OUT" "^Usage: bloomwall log IFACE \\[OPTIONS\\]\$" "log --help"
	command -v setpriv >/dev/null || skip "no setpriv"
	bw 0 attach "$BW_RX" --mode native "$l"
	echo "+ setpriv (no capabilities) bloomwall log $BW_RX"
	setpriv --inh-caps=-all --bounding-set=-all "$BLOOMWALL" log "$BW_RX" \
		>"$OUT" 2>"$ERR" && fail "log without capabilities succeeded"
	assert_line "$ERR" \
		"bloomwall log: needs CAP_SYS_ADMIN (missing) to open the running program and its maps by id; root here runs with fewer capabilities (see 'capsh --print')" \
		"log without CAP_SYS_ADMIN"
}

# wait_gone PID: waits until PID has exited (true) or, a bound that only
# keeps a hung log from hanging the run, 30 s have passed (false).
wait_gone()
{
	local n

	for ((n = 0; n < 300; n++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# A ring buffer has one consumer: a second log of the interface, under a
# flood, is refused naming the first's pid (two readers printed garbage:
# "proto-0 0.0.0.0 -> 0.0.0.0 ... gen 0"), and the first prints every event
# logged, each one a well-formed line of the flood's.
test_log_one_reader()
{
	local l pid flood n logged line

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --log-rate 1000000 "$l"
	"$BLOOMWALL" log "$BW_RX" >"$TMP_DIR/first" 2>"$TMP_DIR/first.err" &
	pid=$!
	# shellcheck disable=SC2064 # this pid, now
	trap "kill $pid 2>/dev/null" EXIT
	send_l4 udp "$BW_A4" "$BW_RX4" 40010 4000
	for ((n = 0; n < 100; n++)); do
		grep -q ":40010 " "$TMP_DIR/first" && break
		sleep 0.1
	done
	grep -q ":40010 " "$TMP_DIR/first" || fail "the first log printed nothing"
	send_l4 udp "$BW_A4" "$BW_RX4" 40011 4000 50000 &
	flood=$!
	# shellcheck disable=SC2064 # these pids, now
	trap "kill $pid $flood 2>/dev/null" EXIT
	bw 1 log "$BW_RX" --count 100
	assert_line "$ERR" \
		"$BW_RX: the drop log already has a reader, pid $pid (bloomwall log $BW_RX); a ring buffer has one reader (two would garble each other's events): end that one first" \
		"a second reader is refused, naming the first"
	bw 1 log "$BW_RX" --json --count 1
	assert_grep "$ERR" "^$BW_RX: the drop log already has a reader, pid $pid " \
		"with --json too"
	assert_eq "$(json "$OUT" '[d["ok"], d["error"]]')" \
		'[false,"Operation already in progress"]' "the JSON document"
	wait "$flood" || fail "the flood failed"
	logged=$(log_stat logged)
	[ "$logged" -gt 1000 ] || fail "only $logged events logged: no flood"
	# The one reader drains the ring at its own pace.
	for ((n = 0; n < 300; n++)); do
		[ "$(wc -l <"$TMP_DIR/first")" -ge "$logged" ] && break
		sleep 0.1
	done
	kill -INT "$pid"
	wait "$pid"
	assert_eq "$?" 0 "the first log exits 0 on SIGINT"
	echo "  logged $logged, lost_ring $(log_stat lost_ring)"
	assert_eq "$(wc -l <"$TMP_DIR/first")" "$logged" \
		"the first log printed every event logged, once"
	line="^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z $BW_RX ipv4 udp $BW_A4:4001[01] -> $BW_RX4:4000 address drop gen 1\$"
	grep -vE "$line" "$TMP_DIR/first" | head -n 3 | sed 's/^/  bad: /'
	assert_eq "$(grep -cvE "$line" "$TMP_DIR/first")" 0 \
		"every line well-formed, the flood's"
	assert_eq "$(grep -c "proto-0 0.0.0.0" "$TMP_DIR/first")" 0 "no garbage event"
}

# log_to_head NAME ARGS...: 'bloomwall log ARGS' with SIGPIPE ignored,
# piped into 'head -n 1' (into $TMP_DIR/NAME.first); its pid in
# $TMP_DIR/NAME.pid, its exit status in $TMP_DIR/NAME.rc once it exits.
log_to_head()
{
	local name=$1 n

	shift
	(
		trap '' PIPE
		"$BLOOMWALL" log "$@" 2>"$TMP_DIR/$name.err" &
		echo $! >"$TMP_DIR/$name.pid"
		wait $!
		echo $? >"$TMP_DIR/$name.rc"
	) | head -n 1 >"$TMP_DIR/$name.first" &
	for ((n = 0; n < 100; n++)); do
		[ -s "$TMP_DIR/$name.pid" ] && break
		sleep 0.1
	done
	[ -s "$TMP_DIR/$name.pid" ] || fail "log did not start"
}

# log_ended NAME: log_to_head's log has exited (a generous poll, no time
# limit asserted), with status 1 and the message.
log_ended()
{
	local pid n

	pid=$(cat "$TMP_DIR/$1.pid")
	if ! wait_gone "$pid"; then
		kill "$pid"
		fail "$1: log still runs with its standard output's reader gone"
	fi
	for ((n = 0; n < 50; n++)); do
		[ -s "$TMP_DIR/$1.rc" ] && break
		sleep 0.1
	done
	assert_eq "$(cat "$TMP_DIR/$1.rc")" 1 "$1: log exits 1"
	assert_line "$TMP_DIR/$1.err" \
		"bloomwall log: cannot write to standard output: Broken pipe; the log ends" \
		"$1: log says why it ended"
}

# With SIGPIPE ignored, log into 'head -n 1' ends once head has gone: at
# the next write (EPIPE), while events flow, and with no event to write
# at all (its end of the pipe polls POLLERR).
test_log_closed_pipe()
{
	local l n

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --log-rate 1000 "$l"
	log_to_head quiet "$BW_RX"
	send_l4 udp "$BW_A4" "$BW_RX4" 40012 4000
	log_ended quiet
	assert_grep "$TMP_DIR/quiet.first" " $BW_A4:40012 -> " "head's one line"
	log_to_head flow "$BW_RX" --json
	for ((n = 0; n < 100; n++)); do
		[ -s "$TMP_DIR/flow.rc" ] && break
		send_l4 udp "$BW_A4" "$BW_RX4" 40013 4000 5
		sleep 0.1
	done
	log_ended flow
	assert_eq "$(log_json "$TMP_DIR/flow.first" 0 'e["sport"]')" 40013 \
		"head's one JSON line"
}
