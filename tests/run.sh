#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Runs every suite (unit, upper, datapath, end-to-end; side by side, see
# below), then prints one summary line 'N passed, N failed[, N skipped]'
# over all of them. Exit status non-zero if any test failed or any suite
# did not finish.
#
# How the runners count (tests/test_helpers.h for the C suites, the same
# rules in tests/e2e/run.sh):
# - pass: the test made at least one assertion and none failed.
# - fail: an assertion failed, or the test made none and was not skipped
#   ("[NAME] FAIL (no assertion)": a test that checks nothing fails).
# - skip: the test marked itself skipped, saying why (TEST_SKIP, skip); it
#   counts neither way.
# - no match: a name filter (the suite's argument) that matches no test is
#   an error: "SUITE: no test matches 'X'" on stderr, exit 2, no summary.
# - needs root: a suite that cannot run a test without root (datapath,
#   e2e, pkg) says "SUITE: needs root (...)" on stderr and exits 3 before
#   running any, with no summary line.
# Each suite's last line is 'SUITE: N passed, N failed[, N skipped]'. A
# suite that exits without one (no match, needs root, a crash), or exits
# non-zero with no failed test, did not finish cleanly: it is named below
# and counts one failure (each such suite one). So does a suite whose binary
# is missing.
set -u
# A data dir given relative to the caller's directory stays the same dir
# after the cd; unset, every suite takes tests/data from the root.
if [ -n "${BW_DATA_DIR:-}" ]; then
	BW_DATA_DIR=$(realpath -m -- "$BW_DATA_DIR")
	export BW_DATA_DIR
fi
cd "$(dirname "$0")/.." || exit 1

OUT=${OUTPUT:-.output}/tests
export BLOOMWALL=${BLOOMWALL:-$PWD/${OUTPUT:-.output}/bloomwall}
total_pass=0
total_fail=0
total_skip=0
broken=""

# start NAME COMMAND...: runs a suite into $OUT/NAME.log, then writes its
# exit status and seconds to $OUT/NAME.rc.
start() {
	local name=$1 t0=$SECONDS rc
	shift
	"$@" >"$OUT/$name.log" 2>&1
	rc=$?
	echo "$rc $((SECONDS - t0))" >"$OUT/$name.rc"
}

# count NAME: reads the ended suite's log and status into the totals.
count() {
	local name=$1 rc=1 secs=0 line
	local log="$OUT/$name.log"
	# No status: the chain that ran it was killed.
	{ read -r rc secs <"$OUT/$name.rc"; } 2>/dev/null
	took="$took${took:+, }$name $secs s"
	line=$(grep -E '^[a-z0-9_-]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		broken="$broken $name"
		case $rc in
		2) echo "$name: no summary line (exit 2: no test matches)" ;;
		3) echo "$name: no summary line (exit 3: needs root)" ;;
		*) echo "$name: no summary line (exit $rc)" ;;
		esac
		return
	fi
	local p f s
	p=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	s=$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$line")
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + ${s:-0}))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		broken="$broken $name"
		echo "$name: exited $rc"
	fi
}

# The suites side by side: unit, upper and datapath one after another (they
# compute, and are done in a minute or two), e2e and pkg beside them from
# the start (e2e's workers mostly wait; tests/e2e/run.sh). Each writes its
# own log; the quick ones are printed whole once ended, then e2e's as it
# goes, then pkg's, so every suite's lines stay together in the order
# unit, upper, datapath, e2e, pkg.
mkdir -p "$OUT"
rm -f "$OUT"/{unit,upper,datapath,e2e,pkg}.{log,rc}
t0=$SECONDS
took=""
{
	start unit "$OUT/test_unit"
	start upper "$OUT/test_upper"
	start datapath "$OUT/test_datapath"
} &
quick=$!
: >"$OUT/e2e.log"
start e2e tests/e2e/run.sh &
e2e=$!
# The Debian package (make deb, then installed into a debootstrap root):
# beside e2e too, printed after it.
start pkg tests/pkg/run.sh &
for name in unit upper datapath; do
	while [ ! -e "$OUT/$name.rc" ] && kill -0 "$quick" 2>/dev/null; do
		sleep 1
	done
	echo "=== $name"
	cat "$OUT/$name.log"
	count "$name"
done
echo "=== e2e"
tail -n +1 -f --pid="$e2e" "$OUT/e2e.log"
wait
count e2e
echo "=== pkg"
cat "$OUT/pkg.log"
count pkg

echo
echo "suites' seconds: $took; $((SECONDS - t0)) s in all"
echo
if [ -n "$broken" ]; then
	echo "suites that did not finish cleanly:$broken"
	# One failure each: two suites that needed root are two, not one.
	total_fail=$((total_fail + $(wc -w <<<"$broken")))
fi
if [ "$total_skip" -gt 0 ]; then
	echo "$total_pass passed, $total_fail failed, $total_skip skipped"
else
	echo "$total_pass passed, $total_fail failed"
fi
[ "$total_fail" -eq 0 ]
