#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# A list given by URL, kept fresh by a watch: the daemon's time for a
# refresh that nginx answers 304, and for one that brings a changed list
# of N random addresses (download, check that it reads as a list, the copy
# replaced) and the rebuild it sets off, as the watch's own log lines time
# them. In a network namespace of its own (loopback and a veth pair
# inside it), removed on every exit path.
# Usage: urls.sh BLOOMWALL RESULTS_FILE N
# Appends a table to RESULTS_FILE.

set -u

bw=$1
results=$2
n=$3

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
bench_serve_up urls "list URL"

# wait_for ERE [N]: the watch's log has N lines matching ERE (a bound
# that only ends a hang).
wait_for() {
	for _ in $(seq 30000); do
		[ "$(grep -cE "$1" "$dir/watch.out")" -ge "${2:-1}" ] && return 0
		kill -0 "$watch_pid" 2>/dev/null || break
		sleep 0.02
	done
	echo "bench: urls: no /$1/: $(tail -n 3 "$dir/watch.out") $(cat "$dir/watch.err")" >&2
	exit 1
}

echo "bench: urls: $n random addresses" >&2
random_list "$n" 7 >"$dir/www/list.txt"
touch -d @1700000000 "$dir/www/list.txt"
bench_nginx 18081

url=http://127.0.0.1:18081/list.txt
nsenter --net="/run/netns/$ns" "$bw" watch "$dev_a" --seed 7 --refresh 1s \
	--state-dir "$dir/state" "$url" >"$dir/watch.out" 2>"$dir/watch.err" &
watch_pid=$!
wait_for "reload ok"
# Five refreshes answered 304: the median of the watch's times.
wait_for "unchanged \\(HTTP 304, " 5
t_304=$(sed -nE 's/.*unchanged \(HTTP 304, ([0-9.]+) s\).*/\1/p' "$dir/watch.out" | median)
# The list changed on the server: its fetch, then the rebuild it sets off.
random_list "$n" 8 >"$dir/list.new"
touch -d @1700000100 "$dir/list.new"
mv "$dir/list.new" "$dir/www/list.txt"
wait_for "a new copy" 2
wait_for "reload ok" 2
t_new=$(sed -nE 's/.*a new copy, .*HTTP 200, ([0-9.]+) s\).*/\1/p' "$dir/watch.out" | tail -n 1)
t_rebuild=$(grep "reload ok" "$dir/watch.out" | tail -n 1 | sed -nE 's/.* bytes, ([0-9.]+) s \(.*/\1/p')
size=$(stat -c %s "$dir/www/list.txt")
{
	echo
	echo "### A list by URL kept fresh by a watch ($n random addresses, one run)"
	echo
	echo "| refresh | seconds | what the daemon does |"
	echo "|---|---:|---|"
	echo "| answered 304 (median of 5) | $t_304 | a conditional GET, the copy's .meta rewritten |"
	echo "| the list changed | $t_new | download $size bytes, unpack by magic, read it as a list (the checks), fsync and rename the copy |"
	echo "| its rebuild (the watch's child) | $t_rebuild | parse, build, swap (as any changed list file) |"
} | tee -a "$results"
