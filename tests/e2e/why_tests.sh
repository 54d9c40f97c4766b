# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of provenance and query --why (issue 13): status names
# the lists the running filter was built from (entries each gave, whether
# the file changed or is missing since); query --why names every list entry
# that covers an address (file:line: entry, across lists, in each list
# form), the runtime adds and allowlist entries, and a Bloom false positive
# as one; an edited list is answered from as it is now, marked; a deleted
# one is named; an image's recorded lists come with it.
# Sourced by tests/e2e/run.sh, whose helpers (bw, list, json, kv, fail,
# skip, assert_*) and topology ($BW_RX) they use. The addresses asked about
# are documentation ranges nobody sends from: query needs no traffic.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $WHY_TESTS"

# shellcheck disable=SC2034 # read by run.sh
WHY_TESTS="test_why_forms test_why_real_lists test_why_false_positive
test_why_allow_add test_why_changed_missing test_why_image test_why_names"

# The lines under a query's answer for a false positive (user/why_out.c).
WHY_FP='^  why: false positive of the Bloom filter \(region /32, estimated rate [0-9.e+-]+ %\): no list entry covers it$'

# Each list form names its line; an address two lists cover names both.
test_why_forms()
{
	local a b

	a=$(list a.txt "# forms" 192.0.2.1 198.51.100.0/24 \
		"203.0.113.10-203.0.113.20" "100.64.0.0/16 ; SBL12345" \
		"$(printf '100.65.0.7\t5')" "2001:db8:1::/48")
	b=$(list b.txt "198.51.100.0/25")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$a" "$b"
	bw 0 query "$BW_RX" --why 192.0.2.1 198.51.100.9 203.0.113.15 \
		100.64.3.4 100.65.0.7 2001:db8:1::5 198.51.100.200
	assert_line "$OUT" "  why: $a:2: 192.0.2.1" "a plain address"
	assert_line "$OUT" "  why: $a:3: 198.51.100.0/24" \
		"a prefix"
	assert_line "$OUT" "  why: $b:1: 198.51.100.0/25" \
		"the second list covering 198.51.100.9"
	[ "$(grep -c "^  why: .*198.51.100.0/2[45]" "$OUT")" = 3 ] ||
		fail "198.51.100.9 by both lists, 198.51.100.200 by a.txt only"
	assert_line "$OUT" "  why: $a:4: 203.0.113.10-203.0.113.20 [covers it: 203.0.113.12/30]" \
		"a range, by the prefix of it that covers the address"
	assert_line "$OUT" "  why: $a:5: 100.64.0.0/16 ; SBL12345 [covers it: 100.64.0.0/16]" \
		"a Spamhaus line"
	assert_line "$OUT" "$(printf '  why: %s:6: 100.65.0.7\t5 [covers it: 100.65.0.7]' "$a")" \
		"an ipsum line"
	assert_line "$OUT" "  why: $a:7: 2001:db8:1::/48" \
		"an IPv6 prefix"
	bw 0 query "$BW_RX" --json --why 198.51.100.9 192.0.2.99
	assert_eq "$(json "$OUT" '[[e["file"], e["line"], e["entry"], e["list_changed"]] for e in d["addresses"][0]["why"]["entries"]]')" \
		"[[\"$a\",3,\"198.51.100.0/24\",false],[\"$b\",1,\"198.51.100.0/25\",false]]" \
		"JSON names both lists' lines"
	assert_eq "$(json "$OUT" '[d["addresses"][1]["verdict"], d["addresses"][1]["why"]["entries"], d["addresses"][1]["why"]["false_positive"]]')" \
		'["pass",[],false]' "an unlisted address: no entry"
	assert_eq "$(json "$OUT" '[l["state"] for l in d["addresses"][0]["why"]["lists"]]')" \
		'["unchanged","unchanged"]' "both lists unchanged"
}

# Real lists: a Spamhaus DROP line and an ipsum line, found by their line.
test_why_real_lists()
{
	local drop=$BW_DATA_DIR/spamhaus/drop.txt ipsum=$BW_DATA_DIR/ipv4/ipsum/ipsum.txt
	local dl dn il in d i

	if [ ! -r "$drop" ] || [ ! -r "$ipsum" ]; then
		skip "no shared data at $BW_DATA_DIR (set BW_DATA_DIR)"
	fi
	cp "$drop" "$TMP_DIR/drop.txt"
	cp "$ipsum" "$TMP_DIR/ipsum.txt"
	drop=$TMP_DIR/drop.txt ipsum=$TMP_DIR/ipsum.txt
	# The 10th entry line of each, its number and text.
	dn=$(awk '!/^;/ && ++n == 10 { print NR; exit }' "$drop")
	dl=$(sed -n "${dn}p" "$drop")
	in=$(awk '!/^#/ && ++n == 10 { print NR; exit }' "$ipsum")
	il=$(sed -n "${in}p" "$ipsum")
	d=${dl%%/*}
	i=${il%%$'\t'*}
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$drop" "$ipsum"
	bw 0 query "$BW_RX" --why "$d" "$i"
	assert_grep "$OUT" "^${d//./\\.}  drop " "the DROP prefix's first address"
	assert_grep "$OUT" "^  why: $drop:$dn: ${dl//./\\.} \\[covers it: ${dl%% *}\\]\$" \
		"the Spamhaus line"
	assert_grep "$OUT" "^  why: $ipsum:$in: ${i//./\\.}"$'\t'"[0-9]+ \\[covers it: ${i//./\\.}\\]\$" \
		"the ipsum line"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    list +$drop: [0-9,]+ entries from [0-9,]+ lines \\([0-9,]+ bytes, mtime .*\\), unchanged since\$" \
		"status names drop.txt"
	assert_grep "$OUT" "^    built +[0-9-]+ [0-9:]+ UTC by attach\$" "status: when and how"
}

# A Bloom hit that no list covers, found among random addresses.
test_why_false_positive()
{
	local l fp

	l=$TMP_DIR/many.txt
	# Even addresses only: no two merge into a shorter prefix.
	awk 'BEGIN { for (i = 0; i < 4000; i++)
		printf "10.200.%d.%d\n", int(i / 128), (i % 128) * 2 }' >"$l"
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --fpr 0.05 "$l"
	# shellcheck disable=SC2046 # one argument per address
	bw 0 query "$BW_RX" $(awk 'BEGIN { srand(7); for (i = 0; i < 400; i++)
		printf "172.%d.%d.%d\n", 16 + int(rand() * 16),
			int(rand() * 256), int(rand() * 256) }')
	fp=$(awk '$2 == "drop" { print $1; exit }' "$OUT")
	[ -n "$fp" ] || fail "no false positive among 400 addresses at 5 %"
	bw 0 query "$BW_RX" --why "$fp"
	assert_line "$OUT" "$fp  drop (in blocklist /32 region)" "the filter drops it"
	assert_grep "$OUT" "$WHY_FP" "said to be a false positive"
	assert_line "$OUT" "  hint: to never drop it: 'bloomwall allow $BW_RX $fp', or reload with --verify (an exact trie confirms every hit)" \
		"what to do"
	grep -q '^  why: .*many.txt' "$OUT" && fail "a list entry named for $fp"
	bw 0 query "$BW_RX" --json --why "$fp"
	assert_eq "$(json "$OUT" '[d["addresses"][0]["why"]["false_positive"], d["addresses"][0]["why"]["region_prefix"], 0 < d["addresses"][0]["why"]["estimated_fpr"] < 0.2]')" \
		'[true,32,true]' "JSON: a false positive of the /32 region"
	bw 0 query "$BW_RX" --why 10.200.4.190
	grep -q "false positive" "$OUT" && fail "a listed address called a false positive"
	assert_line "$OUT" "  why: $l:608: 10.200.4.190" "a listed one names its line"
}

# Allowlist entries and runtime adds are named as such.
test_why_allow_add()
{
	local l

	l=$(list a.txt 198.51.100.0/24 192.0.2.1)
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 allow "$BW_RX" 198.51.100.128/25
	bw 0 add "$BW_RX" 192.0.2.77
	bw 0 query "$BW_RX" --why 198.51.100.200 192.0.2.77
	assert_line "$OUT" "198.51.100.200  pass (allowlisted)" "allowlisted"
	assert_line "$OUT" "  why: $l:1: 198.51.100.0/24" \
		"the list entry an allowlist entry overrides"
	assert_line "$OUT" "  why: allowlisted: 198.51.100.128/25 in the running allowlist (never dropped)" \
		"the allowlist entry"
	assert_line "$OUT" "  why: added at run time: 192.0.2.77 (bloomwall add; 'bloomwall remove' takes it out)" \
		"the runtime add"
	grep -q "false positive" "$OUT" && fail "an added address called a false positive"
	bw 0 query "$BW_RX" --json --why 198.51.100.200 192.0.2.77
	assert_eq "$(json "$OUT" '[d["addresses"][0]["why"]["allowlist"], d["addresses"][1]["why"]["added"]]')" \
		'[["198.51.100.128/25"],["192.0.2.77"]]' "JSON: allowlist and adds"
}

# Lists edited and deleted after the build: status flags them, --why marks.
test_why_changed_missing()
{
	local a b

	a=$(list a.txt 192.0.2.1 198.51.100.0/24)
	b=$(list b.txt 203.0.113.5)
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$a" "$b" - \
		<"$(list c.txt 203.0.113.77)"
	bw 0 status "$BW_RX"
	assert_line "$OUT" "    list                   $b: 1 entry from 1 line (12 bytes, mtime $(date -u -r "$b" '+%Y-%m-%d %H:%M:%S') UTC), unchanged since" \
		"status: b.txt as read"
	printf '# edited\n192.0.2.1\n198.51.100.0/24\n' >"$a"
	rm -f "$b"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    list +$a: 2 entries from 2 lines .*, CHANGED since \\(hash differs; reload to apply\\)\$" \
		"status flags the edited list"
	assert_grep "$OUT" "^    list +$b: 1 entry from 1 line .*, MISSING now\$" \
		"status flags the deleted list"
	assert_line "$OUT" "    list                   -: 1 entry from 1 line (13 bytes), read from standard input" \
		"status: the list from standard input"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[[l["state"], l["entries"], l["lines"]] for l in d[0]["provenance"]["lists"]]')" \
		'[["changed",2,2],["missing",1,1],["stdin",1,1]]' "status JSON"
	bw 0 query "$BW_RX" --why 192.0.2.1 203.0.113.5
	assert_line "$OUT" "  why: $a:2: 192.0.2.1 [list changed since the build: line of the file as it is now]" \
		"the edited list answered from as it is now, marked"
	assert_line "$OUT" "  note: $a changed since the build: answered from the file as it is now" \
		"the edit said"
	assert_line "$OUT" "  note: $b is missing now: not searched" "the deleted list named"
	assert_line "$OUT" "  note: a list was read from standard input: it cannot be read again, not searched" \
		"the list from standard input named"
	assert_grep "$OUT" '^  why: no entry in the lists searched: listed in one not searched, or a false positive of the Bloom filter \(region /32, estimated rate [0-9.e+-]+ %\)$' \
		"no false positive claimed while a list could not be searched"
	bw 0 query "$BW_RX" --json --why 203.0.113.5
	assert_eq "$(json "$OUT" '[[l["state"] for l in d["addresses"][0]["why"]["lists"]], d["addresses"][0]["why"]["false_positive"]]')" \
		'[["changed","missing","stdin"],null]' "JSON list states"
}

# An image carries the lists it was built from; load stamps its hash.
test_why_image()
{
	local a img

	a=$(list a.txt 192.0.2.1 198.51.100.0/24)
	img=$TMP_DIR/f.img
	bw 0 build -o "$img" "${SEED[@]}" "$a"
	bw 0 inspect "$img"
	assert_line "$OUT" "    list                   $a" "the image records its list"
	assert_line "$OUT" "    list                   $a: 2 entries from 2 lines (26 bytes), unchanged since" \
		"inspect: what the list was, and that it still is"
	assert_line "$OUT" "    built                  not recorded (an image not loaded yet, or an older bloomwall built it)" \
		"an image records no time: the same lists give the same bytes"
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$(list x.txt 10.9.9.9)"
	bw 0 load "$BW_RX" "$img"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    built +[0-9-]+ [0-9:]+ UTC by load of image [0-9a-f]{32}\$" \
		"status: loaded from an image, its hash"
	assert_grep "$OUT" "^    list +$a: 2 entries from 2 lines \\(26 bytes\\), unchanged since\$" \
		"status: the image's list (no mtime in an image)"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[d[0]["provenance"]["how"], len(d[0]["provenance"]["image_hash"]), [l["path"] for l in d[0]["provenance"]["lists"]]]')" \
		"[\"load\",32,[\"$a\"]]" "status JSON of a loaded image"
	bw 0 query "$BW_RX" --why 198.51.100.3
	assert_line "$OUT" "  why: $a:2: 198.51.100.0/24" \
		"--why reads the image's recorded list"
}

# Names: the list lines behind a blocked name (hosts, wildcard, adblock),
# a name added at run time, and a name the filter blocks that no entry
# covers, found among random names: a false positive, said so.
test_why_names()
{
	local l h fp

	l=$TMP_DIR/names.txt
	h=$(list hosts.txt "0.0.0.0 ads.example.com tracker.example.net")
	{
		echo "*.doubleclick.test"
		echo "||metrics.test^"
		awk 'BEGIN { for (i = 0; i < 3000; i++) printf "n%d.block.test\n", i }'
	} >"$l"
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --fpr 0.05 "$h" "$l"
	bw 0 query "$BW_RX" --why ads.example.com x.y.doubleclick.test metrics.test
	assert_line "$OUT" "  why: $h:1: 0.0.0.0 ads.example.com tracker.example.net [covers it: ads.example.com]" \
		"the hosts line"
	assert_grep "$OUT" "^  why: $l:1: \\*\\.doubleclick\\.test" "the wildcard line"
	assert_grep "$OUT" "^  why: $l:2: \\|\\|metrics\\.test\\^" "the adblock line"
	grep -q "false positive" "$OUT" && fail "a listed name called a false positive"
	bw 0 add "$BW_RX" added.test
	bw 0 query "$BW_RX" --why added.test
	assert_line "$OUT" "  why: added at run time: added.test (bloomwall add; 'bloomwall remove' takes it out)" \
		"the runtime add"
	# shellcheck disable=SC2046 # one argument per name
	bw 0 query "$BW_RX" $(awk 'BEGIN { srand(11); for (i = 0; i < 400; i++)
		printf "r%d.other.test\n", int(rand() * 1000000) }')
	fp=$(awk '$2 == "block" { print $1; exit }' "$OUT")
	[ -n "$fp" ] || fail "no false positive among 400 names at 5 %"
	bw 0 query "$BW_RX" --why "$fp"
	assert_grep "$OUT" "^  why: false positive of the Bloom filter \\((exact|subtree) names, estimated rate [0-9.e-]+ % a key\\): no list entry covers it$" \
		"said to be a false positive"
	assert_line "$OUT" "  hint: to never block it: 'bloomwall allow $BW_RX $fp'" \
		"what to do"
	bw 0 query "$BW_RX" --json --why "$fp"
	assert_eq "$(json "$OUT" 'd["names"][0]["why"]["false_positive"]')" true \
		"JSON: a false positive"
}
