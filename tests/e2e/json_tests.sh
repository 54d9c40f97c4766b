# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of -j/--json: every verb that reports something prints
# exactly one JSON document on stdout, read here by Python's json module
# (json.load refuses a second document or any other text), and its values
# are checked against what the kernel and the lists say. Sourced by
# tests/e2e/run.sh, whose helpers (bw, list, fail, assert_eq, expect_*,
# pinned_prog_id, hook_prog_id) and topology they use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $JSON_TESTS"

# shellcheck disable=SC2034 # read by run.sh
JSON_TESTS="test_json_attach_reload test_json_query_add test_json_allow
test_json_detach test_json_unpinned test_json_errors"

# json_get EXPR: the Python expression EXPR on the document in $OUT (named
# d); strings as they are, anything else as JSON. Non-zero when $OUT is
# not exactly one JSON document or EXPR does not apply to it.
json_get()
{
	python3 - "$OUT" "$1" <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
v = eval(sys.argv[2], {"d": d})
print(v if isinstance(v, str) else json.dumps(v))
EOF
}

# assert_json EXPR WANT WHAT: EXPR's value in $OUT's document is WANT.
assert_json()
{
	local got

	got=$(json_get "$1") || fail "$3: no $1 in one JSON document on stdout"
	assert_eq "$got" "$2" "$3 ($1)"
}

# attach, status and reload: the build's figures, the program, the swap.
test_json_attach_reload()
{
	local l1 l2 allow prog

	l1=$(list a.txt "$BW_A4" "$BW_A6" "$BW_C4")
	l2=$(list b.txt "$BW_B4" "$BW_B6")
	allow=$(list allow.txt "$BW_C4")
	bw 0 -j attach "$BW_RX" --mode native --verify --allow "$allow" \
		"${SEED[@]}" "$l1"
	prog=$(pinned_prog_id)
	assert_json 'd["ok"]' true "attach succeeded"
	assert_json 'd["iface"]' "$BW_RX" "attach: the interface"
	assert_json 'd["filter"]["generation"]' 1 "attach: first generation"
	assert_json 'd["filter"]["prefixes"]' 3 "attach: the list's prefixes"
	assert_json 'd["filter"]["entries"]' 3 "attach: the list's entries"
	assert_json 'd["filter"]["targets"]["ipv4"]' '[32]' "attach: targets"
	assert_json 'd["filter"]["fpr"]' 0.001 "attach: default fpr"
	assert_json 'd["verify"]["exact_entries"]' 3 "attach: the exact trie"
	assert_json 'd["allow"]["entries"]' 1 "attach: the allowlist"
	assert_json 'd["attach"]["mode"]' native "attach: XDP mode"
	assert_json 'd["attach"]["program_id"]' "$prog" "attach: program id"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4

	bw 0 status --json "$BW_RX"
	assert_json 'len(d)' 1 "status IFACE: one interface"
	assert_json 'd[0]["pinned"]' true "status: pinned"
	assert_json 'd[0]["program"]["id"]' "$prog" "status: the program"
	assert_json 'd[0]["program"]["attached"]' true "status: attached"
	assert_json 'd[0]["filter"]["generation"]' 1 "status: generation"
	assert_json 'd[0]["filter"]["entries"]' 3 "status: entries"
	assert_json 'd[0]["filter"]["verify"]["exact_entries"]' 3 \
		"status: verify mode's trie"
	assert_json 'd[0]["counters"]["dropped_v4"]' 3 "status: the drops"

	bw 0 --json reload "$BW_RX" "${SEED[@]}" "$l2"
	assert_json 'd["ok"]' true "reload succeeded"
	assert_json 'd["filter"]["generation"]' 2 "reload: the build"
	assert_json 'd["filter"]["entries"]' 2 "reload: the new list"
	assert_json 'd["swap"]["generation"]' 2 "reload: the new generation"
	assert_json 'd["swap"]["replaces"]' 1 "reload: the old generation"
	assert_json 'd["swap"]["verify"]' false "reload without --verify"
	assert_json '"allow" in d' false "reload without --allow"
	bw 0 -j status
	assert_json '[i["filter"]["generation"] for i in d]' '[2]' \
		"status: the reloaded filter"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"
}

# query's verdicts and add's results, checked against each other.
test_json_query_add()
{
	local l

	l=$(list a.txt "$BW_A4" "$BW_A6")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 -j query "$BW_RX" "$BW_A4" "$BW_B4"
	assert_json '[a["address"] for a in d["addresses"]]' \
		"[\"$BW_A4\", \"$BW_B4\"]" "query: every address, in order"
	assert_json 'd["addresses"][0]["verdict"]' drop "query: listed"
	assert_json 'd["addresses"][0]["reason"]' listed "query: why"
	assert_json 'd["addresses"][0]["prefix"]' 32 "query: the region's /32"
	assert_json 'd["addresses"][1]["verdict"]' pass "query: unlisted"
	assert_json 'd["addresses"][1]["reason"]' not_listed "query: why not"

	bw 0 -j add "$BW_RX" "$BW_B4"
	assert_json 'd["addresses"][0]["result"]' added "add: new"
	assert_json 'd["added"]' 1 "add: count"
	assert_json 'd["entries"]' 3 "add: the filter's entries"
	assert_json 'd["generation"]' 1 "add: in place"
	bw 0 -j add "$BW_RX" "$BW_B4"
	assert_json 'd["addresses"][0]["result"]' already "add: again"
	assert_json 'd["added"]' 0 "add again: nothing new"
	bw 0 -j query "$BW_RX" "$BW_B4"
	assert_json 'd["addresses"][0]["verdict"]' drop "query after add"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
}

test_json_allow()
{
	local l

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 -j allow "$BW_RX" "$BW_A4"
	assert_json 'd["addresses"]' "[{\"address\": \"$BW_A4\", \"result\": \"allowed\"}]" \
		"allow: the entry"
	assert_json 'd["added"]' 1 "allow: count"
	assert_json 'd["allowlist_entries"]' 1 "allow: the allowlist"
	bw 0 -j query "$BW_RX" "$BW_A4"
	assert_json 'd["addresses"][0]["verdict"]' pass "query: allowlisted"
	assert_json 'd["addresses"][0]["reason"]' allowlisted "query: why"
	expect_delivered "$BW_A4" "$BW_RX4"
	bw 0 -j unallow "$BW_RX" "$BW_A4"
	assert_json 'd["addresses"][0]["result"]' removed "unallow: the entry"
	assert_json 'd["removed"]' 1 "unallow: count"
	assert_json 'd["allowlist_entries"]' 0 "unallow: empty again"
	# Not there: exit 1, and still one document that says so.
	bw 1 -j unallow "$BW_RX" "$BW_A4"
	assert_json 'd["ok"]' false "unallow of an absent entry fails"
	assert_json 'd["addresses"][0]["result"]' absent "unallow: absent"
	assert_json 'd["removed"]' 0 "unallow: nothing removed"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
}

test_json_detach()
{
	local l

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	bw 0 -j detach "$BW_RX"
	assert_json 'd' "{\"iface\": \"$BW_RX\", \"interface_gone\": false, \"pins_removed\": true, \"ok\": true}" \
		"detach"
	assert_detached
	bw 1 detach --json "$BW_RX"
	assert_json 'd["ok"]' false "a second detach fails"
	assert_json 'd["iface"]' "$BW_RX" "detach: the interface"
	[ -s "$ERR" ] || fail "the error is on stderr too"
}

# Pins lost (a private bpffs): status lists the program still on the hook,
# as the text does, and detach removes it.
test_json_unpinned()
{
	local l prog

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	prog=$(pinned_prog_id)
	bw_bpffs_reset
	assert_eq "$(hook_prog_id)" "$prog" "the program outlives its pins"
	bw 0 status
	assert_kv "$OUT" pins \
		"missing or out of step (an interrupted command, or a private bpffs); the next attach, reload, add, allow, unallow or detach repairs them" \
		"text status"
	bw 0 status --json
	assert_json "[i for i in d if i['iface'] == '$BW_RX'][0]['pinned']" \
		false "status: lost its pins"
	assert_json "[i for i in d if i['iface'] == '$BW_RX'][0]['program']['id']" \
		"$prog" "status: the program on the hook"
	assert_json "[i for i in d if i['iface'] == '$BW_RX'][0]['filter']['generation']" \
		1 "status: the filter, read from the hook"
	bw 0 -j status "$BW_RX"
	assert_json 'd[0]["program"]["id"]' "$prog" "status IFACE: the program"
	bw 0 -j detach "$BW_RX"
	assert_json 'd["interface_gone"]' false "detach: the interface is there"
	assert_json 'd["pins_removed"]' true "detach: no pins left"
	bw_has_xdp "$BW_RX" && fail "the program is still on $BW_RX"
	return 0
}

# Failures: still exactly one document, the reason on stderr, the exit
# status unchanged.
test_json_errors()
{
	bw 2 -j attach "$BW_RX"
	assert_json 'd' '{"ok": false, "error": "usage error"}' "usage error"
	bw 2 -j frobnicate
	assert_json 'd["error"]' "usage error" "unknown verb"
	bw 2 query --json "$BW_RX" 10.77.0.256
	assert_json 'd["ok"]' false "bad address"
	bw 1 -j query "$BW_RX" "$BW_A4"
	assert_json 'd["ok"]' false "query: not attached"
	assert_grep "$ERR" "bloomwall is not attached" "the reason on stderr"
	bw 1 -j status "$BW_RX"
	assert_json 'd' '[]' "status IFACE: not attached"
	bw 1 -j reload "$BW_RX" "$(list a.txt "$BW_A4")"
	assert_json 'd["ok"]' false "reload: not attached"
	bw 1 -j attach "$BW_RX" --mode native "$TMP_DIR/no-such-list"
	assert_json 'd["ok"]' false "attach: missing list"
	assert_json '"attach" in d' false "attach: nothing attached"
	assert_detached
}
