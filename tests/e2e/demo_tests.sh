# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# make demo end to end: scripts/demo.sh run as make demo runs it (its own
# `unshare -n -m`, not the runner's namespaces), its lines checked, and
# nothing of it left behind: no temp file, no process (unbound), hence no
# namespace, veth or pin (they live in the demo's own namespaces, which go
# when its last process does). Once to the end, once interrupted (SIGINT)
# in the middle of its DNS half, with unbound running and bloomwall
# attached. Sourced by tests/e2e/run.sh, whose helpers (assert_line,
# assert_grep, assert_eq, fail, skip) they use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $DEMO_TESTS"

# shellcheck disable=SC2034 # read by run.sh
DEMO_TESTS="test_demo test_demo_interrupted"

# demo_prepare: the demo's own temp dir ($DEMO_TMP: it makes its bwdemo.*
# dir there) and its output files.
demo_prepare()
{
	local t

	for t in unbound dig setpriv clang; do
		command -v $t >/dev/null || skip "no $t (scripts/install-deps.sh)"
	done
	DEMO_TMP=$TMP_DIR/demo-tmp
	mkdir -p "$DEMO_TMP" || fail "cannot make $DEMO_TMP"
	DEMO_OUT=$TMP_DIR/demo.out
	DEMO_ERR=$TMP_DIR/demo.err
}

# demo_pid_of_unbound: the pid the demo printed for its unbound.
demo_unbound_pid()
{
	sed -nE 's/^  unbound [^ ]+, pid ([0-9]+);.*/\1/p' "$DEMO_OUT"
}

# assert_demo_gone UNBOUND_PID: nothing of the demo is left.
assert_demo_gone()
{
	local left

	[ -n "$1" ] || fail "the demo printed no pid for unbound"
	if [ -d "/proc/$1" ] && grep -q unbound "/proc/$1/comm" 2>/dev/null; then
		fail "unbound (pid $1) outlived the demo"
	fi
	left=$(pgrep -f -- "$DEMO_TMP")
	[ -z "$left" ] || fail "processes still name the demo's files: $left"
	left=$(ls -A "$DEMO_TMP")
	[ -z "$left" ] || fail "the demo left files behind: $left"
}

# The whole tour: both halves as the README shows them, exit 0.
test_demo()
{
	local rc

	demo_prepare
	env -u BW_UNSHARED TMPDIR="$DEMO_TMP" "$TOP/scripts/demo.sh" \
		>"$DEMO_OUT" 2>"$DEMO_ERR"
	rc=$?
	sed 's/^/  | /' "$DEMO_OUT"
	sed 's/^/  ! /' "$DEMO_ERR"
	assert_eq "$rc" 0 "the demo's exit status"
	[ -s "$DEMO_ERR" ] && fail "the demo wrote to stderr"
	# The address half.
	assert_grep "$DEMO_OUT" "^  DROPPED    $BW_A4 +-> $BW_RX4 +0/3 echo replies$" \
		"a listed IPv4 source dropped"
	assert_grep "$DEMO_OUT" "^  DELIVERED  $BW_B6 +-> $BW_RX6 +3/3 echo replies$" \
		"an unlisted IPv6 source delivered"
	# The DNS half: before the attach unbound answers a listed name ...
	assert_line "$DEMO_OUT" \
		"  ads.demo.test A: 192.0.2.81 from unbound (unbound logged the query, blocked_null stays 0)" \
		"without bloomwall unbound answers"
	# ... after it, bloomwall answers the listed ones (an exact entry, a
	# subtree, AAAA over IPv6), unbound the unlisted one.
	assert_line "$DEMO_OUT" \
		"  ads.demo.test A: 0.0.0.0 from bloomwall (blocked_null 0 -> 1, unbound logged no query)" \
		"a listed name answered 0.0.0.0 by bloomwall"
	assert_line "$DEMO_OUT" \
		"  eu.telemetry.demo.test A: 0.0.0.0 from bloomwall (blocked_null 1 -> 2, unbound logged no query)" \
		"a name under a subtree entry answered by bloomwall"
	assert_line "$DEMO_OUT" \
		"  tracker.demo.test AAAA: :: from bloomwall (blocked_null 2 -> 3, unbound logged no query)" \
		"AAAA over IPv6 answered :: by bloomwall"
	assert_line "$DEMO_OUT" "  ads.demo.test. 60 IN A 0.0.0.0" \
		"bloomwall's record, TTL 60"
	assert_line "$DEMO_OUT" \
		"  www.demo.test A: 192.0.2.80 from unbound (unbound logged the query, blocked_null stays 3)" \
		"an unlisted name answered by the resolver"
	assert_line "$DEMO_OUT" \
		"  www.demo.test AAAA: 2001:db8::80 from unbound (unbound logged the query, blocked_null stays 3)" \
		"an unlisted name over IPv6 answered by the resolver"
	assert_line "$DEMO_OUT" "  www.demo.test. 3600 IN A 192.0.2.80" \
		"unbound's record, its local data's TTL"
	# The DNS counters: the five queries after the attach, three answered.
	assert_grep "$DEMO_OUT" '^      queries +5$' "status: DNS queries"
	assert_grep "$DEMO_OUT" '^      blocked_null +3$' "status: blocked_null"
	assert_grep "$DEMO_OUT" '^  bloomwall_packets_total\{iface="bwr-[0-9a-f]+",verdict="drop",reason="dns",family="ipv4"\} 2$' \
		"stats: the IPv4 answers are DNS drops"
	assert_grep "$DEMO_OUT" '^  bloomwall_packets_total\{iface="bwr-[0-9a-f]+",verdict="drop",reason="dns",family="ipv6"\} 1$' \
		"stats: the IPv6 answer is a DNS drop"
	# unbound's own log since the attach: the two unlisted queries only.
	assert_eq "$(sed -n '/^== What unbound logged since the attach/,/^$/p' \
		"$DEMO_OUT" | grep -c 'demo\.test\. ')" 2 \
		"unbound logged only the unlisted queries"
	assert_line "$DEMO_OUT" "  unbound stopped" "the demo stops unbound"
	assert_line "$DEMO_OUT" \
		"Done. Everything this demo made goes away with its namespaces." \
		"the demo ran to its end"
	assert_demo_gone "$(demo_unbound_pid)"
}

# SIGINT (what Ctrl-C sends) in the middle of the DNS half: exit 130 and
# the same clean slate. A dig stand-in first in PATH holds the demo at its
# query for eu.telemetry.demo.test until the signal is sent, so the signal
# always lands there: bloomwall attached, unbound answering.
test_demo_interrupted()
{
	local pid rc n

	demo_prepare
	mkdir -p "$TMP_DIR/bin"
	cat >"$TMP_DIR/bin/dig" <<EOF
#!/bin/bash
case " \$* " in
*" eu.telemetry.demo.test "*)
	touch "$TMP_DIR/held"
	for ((n = 0; n < 600; n++)); do
		[ -e "$TMP_DIR/held" ] || break
		sleep 0.05
	done ;;
esac
exec $(command -v dig) "\$@"
EOF
	chmod +x "$TMP_DIR/bin/dig"
	# A background job of a script ignores SIGINT unless told otherwise.
	env --default-signal=INT -u BW_UNSHARED TMPDIR="$DEMO_TMP" \
		PATH="$TMP_DIR/bin:$PATH" "$TOP/scripts/demo.sh" \
		>"$DEMO_OUT" 2>"$DEMO_ERR" &
	pid=$!
	for ((n = 0; n < 600; n++)); do
		[ -e "$TMP_DIR/held" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	[ -e "$TMP_DIR/held" ] || {
		wait $pid
		sed 's/^/  | /' "$DEMO_OUT" "$DEMO_ERR"
		fail "the demo never reached its query for eu.telemetry.demo.test"
	}
	kill -INT $pid
	rm -f "$TMP_DIR/held"
	wait $pid
	rc=$?
	sed 's/^/  | /' "$DEMO_OUT"
	sed 's/^/  ! /' "$DEMO_ERR"
	assert_eq "$rc" 130 "the interrupted demo's exit status"
	assert_line "$DEMO_OUT" \
		"  ads.demo.test A: 0.0.0.0 from bloomwall (blocked_null 0 -> 1, unbound logged no query)" \
		"interrupted after bloomwall had answered"
	grep -q '^Done\.' "$DEMO_OUT" && fail "the demo ran to its end"
	assert_demo_gone "$(demo_unbound_pid)"
}
