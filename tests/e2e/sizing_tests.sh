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
SIZING_TESTS="test_sizing_fpr_kept test_sizing_add_everything"

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
