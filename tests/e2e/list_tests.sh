# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of list reading (issue 10): lists are read fail-closed
# (out of memory, a device, an endless line: exit 1 and nothing changed),
# lines are bounded and read in bounded memory, IPv4-mapped entries drop
# the IPv4 source, bad bytes are printed escaped, --skip-invalid prints a
# few lines and a count. Sourced by tests/e2e/run.sh, whose helpers they
# use (bw, list, fail, skip, assert_line, assert_eq, expect_dropped,
# expect_delivered, generation) on its topology: bloomwall on $BW_RX
# (10.77.0.1/24, fd00:77::1/64), pings from the sender's A, B and C
# addresses (10.77.0.2 .3 .4).
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $LIST_TESTS"

# shellcheck disable=SC2034 # read by tests/e2e/run.sh, which sources this
LIST_TESTS="test_list_oom_reload test_list_dev_zero test_list_long_line_memory
test_list_mapped test_list_escaped test_list_skip_hosts"

# What reload says when it failed before the swap, for generation $1.
msg_unchanged()
{
	echo "$BW_RX: nothing changed: the running filter (generation $1) is as it was"
}

# The issue's case: a 600 MB line under `ulimit -v 500000` once ran getline
# out of memory, which the loop took for the end of the file, and the list
# read up to there was swapped in with exit 0. Now the line is refused at
# 4096 bytes: exit 1, and the running filter stays, generation and verdicts.
test_list_oom_reload()
{
	local a big gen

	a=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$a"
	gen=$(generation)
	big=$TMP_DIR/big.txt
	{
		echo 1.1.1.1
		head -c 600000000 /dev/zero | tr '\0' '#'
		echo
		echo "$BW_B4"
	} >"$big" || fail "cannot write $big"
	(
		ulimit -v 500000
		bw 1 reload "$BW_RX" "${SEED[@]}" "$big"
	) || fail "reload under ulimit -v 500000"
	rm -f "$big"
	assert_line "$ERR" "$big:2: line too long (more than 4096 bytes)" \
		"the line is refused, file:line"
	assert_line "$ERR" "$(msg_unchanged "$gen")" "reload says nothing changed"
	assert_eq "$(generation)" "$gen" "generation after the refused list"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
}

# /dev/zero ran 12 s to 2.1 GB. A device is refused before it is read, as
# a path; as standard input its NUL bytes end it at line 1. (ulimit -v bounds
# what a regression could take from the machine.)
test_list_dev_zero()
{
	local a gen

	(
		ulimit -v 1000000
		bw 1 attach "$BW_RX" --mode native /dev/zero
	) || fail "attach /dev/zero"
	assert_line "$ERR" \
		"/dev/zero: not a regular file or pipe (character device): give a list file, or \"-\" for standard input" \
		"a character device is not a list"
	assert_line "$ERR" "$BW_RX: nothing attached" "attach says it did nothing"
	assert_detached
	a=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$a"
	gen=$(generation)
	(
		ulimit -v 1000000
		bw 1 reload "$BW_RX" - </dev/zero
	) || fail "reload - </dev/zero"
	assert_line "$ERR" "<stdin>:1: NUL byte: not a text list" \
		"standard input of NUL bytes"
	assert_line "$ERR" "$(msg_unchanged "$gen")" "reload says nothing changed"
	bw 1 reload "$BW_RX" "$TMP_DIR"
	assert_line "$ERR" \
		"$TMP_DIR: not a regular file or pipe (directory): give a list file, or \"-\" for standard input" \
		"a directory is not a list"
	assert_eq "$(generation)" "$gen" "generation after the refused lists"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
}

# peak_rss ARGS...: runs the CLI with ARGS (output to $OUT and $ERR, shown
# as bw shows it), sets RC to its exit status and PEAK to its peak resident
# size in KiB (the child's ru_maxrss, as /usr/bin/time -f %M reports it).
peak_rss()
{
	local r

	echo "+ bloomwall $*"
	r=$(python3 -c 'import resource, subprocess, sys
with open(sys.argv[1], "w") as o, open(sys.argv[2], "w") as e:
    rc = subprocess.call(sys.argv[3:], stdout=o, stderr=e)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' \
		"$OUT" "$ERR" "$BLOOMWALL" "$@") || fail "cannot run bloomwall $*"
	sed 's/^/  | /' "$OUT"
	sed 's/^/  ! /' "$ERR"
	RC=${r% *}
	PEAK=${r#* }
	echo "  exit $RC, peak RSS $PEAK KiB"
}

# A 100 MB line: refused as too long; under --skip-invalid read through to
# the lines after it in bounded memory (getline held the whole line: the
# CLI's peak RSS then exceeded 100 MB). The bound, 64 MiB, is far above the
# CLI's own few MiB and far below the line.
test_list_long_line_memory()
{
	local l

	l=$TMP_DIR/long.txt
	{
		echo "$BW_B4"
		head -c 100000000 /dev/zero | tr '\0' x
		echo
		echo "$BW_A4"
	} >"$l" || fail "cannot write $l"
	peak_rss attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	assert_eq "$RC" 1 "exit status of attach with a 100 MB line"
	assert_line "$ERR" "$l:2: line too long (more than 4096 bytes)" \
		"the line is refused, file:line"
	assert_detached
	peak_rss attach "$BW_RX" --mode native "${SEED[@]}" --skip-invalid "$l"
	assert_eq "$RC" 0 "exit status of attach --skip-invalid"
	assert_line "$ERR" \
		"$l:2: line too long (more than 4096 bytes) (skipped)" \
		"the line is skipped, file:line"
	[ "$PEAK" -lt 65536 ] ||
		fail "peak RSS $PEAK KiB reading a 100 MB line: not bounded"
	rm -f "$l"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_C4" "$BW_RX4"
}

# ::ffff:a.b.c.d is the IPv4 source a.b.c.d on the wire: it must drop it.
# In a list (one note per file) and in add's and query's arguments.
test_list_mapped()
{
	local l

	l=$(list mapped.txt "::ffff:$BW_A4" "::ffff:10.77.0.4/128" "$BW_A6")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	assert_line "$ERR" \
		"$l:1: note: ::ffff:$BW_A4 is IPv4-mapped; taken as $BW_A4" \
		"the note names the line and what it was taken as"
	assert_eq "$(grep -c note: "$ERR")" 1 "one note a file"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	bw 0 add "$BW_RX" "::ffff:$BW_B4"
	assert_line "$ERR" \
		"bloomwall add: note: ::ffff:$BW_B4 is IPv4-mapped; taken as $BW_B4" \
		"add's note"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	bw 0 query "$BW_RX" "::ffff:$BW_A4"
	assert_line "$ERR" \
		"bloomwall query: note: ::ffff:$BW_A4 is IPv4-mapped; taken as $BW_A4" \
		"query's note"
	assert_line "$OUT" "::ffff:$BW_A4  drop (in blocklist /32 region)" \
		"query answers as for the IPv4 address"
}

# A bad line's bytes are printed escaped: no terminal escape sequence, no
# invisible character reaches the operator's terminal.
test_list_escaped()
{
	local l

	l=$TMP_DIR/esc.txt
	printf '%s\n\033[2J\033]2:owned\007\n' "$BW_A4" >"$l"
	bw 1 attach "$BW_RX" --mode native "$l"
	assert_line "$ERR" \
		"$l:2: not an IP address: \"\\x1b[2J\\x1b]2:owned\\x07\"" \
		"the bad line, escaped"
	if LC_ALL=C grep -q "[[:cntrl:]]" "$ERR"; then
		fail "a control character reached stderr"
	fi
	printf '%s\tx.example\tb..c d\n' "$BW_A4" >"$l"
	bw 1 attach "$BW_RX" --mode native "$l"
	assert_line "$ERR" \
		"$l:1: empty label in name: \"b..c\"" \
		"a blank ends a word"
	printf '%s 1\tb\200\n' "$BW_A4" >"$l"
	bw 1 attach "$BW_RX" --mode native "$l"
	assert_line "$ERR" \
		"$l:1: unexpected text after the address: \"1\\tb\\x80\"" \
		"a tab and a byte that is not ASCII, escaped"
	assert_detached
}

# --skip-invalid on a hosts file whose every name is made bad (an empty
# label at its end): about 94,000 bad lines, of which the first five are printed,
# then one count; the build summary has the total.
test_list_skip_hosts()
{
	local hosts=$TMP_DIR/hosts a total

	[ -r "$BW_DATA_DIR/domains/stevenblack/hosts" ] ||
		skip "no test data at $BW_DATA_DIR (set BW_DATA_DIR)"
	sed -E 's/^(0\.0\.0\.0 [^ #]*[a-z][^ #]*)/\1../' \
		"$BW_DATA_DIR/domains/stevenblack/hosts" >"$hosts"
	a=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --skip-invalid "$a" \
		"$hosts"
	total=$(sed -nE 's/.* ([0-9,]+) lines skipped.*/\1/p' "$OUT" | tr -d ,)
	if [ -z "$total" ] || [ "$total" -le 5 ]; then
		fail "no skipped-line total over 5 in the summary"
	fi
	assert_eq "$(grep -c ' (skipped)$' "$ERR")" 5 "bad lines printed"
	assert_line "$ERR" \
		"$hosts:40: empty label in name: \"wizhumpgyros.com..\" (skipped)" \
		"the first bad line"
	assert_line "$ERR" "$hosts: $((total - 5)) more bad lines skipped" \
		"then the count of the others"
	assert_eq "$(wc -l <"$ERR")" 6 "lines on stderr"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
}
