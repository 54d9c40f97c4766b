#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# 'bloomwall remove' of an added address, with a watch running (handed to
# the watch: marked out of the records, its blocks rewritten in place)
# against without one (a rebuild from the N-line list and a swap), the
# real CLI each time, in one run. In a network namespace of its own (a
# veth pair inside it), removed on every exit path.
# Usage: remove.sh BLOOMWALL RESULTS_FILE N [K]
# K removes each way (default 10): their median is reported, and the
# ratio. Appends a table to RESULTS_FILE.

set -u

bw=$1
results=$2
n=$3
k=${4:-10}
ns=bwrm-$$
dir=$(mktemp -d /tmp/bwrm.XXXXXX) || exit 1
dev_a=bwr$$a
dev_b=bwr$$b
watch_pid=

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2317 # run by the EXIT trap below
cleanup() {
	[ -n "$watch_pid" ] && kill -TERM "$watch_pid" 2>/dev/null && wait "$watch_pid"
	in_ns "$bw" detach "$dev_a" >/dev/null 2>&1
	ip netns del "$ns" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_pair $dev_a $dev_b || exit 1

echo "bench: remove: $n random addresses, $k removes each way" >&2
random_list "$n" 11 >"$dir/list.txt"
in_ns "$bw" attach $dev_a --seed 7 "$dir/list.txt" >/dev/null 2>&1 || exit 1

# The addresses added, then removed: documentation's, in no random list.
addrs=()
for i in $(seq "$k"); do
	addrs+=("192.0.2.$i")
done

# remove_each WAY: times each address's remove, one a line into $dir/WAY;
# fails unless each says how it went as WAY expects.
remove_each()
{
	local a t0 t1 out

	: >"$dir/$1"
	for a in "${addrs[@]}"; do
		t0=$(now)
		out=$(in_ns "$bw" remove $dev_a "$a" 2>&1) || {
			echo "bench: remove: $out" >&2
			return 1
		}
		t1=$(now)
		if [ "$1" = watch ] && ! grep -q "^$a  removed in place$" <<<"$out"; then
			echo "bench: remove with a watch, not in place: $out" >&2
			return 1
		fi
		echo "$t1 - $t0" | bc >>"$dir/$1"
	done
}

# Without a watch: each remove a rebuild and a swap.
in_ns "$bw" add $dev_a "${addrs[@]}" >/dev/null || exit 1
remove_each rebuild || exit 1

# With one: the adds handed to it in place, then each remove in place.
# nsenter itself, not in_ns: $! is then the watch, which SIGTERM ends.
nsenter --net="/run/netns/$ns" "$bw" watch $dev_a --seed 7 "$dir/list.txt" \
	>"$dir/watch.out" 2>"$dir/watch.err" &
watch_pid=$!
wait_reloads()
{
	for _ in $(seq 6000); do
		[ "$(grep -c "reload ok" "$dir/watch.out")" -ge "$1" ] && return 0
		kill -0 "$watch_pid" 2>/dev/null || break
		sleep 0.05
	done
	echo "bench: remove: the watch did not rebuild: $(cat "$dir/watch.out" "$dir/watch.err")" >&2
	return 1
}
wait_reloads 1 || exit 1
in_ns "$bw" add $dev_a "${addrs[@]}" >/dev/null || exit 1
remove_each watch || exit 1
reloads=$(grep -c "reload ok" "$dir/watch.out")

m_rebuild=$(median <"$dir/rebuild")
m_watch=$(median <"$dir/watch")
{
	echo
	echo "### remove of one added address, $n listed (the CLI, median of $k)"
	echo
	echo "| way | seconds | what it does |"
	echo "|---|---:|---|"
	echo "| no watch: rebuild and swap | $m_rebuild | parse the list, build, load a program, swap |"
	echo "| a watch running: in place | $m_watch | mark the records (one byte), ask the watch, which rewrites the entry's block; no swap ($((reloads - 1)) rebuilds meanwhile) |"
	echo "| ratio | $(echo "scale=1; $m_rebuild / $m_watch" | bc)x | |"
} | tee -a "$results"
