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
test_why_allow_add test_why_changed_missing test_why_image test_why_names
test_why_allow_files test_why_allow_names test_why_change_origin
test_why_watch_origin"

# The lines under a query's answer for a false positive (user/out/why_out.c).
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
		skip "no test data at $BW_DATA_DIR (set BW_DATA_DIR)"
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
	assert_line "$OUT" "  why: allowlisted at run time: 198.51.100.128/25 (bloomwall allow; 'bloomwall unallow' takes it out)" \
		"the allowlist entry, allowed at run time"
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
	local a img al

	a=$(list a.txt 192.0.2.1 198.51.100.0/24)
	img=$TMP_DIR/f.img
	bw 0 build -o "$img" "${SEED[@]}" "$a"
	bw 0 inspect "$img"
	assert_line "$OUT" "    list                   $a" "the image records its list"
	assert_line "$OUT" "    list                   $a: 2 entries from 2 lines (26 bytes), unchanged since" \
		"inspect: what the list was, and that it still is"
	assert_line "$OUT" "    built                  not recorded (an image not loaded yet, or an older bloomwall built it)" \
		"an image records no time: the same lists give the same bytes"
	al=$(list allow.txt 198.51.100.5)
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --allow "$al" \
		"$(list x.txt 10.9.9.9)"
	bw 0 load "$BW_RX" "$img"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    built +[0-9-]+ [0-9:]+ UTC by load of image [0-9a-f]{32}\$" \
		"status: loaded from an image, its hash"
	assert_grep "$OUT" "^    allow file +$al: 1 entry from 1 line .*, unchanged since\$" \
		"status: the allowlist file, kept with the allowlist by load"
	assert_grep "$OUT" "^    list +$a: 2 entries from 2 lines \\(26 bytes\\), unchanged since\$" \
		"status: the image's list (no mtime in an image)"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[d[0]["provenance"]["how"], len(d[0]["provenance"]["image_hash"]), [l["path"] for l in d[0]["provenance"]["lists"]]]')" \
		"[\"load\",32,[\"$a\"]]" "status JSON of a loaded image"
	bw 0 query "$BW_RX" --why 198.51.100.3
	assert_line "$OUT" "  why: $a:2: 198.51.100.0/24" \
		"--why reads the image's recorded list"
	bw 0 query "$BW_RX" --why 198.51.100.5
	assert_line "$OUT" "  why: allowlisted: $al:1: 198.51.100.5" \
		"and the allowlist file the running allowlist came from"
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

# Allowlist files (--allow FILE) are recorded as the lists are: status
# names them with their state, --why names the allowlist line that lets an
# address pass (file:line), every one, and an entry allowed at run time as
# such; an allowlist file edited or deleted after the build is marked.
test_why_allow_files()
{
	local l al a2

	l=$(list block.txt 198.51.100.0/24 192.0.2.0/24)
	al=$(list allow.txt "# allowed" 198.51.100.128/25 192.0.2.7)
	a2=$(list allow2.txt 198.51.100.200)
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --allow "$al" \
		--allow "$a2" "$l"
	bw 0 allow "$BW_RX" 192.0.2.9
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    allow file +$al: 2 entries from 3 lines \\([0-9,]+ bytes, mtime .*\\), unchanged since\$" \
		"status names the allowlist file"
	assert_grep "$OUT" "^    allow file +$a2: 1 entry from 1 line .*, unchanged since\$" \
		"and the second one"
	bw 0 query "$BW_RX" --why 198.51.100.200 192.0.2.7 192.0.2.9
	assert_line "$OUT" "198.51.100.200  pass (allowlisted)" "allowlisted"
	assert_line "$OUT" "  why: $l:1: 198.51.100.0/24" "the block list's line"
	assert_line "$OUT" "  why: allowlisted: $al:2: 198.51.100.128/25" \
		"the allowlist file's line"
	assert_line "$OUT" "  why: allowlisted: $a2:1: 198.51.100.200" \
		"every allowlist line that covers it"
	assert_line "$OUT" "  why: allowlisted: $al:3: 192.0.2.7" \
		"an allowlisted host"
	assert_line "$OUT" "  why: allowlisted at run time: 192.0.2.9 (bloomwall allow; 'bloomwall unallow' takes it out)" \
		"an entry allowed at run time"
	grep -q "at run time: 198.51.100" "$OUT" &&
		fail "an allowlist file's entry called a runtime one"
	bw 0 query "$BW_RX" --json --why 198.51.100.200 192.0.2.9
	assert_eq "$(json "$OUT" '[[e["file"], e["line"], e["entry"], e["list_changed"]] for e in d["addresses"][0]["why"]["allow_entries"]]')" \
		"[[\"$al\",2,\"198.51.100.128/25\",false],[\"$a2\",1,\"198.51.100.200\",false]]" \
		"JSON: both allowlist lines"
	assert_eq "$(json "$OUT" '[d["addresses"][0]["why"]["runtime_allow"], d["addresses"][1]["why"]["runtime_allow"], [l["allow"] for l in d["addresses"][0]["why"]["lists"]]]')" \
		'[[],["192.0.2.9"],[false,true,true]]' "JSON: the runtime entry"
	# Reloaded without --allow, the allowlist and its record stay.
	bw 0 reload "$BW_RX" "$l"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[[l["path"], l["state"], l["entries"]] for l in d[0]["provenance"]["allow_lists"]]')" \
		"[[\"$al\",\"unchanged\",2],[\"$a2\",\"unchanged\",1]]" \
		"JSON: the allowlist files, kept by a reload without --allow"
	printf '# edited\n198.51.100.128/25\n' >"$al"
	rm -f "$a2"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    allow file +$al: 2 entries from 3 lines .*, CHANGED since \\(hash differs; reload to apply\\)\$" \
		"status flags the edited allowlist file"
	assert_grep "$OUT" "^    allow file +$a2: 1 entry from 1 line .*, MISSING now\$" \
		"status flags the deleted one"
	bw 0 query "$BW_RX" --why 198.51.100.200 192.0.2.7
	assert_line "$OUT" "  note: allow file $al changed since the build: answered from the file as it is now" \
		"the edited allowlist file is said"
	assert_line "$OUT" "  note: allow file $a2 is missing now: not searched" \
		"the deleted one is said"
	assert_line "$OUT" "  why: allowlisted: $al:2: 198.51.100.128/25 [allow file changed since the build: line of the file as it is now]" \
		"a line of the file as it is now, marked"
	assert_line "$OUT" "  why: allowlisted at run time: 192.0.2.7 (bloomwall allow, or an allow file as it was at the build)" \
		"an entry no allowlist file holds now"
	# Reloaded with --allow: that file alone, as it is now.
	bw 0 reload "$BW_RX" --allow "$al" "$l"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[[l["path"], l["state"], l["entries"], l["lines"]] for l in d[0]["provenance"]["allow_lists"]]')" \
		"[[\"$al\",\"unchanged\",1,2]]" "JSON: the new allowlist file"
}

# Names: an @@ line of a block list and a name of an allowlist file are
# named by their line; a name allowed at run time as such.
test_why_allow_names()
{
	local l al

	l=$(list names.txt "||tracker.test^" "@@||good.tracker.test^" \
		"||example.test^")
	al=$(list allow.txt "www.example.test")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --allow "$al" "$l"
	bw 0 allow "$BW_RX" cdn.example.test
	bw 0 query "$BW_RX" --why a.good.tracker.test www.example.test \
		cdn.example.test
	assert_grep "$OUT" "^a\\.good\\.tracker\\.test  pass " "the @@ entry lets it pass"
	assert_line "$OUT" "  why: $l:2: @@||good.tracker.test^ [allow entry for the subtree of good.tracker.test]" \
		"the block list's @@ line"
	assert_line "$OUT" "  why: allowlisted: $al:1: www.example.test" \
		"the allowlist file's line"
	assert_line "$OUT" "  why: allowlisted at run time: cdn.example.test (bloomwall allow; 'bloomwall unallow' takes it out)" \
		"a name allowed at run time"
	[ "$(grep -c "at run time" "$OUT")" = 1 ] ||
		fail "a listed allow entry called a runtime one"
	bw 0 query "$BW_RX" --json --why www.example.test cdn.example.test
	assert_eq "$(json "$OUT" '[[[e["file"], e["line"], e["allow"]] for e in n["why"]["allow_entries"]] + n["why"]["runtime_allow"] for n in d["names"]]')" \
		"[[[\"$al\",1,true]],[\"cdn.example.test\"]]" "JSON: file line and runtime entry"
}

# How the filter was built stays in status after changes; the last change
# (add, allow, unallow, remove) is recorded apart, with the count; a
# rebuild starts again. The keys the build sized the filter for too.
test_why_change_origin()
{
	local l built

	l=$(list a.txt 192.0.2.1 198.51.100.0/24)
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[d[0]["provenance"]["how"], d[0]["provenance"]["changed"], d[0]["provenance"]["sized_entries"] == d[0]["filter"]["entries"]]')" \
		'["attach",null,true]' "attached: no change, sized for its entries"
	built=$(json "$OUT" 'd[0]["provenance"]["built_ns"]')
	bw 0 add "$BW_RX" 203.0.113.77
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    built +[0-9-]+ [0-9:]+ UTC by attach\$" \
		"status still says how it was built"
	assert_grep "$OUT" "^    changed +[0-9-]+ [0-9:]+ UTC by add \\(1 change since the build\\)\$" \
		"and the change"
	bw 0 allow "$BW_RX" 198.51.100.7
	bw 0 unallow "$BW_RX" 198.51.100.7
	bw 0 remove "$BW_RX" 203.0.113.77
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[d[0]["provenance"]["how"], d[0]["provenance"]["built_ns"], d[0]["provenance"]["changed"]["by"], d[0]["provenance"]["changed"]["changes"], d[0]["provenance"]["changed"]["time_ns"] >= d[0]["provenance"]["built_ns"]]')" \
		"[\"attach\",$built,\"remove\",4,true]" \
		"add, allow, unallow, remove: four changes of a filter built by attach"
	bw 0 add "$BW_RX" 203.0.113.78
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[d[0]["provenance"]["changed"]["by"], d[0]["provenance"]["sized_entries"] < d[0]["filter"]["entries"]]')" \
		'["add",true]' "an add: past what it was sized for"
	bw 0 reload "$BW_RX" "$l"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[d[0]["provenance"]["how"], d[0]["provenance"]["changed"], d[0]["provenance"]["sized_entries"] == d[0]["filter"]["entries"]]')" \
		'["reload",null,true]' "a reload: built again, sized again"
}

# A filter bloomwall watch rebuilt records watch as how.
test_why_watch_origin()
{
	local d=$TMP_DIR/wlists l

	trap kill_watch EXIT
	mkdir -p "$d"
	l=$d/block.txt
	printf '%s\n' 192.0.2.1 >"$l"
	start_watch "${SEED[@]}" --debounce 0.2 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	printf '%s\n' 192.0.2.2 >>"$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[d[0]["provenance"]["how"], [[l["path"], l["state"], l["entries"]] for l in d[0]["provenance"]["lists"]]]')" \
		"[\"watch\",[[\"$l\",\"unchanged\",2]]]" "rebuilt by the watch"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    built +[0-9-]+ [0-9:]+ UTC by watch\$" "status: by watch"
	stop_watch TERM

	# watch --image: the image's lists, stamped as the watch's swap.
	bw 0 build -o "$d/filter.img" "$l"
	start_watch --debounce 0.2 --image "$d/filter.img"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    built +[0-9-]+ [0-9:]+ UTC by watch of image [0-9a-f]{32}\$" \
		"status: by watch of the image"
	assert_grep "$OUT" "^    list +$l: 2 entries from 2 lines \\(" \
		"status: the image's list"
	stop_watch TERM
}
