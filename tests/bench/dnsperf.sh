#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# End to end, DNS: blocked queries answered per second, unbound answering a
# list of names from local-zone always_refuse against bloomwall answering
# the same list with XDP_TX (action REFUSED) in front of the same unbound.
# dnsperf (Debian's) in namespace A sends the listed names to unbound on
# veth B in namespace B; both namespaces and the veth pair are made here and
# removed on every exit path. Appends a section to RESULTS_FILE.
# Usage: dnsperf.sh BENCH_BINARY RESULTS_FILE [NAMES [SECONDS]]
# Placement: dnsperf on CPU 0, unbound on CPU 1 (one thread). bloomwall's
# program runs in veth B's receive path, on the CPU that sends the query
# (dnsperf's).

set -u

bin=$1
results=$2
names=${3:-100000}
secs=${4:-10}

for t in dnsperf unbound nsenter dig taskset; do
	if ! command -v "$t" >/dev/null; then
		echo "dnsperf.sh: no $t: no end-to-end DNS figure" >&2
		exit 0
	fi
done

tag=bwdp-$$-$RANDOM
nsa=$tag-a
nsb=$tag-b
deva=bwd$$a
devb=bwd$$b
tmp=$(mktemp -d /tmp/bw-dnsperf-XXXXXX)
ub_pid=

# shellcheck disable=SC2317 # run by the EXIT trap below
cleanup() {
	[ -n "$ub_pid" ] && kill "$ub_pid" 2>/dev/null && wait "$ub_pid" 2>/dev/null
	ip netns del "$nsa" 2>/dev/null
	ip netns del "$nsb" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ina() { nsenter --net="/var/run/netns/$nsa" "$@"; }

if ! { ip netns add "$nsa" && ip netns add "$nsb" &&
	ip -n "$nsa" link add "$deva" type veth peer name "$devb" netns "$nsb" &&
	ip -n "$nsa" addr add 10.78.0.1/24 dev "$deva" &&
	ip -n "$nsb" addr add 10.78.0.2/24 dev "$devb" &&
	ip -n "$nsa" link set "$deva" up && ip -n "$nsb" link set "$devb" up &&
	ip -n "$nsa" link set lo up && ip -n "$nsb" link set lo up; }; then
	echo "dnsperf.sh: cannot make the namespaces" >&2
	exit 1
fi

"$bin" --print-names "$names" >"$tmp/names" || exit 1
sed 's/$/ A/' "$tmp/names" >"$tmp/queries"
{
	cat <<EOF
server:
	interface: 10.78.0.2
	port: 53
	access-control: 10.78.0.0/24 allow
	do-daemonize: no
	chroot: ""
	username: ""
	directory: "$tmp"
	pidfile: "$tmp/unbound.pid"
	use-syslog: no
	logfile: "$tmp/unbound.log"
	verbosity: 0
	num-threads: 1
	so-reuseport: no
	module-config: "iterator"
EOF
	sed 's/.*/\tlocal-zone: "&." always_refuse/' "$tmp/names"
	printf 'remote-control:\n\tcontrol-enable: no\n'
} >"$tmp/unbound.conf"
# Not through a function: $! must be unbound itself (nsenter and taskset exec it),
# not a subshell running a function, or the cleanup would leave it running.
nsenter --net="/var/run/netns/$nsb" taskset -c 1 \
	unbound -c "$tmp/unbound.conf" >"$tmp/unbound.out" 2>&1 &
ub_pid=$!
first=$(head -1 "$tmp/names")
for ((n = 0; n < 600; n++)); do
	ina dig +tries=1 +timeout=1 @10.78.0.2 "$first" A 2>/dev/null |
		grep -q "status: REFUSED" && break
	kill -0 "$ub_pid" 2>/dev/null || break
	sleep 0.2
done
if ((n == 600)) || ! kill -0 "$ub_pid" 2>/dev/null; then
	cat "$tmp/unbound.out" "$tmp/unbound.log" 2>/dev/null >&2
	echo "dnsperf.sh: unbound did not answer" >&2
	exit 1
fi

# One dnsperf run; prints "qps completed refused".
perf() {
	local out

	out=$(ina taskset -c 0 dnsperf -s 10.78.0.2 -d "$tmp/queries" \
		-l "$secs" -c 1 -T 1 -q 500 -t 1 2>&1)
	echo "$out" >>"$tmp/dnsperf.log"
	awk '/Queries per second:/ { q = $4 }
	     /Queries completed:/ { c = $3 }
	     /REFUSED/ { for (i = 1; i <= NF; i++) if ($i ~ /REFUSED/) r = $(i + 1) }
	     END { printf "%.0f %s %s\n", q, c, r }' <<<"$out"
}

read -r u_qps u_done u_ref < <(perf)
# bloomwall in front: the same names, answered REFUSED by XDP_TX.
"$bin" --dns-serve "$nsa:$deva:$nsb:$devb,$names" || exit 1
read -r b_qps b_done b_ref < <(perf)
ratio=$(awk -v a="$b_qps" -v b="$u_qps" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
# bloomwall's own rate without a client in the way: the harness's veth
# flood (part a), if it ran, in the same results file.
flood=$(awk -F'|' '/^\| bloomwall \(lookup, REFUSED answer/ { split($6, m, " "); print m[1] * 1000000 }' "$results")

{
	echo "### End to end: blocked queries answered per second (dnsperf)"
	echo
	echo "| answered by | queries/s | completed | REFUSED | x unbound |"
	echo "|---|---:|---:|---|---:|"
	echo "| unbound (local-zone always_refuse, 1 thread, CPU 1) | $u_qps | $u_done | $u_ref | 1.00 |"
	echo "| bloomwall (XDP_TX, action refused) | $b_qps | $b_done | $b_ref | $ratio |"
	echo
	echo "$names listed names (the bench list), every query a listed name, $secs s per run; dnsperf -c 1 -T 1 -q 500 on CPU 0 in namespace A,"
	echo "unbound on 10.78.0.2 in namespace B (veth), bloomwall native XDP on its veth."
	echo "bloomwall's answers are built on CPU 0, in dnsperf's own send path: the rate is dnsperf's, one thread sending and receiving."
	if [ -n "$flood" ] && [ "$u_qps" -gt 0 ] 2>/dev/null; then
		awk -v f="$flood" -v u="$u_qps" 'BEGIN {
			printf "Without the client: bloomwall answers %.0f queries/s on one core in the veth flood above (sender included), %.1fx unbound'"'"'s rate here.\n", f, f / u }'
	fi
	echo
} | tee -a "$results"
