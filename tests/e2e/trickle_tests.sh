# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of the watch's loop against HTTP servers that trickle
# (issue 28, item 2): a CrowdSec LAPI and an image mirror that send a byte
# every 0.5 s, within every timeout (tests/e2e/trickle_server.py, which
# counts what it served). While a poll or a pull trickles, the watch takes
# an expired entry out within 1 s of its end, applies an add and a remove
# within 1 s, and ends on SIGTERM within 1 s (doc/watch.md's contracts); the
# server's counts say that one answer trickled all along and that the
# watch's end closed it. Sourced by tests/e2e/run.sh after sock_tests.sh,
# whose timing helpers they use (and live_tests.sh's, ops_tests.sh's).
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $TRICKLE_TESTS"

# shellcheck disable=SC2034 # read by run.sh
TRICKLE_TESTS="test_trickle_lapi test_trickle_mirror"

TRICKLE_PORT=18083
TRICKLE_URL=http://127.0.0.1:$TRICKLE_PORT

# trickle_start BODY_FILE: the server on $TRICKLE_URL, answering
# BODY_FILE whole until trickle_on.
trickle_start()
{
	local i

	TRICKLE_MODE=$TMP_DIR/trickle.mode
	TRICKLE_COUNT=$TMP_DIR/trickle.count
	echo whole >"$TRICKLE_MODE"
	rm -f "$TRICKLE_COUNT"
	"$SOCK_PY" "$TOP/tests/e2e/trickle_server.py" "$TRICKLE_PORT" \
		"$TRICKLE_MODE" "$1" "$TRICKLE_COUNT" &
	TRICKLE_PID=$!
	for i in $(seq 100); do
		[ -e "$TRICKLE_COUNT" ] && return 0
		sleep 0.05
	done
	fail "the trickling server did not come up"
}

trickle_cleanup()
{
	kill_watch
	[ -n "${TRICKLE_PID:-}" ] && kill "$TRICKLE_PID" 2>/dev/null
	TRICKLE_PID=
	return 0
}

# trickle_count KEY: the server's count KEY.
trickle_count()
{
	awk -v k="$1" '$1 == k { n = $2 } END { print n + 0 }' "$TRICKLE_COUNT"
}

# trickle_wait KEY WANT: the server's count KEY reaches WANT (the bound
# only ends a hang).
trickle_wait()
{
	local i

	for i in $(seq 300); do
		[ "$(trickle_count "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	sed 's/^/  t /' "$TRICKLE_COUNT"
	fail "the server's $1 did not reach $2"
}

# bw_within_1s WANT ARGS...: bw WANT ARGS..., which must return within the
# 1 s doc/watch.md promises (the CLI's own time included).
bw_within_1s()
{
	local t0 t1 s

	t0=$(date +%s.%N)
	bw "$@"
	t1=$(date +%s.%N)
	s=$(since "$t0" "$t1")
	echo "  returned in $s s"
	at_most "$s" 1 || fail "bloomwall ${*:2} returned after $s s, not within 1 s"
}

# trickle_contracts: with one answer trickling (the server's counts say
# which), the 1 s contracts but SIGTERM's hold, and that answer trickles
# on all along.
trickle_contracts()
{
	local state=/run/bloomwall/$BW_RX.json trickles bytes end

	trickles=$(trickle_count trickles)
	bytes=$(trickle_count bytes)
	echo "  trickling: answer $trickles, $bytes bytes so far"
	assert_eq "$(trickle_count open)" 1 "trickling answers open"

	# An add --timeout out within 1 s of its end: no query that began
	# later still sees it (the loop's bound only ends a hang).
	bw_within_1s 0 add "$BW_RX" --timeout 8s "$BW_C4"
	assert_grep "$OUT" "added in place by the watch" "add went in place"
	end=$(json "$state" 'd["live"]["next_expiry"]')
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	out_within_1s "$BW_C4" "$end"
	expect_delivered "$BW_C4" "$BW_RX4"

	# An add and a remove, each applied within 1 s.
	bw_within_1s 0 add "$BW_RX" "$BW_B4"
	assert_grep "$OUT" "added in place by the watch" "add went in place"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	bw_within_1s 0 remove "$BW_RX" "$BW_B4"
	assert_grep "$OUT" "^$BW_B4  removed in place\$" "remove went in place"
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4

	# The same answer trickled all along: none ended, none began.
	sed 's/^/  t /' "$TRICKLE_COUNT"
	assert_eq "$(trickle_count trickles)" "$trickles" "trickling answers begun"
	assert_eq "$(trickle_count open)" 1 "trickling answers open"
	[ "$(trickle_count bytes)" -gt "$bytes" ] ||
		fail "the server trickled nothing meanwhile"
}

# trickle_sigterm: SIGTERM ends the watch within 1 s while the answer
# trickles, and its end closes it.
trickle_sigterm()
{
	sigterm_within_1s
	# The watch's end closed it (the server sees that at its next byte).
	trickle_wait closed "$(trickle_count trickles)"
	assert_eq "$(trickle_count open)" 0 "trickling answers open"
}

# A LAPI that trickles its answer to a poll (a byte every 0.5 s, within
# --crowdsec-timeout): the poll goes on for as long as the test, and the
# watch's 1 s contracts hold meanwhile; also when it is a restarted
# watch's first poll.
test_trickle_lapi()
{
	local body=$TMP_DIR/stream.json polls state=/run/bloomwall/$BW_RX.json

	trap trickle_cleanup EXIT
	echo '{"deleted":null,"new":null}' >"$body"
	trickle_start "$body"
	(umask 077 && echo 0123456789abcdef0123456789abcdef >"$TMP_DIR/fake.key")
	LIVE_LIST=$TMP_DIR/lists/block.txt
	mkdir -p "$TMP_DIR/lists"
	printf '%s\n' "$BW_A4" >"$LIVE_LIST"
	start_watch "${SEED[@]}" --debounce 0.2 --crowdsec "$TRICKLE_URL" \
		--crowdsec-key-file "$TMP_DIR/fake.key" --update-frequency 1 \
		--crowdsec-timeout 300 "$LIVE_LIST"
	wait_line "$WATCH_OUT" "crowdsec: full sync ok: 0 new"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	echo trickle >"$TRICKLE_MODE"
	trickle_wait trickles 1
	trickle_wait bytes 1
	polls=$(json "$state" 'sum(d["crowdsec"]["requests"].values())')
	trickle_contracts
	# No poll ended while it trickled.
	assert_eq "$(json "$state" 'sum(d["crowdsec"]["requests"].values())')" \
		"$polls" "polls ended while the answer trickled"
	trickle_sigterm

	# A first poll that trickles: the start's rebuild waits for it (the
	# decisions first), the loop answers and ends within 1 s meanwhile.
	start_watch "${SEED[@]}" --debounce 0.2 --crowdsec "$TRICKLE_URL" \
		--crowdsec-key-file "$TMP_DIR/fake.key" --update-frequency 1 \
		--crowdsec-timeout 300 "$LIVE_LIST"
	trickle_wait trickles 2
	trickle_wait bytes $(($(trickle_count bytes) + 1))
	bw_within_1s 0 add "$BW_RX" "$BW_B4"
	assert_grep "$OUT" "added in place by the watch" \
		"add in place while the first poll trickles"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	grep -qE "$RELOAD_OK" "$WATCH_OUT" &&
		fail "the start's rebuild did not wait for the first poll"
	trickle_sigterm
	trap - EXIT
	trickle_cleanup
}

# A mirror that trickles the image of a pull (SIGHUP's, within --timeout):
# the pull goes on for as long as the test, the watch's 1 s contracts hold
# meanwhile, and SIGTERM leaves no download behind. A SIGHUP during the
# trickle drops that pull and begins another.
test_trickle_mirror()
{
	local img=$TMP_DIR/f.img dir=$TMP_DIR/state list=$TMP_DIR/lists/block.txt

	trap trickle_cleanup EXIT
	mkdir -p "$TMP_DIR/lists"
	printf '%s\n' "$BW_A4" >"$list"
	"$BLOOMWALL" build -o "$img" "${SEED[@]}" "$list" >/dev/null ||
		fail "build"
	trickle_start "$img"
	start_watch --url "$TRICKLE_URL/f.img" --state-dir "$dir" \
		--interval 3600 --timeout 300
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	assert_eq "$(trickle_count whole)" 1 "images served whole"
	echo trickle >"$TRICKLE_MODE"
	kill -HUP "$WATCH_PID"
	trickle_wait trickles 1
	trickle_wait bytes 1
	# SIGHUP again: the pull under way dropped, a new one begun.
	kill -HUP "$WATCH_PID"
	trickle_wait trickles 2
	trickle_wait closed 1
	[ -e "$dir/$BW_RX/pull.tmp" ] || fail "no download under way"
	trickle_contracts
	trickle_sigterm
	[ -e "$dir/$BW_RX/pull.tmp" ] && fail "the download was left behind"
	grep -q "pull FAILED" "$WATCH_OUT" && fail "a pull ended while it trickled"
	trap - EXIT
	trickle_cleanup
}
