# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of CIDR lists, the allowlist and verify mode. Sourced by
# tests/e2e/run.sh, whose helpers they use (bw, list, expect_dropped,
# expect_delivered, assert_line, assert_kv, assert_grep, assert_eq, json,
# fail, skip) on its topology:
# bloomwall on $BW_RX (10.77.0.1/24, fd00:77::1/64), pings from the sender's
# A, B and C addresses (10.77.0.2 .3 .4, fd00:77::2 ::3 ::4).
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $CIDR_TESTS"

# shellcheck disable=SC2034 # read by tests/e2e/run.sh, which sources this
CIDR_TESTS="test_cidr_lists test_cidr_host_bits test_cidr_allow_file
test_cidr_allow_runtime test_cidr_verify test_cidr_level1_verify"

# Prefixes and ranges, both families, several lengths: /30 holds A and B,
# not C; the others keep more than one target length in play.
test_cidr_lists()
{
	local l1 l2 l3 v6

	# A target length is kept only where it saves over 4096 keys: the /30
	# expands to four /32 keys, the /15 to 128 /22 keys.
	l1=$(list cidr.txt "10.77.0.0/30" "198.51.100.0/22" "203.0.113.9" \
		"198.18.0.0/15" \
		"fd00:77::/126" "2001:db8::/32" "2001:db9:1:2::/64")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l1"
	assert_grep "$OUT" \
		"^$BW_RX: filter generation 1: 7 prefixes \\(0 duplicates removed, 0 lines skipped\\), 7 after merging, 137 entries at target lengths IPv4 /32 /22, IPv6 /126 /64 /32 \\(x19\\.57\\), [0-9]+ blocks \\([0-9]+ bytes\\), [0-9-]+ probes per key, target fpr 0\\.1%\$" \
		"the summary counts the prefixes and names the target lengths"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	expect_dropped "$BW_B6" "$BW_RX6" dropped_v6
	expect_delivered "$BW_C6" "$BW_RX6"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "target lengths IPv4" "/32 /22" "status: IPv4 targets"
	assert_kv "$OUT" "target lengths IPv6" "/126 /64 /32" "status: IPv6 targets"
	assert_kv "$OUT" "source prefixes" "7 -> 137 entries (expansion x19.57)" \
		"status: expansion factor (1 + 4 + 1 + 128 + 3 keys)"

	# One IPv4 target length: the /22 and the /15 expand to /32 keys too.
	bw 0 reload "$BW_RX" "${SEED[@]}" --max-lengths 1,3 "$l1"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "target lengths IPv4" "/32" "--max-lengths 1,3"
	assert_kv "$OUT" "source prefixes" \
		"7 -> 132104 entries (expansion x18872.00)" \
		"1 + 4 + 1024 + 131072 + 3 keys"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_C4" "$BW_RX4"

	# One IPv6 length would turn 2001:db8::/32 into 2^94 keys: refused,
	# naming the culprit, and the running filter stays.
	bw 1 reload "$BW_RX" "${SEED[@]}" --max-lengths 1 "$l1"
	assert_line "$ERR" \
		"  1 prefixes of /32 (e.g. 2001:db8::/32) -> 18446744073709551615 keys of /126" \
		"the error names the costly prefix"
	assert_line "$ERR" \
		"  raise --max-lengths (now 1, at most 4), or remove or split the short prefixes above, or use fewer lists" \
		"the error says what to do"
	assert_line "$ERR" \
		"$BW_RX: nothing changed: the running filter (generation 2) is as it was" \
		"reload says nothing changed"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4

	# A range (only C) and a Spamhaus line with its SBL comment (A6).
	l2=$(list range.txt "10.77.0.4-10.77.0.7" "fd00:77::2/128 ; SBL123")
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l2"
	expect_delivered "$BW_A4" "$BW_RX4"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	expect_delivered "$BW_B6" "$BW_RX6"

	# A /16 and a /0 for IPv6: everything goes, with a warning for the /0.
	l3=$(list wide.txt "10.77.0.0/16" "::/0")
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l3"
	assert_line "$ERR" \
		"warning: $BW_RX: the lists hold ::/0: the filter drops every IPv6 packet" \
		"a /0 is warned about"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	# ::/0 also drops the kernel's own IPv6 on the link (MLD reports and
	# solicitations from link-local sources), which may fall within the
	# ping: the three requests at least.
	v6=$(bw_stat "$BW_RX" dropped_v6)
	assert_eq "$(bw_ping "$BW_C6" "$BW_RX6")" 0 "IPv6 under ::/0 is dropped"
	v6=$(($(bw_stat "$BW_RX" dropped_v6) - v6))
	echo "  ping $BW_C6 -> $BW_RX6 under ::/0: dropped_v6 +$v6"
	[ "$v6" -ge 3 ] || fail "dropped_v6 rose by $v6 under ::/0, not the 3 requests at least"
	bw 2 reload "$BW_RX" --max-lengths 5 "$l3"
	assert_line "$ERR" \
		"bloomwall: --max-lengths takes N or N,M (IPv4,IPv6), each from 1 to 4, not '5'" \
		"--max-lengths 5"
}

# Host bits below the length: an error with file:line and nothing changes,
# or masked with a warning under --mask-host-bits.
test_cidr_host_bits()
{
	local l

	l=$(list host.txt "# header" "10.77.0.3/30")
	bw 1 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	assert_line "$ERR" \
		"$l:2: host bits set in \"10.77.0.3/30\" (did you mean 10.77.0.0/30?)" \
		"file:line and the prefix meant"
	assert_line "$ERR" "$BW_RX: nothing attached" "attach says it did nothing"
	assert_detached
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --mask-host-bits "$l"
	assert_line "$ERR" \
		"$l:2: host bits set in \"10.77.0.3/30\", using 10.77.0.0/30" \
		"the masked prefix is a warning with file:line"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_C4" "$BW_RX4"
}

# --allow on attach: A inside the blocked /24 and /64 is delivered and
# counted in `allowed`; B is still dropped. A reload keeps the allowlist.
test_cidr_allow_file()
{
	local l a before

	l=$(list block.txt "10.77.0.0/24" "fd00:77::/64")
	a=$(list allow.txt "$BW_A4" "$BW_A6")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --allow "$a" "$l"
	assert_line "$OUT" "$BW_RX: allowlist: 2 entries" \
		"attach reports the allowlist"
	before=$(bw_stat "$BW_RX" allowed)
	expect_delivered "$BW_A4" "$BW_RX4"
	expect_delivered "$BW_A6" "$BW_RX6"
	assert_eq $(($(bw_stat "$BW_RX" allowed) - before)) 6 \
		"allowed counts the 6 allowlisted requests"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_B6" "$BW_RX6" dropped_v6
	bw 0 query "$BW_RX" "$BW_A4" "$BW_B4"
	assert_line "$OUT" "$BW_A4  pass (allowlisted)" "query: allowlisted"
	assert_line "$OUT" "$BW_B4  drop (in blocklist /24 region)" "query: blocked"
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l"
	expect_delivered "$BW_A4" "$BW_RX4"
	# --allow on reload replaces it: now B, not A.
	bw 0 reload "$BW_RX" "${SEED[@]}" --allow "$(list allow2.txt "$BW_B4")" "$l"
	assert_line "$OUT" "$BW_RX: allowlist replaced: 1 entry (1 added, 2 removed)" \
		"reload --allow replaces the allowlist"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	bw 1 reload "$BW_RX" --allow "$(list bad.txt "10.77.0.3/24")" "$l"
	assert_line "$ERR" \
		"$TMP_DIR/bad.txt:1: host bits set in \"10.77.0.3/24\" (did you mean 10.77.0.0/24?)" \
		"a bad allowlist line"
	assert_line "$ERR" "$BW_RX: the allowlist is not usable; nothing changed" \
		"reload says nothing changed"
	expect_delivered "$BW_B4" "$BW_RX4"
}

# allow/unallow change real traffic at run time, in place. The program reads
# the filter's flags as constants. Every change is a new trie that goes in
# with a new program, in one swap; a command that changes nothing keeps it.
test_cidr_allow_runtime()
{
	local l gen p0 p1 p2

	l=$(list block.txt "10.77.0.0/24" "fd00:77::/64")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	gen=$(generation)
	p0=$(hook_prog_id)
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	bw 0 allow "$BW_RX" "$BW_B4" "fd00:77::/126"
	assert_line "$OUT" "$BW_B4  allowed" "allow reports each entry"
	assert_line "$OUT" "$BW_RX: 2 of 2 added (allowlist now 2 entries)" \
		"allow counts the entries"
	p1=$(hook_prog_id)
	if [ -z "$p1" ] || [ "$p1" = "$p0" ]; then
		fail "an allowlist change loads the program again: $p0 -> '$p1'"
	fi
	assert_eq "$(pinned_prog_id)" "$p1" "the pin names the new program"
	bpftool map dump pinned "$BW_PIN_ROOT/$BW_RX/allow" >"$TMP_DIR/allow.dump" ||
		fail "bpftool map dump of the allowlist"
	assert_grep "$TMP_DIR/allow.dump" '"prefixlen": 158' \
		"bpftool shows the allowlist's keys by field (BTF)"
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_delivered "$BW_B6" "$BW_RX6"
	expect_dropped "$BW_C6" "$BW_RX6" dropped_v6
	bw 0 allow "$BW_RX" "$BW_B4"
	assert_line "$OUT" "$BW_B4  already allowed" "allowing twice says so"
	assert_line "$OUT" "$BW_RX: 0 of 1 added (allowlist now 2 entries)" \
		"allowing twice adds nothing"
	assert_eq "$(hook_prog_id)" "$p1" "nothing added: the program stays"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" allowlist "2 entries" "status counts the allowlist"
	bw 0 unallow "$BW_RX" "$BW_B4"
	assert_line "$OUT" "$BW_RX: 1 of 1 removed (allowlist now 1 entry)" \
		"unallow counts what it removed"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	p2=$(hook_prog_id)
	if [ -z "$p2" ] || [ "$p2" = "$p1" ]; then
		fail "unallow swaps in a program with the new allowlist: $p1 -> '$p2'"
	fi
	bw 1 unallow "$BW_RX" "$BW_B4"
	assert_line "$OUT" "$BW_B4  not in the allowlist" "unallow of an absent entry"
	assert_line "$ERR" \
		"$BW_RX: 1 of 1 entries were not in the allowlist (an entry is removed with the prefix it was added with; 'bloomwall status $BW_RX' counts them)" \
		"unallow of an absent entry says why"
	bw 2 allow "$BW_RX" 10.77.0.3/24
	assert_line "$ERR" \
		"bloomwall allow: host bits set in \"10.77.0.3/24\" (did you mean 10.77.0.0/24?)" \
		"allow refuses host bits"
	bw 2 allow "$BW_RX"
	assert_line "$ERR" "bloomwall allow: missing arguments" "allow IFACE"
	bw 0 unallow "$BW_RX" "fd00:77::/126"
	[ "$(hook_prog_id)" != "$p2" ] ||
		fail "the last entry out loads the program again: still $p2"
	expect_dropped "$BW_B6" "$BW_RX6" dropped_v6
	assert_eq "$(generation)" "$gen" "allow/unallow do not swap the filter"
}

# --verify: status shows it and the exact trie; a reload without it is off.
test_cidr_verify()
{
	local l id

	l=$(list v.txt "10.77.0.2/31" "198.51.100.0/22" "fd00:77::2/127")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --verify "$l"
	assert_line "$OUT" "$BW_RX: verify mode: exact trie of 3 prefixes" \
		"attach builds the trie"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" verify "on (exact trie in slot 0: 3 prefixes)" \
		"status: verify on, exact entries"
	assert_kv "$OUT" "measured false pos." \
		"0 (Bloom hits the exact trie refused)" "status: measured fp"
	assert_grep "$OUT" "^    memory exact trie +[1-9][0-9]* bytes\$" \
		"status: trie memory"
	assert_grep "$OUT" "^    memory filter +[1-9][0-9]* bytes\$" \
		"status: filter memory"
	# The exact trie in slot 0 has BTF: bpftool shows its keys by field.
	id=$(bpftool -j map lookup pinned "$BW_PIN_ROOT/$BW_RX/exact" key 0 0 0 0 |
		python3 -c 'import json, sys
v = json.load(sys.stdin)["value"]
print(int("".join(b[2:] for b in reversed(v)), 16))') ||
		fail "cannot read slot 0 of the exact tries"
	bpftool map dump id "$id" >"$TMP_DIR/exact.dump" ||
		fail "bpftool map dump id $id (the exact trie)"
	assert_grep "$TMP_DIR/exact.dump" '"prefixlen": 159' \
		"bpftool shows the exact trie's keys by field (BTF)"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_B6" "$BW_RX6" dropped_v6
	expect_delivered "$BW_C4" "$BW_RX4"
	bw 0 query "$BW_RX" "$BW_A4" "$BW_C4"
	assert_line "$OUT" \
		"$BW_A4  drop (in blocklist /31 region, confirmed by the exact list)" \
		"query in verify mode"
	assert_line "$OUT" "$BW_C4  pass" "query in verify mode, unlisted"
	# add in verify mode puts the key into the running exact trie too.
	bw 0 add "$BW_RX" 10.77.0.4/31
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 0 status "$BW_RX"
	assert_kv "$OUT" verify "on (exact trie in slot 0: 4 prefixes)" \
		"add grows the trie"
	# Without the kept add (a reload keeps it: adds_tests.sh).
	bw 0 reload "$BW_RX" "${SEED[@]}" --verify --forget-added "$l"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" verify "on (exact trie in slot 1: 3 prefixes)" \
		"a verify reload uses the other slot"
	expect_delivered "$BW_C4" "$BW_RX4"
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" verify "off (a Bloom hit drops)" \
		"reload without --verify turns it off"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd[0]["filter"]["verify"]')" '{"on":false}' \
		"json: verify off"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_C4" "$BW_RX4"
}

# The real firehol_level1 (10.0.0.0/8 among its 2,747 prefixes) in verify
# mode drops every sender, but the allowlisted one; IPv6 is not listed.
test_cidr_level1_verify()
{
	local l1=$BW_DATA_DIR/ipv4/firehol/firehol_level1.netset

	[ -r "$l1" ] || skip "no test data at $BW_DATA_DIR (set BW_DATA_DIR)"
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --verify \
		--allow "$(list allow.txt "$BW_C4")" "$l1"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "target lengths IPv4" "/32 /24 /19 /12" "level1 targets"
	assert_kv "$OUT" "source prefixes" \
		"2747 -> 10854 entries (expansion x3.95)" "level1 source prefixes"
	assert_kv "$OUT" verify "on (exact trie in slot 0: 2747 prefixes)" \
		"level1 exact trie"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_delivered "$BW_A6" "$BW_RX6"
	bw 0 query "$BW_RX" 224.0.0.5 8.8.8.8 "$BW_C4"
	assert_line "$OUT" \
		"224.0.0.5  drop (in blocklist /12 region, confirmed by the exact list)" \
		"224.0.0.0/3 is listed"
	assert_line "$OUT" "8.8.8.8  pass" "8.8.8.8 is not listed"
	assert_line "$OUT" "$BW_C4  pass (allowlisted)" "C is allowlisted"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[d[0]["filter"]["verify"][k] for k in ("on", "slot", "exact_entries")]')" \
		'[true,0,2747]' "json: verify and exact entries"
}
