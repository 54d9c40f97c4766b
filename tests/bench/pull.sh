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
tag=bwpull-$$
ns=$tag
dir=$(mktemp -d /tmp/bwpull.XXXXXX) || exit 1
dev_a=bwp$$a
dev_b=bwp$$b
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

command -v nginx >/dev/null || { echo "bench: no nginx: no pull figure" >&2; exit 0; }
secs() { printf '%.2f' "$(echo "$2 - $1" | bc)"; }

bench_pair $dev_a $dev_b || exit 1
ip -n "$ns" link set dev lo up

echo "bench: pull: $n random addresses" >&2
random_list "$n" 7 >"$dir/list.txt"
mkdir -p "$dir/www" "$dir/nginx/tmp" "$dir/state"
t0=$(now)
"$bw" build -o "$dir/www/f.img" --seed 7 "$dir/list.txt" >/dev/null || exit 1
t_build=$(secs "$t0" "$(now)")
size=$(stat -c %s "$dir/www/f.img")

in_ns "$bw" attach $dev_a --seed 7 "$dir/list.txt" >/dev/null 2>&1 || exit 1
t0=$(now)
in_ns "$bw" reload $dev_a --seed 7 "$dir/list.txt" >/dev/null 2>&1 || exit 1
t_reload=$(secs "$t0" "$(now)")

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
	server { listen 127.0.0.1:18080; root $dir/www; }
}
EOF
nsenter --net="/run/netns/$ns" nginx -c "$dir/nginx/nginx.conf" \
	-g 'daemon off;' >"$dir/nginx/out" 2>&1 &
nginx_pid=$!
for _ in $(seq 100); do
	in_ns curl -s -o /dev/null http://127.0.0.1:18080/ && break
	sleep 0.1
done

# A filter runs: the first pull would wait up to an interval; SIGHUP pulls
# at once.
nsenter --net="/run/netns/$ns" "$bw" watch $dev_a \
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
