# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of the list formats told from a file's content (P10
# item 3): a filter built from an RPZ zone and a dnsmasq file answers the
# listed names through the real program (unbound on the receiver's veth,
# dig from the sender's namespace, as resolver_tests.sh), lets the
# rpz-passthru. name through, and query --why names the zone's and the
# dnsmasq file's lines; ipset and nftables files give addresses; a line
# of another format, or a bad one, stops the attach with file:line.
# Sourced by tests/e2e/run.sh, whose helpers (bw, list, fail, skip,
# assert_*) and resolver_tests.sh's (resolver_start, expect_answer) they
# use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $FORMATS_TESTS"

# shellcheck disable=SC2034 # read by run.sh
FORMATS_TESTS="test_formats_rpz_dnsmasq test_formats_ipset_nft
test_formats_bad_lines"

# An RPZ zone as hagezi publishes them (no $ORIGIN), with a passthru.
formats_rpz()
{
	list "$1" "\$TTL 300" \
		'@ SOA localhost. root.localhost. 1 3600 600 86400 60' \
		'  NS  localhost.' \
		'; hagezi style' \
		'blocked.test CNAME .' \
		'*.ads.test CNAME .' \
		'good.ads.test CNAME rpz-passthru.'
}

test_formats_rpz_dnsmasq()
{
	local z d

	resolver_start
	z=$(formats_rpz zone.rpz)
	d=$(list d.dnsmasq '# dnsmasq' 'address=/one.test/#')
	bw 0 attach "$BW_RX" "${SEED[@]}" --dns-action nxdomain "$z" "$d"
	assert_line "$ERR" "$z: note: read as an RPZ zone; its actions are not kept: a listed name gets bloomwall's --dns-action; 1 rpz-passthru. allow entry; 3 \$TTL, SOA and NS lines skipped" \
		"the zone's note: bloomwall's action, not the zone's"
	assert_line "$ERR" "$d: note: read as dnsmasq lines: each name blocked with its subtree, with bloomwall's --dns-action; 0 answered with another address (blocked the same way), 0 server= lines forwarding elsewhere not read as blocks" \
		"the dnsmasq file's note"
	assert_grep "$OUT" "^$BW_RX: names: 1 exact, 2 subtree, 1 allow " \
		"the entries of both files"
	expect_answer "NXDOMAIN" A blocked.test
	expect_answer "NOERROR $RESOLVER_A" A www.blocked.test
	expect_answer "NXDOMAIN" A x.ads.test
	expect_answer "NXDOMAIN" A ads.test
	expect_answer "NOERROR $RESOLVER_A" A good.ads.test
	expect_answer "NXDOMAIN" A one.test
	expect_answer "NOERROR $RESOLVER_A" A two.test
	expect_answer "NOERROR $RESOLVER_A" A allowed.test
	bw 0 query "$BW_RX" --why deep.x.ads.test one.test good.ads.test
	assert_line "$OUT" "  why: $z:6: *.ads.test CNAME . [subtree of ads.test: suffix ads.test matched]" \
		"the zone's wildcard line"
	assert_line "$OUT" "  why: $d:2: address=/one.test/# [subtree of one.test: suffix one.test matched]" \
		"the dnsmasq line"
	assert_line "$OUT" "good.ads.test  pass (subtree entry *.ads.test; allowed by exact entry good.ads.test)" \
		"the passthru name passes"
	assert_line "$OUT" "  why: $z:7: good.ads.test CNAME rpz-passthru. [allow entry for good.ads.test]" \
		"the passthru line, an allow entry"
}

test_formats_ipset_nft()
{
	local s n

	s=$(list s.ipset 'create bl hash:net family inet hashsize 1024' \
		'add bl 192.0.2.0/28 timeout 300 comment "seen"' \
		'create bl6 hash:ip family inet6' 'add bl6 2001:db8::7')
	n=$(list n.nft 'table inet filter {' '	set blocklist {' \
		'		type ipv4_addr' '		flags interval' \
		'		elements = { 198.51.100.1,' \
		'			     203.0.113.10-203.0.113.20 }' '	}' '}')
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$s" "$n"
	assert_line "$ERR" "$s: note: read as an ipset save file: 2 sets; 1 add lines' options (timeout, comment...) ignored" \
		"the ipset note"
	assert_line "$ERR" "$n: note: read as nftables sets: 1 set; 0 element options (timeout, comment...) ignored" \
		"the nftables note"
	bw 0 query "$BW_RX" 192.0.2.5 2001:db8::7 198.51.100.1 203.0.113.15 203.0.113.21
	assert_grep "$OUT" "^192\\.0\\.2\\.5 +drop" "an ipset prefix"
	assert_grep "$OUT" "^2001:db8::7 +drop" "an ipset IPv6 address"
	assert_grep "$OUT" "^198\\.51\\.100\\.1 +drop" "an nftables element"
	assert_grep "$OUT" "^203\\.0\\.113\\.15 +drop" "an nftables range"
	assert_grep "$OUT" "^203\\.0\\.113\\.21 +pass" "past the range"
	bw 0 query "$BW_RX" --why 203.0.113.15
	assert_line "$OUT" "  why: $n:6: 203.0.113.10-203.0.113.20 } [covers it: 203.0.113.12/30]" \
		"the element's own line"
}

# Bad lines: file:line: reason, nothing attached; --skip-invalid goes on.
test_formats_bad_lines()
{
	local z m

	z=$(list bad.rpz "\$TTL 300" 'ok.test CNAME .' '32.1.2.0.192.rpz-ip CNAME .')
	bw 1 attach "$BW_RX" "${SEED[@]}" "$z"
	assert_line "$ERR" "$z:3: RPZ triggers on addresses or name servers are not read (bloomwall matches query names): \"32.1.2.0.192.rpz-ip\"" \
		"an IP trigger refused at its line"
	bw 1 status "$BW_RX"
	m=$(list mixed.txt '192.0.2.1' 'address=/x.test/#')
	bw 1 attach "$BW_RX" "${SEED[@]}" "$m"
	assert_line "$ERR" "$m:2: a dnsmasq line in a file read as plain lines (since line 1): a list file is one format: \"address=/x.test/#\"" \
		"a line of another format"
	bw 0 attach "$BW_RX" "${SEED[@]}" --skip-invalid "$z"
	assert_line "$ERR" "$z:3: RPZ triggers on addresses or name servers are not read (bloomwall matches query names): \"32.1.2.0.192.rpz-ip\" (skipped)" \
		"skipped under --skip-invalid"
	bw 0 query "$BW_RX" ok.test
	assert_grep "$OUT" "^ok\\.test +block" "the good line taken"
}
