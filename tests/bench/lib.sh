#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# What the bench scripts that run the CLI in a namespace of their own share
# (sourced: adds.sh, remove.sh, pull.sh, urls.sh). The caller sets $ns, or
# bench_serve_up does.

# in_ns CMD...: CMD in the bench's network namespace.
# shellcheck disable=SC2154 # $ns is the caller's
in_ns() { nsenter --net="/run/netns/$ns" "$@"; }

now() { date +%s.%N; }

# median: of the numbers on stdin, a line each.
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.4f", v[int((NR + 1) / 2)] }'; }

# bench_pair DEV_A DEV_B [PEER_NS]: the namespace $ns with a veth pair
# inside, up; DEV_B in PEER_NS (made here) when given.
bench_pair()
{
	local nb=${3:-$ns}

	ip netns add "$ns" || return 1
	[ "$nb" = "$ns" ] || ip netns add "$nb" || return 1
	ip -n "$ns" link add "$1" type veth peer name "$2" netns "$nb" || return 1
	ip -n "$ns" link set dev "$1" up
	ip -n "$nb" link set dev "$2" up
}

# random_list N SEED: N random IPv4 addresses, a line each (a list).
random_list()
{
	awk -v n="$1" -v seed="$2" 'BEGIN { srand(seed); for (i = 0; i < n; i++)
		printf "%d.%d.%d.%d\n", 1 + int(rand() * 222), int(rand() * 256),
			int(rand() * 256), int(rand() * 256) }'
}

# bench_serve_up NAME WHAT: what a bench of a watch pulling from nginx
# (pull.sh, urls.sh) starts from, its globals set: the namespace $ns
# (bwNAME-PID) with the veth pair $dev_a, $dev_b and its loopback up, the
# directory $dir with www/ (what nginx serves), nginx/ and state/; the
# watch's pid goes in $watch_pid, nginx's in $nginx_pid. Every exit path
# ends them, detaches $dev_a, removes the namespace and the directory.
# Without nginx: no figure for WHAT, exit 0.
bench_serve_up()
{
	ns=bw$1-$$
	dev_a=bw${1:0:1}$$a
	dev_b=bw${1:0:1}$$b
	nginx_pid=
	watch_pid=
	dir=$(mktemp -d "/tmp/bw$1.XXXXXX") || exit 1
	trap bench_serve_down EXIT
	trap 'exit 130' INT TERM
	command -v nginx >/dev/null ||
		{ echo "bench: no nginx: no $2 figure" >&2; exit 0; }
	bench_pair "$dev_a" "$dev_b" || exit 1
	ip -n "$ns" link set dev lo up
	mkdir -p "$dir/www" "$dir/nginx/tmp" "$dir/state"
}

# shellcheck disable=SC2317 # run by bench_serve_up's EXIT trap
bench_serve_down()
{
	[ -n "$watch_pid" ] && kill -TERM "$watch_pid" 2>/dev/null && wait "$watch_pid"
	[ -n "$nginx_pid" ] && kill -TERM "$nginx_pid" 2>/dev/null && wait "$nginx_pid"
	# shellcheck disable=SC2154 # $bw is the caller's
	in_ns "$bw" detach "$dev_a" >/dev/null 2>&1
	ip netns del "$ns" 2>/dev/null
	rm -rf "$dir"
}

# bench_nginx PORT: nginx in $ns serving $dir/www on 127.0.0.1:PORT, once
# it answers (a bound of 10 s).
bench_nginx()
{
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
	server { listen 127.0.0.1:$1; root $dir/www; }
}
EOF
	# nsenter, not in_ns: $! is nginx itself (nsenter runs it in its
	# place), not a subshell.
	nsenter --net="/run/netns/$ns" nginx -c "$dir/nginx/nginx.conf" \
		-g 'daemon off;' >"$dir/nginx/out" 2>&1 &
	nginx_pid=$!
	for _ in $(seq 100); do
		in_ns curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
		sleep 0.1
	done
	echo "bench: nginx does not answer on 127.0.0.1:$1: $(cat "$dir/nginx/error.log" "$dir/nginx/out")" >&2
	exit 1
}
