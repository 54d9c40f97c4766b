# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# Swaps under load (issue 10, item 11): reload after reload, alternating two
# lists, while tests/load/flood sends frames across the veth pair from three
# sets of sources: in both lists, in A only, in neither. Not one frame from
# "both" may pass and not one from "neither" may be dropped, whichever filter
# runs and however a swap falls, and none may be lost before the filter
# (the hook without a program for a moment; frames a full veth ring
# drops are counted apart, by the veth); "A only" is judged by
# whichever filter ran, and its split is reported. Sourced by tests/e2e/run.sh, whose helpers it
# uses (bw, list, assert_line, assert_eq, generation, fail, skip).
#
# Bounded by counts, not time: LOAD_RELOADS reloads (default 50) while
# LOAD_FRAMES frames at least (default 500,000) reach the filter. make soak
# runs it with 1,000 and 10,000,000 (tests/load/load.mk).
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $LOAD_TESTS"

# shellcheck disable=SC2034 # read by tests/e2e/run.sh, which sources this
LOAD_TESTS="test_reload_under_load"

# load_addrs BASE N: BASE.1 ... BASE.N, one a line.
load_addrs()
{
	local i

	for ((i = 1; i <= $2; i++)); do
		echo "$1.$i"
	done
}

# load_verdicts VERDICT ADDR...: prints the ADDRs that `bloomwall query`
# judges VERDICT ("drop" or "pass") on $BW_RX's running filter.
load_verdicts()
{
	local want=$1

	shift
	"$BLOOMWALL" query "$BW_RX" "$@" |
		awk -v w="$want" '$2 == w { print $1 }'
}

# load_field SET KEY: KEY=N of flood's line for SET.
load_field()
{
	sed -nE "s/^set $1 .*\\<$2=([0-9]+).*/\\1/p" "$TMP_DIR/flood.out"
}

test_reload_under_load()
{
	local flood=${FLOOD:-$(dirname "$BLOOMWALL")/load/flood}
	local reloads=${LOAD_RELOADS:-50} frames=${LOAD_FRAMES:-500000}
	local la lb both aonly bonly cand neither n pid s sent judged lost=0 ring=0 fp

	[ -x "$flood" ] || skip "no traffic generator $flood (make build-tests)"
	mapfile -t both < <(load_addrs 198.18.1 64)
	mapfile -t aonly < <(load_addrs 198.18.2 64)
	mapfile -t bonly < <(load_addrs 198.18.4 64)
	mapfile -t cand < <(load_addrs 198.18.3 96)
	la=$(list a.txt "${both[@]}" "${aonly[@]}")
	lb=$(list b.txt "${both[@]}" "${bonly[@]}")

	# Both filters, as the reloads will build them (fixed seeds): the
	# listed sources drop in each, and "neither" keeps only the candidates
	# that pass in each (no false positive of either filter).
	bw 0 attach "$BW_RX" --seed 4243 "$lb"
	assert_eq "$(load_verdicts drop "${both[@]}" | wc -l)" 64 \
		"filter B drops every source in both lists"
	mapfile -t cand < <(load_verdicts pass "${cand[@]}")
	# Filter B's false positives among "A only" (dropped under both).
	fp=$(load_verdicts drop "${aonly[@]}" | wc -l)
	bw 0 reload "$BW_RX" --seed 4242 "$la"
	assert_eq "$(load_verdicts drop "${both[@]}" "${aonly[@]}" | wc -l)" 128 \
		"filter A drops every source in A"
	mapfile -t neither < <(load_verdicts pass "${cand[@]}" | head -n 64)
	[ "${#neither[@]}" -ge 32 ] ||
		fail "only ${#neither[@]} of 96 candidates pass in both filters"
	printf '%s\n' "${both[@]}" >"$TMP_DIR/both.src"
	printf '%s\n' "${aonly[@]}" >"$TMP_DIR/aonly.src"
	printf '%s\n' "${neither[@]}" >"$TMP_DIR/neither.src"

	"$flood" "$BW_NS:$BW_TX" "$BW_RX" "$BW_PIN_ROOT/$BW_RX/stats" \
		"$TMP_DIR/both.src" "$TMP_DIR/aonly.src" "$TMP_DIR/neither.src" \
		"$frames" "$TMP_DIR/ready" "$TMP_DIR/until" \
		>"$TMP_DIR/flood.out" 2>&1 &
	pid=$!
	# Every reload falls while traffic flows: the first once it flows,
	# and the generator stops only after the last.
	while [ ! -e "$TMP_DIR/ready" ]; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[ -e "$TMP_DIR/ready" ] || { cat "$TMP_DIR/flood.out"; fail "no traffic"; }
	for ((n = 1; n <= reloads; n++)); do
		if ((n % 2)); then
			"$BLOOMWALL" reload "$BW_RX" --seed 4243 "$lb" >/dev/null
		else
			"$BLOOMWALL" reload "$BW_RX" --seed 4242 "$la" >/dev/null
		fi || { touch "$TMP_DIR/until"; fail "reload $n failed"; }
	done
	touch "$TMP_DIR/until"
	wait "$pid" || { cat "$TMP_DIR/flood.out"; fail "flood exited $?"; }
	sed 's/^/  /' "$TMP_DIR/flood.out"
	assert_eq "$(generation)" $((reloads + 2)) "one generation per reload"

	sent=0
	for s in both a_only neither; do
		[ -n "$(load_field $s sent)" ] || fail "no figures for set $s"
		sent=$((sent + $(load_field $s sent)))
		lost=$((lost + $(load_field $s lost)))
		ring=$((ring + $(load_field $s ring)))
	done
	judged=$((sent - ring - lost))
	echo "  $reloads reloads while $judged frames reached the filter" \
		"($sent sent; before it, $ring dropped by the veth's full ring," \
		"$lost lost otherwise);" \
		"misjudged: both $(load_field both passed)," \
		"neither $(load_field neither dropped);" \
		"A only: $(load_field a_only dropped) dropped (filter A;" \
		"$fp of its 64 sources are false positives of B)," \
		"$(load_field a_only passed) passed (filter B)"
	[ "$judged" -ge "$frames" ] ||
		fail "only $judged frames reached the filter, wanted $frames"
	# A frame the receiving veth took in no counter: its hook was without
	# a program (what a swap with a gap shows here: without XDP, a veth
	# takes no XDP frames). A full ring (a busy machine's receiver behind
	# the sender) is counted by the veth, and is no swap's doing.
	assert_eq "$lost" 0 "frames lost before the filter, not to a full ring"
	assert_eq "$(load_field both passed)" 0 \
		"frames from sources in both lists that passed"
	assert_eq "$(load_field neither dropped)" 0 \
		"frames from sources in neither list that were dropped"
}
