# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of entries that expire (P9, items 2 and 5): 'add
# --timeout' drops real frames until its expiry, status and query say when
# that is, status says so once it passed with no watch to take it out, and a
# reload leaves it out; a new timeout replaces the old one, an add without
# one makes the entry permanent; and fail2ban, with its own server on a jail
# of the test's own and the action file of scripts/fail2ban, bans (the
# frames drop) and unbans (they pass again).
# Sourced by tests/e2e/run.sh, whose helpers (bw, list, json, kv, fail,
# skip, assert_eq, assert_kv, assert_line, assert_grep, expect_*) and
# topology they use: bloomwall on $BW_RX, pings from the sender's A, B, C.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $EXPIRY_TESTS"

# shellcheck disable=SC2034 # read by run.sh
EXPIRY_TESTS="test_expiry_timeout test_expiry_readd test_expiry_names
	test_expiry_fail2ban"

# A time as status, add and query print it: "2026-12-02 03:45:10 UTC".
EXPIRY_AT='[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} UTC'

# expiry_wait_past: polls status until its "past expiry" row shows (the
# bound, 60 s, only keeps a broken build from hanging the run).
expiry_wait_past()
{
	local i

	for i in $(seq 600); do
		"$BLOOMWALL" status "$BW_RX" >"$OUT" 2>"$ERR"
		[ -n "$(kv "$OUT" "past expiry")" ] && return 0
		sleep 0.1
	done
	cat "$OUT"
	fail "status shows no entry past its expiry after 60 s"
}

# expiry_json EXPR: EXPR on `status --json`'s "expiring" object, as e.
expiry_json()
{
	"$BLOOMWALL" status --json "$BW_RX" >"$OUT" 2>"$ERR" ||
		fail "status --json failed"
	json "$OUT" "(lambda e: $1)(d[0]['filter']['expiring'])"
}

# The story: a ban of 10 s drops, is shown, runs out; with no watch nothing
# takes it out, status says so, and the next reload leaves it out. (10 s:
# the checks before its end take a few seconds on a busy machine.)
test_expiry_timeout()
{
	local l holder

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 add "$BW_RX" --timeout 10s "$BW_C4"
	assert_grep "$OUT" "^$BW_C4  added, expires $EXPIRY_AT \\(in ([1-9]|10)s\\)\$" \
		"add says when the entry expires"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 0 status "$BW_RX"
	assert_grep "$OUT" \
		"^    expiring entries       1 \\(next $EXPIRY_AT \\(in ([0-9]|10)s\\)\\)\$" \
		"status counts the expiring entry"
	assert_grep "$OUT" "^      $BW_C4 +$EXPIRY_AT \\(in ([0-9]|10)s\\)\$" \
		"status lists it with its expiry"
	assert_eq "$(expiry_json '[e["entries"], e["list"][0]["entry"], 0 <= e["list"][0]["expires_in"] <= 10, e["next"] == e["list"][0]["expires"]]')" \
		"[1,\"$BW_C4\",true,true]" "status --json: the entry and its expiry"
	bw 0 query "$BW_RX" "$BW_C4" "$BW_A4"
	assert_grep "$OUT" \
		"^  expires: $BW_C4 \\(added at run time\\) $EXPIRY_AT \\(in ([0-9]|10)s\\)\$" \
		"query says when the add covering it expires"
	assert_eq "$(grep -c expires: "$OUT")" 1 "the listed address expires not"
	bw 0 query --why "$BW_RX" "$BW_C4"
	assert_grep "$OUT" \
		"^  why: added at run time: $BW_C4 \\(bloomwall add --timeout\\), expires $EXPIRY_AT \\((in ([0-9]|10)s|[0-9]+s ago)\\)\$" \
		"query --why says it too"
	expiry_wait_past
	assert_kv "$OUT" "past expiry" \
		"1 entry past its expiry is still in the filter: no watch runs to take it out (bloomwall reload drops it)" \
		"status warns of the entry past its expiry"
	assert_grep "$OUT" "^      $BW_C4 +$EXPIRY_AT \\([0-9]+s ago\\)\$" \
		"status says how long ago it expired"
	# Nothing took it out: the data path still drops (no daemon runs).
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	# A watch holding its lock (flock, as 'bloomwall watch' takes it).
	mkdir -m 0700 "$BW_PIN_ROOT/watch:$BW_RX"
	python3 -c 'import fcntl, os, sys, time
fcntl.flock(os.open(sys.argv[1], os.O_RDONLY), fcntl.LOCK_EX)
time.sleep(60)' "$BW_PIN_ROOT/watch:$BW_RX" &
	holder=$!
	for _ in $(seq 100); do
		grep -q "^$holder " <(awk '{ print $5 }' /proc/locks) && break
		sleep 0.05
	done
	bw 0 status "$BW_RX"
	kill "$holder"
	wait "$holder" 2>/dev/null
	assert_kv "$OUT" "past expiry" \
		"1 entry past its expiry: the watch (pid $holder) takes it out" \
		"status names the watch that takes it out"
	bw 0 status --json "$BW_RX"
	assert_eq "$(expiry_json '[e["past"], e["watch_pid"]]')" "[1,null]" \
		"status --json: past, and no watch once it let go"
	bw 0 reload "$BW_RX" "$l"
	assert_line "$OUT" \
		"$BW_RX: 1 entry added at run time past its expiry dropped" \
		"reload says it left the expired entry out"
	bw 0 --json reload "$BW_RX" "$l"
	assert_eq "$(json "$OUT" '[d["added_expired"], d["added_kept"]]')" "[0,0]" \
		"nothing left to drop"
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "added entries kept" 0 "the expired add is gone"
	assert_kv "$OUT" "expiring entries" none "nothing expires"
	[ -z "$(kv "$OUT" "past expiry")" ] || fail "status still warns"
}

# ipset's semantics: a new timeout replaces the old, an add without one makes
# the entry permanent; an expiry survives a reload (and remove's rebuild)
# unchanged; names take no --timeout.
test_expiry_readd()
{
	local l exp bexp

	l=$(list a.txt "$BW_A4" "$BW_A6")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 --json add "$BW_RX" --timeout 2h "$BW_C4" "$BW_C6/128"
	assert_eq "$(json "$OUT" '[7000 < a["expires_in"] <= 7200 for a in d["addresses"]]')" \
		"[true,true]" "add --json: each entry's expiry"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 0 add "$BW_RX" --timeout 1h "$BW_C4"
	assert_grep "$OUT" \
		"^$BW_C4  already in the filter, expires $EXPIRY_AT \\(in (59m[0-9]+s|1h)\\)\$" \
		"a re-ban says the new expiry"
	assert_eq "$(expiry_json '[3000 < x["expires_in"] <= 3600 for x in e["list"] if x["entry"] == "'"$BW_C4"'"]')" \
		"[true]" "the new timeout replaced the old"
	exp=$(expiry_json '[x["expires"] for x in e["list"]]')
	bexp=$(expiry_json '[x["expires"] for x in e["list"] if x["entry"] == "'"$BW_C4"'"]')
	bw 0 reload "$BW_RX" "$l"
	assert_eq "$(expiry_json '[x["expires"] for x in e["list"]]')" "$exp" \
		"a reload keeps each expiry as it was"
	bw 0 remove "$BW_RX" "$BW_C6/128"
	assert_eq "$(expiry_json '[x["expires"] for x in e["list"]]')" "$bexp" \
		"remove's rebuild keeps the other's expiry"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 0 add "$BW_RX" "$BW_C4"
	assert_line "$OUT" "$BW_C4  already in the filter, no longer expires" \
		"an add without --timeout ends the expiry"
	assert_eq "$(expiry_json 'e["entries"]')" 0 "the entry is permanent now"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd[0]["filter"]["added_kept"]')" 1 "still kept"
	bw 0 query "$BW_RX" "$BW_C4"
	assert_eq "$(grep -c expires: "$OUT")" 0 "query: no expiry"
	bw 2 add "$BW_RX" --timeout 5y "$BW_B4"
	assert_grep "$ERR" "^bloomwall: --timeout takes a duration up to 3650d" \
		"a bad duration is a usage error"
}

# Names take --timeout: a rebuild (no name region yet) and in place record
# the expiry, status and query show it; with no watch, a 2 s name past its
# expiry is said by status and left out by the next reload; an add without
# --timeout makes a name permanent.
test_expiry_names()
{
	local l

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 add "$BW_RX" --timeout 1h kept.example
	assert_grep "$OUT" \
		"^kept.example  kept, expires $EXPIRY_AT \\(in (59m[0-9]+s|1h)\\)\$" \
		"the rebuild that brings the name region says its expiry"
	bw 0 add "$BW_RX" --timeout 2s short.example
	assert_grep "$OUT" \
		"^short.example  added, expires $EXPIRY_AT \\(in [1-2]s\\)\$" \
		"in place, add says when the name expires"
	assert_eq "$(expiry_json '[e["entries"], e["names"], sorted(x["entry"] for x in e["list"])]')" \
		'[2,2,["kept.example","short.example"]]' "status lists both names"
	bw 0 query "$BW_RX" kept.example
	assert_grep "$OUT" \
		"^  expires: kept.example \\(added at run time\\) $EXPIRY_AT \\(in (59m[0-9]+s|1h)\\)\$" \
		"query shows the name's expiry"
	bw 0 query --why "$BW_RX" kept.example
	assert_grep "$OUT" \
		"^  why: added at run time: kept.example \\(bloomwall add --timeout\\), expires $EXPIRY_AT" \
		"query --why too"
	sleep 3
	expiry_wait_past
	assert_kv "$OUT" "past expiry" \
		"1 entry past its expiry is still in the filter: no watch runs to take it out (bloomwall reload drops it)" \
		"status: the name is past its expiry"
	bw 0 reload "$BW_RX" "$l"
	assert_line "$OUT" \
		"$BW_RX: 1 entry added at run time past its expiry dropped" \
		"the reload leaves the name out"
	assert_eq "$(expiry_json '[e["names"], e["past"], [x["entry"] for x in e["list"]]]')" \
		'[1,0,["kept.example"]]' "only the other expires now"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd[0]["filter"]["added_kept"]')" 1 \
		"short.example is no longer kept"
	bw 0 add "$BW_RX" kept.example
	assert_line "$OUT" "kept.example  already in the filter, no longer expires" \
		"an add without --timeout makes the name permanent"
	assert_eq "$(expiry_json 'e["entries"]')" 0 "nothing expires"
}

# ---- fail2ban ----------------------------------------------------------

F2B_JAIL=bwtest

# f2b CMD...: fail2ban-client of the test's own server.
f2b()
{
	fail2ban-client -c "$F2B_DIR" -s "$F2B_DIR/sock" "$@"
}

# Whatever way the test ends, the server goes (its pid file says which).
f2b_stop()
{
	local pid

	[ -n "${F2B_DIR:-}" ] || return 0
	f2b stop >/dev/null 2>&1
	# It ends its jails (their actions run to the end) and exits.
	for _ in $(seq 100); do
		kill -0 "${F2B_PID:-0}" 2>/dev/null || break
		sleep 0.1
	done
	pid=$(cat "$F2B_DIR/pid" 2>/dev/null)
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	[ -n "${F2B_PID:-}" ] && kill -KILL "$F2B_PID" 2>/dev/null
	F2B_DIR=
}

# f2b_conf: a configuration of the test's own in $F2B_DIR: the server's
# (log to a file, no database on disk), a jail on $F2B_DIR/auth.log with a
# filter of its own, and the bloomwall action as scripts/ has it, run with
# the test's binary on $BW_RX.
f2b_conf()
{
	mkdir -p "$F2B_DIR/filter.d" "$F2B_DIR/action.d" || return 1
	cp "$TOP/scripts/fail2ban/action.d/bloomwall.conf" "$F2B_DIR/action.d/" ||
		return 1
	cat >"$F2B_DIR/fail2ban.conf" <<-EOC
	[Definition]
	loglevel = INFO
	logtarget = $F2B_DIR/fail2ban.log
	socket = $F2B_DIR/sock
	pidfile = $F2B_DIR/pid
	dbfile = :memory:
	EOC
	cat >"$F2B_DIR/filter.d/$F2B_JAIL.conf" <<-'EOC'
	[Definition]
	failregex = ^bad login from <HOST>$
	ignoreregex =
	datepattern = {NONE}
	EOC
	cat >"$F2B_DIR/jail.conf" <<-EOC
	[DEFAULT]
	backend = polling
	ignoreself = false
	ignoreip =

	[$F2B_JAIL]
	enabled = true
	filter = $F2B_JAIL
	logpath = $F2B_DIR/auth.log
	maxretry = 2
	findtime = 600
	bantime = 60
	action = bloomwall[iface="$BW_RX", bloomwall="$BLOOMWALL"]
	EOC
	: >"$F2B_DIR/auth.log"
}

# f2b_until WHAT CMD...: polls CMD until it succeeds (60 s bound, as above).
f2b_until()
{
	local what=$1 i

	shift
	for i in $(seq 600); do
		"$@" >/dev/null 2>&1 && return 0
		if ! kill -0 "$F2B_PID" 2>/dev/null; then
			sed 's/^/  f /' "$F2B_DIR/fail2ban.log"
			fail "fail2ban-server exited before $what"
		fi
		sleep 0.1
	done
	sed 's/^/  f /' "$F2B_DIR/fail2ban.log"
	fail "no $what after 60 s"
}

# Whether query says ADDR drops (or, with !, passes).
f2b_drops()
{
	"$BLOOMWALL" query "$BW_RX" "$1" 2>/dev/null | grep -q "^$1  drop"
}

f2b_passes()
{
	"$BLOOMWALL" query "$BW_RX" "$1" 2>/dev/null | grep -q "^$1  pass"
}

f2b_banned()
{
	f2b get "$F2B_JAIL" banip 2>/dev/null | grep -qw "$1"
}

f2b_unbanned()
{
	[ "$(grep -c "Unban $1\$" "$F2B_DIR/fail2ban.log")" -ge 2 ]
}

# Debian's fail2ban, in the foreground on a jail of the test's own: two bad
# logins from C ban it (its frames drop, with the jail's bantime as the
# entry's expiry); unbanip lets them pass again; a permanent ban (bantime
# -1) is kept with no expiry.
test_expiry_fail2ban()
{
	local l log

	command -v fail2ban-server >/dev/null || skip "no fail2ban-server"
	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	F2B_DIR=$TMP_DIR/f2b
	trap f2b_stop EXIT
	f2b_conf || fail "cannot write the fail2ban configuration"
	echo "+ fail2ban-server -f -x -c $F2B_DIR &"
	fail2ban-server -f -x -c "$F2B_DIR" -s "$F2B_DIR/sock" \
		-p "$F2B_DIR/pid" >"$F2B_DIR/server.out" 2>&1 &
	F2B_PID=$!
	f2b_until "the jail" f2b status "$F2B_JAIL"
	expect_delivered "$BW_C4" "$BW_RX4"
	printf 'bad login from %s\n' "$BW_C4" "$BW_C4" >>"$F2B_DIR/auth.log"
	f2b_until "a ban of $BW_C4" f2b_banned "$BW_C4"
	f2b_until "the ban in the filter" f2b_drops "$BW_C4"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	assert_eq "$(expiry_json '[[x["entry"], 50 < x["expires_in"] <= 60] for x in e["list"]]')" \
		"[[\"$BW_C4\",true]]" "the ban expires with the jail's bantime"
	echo "+ fail2ban-client set $F2B_JAIL unbanip $BW_C4"
	f2b set "$F2B_JAIL" unbanip "$BW_C4" || fail "unbanip failed"
	f2b_until "the unban in the filter" f2b_passes "$BW_C4"
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "added entries kept" 0 "the unban took the entry out"
	# A permanent ban (bantime -1): kept with no expiry.
	f2b set "$F2B_JAIL" bantime -1 >/dev/null || fail "set bantime failed"
	f2b set "$F2B_JAIL" banip "$BW_C4" >/dev/null || fail "banip failed"
	f2b_until "the permanent ban in the filter" f2b_drops "$BW_C4"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	assert_eq "$(expiry_json 'e["entries"]')" 0 "a permanent ban expires not"
	assert_eq "$(json "$OUT" 'd[0]["filter"]["added_kept"]')" 1 "but is kept"
	# Taken out meanwhile (as the watch takes an expired entry out): the
	# action's remove fails, but the address passes, so the unban is done.
	bw 0 remove "$BW_RX" "$BW_C4"
	f2b set "$F2B_JAIL" unbanip "$BW_C4" >/dev/null || fail "unbanip failed"
	f2b_until "the second unban" f2b_unbanned "$BW_C4"
	expect_delivered "$BW_C4" "$BW_RX4"
	# Stopped first: its actions have all run, and said any failure.
	log=$F2B_DIR/fail2ban.log
	f2b_stop
	grep -E "Ban|Unban|ERROR|stopped" "$log" | sed 's/^/  f /'
	grep -q "Jail '$F2B_JAIL' stopped" "$log" || fail "the jail did not stop"
	if grep -q ERROR "$log"; then
		fail "fail2ban logged an error"
	fi
}
