# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of the watch's live entries (P9, items 1 and 2): an
# entry added with 'bloomwall add' (--timeout or not) while a watch runs is
# taken over by the watch (its rebuild leaves it out of the blocks and sets
# it live), drops real frames, is published in the state file, and at its
# expiry, or on 'bloomwall remove', is taken out in place by the watch: the
# frames pass again with the same program and generation, no rebuild.
# Sourced by tests/e2e/run.sh after ops_tests.sh, whose watch helpers
# (start_watch, stop_watch, wait_line, kill_watch, query_is, RELOAD_OK) and
# run.sh's (bw, json, expect_*, generation, hook_prog_id) they use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $LIVE_TESTS"

# shellcheck disable=SC2034 # read by run.sh
LIVE_TESTS="test_watch_add_in_place test_watch_add_log_fold test_watch_add_log_full test_watch_guard_lists_only test_crash_sweep_add_live test_watch_live_expiry test_watch_live_remove test_watch_remove_in_place
test_watch_names_live test_watch_image_names_live test_crash_sweep_remove_live
test_crash_sweep_remove_bulk test_crash_sweep_remove_live_names"

# live_watch: a watch on a list of $BW_A4 alone ($LIVE_LIST), its start
# rebuild done.
live_watch()
{
	LIVE_LIST=$TMP_DIR/lists/block.txt
	mkdir -p "$TMP_DIR/lists"
	printf '%s\n' "$BW_A4" >"$LIVE_LIST"
	start_watch "${SEED[@]}" --debounce 0.2 "$LIVE_LIST"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
}

test_watch_live_expiry()
{
	local gen prog n i state=/run/bloomwall/$BW_RX.json

	trap kill_watch EXIT
	live_watch
	bw 0 add "$BW_RX" --timeout 8s "$BW_C4"
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

# add with a watch running (P11 item 3): handed to the watch over its
# socket, appended to the running filter's add log and set live in place:
# it drops at once with the same program on the hook, and no rebuild;
# --timeout ends in place; remove takes it out in place; every list
# address still drops; the add survives a reload and a new watch (the
# records hold it); an older text question still gets its answer.
test_watch_add_in_place()
{
	local prog gen n i

	trap kill_watch EXIT
	live_watch
	prog=$(hook_prog_id)
	gen=$(generation)
	n=$(grep -cE "$RELOAD_OK" "$WATCH_OUT")

	bw 0 add "$BW_RX" "$BW_C4"
	assert_line "$OUT" "$BW_C4  added" "add says it added"
	assert_grep "$OUT" "^$BW_RX: 1 of 1 added in place by the watch \(no swap\)\$" \
		"add was handed to the watch"
	# No wait: add returns once the watch has set the entry.
	query_is "$BW_C4" drop
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 --json add "$BW_RX" "$BW_C4"
	assert_eq "$(json "$OUT" '[d["in_place"], [a["result"] for a in d["addresses"]]]')" \
		'[true,["already"]]' "a second add: already, in place"

	bw 0 add "$BW_RX" --timeout 3s "$BW_B4"
	assert_grep "$OUT" "added in place by the watch" "add --timeout in place"
	query_is "$BW_B4" drop
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	# Out in place within a second of its end (the bound only ends a hang).
	for i in $(seq 100); do
		[ "$(verdict "$BW_B4")" = pass ] && break
		sleep 0.1
	done
	query_is "$BW_B4" pass
	expect_delivered "$BW_B4" "$BW_RX4"
	# status reads what the watch did from its state file.
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "past expiry" \
		"1 entry past its expiry: the watch (pid $WATCH_PID) took it out of the filter; the records keep it until the next rebuild" \
		"status: the ended entry is out"

	bw 0 remove "$BW_RX" "$BW_C4"
	assert_line "$OUT" "$BW_C4  removed in place" "remove in place"
	query_is "$BW_C4" pass
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	assert_eq "$(hook_prog_id)" "$prog" "the same program throughout"
	assert_eq "$(generation)" "$gen" "the same generation throughout"
	assert_eq "$(grep -cE "$RELOAD_OK" "$WATCH_OUT")" "$n" "no rebuild"

	# What a restart and a reload need is in the records: the add log.
	bw 0 add "$BW_RX" "$BW_C4"
	# The ended one stays recorded until a rebuild drops it.
	assert_eq "$(added_kept)" 2 "status counts the adds the log holds"
	stop_watch TERM
	trap kill_watch EXIT
	start_watch "${SEED[@]}" --debounce 0.2 "$LIVE_LIST"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	stop_watch TERM
	trap - EXIT
	bw 0 reload "$BW_RX" "${SEED[@]}" "$LIVE_LIST"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
}

# The add log three quarters full: the watch folds it by a rebuild of its
# own (not the add's swap and a takeover), every add still drops after
# it, and the next add goes in place into the new room.
test_watch_add_log_fold()
{
	local addrs

	trap kill_watch EXIT
	live_watch
	# 6,200 addresses of 32 bytes each: past 3/4 of the 256 KiB room.
	mapfile -t addrs < <(seq 0 6199 | awk '{ printf "10.%d.%d.%d\n", 100 + int($1 / 62500), int($1 / 250) % 250, $1 % 250 + 1 }')
	bw 0 add "$BW_RX" "${addrs[@]}"
	assert_grep "$OUT" "^$BW_RX: 6200 of 6200 added in place by the watch \\(no swap\\)\$" \
		"6,200 in place"
	wait_line "$WATCH_OUT" "$RELOAD_OK"'live entries: the add log is three quarters full\)$'
	assert_eq "$(grep -c 'another command swapped' "$WATCH_OUT")" 0 "no takeover"
	query_is 10.100.0.1 drop
	query_is 10.100.24.200 drop
	query_is "${addrs[6199]}" drop
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 add "$BW_RX" "$BW_C4"
	assert_grep "$OUT" "added in place by the watch" "the next add in place"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	stop_watch TERM
	trap - EXIT
}

# One add of more than the log holds (12,000 addresses, 384 KB, past the
# 256 KiB room): a question that finds the log full is answered busy, the
# watch folds the log by a rebuild of its own and the CLI asks again, so
# the whole command goes in place, with no swap and no takeover (before,
# the command's rest went by a swap).
test_watch_add_log_full()
{
	local addrs

	trap kill_watch EXIT
	live_watch
	mapfile -t addrs < <(seq 0 11999 | awk '{ printf "10.%d.%d.%d\n", 100 + int($1 / 62500), int($1 / 250) % 250, $1 % 250 + 1 }')
	bw 0 add "$BW_RX" "${addrs[@]}"
	assert_grep "$OUT" "^$BW_RX: 12000 of 12000 added in place by the watch \\(no swap\\)\$" \
		"12,000 in place"
	# Any rebuild of its own folds the log: for it full, three quarters
	# full, or the adds past the region's room, whichever came first.
	assert_grep "$WATCH_OUT" "$RELOAD_OK"'live entries: ' \
		"a rebuild of the watch's own, which folds the log"
	assert_eq "$(grep -c 'another command swapped' "$WATCH_OUT")" 0 "no takeover"
	query_is "${addrs[0]}" drop
	query_is "${addrs[11999]}" drop
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	stop_watch TERM
	trap - EXIT
}

# The shrink guard judges the lists, never the entries added at run time:
# 12 adds kept live through a rebuild, then removed, must not make the
# next edit of a one-address list look like a cut download (it did: the
# keys the guard kept counted the adds, 13, and the edited list's 2 were
# "under half").
test_watch_guard_lists_only()
{
	local i

	trap kill_watch EXIT
	live_watch
	for i in $(seq 10 21); do
		bw 0 add "$BW_RX" "10.77.1.$i"
	done
	kill -HUP "$WATCH_PID"
	wait_line "$WATCH_OUT" "$RELOAD_OK"'SIGHUP\)$'
	query_is 10.77.1.10 drop
	# shellcheck disable=SC2046 # one address a word
	bw 0 remove "$BW_RX" $(seq -f '10.77.1.%g' 10 21)
	assert_grep "$OUT" "^$BW_RX: 12 of 12 removed\$" "the bulk remove"
	printf '%s\n%s\n' "$BW_A4" "$BW_B4" >"$LIVE_LIST"
	wait_line "$WATCH_OUT" "$RELOAD_OK"'change of '
	assert_eq "$(grep -c 'KEPT OUT' "$WATCH_OUT")" 0 \
		"the edited list is not kept out"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	query_is 10.77.1.10 pass
	stop_watch TERM
	trap - EXIT
}

# add handed to a watch, killed before its system calls in turn (make
# test: every call from its question to the watch on, before it every
# 120th; BW_CRASH_FULL=1, make crash-sweep: every one), each time with
# the next of 40 addresses: after each kill the address is either an add
# the records hold and that drops, or none and passes (never recorded and
# passing, nor dropping unrecorded); the other adds and the list's entry
# always drop; no swap; the watch lives on; and the next add goes in
# place at once (the lock is free).
test_crash_sweep_add_live()
{
	local pool=() i

	for i in $(seq 40); do
		pool+=("192.0.2.$i")
	done
	crash_handover add drop "$BW_B4" "$BW_C4" "${pool[@]}"
	bw 0 add "$BW_RX" 198.51.100.9
	assert_grep "$OUT" "added in place by the watch" "the next add in place"
	stop_watch TERM
	trap - EXIT
}

# fail2ban's unban with a watch running: 'remove' of an entry the watch
# keeps live (an 'add --timeout' it took over) takes it out for good: the
# watch must not set it again in the filter remove swapped in.
test_watch_live_remove()
{
	local i state=/run/bloomwall/$BW_RX.json

	trap kill_watch EXIT
	live_watch
	bw 0 add "$BW_RX" --timeout 1h "$BW_C4"
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

# hang_up QUESTION: asks the watch's socket and closes without reading.
hang_up()
{
	python3 - "/run/bloomwall/$BW_RX.sock" "$1" <<'EOF'
import socket, sys

s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n")
s.close()
EOF
}

# added_kept: how many adds the running filter's records hold.
added_kept()
{
	"$BLOOMWALL" status --json "$BW_RX" 2>/dev/null | python3 -c \
		'import json, sys; print(json.load(sys.stdin)[0]["filter"]["added_kept"])'
}

# verdict ADDR: query's word for ADDR (drop or pass).
verdict()
{
	"$BLOOMWALL" query "$BW_RX" "$1" 2>/dev/null | awk 'NR == 1 { print $2 }'
}

# remove with a watch running (P9 item 1): the adds are live entries of the
# watch, remove marks one out of the running filter's records in place and
# the watch rewrites its blocks: it passes at once, with the same program
# and generation and no rebuild, while the other add and the list's entry
# still drop (the rewritten blocks keep every live key). A remove killed
# after its mark, before it asks the watch, is found by the watch itself.
test_watch_remove_in_place()
{
	local gen prog n i rc holder state=/run/bloomwall/$BW_RX.json

	trap kill_watch EXIT
	live_watch
	bw 0 add "$BW_RX" "$BW_B4" "$BW_C4"
	assert_eq "$(json "$state" 'd["live"]["entries"]')" 2 \
		"the permanent adds are kept live"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	gen=$(generation)
	prog=$(hook_prog_id)
	n=$(grep -cE "$RELOAD_OK" "$WATCH_OUT")

	bw 0 remove "$BW_RX" "$BW_C4"
	assert_grep "$OUT" "^$BW_C4  removed in place\$" "remove says it went in place"
	assert_grep "$OUT" "^$BW_RX: 1 of 1 removed\$" "remove's count"
	# No wait: remove returns once the watch has rewritten the blocks.
	query_is "$BW_C4" pass
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	assert_eq "$(generation)" "$gen" "in place: the same generation"
	assert_eq "$(hook_prog_id)" "$prog" "in place: the same program"
	assert_eq "$(grep -cE "$RELOAD_OK" "$WATCH_OUT")" "$n" "no rebuild"
	assert_eq "$(json "$state" '[d["live"]["entries"], d["live"]["deletes"]]')" \
		"[1,1]" "the state file: one live entry left, one delete"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd[0]["filter"]["added_kept"]')" 1 \
		"status: one add kept"
	bw 1 --json remove "$BW_RX" "$BW_C4"
	assert_eq "$(json "$OUT" '[a["result"] for a in d["addresses"]]')" \
		'["not_added"]' "removed twice: not added any more"

	# Killed at its first connect(), before it handed anything over:
	# nothing changed (the entry is still an add, and drops).
	echo "+ strace (SIGKILL at connect) bloomwall remove $BW_RX $BW_B4"
	rc=0
	strace -f -qq -o /dev/null -e trace=connect \
		-e inject=connect:signal=SIGKILL:when=1 \
		"$BLOOMWALL" remove "$BW_RX" "$BW_B4" >"$OUT" 2>"$ERR" || rc=$?
	assert_eq "$rc" 137 "remove killed at its connect"
	query_is "$BW_B4" drop
	assert_eq "$(added_kept)" 1 "the killed remove changed nothing"
	# The lock held past the time remove asks the watch again: remove
	# marks the entry itself once it gets the lock, and the watch finds
	# the mark within a second (the bound only ends a hang).
	flock -x /sys/fs/bpf/bloomwall sleep 7 &
	holder=$!
	sleep 0.5
	bw 0 remove "$BW_RX" "$BW_B4"
	wait "$holder"
	assert_line "$OUT" "$BW_B4  removed from the records; the watch takes it out of the filter within a second" \
		"remove marked it itself"
	for i in $(seq 100); do
		"$BLOOMWALL" query "$BW_RX" "$BW_B4" 2>/dev/null |
			grep -qE "^$BW_B4  pass( |\$)" && break
		sleep 0.1
	done
	query_is "$BW_B4" pass
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	assert_eq "$(hook_prog_id)" "$prog" "the killed remove: the same program"
	assert_eq "$(grep -cE "$RELOAD_OK" "$WATCH_OUT")" "$n" "still no rebuild"
	# Clients that hang up at once, before the answer: the watch lives on
	# (its answer to a closed socket raises no SIGPIPE).
	for i in 1 2 3; do
		hang_up '{"v":1,"op":"status"}'
		hang_up '{"v":1,"op":"why","addresses":["'"$BW_A4"'"]}'
	done
	sleep 0.5
	kill -0 "$WATCH_PID" || fail "the watch died of a client that hung up"
	bw 0 query "$BW_RX" "$BW_A4" --why
	stop_watch TERM
	trap - EXIT
	# What the watch left runs without them, and a rebuild keeps them out.
	bw 0 reload "$BW_RX" "${SEED[@]}" "$LIVE_LIST"
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
}

# wait_answer WANT TYPE NAME: a real query until it gets WANT (the bound
# only ends a hang), then asserted.
wait_answer()
{
	local i

	for i in $(seq 60); do
		[ "$(ask "$2" "$3")" = "$1" ] && break
		sleep 0.1
	done
	expect_answer "$@"
}

# Names added at run time are live entries as addresses are: the watch's
# rebuilds leave them out of the blocks (the name regions sized with room
# for them, also with no name in the lists), a remove of one takes its
# one key out in place (no rebuild, no swap) and real DNS queries through
# the veth pair are answered again at once, while the other added name
# and the list's entry still block; a name added with --timeout ends in
# place within a second of its end; a reload after the watch keeps the
# removed and the ended names out.
test_watch_names_live()
{
	local gen prog n state=/run/bloomwall/$BW_RX.json

	resolver_start
	# shellcheck disable=SC2064 # the pid is known now
	trap "kill_watch; kill $RESOLVER_PID 2>/dev/null; wait $RESOLVER_PID 2>/dev/null" EXIT
	# The queries come from $BW_A4: the list holds another address.
	LIVE_LIST=$TMP_DIR/lists/block.txt
	mkdir -p "$TMP_DIR/lists"
	printf '%s\n' "$BW_C4" >"$LIVE_LIST"
	start_watch "${SEED[@]}" --debounce 0.2 "$LIVE_LIST"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	# A watch's filter has name regions with no name in its lists.
	bw 0 add "$BW_RX" one.test '*.ads.test'
	assert_grep "$OUT" "names added in place by the watch" \
		"the first names go in place"
	assert_eq "$(json "$state" '[d["live"]["entries"], d["live"]["keys"]]')" \
		"[2,2]" "both names kept live, one key each"
	expect_answer "NOERROR 0.0.0.0" A one.test
	expect_answer "NOERROR 0.0.0.0" A x.ads.test
	expect_answer "NOERROR $RESOLVER_A" A two.test
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	gen=$(generation)
	prog=$(hook_prog_id)
	n=$(grep -cE "$RELOAD_OK" "$WATCH_OUT")

	bw 0 remove "$BW_RX" one.test
	assert_grep "$OUT" "^one.test  removed in place\$" "remove of a name in place"
	assert_grep "$OUT" "^$BW_RX: 1 of 1 removed\$" "remove's count"
	# No wait: remove returns once the watch has rewritten the block.
	expect_answer "NOERROR $RESOLVER_A" A one.test
	expect_answer "NOERROR 0.0.0.0" A deep.x.ads.test
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 0 query "$BW_RX" one.test
	assert_line "$OUT" "one.test  pass" "query: the removed name passes"
	assert_eq "$(generation)" "$gen" "in place: the same generation"
	assert_eq "$(hook_prog_id)" "$prog" "in place: the same program"
	assert_eq "$(grep -cE "$RELOAD_OK" "$WATCH_OUT")" "$n" "no rebuild"
	bw 1 --json remove "$BW_RX" one.test
	assert_eq "$(json "$OUT" '[a["result"] for a in d["names"]]')" \
		'["not_added"]' "removed twice: not added any more"
	bw 0 --json remove "$BW_RX" '*.ads.test'
	assert_eq "$(json "$OUT" '[[a["name"], a["result"], a["how"]] for a in d["names"]]')" \
		'[["*.ads.test","removed","in_place"]]' "remove JSON of a subtree"
	expect_answer "NOERROR $RESOLVER_A" A x.ads.test
	assert_eq "$(json "$state" '[d["live"]["entries"], d["live"]["keys"]]')" \
		"[0,0]" "no live name left"
	assert_eq "$(grep -cE "$RELOAD_OK" "$WATCH_OUT")" "$n" "still no rebuild"

	# A name with --timeout: kept live, out in place once it ends.
	bw 0 add "$BW_RX" --timeout 4s two.test
	expect_answer "NOERROR 0.0.0.0" A two.test
	gen=$(generation)
	n=$(grep -cE "$RELOAD_OK" "$WATCH_OUT")
	sleep 3
	wait_answer "NOERROR $RESOLVER_A" A two.test
	assert_eq "$(generation)" "$gen" "ended in place: the same generation"
	assert_eq "$(grep -cE "$RELOAD_OK" "$WATCH_OUT")" "$n" "ended: no rebuild"
	assert_eq "$(json "$state" '[d["live"]["entries"], d["live"]["expired"]]')" \
		"[0,1]" "the state file counts it expired"
	stop_watch TERM
	trap - EXIT
	kill "$RESOLVER_PID" 2>/dev/null
	wait "$RESOLVER_PID" 2>/dev/null
	bw 0 reload "$BW_RX" "${SEED[@]}" "$LIVE_LIST"
	bw 0 query "$BW_RX" one.test x.ads.test two.test
	assert_line "$OUT" "one.test  pass (the filter holds no names)" \
		"a reload keeps the removed names out"
	assert_line "$OUT" "two.test  pass (the filter holds no names)" \
		"and the ended one"
}

# watch --image keeps the adds, as load does (it forgot them at every
# image it swapped in, the takeover's included: an add was gone within a
# second), and keeps them live: the image's filter gets the names from the
# watch's hook, not in its blocks, so that a remove takes one out in
# place (an image's name built in would still match after "removed in
# place").
test_watch_image_names_live()
{
	local d=$TMP_DIR/img l gen n

	trap kill_watch EXIT
	mkdir -p "$d"
	l=$(list a.txt "$BW_C4" base.test)
	bw 0 build -o "$d/filter.img" "$l"
	start_watch --debounce 0.2 --image "$d/filter.img"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	bw 0 add "$BW_RX" one.test two.test
	query_names "one.test  block" "two.test  block" "base.test  block"
	gen=$(generation)
	n=$(grep -cE "$RELOAD_OK" "$WATCH_OUT")
	bw 0 remove "$BW_RX" one.test
	assert_line "$OUT" "one.test  removed in place" "remove in place"
	query_names "one.test  pass" "two.test  block" "base.test  block"
	assert_eq "$(generation)" "$gen" "in place: the same generation"
	assert_eq "$(grep -cE "$RELOAD_OK" "$WATCH_OUT")" "$n" "no rebuild"
	bw 0 add "$BW_RX" "$BW_B4"
	query_is "$BW_B4" drop
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	query_names "two.test  block"
	stop_watch TERM
	trap - EXIT
}

# query_names WANT...: each "NAME  VERDICT" is query's line's start.
query_names()
{
	local w

	for w in "$@"; do
		bw 0 query "$BW_RX" "${w%%  *}"
		assert_grep "$OUT" "^$w( |\$)" "query: $w"
	done
}

# remove handed to a watch, killed before its system calls in turn (make
# test: from its lock on every BW_REMOVE_STRIDE-th, default 12, before it
# every 10th of that, every flock and connect, and every call from its
# question to the watch on; BW_CRASH_FULL=1, make
# crash-sweep: every one), each time of the next of 40 adds (one that
# went is not added again: that would be a swap, and the watch's rebuild
# for it): after each kill the entry is either still an add that drops,
# or out of the records and passing within a second (the watch finds a
# mark itself), never half; the other adds and the list's entry always
# drop; no swap (the watch's program runs on); and the next command works
# at once (the lock is free).
test_crash_sweep_remove_live()
{
	local pool=() i

	for i in $(seq 40); do
		pool+=("192.0.2.$i")
	done
	crash_handover remove drop "$BW_B4" "$BW_C4" "${pool[@]}"
	stop_watch TERM
	trap - EXIT
}

# A bulk remove handed to a watch (fail2ban's flush, a cleanup script): 25
# adds in one command, killed at each point: all 25 go or none.
test_crash_sweep_remove_bulk()
{
	local pool=() clean=() i

	for i in $(seq 100); do
		pool+=("192.0.2.$i")
	done
	for i in $(seq 25); do
		clean+=("198.51.100.$i")
	done
	BW_HANDOVER_BATCH=25 crash_handover remove drop "$BW_B4" \
		"${clean[*]}" "${pool[@]}"
	stop_watch TERM
	trap - EXIT
}

# The same for names (kept live as the addresses are, one key each;
# BW_REMOVE_NAME_STRIDE, default 36, in make test: the path differs from
# the addresses' in the mark alone).
test_crash_sweep_remove_live_names()
{
	local pool=() i

	for i in $(seq 40); do
		pool+=("n$i.test")
	done
	BW_REMOVE_STRIDE=${BW_REMOVE_NAME_STRIDE:-36} \
		crash_handover remove block keep.test gone.test "${pool[@]}"
	stop_watch TERM
	trap - EXIT
}

# crash_handover add|remove IN KEEP CLEAN POOL...: the verb handed to a
# watch, killed at each point of a clean run's trace; IN is query's word
# for a kept entry (drop, block); KEEP an add that must stay, CLEAN the
# entries of the clean run (words), POOL the entries added or removed in
# turn, BW_HANDOVER_BATCH (default 1) of them per command: a command's
# entries all go or none. At the end a restarted watch keeps exactly the
# adds the records hold, each with its verdict.
crash_handover()
{
	local op=$1 in=$2 keep=$3 clean s k n kept got want i prog next=0
	local points=0 bad=0 pool delta after=pass before=$in other batch
	local b=${BW_HANDOVER_BATCH:-1} first last

	read -r -a clean <<<"$4"
	shift 4
	pool=("$@")
	delta=-$b
	[ "$op" = add ] && delta=$b after=$in before=pass
	command -v strace >/dev/null || skip "strace is not installed"
	trap kill_watch EXIT
	live_watch
	if [ "$op" = add ]; then
		bw 0 add "$BW_RX" "$keep"
	else
		bw 0 add "$BW_RX" "$keep" "${clean[@]}" "${pool[@]}"
	fi
	# Names into a filter with no name region: a swap, taken over.
	grep -q "added in place by the watch" "$OUT" ||
		wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	# A batch's adds outgrow the first filter's one block: the watch grows
	# it for them (before it sets them, or at its next turn).
	[ "$op" = remove ] && [ "$b" -gt 1 ] &&
		wait_line "$WATCH_OUT" "past the room|past its target false-positive rate"
	# The points: the system calls of one clean run.
	strace -qq -o "$TMP_DIR/trace" "$BLOOMWALL" "$op" "$BW_RX" "${clean[@]}" \
		>/dev/null 2>&1
	for s in "${clean[0]}" "${clean[-1]}"; do
		assert_eq "$(verdict "$s")" "$after" "the clean run's $op of $s"
	done
	awk -v full="${BW_CRASH_FULL:-0}" -v stride="${BW_REMOVE_STRIDE:-12}" '
	match($0, /^[a-z_0-9]+\(/) {
		name = substr($0, 1, RLENGTH - 1)
		n[name]++
		i++
		# From its question to the watch on, every call: they are few.
		asked = asked || name == "connect"
		locked = locked || name == "flock"
		if (full || asked || i % (locked ? stride : 10 * stride) == 0 ||
		    name ~ /^(flock|connect)$/)
			print name, n[name]
	}' "$TMP_DIR/trace" >"$TMP_DIR/points"
	prog=$(hook_prog_id)
	while read -r s k; do
		# The pool used up: put back in one command, swept again.
		if [ $((next + b)) -gt ${#pool[@]} ]; then
			n=$(grep -cE "$RELOAD_OK" "$WATCH_OUT")
			if [ "$op" = add ]; then
				bw 0 remove "$BW_RX" "${pool[@]}"
			else
				bw 0 add "$BW_RX" "${pool[@]}"
				grep -q "added in place by the watch" "$OUT" ||
					wait_line "$WATCH_OUT" "$RELOAD_OK" $((n + 1))
			fi
			prog=$(hook_prog_id)
			next=0
		fi
		batch=("${pool[@]:next:b}")
		first=${batch[0]}
		last=${batch[-1]}
		points=$((points + 1))
		n=$(added_kept)
		strace -qq -o /dev/null -e trace="$s" \
			-e inject="$s":signal=SIGKILL:when="$k" \
			"$BLOOMWALL" "$op" "$BW_RX" "${batch[@]}" >/dev/null 2>&1
		# Recorded: the watch sets it at once; a mark the CLI made itself
		# the watch finds within a second. A request handed over before
		# the kill the watch may still be carrying out: its records and
		# the filter are read again until they agree.
		for i in $(seq 30); do
			kept=$(added_kept)
			want=$before
			[ "$kept" = $((n + delta)) ] && want=$after
			got=$(verdict "$first")
			[ "$got" = "$want" ] && break
			sleep 0.1
		done
		# An entry of the pool the sweep is not at: as it was.
		if [ "$op" = add ]; then
			other=${pool[next - 1]:-$keep}
			[ "$next" -gt 0 ] || other=$keep
		else
			other=${pool[next + b]:-$keep}
		fi
		if [ "$kept" != "$n" ] && [ "$kept" != $((n + delta)) ]; then
			echo "  killed at $s #$k: $kept adds kept ($n before)"
			bad=$((bad + 1))
		elif [ "$got" != "$want" ] || [ "$(verdict "$last")" != "$want" ]; then
			echo "  killed at $s #$k: $kept adds kept ($n before), but $first is '$got', $last '$(verdict "$last")'"
			bad=$((bad + 1))
		elif [ "$(verdict "$keep")" != "$in" ] ||
			[ "$(verdict "$BW_A4")" != drop ] ||
			[ "$(verdict "$other")" != "$in" ]; then
			echo "  killed at $s #$k: another add or the list's entry passes"
			bad=$((bad + 1))
		elif [ "$(hook_prog_id)" != "$prog" ]; then
			echo "  killed at $s #$k: the program changed (a swap)"
			bad=$((bad + 1))
		elif ! kill -0 "$WATCH_PID" 2>/dev/null; then
			fail "killed at $s #$k: the watch died"
		fi
		[ "$want" = "$after" ] && next=$((next + b))
	done <"$TMP_DIR/points"
	echo "crash sweep: $op of $b handed to a watch ($in): $points points, $bad inconsistent"
	assert_eq "$bad" 0 "inconsistent points"
	[ "$points" -ge 5 ] || fail "only $points points"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	# A restart converges to what the records hold: as many adds, the
	# entries either side of where the sweep stopped as they were.
	n=$(added_kept)
	first=$(verdict "${pool[0]}")
	last=$(verdict "${pool[-1]}")
	stop_watch TERM
	live_watch
	grep -q "KEPT OUT" "$WATCH_OUT" &&
		fail "the restarted watch kept its lists out for the adds taken out"
	assert_eq "$(added_kept)" "$n" "the adds a restarted watch keeps"
	assert_eq "$(verdict "${pool[0]}")" "$first" "${pool[0]} after a restart"
	assert_eq "$(verdict "${pool[-1]}")" "$last" "${pool[-1]} after a restart"
	assert_eq "$(verdict "$keep")" "$in" "$keep after a restart"
}
