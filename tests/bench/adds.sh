#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# 'bloomwall add' with a watch running: handed to the watch and applied in
# place, against BLOOMWALL_ADD_SWAP=1 (the CLI copies the running filter,
# sets the bits and swaps the copy in; the watch then takes that filter
# over with a rebuild from the lists), the real CLI each time, in one run.
# Three tables: one add (median of K) at N1 listed; BANS fail2ban-style
# bans (add --timeout 1h, a process each) and as many unbans (remove) at
# N2 listed, both ways; remove of 5,000 of 100,000 added entries at N2
# listed, with its verdicts checked by query, then BANS single adds with
# the 95,000 left held. In a network namespace of
# its own (a veth pair inside it), removed on every exit path.
# Usage: adds.sh BLOOMWALL RESULTS_FILE N1 [K [N2 [BANS [SWAP_BANS]]]]
# Defaults: K 20, N2 100000, BANS 1000, SWAP_BANS BANS (the old way's
# bans, fewer where it is too slow). Appends three tables to RESULTS_FILE.

set -u

bw=$1
results=$2
n1=$3
k=${4:-20}
n2=${5:-100000}
bans=${6:-1000}
swap_bans=${7:-$bans}
ns=bwad-$$
dir=$(mktemp -d /tmp/bwad.XXXXXX) || exit 1
dev_a=bwd$$a
dev_b=bwd$$b
watch_pid=
wout=
hz=$(getconf CLK_TCK)

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

stop_watch()
{
	[ -n "$watch_pid" ] && kill -TERM "$watch_pid" 2>/dev/null && wait "$watch_pid"
	watch_pid=
}

# shellcheck disable=SC2317 # run by the EXIT trap below
cleanup() {
	stop_watch
	in_ns "$bw" detach "$dev_a" >/dev/null 2>&1
	ip netns del "$ns" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ratio() { echo "scale=1; $1 / $2" | bc; }
since() { awk -v a="$1" -v b="$(now)" -v c="${2:-0}" 'BEGIN { printf "%.2f", b - a - c }'; }
dt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
reloads() { grep -c "reload ok" "$wout"; }

# CPU seconds of the watch: its own and its rebuild children's (waited for).
watch_cpu()
{
	awk -v hz="$hz" '{ printf "%.2f", ($14 + $15 + $16 + $17) / hz }' \
		"/proc/$watch_pid/stat"
}

# rand_addrs N SEED FIRST: N distinct random IPv4 addresses, a line each,
# the first octet from FIRST up (FIRST..FIRST+9: apart from each other).
rand_addrs()
{
	awk -v n="$1" -v seed="$2" -v first="$3" 'BEGIN { srand(seed)
		while (c < n) {
			a = sprintf("%d.%d.%d.%d", first + int(rand() * 10),
				int(rand() * 256), int(rand() * 256), 1 + int(rand() * 254))
			if (!(a in seen)) { seen[a] = 1; print a; c++ }
		} }'
}

# start_watch LIST: attaches LIST, then a watch of it; waits for its build.
# nsenter itself, not in_ns: $! is then the watch, which SIGTERM ends.
start_watch()
{
	in_ns "$bw" detach "$dev_a" >/dev/null 2>&1
	in_ns "$bw" attach $dev_a --seed 7 "$1" >/dev/null 2>&1 || return 1
	wout=$dir/watch-$(basename "$1").out
	nsenter --net="/run/netns/$ns" "$bw" watch $dev_a --seed 7 "$1" \
		>"$wout" 2>"$wout.err" &
	watch_pid=$!
	wait_reloads 1
}

# wait_reloads N: until the watch has said "reload ok" N times.
wait_reloads()
{
	for _ in $(seq 60000); do
		[ "$(reloads)" -ge "$1" ] && return 0
		kill -0 "$watch_pid" 2>/dev/null || break
		sleep 0.01
	done
	echo "bench: adds: the watch did not rebuild: $(cat "$wout" "$wout.err")" >&2
	return 1
}

# settle: until the watch has said no "reload ok" for 3 s.
settle()
{
	local last=-1 same=0 r

	while [ $same -lt 30 ]; do
		r=$(reloads)
		if [ "$r" = "$last" ]; then
			same=$((same + 1))
		else
			same=0
			last=$r
		fi
		sleep 0.1
	done
}

bench_pair $dev_a $dev_b || exit 1

# 1. One add, K times each way, at N1 listed.
echo "bench: adds: one add, $n1 listed, $k each way" >&2
random_list "$n1" 11 >"$dir/list1"
start_watch "$dir/list1" || exit 1

: >"$dir/inplace"
r0=$(reloads)
c0=$(watch_cpu)
for i in $(seq "$k"); do
	a=192.0.2.$i
	t0=$(now)
	out=$(in_ns "$bw" add $dev_a "$a" 2>&1 </dev/null) || {
		echo "bench: adds: $out" >&2
		exit 1
	}
	t1=$(now)
	grep -q "1 of 1 added in place by the watch (no swap)" <<<"$out" || {
		echo "bench: adds: with a watch, not in place: $out" >&2
		exit 1
	}
	echo "$t1 - $t0" | bc >>"$dir/inplace"
done
sleep 1.5 # a rebuild the adds set off would show here
c1=$(watch_cpu)
rb_inplace=$(($(reloads) - r0))

: >"$dir/swap"
: >"$dir/swap_total"
c2=$(watch_cpu)
for i in $(seq "$k"); do
	a=198.51.100.$i
	r=$(reloads)
	t0=$(now)
	out=$(in_ns env BLOOMWALL_ADD_SWAP=1 "$bw" add $dev_a "$a" 2>&1) || {
		echo "bench: adds: $out" >&2
		exit 1
	}
	t1=$(now)
	if grep -q "in place" <<<"$out"; then
		echo "bench: adds: BLOOMWALL_ADD_SWAP=1 went in place: $out" >&2
		exit 1
	fi
	wait_reloads $((r + 1)) || exit 1
	t2=$(now)
	echo "$t1 - $t0" | bc >>"$dir/swap"
	echo "$t2 - $t0" | bc >>"$dir/swap_total"
done
settle
c3=$(watch_cpu)
rb_swap=$(($(reloads) - r0 - rb_inplace))
takeovers=$(grep -c "reload ok.*a filter another command swapped in" "$wout")
stop_watch

m_in=$(median <"$dir/inplace")
m_sw=$(median <"$dir/swap")
m_swt=$(median <"$dir/swap_total")
cpu_in=$(awk -v a="$c0" -v b="$c1" -v k="$k" 'BEGIN { printf "%.3f (%.2f for %d)", (b - a) / k, b - a, k }')
cpu_sw=$(awk -v a="$c2" -v b="$c3" -v k="$k" 'BEGIN { printf "%.3f (%.2f for %d)", (b - a) / k, b - a, k }')
{
	echo
	echo "### add of one address under a watch, $n1 listed (median of $k)"
	echo
	echo "| way | CLI seconds | until the watch's takeover | watch CPU s per add | rebuilds |"
	echo "|---|---:|---:|---:|---:|"
	echo "| in place (handed to the watch) | $m_in | - (none) | $cpu_in | $rb_inplace |"
	echo "| BLOOMWALL_ADD_SWAP=1 (copy and swap, watch takes over) | $m_sw | $m_swt | $cpu_sw | $rb_swap ($takeovers takeovers) |"
	echo "| ratio (swap / in place) | $(ratio "$m_sw" "$m_in")x | $(ratio "$m_swt" "$m_in")x | | |"
} | tee -a "$results"

# 2. and 3. at N2 listed.
random_list "$n2" 13 >"$dir/list2"
start_watch "$dir/list2" || exit 1
rand_addrs "$bans" 21 223 >"$dir/bans_inplace"
rand_addrs "$swap_bans" 22 233 >"$dir/bans_swap"

# ban_unban WAY FILE: a ban (add --timeout 1h) per line of FILE, a process
# each, then an unban (remove) each; a line each, "WAY bans|unbans wall
# cli_cpu by_swap watch_cpu rebuilds to_last_takeover", into $dir/row2.
# CPU: the CLI's (nsenter and bloomwall, waited for) and the watch's.
ban_unban()
{
	local way=$1 file=$2 env=() n swapped t0 t1 t2 t3 w0 w1 w2 r0 r1 r2 cli

	[ "$way" = swap ] && env=(BLOOMWALL_ADD_SWAP=1)
	r0=$(reloads)
	w0=$(watch_cpu)
	t0=$(now)
	cli=$(
		n=0
		swapped=0
		while read -r a; do
			n=$((n + 1))
			out=$(in_ns env "${env[@]}" "$bw" add $dev_a --timeout 1h "$a" 2>&1) || {
				echo "bench: adds: $out" >&2
				exit 1
			}
			# Not in place where the add log is full: counted.
			if [ "$way" = inplace ] && ! grep -q "added in place" <<<"$out"; then
				echo "bench: adds: ban $n by a swap: $(tail -n 1 <<<"$out")" >&2
				swapped=$((swapped + 1))
			fi
		done <"$file"
		awk -v hz="$hz" -v s="$swapped" '{ printf "%.2f %d", ($16 + $17) / hz, s }' "/proc/$BASHPID/stat"
	) || return 1
	t1=$(now)
	t2=-
	if [ "$way" = swap ]; then
		settle
		t2=$(since "$t0" 3) # settle's 3 s after it
	fi
	w1=$(watch_cpu)
	r1=$(reloads)
	echo "$way bans $(dt "$t0" "$t1") $cli $(dt "$w0" "$w1") $((r1 - r0)) $t2" >>"$dir/row2"
	t2=$(now)
	cli=$(
		while read -r a; do
			out=$(in_ns "$bw" remove $dev_a "$a" 2>&1) || {
				echo "bench: adds: $out" >&2
				exit 1
			}
			grep -q "^$a  removed in place$" <<<"$out" || {
				echo "bench: adds: unban not in place: $out" >&2
				exit 1
			}
		done <"$file"
		awk -v hz="$hz" '{ printf "%.2f -", ($16 + $17) / hz }' "/proc/$BASHPID/stat"
	) || return 1
	t3=$(now)
	sleep 1.5
	w2=$(watch_cpu)
	r2=$(reloads)
	echo "$way unbans $(dt "$t2" "$t3") $cli $(dt "$w1" "$w2") $((r2 - r1)) -" >>"$dir/row2"
}

# verdicts FILE WANT: fails unless query says WANT (drop or pass) for each.
verdicts()
{
	local got

	mapfile -t q <"$1"
	got=$(in_ns "$bw" query $dev_a "${q[@]}" | awk '{ print $2 }' | sort | uniq -c)
	if [ "$(awk -v w="$2" '$2 == w { print $1 }' <<<"$got")" != "${#q[@]}" ]; then
		echo "bench: adds: $1: want $2 for ${#q[@]}, got: $got" >&2
		return 1
	fi
}

echo "bench: adds: $bans bans and unbans in place, $swap_bans by swap, $n2 listed" >&2
: >"$dir/row2"
ban_unban inplace "$dir/bans_inplace" || exit 1
head -50 "$dir/bans_inplace" >"$dir/sample"
verdicts "$dir/sample" pass || exit 1
ban_unban swap "$dir/bans_swap" || exit 1
head -50 "$dir/bans_swap" >"$dir/sample"
verdicts "$dir/sample" pass || exit 1

{
	echo
	echo "### $bans fail2ban-style bans (add --timeout 1h) then $bans unbans (remove), a process each, $n2 listed"
	[ "$swap_bans" != "$bans" ] && echo && echo "BLOOMWALL_ADD_SWAP=1: $swap_bans bans and unbans (the old way is too slow for $bans here)."
	echo
	echo "| way | what | count | by a swap | wall s | CLI CPU s | watch CPU s | CLI + watch CPU s | per op ms (wall) | rebuilds | wall s to the last takeover |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	while read -r way what wall cli sw wcpu rb last; do
		cnt=$bans
		[ "$way" = swap ] && cnt=$swap_bans
		label="in place (handed to the watch)"
		[ "$way" = swap ] && label="BLOOMWALL_ADD_SWAP=1 (copy and swap)"
		[ "$what" = unbans ] && label="$label; remove in place"
		[ "$way" = swap ] && [ "$what" = bans ] && sw=all
		echo "| $label | $what | $cnt | $sw | $wall | $cli | $wcpu | $(awk "BEGIN { printf \"%.2f | %.1f\", $cli + $wcpu, 1000 * $wall / $cnt }") | $rb | $last |"
	done <"$dir/row2"
	read -r _ _ w_in c_in _ wc_in _ <"$dir/row2"
	read -r _ _ w_sw c_sw _ wc_sw _ < <(sed -n 3p "$dir/row2")
	echo "| ratio of the bans per ban (swap / in place) | | | | $(awk "BEGIN { printf \"%.1f\", ($w_sw / $swap_bans) / ($w_in / $bans) }")x | | | $(awk "BEGIN { printf \"%.1f\", (($c_sw + $wc_sw) / $swap_bans) / (($c_in + $wc_in) / $bans) }")x | | | |"
} | tee -a "$results"

# 3. 100,000 added in 5 commands of 20,000, then one remove of 5,000.
echo "bench: adds: remove of 5000 of 100000 added, $n2 listed" >&2
rand_addrs 100000 31 210 >"$dir/added"
r0=$(reloads)
t0=$(now)
for i in 0 1 2 3 4; do
	mapfile -t part < <(sed -n "$((i * 20000 + 1)),$(((i + 1) * 20000))p" "$dir/added")
	out=$(in_ns "$bw" add $dev_a "${part[@]}" 2>&1) || {
		echo "bench: adds: $(tail -3 <<<"$out")" >&2
		exit 1
	}
	tail -1 <<<"$out" >>"$dir/add_lines"
done
t1=$(now)
settle
r1=$(reloads)
mapfile -t gone < <(awk 'NR % 20 == 7' "$dir/added")
t2=$(now)
out=$(in_ns "$bw" remove $dev_a "${gone[@]}" 2>&1) || {
	echo "bench: adds: $(tail -3 <<<"$out")" >&2
	exit 1
}
t3=$(now)
inplace=$(grep -c "  removed in place$" <<<"$out")
sleep 1.5
r2=$(reloads)
awk 'NR % 20 == 7 && NR % 500 == 7' "$dir/added" >"$dir/sample"
verdicts "$dir/sample" pass || exit 1
awk 'NR % 20 != 7 && NR % 500 == 8' "$dir/added" >"$dir/sample2"
verdicts "$dir/sample2" drop || exit 1
head -200 "$dir/list2" >"$dir/sample3"
verdicts "$dir/sample3" drop || exit 1
# BANS single adds (a process each) with the 95,000 left held: each one
# the watch takes in by itself, not by reading every add it holds.
rand_addrs "$bans" 41 190 >"$dir/singles"
singles_in=0
c4=$(watch_cpu)
t4=$(now)
while read -r a; do
	out=$(in_ns "$bw" add $dev_a "$a" 2>&1 </dev/null) || {
		echo "bench: adds: $(tail -3 <<<"$out")" >&2
		exit 1
	}
	grep -q "1 of 1 added in place by the watch" <<<"$out" &&
		singles_in=$((singles_in + 1))
done <"$dir/singles"
t5=$(now)
c5=$(watch_cpu)
settle
r3=$(reloads)
head -50 "$dir/singles" >"$dir/sample4"
verdicts "$dir/sample4" drop || exit 1
{
	echo
	echo "### remove of 5000 of 100000 added entries, $n2 listed, a watch running"
	echo
	echo "| step | wall s | what it says | watch rebuilds |"
	echo "|---|---:|---|---:|"
	echo "| add of 100000 (5 commands of 20000) | $(dt "$t0" "$t1") | $(sed 's/^.*: //' "$dir/add_lines" | paste -sd';' | sed 's/;/; /g') | $((r1 - r0)) |"
	echo "| remove of 5000 (one command) | $(dt "$t2" "$t3") | $inplace removed in place | $((r2 - r1)) |"
	echo "| $bans single adds (a process each), 95000 held | $(dt "$t4" "$t5") | $singles_in added in place; the watch's CPU $(dt "$c4" "$c5") s | $((r3 - r2)) |"
	echo
	echo "Checked by query: $(wc -l <"$dir/sample") removed pass, $(wc -l <"$dir/sample2") kept drop, 200 listed drop, $(wc -l <"$dir/sample4") single adds drop."
} | tee -a "$results"
