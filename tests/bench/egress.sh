#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# The host's own traffic on the way out: UDP datagrams sent through the
# stack of namespace A (bench --udp-send) to listed or unlisted
# destinations, out of a veth to namespace B, with no filter, with
# 'bloomwall attach DEV --egress LIST' and with an nftables set of the
# same addresses in the output hook ('ip daddr @s drop', Debian's nft),
# the rows taking turns in every trial, in one run. Datagrams per second
# handed to the stack by one sender, and the ratios; the load time and the
# kernel memory of the nftables set (the rise of /proc/meminfo's Slab and
# VmallocUsed across the load) beside bloomwall's (status: every map of
# both hooks). Both namespaces are the script's own, removed on every exit
# path; the link carries documentation addresses (192.0.2.0/24), the
# destinations are the lists' random addresses and go no further than B.
# Usage: egress.sh BENCH_BINARY BLOOMWALL RESULTS_FILE SIZE[,SIZE] TRIALS SECS
# Appends a table to RESULTS_FILE.

set -u

bin=$1
bw=$2
results=$3
sizes=$4
trials=$5
secs=$6
ns=bwegr-$$
peer=bwegr-$$-b
dev_a=bwe$$a
dev_b=bwe$$b
nft=$(command -v nft || echo /usr/sbin/nft)
cpu=${BENCH_CPU:-1}
dir=$(mktemp -d /tmp/bwegr.XXXXXX) || exit 1

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2317 # run by the EXIT trap below
cleanup() {
	in_ns "$bw" detach "$dev_a" >/dev/null 2>&1
	ip netns del "$ns" 2>/dev/null
	ip netns del "$peer" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -x "$nft" ]; then
	echo "bench: egress: no nft (Debian's nftables); skipped" >&2
	exit 0
fi

bench_pair "$dev_a" "$dev_b" "$peer" || exit 1
ip -n "$ns" addr add 192.0.2.1/24 dev "$dev_a" &&
	ip -n "$peer" addr add 192.0.2.2/24 dev "$dev_b" &&
	ip -n "$ns" route add default via 192.0.2.2 dev "$dev_a" &&
	ip -n "$ns" neigh replace 192.0.2.2 dev "$dev_a" nud permanent \
		lladdr "$(ip -n "$peer" -br link show dev "$dev_b" | awk '{ print $3 }')" ||
	exit 1

# rx_b: packets veth B has received.
rx_b() { ip -n "$peer" -s link show dev "$dev_b" | awk '/RX:/ { getline; print $2; exit }'; }

# meminfo_kb: Slab + VmallocUsed, kB.
meminfo_kb() { awk '/^(Slab|VmallocUsed):/ { s += $2 } END { print s }' /proc/meminfo; }

# send ROW SIZE T: one sender for $secs seconds for each batch size and
# mix; a line each into $dir/rows: size batch mix row trial pps arrived.
send()
{
	local r0 r1 out sent s batch mix

	for batch in 64 1; do
		for mix in unlisted listed; do
			r0=$(rx_b)
			out=$(in_ns taskset -c "$cpu" "$bin" \
				--udp-send "$dir/$mix.dst,$secs,$batch") || return 1
			r1=$(rx_b)
			sent=$(awk '{ print $2 }' <<<"$out")
			s=$(awk '{ print $8 }' <<<"$out")
			echo "$2 $batch $mix $1 $3 $(echo "$sent / $s" | bc -l)" \
				"$(echo "($r1 - $r0) / $sent" | bc -l)" >>"$dir/rows"
		done
	done
}

nft_hook() # on|off: the output chain that drops @s, or none
{
	if [ "$1" = on ]; then
		in_ns "$nft" -f - <<-EOF
			add chain inet bw out { type filter hook output priority 0; }
			add rule inet bw out ip daddr @s drop
		EOF
	else
		in_ns "$nft" -f - <<-EOF
			flush chain inet bw out
			delete chain inet bw out
		EOF
	fi
}

: >"$dir/rows"
: >"$dir/mem"
# Unlisted destinations: 1M others (a random address is listed by chance
# with a chance of N / 3.7e9; bloomwall passes 0.1 % of them as well).
random_list 1048576 29 >"$dir/unlisted.dst"
for n in ${sizes//,/ }; do
	echo "bench: egress: $n random addresses, $trials trials of ${secs}s" >&2
	random_list "$n" 23 >"$dir/list.txt"
	head -n 1048576 "$dir/list.txt" >"$dir/listed.dst"
	{
		echo 'table inet bw {'
		echo '	set s {'
		echo '		type ipv4_addr'
		echo '		elements = {'
		paste -sd, "$dir/list.txt"
		printf '\t\t}\n\t}\n}\n'
	} >"$dir/set.nft"
	m0=$(meminfo_kb)
	t0=$(now)
	in_ns "$nft" -f "$dir/set.nft" || exit 1
	t1=$(now)
	m1=$(meminfo_kb)
	rm -f "$dir/set.nft"
	for t in $(seq "$trials"); do
		send floor "$n" "$t" || exit 1
		in_ns "$bw" attach "$dev_a" --egress "$dir/list.txt" >/dev/null || exit 1
		if [ "$t" = 1 ]; then
			bwmem=$(in_ns "$bw" status "$dev_a" | awk '/kernel memory/ {
				printf "%.1f MiB", $3 / 1048576; exit }')
			bwfilt=$(in_ns "$bw" status "$dev_a" | awk '/memory filter/ {
				printf "%.1f MiB", $3 / 1048576; exit }')
		fi
		send bloomwall "$n" "$t" || exit 1
		in_ns "$bw" detach "$dev_a" >/dev/null || exit 1
		nft_hook on || exit 1
		send nft "$n" "$t" || exit 1
		nft_hook off || exit 1
	done
	m2=$(meminfo_kb)
	in_ns "$nft" delete table inet bw || exit 1
	sleep 1
	m3=$(meminfo_kb)
	printf '%s %.1f %.1f %.1f %s|%s\n' "$n" "$(echo "$t1 - $t0" | bc)" \
		"$(echo "($m1 - $m0) / 1024" | bc -l)" \
		"$(echo "($m2 - $m3) / 1024" | bc -l)" "$bwfilt" "$bwmem" >>"$dir/mem"
done

# stat SIZE BATCH MIX ROW: "median min" Mpps; the median's arrived fraction.
stat()
{
	awk -v n="$1" -v b="$2" -v mix="$3" -v row="$4" \
		'$1 == n && $2 == b && $3 == mix && $4 == row' \
		"$dir/rows" | sort -k6 -g | awk '{ p[NR] = $6; a[NR] = $7 }
		END { m = int((NR + 1) / 2); printf "%.3f %.3f %.4f", p[m] / 1e6, p[1] / 1e6, a[m] }'
}

# ratio SIZE BATCH MIX ROW1 ROW2: the median over the trials of ROW1's
# rate over ROW2's in the same trial (the load of a shared machine drifts
# between trials more than between the rows of one).
ratio()
{
	awk -v n="$1" -v b="$2" -v mix="$3" -v r1="$4" -v r2="$5" '
		$1 == n && $2 == b && $3 == mix && $4 == r1 { x[$5] = $6 }
		$1 == n && $2 == b && $3 == mix && $4 == r2 { y[$5] = $6 }
		END { for (t in x) if (y[t] > 0) print x[t] / y[t] }' "$dir/rows" | median
}

{
	echo
	echo "## The host's own UDP out through a veth: bloomwall --egress against nftables (egress.sh)"
	echo
	echo "| addresses | datagrams a call | destinations | no filter, Mpps | bloomwall --egress | nft ip daddr @s drop | bloomwall / nft | bloomwall / no filter | nft / no filter | arrived at B (no filter / bloomwall / nft) |"
	echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|---|"
	for n in ${sizes//,/ }; do
		for batch in 64 1; do
			for mix in unlisted listed; do
				read -r fm fl fa <<<"$(stat "$n" $batch $mix floor)"
				read -r bm bl ba <<<"$(stat "$n" $batch $mix bloomwall)"
				read -r nm nl na <<<"$(stat "$n" $batch $mix nft)"
				printf '| %s | %s | %s | %.3f (%.3f) | %.3f (%.3f) | %.3f (%.3f) | %.2f | %.2f | %.2f | %.1f %% / %.1f %% / %.1f %% |\n' \
					"$n" $batch $mix "$fm" "$fl" "$bm" "$bl" "$nm" "$nl" \
					"$(ratio "$n" $batch $mix bloomwall nft)" \
					"$(ratio "$n" $batch $mix bloomwall floor)" \
					"$(ratio "$n" $batch $mix nft floor)" "$(echo "$fa * 100" | bc -l)" \
					"$(echo "$ba * 100" | bc -l)" "$(echo "$na * 100" | bc -l)"
			done
		done
	done
	echo
	echo "| addresses | nft -f load | nft set, kernel (Slab + VmallocUsed: rise at load / fall at delete) | bloomwall filter | bloomwall, both hooks |"
	echo "|---:|---:|---:|---:|---:|"
	while read -r n lt up down bwm; do
		printf '| %s | %s s | %s MiB / %s MiB | %s | %s |\n' "$n" "$lt" "$up" "$down" \
			"${bwm%%|*}" "${bwm#*|}"
	done <"$dir/mem"
	echo
	echo "Median (min) of $trials trials of ${secs} s per row, Mpps; the ratios are the medians of each"
	echo "trial's ratio. Datagrams of 18 bytes (60-byte frames)"
	echo "that one UDP socket in namespace A handed to its stack (sendmmsg, 64 or 1 a call) on CPU $cpu, to 1M"
	echo "destinations in turn (listed: the list's first 1M; unlisted: 1M other random addresses), out"
	echo "of veth A to namespace B, whose stack drops them (not its addresses); B's receive runs on the"
	echo "same CPU. Rows take turns in every trial: no filter, bloomwall (attach --egress, then detach),"
	echo "nft (the output chain added, then removed; the set stays loaded). nft's drop returns EPERM to"
	echo "the sender, which ends a sendmmsg batch: one more system call per dropped datagram, part of what"
	echo "nft costs an application (a TC drop returns success to UDP); at 1 a call every row makes one"
	echo "system call a datagram, so those rows compare the hooks alone. Memory: bloomwall's as status"
	echo "reports it (bytes_memlock); nft's from /proc/meminfo, system-wide, on a shared machine."
} >>"$results"
