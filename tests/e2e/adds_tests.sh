# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of the entries added at run time (issue 10, item 7): they
# are kept with the filter, every rebuild builds them in, remove takes them
# out by a rebuild, reload --forget-added drops them all; adds that race a
# reload, or each other from many processes, lose no entry.
# Sourced by tests/e2e/run.sh, whose helpers (bw, list, json, kv, fail,
# assert_eq, assert_kv, assert_line, expect_*, generation, hook_prog_id) and
# topology they use: bloomwall on $BW_RX (10.77.0.1/24, fd00:77::1/64),
# pings from the sender's A, B and C (10.77.0.2 .3 .4, fd00:77::2 ::3 ::4).
# crash_frame (crash_tests.sh) makes the frames bpftool runs the hook on.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $ADDS_TESTS"

# shellcheck disable=SC2034 # read by run.sh
ADDS_TESTS="test_adds_survive_reload test_adds_remove test_adds_forget
test_adds_race_reload test_adds_parallel"

# adds_list NAME N: a list of A and N addresses nobody sends from (even
# ones of 10.78/16, so that no two merge into a shorter prefix), to size the
# filter for thousands of adds (N at most 32,768).
adds_list()
{
	local f=$TMP_DIR/$1

	{
		echo "$BW_A4"
		awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++)
			printf "10.78.%d.%d\n", int(i / 128), (i % 128) * 2 }'
	} >"$f"
	echo "$f"
}

# The reload's line for N kept adds (user/ops/reload.c, say_kept).
msg_kept()
{
	local what=entries

	[ "$1" = 1 ] && what=entry
	echo "$BW_RX: $1 $what added at run time kept ('bloomwall remove $BW_RX ADDR|NAME...' takes one out)"
}

# adds_judge ADDR...: "ADDR:drop" or "ADDR:pass" per address, as the
# program on the hook judges a frame from it (BPF_PROG_TEST_RUN).
adds_judge()
{
	local id a rv

	id=$(hook_prog_id)
	[ -n "$id" ] || fail "no program on $BW_RX's hook"
	for a in "$@"; do
		crash_frame "$a" "$TMP_DIR/frame"
		rv=$(bpftool prog run id "$id" data_in "$TMP_DIR/frame" repeat 1 2>&1 |
			sed -nE 's/.*[Rr]eturn value: ([0-9]+).*/\1/p')
		case $rv in
		1) echo "$a:drop" ;;
		2) echo "$a:pass" ;;
		*) echo "$a:?$rv" ;;
		esac
	done
}

# adds_all_dropped FILE N: query of every address in FILE, in one call,
# says drop for each of the N.
adds_all_dropped()
{
	local n

	# shellcheck disable=SC2046 # one address a word
	bw 0 query "$BW_RX" $(cat "$1") >/dev/null
	n=$(grep -cE '^[0-9.]+  drop \(in blocklist /32 region\)$' "$OUT")
	assert_eq "$n" "$2" "addresses query says drop, of $2 added"
}

# The issue's story: an attacker added at 03:00 is still dropped after the
# 04:00 reload from cron, and after every reload after it.
test_adds_survive_reload()
{
	local l i gen

	l=$(list a.txt "$BW_A4" "$BW_A6")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 add "$BW_RX" "$BW_C4" "$BW_C6/128"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "added entries kept" 2 "status counts the adds"
	for i in 1 2 3; do
		gen=$(generation)
		bw 0 reload "$BW_RX" "$l"
		assert_line "$OUT" "$(msg_kept 2)" "reload $i says what it kept"
		assert_line "$OUT" \
			"$BW_RX: swapped in generation $((gen + 1)) (replaces $gen)" \
			"reload $i swapped a new filter in"
		expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
		expect_dropped "$BW_C6" "$BW_RX6" dropped_v6
		expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
		expect_delivered "$BW_B4" "$BW_RX4"
	done
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd[0]["filter"]["added_kept"]')" 2 \
		"status --json counts the adds"
	# In verify mode the exact trie is built with them too.
	bw 0 reload "$BW_RX" --verify "$l"
	bw 0 query "$BW_RX" "$BW_C4"
	assert_line "$OUT" \
		"$BW_C4  drop (in blocklist /32 region, confirmed by the exact list)" \
		"a kept add is in the exact trie"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	# Adding what is kept already keeps it once.
	bw 0 --json add "$BW_RX" "$BW_C4"
	assert_eq "$(json "$OUT" 'd["added_kept"]')" 2 "no duplicate kept"
}

# remove rebuilds from the recorded lists (by absolute path: run from
# elsewhere) and the other adds; an entry that is not a kept add is said,
# exit 1, the others still go.
test_adds_remove()
{
	local gen

	cd "$TMP_DIR" || fail "cd $TMP_DIR"
	list a.txt "$BW_A4" "$BW_A6" >/dev/null
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" a.txt
	cd / || fail "cd /"
	bw 0 add "$BW_RX" "$BW_B4" "$BW_C4"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	gen=$(generation)
	bw 0 remove "$BW_RX" "$BW_C4"
	assert_line "$OUT" "$BW_C4  removed" "remove says what it removed"
	assert_line "$OUT" "$BW_RX: 1 of 1 removed" "remove counts"
	assert_line "$OUT" "$(msg_kept 1)" "remove keeps the other add"
	assert_line "$OUT" \
		"$BW_RX: swapped in generation $((gen + 1)) (replaces $gen)" \
		"remove swaps a rebuilt filter in, as reload does"
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "added entries kept" 1 "status after remove"

	# A list entry is not a runtime add: said, exit 1, nothing changed.
	gen=$(generation)
	bw 1 remove "$BW_RX" "$BW_A4"
	assert_line "$OUT" "$BW_A4  not added at run time" "a list entry"
	assert_line "$ERR" \
		"$BW_RX: 1 of 1 entries were not added at run time: only those can be removed (an entry of a LIST goes when it is taken out of the file and the filter reloaded)" \
		"remove says why"
	assert_line "$ERR" \
		"$BW_RX: nothing changed: the running filter (generation $gen) is as it was" \
		"remove of nothing it can remove changes nothing"
	assert_eq "$(generation)" "$gen" "generation after a remove of nothing"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4

	# One kept, one not: the kept one goes, exit 1 for the other.
	bw 1 --json remove "$BW_RX" "$BW_C4" "$BW_B4"
	assert_eq "$(json "$OUT" '[(e["address"], e["result"]) for e in d["addresses"]]')" \
		"[[\"$BW_C4\",\"not_added\"],[\"$BW_B4\",\"removed\"]]" \
		"remove --json per entry"
	assert_eq "$(json "$OUT" '[d["removed"], d["total"], d["added_kept"]]')" \
		"[1,2,0]" "remove --json counts"
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd[0]["filter"]["added_kept"]')" 0 \
		"status --json after the last remove"
}

# reload --forget-added leaves every kept add out.
test_adds_forget()
{
	local l

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 add "$BW_RX" "$BW_B4" "$BW_C4"
	bw 0 reload "$BW_RX" --forget-added "$l"
	assert_line "$OUT" "$BW_RX: 2 entries added at run time left out" \
		"reload --forget-added says what it left out"
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "added entries kept" 0 "nothing kept after forgetting"
	bw 1 remove "$BW_RX" "$BW_B4"
	assert_line "$OUT" "$BW_B4  not added at run time" "forgotten is not kept"
}

# 100 adds, one process, while another reloads 20 times: after both, every
# added address drops (a reload that built while an add swapped in builds
# again under the lock).
test_adds_race_reload()
{
	local l i rpid again

	l=$(adds_list big.txt 2000)
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	(
		for i in $(seq 1 20); do
			"$BLOOMWALL" reload "$BW_RX" "$l" >/dev/null \
				2>>"$TMP_DIR/reload.err" ||
				echo "reload $i failed" >>"$TMP_DIR/race.fail"
		done
	) &
	rpid=$!
	for i in $(seq 1 100); do
		echo "10.88.0.$i" >>"$TMP_DIR/added"
		"$BLOOMWALL" add "$BW_RX" "10.88.0.$i" >/dev/null \
			2>>"$TMP_DIR/add.err" ||
			echo "add $i failed" >>"$TMP_DIR/race.fail"
	done
	wait "$rpid"
	if [ -s "$TMP_DIR/race.fail" ]; then
		cat "$TMP_DIR/race.fail" "$TMP_DIR/reload.err" "$TMP_DIR/add.err"
		fail "a command failed during the race"
	fi
	again=$(grep -c "building again" "$TMP_DIR/reload.err")
	echo "  reloads that built again under the lock: $again"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "added entries kept" 100 "every racing add is kept"
	adds_all_dropped "$TMP_DIR/added" 100
	assert_eq "$(adds_judge 10.88.0.1 10.88.0.50 10.88.0.100 | tr '\n' ' ')" \
		"10.88.0.1:drop 10.88.0.50:drop 10.88.0.100:drop " \
		"the hook drops added addresses"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
}

# 8 processes add 1,000 addresses each at once (25 adds of 40): every add
# clones what runs under the lock, so none loses another's entries.
test_adds_parallel()
{
	local l p c pids=() want="" got

	l=$(adds_list big.txt 10000)
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	for p in $(seq 0 7); do
		(
			for c in $(seq 0 24); do
				# shellcheck disable=SC2046 # one address a word
				"$BLOOMWALL" add "$BW_RX" \
					$(seq -f "10.$((90 + p)).$c.%g" 0 39) \
					>/dev/null 2>>"$TMP_DIR/add.$p.err" ||
					echo "process $p add $c failed" \
						>>"$TMP_DIR/par.fail"
			done
		) &
		pids+=($!)
	done
	wait "${pids[@]}"
	if [ -s "$TMP_DIR/par.fail" ]; then
		cat "$TMP_DIR/par.fail" "$TMP_DIR"/add.*.err
		fail "an add failed"
	fi
	for p in $(seq 0 7); do
		for c in $(seq 0 24); do
			seq -f "10.$((90 + p)).$c.%g" 0 39
		done
	done >"$TMP_DIR/added"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "added entries kept" 8000 "every add of 8 processes"
	adds_all_dropped "$TMP_DIR/added" 8000
	for p in $(seq 0 7); do
		want="$want 10.$((90 + p)).24.39:drop"
	done
	# shellcheck disable=SC2046 # one address a word
	got=$(adds_judge $(seq -f "10.%g.24.39" 90 97) | tr '\n' ' ')
	assert_eq "$got" "${want# } " "the hook drops each process's last add"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
}
