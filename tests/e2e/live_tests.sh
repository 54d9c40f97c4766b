# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of the watch's live entries (P9, items 1 and 2): an
# entry added with 'bloomwall add --timeout' while a watch runs is taken
# over by the watch (its rebuild leaves it out of the blocks and sets it
# live), drops real frames, is published in the state file, and at its
# expiry is taken out in place by the watch: the frames pass again with
# the same program and generation, no rebuild.
# Sourced by tests/e2e/run.sh after ops_tests.sh, whose watch helpers
# (start_watch, stop_watch, wait_line, kill_watch, query_is, RELOAD_OK) and
# run.sh's (bw, json, expect_*, generation, hook_prog_id) they use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $LIVE_TESTS"

# shellcheck disable=SC2034 # read by run.sh
LIVE_TESTS="test_watch_live_expiry test_watch_live_remove"

test_watch_live_expiry()
{
	local d=$TMP_DIR/lists l gen prog n i state=/run/bloomwall/$BW_RX.json

	trap kill_watch EXIT
	mkdir -p "$d"
	l=$d/block.txt
	printf '%s\n' "$BW_A4" >"$l"
	start_watch "${SEED[@]}" --debounce 0.2 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	bw 0 add "$BW_RX" --timeout 8s "$BW_C4"
	wait_line "$WATCH_OUT" "^$BW_RX: another command swapped the filter in: 1 live entry set in it"
	wait_line "$WATCH_OUT" "$RELOAD_OK"'live entries: a filter another command swapped in\)$'
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	assert_eq "$(json "$state" '[d["live"]["entries"], d["live"]["keys"], d["live"]["next_expiry"] > 0, d["live"]["deletes_pending"]]')" \
		"[1,1,true,false]" "the state file's live section"
	gen=$(generation)
	prog=$(hook_prog_id)
	n=$(grep -cE "$RELOAD_OK" "$WATCH_OUT")
	# Taken out within a second of its end (the bound only ends a hang).
	for i in $(seq 200); do
		"$BLOOMWALL" query "$BW_RX" "$BW_C4" 2>/dev/null |
			grep -qE "^$BW_C4  pass( |\$)" && break
		sleep 0.1
	done
	query_is "$BW_C4" pass
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	assert_eq "$(generation)" "$gen" "out in place: the same generation"
	assert_eq "$(hook_prog_id)" "$prog" "out in place: the same program"
	assert_eq "$(grep -cE "$RELOAD_OK" "$WATCH_OUT")" "$n" "no rebuild"
	assert_eq "$(json "$state" '[d["live"]["entries"], d["live"]["expired"]]')" \
		"[0,1]" "the state file counts it expired"
	stop_watch TERM
	trap - EXIT
}

# fail2ban's unban with a watch running: 'remove' of an entry the watch
# keeps live (an 'add --timeout' it took over) takes it out for good: the
# watch must not set it again in the filter remove swapped in.
test_watch_live_remove()
{
	local d=$TMP_DIR/lists l i state=/run/bloomwall/$BW_RX.json

	trap kill_watch EXIT
	mkdir -p "$d"
	l=$d/block.txt
	printf '%s\n' "$BW_A4" >"$l"
	start_watch "${SEED[@]}" --debounce 0.2 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	bw 0 add "$BW_RX" --timeout 1h "$BW_C4"
	wait_line "$WATCH_OUT" "$RELOAD_OK"'live entries: a filter another command swapped in\)$'
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	assert_eq "$(json "$state" 'd["live"]["entries"]')" 1 "kept live"
	bw 0 remove "$BW_RX" "$BW_C4"
	# The watch sees remove's swap within a second and lets the entry go
	# (the bound only ends a hang), then must not set it again.
	for i in $(seq 100); do
		[ "$(json "$state" 'd["live"]["entries"]')" = 0 ] && break
		sleep 0.1
	done
	assert_eq "$(json "$state" 'd["live"]["entries"]')" 0 \
		"the watch let the removed entry go"
	sleep 1.5
	query_is "$BW_C4" pass
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	stop_watch TERM
	trap - EXIT
}
