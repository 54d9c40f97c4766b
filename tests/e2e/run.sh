#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# End-to-end tests: the real bloomwall CLI attached to one end of a veth pair,
# real packets (ping) sent from a second network namespace. The runner
# re-executes itself under `unshare -n -m` as workers that run the tests side
# by side (see "runner" below), so every interface, namespace and bpffs pin
# a test makes lives in namespaces of its worker's own and goes away with it.
#
# Usage: tests/e2e/run.sh [TEST...]        (default: every test in ALL_TESTS)
# Env:   BLOOMWALL  the binary (default ./bloomwall)
#        BW_DATA_DIR the real blocklists (default tests/data in the
#                   repository, as for the unit and datapath tests)
#        V=1        print every test's output, not only a failing one's
#        E2E_JOBS   how many workers (default 3; 1: one test at a time)
#        E2E_TIMES  each passed test's seconds, read to hand the longest
#                   out first, written at the end (default
#                   ${OUTPUT:-.output}/tests/e2e.seconds)
#
# Each test prints "[name] PASS|FAIL|SKIPPED" when it ends; the last line is
# "e2e: N passed, N failed" (tests/run.sh reads it); non-zero exit on failure.
# A test no worker finished fails: "[name] FAIL (not run to its end: ...)".
# Without root: "e2e: needs root ..." on stderr, exit 3, no summary line (no
# test could run; that is no pass). A TEST that names no test: "e2e: no
# test named ..." on stderr, exit 2, no test run and no summary line.
set -o nounset

ALL_TESTS="test_drop_reload_detach test_survives_cli_exit test_missing_list
test_bad_line test_skip_invalid test_unknown_iface test_double_attach
test_reload_bad_list test_reload_unreadable test_not_attached test_detach_twice test_query test_add
test_stdin_list test_list_formats test_monitor test_match_dst test_skb_mode
test_status test_stats_dump test_prog_swap test_link_reload test_real_lists test_usage test_no_privileges
test_foreign_xdp test_reload_under_traffic test_pins_repaired"

SKIPPED_TEST=249
# The exit statuses of tests/test_helpers.h's suites for the same cases.
EXIT_NO_MATCH=2
EXIT_NEEDS_ROOT=3
# The CLI's messages as user/ writes them: strerror() and number formats of
# the C locale, whatever the caller's.
export LC_ALL=C
# Debian's python3 (with python3-scapy and python3-yaml) before any version
# manager's shims on PATH: a pyenv shim costs about 0.4 s a call, and the
# tests call python3 thousands of times.
export PATH=/usr/bin:$PATH
# A fixed hash seed: whether an unlisted test address is a false positive
# (about 1 in 10^5 for these tiny filters) is then decided once, not per run.
SEED=(--seed 4242)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# Real blocklists: $BW_DATA_DIR, else the repository's tests/data
# (tests/test_helpers.h has the same rule for the C tests).
BW_DATA_DIR=${BW_DATA_DIR:-$TOP/tests/data}
# shellcheck source=../../scripts/netns.sh
. "$TOP/scripts/netns.sh"
# shellcheck source=nginx.sh
. "$TOP/tests/e2e/nginx.sh"
# shellcheck source=cidr_tests.sh
. "$TOP/tests/e2e/cidr_tests.sh"
ALL_TESTS="$ALL_TESTS $CIDR_TESTS"
. "$TOP/tests/e2e/json_tests.sh"
ALL_TESTS="$ALL_TESTS $JSON_TESTS"
# shellcheck source=crash_tests.sh
. "$TOP/tests/e2e/crash_tests.sh"
ALL_TESTS="$ALL_TESTS $CRASH_TESTS"
# shellcheck source=crash_cs_tests.sh
. "$TOP/tests/e2e/crash_cs_tests.sh"
ALL_TESTS="$ALL_TESTS $CRASH_CS_TESTS"
# shellcheck source=state_tests.sh
. "$TOP/tests/e2e/state_tests.sh"
ALL_TESTS="$ALL_TESTS $STATE_TESTS"
# shellcheck source=caps_tests.sh
. "$TOP/tests/e2e/caps_tests.sh"
ALL_TESTS="$ALL_TESTS $CAPS_TESTS"
# shellcheck source=load_tests.sh
. "$TOP/tests/e2e/load_tests.sh"
ALL_TESTS="$ALL_TESTS $LOAD_TESTS"
# shellcheck source=mtu_tests.sh
. "$TOP/tests/e2e/mtu_tests.sh"
ALL_TESTS="$ALL_TESTS $MTU_TESTS"
# shellcheck source=list_tests.sh
. "$TOP/tests/e2e/list_tests.sh"
ALL_TESTS="$ALL_TESTS $LIST_TESTS"
# shellcheck source=sizing_tests.sh
. "$TOP/tests/e2e/sizing_tests.sh"
ALL_TESTS="$ALL_TESTS $SIZING_TESTS"
# shellcheck source=iface_tests.sh
. "$TOP/tests/e2e/iface_tests.sh"
ALL_TESTS="$ALL_TESTS $IFACE_TESTS"
# shellcheck source=adds_tests.sh
. "$TOP/tests/e2e/adds_tests.sh"
ALL_TESTS="$ALL_TESTS $ADDS_TESTS"
# shellcheck source=image_tests.sh
. "$TOP/tests/e2e/image_tests.sh"
ALL_TESTS="$ALL_TESTS $IMAGE_TESTS"
# shellcheck source=sign_tests.sh
. "$TOP/tests/e2e/sign_tests.sh"
ALL_TESTS="$ALL_TESTS $SIGN_TESTS"
# shellcheck source=ops_tests.sh
. "$TOP/tests/e2e/ops_tests.sh"
ALL_TESTS="$ALL_TESTS $OPS_TESTS"
# shellcheck source=docs_tests.sh
. "$TOP/tests/e2e/docs_tests.sh"
ALL_TESTS="$ALL_TESTS $DOCS_TESTS"
# shellcheck source=watch_tests.sh
. "$TOP/tests/e2e/watch_tests.sh"
ALL_TESTS="$ALL_TESTS $WATCH_TESTS"
# shellcheck source=why_tests.sh
. "$TOP/tests/e2e/why_tests.sh"
ALL_TESTS="$ALL_TESTS $WHY_TESTS"
# shellcheck source=dns_tests.sh
. "$TOP/tests/e2e/dns_tests.sh"
ALL_TESTS="$ALL_TESTS $DNS_TESTS"
# shellcheck source=resolver_tests.sh
. "$TOP/tests/e2e/resolver_tests.sh"
ALL_TESTS="$ALL_TESTS $RESOLVER_TESTS"
# shellcheck source=log_tests.sh
. "$TOP/tests/e2e/log_tests.sh"
ALL_TESTS="$ALL_TESTS $LOG_TESTS"
# shellcheck source=demo_tests.sh
. "$TOP/tests/e2e/demo_tests.sh"
ALL_TESTS="$ALL_TESTS $DEMO_TESTS"
# shellcheck source=formats_tests.sh
. "$TOP/tests/e2e/formats_tests.sh"
ALL_TESTS="$ALL_TESTS $FORMATS_TESTS"
# shellcheck source=expiry_tests.sh
. "$TOP/tests/e2e/expiry_tests.sh"
ALL_TESTS="$ALL_TESTS $EXPIRY_TESTS"
# shellcheck source=owner_tests.sh
. "$TOP/tests/e2e/owner_tests.sh"
ALL_TESTS="$ALL_TESTS $OWNER_TESTS"
# shellcheck source=live_tests.sh
. "$TOP/tests/e2e/live_tests.sh"
ALL_TESTS="$ALL_TESTS $LIVE_TESTS"
# shellcheck source=sock_tests.sh
. "$TOP/tests/e2e/sock_tests.sh"
ALL_TESTS="$ALL_TESTS $SOCK_TESTS"
# shellcheck source=trickle_tests.sh
. "$TOP/tests/e2e/trickle_tests.sh"
ALL_TESTS="$ALL_TESTS $TRICKLE_TESTS"
# shellcheck source=url_tests.sh
. "$TOP/tests/e2e/url_tests.sh"
ALL_TESTS="$ALL_TESTS $URL_TESTS"
# shellcheck source=url_src_tests.sh
. "$TOP/tests/e2e/url_src_tests.sh"
ALL_TESTS="$ALL_TESTS $URL_SRC_TESTS"
# shellcheck source=url_hostile_tests.sh
. "$TOP/tests/e2e/url_hostile_tests.sh"
ALL_TESTS="$ALL_TESTS $URL_HOSTILE_TESTS"
# shellcheck source=crowdsec_tests.sh
. "$TOP/tests/e2e/crowdsec_tests.sh"
ALL_TESTS="$ALL_TESTS $CROWDSEC_TESTS"
# shellcheck source=fleet_tests.sh
. "$TOP/tests/e2e/fleet_tests.sh"
ALL_TESTS="$ALL_TESTS $FLEET_TESTS"
# shellcheck source=hostile_tests.sh
. "$TOP/tests/e2e/hostile_tests.sh"
ALL_TESTS="$ALL_TESTS $HOSTILE_TESTS"
# shellcheck source=config_tests.sh
. "$TOP/tests/e2e/config_tests.sh"
ALL_TESTS="$ALL_TESTS $CONFIG_TESTS"
# shellcheck source=unit_tests.sh
. "$TOP/tests/e2e/unit_tests.sh"
ALL_TESTS="$ALL_TESTS $UNIT_TESTS"
# shellcheck source=metrics_tests.sh
. "$TOP/tests/e2e/metrics_tests.sh"
ALL_TESTS="$ALL_TESTS $METRICS_TESTS"
# shellcheck source=egress_tests.sh
. "$TOP/tests/e2e/egress_tests.sh"
ALL_TESTS="$ALL_TESTS $EGRESS_TESTS"
# shellcheck source=crash_egress_tests.sh
. "$TOP/tests/e2e/crash_egress_tests.sh"
ALL_TESTS="$ALL_TESTS $EGRESS_CRASH_TESTS"

summary()
{
	if [ "$3" -gt 0 ]; then
		echo "e2e: $1 passed, $2 failed, $3 skipped"
	else
		echo "e2e: $1 passed, $2 failed"
	fi
}

if [ -z "${BW_UNSHARED:-}" ]; then
	# First: without root no test can run, whatever else is missing.
	if [ "$(id -u)" -ne 0 ]; then
		echo "e2e: needs root (network namespaces, XDP, bpffs)" >&2
		exit $EXIT_NEEDS_ROOT
	fi
	BLOOMWALL=$(realpath -e "${BLOOMWALL:-./bloomwall}" 2>/dev/null)
	if [ -z "$BLOOMWALL" ] || [ ! -x "$BLOOMWALL" ]; then
		echo "e2e: no bloomwall binary (set BLOOMWALL or run make)" >&2
		summary 0 1 0
		exit 1
	fi
	export BLOOMWALL
fi

# ---------------------------------------------------------------- helpers
# These run inside a test's subshell: fail and skip end the test.

fail()
{
	echo "FAIL: $*"
	exit 1
}

skip()
{
	echo "SKIP: $*"
	exit $SKIPPED_TEST
}

# bw RC ARGS...: runs the CLI, shows what it printed, checks its exit status.
# Output stays in $OUT and $ERR for the asserts that follow.
bw()
{
	local want=$1 rc

	shift
	echo "+ bloomwall $*"
	"$BLOOMWALL" "$@" >"$OUT" 2>"$ERR"
	rc=$?
	sed 's/^/  | /' "$OUT"
	sed 's/^/  ! /' "$ERR"
	[ "$rc" -eq "$want" ] || fail "bloomwall $*: exit $rc, expected $want"
}

# assert_grep FILE ERE WHAT: FILE (usually $OUT or $ERR) matches ERE. For
# lines with numbers a test cannot know; anchor the whole line (^...$).
assert_grep()
{
	grep -qE -- "$2" "$1" || fail "$3: no match for /$2/ in $(basename "$1")"
}

# assert_line FILE TEXT WHAT: a line of FILE is exactly TEXT: the CLI's
# message as user/ prints it, with the test's names filled in.
assert_line()
{
	grep -qxF -- "$2" "$1" || fail "$3: no line '$2' in $(basename "$1")"
}

# kv FILE KEY: the value of the first row KEY of `status`, which prints its
# rows as '    %-22s %s' (KEY, VALUE; bw_out_kv() in user/base/output.c). Empty if
# there is none.
kv()
{
	awk -v key="$2" 'substr($0, 1, 4) == "    " && substr($0, 27, 1) == " " {
		k = substr($0, 5, 22)
		sub(/ +$/, "", k)
		if (k == key) { print substr($0, 28); exit }
	}' "$1"
}

# assert_kv FILE KEY VALUE WHAT: the status row KEY reads exactly VALUE.
assert_kv()
{
	assert_eq "$(kv "$1" "$2")" "$3" "$4 (status row '$2')"
}

# json FILE EXPR: the Python expression EXPR on d, the JSON document in FILE
# parsed by Python's json, printed back as compact JSON.
json()
{
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(json.dumps(eval(sys.argv[2]), separators=(",", ":")))' "$1" "$2" ||
		fail "$(basename "$1") is not JSON with $2"
}

# The messages of user/ that several tests expect, for IFACE $1.
msg_not_attached()
{
	echo "$1: bloomwall is not attached (its XDP hook runs no bloomwall program). Try 'bloomwall status', or 'bloomwall attach $1 LIST...'."
}

msg_detach_not_attached()
{
	echo "bloomwall is not attached to $1; nothing to detach (see 'bloomwall status')"
}

# A list file that is not there: FILE: strerror (hint), from user/lists/list_load.c.
msg_no_file()
{
	echo "$1: No such file or directory (check the path; \"-\" reads standard input)"
}

assert_eq()
{
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
}

# list NAME LINE...: writes a list file, prints its path.
# serving PID URL TRIES [WRAPPER...]: URL answers (curl, run under
# WRAPPER: a namespace's), tried every 0.1 s TRIES times (a bound, not a
# time to meet); 1 when PID, the server, ended first or it never did.
serving()
{
	local pid=$1 url=$2 tries=$3 i

	shift 3
	for i in $(seq "$tries"); do
		"$@" curl -s -o /dev/null "$url" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

list()
{
	local f=$TMP_DIR/$1 newest

	shift
	printf '%s\n' "$@" >"$f"
	# Newer than every file before it: an image's serial is its newest
	# list's mtime, and files written within one clock tick (4 ms at
	# HZ=250) share one.
	newest=$(find "$TMP_DIR" -maxdepth 1 -type f ! -path "$f" -printf '%T@\n' |
		sort -n | tail -1)
	newest=$(awk -v t="$(stat -c %.9Y "$f")" -v n="${newest:-0}" \
		'BEGIN { if (t <= n) printf "%.6f", n + 0.001 }')
	[ -z "$newest" ] || touch -m -d "@$newest" "$f"
	echo "$f"
}

expect_delivered()
{
	local n

	n=$(bw_ping "$1" "$2")
	echo "  ping $1 -> $2: $n/3 replies"
	assert_eq "$n" 3 "traffic from $1 should be delivered"
}

# expect_dropped SRC DST COUNTER: no reply, and COUNTER rose by exactly the
# three requests sent (static neighbours: nothing else is sent from SRC).
expect_dropped()
{
	local before after n

	before=$(bw_stat "$BW_RX" "$3")
	n=$(bw_ping "$1" "$2")
	after=$(bw_stat "$BW_RX" "$3")
	echo "  ping $1 -> $2: $n/3 replies, $3 $before -> $after"
	assert_eq "$n" 0 "traffic from $1 should be dropped"
	assert_eq $((after - before)) 3 "$3 should count the 3 dropped requests"
}

# expect_monitored SRC DST: delivered, counted in monitored, not dropped.
expect_monitored()
{
	local mon drop

	mon=$(bw_stat "$BW_RX" monitored)
	drop=$(bw_stat "$BW_RX" dropped_v4)
	expect_delivered "$1" "$2"
	assert_eq $(($(bw_stat "$BW_RX" monitored) - mon)) 3 \
		"monitored should count the 3 listed requests"
	assert_eq "$(bw_stat "$BW_RX" dropped_v4)" "$drop" \
		"monitor mode must not drop"
}

# The filter generation as `status IFACE` prints it.
generation()
{
	kv <("$BLOOMWALL" status "$BW_RX" 2>/dev/null) generation
}

assert_detached()
{
	bw_has_xdp "$BW_RX" && fail "an XDP program is still on $BW_RX"
	if [ -n "$(ls -A "$BW_PIN_ROOT/$BW_RX" 2>/dev/null)" ]; then
		ls -lR "$BW_PIN_ROOT"
		fail "pins left under $BW_PIN_ROOT/$BW_RX"
	fi
	return 0
}

# ------------------------------------------------------------------ tests

# P1 core: drop a listed source, pass the others, both families; reload with
# the roles flipped; detach and everything passes, nothing left behind.
test_drop_reload_detach()
{
	local l1 l2

	l1=$(list a.txt "$BW_A4" "$BW_A6")
	l2=$(list b.txt "$BW_B4" "$BW_B6")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l1"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	expect_delivered "$BW_B6" "$BW_RX6"

	bw 0 reload "$BW_RX" "${SEED[@]}" "$l2"
	assert_eq "$(bw_stat "$BW_RX" dropped_v4)" 3 "counters kept across reload"
	expect_delivered "$BW_A4" "$BW_RX4"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A6" "$BW_RX6"
	expect_dropped "$BW_B6" "$BW_RX6" dropped_v6

	bw 0 detach "$BW_RX"
	expect_delivered "$BW_A4" "$BW_RX4"
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_delivered "$BW_A6" "$BW_RX6"
	expect_delivered "$BW_B6" "$BW_RX6"
	assert_detached
	if [ -n "$(ls -A "$BW_PIN_ROOT" 2>/dev/null)" ]; then
		ls -lR "$BW_PIN_ROOT"
		fail "$BW_PIN_ROOT is not empty after the last detach"
	fi
}

# Every verb is its own process: the filter must outlive the attach.
test_survives_cli_exit()
{
	local l pid

	l=$(list a.txt "$BW_A4")
	"$BLOOMWALL" attach "$BW_RX" --mode native "${SEED[@]}" "$l" &
	pid=$!
	wait $pid || fail "attach exited $?"
	[ -d /proc/$pid ] && fail "attach (pid $pid) is still running"
	bw_has_xdp "$BW_RX" || fail "no XDP program on $BW_RX after attach"
	[ -n "$(ls -A "$BW_PIN_ROOT/$BW_RX" 2>/dev/null)" ] ||
		fail "nothing pinned under $BW_PIN_ROOT/$BW_RX"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
}

test_missing_list()
{
	local l

	l=$(list a.txt "$BW_A4")
	bw 1 attach "$BW_RX" --mode native "$l" "$TMP_DIR/no-such-list"
	assert_line "$ERR" "$(msg_no_file "$TMP_DIR/no-such-list")" \
		"the error names the missing file"
	assert_line "$ERR" "$BW_RX: nothing attached" "attach says it did nothing"
	assert_detached
	expect_delivered "$BW_A4" "$BW_RX4"
}

test_bad_line()
{
	local l

	l=$(list bad.txt "# header" "$BW_A4" "10.77.0.999" "$BW_A6")
	bw 1 attach "$BW_RX" --mode native "$l"
	assert_line "$ERR" "$l:3: not an IP address: \"10.77.0.999\"" \
		"the error says file:line and why"
	assert_line "$ERR" "$BW_RX: nothing attached" "attach says it did nothing"
	assert_detached
	expect_delivered "$BW_A4" "$BW_RX4"
}

test_skip_invalid()
{
	local l

	l=$(list bad.txt "$BW_A4" "not-an-address!" "$BW_A6")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --skip-invalid "$l"
	assert_line "$ERR" \
		"$l:2: not an IP address range: \"not-an-address!\" (skipped)" \
		"the skipped line is reported as file:line"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	expect_delivered "$BW_B4" "$BW_RX4"
}

test_unknown_iface()
{
	local l

	l=$(list a.txt "$BW_A4")
	bw 2 attach bwnosuch0 --mode native "$l"
	assert_line "$ERR" \
		"bloomwall: there is no interface named 'bwnosuch0' here (see 'ip link')" \
		"the error names the interface"
	[ -e "$BW_PIN_ROOT/bwnosuch0" ] && fail "pins made for a missing interface"
	return 0
}

# A second attach is an error, and the first filter keeps working untouched.
test_double_attach()
{
	local l1 l2 gen

	l1=$(list a.txt "$BW_A4")
	l2=$(list b.txt "$BW_B4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l1"
	gen=$(generation)
	bw 1 attach "$BW_RX" --mode native "$l2"
	assert_line "$ERR" \
		"bloomwall is already attached to $BW_RX; use 'bloomwall reload $BW_RX LIST...' or 'bloomwall detach $BW_RX'" \
		"the error says it is already attached"
	assert_eq "$(generation)" "$gen" "generation after the refused attach"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
}

# A failed reload leaves the running filter exactly as it was.
test_reload_bad_list()
{
	local l1 bad gen

	l1=$(list a.txt "$BW_A4" "$BW_A6")
	bad=$(list bad.txt "$BW_B4" "10.77.0.300")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l1"
	gen=$(generation)
	[ -n "$gen" ] || fail "status shows no generation"
	bw 1 reload "$BW_RX" "$bad"
	assert_line "$ERR" "$bad:2: not an IP address: \"10.77.0.300\"" \
		"the error says file:line and why"
	assert_line "$ERR" \
		"$BW_RX: nothing changed: the running filter (generation $gen) is as it was" \
		"reload says nothing changed"
	bw 1 reload "$BW_RX" "$TMP_DIR/no-such-list"
	assert_line "$ERR" "$(msg_no_file "$TMP_DIR/no-such-list")" \
		"the error names the missing file"
	assert_line "$ERR" \
		"$BW_RX: nothing changed: the running filter (generation $gen) is as it was" \
		"reload says nothing changed"
	assert_eq "$(generation)" "$gen" "generation after failed reloads"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_delivered "$BW_B6" "$BW_RX6"
}

# Byte OFF of the running filter's header (block 0) set to VAL (hex), as a
# corruption or a filter of another format version would have it.
poke_header()
{
	local id val

	id=$(filter_map_id)
	val=$(bpftool -j map lookup id "$id" key 0 0 0 0 |
		python3 -c 'import json, sys
v = json.load(sys.stdin)["value"]
v[int(sys.argv[1])] = sys.argv[2]
print(" ".join(v))' "$1" "$2") || return 1
	# shellcheck disable=SC2086
	bpftool map update id "$id" key 0 0 0 0 value $val
}

# A running filter the CLI cannot read: status and query say so, the running
# program (made for the header it was loaded with) still drops, and a reload
# replaces the filter, keeping the allowlist.
test_reload_unreadable()
{
	local l1 l2 unreadable

	l1=$(list a.txt "$BW_A4" "$BW_A6")
	l2=$(list b.txt "$BW_B4" "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l1"
	bw 0 allow "$BW_RX" "$BW_A4"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "filter header" "the filter's (loaded with it)" \
		"program and map agree"
	# A changed seed byte: the map's header is still valid, but the running
	# program keeps the one it was loaded with, and status says they differ.
	poke_header 8 0x5a || fail "cannot overwrite the header's seed"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "filter header" \
		"DIFFERS from the filter map's: the program runs with the one it was loaded with; 'bloomwall reload $BW_RX LIST...' makes them one" \
		"status sees the difference"
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	poke_header 4 0x09 || fail "cannot overwrite the header's version"
	bw 0 status "$BW_RX"
	unreadable="$BW_RX: cannot read the running filter: it is not a valid bloomwall filter. Rebuild it with 'bloomwall reload $BW_RX LIST...'."
	# The Filter section's state row (the Program section has one too).
	assert_line "$OUT" \
		"$(printf '    %-22s %s' state "not a valid bloomwall filter; 'bloomwall reload $BW_RX LIST...' replaces it")" \
		"status on a bad header"
	bw 1 query "$BW_RX" "$BW_A6"
	assert_line "$ERR" "$unreadable" "query on a bad header"
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l2"
	# The format version in it is the CLI's own: any number.
	assert_grep "$ERR" \
		"^$BW_RX: the running filter is not one this bloomwall can read \\(corrupt, or format version other than [0-9]+\\); it is replaced with a new one: enforce, --match src and --fpr 0\\.1% unless given\$" \
		"reload says why"
	assert_line "$OUT" \
		"$BW_RX: swapped in generation 1 (replaces the unreadable filter)" \
		"reload says what it replaced"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" allowlist "1 entry" "the allowlist is kept"
	assert_kv "$OUT" "filter header" "the filter's (loaded with it)" \
		"agree again"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"
	expect_delivered "$BW_A6" "$BW_RX6"
}

# Verbs that need a running filter say so on an interface without one.
test_not_attached()
{
	local l verb want

	l=$(list a.txt "$BW_A4")
	for verb in "query $BW_RX $BW_A4" "add $BW_RX $BW_A4" "status $BW_RX" \
		    "reload $BW_RX $l" "detach $BW_RX"; do
		# shellcheck disable=SC2086
		bw 1 $verb
		if [ "${verb%% *}" = detach ]; then
			want=$(msg_detach_not_attached "$BW_RX")
		else
			want=$(msg_not_attached "$BW_RX")
		fi
		assert_line "$ERR" "$want" \
			"'${verb%% *}' says bloomwall is not attached to $BW_RX"
	done
	bw 0 status
	assert_line "$OUT" "bloomwall is not attached to any interface" \
		"status with nothing attached says so"
	assert_detached
	expect_delivered "$BW_A4" "$BW_RX4"
}

test_detach_twice()
{
	local l

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 detach "$BW_RX"
	bw 1 detach "$BW_RX"
	assert_line "$ERR" "$(msg_detach_not_attached "$BW_RX")" \
		"second detach says why"
	assert_detached
	expect_delivered "$BW_A4" "$BW_RX4"
}

test_query()
{
	local l

	l=$(list a.txt "$BW_A4" "$BW_A6")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 query "$BW_RX" "$BW_A4" "$BW_B4" "$BW_A6" "$BW_B6"
	assert_line "$OUT" "$BW_A4  drop (in blocklist /32 region)" "listed $BW_A4"
	assert_line "$OUT" "$BW_B4  pass" "unlisted $BW_B4"
	assert_line "$OUT" "$BW_A6  drop (in blocklist /128 region)" "listed $BW_A6"
	assert_line "$OUT" "$BW_B6  pass" "unlisted $BW_B6"
	bw 2 query "$BW_RX" 10.77.0.256
	assert_line "$ERR" "bloomwall query: not an IP address: \"10.77.0.256\"" \
		"query names the bad address"
}

# The hook is the truth, the pins a cache: with pins gone, the verbs still
# find the running filter, status says the pins are out of step, and the
# next mutating verb repairs them and says so.
test_pins_repaired()
{
	local l pins=$BW_PIN_ROOT/$BW_RX prog

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	prog=$(hook_prog_id)
	rm "$pins/prog" "$pins/stats" || fail "cannot remove the pins"
	bw 0 query "$BW_RX" "$BW_A4" "$BW_B4"
	assert_line "$OUT" "$BW_A4  drop (in blocklist /32 region)" \
		"query without pins"
	assert_line "$OUT" "$BW_B4  pass" "query unlisted"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" id "$prog" "status names the program on the hook"
	assert_kv "$OUT" pins \
		"missing or out of step (an interrupted command, or a private bpffs); the next attach, reload, add, allow, unallow or detach repairs them" \
		"status says the pins are out of step"
	bw 0 add "$BW_RX" "$BW_C4"
	assert_line "$ERR" \
		"note: $BW_RX: its pins did not name what its hook runs (an earlier command was interrupted?); repaired" \
		"add repairs the pins"
	assert_eq "$(pinned_prog_id)" "$(hook_prog_id)" "the prog pin names what runs"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 0 status "$BW_RX"
	assert_kv "$OUT" pins "$pins (name what runs)" "pins in step again"
	bw 0 detach "$BW_RX"
	[ ! -e "$pins" ] || fail "pins left after detach"
	assert_detached
}

# add sets bits in place: query and real traffic agree at once. It can only
# add to a family and length the running filter has a region for.
test_add()
{
	local l gen

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 1 add "$BW_RX" "$BW_C6"
	assert_line "$ERR" \
		"$BW_RX: the running filter has no IPv6 target length of /128 or longer, so $BW_C6 cannot be added without blocking more than it says; add it through 'bloomwall reload'" \
		"add to a missing region points to reload"
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l" "$(list a6.txt "$BW_A6")"
	gen=$(generation)
	expect_delivered "$BW_C4" "$BW_RX4"
	bw 0 add "$BW_RX" "$BW_C4" "$BW_C6"
	assert_line "$OUT" "$BW_C4  added" "add reports $BW_C4"
	assert_line "$OUT" \
		"$BW_RX: 2 of 2 added to filter generation $gen (now 4 entries)" \
		"add counts what it added"
	bw 0 query "$BW_RX" "$BW_C4" "$BW_C6"
	assert_line "$OUT" "$BW_C4  drop (in blocklist /32 region)" "added $BW_C4"
	assert_line "$OUT" "$BW_C6  drop (in blocklist /128 region)" "added $BW_C6"
	assert_eq "$(generation)" "$gen" "add must not swap the filter"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_C6" "$BW_RX6" dropped_v6
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	# A prefix goes in as the /32 keys that cover it (B4 is 10.77.0.3).
	bw 0 add "$BW_RX" 10.77.0.0/30
	assert_line "$OUT" "10.77.0.0/30  added (3 of its 4 keys at /32 were new)" \
		"a /30 is 4 keys at /32, A4 among them"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	bw 1 add "$BW_RX" 10.0.0.0/8
	assert_line "$ERR" \
		"$BW_RX: 10.0.0.0/8 would take 2^24 keys at the filter's IPv4 target length /32 (at most 65536 in place); add it through 'bloomwall reload'" \
		"a /8 is too many keys in place"
	# 256 keys in a filter sized for 2: grown by a rebuild with room.
	bw 0 add "$BW_RX" 10.77.1.0/24
	assert_grep "$OUT" \
		"^$BW_RX: this entry would take the filter's IPv4 addresses past its target false-positive rate \\(about [0-9.e+-]+% where it is sized for 0\\.1%\\): rebuilding it from its lists with room for the adds\$" \
		"256 keys in a filter sized for 2: add grows it"
	assert_line "$OUT" "$BW_RX: 1 of 1 added to filter generation $((gen + 1)), grown with room for the adds" \
		"the grown filter is the next generation"
	assert_eq "$(grep -c past "$ERR")" 0 "and is not past its target"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 0 query "$BW_RX" 10.77.1.7
	assert_line "$OUT" "10.77.1.7  drop (in blocklist /32 region)" "the /24 is in"
}

test_stdin_list()
{
	echo "+ (A4 and A6 on standard input) | bloomwall attach $BW_RX -"
	printf '%s\n' "$BW_A4" "$BW_A6" |
		"$BLOOMWALL" attach "$BW_RX" --mode native "${SEED[@]}" - ||
		fail "attach from standard input failed"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	expect_delivered "$BW_B4" "$BW_RX4"
}

# CRLF, '#' and ';' comments (whole-line and trailing), blank lines, ipsum's
# ADDR<TAB>count, several files at once. The unlisted B appears only inside
# comments, so a comment taken as an entry shows up as a drop.
test_list_formats()
{
	local crlf=$TMP_DIR/crlf.txt ipsum=$TMP_DIR/ipsum.txt

	printf '# hosts to block\r\n\r\n%s\r\n; %s\r\n%s ; SBL000 %s\r\n' \
		"$BW_A4" "$BW_B4" "$BW_A6" "$BW_B6" >"$crlf"
	printf '# ipsum\n# %s\t9\n%s\t3\n' "$BW_B4" "$BW_C4" >"$ipsum"
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$crlf" "$ipsum"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_delivered "$BW_B6" "$BW_RX6"
}

# Monitor mode counts hits and passes them; reload switches modes.
test_monitor()
{
	local l

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --monitor "$l"
	expect_monitored "$BW_A4" "$BW_RX4"
	bw 0 query "$BW_RX" "$BW_A4" "$BW_B4"
	assert_line "$OUT" "$BW_A4  pass (monitor mode: would drop)" \
		"query in monitor mode"
	assert_line "$OUT" "$BW_B4  pass" "query in monitor mode, unlisted"
	bw 0 reload "$BW_RX" "${SEED[@]}" --enforce "$l"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 reload "$BW_RX" "${SEED[@]}" --monitor "$l"
	expect_monitored "$BW_A4" "$BW_RX4"
	expect_delivered "$BW_B4" "$BW_RX4"
}

# --match dst tests the destination: listing the receiver's IPv4 address
# drops IPv4 from every source; IPv6 (receiver not listed) still passes.
test_match_dst()
{
	local l

	l=$(list dst.txt "$BW_RX4" "$BW_A6")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --match dst "$l"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" match "dst address" "status shows the match direction"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A6" "$BW_RX6"
	expect_delivered "$BW_B6" "$BW_RX6"
}

# Generic (skb) mode drops the same way; status says which mode runs.
test_skb_mode()
{
	local l

	l=$(list a.txt "$BW_A4" "$BW_A6")
	bw 0 attach "$BW_RX" --mode skb "${SEED[@]}" "$l"
	ip link show dev "$BW_RX" | grep -q xdpgeneric ||
		fail "ip link shows no xdpgeneric program on $BW_RX"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	expect_delivered "$BW_B4" "$BW_RX4"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "XDP mode" skb "status shows skb mode"
	# A reload replaces the program in skb mode too, and stays there.
	l=$(list b.txt "$BW_B4")
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l"
	ip link show dev "$BW_RX" | grep -q xdpgeneric ||
		fail "no xdpgeneric program on $BW_RX after reload"
	assert_eq "$(hook_prog_id)" "$(pinned_prog_id)" "the program on $BW_RX after reload"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"
	bw 0 detach "$BW_RX"
	assert_detached
}

# Real lists from tests/data: ipsum (ADDR<TAB>count, ~120k addresses) and
# an IPv6 list, with the test addresses on top. Entries from the start and
# the end of each file must be drops, and the traffic verdicts hold.
test_real_lists()
{
	local ipsum=$BW_DATA_DIR/ipv4/ipsum/ipsum.txt
	local tor=$BW_DATA_DIR/ipv6/openshield/tor-exit-nodes_ipv6.txt
	local l first4 last4 first6 last6

	if [ ! -r "$ipsum" ] || [ ! -r "$tor" ]; then
		skip "no test data at $BW_DATA_DIR (set BW_DATA_DIR)"
	fi
	l=$(list a.txt "$BW_A4" "$BW_A6")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$ipsum" "$tor" "$l"
	first4=$(grep -v '^#' "$ipsum" | head -n 1 | cut -f 1)
	last4=$(tail -n 1 "$ipsum" | cut -f 1)
	first6=$(grep -v '^#' "$tor" | head -n 1)
	last6=$(tail -n 1 "$tor")
	bw 0 query "$BW_RX" "$first4" "$last4" "$first6" "$last6"
	assert_line "$OUT" "$first4  drop (in blocklist /32 region)" "first IPv4"
	assert_line "$OUT" "$last4  drop (in blocklist /32 region)" "last IPv4"
	assert_line "$OUT" "$first6  drop (in blocklist /128 region)" "first IPv6"
	assert_line "$OUT" "$last6  drop (in blocklist /128 region)" "last IPv6"
	bw 0 status "$BW_RX"
	# 108,919 ipsum + 619 tor + 2 test addresses, all at full length.
	assert_kv "$OUT" "source prefixes" \
		"109540 -> 109540 entries (expansion x1.00)" \
		"status counts the real entries"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_delivered "$BW_B6" "$BW_RX6"
}

test_status()
{
	local l

	l=$(list a.txt "$BW_A4" "$BW_A6" "$BW_C4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^bloomwall on $BW_RX \\(ifindex [0-9]+\\)\$" \
		"status names the interface"
	assert_kv "$OUT" state attached "state"
	assert_kv "$OUT" generation 1 "first generation"
	assert_kv "$OUT" "XDP mode" native "XDP mode"
	assert_kv "$OUT" entries 3 "entries"
	assert_kv "$OUT" dropped_v4 3 "dropped counter"
	assert_kv "$OUT" dropped_v6 0 "dropped counter"
	# Every packet counts in exactly one of passed, dropped_v4, dropped_v6.
	assert_eq "$(kv "$OUT" packets)" \
		$(($(kv "$OUT" passed) + $(kv "$OUT" dropped_v4) + $(kv "$OUT" dropped_v6))) \
		"packets counter"
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l"
	assert_eq "$(generation)" 2 "generation after one reload"
	bw 0 status
	assert_grep "$OUT" "^bloomwall on $BW_RX \\(ifindex [0-9]+\\)\$" \
		"status without IFACE lists $BW_RX"
	assert_kv "$OUT" generation 2 "status without IFACE"
}

# The stats pin is readable with plain bpftool: BTF names every field.
test_stats_dump()
{
	local l f dump=$TMP_DIR/dump.txt

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bpftool map dump pinned "$BW_PIN_ROOT/$BW_RX/stats" >"$dump" ||
		fail "bpftool map dump pinned $BW_PIN_ROOT/$BW_RX/stats"
	for f in passed dropped_v4 dropped_v6 not_ip malformed \
		 monitored allowed false_pos no_filter; do
		assert_grep "$dump" "\"$f\": [0-9]+" "field $f in the dump"
	done
}

# The id of the filter map of the program $BW_RX's hook runs (the map
# named bw_filter among its maps), as bpftool says.
filter_map_id()
{
	local prog id

	prog=$(hook_prog_id)
	[ -n "$prog" ] || return 0
	for id in $(bpftool -j prog show id "$prog" | python3 -c 'import json, sys
print(" ".join(str(i) for i in json.load(sys.stdin).get("map_ids", [])))'); do
		if [ "$(bpftool -j map show id "$id" |
			python3 -c 'import json, sys; print(json.load(sys.stdin)["name"])')" = bw_filter ]; then
			echo "$id"
			return 0
		fi
	done
}

# The id of the pinned program, and of the XDP program on $BW_RX.
pinned_prog_id()
{
	bpftool prog show pinned "$BW_PIN_ROOT/$BW_RX/prog" 2>/dev/null |
		sed -nE 's/^([0-9]+): .*/\1/p'
}

hook_prog_id()
{
	ip -d link show dev "$BW_RX" |
		sed -nE '/prog\/xdp id /{s/.*prog\/xdp id ([0-9]+).*/\1/p;q}'
}

# Gone once the kernel has freed it: after the packets in flight (RCU).
assert_freed()
{
	local kind=$1 id=$2 tries=50

	while [ "$tries" -gt 0 ]; do
		tries=$((tries - 1))
		bpftool "$kind" show id "$id" >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	fail "the old $kind (id $id) is still there after a reload"
}

# A reload loads a program for the new filter and puts it on the hook in
# place of the old one; the old program and its filter are freed, not
# leaked; the pins name the new ones.
test_prog_swap()
{
	local l1 l2 prog1 prog2 map1 map2

	l1=$(list a.txt "$BW_A4")
	l2=$(list b.txt "$BW_B4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l1"
	prog1=$(pinned_prog_id)
	map1=$(filter_map_id)
	if [ -z "$prog1" ] || [ -z "$map1" ]; then
		fail "no program pinned, or no filter map among its maps"
	fi
	assert_eq "$(hook_prog_id)" "$prog1" "the program on $BW_RX"
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l2"
	prog2=$(pinned_prog_id)
	map2=$(filter_map_id)
	[ "$prog2" != "$prog1" ] || fail "reload kept program $prog1"
	[ "$map2" != "$map1" ] || fail "reload kept filter map $map1"
	assert_eq "$(hook_prog_id)" "$prog2" "the program on $BW_RX after reload"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd[0]["program"]["id"]')" "$prog2" \
		"status --json names the new program"
	assert_freed prog "$prog1"
	assert_freed map "$map1"
	expect_delivered "$BW_A4" "$BW_RX4"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
}

# The program id behind the pinned bpf_link.
link_prog_id()
{
	bpftool link show pinned "$BW_PIN_ROOT/$BW_RX/link" 2>/dev/null |
		sed -nE 's/.*prog ([0-9]+).*/\1/p' | head -n 1
}

# attach --link: bloomwall's own bpf_link; a reload swaps the program inside
# it (bpf_link_update), and detach takes the link down.
test_link_reload()
{
	local l1 l2 prog1 prog2

	l1=$(list a.txt "$BW_A4")
	l2=$(list b.txt "$BW_B4")
	bw 0 attach "$BW_RX" --mode native --link "${SEED[@]}" "$l1"
	[ -e "$BW_PIN_ROOT/$BW_RX/link" ] || fail "no link pinned"
	prog1=$(pinned_prog_id)
	[ -n "$prog1" ] || fail "no program pinned"
	assert_line "$OUT" \
		"$BW_RX: attached in native mode (bpf_link of bloomwall's own; libxdp: not used (--link)), program id $prog1" \
		"attach says how"
	assert_eq "$(link_prog_id)" "$prog1" "the link's program"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l2"
	prog2=$(pinned_prog_id)
	[ "$prog2" != "$prog1" ] || fail "reload kept program $prog1"
	assert_eq "$(link_prog_id)" "$prog2" "the link's program after reload"
	assert_eq "$(hook_prog_id)" "$prog2" "the program on $BW_RX after reload"
	assert_freed prog "$prog1"
	expect_delivered "$BW_A4" "$BW_RX4"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	bw 0 detach "$BW_RX"
	assert_detached
}

test_usage()
{
	local verb

	bw 2
	assert_line "$ERR" "Usage: bloomwall [-v] [-j] VERB [OPTIONS] ARGS..." \
		"no verb: the usage"
	bw 2 frobnicate
	assert_line "$ERR" "bloomwall: unknown verb 'frobnicate'" "unknown verb"
	for verb in attach reload status query add detach; do
		bw 0 "$verb" --help
		assert_grep "$OUT" "^Usage: bloomwall $verb [[A-Z]" "$verb --help"
	done
	bw 2 attach "$BW_RX"
	assert_line "$ERR" "bloomwall attach: missing arguments" "attach IFACE"
	bw 2 attach "$BW_RX" --mode bogus "$TMP_DIR/x"
	assert_line "$ERR" \
		"bloomwall: --mode must be native, skb or auto, not 'bogus'" \
		"--mode bogus"
	bw 2 attach "$BW_RX" --fpr 2 "$TMP_DIR/x"
	assert_line "$ERR" \
		"bloomwall: --fpr takes a false-positive rate between 0 and 0.5 exclusive (e.g. 0.001 or 0.1%), not '2'" \
		"--fpr 2"
	assert_detached
}

# Without root nothing happens: a clear sentence, exit 1, no pins, no XDP
# program; and an unprivileged detach leaves a running filter alone.
test_no_privileges()
{
	local l nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

	command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
	"${nobody[@]}" test -x "$BLOOMWALL" ||
		skip "$BLOOMWALL is not reachable for an unprivileged user"
	l=$(list a.txt "$BW_A4")
	chmod 755 "$TMP_DIR"
	chmod 644 "$l"
	for verb in "attach $BW_RX $l" "reload $BW_RX $l" "detach $BW_RX"; do
		# shellcheck disable=SC2086 # verb and arguments, split on purpose
		"${nobody[@]}" "$BLOOMWALL" $verb >"$OUT" 2>"$ERR"
		assert_eq "$?" 1 "unprivileged '$verb' exit status"
		assert_line "$ERR" \
			"bloomwall ${verb%% *}: needs CAP_SYS_ADMIN (missing) to open the running program and its maps by id, and CAP_NET_ADMIN (missing) to change the interface's XDP hook; try 'sudo bloomwall ${verb%% *} ...'" \
			"unprivileged '$verb' says why"
	done
	bw_has_xdp "$BW_RX" && fail "an unprivileged attach attached something"
	[ -e "$BW_PIN_ROOT/$BW_RX" ] && fail "an unprivileged attach pinned"
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	"${nobody[@]}" "$BLOOMWALL" detach "$BW_RX" >"$OUT" 2>"$ERR"
	assert_eq "$?" 1 "unprivileged detach of a running filter"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	assert_eq "$(generation)" 1 "generation after the refused verbs"
	bw 0 detach "$BW_RX"
	assert_detached
}

# Another XDP program on the interface: attach refuses and touches nothing,
# detach leaves it alone.
test_foreign_xdp()
{
	local obj=$TMP_DIR/pass.o l id

	printf '%s\n' \
		'__attribute__((section("xdp"), used)) int pass(void *c) { return 2; }' \
		'char _l[] __attribute__((section("license"), used)) = "GPL";' |
		clang -target bpf -O2 -c -x c - -o "$obj" ||
		skip "cannot build a test XDP program"
	ip link set dev "$BW_RX" xdpgeneric obj "$obj" sec xdp ||
		skip "ip cannot load an XDP object here"
	id=$(hook_prog_id)
	l=$(list a.txt "$BW_A4")
	bw 1 attach "$BW_RX" "${SEED[@]}" "$l"
	assert_line "$ERR" \
		"$BW_RX already has an XDP program that is not bloomwall's (id $id, 'pass'); bloomwall will not replace it. Remove it first, e.g. 'ip link set dev $BW_RX xdpgeneric off'." \
		"attach names the other program"
	bw_has_xdp "$BW_RX" || fail "the other XDP program was removed"
	[ -e "$BW_PIN_ROOT/$BW_RX" ] && fail "a refused attach left pins"
	expect_delivered "$BW_A4" "$BW_RX4"
	bw 1 detach "$BW_RX"
	assert_line "$ERR" "$(msg_detach_not_attached "$BW_RX")" \
		"detach of another program says bloomwall is not attached"
	bw_has_xdp "$BW_RX" || fail "detach removed the other XDP program"
	ip link set dev "$BW_RX" xdpgeneric off
}

# The interface is never without a filter: pings from a listed and an
# unlisted source run while the filter is swapped again and again between
# two lists that both hold the listed one. Not one listed request may get
# through, not one unlisted request may be lost.
test_reload_under_traffic()
{
	local l1 l2 pa pb before n=0 got

	l1=$(list a.txt "$BW_A4" 192.0.2.1)
	l2=$(list b.txt "$BW_A4" 192.0.2.2 192.0.2.3 2001:db8::2)
	bw 0 attach "$BW_RX" --seed 4242 "$l1"
	bw 0 query "$BW_RX" "$BW_B4"
	assert_line "$OUT" "$BW_B4  pass" "the unlisted source is no false positive"
	bw 0 reload "$BW_RX" --seed 4243 "$l2"
	bw 0 query "$BW_RX" "$BW_B4"
	assert_line "$OUT" "$BW_B4  pass" "the unlisted source is no false positive"
	before=$(bw_stat "$BW_RX" dropped_v4)
	ip netns exec "$BW_NS" ping -n -q -c 300 -i 0.005 -W 2 \
		-I "$BW_A4" "$BW_RX4" >"$TMP_DIR/ping_a" 2>&1 &
	pa=$!
	ip netns exec "$BW_NS" ping -n -q -c 300 -i 0.005 -W 2 \
		-I "$BW_B4" "$BW_RX4" >"$TMP_DIR/ping_b" 2>&1 &
	pb=$!
	while kill -0 "$pa" 2>/dev/null || kill -0 "$pb" 2>/dev/null; do
		"$BLOOMWALL" reload "$BW_RX" --seed $((4242 + n % 2)) \
			"$([ $((n % 2)) -eq 0 ] && echo "$l1" || echo "$l2")" \
			>/dev/null || fail "reload $n failed"
		n=$((n + 1))
	done
	wait "$pa" "$pb"
	echo "  $n reloads during the pings"
	[ "$n" -ge 5 ] || fail "only $n reloads overlapped the traffic"
	got=$(sed -nE 's/.* ([0-9]+) received.*/\1/p' "$TMP_DIR/ping_a")
	assert_eq "$got" 0 "replies to the listed source during reloads"
	got=$(sed -nE 's/.* ([0-9]+) received.*/\1/p' "$TMP_DIR/ping_b")
	assert_eq "$got" 300 "replies to the unlisted source during reloads"
	assert_eq $(($(bw_stat "$BW_RX" dropped_v4) - before)) 300 \
		"dropped_v4 counts every listed request"
	assert_eq "$(generation)" $((n + 2)) "one generation per reload"
}

# ----------------------------------------------------------------- runner
#
# The tests run in E2E_JOBS workers side by side (default 3: most tests
# wait on watches, timers and DNS more than they compute, so even two cores
# keep three busy). Each worker is this script again under its own
# `unshare -n -m`: its own network namespace, bpffs and /run/bloomwall, so
# one worker's interfaces, pins, locks, watch sockets and state files are
# never another's. A worker takes the next test from one queue, longest
# first, until none is left; it prints each test's lines in one piece when
# the test ends, so the output of two tests never mixes.

# Seconds of the slower tests: the longest in make test on this 2-core
# machine (e2e in 3 workers, 2026-12-05; the crash sweeps split since,
# estimated), the rest one by one shared with other work. Only their order
# matters: the queue hands the longest out first, so that none starts last
# while the other workers sit idle; a test with no time of its own in
# $E2E_TIMES is taken at its hint here, or at 5.
E2E_SECONDS="test_crash_sweep_cs=120 test_crash_sweep_watch=100
test_crash_sweep_watch_odd=90 test_crash_sweep_adds=89
test_crash_sweep=79 test_crash_sweep_allow=75 test_crash_sweep_egress=72
test_crash_sweep_live=58 test_cs_hostile_lapi=58 test_crash_sweep_load=52
test_crash_sweep_owner=45 test_fleet_pull=44 test_fleet_signed=39
test_adds_parallel=34 test_cs_resync_drift=32 test_cs_import_100k=27
test_crash_sweep_remove_live=41 test_json_attach_reload=36
test_prog_swap=36 test_fpr_estimate=30
test_reload_unreadable=28 test_crash_sweep_remove_live_names=25
test_watch_remove_in_place=25 test_adds_survive_reload=22
test_watch_rewrites=21 test_reload_under_load=20
test_cidr_lists=19 test_image_verify_allow=19 test_json_query_add=17
test_adds_race_reload=16 test_caps_verbs=16 test_cs_lapi_restart=16
test_adds_remove=15 test_allow_name_all_or_nothing=14
test_expiry_timeout=14 test_real_lists=14 test_sign_load=14
test_stats_verb=14 test_cidr_verify=13 test_cs_decisions=13
test_metrics_file=13 test_cs_ranges=12 test_json_allow=12
test_link_reload=12 test_image_load=11 test_reload_under_traffic=11
test_watch_lists=11 test_watch_live_expiry=11
test_cidr_allow_runtime=10 test_cs_expiry_offline=10
test_image_build_unprivileged=10 test_url_trickle=27"

setup()
{
	bw_isolate || { echo "e2e: cannot set up namespaces" >&2; return 1; }
	# What a watch keeps there (state file, its temporary, the socket) is
	# named by interface, and /run is the machine's: a worker's own.
	mkdir -m 0700 /run/bloomwall 2>/dev/null
	if ! mount -t tmpfs -o mode=0700 bwrun /run/bloomwall; then
		echo "e2e: cannot mount a private /run/bloomwall" >&2
		return 1
	fi
	# The runner's own files; each test has a TMP_DIR of its own.
	WORK_DIR=$(mktemp -d /tmp/bwe2e-worker.XXXXXX) || return 1
}

teardown()
{
	bw_topo_down
	[ -n "${TMP_DIR:-}" ] && rm -rf "$TMP_DIR"
	[ -n "${WORK_DIR:-}" ] && rm -rf "$WORK_DIR"
}

# Per test: a fresh pair, bpffs and TMP_DIR before, everything removed
# after. Prints "[name] PASS|FAIL|SKIPPED" (and the test's output on a
# failure or with V=1); returns the test's status.
run_test()
{
	local t=$1 log=$WORK_DIR/log rc left

	# Nothing an earlier test of this worker wrote is the next one's input,
	# whatever the order the queue hands them out in.
	TMP_DIR=$(mktemp -d /tmp/bwtest.XXXXXX) || {
		echo "[$t] FAIL (no temporary directory)"
		return 1
	}
	OUT=$TMP_DIR/stdout
	ERR=$TMP_DIR/stderr
	export TMP_DIR OUT ERR
	ls -A /run/bloomwall >"$WORK_DIR/run.before" 2>/dev/null
	bw_bpffs_reset
	if ! bw_topo_up bwtest >"$log" 2>&1; then
		rc=1
	else
		("$t") >>"$log" 2>&1
		rc=$?
	fi
	"$BLOOMWALL" detach "$BW_RX" >/dev/null 2>&1
	# A watch's lock directory outlives no test (its watch ended, or
	# detach cleared what a killed one left); nor what a watch keeps in
	# this worker's /run/bloomwall for this test's interface.
	left=$(comm -13 "$WORK_DIR/run.before" <(ls -A /run/bloomwall 2>/dev/null) |
		grep -F -- "$BW_RX" || true)
	if [ "$rc" = 0 ] && { compgen -G "$BW_PIN_ROOT/watch:*" >/dev/null || [ -n "$left" ]; }; then
		{
			echo "FAIL: left behind: $(cd "$BW_PIN_ROOT" && compgen -G 'watch:*') $left"
			# This worker's: the others run in other namespaces.
			pgrep -a --ns $$ --nslist net bloomwall
		} >>"$log"
		rc=1
	fi
	bw_topo_down
	rm -rf "$TMP_DIR"
	TMP_DIR=""
	case $rc in
	0) echo "[$t] PASS" ;;
	"$SKIPPED_TEST") echo "[$t] SKIPPED" ;;
	*) echo "[$t] FAIL" ;;
	esac
	if [ "$rc" -ne 0 ] || [ "${V:-0}" = 1 ]; then
		sed 's/^/    /' "$log"
	fi
	return $rc
}

# The next test of the queue ($E2E_DIR/queue, one name a line; the count
# taken in $E2E_DIR/next), or status 1 when none is left.
next_test()
{
	(
		local n t

		flock 9 || exit 1
		n=$(<"$E2E_DIR/next")
		t=$(sed -n "$((n + 1))p" "$E2E_DIR/queue")
		[ -n "$t" ] || exit 1
		echo $((n + 1)) >"$E2E_DIR/next"
		echo "$t"
	) 9>"$E2E_DIR/queue.lock"
}

# A worker, inside its namespaces: tests from the queue until it is empty.
# Each test's "STATUS SECONDS NAME" goes to $E2E_DIR/done.N.
worker()
{
	local t rc t0 block

	trap teardown EXIT
	setup || exit 1
	block=$WORK_DIR/block
	while t=$(next_test); do
		t0=$SECONDS
		run_test "$t" >"$block"
		rc=$?
		echo "$rc $((SECONDS - t0)) $t" >>"$E2E_DIR/done.$E2E_WORKER"
		flock "$E2E_DIR/print.lock" cat "$block"
	done
	exit 0
}

# The seconds each test that passed took when it last ran, "NAME SECONDS"
# a line (written at the end of every run): a test's own time comes
# first, the hints above only for a test not run here before.
E2E_TIMES=${E2E_TIMES:-${OUTPUT:-.output}/tests/e2e.seconds}
[[ $E2E_TIMES = /* ]] || E2E_TIMES=$TOP/$E2E_TIMES

# The names given, longest first by their last time, else E2E_SECONDS (in
# the order given among equals).
by_length()
{
	{
		[ -r "$E2E_TIMES" ] && sed 's/^/T /' "$E2E_TIMES"
		printf 'N %s\n' "$@"
	} | awk -v hints="$E2E_SECONDS" '
	BEGIN {
		n = split(hints, h, /[ \n]+/)
		for (i = 1; i <= n; i++)
			if (split(h[i], kv, "=") == 2)
				hint[kv[1]] = kv[2]
	}
	$1 == "T" { if (!($2 in last)) last[$2] = $3; next }
	{ print ($2 in last) ? last[$2] : ($2 in hint) ? hint[$2] : 5, $2 }' |
		sort -s -k1,1nr | cut -d ' ' -f 2
}

# This run's times of the tests that passed into $E2E_TIMES, the other
# tests' kept.
save_times()
{
	mkdir -p "$(dirname "$E2E_TIMES")" 2>/dev/null || return 0
	{
		awk '$1 == 0 { print $3, $2 }' "$E2E_DIR/done"
		cat "$E2E_TIMES" 2>/dev/null
	} | awk '!seen[$1]++' >"$E2E_TIMES.$$" && mv "$E2E_TIMES.$$" "$E2E_TIMES"
}

main()
{
	local t i rc jobs=${E2E_JOBS:-3} pids=() pass=0 failed=0 skipped=0
	local t0=$SECONDS

	# shellcheck disable=SC2086 # a list of names, split on purpose
	[ $# -gt 0 ] || set -- $ALL_TESTS
	# A name that is no test is a mistake: none runs, rather than the rest.
	for t in "$@"; do
		if ! declare -F "$t" >/dev/null || [[ $t != test_* ]]; then
			echo "e2e: no test named '$t' (the tests: ALL_TESTS in tests/e2e/run.sh)" >&2
			exit $EXIT_NO_MATCH
		fi
	done
	if ! [[ $jobs =~ ^[1-9][0-9]*$ ]]; then
		echo "e2e: E2E_JOBS is a number of workers (1 runs the tests one by one), not '$jobs'" >&2
		exit $EXIT_NO_MATCH
	fi
	[ "$jobs" -le $# ] || jobs=$#
	E2E_DIR=$(mktemp -d /tmp/bwe2e.XXXXXX) || { summary 0 1 0; exit 1; }
	trap 'rm -rf "$E2E_DIR"' EXIT
	trap 'kill "${pids[@]}" 2>/dev/null; exit 130' INT TERM
	by_length "$@" >"$E2E_DIR/queue"
	echo 0 >"$E2E_DIR/next"
	for ((i = 1; i <= jobs; i++)); do
		BW_UNSHARED=1 E2E_DIR=$E2E_DIR E2E_WORKER=$i unshare -n -m "$0" &
		pids+=($!)
	done
	wait "${pids[@]}"
	cat "$E2E_DIR"/done.* >"$E2E_DIR/done" 2>/dev/null
	while read -r rc _ t; do
		case $rc in
		0) pass=$((pass + 1)) ;;
		"$SKIPPED_TEST") skipped=$((skipped + 1)) ;;
		*) failed=$((failed + 1)) ;;
		esac
	done <"$E2E_DIR/done"
	# A test no worker finished (its worker could not set up, or died) fails.
	for t in "$@"; do
		if ! grep -qE " $t\$" "$E2E_DIR/done"; then
			echo "[$t] FAIL (not run to its end: its worker died, or none could set up)"
			failed=$((failed + 1))
		fi
	done
	# Where make test's time goes (its budget is some 15 minutes).
	for ((i = 1; i <= jobs; i++)); do
		awk -v w="$i" '{ n++; s += $2 }
			END { printf "e2e: worker %s: %d tests, %d s\n", w, n, s }' \
			"$E2E_DIR/done.$i" 2>/dev/null
	done
	save_times
	echo "e2e: $jobs workers, $((SECONDS - t0)) s"
	echo "e2e: the slowest (seconds): $(sort -k2,2rn "$E2E_DIR/done" |
		head -n 12 | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $3, $2 }')"
	summary $pass $failed $skipped
	[ $failed -eq 0 ]
}

if [ -n "${E2E_WORKER:-}" ]; then
	worker
fi
main "$@"
