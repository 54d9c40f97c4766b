# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of owned adds (P15 item 7): two owners ban one address,
# one removes its claim and the address still drops; a shorter second ban
# does not shorten the longer; the last owner's remove lets it pass; with
# and without a watch; and the real fail2ban-server with two jails on the
# action of scripts/fail2ban: one jail's unban keeps the drop while the
# other's ban stands.
# Sourced by tests/e2e/run.sh, whose helpers and topology they use (and
# ops_tests.sh's start_watch/stop_watch, expiry_tests.sh's f2b helpers).
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $OWNER_TESTS"

# shellcheck disable=SC2034 # read by run.sh
OWNER_TESTS="test_owner_cli test_owner_watch test_owner_fail2ban
	test_crash_sweep_owner"

# owner_end ADDR: the end status --json lists for ADDR, seconds from now.
owner_in()
{
	"$BLOOMWALL" status --json "$BW_RX" >"$OUT" 2>"$ERR" ||
		fail "status --json failed"
	json "$OUT" "[x['expires_in'] for x in d[0]['filter']['expiring']['list'] if x['entry'] == '$1']"
}

# The story, run with or without a watch (the same answers either way).
owner_story()
{
	bw 0 add "$BW_RX" --owner f2b-sshd --timeout 600 "$BW_C4"
	bw 0 add "$BW_RX" --owner f2b-recidive --timeout 3600 "$BW_C4"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	assert_eq "$(json_in "$(owner_in "$BW_C4")" 'd[0] > 3000')" True \
		"the entry ends at the later end"
	bw 0 query --why "$BW_RX" "$BW_C4"
	assert_grep "$OUT" "^  why: added at run time: $BW_C4 \\(bloomwall add --owner\\), 2 owners, the latest end " \
		"query --why says the entry is owned"
	assert_grep "$OUT" "^    owner f2b-sshd until $EXPIRY_AT \\(in (9m[0-9]+s|10m)\\)\$" \
		"query --why names sshd with its end"
	assert_grep "$OUT" "^    owner f2b-recidive until $EXPIRY_AT \\(in (59m[0-9]+s|1h)\\)\$" \
		"query --why names recidive with its end"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^        owner f2b-recidive until $EXPIRY_AT" \
		"status names the owners under the expiring entry"
	"$BLOOMWALL" status --json "$BW_RX" >"$OUT" 2>"$ERR"
	assert_eq "$(json "$OUT" 'sorted(o["owner"] for o in d[0]["filter"]["expiring"]["list"][0]["owners"])')" \
		'["f2b-recidive","f2b-sshd"]' "status --json: the owners"
	# A shorter sshd ban does not shorten recidive's.
	bw 0 add "$BW_RX" --owner f2b-sshd --timeout 60 "$BW_C4"
	assert_eq "$(json_in "$(owner_in "$BW_C4")" 'd[0] > 3000')" True \
		"a shorter ban of one owner keeps the other's end"
	# sshd's unban: recidive's ban stands.
	bw 0 remove "$BW_RX" --owner f2b-sshd "$BW_C4"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 1 remove "$BW_RX" --owner f2b-sshd "$BW_C4"
	assert_grep "$OUT" "not added" "sshd has no claim left"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	# An owner's name is checked.
	bw 2 add "$BW_RX" --owner 'f2b sshd' "$BW_C4"
	assert_grep "$ERR" "--owner takes a name of 1 to 32" "a bad owner's name"
	# The last owner's remove lets it pass.
	bw 0 remove "$BW_RX" --owner f2b-recidive "$BW_C4"
	expect_delivered "$BW_C4" "$BW_RX4"
	# The anonymous owner is an owner of its own; a plain remove takes the
	# entry out whatever owns it.
	bw 0 add "$BW_RX" "$BW_C4"
	bw 0 add "$BW_RX" --owner f2b-sshd --timeout 600 "$BW_C4"
	bw 0 remove "$BW_RX" --owner f2b-sshd "$BW_C4"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 0 add "$BW_RX" --owner f2b-sshd --timeout 600 "$BW_C4"
	bw 0 remove "$BW_RX" "$BW_C4"
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
}

# json_in TEXT EXPR: EXPR on the JSON TEXT, as d.
json_in()
{
	python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}

test_owner_cli()
{
	local l

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	owner_story
}

test_owner_watch()
{
	local l

	trap kill_watch EXIT
	live_watch
	owner_story
	# Handed to the watch, in place: no swap made by the CLI.
	bw 0 add "$BW_RX" --owner f2b-sshd --timeout 600 "$BW_C4"
	bw 0 add "$BW_RX" --owner f2b-recidive --timeout 3600 "$BW_C4"
	bw 0 --json remove "$BW_RX" --owner f2b-sshd "$BW_C4"
	assert_eq "$(json "$OUT" 'd["addresses"][0]["how"]')" '"kept"' \
		"the watch says other owners keep it"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 0 remove "$BW_RX" --owner f2b-recidive "$BW_C4"
	expect_delivered "$BW_C4" "$BW_RX4"
	# The claims survive the watch's rebuild (a change of its list).
	bw 0 add "$BW_RX" --owner f2b-sshd --timeout 600 "$BW_C4"
	bw 0 add "$BW_RX" --owner f2b-recidive --timeout 3600 "$BW_C4"
	printf '%s\n%s\n' "$BW_A4" "$BW_B4" >"$LIVE_LIST"
	wait_line "$WATCH_OUT" "$RELOAD_OK"'change of '
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	bw 0 query --why "$BW_RX" "$BW_C4"
	assert_grep "$OUT" "^    owner f2b-sshd until " "sshd's claim rebuilt in"
	assert_grep "$OUT" "^    owner f2b-recidive until " \
		"recidive's claim rebuilt in"
	bw 0 remove "$BW_RX" --owner f2b-recidive "$BW_C4"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 0 remove "$BW_RX" --owner f2b-sshd "$BW_C4"
	expect_delivered "$BW_C4" "$BW_RX4"
	# The long ban goes, the short one stays: the entry ends at the short
	# one's end, and the watch takes it out then (the bound ends a hang).
	bw 0 add "$BW_RX" --owner f2b-sshd --timeout 8s "$BW_C4"
	bw 0 add "$BW_RX" --owner f2b-recidive --timeout 3600 "$BW_C4"
	bw 0 remove "$BW_RX" --owner f2b-recidive "$BW_C4"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	assert_eq "$(json_in "$(owner_in "$BW_C4")" '0 < d[0] <= 8')" True \
		"the entry ends at the short ban's end"
	for _ in $(seq 200); do
		"$BLOOMWALL" query "$BW_RX" "$BW_C4" 2>/dev/null |
			grep -qE "^$BW_C4  pass( |\$)" && break
		sleep 0.1
	done
	query_is "$BW_C4" pass
	expect_delivered "$BW_C4" "$BW_RX4"
	stop_watch TERM
}

# f2b_two_jails: as f2b_conf, with two jails on one log: sshd (bantime
# 600) and recidive (bantime 3600), each with the bloomwall action.
f2b_two_jails()
{
	local j

	f2b_conf || return 1
	cat >"$F2B_DIR/jail.conf" <<-EOC
	[DEFAULT]
	backend = polling
	ignoreself = false
	ignoreip =
	filter = $F2B_JAIL
	logpath = $F2B_DIR/auth.log
	maxretry = 100
	findtime = 600
	action = bloomwall[iface="$BW_RX", bloomwall="$BLOOMWALL"]
	EOC
	for j in sshd:600 recidive:3600; do
		printf '\n[%s]\nenabled = true\nbantime = %s\n' "${j%%:*}" \
			"${j#*:}" >>"$F2B_DIR/jail.conf"
	done
}

test_owner_fail2ban()
{
	local l up

	command -v fail2ban-server >/dev/null || skip "no fail2ban-server"
	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	F2B_DIR=$TMP_DIR/f2b
	trap f2b_stop EXIT
	f2b_two_jails || fail "cannot write the fail2ban configuration"
	echo "+ fail2ban-server -f -x -c $F2B_DIR &"
	fail2ban-server -f -x -c "$F2B_DIR" -s "$F2B_DIR/sock" \
		-p "$F2B_DIR/pid" >"$F2B_DIR/server.out" 2>&1 &
	F2B_PID=$!
	f2b_until "the jails" f2b status recidive
	f2b_until "the jails" f2b status sshd
	# The log from here on: asked before its jails were up, the server
	# logs an ERROR for each status.
	up=$(wc -l <"$F2B_DIR/fail2ban.log")
	expect_delivered "$BW_C4" "$BW_RX4"
	echo "+ fail2ban-client set recidive banip $BW_C4"
	f2b set recidive banip "$BW_C4" >/dev/null || fail "banip failed"
	echo "+ fail2ban-client set sshd banip $BW_C4"
	f2b set sshd banip "$BW_C4" >/dev/null || fail "banip failed"
	f2b_until "the ban in the filter" f2b_drops "$BW_C4"
	f2b_until "sshd's ban" grep -q "\[sshd\] Ban $BW_C4" "$F2B_DIR/fail2ban.log"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	assert_eq "$(json_in "$(owner_in "$BW_C4")" 'd[0] > 3000')" True \
		"the entry ends with recidive's bantime"
	echo "+ fail2ban-client set sshd unbanip $BW_C4"
	f2b set sshd unbanip "$BW_C4" >/dev/null || fail "unbanip failed"
	f2b_until "sshd's unban" grep -q "\[sshd\] Unban $BW_C4" \
		"$F2B_DIR/fail2ban.log"
	# The action ran (its remove is done once the jail logs the unban).
	sleep 1
	tail -n +$((up + 1)) "$F2B_DIR/fail2ban.log" | grep -i "error" &&
		fail "an action failed"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	assert_eq "$(json_in "$(owner_in "$BW_C4")" 'd[0] > 3000')" True \
		"recidive's ban stands"
	echo "+ fail2ban-client set recidive unbanip $BW_C4"
	f2b set recidive unbanip "$BW_C4" >/dev/null || fail "unbanip failed"
	f2b_until "the unban in the filter" f2b_passes "$BW_C4"
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
}

# crash_tests.sh's sampled sweep over owned adds: an add --owner killed at
# any point leaves the old filter or the new one; a remove of one owner's
# claim, killed anywhere, never lets B pass while the other owner wants it;
# the last owner's remove leaves it dropped or passed, whole.
test_crash_sweep_owner()
{
	local listed="A:drop B:pass C:pass D:pass"
	local added="A:drop B:drop C:pass D:pass"

	command -v strace >/dev/null || skip "strace is not installed"
	list a.txt "$BW_A4" >/dev/null
	crash_frame "$BW_A4" "$TMP_DIR/frame.A"
	crash_frame "$BW_B4" "$TMP_DIR/frame.B"
	crash_frame "$BW_C4" "$TMP_DIR/frame.C"
	crash_dns_frame 10.77.0.9 "$TMP_DIR/frame.D"
	CRASH_POINTS=0
	CRASH_KILLED=0
	CRASH_BAD=0
	crash_verb add_owner "$listed" "$added"
	crash_verb remove_owner "$added" "$added"
	crash_verb remove_owner_last "$added" "$listed"
	echo "crash sweep: $CRASH_POINTS points, $CRASH_KILLED killed, $CRASH_BAD inconsistent"
	[ "$CRASH_KILLED" -gt 0 ] || fail "no kill took effect: strace injection broken?"
	assert_eq "$CRASH_BAD" 0 "inconsistent states after a kill"
}
