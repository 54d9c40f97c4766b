# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of the watch's socket against hostile clients (issue 28,
# items 2 and 4): a client that drips a byte every 0.8 s, a thousand that
# connect and say nothing, a question of 2 MiB, a peer that is not root.
# Whatever they do, the watch takes an expired entry out, answers the
# other clients and ends on SIGTERM within a second (doc/watch.md's
# contracts); tests/e2e/sock_client.py is the client, and says what became
# of each connection, which the watch's state file ("socket") counts too.
# Sourced by tests/e2e/run.sh after live_tests.sh, whose live_watch they
# use (and ops_tests.sh's watch helpers).
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $SOCK_TESTS"

# shellcheck disable=SC2034 # read by run.sh
SOCK_TESTS="test_sock_drip test_sock_silent test_sock_big test_sock_peer
test_sock_protocol test_sock_errors test_status_watch test_sock_rebuild_busy"

SOCK_CLIENT=$TOP/tests/e2e/sock_client.py
# Debian's python3: it starts at once (a pyenv shim takes a second), and
# user nobody can run it.
SOCK_PY=/usr/bin/python3
[ -x "$SOCK_PY" ] || SOCK_PY=python3

# sock_ask QUESTION: the watch's answer in $OUT, which must come whole
# within the 1 s doc/watch.md promises (the client's own time included).
sock_ask()
{
	local s

	echo "+ ask '$1'"
	"$SOCK_PY" "$SOCK_CLIENT" ask "/run/bloomwall/$BW_RX.sock" "$1" >"$OUT" 2>"$ERR" ||
		fail "no answer to '$1'"
	sed 's/^/  | /' "$OUT"
	s=$(sed -n 's/^seconds //p' "$ERR")
	at_most "$s" 1 ||
		fail "'$1' answered in $s s, not within 1 s"
}

# sock_count KEY WANT: the state file's count of the socket's clients
# KEY reaches WANT (published once a second; the bound only ends a hang).
sock_count()
{
	local state=/run/bloomwall/$BW_RX.json i

	for i in $(seq 50); do
		[ "$(json "$state" "d['socket']['$1']")" = "$2" ] && return 0
		sleep 0.1
	done
	assert_eq "$(json "$state" "d['socket']['$1']")" "$2" \
		"the state file's count of clients $1"
}

# client_count FILE KEY: what sock_client.py said of its connections KEY.
client_count()
{
	awk -v k="$2" '$1 == k { n = $2 } END { print n + 0 }' "$1"
}

# kill_clients: the test's background clients, then the watch.
kill_clients()
{
	local p

	for p in ${SOCK_PIDS:-}; do
		kill "$p" 2>/dev/null
	done
	kill_watch
}

# since T0 T1: T1 - T0 in seconds (both Unix seconds, fractions allowed).
since()
{
	"$SOCK_PY" -c 'import sys; print("%.3f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$1" "$2"
}

# at_most S LIMIT: S <= LIMIT (seconds).
at_most()
{
	"$SOCK_PY" -c 'import sys; sys.exit(float(sys.argv[1]) > float(sys.argv[2]))' "$1" "$2"
}

# out_within_1s ADDR END: ADDR, an add that ends at END (Unix seconds),
# is out within 1 s of it: no query that began later still sees it. The
# queries go on until it is out or 20 s after END (a bound on time, not on
# queries: a fast machine asks hundreds before the end), which only ends
# a hang.
out_within_1s()
{
	local t last_drop='' bound=$(($2 + 20))

	while :; do
		t=$(date +%s.%N)
		"$BLOOMWALL" query "$BW_RX" "$1" 2>/dev/null |
			grep -qE "^$1  pass( |\$)" && break
		last_drop=$t
		[ "${t%.*}" -lt "$bound" ] || break
	done
	[ -n "$last_drop" ] || fail "$1 passed at once, $(since "$2" "$t") s after its end"
	t=$(since "$2" "$last_drop")
	echo "  the last query that saw $1 in began $t s after its end"
	at_most "$t" 1 || fail "$1 was still in $t s after its end"
}

# sigterm_within_1s: SIGTERM ends the watch (exit 0) within 1 s.
sigterm_within_1s()
{
	local t0 t1 rc s

	t0=$(date +%s.%N)
	kill -TERM "$WATCH_PID"
	wait "$WATCH_PID"
	rc=$?
	t1=$(date +%s.%N)
	sed 's/^/  w /' "$WATCH_OUT"
	sed 's/^/  w! /' "$WATCH_ERR"
	WATCH_PID=
	assert_eq "$rc" 0 "the watch's exit status on SIGTERM"
	s=$(since "$t0" "$t1")
	echo "  ended $s s after SIGTERM"
	at_most "$s" 1 || fail "SIGTERM ended the watch after $s s, not within 1 s"
}

# A client dripping a byte every 0.8 s (each of its connections dropped at
# 1 s, a new one at once) holds nothing: an add --timeout passes within a
# second of its end, other questions are answered at once, and SIGTERM
# ends the watch within a second while the dripper is connected.
test_sock_drip()
{
	local sock=/run/bloomwall/$BW_RX.sock state=/run/bloomwall/$BW_RX.json
	local d end late

	trap kill_clients EXIT
	live_watch
	"$SOCK_PY" "$SOCK_CLIENT" drip "$sock" 15 >"$TMP_DIR/drip" &
	d=$!
	SOCK_PIDS=$d
	# Handed to the watch while the dripper holds a client of its own.
	bw 0 add "$BW_RX" --timeout 5s "$BW_C4"
	assert_grep "$OUT" "added in place by the watch" "add went in place"
	end=$(json "$state" 'd["live"]["next_expiry"]')
	query_is "$BW_C4" drop
	# (grep, not json: the entry's 5 s run while these are asked)
	sock_ask '{"v":1,"op":"status"}'
	assert_grep "$OUT" '^\{"v":1,"op":"status","ok":true,.*"live":\{"entries":1,' \
		"status: the live entry"
	sock_ask '{"v":1,"op":"why","addresses":["'"$BW_A4"'"]}'
	assert_grep "$OUT" '^\{"v":1,"op":"why","ok":true,"crowdsec":false,"results":\[\{"address":"'"${BW_A4//./\\.}"'","decisions":\[\],"more":0\}\]\}$' \
		"why: no CrowdSec source, no decision"
	# Out within 1 s of its end: no query that began later still sees it
	# (the loop's bound only ends a hang).
	out_within_1s "$BW_C4" "$end"
	kill -0 "$d" || fail "the dripper ended before the expiry"
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 query "$BW_RX" --why "$BW_A4"
	wait "$d"
	sed 's/^/  drip /' "$TMP_DIR/drip"
	late=$(client_count "$TMP_DIR/drip" late)
	[ "$late" -ge 10 ] || fail "the dripper was dropped $late times in 15 s"
	assert_eq "$(client_count "$TMP_DIR/drip" answer)" 0 "answers to the dripper"
	# Its last connection, cut by the dripper's own end, may be open.
	[ "$(client_count "$TMP_DIR/drip" open)" -le 1 ] ||
		fail "dripper connections the watch left open"
	sock_count late "$late"

	# SIGTERM with a dripper connected.
	"$SOCK_PY" "$SOCK_CLIENT" drip "$sock" 10 >"$TMP_DIR/drip" &
	d=$!
	SOCK_PIDS=$d
	sleep 1.5
	sigterm_within_1s
	wait "$d"
	sed 's/^/  drip /' "$TMP_DIR/drip"
	# The connection it had when the watch ended: closed, without a word.
	# (A loaded machine may have dropped an earlier one late, unanswered.)
	[ "$(client_count "$TMP_DIR/drip" nothing)" -ge 1 ] ||
		fail "the dripper's connection was not closed by the watch's end"
	assert_eq "$(client_count "$TMP_DIR/drip" gone)" 1 "the watch gone"
	trap - EXIT
}

# A rebuild under way holds nothing: with one reading a list that became
# a FIFO nobody writes (its child waits there throughout), add and remove
# are answered in place, an add --timeout is out within a second of its
# end, and SIGTERM ends the watch and its rebuild within a second.
test_sock_rebuild_busy()
{
	local state=/run/bloomwall/$BW_RX.json prog end kids="" i

	trap kill_clients EXIT
	live_watch
	prog=$(hook_prog_id)
	rm "$LIVE_LIST"
	mkfifo "$LIVE_LIST"
	# The bound only ends a hang: the rebuild starts once events settle.
	for i in $(seq 100); do
		kids=$(cat /proc/"$WATCH_PID"/task/*/children 2>/dev/null)
		[ -n "$kids" ] && break
		sleep 0.1
	done
	[ -n "$kids" ] || fail "no rebuild started on the FIFO"
	echo "  the rebuild's child: $kids"
	bw 0 add "$BW_RX" "$BW_C4"
	assert_grep "$OUT" "added in place by the watch" \
		"add in place while a rebuild runs"
	query_is "$BW_C4" drop
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 0 add "$BW_RX" --timeout 3s "$BW_B4"
	assert_grep "$OUT" "added in place by the watch" "add --timeout in place"
	end=$(json "$state" 'd["live"]["next_expiry"]')
	query_is "$BW_B4" drop
	out_within_1s "$BW_B4" "$end"
	bw 0 remove "$BW_RX" "$BW_C4"
	assert_line "$OUT" "$BW_C4  removed in place" \
		"remove in place while a rebuild runs"
	query_is "$BW_C4" pass
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	assert_eq "$(hook_prog_id)" "$prog" "the same program throughout"
	# shellcheck disable=SC2086 # one pid, or a list of them
	kill -0 $kids 2>/dev/null ||
		fail "the rebuild ended: it was to wait on the FIFO throughout"
	sigterm_within_1s
	for i in $kids; do
		wait_gone "$i" || fail "the rebuild's child $i outlived the watch"
	done
	query_is "$BW_A4" drop
	trap - EXIT
}

# A thousand connections at once that say nothing: each is dropped (pushed
# out for a newer one past 64, or at its 1 s), none stays, and a question
# asked meanwhile is answered at once.
test_sock_silent()
{
	local sock=/run/bloomwall/$BW_RX.sock s n

	trap kill_clients EXIT
	live_watch
	: >"$TMP_DIR/silent"
	"$SOCK_PY" "$SOCK_CLIENT" silent "$sock" 1000 >"$TMP_DIR/silent" &
	s=$!
	SOCK_PIDS=$s
	wait_line "$TMP_DIR/silent" '^open$'
	sock_ask '{"v":1,"op":"status"}'
	assert_eq "$(json "$OUT" 'd["ok"]')" true "status answered"
	bw 0 query "$BW_RX" --why "$BW_A4"
	wait "$s"
	sed 's/^/  silent /' "$TMP_DIR/silent"
	n=$(($(client_count "$TMP_DIR/silent" busy) + $(client_count "$TMP_DIR/silent" late)))
	assert_eq "$n" 1000 "silent connections dropped (busy or late)"
	assert_eq "$(client_count "$TMP_DIR/silent" open)" 0 "silent connections left open"
	sock_count pushed_out "$(client_count "$TMP_DIR/silent" busy)"
	sock_count late "$(client_count "$TMP_DIR/silent" late)"
	sock_ask '{"v":1,"op":"status"}'
	query_is "$BW_A4" drop
	sigterm_within_1s
	trap - EXIT
}

# A question of 2 MiB is refused (the first 1 MiB read, then an error
# line); one of exactly 1 MiB with its newline is read whole and answered.
test_sock_big()
{
	local sock=/run/bloomwall/$BW_RX.sock

	trap kill_clients EXIT
	live_watch
	echo "+ a question of 2 MiB"
	"$SOCK_PY" "$SOCK_CLIENT" big "$sock" $((2 * 1024 * 1024)) >"$OUT" ||
		fail "no answer to the 2 MiB question"
	cat "$OUT"
	echo
	assert_grep "$OUT" '^\{"v":1,"op":null,"ok":false,"code":"too_long","error":"question too long: at most 1 MiB, its newline included"\}$' \
		"the 2 MiB question refused"
	sock_ask '{"v":1,"op":"status"}'
	echo "+ a question of 1 MiB, its newline included"
	"$SOCK_PY" "$SOCK_CLIENT" big "$sock" $((1024 * 1024 - 1)) >"$OUT" ||
		fail "no answer to the 1 MiB question"
	assert_eq "$(json "$OUT" '[d["ok"], d["code"]]')" '[false,"bad_request"]' \
		"the 1 MiB question read whole and answered"
	echo "+ a question of 1 MiB and a byte"
	"$SOCK_PY" "$SOCK_CLIENT" big "$sock" $((1024 * 1024)) >"$OUT" ||
		fail "no answer to the question of 1 MiB and a byte"
	assert_eq "$(json "$OUT" 'd["code"]')" '"too_long"' "1 MiB and a byte refused"
	sock_count too_long 2
	sock_count answered 2
	query_is "$BW_A4" drop
	bw 0 query "$BW_RX" --why "$BW_A4"
	sigterm_within_1s
	trap - EXIT
}

# sock_typed QUESTION: asks it and checks the reply's envelope: "v" 1, the
# op echoed (null for a question whose version and op were not read).
sock_typed()
{
	local op

	sock_ask "$1"
	op=$("$SOCK_PY" -c 'import json, sys
try:
    q = json.loads(sys.argv[1])
    ok = type(q.get("v")) is int and q["v"] == 1
    op = q.get("op") if ok else None
    print(json.dumps(op if op in ("add", "remove", "why", "status") else None))
except Exception:
    print("null")' "$1")
	assert_eq "$(json "$OUT" '[d["v"], d["op"], type(d["ok"]).__name__]')" \
		"[1,$op,\"bool\"]" "the reply's envelope"
}

# A script speaks the protocol (doc/watch.md "The watch's socket") as bloomwall
# does, and reads fields: add and remove in place, per entry what
# happened; why, per address its decisions (none: no CrowdSec source);
# status, the watch's live state. The same program on the hook throughout,
# no rebuild, and the packets say the same.
test_sock_protocol()
{
	local prog n

	trap kill_clients EXIT
	live_watch
	prog=$(hook_prog_id)
	n=$(grep -cE "$RELOAD_OK" "$WATCH_OUT")
	sock_typed '{"v":1,"op":"add","prefixes":["'"$BW_C4"'","'"$BW_B4"'/32"],"expires":0}'
	assert_eq "$(json "$OUT" '[d["ok"], d["in_place"], d["expires"], d["results"]]')" \
		'[true,true,0,["added","added"]]' "add: each entry added"
	sock_typed '{"v":1,"op":"add","prefixes":["'"$BW_C4"'"]}'
	assert_eq "$(json "$OUT" 'd["results"]')" '["already"]' "add again: already"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	sock_typed '{"v":1,"op":"status"}'
	assert_eq "$(json "$OUT" '[d["ok"], d["pid"], d["live"]["entries"], d["socket"]["answered"] >= 2]')" \
		"[true,$WATCH_PID,2,true]" "status: the watch's live state"
	sock_typed '{"v":1,"op":"why","addresses":["'"$BW_A4"'","'"$BW_C6"'"]}'
	assert_eq "$(json "$OUT" '[d["ok"], d["crowdsec"], [[r["address"], r["decisions"], r["more"]] for r in d["results"]]]')" \
		'[true,false,[["'"$BW_A4"'",[],0],["'"$BW_C6"'",[],0]]]' \
		"why: one result per address, no decision without a source"
	sock_typed '{"v":1,"op":"remove","prefixes":["'"$BW_C4"'","'"$BW_A4"'"]}'
	assert_eq "$(json "$OUT" '[d["ok"], d["results"]]')" \
		'[true,["in_place","not_added"]]' "remove: each entry's fate"
	query_is "$BW_C4" pass
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	sock_typed '{"v":1,"op":"add","names":[{"name":"ads.example","subtree":true}]}'
	assert_eq "$(json "$OUT" '[d["ok"], d["results"]]')" '[true,["added"]]' "add of a name"
	sock_typed '{"v":1,"op":"remove","names":[{"name":"ads.example","subtree":true}]}'
	assert_eq "$(json "$OUT" '[d["ok"], d["results"]]')" '[true,["in_place"]]' "remove of a name"
	assert_eq "$(hook_prog_id)" "$prog" "the same program"
	assert_eq "$(grep -cE "$RELOAD_OK" "$WATCH_OUT")" "$n" "no rebuild"
	sigterm_within_1s
	trap - EXIT
}

# Every question the watch cannot take gets a typed error: malformed JSON,
# another version, an unknown op (the one-word "sync" and "why ADDR" of
# before among them), bad fields; the watch lives on and answers.
test_sock_errors()
{
	local q many

	trap kill_clients EXIT
	live_watch
	many=$("$SOCK_PY" -c 'import json; print(json.dumps({"v": 1, "op": "why", "addresses": ["10.9.0.%d" % i for i in range(65)]}))')
	cat >"$TMP_DIR/questions" <<EOF2
bad_request|null|sync
bad_request|null|why $BW_A4
bad_request|null|{"v":1,"op":"status"
bad_request|null|{"v":1,"op":"status"} trailing
bad_request|null|[1,2]
bad_request|null|{"v":1}
bad_version|null|{"op":"status"}
bad_version|null|{"v":2,"op":"status"}
bad_version|null|{"v":"1","op":"status"}
unknown_op|null|{"v":1,"op":"sync"}
unknown_op|null|{"v":1,"op":"flush"}
bad_request|"add"|{"v":1,"op":"add"}
bad_request|"add"|{"v":1,"op":"add","prefixes":["10.77.0.300"]}
bad_request|"add"|{"v":1,"op":"add","prefixes":["$BW_C4"],"expires":"soon"}
bad_request|"remove"|{"v":1,"op":"remove","names":[{"subtree":true}]}
bad_request|"why"|{"v":1,"op":"why"}
bad_request|"why"|{"v":1,"op":"why","addresses":[]}
bad_request|"why"|{"v":1,"op":"why","addresses":["10.77.0.0/24"]}
bad_request|"why"|{"v":1,"op":"why","addresses":["ads.example"]}
bad_request|"why"|$many
EOF2
	# A script's client: each question on a connection of its own, the
	# reply's fields read ("v", "op", "ok", "code", "error").
	"$SOCK_PY" - "/run/bloomwall/$BW_RX.sock" "$TMP_DIR/questions" >"$OUT" <<'EOF2'
import json, socket, sys

for line in open(sys.argv[2]):
    want, op, q = line.rstrip("\n").split("|", 2)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sys.argv[1])
    s.sendall(q.encode() + b"\n")
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    s.close()
    r = json.loads(data)
    envelope = (r["v"] == 1 and json.dumps(r["op"]) == op and
                r["ok"] is False and r["error"] != "")
    print(want, r["code"], "envelope" if envelope else "not-envelope",
          q[:60])
EOF2
	cat "$OUT"
	assert_eq "$(awk '$1 == $2 && $3 == "envelope"' "$OUT" | wc -l)" \
		"$(wc -l <"$TMP_DIR/questions")" "every bad question: its typed error"
	query_is "$BW_C4" pass
	query_is "$BW_A4" drop
	sock_typed '{"v":1,"op":"status"}'
	assert_eq "$(json "$OUT" '[d["ok"], d["live"]["entries"]]')" "[true,0]" \
		"nothing half-applied"
	sigterm_within_1s
	trap - EXIT
}

# status asks the watch (JSON "watch": its pid, answered); a watch that
# cannot answer (stopped, as a long rebuild holds it) is waited for a
# second, then status says so and shows what it last published (query
# --why, which asks it too, names its socket as what did not answer); without
# a watch, none; a killed watch's state file is not taken for a running
# one.
test_status_watch()
{
	local t0 t1

	trap 'kill -CONT "$WATCH_PID" 2>/dev/null; kill_clients' EXIT
	bw 0 attach "$BW_RX" "${SEED[@]}" "$(list w.txt "$BW_A4")"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd[0]["watch"]')" null "no watch: none"
	bw 0 status "$BW_RX"
	grep -q "did not answer" "$OUT" && fail "no watch said busy"
	live_watch
	bw 0 add "$BW_RX" --timeout 1h "$BW_C4"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[d[0]["watch"]["pid"], d[0]["watch"]["answered"], d[0]["filter"]["expiring"]["entries"]]')" \
		"[$WATCH_PID,true,1]" "status asked the watch"
	bw 0 status "$BW_RX"
	grep -q "did not answer" "$OUT" && fail "an answering watch said busy"
	kill -STOP "$WATCH_PID"
	t0=$(date +%s.%N)
	bw 0 status "$BW_RX"
	t1=$(date +%s.%N)
	assert_grep "$OUT" "^  watch \\(pid $WATCH_PID\\) did not answer within 1 s \\(.*\\): its state as published [0-9]+ s ago\$" \
		"a stopped watch: said"
	echo "  status took $(since "$t0" "$t1") s"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[d[0]["watch"]["pid"], d[0]["watch"]["answered"], d[0]["filter"]["expiring"]["entries"]]')" \
		"[$WATCH_PID,false,1]" "a stopped watch: its published state"
	# query --why asks the watch (which has no CrowdSec source) too: what
	# did not answer is its socket.
	bw 0 query "$BW_RX" --why "$BW_C4"
	assert_line "$ERR" "$BW_RX: the watch did not answer on its socket /run/bloomwall/$BW_RX.sock within 3 s (busy or stopped): --why shows no CrowdSec decision" \
		"a stopped watch: query --why names the socket"
	grep -q "CrowdSec source" "$ERR" && fail "a watch without CrowdSec: no CrowdSec source to blame"
	assert_grep "$OUT" "^$BW_C4  drop " "query --why answers without the watch"
	kill -CONT "$WATCH_PID"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd[0]["watch"]["answered"]')" true "answers again"
	kill -KILL "$WATCH_PID"
	wait "$WATCH_PID" 2>/dev/null
	WATCH_PID=
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd[0]["watch"]')" null "a killed watch: none"
	trap - EXIT
}

# The socket made reachable for nobody (bind-mounted where nobody can
# reach it, 0666): SO_PEERCRED refuses the peer with an error line; the
# socket's group made nogroup (0660) lets it in, as the primary group or
# as a supplementary one (SO_PEERGROUPS).
test_sock_peer()
{
	local sock=/run/bloomwall/$BW_RX.sock dir p q='{"v":1,"op":"status"}'

	command -v setpriv >/dev/null || skip "no setpriv"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	getent group nogroup >/dev/null || skip "no group nogroup"
	trap 'kill_watch; umount "$dir/s.sock" 2>/dev/null; rm -rf "$dir"' EXIT
	live_watch
	dir=$(mktemp -d /tmp/bwsock.XXXXXX)
	chmod 0755 "$dir"
	: >"$dir/s.sock"
	mount --bind "$sock" "$dir/s.sock" || fail "bind mount of the socket"
	chmod 0666 "$sock"
	ls -l "$sock"
	echo "+ setpriv (nobody) ask status"
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$SOCK_PY" - ask "$dir/s.sock" "$q" <"$SOCK_CLIENT" >"$OUT" 2>"$ERR"
	sed 's/^/  | /' "$OUT" "$ERR"
	assert_grep "$OUT" '^\{"v":1,"op":null,"ok":false,"code":"refused","error":"not allowed: root, the socket.s owner or its group only"\}$' \
		"nobody refused"
	sock_count refused 1
	sock_count answered 0

	chgrp nogroup "$sock"
	chmod 0660 "$sock"
	ls -l "$sock"
	echo "+ setpriv (nobody, group nogroup) ask status"
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$SOCK_PY" - ask "$dir/s.sock" "$q" <"$SOCK_CLIENT" >"$OUT" 2>"$ERR" ||
		fail "no answer for a peer of the socket's group"
	sed 's/^/  | /' "$OUT" "$ERR"
	assert_eq "$(json "$OUT" '[d["ok"], d["op"]]')" '[true,"status"]' \
		"the socket's group answered"
	echo "+ setpriv (nobody, group nobody's 65533, nogroup beside) ask status"
	setpriv --reuid=nobody --regid=65533 --groups=nogroup \
		"$SOCK_PY" - ask "$dir/s.sock" "$q" <"$SOCK_CLIENT" >"$OUT" 2>"$ERR" ||
		fail "no answer for a supplementary member of the socket's group"
	sed 's/^/  | /' "$OUT" "$ERR"
	assert_eq "$(json "$OUT" '[d["ok"], d["op"]]')" '[true,"status"]' \
		"a supplementary member of the socket's group answered"
	sock_count answered 2
	sock_count refused 1
	p=$(stat -c %a "$sock")
	assert_eq "$p" 660 "the socket's mode as set"
	sigterm_within_1s
	umount "$dir/s.sock"
	rm -rf "$dir"
	trap - EXIT
}
