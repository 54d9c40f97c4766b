# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of jumbo frames and of --mode auto's fallback. Sourced
# by tests/e2e/run.sh, whose helpers they use (bw, list, fail, assert_eq,
# assert_line, assert_kv, expect_delivered, bw_ping, bw_stat, bw_has_xdp)
# on its topology: bloomwall on $BW_RX (10.77.0.1/24, fd00:77::1/64), pings
# from the sender's A, B and C addresses (10.77.0.2 .3 .4, fd00:77::2 ::3
# ::4).
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $MTU_TESTS"

# shellcheck disable=SC2034 # read by tests/e2e/run.sh, which sources this
MTU_TESTS="test_mtu_jumbo test_mtu_auto_fallback"

# A ping payload that makes 8,042-byte (IPv4) and 8,062-byte (IPv6)
# frames: more than a page, so the program sees them in several buffers.
MTU_PING_SIZE=8000

# mtu_ping SRC DST: like bw_ping, with $MTU_PING_SIZE bytes of payload
# and fragmentation forbidden, so that each request is one jumbo frame.
mtu_ping()
{
	local out

	out=$(ip netns exec "$BW_NS" ping -n -q -c 3 -i 0.05 -W 1 -M "do" \
		-s $MTU_PING_SIZE -I "$1" "$2" 2>&1)
	sed -nE 's/.* ([0-9]+) (packets )?received.*/\1/p' <<<"$out" |
		head -n 1 | grep . || echo "no ping summary: $(head -n 1 <<<"$out")"
}

# mtu_expect IFACE SRC DST REPLIES COUNTER DELTA: REPLIES of 3 large
# requests come back; COUNTER (a dropped_*) of IFACE rises by exactly
# DELTA, passed by at least the delivered requests (the kernel's own MLD
# from link-local addresses passes too), and not one frame is counted
# malformed (what a length check against the first buffer alone made of
# every jumbo frame).
mtu_expect()
{
	local c0 c1 m0 m1 p0 p1 n

	c0=$(bw_stat "$1" "$5")
	m0=$(bw_stat "$1" malformed)
	p0=$(bw_stat "$1" passed)
	n=$(mtu_ping "$2" "$3")
	c1=$(bw_stat "$1" "$5")
	m1=$(bw_stat "$1" malformed)
	p1=$(bw_stat "$1" passed)
	echo "  ping -s $MTU_PING_SIZE $2 -> $3: $n/3 replies, $5 $c0 -> $c1, passed $p0 -> $p1, malformed $m0 -> $m1"
	assert_eq "$n" "$4" "replies to large pings from $2"
	assert_eq $((c1 - c0)) "$6" "$5 of large pings from $2"
	[ $((p1 - p0)) -ge "$4" ] ||
		fail "passed rose by $((p1 - p0)), not by the $4 delivered"
	assert_eq $((m1 - m0)) 0 "large frames counted as malformed"
}

# A veth pair at MTU 9000 at both ends. The default mode (auto) attaches
# in native mode without a word about a fallback, as does --mode native;
# large pings from a listed source are dropped, from an unlisted one
# delivered, both families, counted exactly.
test_mtu_jumbo()
{
	local l

	ip link set dev "$BW_RX" mtu 9000 || fail "cannot set MTU 9000 on $BW_RX"
	ip -n "$BW_NS" link set dev "$BW_TX" mtu 9000 ||
		fail "cannot set MTU 9000 on $BW_TX"
	l=$(list a.txt "$BW_A4" "$BW_A6")
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	[ -s "$ERR" ] && fail "attach at MTU 9000 printed a warning"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "XDP mode" native "auto mode at MTU 9000 is native"
	bw 0 detach "$BW_RX"

	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	ip link show dev "$BW_RX" | grep -qw xdp ||
		fail "ip link shows no native XDP program on $BW_RX"
	mtu_expect "$BW_RX" "$BW_A4" "$BW_RX4" 0 dropped_v4 3
	mtu_expect "$BW_RX" "$BW_B4" "$BW_RX4" 3 dropped_v4 0
	mtu_expect "$BW_RX" "$BW_A6" "$BW_RX6" 0 dropped_v6 3
	mtu_expect "$BW_RX" "$BW_B6" "$BW_RX6" 3 dropped_v6 0
	# Small frames as before.
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
}

# An interface without native XDP (a bridge: the dummy driver is not in
# this kernel): --mode native fails and says why; the default mode falls
# back to skb mode and says why in one line, with the kernel's reason.
# The receiver's end of the pair is the bridge's port, so the filter on
# the bridge sees the pings; a reload keeps skb mode.
test_mtu_auto_fallback()
{
	local br=bwb-$BW_ID l

	ip link add "$br" address "$BW_MAC_RX" type bridge ||
		skip "cannot create a bridge here"
	# shellcheck disable=SC2064 # the name now, not at exit
	trap "ip link del dev $br 2>/dev/null" EXIT
	ip link set dev "$BW_RX" master "$br" || fail "cannot enslave $BW_RX"
	ip addr del "$BW_RX4/24" dev "$BW_RX"
	ip addr add "$BW_RX4/24" dev "$br"
	ip neigh replace "$BW_A4" lladdr "$BW_MAC_TX" nud permanent dev "$br"
	ip neigh replace "$BW_B4" lladdr "$BW_MAC_TX" nud permanent dev "$br"
	ip link set dev "$br" up || fail "cannot bring $br up"
	expect_delivered "$BW_A4" "$BW_RX4"

	l=$(list a.txt "$BW_A4")
	bw 1 attach "$br" --mode native "${SEED[@]}" "$l"
	assert_line "$ERR" \
		"$br: cannot attach the XDP program (libxdp: Operation not supported; plain attach: not supported by this kernel or driver; try --mode skb)" \
		"--mode native names the refusal"
	assert_line "$ERR" "$br: nothing attached" "attach says it did nothing"
	bw_has_xdp "$br" && fail "a refused attach left an XDP program on $br"

	bw 0 attach "$br" "${SEED[@]}" "$l"
	assert_line "$ERR" \
		"$br: native XDP refused (Underlying driver does not support XDP in native mode); attached in skb mode" \
		"auto mode says why it fell back, in the kernel's words"
	assert_eq "$(wc -l <"$ERR")" 1 "one line about the fallback"
	ip link show dev "$br" | grep -q xdpgeneric ||
		fail "ip link shows no xdpgeneric program on $br"
	bw 0 status "$br"
	assert_kv "$OUT" "XDP mode" skb "status shows skb mode"
	mtu_small_expect "$br" "$BW_A4" 0 3
	mtu_small_expect "$br" "$BW_B4" 3 0

	l=$(list b.txt "$BW_B4")
	bw 0 reload "$br" "${SEED[@]}" "$l"
	ip link show dev "$br" | grep -q xdpgeneric ||
		fail "no xdpgeneric program on $br after reload"
	mtu_small_expect "$br" "$BW_B4" 0 3
	mtu_small_expect "$br" "$BW_A4" 3 0
	bw 0 detach "$br"
	bw_has_xdp "$br" && fail "an XDP program is still on $br"
	return 0
}

# mtu_small_expect IFACE SRC REPLIES DELTA: 3 plain pings from SRC to the
# receiver, REPLIES come back, dropped_v4 of IFACE rises by exactly DELTA.
mtu_small_expect()
{
	local c0 c1 n

	c0=$(bw_stat "$1" dropped_v4)
	n=$(bw_ping "$2" "$BW_RX4")
	c1=$(bw_stat "$1" dropped_v4)
	echo "  ping $2 -> $BW_RX4: $n/3 replies, dropped_v4 $c0 -> $c1"
	assert_eq "$n" "$3" "replies to pings from $2"
	assert_eq $((c1 - c0)) "$4" "dropped_v4 of pings from $2"
}
