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
tag=bwurls-$$
ns=$tag
dir=$(mktemp -d /tmp/bwurls.XXXXXX) || exit 1
dev_a=bwu$$a
dev_b=bwu$$b
nginx_pid=
watch_pid=

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2317 # run by the EXIT trap below
cleanup() {
	[ -n "$watch_pid" ] && kill -TERM "$watch_pid" 2>/dev/null && wait "$watch_pid"
	[ -n "$nginx_pid" ] && kill -TERM "$nginx_pid" 2>/dev/null && wait "$nginx_pid"
	in_ns "$bw" detach "$dev_a" >/dev/null 2>&1
	ip netns del "$ns" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v nginx >/dev/null || { echo "bench: no nginx: no list URL figure" >&2; exit 0; }

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

bench_pair $dev_a $dev_b || exit 1
ip -n "$ns" link set dev lo up

echo "bench: urls: $n random addresses" >&2
mkdir -p "$dir/www" "$dir/nginx/tmp" "$dir/state"
random_list "$n" 7 >"$dir/www/list.txt"
touch -d @1700000000 "$dir/www/list.txt"
cat >"$dir/nginx/nginx.conf" <<EOF
user root;
worker_processes 1;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log;
events { worker_connections 64; }
http {
	access_log $dir/nginx/access.log;
	client_body_temp_path $dir/nginx/tmp/body;
	proxy_temp_path $dir/nginx/tmp/proxy;
	fastcgi_temp_path $dir/nginx/tmp/fastcgi;
	uwsgi_temp_path $dir/nginx/tmp/uwsgi;
	scgi_temp_path $dir/nginx/tmp/scgi;
	server { listen 127.0.0.1:18081; root $dir/www; }
}
EOF
nsenter --net="/run/netns/$ns" nginx -c "$dir/nginx/nginx.conf" \
	-g 'daemon off;' >"$dir/nginx/out" 2>&1 &
nginx_pid=$!
for _ in $(seq 100); do
	in_ns curl -s -o /dev/null http://127.0.0.1:18081/ && break
	sleep 0.1
done

url=http://127.0.0.1:18081/list.txt
nsenter --net="/run/netns/$ns" "$bw" watch $dev_a --seed 7 --refresh 1s \
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
