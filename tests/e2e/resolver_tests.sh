# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# Domain blocklists end to end (issue 11): a real DNS server from Debian
# (unbound) answers on the receiver's veth, bloomwall on the same veth, and
# dig asks from the sender's namespace. A blocked name gets bloomwall's
# answer, built in XDP and sent back with XDP_TX; an unlisted or allowed
# name gets unbound's own. Sourced by tests/e2e/run.sh, whose helpers it
# uses (bw, list, assert_eq, assert_line, fail, skip, json).
#
# unbound serves the zone "test." from local data only: the namespaces have
# no route anywhere else, and nothing here asks for another name.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $RESOLVER_TESTS"

# shellcheck disable=SC2034 # read by tests/e2e/run.sh, which sources this
RESOLVER_TESTS="test_resolver_null test_resolver_actions
test_resolver_reload_flips test_resolver_allow test_resolver_allow_mixed
test_resolver_counters"

# The XDP_PASS program for the peer veth (tests/load/xdp_pass.bpf.c).
# (Sourced before run.sh checks BLOOMWALL: unset, it names no object.)
XDP_PASS_OBJ=${XDP_PASS_OBJ:-$(dirname "${BLOOMWALL:-./bloomwall}")/load/xdp_pass.bpf.o}

# What unbound answers for the test names when bloomwall lets them through.
RESOLVER_A=192.0.2.10
RESOLVER_AAAA=2001:db8::10

# resolver_start: unbound on $BW_RX4 and $BW_RX6 port 53, in the foreground
# of a background job, stopped when the test's subshell exits. Waits until
# it answers (bloomwall is not attached yet: nothing is blocked).
resolver_start()
{
	local conf=$TMP_DIR/unbound.conf n name

	command -v unbound >/dev/null || skip "no unbound (scripts/install-deps.sh)"
	command -v dig >/dev/null || skip "no dig (scripts/install-deps.sh)"
	[ -f "$XDP_PASS_OBJ" ] || skip "no $XDP_PASS_OBJ (make build-tests)"
	# An answer goes back with XDP_TX, into the peer veth's ring, which
	# exists only while the peer runs NAPI: with a native XDP program of
	# its own (what a container's veth needs for bloomwall's answers to
	# arrive; a NIC has no such condition).
	ip -n "$BW_NS" link set dev "$BW_TX" xdpdrv obj "$XDP_PASS_OBJ" sec xdp ||
		fail "cannot put an XDP_PASS program on $BW_TX"
	{
		cat <<EOF
server:
	interface: $BW_RX4
	interface: $BW_RX6
	port: 53
	access-control: 10.77.0.0/24 allow
	access-control: fd00:77::/64 allow
	do-daemonize: no
	chroot: ""
	username: ""
	directory: "$TMP_DIR"
	pidfile: "$TMP_DIR/unbound.pid"
	use-syslog: no
	logfile: "$TMP_DIR/unbound.log"
	verbosity: 1
	num-threads: 1
	so-reuseport: no
	harden-referral-path: no
	module-config: "iterator"
	local-zone: "test." static
EOF
		for name in blocked.test one.test two.test ads.test x.ads.test \
			deep.x.ads.test notads.test good.ads.test www.blocked.test \
			allowed.test; do
			printf '\tlocal-data: "%s. 60 IN A %s"\n' "$name" "$RESOLVER_A"
			printf '\tlocal-data: "%s. 60 IN AAAA %s"\n' "$name" "$RESOLVER_AAAA"
			printf '\tlocal-data: "%s. 60 IN TXT real"\n' "$name"
		done
		printf 'remote-control:\n\tcontrol-enable: no\n'
	} >"$conf"
	unbound -c "$conf" >"$TMP_DIR/unbound.out" 2>&1 &
	RESOLVER_PID=$!
	# shellcheck disable=SC2064 # the pid is known now
	trap "kill $RESOLVER_PID 2>/dev/null; wait $RESOLVER_PID 2>/dev/null" EXIT
	for ((n = 0; n < 100; n++)); do
		[ "$(ask A allowed.test)" = "NOERROR $RESOLVER_A" ] && return 0
		kill -0 "$RESOLVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$TMP_DIR/unbound.out" "$TMP_DIR/unbound.log" 2>/dev/null
	fail "unbound did not start answering on $BW_RX4"
}

# ask TYPE NAME [SERVER]: one query from the sender's namespace, no retry;
# prints "RCODE ANSWER..." (the answer section's data, space separated),
# or "timeout".
ask()
{
	local out

	out=$(ip netns exec "$BW_NS" dig +tries=1 +timeout=1 \
		@"${3:-$BW_RX4}" "$2" "$1" 2>&1)
	if grep -q "timed out\|no servers could be reached" <<<"$out"; then
		echo timeout
		return
	fi
	echo "$(sed -nE 's/.*status: ([A-Z]+),.*/\1/p' <<<"$out")$(
		awk '/^;; ANSWER SECTION:/ { a = 1; next } /^$/ { a = 0 }
			a && !/^;/ { printf " %s", $5 }' <<<"$out")"
}

# ask_full TYPE NAME [SERVER]: dig's whole output, for field checks.
ask_full()
{
	ip netns exec "$BW_NS" dig +tries=1 +timeout=1 @"${3:-$BW_RX4}" "$2" "$1"
}

# expect_answer WANT TYPE NAME [SERVER]
expect_answer()
{
	local got

	got=$(ask "$2" "$3" "${4:-}")
	echo "  dig $2 $3 @${4:-$BW_RX4}: $got"
	assert_eq "$got" "$1" "answer to $2 $3"
}

# dns_stat FIELD [INDEX]: a DNS counter of $BW_RX summed over CPUs, through
# bpftool and the BTF field names, as an operator reads it.
dns_stat()
{
	bpftool -j map dump pinned "$BW_PIN_ROOT/$BW_RX/dns_stats" |
		python3 -c 'import json, sys
f, i = sys.argv[1], sys.argv[2]
s = 0
for e in json.load(sys.stdin):
    for v in e.get("formatted", e)["values"]:
        x = v["value"][f]
        s += x[int(i)] if i else x
print(s)' "$1" "${2:-}"
}

# Default action (NULL): A and AAAA get the unspecified address, other types
# NODATA; exact entries block only themselves, subtree entries everything
# under them, at label boundaries only; IPv6 transport too.
test_resolver_null()
{
	local l out

	resolver_start
	l=$(list names.txt "blocked.test" "*.ads.test")
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	expect_answer "NOERROR 0.0.0.0" A blocked.test
	expect_answer "NOERROR ::" AAAA blocked.test
	expect_answer "NOERROR" TXT blocked.test
	expect_answer "NOERROR $RESOLVER_A" A www.blocked.test
	expect_answer "NOERROR 0.0.0.0" A ads.test
	expect_answer "NOERROR 0.0.0.0" A x.ads.test
	expect_answer "NOERROR 0.0.0.0" A deep.x.ads.test
	expect_answer "NOERROR $RESOLVER_A" A notads.test
	expect_answer "NOERROR $RESOLVER_A" A allowed.test
	expect_answer "NOERROR 0.0.0.0" A BlOcKeD.TeSt
	expect_answer "NOERROR ::" AAAA x.ads.test "$BW_RX6"
	expect_answer "NOERROR $RESOLVER_AAAA" AAAA allowed.test "$BW_RX6"
	# The answer's header and record, as dig decodes them.
	out=$(ask_full A blocked.test)
	grep -qE '^;; flags: qr rd ra; QUERY: 1, ANSWER: 1, AUTHORITY: 0, ADDITIONAL: 0$' \
		<<<"$out" || fail "flags and counts of the NULL answer: $out"
	grep -qE '^blocked\.test\.[[:space:]]+[0-9]+[[:space:]]+IN[[:space:]]+A[[:space:]]+0\.0\.0\.0$' \
		<<<"$out" || fail "the NULL answer's record: $out"
}

# Every action, switched by reload: NXDOMAIN, REFUSED, and drop (no answer
# at all: dig times out).
test_resolver_actions()
{
	local l

	resolver_start
	l=$(list names.txt "blocked.test")
	bw 0 attach "$BW_RX" "${SEED[@]}" --dns-action nxdomain "$l"
	expect_answer "NXDOMAIN" A blocked.test
	expect_answer "NOERROR $RESOLVER_A" A allowed.test
	bw 0 reload "$BW_RX" "${SEED[@]}" --dns-action refused "$l"
	expect_answer "REFUSED" A blocked.test
	expect_answer "REFUSED" AAAA blocked.test "$BW_RX6"
	bw 0 reload "$BW_RX" "${SEED[@]}" --dns-action drop "$l"
	expect_answer "timeout" A blocked.test
	expect_answer "NOERROR $RESOLVER_A" A allowed.test
	bw 0 reload "$BW_RX" "${SEED[@]}" --dns-action null "$l"
	expect_answer "NOERROR 0.0.0.0" A blocked.test
}

# A reload from one domain list to another flips the answers.
test_resolver_reload_flips()
{
	local one two

	resolver_start
	one=$(list one.txt "one.test")
	two=$(list two.txt "two.test")
	bw 0 attach "$BW_RX" "${SEED[@]}" "$one"
	expect_answer "NOERROR 0.0.0.0" A one.test
	expect_answer "NOERROR $RESOLVER_A" A two.test
	bw 0 reload "$BW_RX" "${SEED[@]}" "$two"
	expect_answer "NOERROR $RESOLVER_A" A one.test
	expect_answer "NOERROR 0.0.0.0" A two.test
	bw 0 reload "$BW_RX" "${SEED[@]}" "$one"
	expect_answer "NOERROR 0.0.0.0" A one.test
	expect_answer "NOERROR $RESOLVER_A" A two.test
}

# The name allowlist wins over a block: an adblock @@ line in the list, a
# name given with allow at run time.
test_resolver_allow()
{
	local l

	resolver_start
	l=$(list names.txt '||ads.test^' '@@||good.ads.test^')
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	expect_answer "NOERROR 0.0.0.0" A x.ads.test
	expect_answer "NOERROR $RESOLVER_A" A good.ads.test
	bw 0 allow "$BW_RX" x.ads.test
	expect_answer "NOERROR $RESOLVER_A" A x.ads.test
	expect_answer "NOERROR 0.0.0.0" A deep.x.ads.test
	bw 0 unallow "$BW_RX" x.ads.test
	expect_answer "NOERROR 0.0.0.0" A x.ads.test
}

# One allow takes addresses and names together, one unallow takes them
# out: a listed address's pings and a blocked name's queries pass after
# it, and are dropped again after. dig asks from $BW_A4 (the sender's
# first address), which is not listed; $BW_B4 is. An entry that is wrong
# refuses the whole command before anything changes.
test_resolver_allow_mixed()
{
	local l p0

	resolver_start
	l=$(list mixed.txt "$BW_B4" '||ads.test^')
	bw 0 attach "$BW_RX" "${SEED[@]}" --dns-action drop "$l"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_answer "timeout" A x.ads.test
	expect_answer "NOERROR $RESOLVER_A" A allowed.test
	p0=$(hook_prog_id)
	bw 2 allow "$BW_RX" x.ads.test "$BW_B4" 10.77.0.3/24
	assert_line "$ERR" \
		"bloomwall allow: host bits set in \"10.77.0.3/24\" (did you mean 10.77.0.0/24?)" \
		"a wrong entry is said"
	assert_eq "$(hook_prog_id)" "$p0" "a refused command swaps nothing"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_answer "timeout" A x.ads.test
	bw 0 allow "$BW_RX" "$BW_B4" x.ads.test
	assert_line "$OUT" "$BW_B4  allowed" "the address, in the order given"
	assert_line "$OUT" "x.ads.test  allowed" "the name"
	assert_line "$OUT" \
		"$BW_RX: 2 of 2 added (allowlist now 1 entry, name allowlist now 1 entry)" \
		"both allowlists counted"
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_answer "NOERROR $RESOLVER_A" A x.ads.test
	expect_answer "timeout" A deep.x.ads.test
	bw 0 -j unallow "$BW_RX" x.ads.test "$BW_B4"
	assert_eq "$(json "$OUT" '[d["addresses"], d["names"], d["removed"], d["total"], d["allowlist_entries"], d["name_allowlist_entries"]]')" \
		"[[{\"address\":\"$BW_B4\",\"result\":\"removed\"}],[{\"name\":\"x.ads.test\",\"result\":\"removed\"}],2,2,0,0]" \
		"unallow of both: JSON"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_answer "timeout" A x.ads.test
	expect_answer "NOERROR $RESOLVER_A" A allowed.test
}

# The DNS counters move by exactly the queries sent: dig's one query each
# (+tries=1), blocked ones by their action.
test_resolver_counters()
{
	local l q0 b0 i

	resolver_start
	l=$(list names.txt "blocked.test")
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	q0=$(dns_stat queries)
	b0=$(dns_stat blocked 0)
	for ((i = 0; i < 5; i++)); do
		expect_answer "NOERROR 0.0.0.0" A blocked.test
	done
	for ((i = 0; i < 3; i++)); do
		expect_answer "NOERROR $RESOLVER_A" A allowed.test
	done
	assert_eq $(($(dns_stat queries) - q0)) 8 "queries tested"
	assert_eq $(($(dns_stat blocked 0) - b0)) 5 "queries answered NULL"
}
