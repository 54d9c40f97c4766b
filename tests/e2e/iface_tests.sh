#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Interfaces that change under the filter, sourced by tests/e2e/run.sh:
# the pins carry the interface's name, the hook the truth. An interface
# re-created under the same name runs nothing, whatever its old pins say;
# a renamed one keeps its program, which the pins under the old name now
# point at.

# The topology's names (BW_RX4, ...) come from scripts/netns.sh via run.sh.
# shellcheck disable=SC2153
# shellcheck disable=SC2034 # read by run.sh, which sources this file
IFACE_TESTS="test_iface_recreated test_iface_renamed"

# Re-created under the same name: no verb pretends that the old filter is
# there; attach starts anew and says it removed the old pins.
test_iface_recreated()
{
	local l

	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	ip link del dev "$BW_RX" || fail "cannot delete $BW_RX"
	bw_topo_pair || fail "cannot make $BW_RX again"
	bw_has_xdp "$BW_RX" && fail "a new $BW_RX came with an XDP program"
	for verb in "reload $BW_RX ${SEED[*]} $l" "add $BW_RX $BW_C4" \
		    "query $BW_RX $BW_A4" "allow $BW_RX $BW_A4"; do
		# shellcheck disable=SC2086 # verb and arguments, split on purpose
		bw 1 $verb
		assert_line "$ERR" "$(msg_not_attached "$BW_RX")" \
			"'${verb%% *}' on the new $BW_RX says nothing runs"
	done
	bw 0 status "$BW_RX"
	assert_kv "$OUT" state "NOT attached: the interface has no XDP program" \
		"status: nothing runs"
	assert_kv "$OUT" pins \
		"left behind; 'bloomwall detach $BW_RX' removes them" \
		"status: the old pins are named as left behind"
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	assert_line "$ERR" \
		"note: $BW_RX: removing the pins an earlier bloomwall left under $BW_PIN_ROOT/$BW_RX (nothing of it runs there)" \
		"attach removes the old pins and says so"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
}

# Renamed: detach of the old name does not claim a detach, the new name
# runs and answers, and its first mutating verb moves the pins over.
test_iface_renamed()
{
	local l old=$BW_RX new

	new=bwn-$BW_ID
	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$l"
	if ! ip link set dev "$old" down || ! ip link set dev "$old" name "$new" ||
		! ip link set dev "$new" up; then
		fail "cannot rename $old"
	fi
	BW_RX=$new # teardown removes the pair by this name
	bw 1 detach "$old"
	assert_line "$ERR" \
		"$old: bloomwall is not attached here; the program pinned for $old runs on $new (renamed?): 'bloomwall detach $new' detaches it" \
		"detach of the old name names the new one"
	[ -e "$BW_PIN_ROOT/$old/prog" ] || fail "detach removed the pins of a program that runs"
	bw_has_xdp "$new" || fail "the program left $new"
	# Its counters are pinned under the old name until a verb moves them.
	assert_eq "$(bw_ping "$BW_A4" "$BW_RX4")" 0 "$new still drops $BW_A4"
	bw 0 query "$new" "$BW_A4" "$BW_B4"
	assert_line "$OUT" "$BW_A4  drop (in blocklist /32 region)" \
		"query by the new name"
	bw 0 status "$old"
	assert_kv "$OUT" state \
		"NOT attached here: the program pinned for $old runs on $new (renamed?)" \
		"status of the old name"
	bw 0 reload "$new" "${SEED[@]}" "$(list b.txt "$BW_B4")"
	assert_line "$ERR" \
		"note: removed the pins under $BW_PIN_ROOT/$old: they named the program of $new (renamed from $old?)" \
		"reload moves the pins to the new name"
	[ ! -e "$BW_PIN_ROOT/$old" ] || fail "the old name's pins are still there"
	bw 0 status "$new"
	assert_kv "$OUT" pins "$BW_PIN_ROOT/$new (name what runs)" \
		"the new name's pins name what runs"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"
	bw 0 detach "$new"
	[ ! -e "$BW_PIN_ROOT/$new" ] || fail "pins left after detach"
}
