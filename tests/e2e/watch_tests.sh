# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of the watch daemon against hostile input (issue 19,
# items 1, 7, 8, 9 and 11): a list written slowly in place or created
# slowly (curl -o, wget -O), rewritten without end, cut to a fraction, a
# list replaced by a FIFO and a directory written to without end (SIGTERM
# still ends the watch), the watched directory removed and made again or
# moved away, a second watch, another command replacing or detaching the
# filter, the interface renamed. Sourced by tests/e2e/run.sh after
# ops_tests.sh, whose watch helpers (start_watch, stop_watch, wait_line,
# kill_watch, query_is, RELOAD_OK) they use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $WATCH_TESTS"

# shellcheck disable=SC2034 # read by run.sh
WATCH_TESTS="test_watch_slow_writer test_watch_rewrites test_watch_shrink
test_watch_sigterm_fifo test_watch_dir_recreated test_watch_second
test_watch_renamed test_watch_lock_dir test_watch_bad_start"

# reloads: how many "reload ok" lines the watch has printed.
reloads()
{
	grep -cE "$RELOAD_OK" "$WATCH_OUT"
}

# wait_gone PID: waits for PID to end (a bound, not a time to meet).
wait_gone()
{
	local i

	for i in $(seq 100); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# A list written in place slowly, then a list made anew slowly: neither is
# read before its writer closes it, whatever else happens in the directory.
test_watch_slow_writer()
{
	local d=$TMP_DIR/lists l w

	trap kill_watch EXIT
	mkdir -p "$d"
	l=$d/block.txt
	printf '%s\n' "$BW_A4" >"$l"
	start_watch "${SEED[@]}" --debounce 0.2 --interval 0.3 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	# 10.77.0.1 is in no version of the file: only a half-read one.
	(
		printf '10.77.0.1'
		sleep 2
		printf '23\n%s\n' "$BW_B4"
	) >"$l" &
	w=$!
	sleep 0.5
	touch "$d/other"
	wait_line "$WATCH_OUT" "$BW_RX: $l is being written; it is read once its writer closes it"
	assert_eq "$(reloads)" 1 "no reload while the file is open for writing"
	query_is 10.77.0.1 pass
	query_is "$BW_A4" drop
	wait "$w"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	assert_grep "$WATCH_OUT" "^$BW_RX: reload ok: generation 2, 2 entries, " \
		"the whole file once its writer closed it"
	query_is 10.77.0.123 drop
	query_is "$BW_B4" drop
	query_is 10.77.0.1 pass

	# Made anew: the remove fails (the last good filter stays), the new
	# file is read once it is whole.
	rm "$l"
	wait_line "$WATCH_OUT" "reload FAILED"
	(
		printf '%s\n' "$BW_C4"
		sleep 2
		printf '%s\n' "$BW_A4"
	) >"$l" &
	w=$!
	sleep 1
	assert_eq "$(reloads)" 2 "no reload of the half-made file"
	wait "$w"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 3
	assert_grep "$WATCH_OUT" "^$BW_RX: reload ok: generation 3, 2 entries, " \
		"the new file whole"
	query_is "$BW_C4" drop
	query_is "$BW_A4" drop
	stop_watch TERM
}

# --debounce 0 and a file rewritten in place 200 times: every filter that
# went in is a whole version (21 entries, the 20 common ones all there).
test_watch_rewrites()
{
	local d=$TMP_DIR/lists l i k bad=0 common=() v

	trap kill_watch EXIT
	mkdir -p "$d"
	l=$d/block.txt
	for i in $(seq 20); do
		common+=("10.78.0.$i")
	done
	printf '%s\n' "${common[@]}" 10.79.0.0 >"$l"
	start_watch "${SEED[@]}" --debounce 0 --verify "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	(
		for k in $(seq 200); do
			printf '%s\n' "${common[@]}" "10.79.$((k / 200)).$((k % 200))" >"$l"
			sleep 0.05
		done
	) &
	v=$!
	while kill -0 "$v" 2>/dev/null; do
		"$BLOOMWALL" query "$BW_RX" "${common[@]}" >"$TMP_DIR/q" 2>&1
		[ "$(grep -c '  drop' "$TMP_DIR/q")" -eq 20 ] || {
			bad=$((bad + 1))
			sed 's/^/  q /' "$TMP_DIR/q"
		}
	done
	wait "$v"
	# The last version goes in once its writer closed it.
	for i in $(seq 100); do
		"$BLOOMWALL" query "$BW_RX" 10.79.1.0 | grep -q '  drop' && break
		sleep 0.1
	done
	echo "  $(grep -c 'reload ok' "$WATCH_OUT") reloads, $(grep -c 'reload deferred' "$WATCH_OUT") deferred, $(grep -c 'KEPT OUT' "$WATCH_OUT") kept out"
	assert_eq "$bad" 0 "samples missing common entries"
	assert_eq "$(grep -E 'reload ok' "$WATCH_OUT" | grep -cvE ', 21 entries, ')" 0 \
		"reloads of anything but a whole version"
	query_is 10.79.1.0 drop
	stop_watch TERM
}

# A list cut to under half (a cut download) is kept out until it stays
# the same for three checks; --allow-shrink takes it at once.
test_watch_shrink()
{
	local d=$TMP_DIR/lists l i all=()

	trap kill_watch EXIT
	mkdir -p "$d"
	l=$d/block.txt
	for i in $(seq 10); do
		all+=("10.78.1.$i")
	done
	printf '%s\n' "${all[@]}" >"$l"
	start_watch "${SEED[@]}" --debounce 0.1 --interval 0.5 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	printf '%s\n' 10.78.1.1 10.78.1.2 >"$d/.t"
	mv "$d/.t" "$l"
	wait_line "$WATCH_OUT" "reload KEPT OUT"
	assert_grep "$WATCH_OUT" "^$BW_RX: reload KEPT OUT after [0-9.]+ s \\(change of $l\\): the last good filter stays \\(generation 1\\); it goes in once the lists stay as they are, or with --allow-shrink\$" \
		"the cut list is kept out"
	assert_grep "$WATCH_ERR" "the lists hold 2 keys, under half of the 10 of the filter this watch keeps" \
		"the reason, with the counts"
	query_is 10.78.1.9 drop
	wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	assert_grep "$WATCH_OUT" "reload ok: generation 2, 2 entries, .*\\(the shrunk lists stayed as they are\\)\$" \
		"in once it stayed the same"
	query_is 10.78.1.9 pass
	stop_watch TERM

	printf '%s\n' "${all[@]}" >"$l"
	start_watch "${SEED[@]}" --debounce 0.1 --allow-shrink "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	printf '%s\n' 10.78.1.3 >"$d/.t"
	mv "$d/.t" "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	assert_grep "$WATCH_OUT" "reload ok: generation 4, 1 entries, " \
		"--allow-shrink takes it at once"
	stop_watch TERM
}

# SIGTERM ends the watch while a rebuild waits on a FIFO, and while the
# directory is written to without end.
test_watch_sigterm_fifo()
{
	local d=$TMP_DIR/lists l w

	trap kill_watch EXIT
	mkdir -p "$d"
	l=$d/block.txt
	printf '%s\n' "$BW_A4" >"$l"
	start_watch "${SEED[@]}" --debounce 0.1 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	rm "$l"
	mkfifo "$l"
	sleep 1
	kill -TERM "$WATCH_PID"
	wait_gone "$WATCH_PID" || fail "the watch did not end on SIGTERM while a rebuild read a FIFO"
	wait "$WATCH_PID"
	assert_eq "$?" 0 "the watch's exit status on SIGTERM"
	assert_grep "$WATCH_OUT" "watch stopped \\(SIGTERM\\); the filter stays attached \\(generation 1\\)" \
		"it says so, and the filter stays"
	WATCH_PID=
	query_is "$BW_A4" drop

	rm "$l"
	printf '%s\n' "$BW_A4" >"$l"
	start_watch "${SEED[@]}" --debounce 0.1 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	(while :; do echo x >>"$d/busy.log"; done) &
	w=$!
	sleep 1
	kill -TERM "$WATCH_PID"
	wait_gone "$WATCH_PID" || {
		kill "$w"
		fail "the watch did not end on SIGTERM with events without end"
	}
	kill "$w"
	wait "$w" 2>/dev/null
	wait "$WATCH_PID"
	assert_eq "$?" 0 "the watch's exit status on SIGTERM"
	WATCH_PID=
	assert_eq "$(reloads)" 1 "writes to another file of the directory rebuild nothing"
}

# The directory of the list removed and made again, then moved away and
# made again: the watch follows, and says so.
test_watch_dir_recreated()
{
	local d=$TMP_DIR/lists l

	trap kill_watch EXIT
	mkdir -p "$d/sub"
	l=$d/sub/block.txt
	printf '%s\n' "$BW_A4" >"$l"
	start_watch "${SEED[@]}" --debounce 0.1 --interval 0.3 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	rm -rf "$d/sub"
	wait_line "$WATCH_OUT" "$BW_RX: the directory $d/sub is not there; watching $d until it is"
	mkdir "$d/sub"
	printf '%s\n' "$BW_B4" >"$l"
	wait_line "$WATCH_OUT" "$BW_RX: the directory $d/sub is there again; watching it"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	query_is "$BW_B4" drop
	query_is "$BW_A4" pass

	mv "$d/sub" "$d/sub.old"
	mkdir "$d/sub"
	printf '%s\n' "$BW_C4" >"$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 3
	query_is "$BW_C4" drop
	# The old directory is no longer watched.
	printf '%s\n' "$BW_A4" >"$d/sub.old/block.txt"
	printf '%s\n' "$BW_B4" >"$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 4
	sleep 1
	assert_eq "$(reloads)" 4 "a write in the moved-away directory rebuilds nothing"
	query_is "$BW_B4" drop
	stop_watch TERM
}

# One watch an interface; one that sees its filter replaced or detached by
# another command says so.
test_watch_second()
{
	local l lb pid

	trap kill_watch EXIT
	l=$(list a.txt "$BW_A4")
	lb=$(list b.txt "$BW_B4")
	start_watch "${SEED[@]}" --debounce 0.1 --interval 0.3 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	# A bound: a second watch that is not refused runs until killed.
	timeout 20 "$BLOOMWALL" watch "$BW_RX" --detach-on-exit "$lb" \
		>"$OUT" 2>"$ERR"
	assert_eq "$?" 1 "the second watch's exit status"
	assert_grep "$ERR" "^$BW_RX: another watch keeps its filter, pid $WATCH_PID \\(.*bloomwall watch $BW_RX.*\\): one watch an interface" \
		"the second watch is refused, naming the first"
	query_is "$BW_A4" drop
	bw 0 reload "$BW_RX" "$lb"
	wait_line "$WATCH_OUT" "$BW_RX: the filter was replaced by another command \\(generation 2; this watch put in 1\\)"
	bw 0 detach "$BW_RX"
	wait_line "$WATCH_OUT" "$BW_RX: bloomwall is not attached anymore"
	pid=$WATCH_PID
	stop_watch TERM
	# Its lock went with it: the next watch starts.
	start_watch "${SEED[@]}" --debounce 0.1 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	[ "$WATCH_PID" != "$pid" ] || fail "the same watch?"
	stop_watch TERM
}

# The interface renamed under the watch: a failed rebuild and the stop
# name where the filter runs now.
test_watch_renamed()
{
	local l old=$BW_RX new

	trap kill_watch EXIT
	new=bwn-$BW_ID
	l=$(list a.txt "$BW_A4")
	start_watch "${SEED[@]}" --debounce 0.1 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	if ! ip link set dev "$old" down || ! ip link set dev "$old" name "$new" ||
		! ip link set dev "$new" up; then
		fail "cannot rename $old"
	fi
	BW_RX=$new # teardown removes the pair by this name
	printf '%s\n' "$BW_B4" >>"$l"
	wait_line "$WATCH_OUT" "reload FAILED"
	assert_grep "$WATCH_OUT" "^$old: reload FAILED after [0-9.]+ s \\(change of $l\\): there is no $old; it was renamed to $new, where its filter runs \\(generation 1\\); the watch waits for an interface named $old\$" \
		"the failure names the new name"
	kill -TERM "$WATCH_PID"
	wait "$WATCH_PID"
	WATCH_PID=
	assert_grep "$WATCH_OUT" "^$old: watch stopped \\(SIGTERM\\); there is no $old \\(renamed to $new, where its filter runs\\): nothing detached\$" \
		"the stop says where the filter runs"
	bw_has_xdp "$new" || fail "the filter left $new"
}

# A list that cannot be built at the start, nothing attached: the watch
# says so and ends (status 1) without promising another try, and attaches
# nothing.
test_watch_bad_start()
{
	local l=$TMP_DIR/bad.txt rc

	printf '999.1.1.1\n' >"$l"
	echo "+ bloomwall watch $BW_RX $l"
	timeout 30 "$BLOOMWALL" watch "$BW_RX" "${SEED[@]}" "$l" >"$OUT" 2>"$ERR"
	rc=$?
	sed 's/^/  | /' "$OUT"
	sed 's/^/  ! /' "$ERR"
	assert_eq "$rc" 1 "the watch's exit status"
	assert_grep "$OUT" "^$BW_RX: reload FAILED after [0-9.]+ s \\(start\\): no filter runs\$" \
		"the failed start, without a next try"
	assert_line "$OUT" "$BW_RX: watch stopped: no filter could be attached" \
		"the stop"
	assert_grep "$ERR" "bad.txt:1: not an IP address: \"999.1.1.1\"" "why"
	bw_has_xdp "$BW_RX" && fail "the failed watch attached something"
	return 0
}

# The watch's lock directory (BW_PIN_ROOT/watch:IFACE) does not outlive
# it: removed when the watch ends, and by detach after a watch was
# killed; a watch running keeps it, whoever runs detach.
test_watch_lock_dir()
{
	local l dir=$BW_PIN_ROOT/watch:$BW_RX state=/run/bloomwall/$BW_RX.json

	trap kill_watch EXIT
	l=$(list a.txt "$BW_A4")
	start_watch "${SEED[@]}" "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	[ -d "$dir" ] || fail "no $dir while the watch runs"
	stop_watch TERM
	[ -e "$dir" ] && fail "$dir left after the watch ended"
	[ -e "$state" ] && fail "$state left after the watch ended"
	start_watch "${SEED[@]}" "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	kill -KILL "$WATCH_PID"
	wait "$WATCH_PID" 2>/dev/null
	WATCH_PID=
	[ -d "$dir" ] || fail "a killed watch's $dir is gone (the test shows nothing)"
	start_watch "${SEED[@]}" "$l"
	# After its first reload: a detach before it leaves that reload no
	# filter to replace, and the watch ends.
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	bw 0 detach "$BW_RX"
	[ -d "$dir" ] || fail "detach removed $dir while a watch held it"
	stop_watch TERM
	[ -e "$dir" ] && fail "$dir left after the second watch ended"
	start_watch "${SEED[@]}" "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	kill -KILL "$WATCH_PID"
	wait "$WATCH_PID" 2>/dev/null
	WATCH_PID=
	[ -e "$state" ] || fail "a killed watch's $state is gone (the test shows nothing)"
	# What an older watch killed mid-write would leave: its temporary.
	: >"/run/bloomwall/.$BW_RX.json.tmp"
	bw 0 detach "$BW_RX"
	[ -e "$dir" ] && fail "detach left a killed watch's $dir"
	[ -e "$state" ] && fail "detach left a killed watch's $state"
	[ -e "/run/bloomwall/.$BW_RX.json.tmp" ] && fail "detach left the state file's temporary"
	trap - EXIT
}
