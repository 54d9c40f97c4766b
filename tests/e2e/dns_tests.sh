# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of domain blocklists through the CLI (issue 11, items 1
# and 4): attach with a list of names and addresses, status shows the names,
# their regions and the answer, query judges a name as a DNS query for it
# would be judged (exact or subtree, and which suffix), add keeps names
# across reloads as it keeps addresses, the DNS options are kept by a reload
# without them, and bad names and options are refused with what is wrong.
# No DNS traffic here: that needs the data path's side (p4-dns-bpf).
# Sourced by tests/e2e/run.sh, whose helpers (bw, list, json, kv, fail,
# skip, assert_eq, assert_line, assert_grep, assert_kv, generation) they use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $DNS_TESTS"

# shellcheck disable=SC2034 # read by run.sh
DNS_TESTS="test_dns_attach_query test_dns_add_reload test_dns_options_kept
test_dns_errors test_dns_real_lists test_dns_image test_dns_allow"

# A list of every form: hosts (two names, a local one), plain, *.name,
# ||name^, an address.
dns_list()
{
	list "$1" '# names and addresses in one file' \
		'0.0.0.0 ads.example.com tracker.example.net # two names' \
		'127.0.0.1 localhost' \
		'Exact.Example.ORG.' \
		'*.doubleclick.net' \
		'||ad.com^' \
		"$BW_A4"
}

test_dns_attach_query()
{
	local l

	l=$(dns_list d.txt)
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --dns-action nxdomain \
		--dns-ttl 60 "$l"
	assert_grep "$OUT" \
		"^$BW_RX: names: 3 exact, 2 subtree, 0 allow \(0 duplicates removed, 1 local skipped\), [0-9]+ blocks, answer nxdomain, TTL 60 s$" \
		"attach reports the names"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" answer "nxdomain (TTL 60 s)" "status: the answer"
	assert_kv "$OUT" "name entries" "5 (3 exact, 2 subtree)" "status: name entries"
	assert_grep "$OUT" '^    exact +[0-9]+ +3 +(8|16) ' "status: the exact region"
	assert_grep "$OUT" '^    subtree +[0-9]+ +2 +(8|16) ' "status: the subtree region"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[d[0]["names"][k] for k in ("action", "ttl", "entries")]')" \
		'["nxdomain",60,5]' "status JSON: names"
	assert_eq "$(json "$OUT" '[r["entries"] for r in d[0]["names"]["regions"]]')" \
		'[3,2]' "status JSON: name regions"

	bw 0 query "$BW_RX" ads.example.com www.ads.example.com \
		x.y.doubleclick.net doubleclick.net ad.com bad.com EXACT.example.org \
		"$BW_A4" example.com
	assert_line "$OUT" "ads.example.com  block (exact entry ads.example.com; answer nxdomain)" \
		"an exact entry blocks its name"
	assert_line "$OUT" "www.ads.example.com  pass" \
		"an exact entry does not block its children"
	assert_line "$OUT" "x.y.doubleclick.net  block (subtree entry *.doubleclick.net; answer nxdomain)" \
		"a subtree entry blocks a grandchild, naming the suffix"
	assert_line "$OUT" "doubleclick.net  block (subtree entry *.doubleclick.net; answer nxdomain)" \
		"*.name blocks the name itself"
	assert_line "$OUT" "ad.com  block (subtree entry *.ad.com; answer nxdomain)" \
		"||name^ is a subtree entry"
	assert_line "$OUT" "bad.com  pass" "ad.com does not match bad.com"
	assert_line "$OUT" "EXACT.example.org  block (exact entry exact.example.org; answer nxdomain)" \
		"case folded, trailing dot dropped"
	assert_line "$OUT" "$BW_A4  drop (in blocklist /32 region)" \
		"addresses and names in one query"
	assert_line "$OUT" "example.com  pass" "a parent of an entry passes"
	bw 0 query --json "$BW_RX" a.b.doubleclick.net
	assert_eq "$(json "$OUT" '[d["names"][0][k] for k in ("verdict", "reason", "entry", "suffix", "action")]')" \
		'["block","listed","subtree","doubleclick.net","nxdomain"]' "query JSON"
	bw 2 query "$BW_RX" 'bad..name.com'
	assert_line "$ERR" 'bloomwall query: empty label in name: "bad..name.com"' \
		"query refuses a bad name"
}

# The issue's story for names: added at 03:00, still blocked after every
# reload; a filter without names gets its regions by a rebuild.
test_dns_add_reload()
{
	local l gen

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "name entries" "none (no domain entries: DNS passes)" \
		"no names: no regions"
	bw 0 query "$BW_RX" evil.example
	assert_line "$OUT" "evil.example  pass (the filter holds no names)" \
		"query of a filter without names"
	gen=$(generation)
	bw 0 add "$BW_RX" evil.example
	assert_line "$OUT" \
		"$BW_RX: the running filter has no name region for this name: rebuilding it from its lists" \
		"add rebuilds a filter without names"
	assert_line "$OUT" "$(msg_kept 1)" "the name is kept"
	assert_eq "$(generation)" $((gen + 1)) "a new filter"
	bw 0 add "$BW_RX" '*.evil.test'
	assert_line "$OUT" "$(msg_kept 2)" "a subtree entry needs its region: rebuilt"
	gen=$(generation)
	bw 0 add "$BW_RX" other.example www.evil.test
	assert_line "$OUT" "other.example  added" "in place, exact"
	assert_line "$OUT" "www.evil.test  added" "in place, exact beside a subtree"
	assert_line "$OUT" "$BW_RX: 2 of 2 names added to filter generation $gen" \
		"add in place swaps a copy in"
	bw 0 --json add "$BW_RX" other.example
	assert_eq "$(json "$OUT" '[d["iface"], d["names"][0]["result"], d["added"], d["added_kept"]]')" \
		"[\"$BW_RX\",\"already\",0,4]" "added twice: JSON"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "added names kept" 4 "status counts the names"
	assert_kv "$OUT" "added entries kept" 4 "and in the filter's kept adds"
	for i in 1 2; do
		bw 0 reload "$BW_RX" "$l"
		assert_line "$OUT" "$(msg_kept 4)" "reload $i keeps the names"
		bw 0 query "$BW_RX" evil.example a.b.evil.test other.example \
			x.evil.example
		assert_line "$OUT" "evil.example  block (exact entry evil.example; answer null)" \
			"reload $i: an added exact name"
		assert_line "$OUT" "a.b.evil.test  block (subtree entry *.evil.test; answer null)" \
			"reload $i: an added subtree"
		assert_line "$OUT" "other.example  block (exact entry other.example; answer null)" \
			"reload $i: a name added in place"
		assert_line "$OUT" "x.evil.example  pass" "reload $i: exact stays exact"
	done
	bw 1 remove "$BW_RX" other.example never.added
	assert_line "$OUT" "other.example  removed" "remove takes a name out"
	assert_line "$OUT" "never.added  not added at run time" \
		"remove says which name was never added"
	assert_line "$ERR" "$BW_RX: 1 of 2 names were not added at run time: only those can be removed" \
		"and exits 1"
	bw 0 query "$BW_RX" other.example
	assert_line "$OUT" "other.example  pass" "removed name passes"
	bw 0 reload "$BW_RX" --forget-added "$l"
	assert_line "$OUT" "$BW_RX: 3 entries added at run time left out" \
		"--forget-added forgets names"
	bw 0 query "$BW_RX" evil.example
	assert_line "$OUT" "evil.example  pass (the filter holds no names)" \
		"names forgotten: no regions again"
}

# --dns-action, --dns-ttl and --subdomains stay with the filter until a
# reload changes them, as the other build options do.
test_dns_options_kept()
{
	local l

	l=$(list n.txt example.com 'tracker.example.net')
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --dns-action refused \
		--dns-ttl 0 --subdomains "$l"
	bw 0 query "$BW_RX" www.example.com
	assert_line "$OUT" "www.example.com  block (subtree entry *.example.com; answer refused)" \
		"--subdomains makes a plain line a subtree"
	bw 0 reload "$BW_RX" "$l"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" answer "refused (TTL 0 s), --subdomains" \
		"a reload without options keeps them"
	bw 0 reload "$BW_RX" --dns-action drop --no-subdomains "$l"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" answer "drop (TTL 0 s)" "a reload changes what it is given"
	bw 0 query "$BW_RX" www.example.com example.com
	assert_line "$OUT" "www.example.com  pass" "--no-subdomains"
	assert_line "$OUT" "example.com  block (exact entry example.com; answer drop)" \
		"exact again"
	# A filter without names keeps them too, for the names added later.
	l=$(list a.txt "$BW_A4")
	bw 0 reload "$BW_RX" --dns-action nxdomain --dns-ttl 42 "$l"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" answer "nxdomain (TTL 42 s)" "kept without names"
	bw 0 add "$BW_RX" late.example
	bw 0 query "$BW_RX" late.example
	assert_line "$OUT" "late.example  block (exact entry late.example; answer nxdomain)" \
		"a later name gets the kept answer"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" answer "nxdomain (TTL 42 s)" "and its TTL"
}

test_dns_errors()
{
	local l

	l=$(list bad.txt good.example.com 'bad_name!.com')
	bw 1 attach "$BW_RX" --mode native "$l"
	assert_line "$ERR" "$l:2: bad character \"!\" in name: \"bad_name!.com\"" \
		"a bad name is file:line: reason"
	l=$(list bad2.txt "$(printf 'a%.0s' $(seq 64)).com")
	bw 1 attach "$BW_RX" --mode native "$l"
	assert_grep "$ERR" "^$l:1: label longer than 63 bytes in name: " \
		"a 64-byte label"
	# shellcheck disable=SC2016 # a literal $, as adblock lists write it
	l=$(list bad3.txt '||ads.example.com^$third-party')
	bw 1 attach "$BW_RX" --mode native "$l"
	assert_line "$ERR" "$l:1: adblock rule with options after \"^\": only ||name^ is read: \"||ads.example.com^\$third-party\"" \
		"adblock options refused"
	l=$(list good.txt good.example.com)
	bw 2 attach "$BW_RX" --mode native --dns-action sinkhole "$l"
	assert_line "$ERR" "bloomwall: --dns-action must be null, nxdomain, refused or drop, not 'sinkhole'" \
		"a bad --dns-action"
	bw 2 attach "$BW_RX" --mode native --dns-ttl 86401 "$l"
	assert_line "$ERR" "bloomwall: --dns-ttl takes seconds from 0 to 86400, not '86401'" \
		"a --dns-ttl too long"
	bw 0 attach "$BW_RX" --mode native "$l"
	bw 2 add "$BW_RX" '*.bad..example'
	assert_line "$ERR" 'bloomwall add: empty label in name: "bad..example"' \
		"add refuses a bad name"
	bw 2 add "$BW_RX" '@@||ok.example^'
	assert_line "$ERR" "bloomwall add: \"@@||ok.example^\" is an allow entry: use 'bloomwall allow'" \
		"add refuses an allow entry"
	# 100 names into a region sized for one: it grows, with room.
	# shellcheck disable=SC2046 # one name a word
	bw 0 add "$BW_RX" $(seq -f 'n%g.example' 100)
	assert_line "$OUT" "$BW_RX: 100 of 100 names added to filter generation 2, grown with room for the adds" \
		"100 names: every one added, by a rebuild"
	assert_grep "$OUT" "^$BW_RX: these entries would take the filter's names past its target false-positive rate \(about [0-9.e+-]+% where it is sized for 0.1%\): rebuilding it from its lists with room for the adds$" \
		"add says why it rebuilds"
	assert_eq "$(grep -c past "$ERR")" 0 "no warning: the names are within their target"
	# shellcheck disable=SC2046 # one name a word
	bw 0 add "$BW_RX" $(seq -f 'm%g.example' 100)
	assert_line "$OUT" "$BW_RX: 100 of 100 names added to filter generation 2" \
		"the room takes 100 more in place"
}

# The names a list file blocks, as its lines give them (not the local ones).
dns_names()
{
	grep -vE '^[[:space:]]*(#|!|$)' "$1" | sed 's/[[:space:]]*#.*//' |
		awk '{ print $NF }' |
		grep -vxE 'localhost|localhost\.localdomain|local|broadcasthost|ip6-.*|0\.0\.0\.0'
}

# Every domain list of the test data loads as it is; its first and last
# names are blocked.
test_dns_real_lists()
{
	local f files=() first last

	# The lists in the forms the reader takes (hosts, plain, adblock);
	# hagezi-2022's dnsmasq and Unbound files and hagezi-rpz's zone are
	# other formats.
	for f in "$BW_DATA_DIR"/domains/{blocklistproject,hagezi,stevenblack}/*; do
		[ -r "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || skip "no domain lists at $BW_DATA_DIR/domains"
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "${files[@]}"
	assert_grep "$OUT" "^$BW_RX: names: [0-9,]+ exact, " "names reported"
	for f in "${files[@]}"; do
		# A hosts line's last word (the name), a plain line's only
		# one; the local entries of a hosts file's header left out.
		first=$(dns_names "$f" | head -n 1)
		last=$(dns_names "$f" | tail -n 1)
		bw 0 query "$BW_RX" "$first" "$last"
		assert_grep "$OUT" "^$first  block \(exact entry " "$f: first name"
		assert_grep "$OUT" "^$last  block \(exact entry " "$f: last name"
	done
}

# An image carries the names and the answer; inspect shows them, load
# swaps them in. The name allowlist is the interface's, not an image's.
test_dns_image()
{
	local l a img=$TMP_DIR/names.img

	l=$(dns_list d.txt)
	bw 0 build -o "$img" --dns-action refused --dns-ttl 5 "$l"
	bw 0 inspect "$img"
	assert_kv "$OUT" answer "refused (TTL 5 s)" "inspect: the answer"
	assert_kv "$OUT" "name entries" "5 (3 exact, 2 subtree)" \
		"inspect: the name entries"
	assert_grep "$OUT" '^    subtree +[0-9]+ +2 +(8|16) ' "inspect: a name region"
	a=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "$a"
	bw 0 load "$BW_RX" "$img"
	bw 0 query "$BW_RX" x.doubleclick.net
	assert_line "$OUT" "x.doubleclick.net  block (subtree entry *.doubleclick.net; answer refused)" \
		"load swaps the image's names in"
	# The lists' allow entries go into the image (image_tests.sh loads them).
	l=$(list allow.txt '*.example.com' '@@||good.example.com^')
	bw 0 build -o "$TMP_DIR/allow.img" "$l"
	assert_line "$OUT" "$TMP_DIR/allow.img: sections: name allow entries 1" \
		"an image carries the lists' allow entries"
}

# An allow entry wins over a block, exact or subtree as written. Needs the
# program's name allowlist map (the data path's side, p4-dns-bpf).
test_dns_allow()
{
	local l

	l=$(list d.txt '*.example.com' '@@||good.example.com^' 'mail.example.com')
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 status "$BW_RX"
	[ -n "$(kv "$OUT" "name allow entries")" ] ||
		skip "the program has no name allowlist map (the data path's side of names is not in this build)"
	assert_kv "$OUT" "name allow entries" 1 "status counts the @@ entry"
	bw 0 query "$BW_RX" good.example.com www.good.example.com bad.example.com
	assert_line "$OUT" "good.example.com  pass (subtree entry *.example.com; allowed by subtree entry *.good.example.com)" \
		"@@||name^ allows the name"
	assert_line "$OUT" "www.good.example.com  pass (subtree entry *.example.com; allowed by subtree entry *.good.example.com)" \
		"and every name under it"
	assert_line "$OUT" "bad.example.com  block (subtree entry *.example.com; answer null)" \
		"the block stands beside it"
	bw 0 --json allow "$BW_RX" mail.example.com
	assert_eq "$(json "$OUT" '[d["names"][0]["result"], d["added"], d["allowlist_entries"]]')" \
		'["allowed",1,2]' "allow NAME: JSON"
	bw 0 query "$BW_RX" mail.example.com x.mail.example.com
	assert_line "$OUT" "mail.example.com  pass (exact entry mail.example.com; allowed by exact entry mail.example.com)" \
		"allow NAME beats an exact block"
	assert_line "$OUT" "x.mail.example.com  block (subtree entry *.example.com; answer null)" \
		"an exact allow entry allows only its name"
	bw 0 reload "$BW_RX" "$l"
	bw 0 query "$BW_RX" mail.example.com
	assert_line "$OUT" "mail.example.com  pass (exact entry mail.example.com; allowed by exact entry mail.example.com)" \
		"the operator's allow entry outlives a reload"
	bw 0 unallow "$BW_RX" mail.example.com
	bw 0 query "$BW_RX" mail.example.com
	assert_line "$OUT" "mail.example.com  block (exact entry mail.example.com; answer null)" \
		"unallow NAME"
	l=$(list e.txt '*.example.com')
	bw 0 reload "$BW_RX" "$l"
	bw 0 query "$BW_RX" good.example.com
	assert_line "$OUT" "good.example.com  block (subtree entry *.example.com; answer null)" \
		"a list's @@ entry goes with the list"
}
