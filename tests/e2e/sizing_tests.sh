# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of how a filter is sized and what it keeps: the target
# rate across reloads, the exact tries' families, what add refuses.
# Sourced by tests/e2e/run.sh, whose helpers (bw, list, json, kv, fail,
# assert_eq, assert_kv, assert_line, expect_*) and topology they use:
# bloomwall on $BW_RX (10.77.0.1/24, fd00:77::1/64), pings from the
# sender's A, B and C addresses (10.77.0.2 .3 .4, fd00:77::2 ::3 ::4).
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $SIZING_TESTS"

# shellcheck disable=SC2034 # read by run.sh
SIZING_TESTS="test_sizing_fpr_kept test_sizing_add_everything test_sizing_add_grows
test_sizing_watch_add_grows test_sizing_image_add_refused"

# A list of A and 2,000 addresses nobody sends from, big enough that the
# target rate shows in the filter's size.
sizing_list()
{
	local f=$TMP_DIR/$1 i

	{
		echo "$BW_A4"
		for i in $(seq 0 1999); do
			echo "10.78.$((i / 256)).$((i % 256))"
		done
	} >"$f"
	echo "$f"
}

# --fpr 1e-12 is kept exactly: a reload without --fpr builds for it again
# (it used to fall back to 0.1 %, parts per billion rounding it to 0).
test_sizing_fpr_kept()
{
	local l blocks

	l=$(sizing_list big.txt)
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" --fpr 1e-12 "$l"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd[0]["filter"]["target_fpr"]')" 1e-12 \
		"status --json after attach"
	blocks=$(json "$OUT" 'd[0]["filter"]["blocks"]')
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l"
	assert_grep "$OUT" "^$BW_RX: filter generation 2: .*, target fpr 1e-10%\$" \
		"reload without --fpr builds for the running rate"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd[0]["filter"]["target_fpr"]')" 1e-12 \
		"status --json after a reload without --fpr"
	assert_eq "$(json "$OUT" 'd[0]["filter"]["blocks"]')" "$blocks" \
		"the same list at the same rate: the same size"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "target fpr" "1e-10%" "status prints the rate in %"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	# And back: an explicit --fpr replaces it, kept as exactly.
	bw 0 reload "$BW_RX" "${SEED[@]}" --fpr 0.001 "$l"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd[0]["filter"]["target_fpr"]')" 0.001 \
		"--fpr 0.001 on reload"
	[ "$(json "$OUT" 'd[0]["filter"]["blocks"]')" -lt "$blocks" ] ||
		fail "0.1 % takes fewer blocks than 1e-12 ($blocks)"
}

# add refuses a /0: with a short target length in the filter it would be
# set in place as a few thousand keys and drop a whole family at once.
# Nothing of the command is added, and the refusal says how if it is meant.
test_sizing_add_everything()
{
	local l gen

	l=$(list short.txt "$BW_A4" 198.18.0.0/15 "$BW_A6" 2001:db8::/32)
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	gen=$(generation)
	bw 1 add "$BW_RX" "$BW_C4" 0.0.0.0/0
	assert_line "$ERR" \
		"$BW_RX: 0.0.0.0/0 is every IPv4 address: adding it would drop every IPv4 packet; if that is really meant, put it in a LIST and use 'bloomwall reload'" \
		"add 0.0.0.0/0 is refused"
	bw 1 add "$BW_RX" ::/0
	assert_line "$ERR" \
		"$BW_RX: ::/0 is every IPv6 address: adding it would drop every IPv6 packet; if that is really meant, put it in a LIST and use 'bloomwall reload'" \
		"add ::/0 is refused"
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_delivered "$BW_C4" "$BW_RX4"
	expect_delivered "$BW_B6" "$BW_RX6"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 status "$BW_RX"
	assert_kv "$OUT" entries 4 "nothing of a refused add is added"
	assert_eq "$(generation)" "$gen" "a refused add changes nothing"
	# A short prefix that is not everything still goes in as before.
	bw 0 add "$BW_RX" 10.76.0.0/15
	assert_line "$OUT" "10.76.0.0/15  added" "a /15 is one key at /15"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
}

# rate_bound N RATE: how many of N unlisted keys a filter at RATE may
# block at most, by chance: the least k with P(more than k) under 1e-4
# for a binomial of N trials at RATE (the bound the tests hold a filter to
# is twice its target, the most that add may leave it at).
rate_bound()
{
	python3 -c 'import math, sys
n, p = int(sys.argv[1]), float(sys.argv[2])
tail, k = 1.0, 0
while True:
    tail -= math.comb(n, k) * p**k * (1 - p)**(n - k)
    if tail < 1e-4:
        print(k)
        break
    k += 1' "$1" "$2"
}

# The filter's target rate, as status --json says it.
target_fpr()
{
	"$BLOOMWALL" status --json "$BW_RX" | json /dev/stdin 'd[0]["filter"]["target_fpr"]'
}

# sizing_addrs FROM N: N addresses of 10.78/16 from index FROM on, none
# of them a sender's.
sizing_addrs()
{
	awk -v f="$1" -v n="$2" 'BEGIN { for (i = f; i < f + n; i++)
		printf "10.78.%d.%d\n", int(i / 250), i % 250 + 1 }'
}

# query_count VERDICT ADDR|NAME...: how many bloomwall query judges so.
query_count()
{
	"$BLOOMWALL" query "$BW_RX" "$@" 2>/dev/null | grep -cE "^[^ ]+  $1( |\$)"
}

# names_answered FILE: of the names in FILE, asked for in one dig from the
# sender, how many unbound answered itself (NXDOMAIN: none of them is in
# its zone); a name bloomwall blocks gets its 0.0.0.0, one lost times out.
names_answered()
{
	sed "s/^/@$BW_RX4 +tries=1 +timeout=1 /; s/\$/ A/" "$1" >"$1.q"
	ip netns exec "$BW_NS" dig -f "$1.q" |
		grep -c 'status: NXDOMAIN'
}

# assert_unlisted_addrs WHEN: of 2,000 addresses never listed, no more
# drop (as bloomwall query judges them) than a filter at twice its target
# rate would drop by chance.
assert_unlisted_addrs()
{
	local target bound n

	target=$(target_fpr)
	bound=$(rate_bound 2000 "$(python3 -c "print(2 * $target)")")
	# shellcheck disable=SC2046 # one address a word
	n=$(query_count drop $(awk 'BEGIN { for (i = 0; i < 2000; i++)
		printf "10.79.%d.%d\n", int(i / 250), i % 250 + 1 }'))
	echo "  $1: $n of 2000 unlisted addresses drop (at most $bound at twice $target)"
	[ "$n" -le "$bound" ] ||
		fail "$1: $n of 2000 unlisted addresses drop: more than $bound, the filter is past twice its target $target"
}

# The address of the filters of one address and one name: no sender's,
# so that the DNS queries (sent from A) pass.
SIZING_LISTED=198.51.100.1

# add_rate_checks N_ADDRS N_NAMES: after a filter of $SIZING_LISTED and
# one name got N_ADDRS addresses and N_NAMES names added: the adds drop,
# pings from the never listed A, B and C pass, and of 2,000 unlisted addresses and 50
# unlisted names (real DNS queries) no more pass than the target allows.
add_rate_checks()
{
	local target bound names=$TMP_DIR/names.txt n

	target=$(target_fpr)
	expect_delivered "$BW_A4" "$BW_RX4"
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_delivered "$BW_C4" "$BW_RX4"
	query_is "$SIZING_LISTED" drop
	# shellcheck disable=SC2046 # one address a word
	assert_eq "$(query_count drop $(sizing_addrs 0 "$1"))" "$1" \
		"every added address drops"
	assert_unlisted_addrs "in the end"
	[ "$2" -gt 0 ] || return 0
	seq -f 'unlisted%g.test' 50 >"$names"
	bound=$(rate_bound 50 "$(python3 -c "print(2 * $target)")")
	n=$(names_answered "$names")
	echo "  $n of 50 unlisted names answered by unbound (at most $bound blocked)"
	[ "$n" -ge $((50 - bound)) ] ||
		fail "only $n of 50 unlisted names answered: more than $bound blocked or lost, the names are past twice their target $target"
	# shellcheck disable=SC2046 # one name a word
	assert_eq "$(query_count block $(seq -f 'added%g.test' "$2"))" "$2" \
		"every added name blocks"
	expect_answer "NOERROR 0.0.0.0" A added1.test
}

# add past the target rate grows the filter (issue 29, item 9): a filter
# of one address and one name gets 1,000 addresses and 300 names in a few
# adds each; the first add of each kind rebuilds it with room for the
# adds (said in one line), the others go in place; it ends at its target
# rate, so pings from never listed addresses and queries for unlisted
# names pass.
test_sizing_add_grows()
{
	local l k grows=0

	resolver_start
	l=$(list one.txt "$SIZING_LISTED" one.test)
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	for k in 0 1 2; do
		# shellcheck disable=SC2046 # one name a word
		bw 0 add "$BW_RX" $(seq -f 'added%g.test' $((k * 100 + 1)) $((k * 100 + 100)))
		if grep -qE "^$BW_RX: these entries would take the filter's names past its target false-positive rate \(about [0-9.e+-]+% where it is sized for 0\.1%\): rebuilding it from its lists with room for the adds\$" "$OUT"; then
			grows=$((grows + 1))
		fi
		assert_eq "$(grep -c 'past' "$ERR")" 0 "names add $k: no warning"
	done
	assert_eq "$grows" 1 "the first names add grows the filter"
	grows=0
	for k in 0 1 2 3; do
		# shellcheck disable=SC2046 # one address a word
		bw 0 add "$BW_RX" $(sizing_addrs $((k * 250)) 250)
		assert_grep "$OUT" "^$BW_RX: 250 of 250 added to filter generation [0-9]+" \
			"add $k: every address added"
		if grep -qE "^$BW_RX: these entries would take the filter's IPv4 addresses past its target false-positive rate \(about [0-9.e+-]+% where it is sized for 0\.1%\): rebuilding it from its lists with room for the adds\$" "$OUT"; then
			grows=$((grows + 1))
		fi
		assert_eq "$(grep -c 'past' "$ERR")" 0 "add $k: no warning of a rate past its target"
	done
	assert_eq "$grows" 1 "the first add grows the filter with room for the next"
	add_rate_checks 1000 300
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "added entries kept" 1300 "status counts the adds kept"
	assert_kv "$OUT" "added names kept" 300 "status counts the names kept"
}

# The same with a watch (issue 29, item 9): the adds are handed to it and
# set in place; one that would take the filter past twice its target is
# answered busy while the watch grows the filter by a rebuild with room,
# then goes in place. Every entry is reported added (never "already" by a
# chance hit), and the filter ends at its target rate.
test_sizing_watch_add_grows()
{
	local k from

	resolver_start
	# shellcheck disable=SC2064 # the pid is known now
	trap "kill_watch; kill $RESOLVER_PID 2>/dev/null; wait $RESOLVER_PID 2>/dev/null" EXIT
	mkdir -p "$TMP_DIR/lists"
	printf '%s\n' "$SIZING_LISTED" one.test >"$TMP_DIR/lists/one.txt"
	start_watch "${SEED[@]}" --debounce 0.2 "$TMP_DIR/lists/one.txt"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	for k in 0 1 2; do
		# shellcheck disable=SC2046 # one name a word
		bw 0 --json add "$BW_RX" $(seq -f 'added%g.test' $((k * 100 + 1)) $((k * 100 + 100)))
		assert_eq "$(json "$OUT" '[d["added"], d["in_place"], sorted(set(a["result"] for a in d["names"]))]')" \
			'[100,true,["added"]]' "names add $k: all added in place by the watch"
	done
	# 60 first: under the 64 keys a region took past its size before the
	# watch grew it, enough to take a region sized for one far past.
	from=0
	for k in 60 190 250 250 250; do
		# shellcheck disable=SC2046 # one address a word
		bw 0 --json add "$BW_RX" $(sizing_addrs $from $k)
		assert_eq "$(json "$OUT" '[d["added"], d["in_place"], sorted(set(a["result"] for a in d["addresses"]))]')" \
			"[$k,true,[\"added\"]]" "add of $k: all added in place by the watch"
		assert_eq "$(grep -c 'past' "$ERR")" 0 "add of $k: no warning of a rate past its target"
		# At once: not past it until the watch's next turn grows it.
		assert_unlisted_addrs "right after the add of $k"
		from=$((from + k))
	done
	assert_grep "$WATCH_OUT" "$RELOAD_OK.*live entries: the filter's IPv4 addresses (would be )?past its target false-positive rate" \
		"the watch grew the filter for the adds"
	add_rate_checks 1000 300
	stop_watch TERM
	trap - EXIT
	kill "$RESOLVER_PID" 2>/dev/null
	wait "$RESOLVER_PID" 2>/dev/null
}

# An image's filter cannot grow where it runs (issue 29, item 9): with a
# watch serving it, an add that would take it past twice its target is
# not set in place, and add refuses it, saying why; a few adds still go
# in place, and the filter stays within its target.
test_sizing_image_add_refused()
{
	local d=$TMP_DIR/img gen

	trap kill_watch EXIT
	mkdir -p "$d"
	bw 0 build -o "$d/filter.img" "${SEED[@]}" \
		"$(list one.txt "$SIZING_LISTED" one.test)"
	start_watch --debounce 0.2 --image "$d/filter.img"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	gen=$(generation)
	# shellcheck disable=SC2046 # one address a word
	bw 1 add "$BW_RX" $(sizing_addrs 0 250)
	assert_line "$ERR" \
		"$BW_RX: the running filter is an image's, loaded as it was built: it cannot grow here; build the image again with the entries in its lists, or load a larger one" \
		"add says why the image's filter cannot take them"
	assert_grep "$ERR" \
		"^$BW_RX: nothing added: in place, these entries would take the filter's IPv4 addresses past its target false-positive rate \(about [0-9.e+-]+% where it is sized for 0\.1%\), and it cannot grow\$" \
		"and what it refused"
	assert_eq "$(generation)" "$gen" "nothing swapped in"
	query_is 10.78.0.1 pass
	assert_unlisted_addrs "after the refused add"
	# shellcheck disable=SC2046 # one address a word
	bw 0 --json add "$BW_RX" $(sizing_addrs 0 10)
	assert_eq "$(json "$OUT" '[d["added"], d["in_place"]]')" '[10,true]' \
		"10 addresses fit in place"
	query_is 10.78.0.10 drop
	assert_unlisted_addrs "after 10 in place"
	expect_delivered "$BW_A4" "$BW_RX4"
	stop_watch TERM
	trap - EXIT
}
