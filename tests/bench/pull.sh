#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# The fleet's way against the single host's, one run each: a watch --url
# pulling an image of N random addresses from nginx on loopback, checking
# and swapping it in (SIGHUP: a pull at once, unconditional), against
# 'bloomwall reload' of the N-line list. In a network namespace of its own
# (loopback and a veth pair inside it), removed on every exit path.
# Usage: pull.sh BLOOMWALL RESULTS_FILE N
# Appends a table to RESULTS_FILE.

set -u

bw=$1
results=$2
n=$3

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
bench_serve_up pull pull
secs() { printf '%.2f' "$(echo "$2 - $1" | bc)"; }

echo "bench: pull: $n random addresses" >&2
random_list "$n" 7 >"$dir/list.txt"
t0=$(now)
"$bw" build -o "$dir/www/f.img" --seed 7 "$dir/list.txt" >/dev/null || exit 1
t_build=$(secs "$t0" "$(now)")
size=$(stat -c %s "$dir/www/f.img")

in_ns "$bw" attach "$dev_a" --seed 7 "$dir/list.txt" >/dev/null 2>&1 || exit 1
t0=$(now)
in_ns "$bw" reload "$dev_a" --seed 7 "$dir/list.txt" >/dev/null 2>&1 || exit 1
t_reload=$(secs "$t0" "$(now)")

bench_nginx 18080

# A filter runs: the first pull would wait up to an interval; SIGHUP pulls
# at once.
nsenter --net="/run/netns/$ns" "$bw" watch "$dev_a" \
	--url http://127.0.0.1:18080/f.img --interval 3600 \
	--state-dir "$dir/state" >"$dir/watch.out" 2>"$dir/watch.err" &
watch_pid=$!
for _ in $(seq 100); do
	grep -q "pulling from" "$dir/watch.out" && break
	sleep 0.05
done
t0=$(now)
kill -HUP "$watch_pid"
for _ in $(seq 30000); do
	grep -qE "reload (ok|FAILED)" "$dir/watch.out" && break
	sleep 0.02
done
t_pull=$(secs "$t0" "$(now)")
line=$(grep -E "reload (ok|FAILED)" "$dir/watch.out")
swap=$(sed -nE 's/.* bytes, ([0-9.]+) s \(pull.*/\1/p' <<<"$line")
if [ -z "$swap" ]; then
	echo "bench: pull: no swap: $line $(cat "$dir/watch.err")" >&2
	exit 1
fi
{
	echo
	echo "### A fleet's pull against a reload ($n random addresses, one run)"
	echo
	echo "| way | seconds | what it does |"
	echo "|---|---:|---|"
	echo "| bloomwall reload IFACE LIST ($n lines) | $t_reload | parse, build, swap |"
	echo "| watch --url (SIGHUP) from nginx on loopback | $t_pull | download $size bytes to the state directory, fsync, check, swap ($swap s of it the watch's rebuild child) |"
	echo "| (once, on the build host) bloomwall build -o | $t_build | parse, build, write the image |"
} | tee -a "$results"
