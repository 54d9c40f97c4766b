# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# The kill sweep over attach --egress, reload, add and detach. Sourced by
# tests/e2e/run.sh after crash_tests.sh and egress_tests.sh, whose helpers
# it uses (crash_judge, crash_frame, crash_dns_frame, crash_reset,
# crash_cmd; egress_status_json).
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $EGRESS_CRASH_TESTS"

# shellcheck disable=SC2034 # read by tests/e2e/run.sh, which sources this
EGRESS_CRASH_TESTS="test_crash_sweep_egress"

# ---------------------------------------------------- the kill sweep, egress
# crash_tests.sh's machinery (crash_points, crash_judge) over attach
# --egress, reload, add and detach, judging both hooks after each kill,
# once the lock is free: the XDP program by crash_judge, the egress
# program at bloomwall's handle by egress_judge on frames from this host
# to A, B and C.

# egress_frame DST FILE: an Ethernet/IPv4/UDP frame from $BW_RX4 to DST.
egress_frame()
{
	python3 - "$1" "$2" "$BW_RX4" <<'PY'
import socket, struct, sys

dst, path, src = sys.argv[1], sys.argv[2], sys.argv[3]
eth = bytes.fromhex("020000000002" "020000000001") + b"\x08\x00"
udp = struct.pack("!HHHH", 5000, 4000, 12, 0) + b"ping"
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                 socket.inet_aton(src), socket.inet_aton(dst))
open(path, "wb").write(eth + ip + udp)
PY
}

# egress_judge: "eA:drop eB:pass eC:pass", the egress program's verdicts
# (TC_ACT_SHOT 2, TC_ACT_OK 0), or "enone" when $BW_RX's egress hook runs
# no bloomwall program.
egress_judge()
{
	local id a rv out=""

	id=$(bpftool -j net show dev "$BW_RX" | python3 -c '
import json, sys
for d in json.load(sys.stdin):
    for h in d.get("tc", []):
        if h.get("name", "").startswith("bloomwall_tc") and \
                "egress" in h.get("kind", ""):
            print(h["id"])')
	if [ -z "$id" ]; then
		echo enone
		return
	fi
	for a in A B C; do
		rv=$(bpftool prog run id "$id" data_in "$TMP_DIR/eframe.$a" \
			repeat 1 2>&1 | sed -nE 's/.*[Rr]eturn value: ([0-9]+).*/\1/p')
		case $rv in
		2) out="$out e$a:drop" ;;
		0) out="$out e$a:pass" ;;
		*) out="$out e$a:?$rv" ;;
		esac
	done
	echo "${out# }"
}

egress_crash_setup()
{
	crash_reset
	[ "$1" = attach ] && return 0
	"$BLOOMWALL" attach "$BW_RX" --egress --mode native "${SEED[@]}" \
		"$TMP_DIR/a.txt" >/dev/null 2>&1
}

egress_crash_cmd()
{
	case $1 in
	attach) echo "attach $BW_RX --egress --mode native ${SEED[*]} $TMP_DIR/a.txt" ;;
	*) crash_cmd "$1" ;;
	esac
}

# egress_crash_hooks: "XDP verdicts|egress verdicts" once the lock is
# free (a killed command's guard brings the egress hook to the XDP hook's
# filter, then lets go of the lock: hooks_guard.h). flock only waits: it
# changes nothing a judge then reads.
egress_crash_hooks()
{
	[ -d "$BW_PIN_ROOT" ] && flock "$BW_PIN_ROOT" true
	echo "$(crash_judge)|$(egress_judge)"
}

# egress_crash_verb VERB OLD NEW: kills VERB at crash_points' points (of
# each kind of state change every other one: the two hooks' netlink
# requests are a few sendto apart); once the lock is free both hooks must
# judge as OLD or NEW ("XDP verdicts|egress verdicts"): one hook old and
# the other new is a failure. Then the next command must bring both to
# one filter.
egress_crash_verb()
{
	local verb=$1 old=$2 new=$3 cmd s k got x e points=0 bad=0

	cmd=$(egress_crash_cmd "$verb")
	crash_points "$verb" egress_crash 2 >"$TMP_DIR/points.$verb"
	while read -r s k; do
		points=$((points + 1))
		egress_crash_setup "$verb"
		# shellcheck disable=SC2086 # the command line, split on purpose
		{ strace -qq -o /dev/null -e trace="$s" \
			-e inject="$s":signal=SIGKILL:when="$k" \
			"$BLOOMWALL" $cmd >/dev/null 2>&1; } 2>/dev/null
		got=$(egress_crash_hooks)
		if [ "$got" != "$old" ] && [ "$got" != "$new" ]; then
			echo "  $verb killed at $s #$k: '$got' (old '$old', new '$new')"
			bad=$((bad + 1))
			continue
		fi
		# The next command brings both hooks to one filter (a.txt's).
		if [ "${got%|*}" = none ]; then
			timeout 20 "$BLOOMWALL" attach "$BW_RX" --egress --mode native \
				"${SEED[@]}" "$TMP_DIR/a.txt" >"$TMP_DIR/r.out" 2>&1
		else
			timeout 20 "$BLOOMWALL" reload "$BW_RX" --egress "${SEED[@]}" \
				"$TMP_DIR/a.txt" >"$TMP_DIR/r.out" 2>&1
		fi || {
			echo "  $verb killed at $s #$k: the next command failed: $(tail -n 1 "$TMP_DIR/r.out")"
			bad=$((bad + 1))
			continue
		}
		# Both hooks on one filter: the same verdicts for A, B and C (a
		# reload keeps what add added).
		x=$(crash_judge)
		e=$(egress_judge)
		if [ "${x% D:*}" != "${e//e/}" ] ||
			[ "${x%% *}" != "A:drop" ]; then
			echo "  $verb killed at $s #$k: after the next command: '$x|$e'"
			bad=$((bad + 1))
		fi
	done <"$TMP_DIR/points.$verb"
	echo "egress crash sweep: $verb: $points points, $bad inconsistent"
	EGRESS_POINTS=$((EGRESS_POINTS + points))
	EGRESS_BAD=$((EGRESS_BAD + bad))
}

test_crash_sweep_egress()
{
	local a="A:drop B:pass C:pass D:pass|eA:drop eB:pass eC:pass"

	command -v strace >/dev/null || skip "strace is not installed"
	list a.txt "$BW_A4" >/dev/null
	list b.txt "$BW_B4" >/dev/null
	crash_frame "$BW_A4" "$TMP_DIR/frame.A"
	crash_frame "$BW_B4" "$TMP_DIR/frame.B"
	crash_frame "$BW_C4" "$TMP_DIR/frame.C"
	crash_dns_frame 10.77.0.9 "$TMP_DIR/frame.D"
	egress_frame "$BW_A4" "$TMP_DIR/eframe.A"
	egress_frame "$BW_B4" "$TMP_DIR/eframe.B"
	egress_frame "$BW_C4" "$TMP_DIR/eframe.C"
	EGRESS_POINTS=0
	EGRESS_BAD=0
	egress_crash_verb attach "none|enone" "$a"
	egress_crash_verb reload "$a" \
		"A:pass B:drop C:pass D:pass|eA:pass eB:drop eC:pass"
	egress_crash_verb add "$a" \
		"A:drop B:drop C:pass D:pass|eA:drop eB:drop eC:pass"
	egress_crash_verb detach "$a" "none|enone"
	echo "egress crash sweep: $EGRESS_POINTS points, $EGRESS_BAD inconsistent"
	[ "$EGRESS_POINTS" -gt 0 ] || fail "no point to kill at"
	assert_eq "$EGRESS_BAD" 0 "inconsistent states after a kill"
}
