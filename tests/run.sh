#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Runs every suite (unit, datapath, end-to-end), then prints one summary
# line 'N passed, N failed' over all of them. Exit status non-zero if any
# test failed or any suite did not finish.
set -u
# A data dir given relative to the caller's directory stays the same dir
# after the cd; unset, every suite takes ../shared/data from the root.
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

run_suite() {
	local name=$1
	shift
	local log="$OUT/$name.log"
	echo "=== $name"
	"$@" 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]}
	local line
	line=$(grep -E '^[a-z0-9_-]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		broken="$broken $name"
		echo "$name: no summary line (exit $rc)"
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

mkdir -p "$OUT"
run_suite unit "$OUT/test_unit"
run_suite upper "$OUT/test_upper"
run_suite datapath "$OUT/test_datapath"
run_suite e2e tests/e2e/run.sh

echo
if [ -n "$broken" ]; then
	echo "suites that did not finish cleanly:$broken"
	total_fail=$((total_fail + 1))
fi
if [ "$total_skip" -gt 0 ]; then
	echo "$total_pass passed, $total_fail failed, $total_skip skipped"
else
	echo "$total_pass passed, $total_fail failed"
fi
[ "$total_fail" -eq 0 ]
