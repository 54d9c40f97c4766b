#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# make demo: a short guided tour of bloomwall on a veth pair between two
# network namespaces that this script makes for itself (inside its own
# `unshare -n -m`, so nothing it creates is visible to the host or outlives
# it). Run as root; BLOOMWALL points at the binary (default ./bloomwall).
#
# Two halves: addresses (pings from a listed and an unlisted source) and
# names (Debian's unbound behind bloomwall, dig for a listed and an unlisted
# name). unbound answers from its own local data only: the namespaces have
# no route anywhere, and its config forwards nothing and recurses nowhere.
# Exits 0 when everything happened as the demo says, 1 otherwise, 130 on
# SIGINT or SIGTERM; whatever the exit, unbound is stopped and the temp
# dir ($TMPDIR or /tmp, bwdemo.*) removed.
set -o nounset

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/netns.sh
. "$TOP/scripts/netns.sh"

if [ -z "${BW_UNSHARED:-}" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "demo: run as root (XDP, network namespaces): sudo make demo" >&2
		exit 1
	fi
	BLOOMWALL=$(realpath -e "${BLOOMWALL:-$TOP/bloomwall}" 2>/dev/null)
	if [ -z "$BLOOMWALL" ]; then
		echo "demo: no bloomwall binary; run make first" >&2
		exit 1
	fi
	export BLOOMWALL
fi
bw_reexec_unshared "$0" "$@"

TMP=""
RESOLVER_PID=""

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup()
{
	if [ -n "$RESOLVER_PID" ]; then
		kill "$RESOLVER_PID" 2>/dev/null
		wait "$RESOLVER_PID" 2>/dev/null
	fi
	[ -n "${BW_RX:-}" ] && "$BLOOMWALL" detach "$BW_RX" >/dev/null 2>&1
	bw_topo_down
	[ -n "$TMP" ] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

BOLD=""
NORM=""
if [ -t 1 ]; then
	BOLD=$(printf '\033[1m')
	NORM=$(printf '\033[0m')
fi

step()
{
	printf '\n%s== %s%s\n' "$BOLD" "$*" "$NORM"
}

# bw ARGS...: runs the CLI, showing the command first, its output indented.
bw()
{
	printf '$ bloomwall %s\n' "$*"
	"$BLOOMWALL" "$@" 2>&1 | sed 's/^/  /'
	return "${PIPESTATUS[0]}"
}

STATUS=0

# traffic SRC DST EXPECTED: three pings over the pair, one line saying what
# happened; anything but EXPECTED makes the demo exit non-zero.
traffic()
{
	local n verdict

	n=$(bw_ping "$1" "$2")
	case $n in
	0) verdict=DROPPED ;;
	[1-9]) verdict=DELIVERED ;;
	*) verdict="PING FAILED ($n)" ;;
	esac
	printf '  %-9s  %-12s -> %-12s %s/3 echo replies\n' "$verdict" "$1" \
		"$2" "${n%% *}"
	if [ "$verdict" != "$3" ]; then
		echo "  unexpected: should be $3" >&2
		STATUS=1
	fi
}

# ------------------------------------------------------------- the DNS half

# What unbound answers for the demo's names, from its local data.
DEMO_NAMES="www.demo.test ads.demo.test tracker.demo.test eu.telemetry.demo.test"
RESOLVER_TTL=3600

# resolver_conf: unbound's config, every file in $TMP. It listens on the
# receiver's addresses only and answers the demo's names from local data;
# the root zone is static, so any other name is NXDOMAIN from unbound
# itself, never a query sent anywhere.
resolver_conf()
{
	local name i=80

	cat <<EOF
server:
	interface: $BW_RX4
	interface: $BW_RX6
	port: 53
	ip-freebind: yes
	access-control: 10.77.0.0/24 allow
	access-control: fd00:77::/64 allow
	do-daemonize: no
	chroot: ""
	username: ""
	directory: "$TMP"
	pidfile: "$TMP/unbound.pid"
	use-syslog: no
	logfile: "$TMP/unbound.log"
	log-queries: yes
	verbosity: 0
	num-threads: 1
	so-reuseport: no
	module-config: "iterator"
	local-zone: "." static
EOF
	for name in $DEMO_NAMES; do
		printf '\tlocal-data: "%s. %s IN A 192.0.2.%s"\n' "$name" \
			$RESOLVER_TTL $i
		printf '\tlocal-data: "%s. %s IN AAAA 2001:db8::%s"\n' "$name" \
			$RESOLVER_TTL $i
		i=$((i + 1))
	done
	printf 'remote-control:\n\tcontrol-enable: no\n'
}

# resolver_queries: how many queries unbound has logged (log-queries).
resolver_queries()
{
	grep -c ' info: [0-9a-f.:]* [^ ]* [A-Z]* IN$' "$TMP/unbound.log" \
		2>/dev/null || true
}

# blocked_null: bloomwall's DNS counter of names answered 0.0.0.0 / ::,
# from `bloomwall status` (0 while it is not attached).
blocked_null()
{
	"$BLOOMWALL" status "$BW_RX" 2>/dev/null |
		awk '/^  DNS counters/ { d = 1; next } /^  [^ ]/ { d = 0 }
			d && $1 == "blocked_null" { gsub(",", "", $2); n = $2 }
			END { print n + 0 }'
}

# dig_once SERVER NAME TYPE: one query from the sender's namespace.
dig_once()
{
	ip netns exec "$BW_NS" dig +tries=1 +timeout=2 @"$1" "$2" "$3" 2>&1
}

# resolver_start: unbound in the background, killed by cleanup (and by the
# kernel should this script die without it: parent-death signal).
resolver_start()
{
	local n

	resolver_conf >"$TMP/unbound.conf"
	setpriv --pdeathsig TERM -- unbound -c "$TMP/unbound.conf" \
		>"$TMP/unbound.out" 2>&1 &
	RESOLVER_PID=$!
	for ((n = 0; n < 100; n++)); do
		dig_once "$BW_RX4" www.demo.test A | grep -q '192\.0\.2\.80$' &&
			return 0
		kill -0 "$RESOLVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "demo: unbound does not answer on $BW_RX4:" >&2
	cat "$TMP/unbound.out" "$TMP/unbound.log" >&2 2>/dev/null
	return 1
}

# ask SERVER NAME TYPE ANSWER FROM: one dig, its flags and answer records,
# then what came back and who answered: bloomwall when its blocked_null
# counter moved and unbound logged no query, unbound when it logged the
# query and the counter stayed. Anything but ANSWER from FROM makes the
# demo exit non-zero.
ask()
{
	local b0 q0 b1 q1 out got from why

	b0=$(blocked_null)
	q0=$(resolver_queries)
	out=$(dig_once "$1" "$2" "$3")
	b1=$(blocked_null)
	q1=$(resolver_queries)
	printf '$ dig @%s %s %s\n' "$1" "$2" "$3"
	printf '  status %s, flags %s\n' \
		"$(sed -nE 's/^.*status: ([A-Z]+),.*/\1/p' <<<"$out")" \
		"$(sed -nE 's/^;; flags: ([a-z ]*);.*/\1/p' <<<"$out")"
	got=$(awk '/^;; ANSWER SECTION:/ { a = 1; next } /^$/ { a = 0 }
		a && !/^;/ { printf "%s%s", s, $5; s = " " }' <<<"$out")
	awk '/^;; ANSWER SECTION:/ { a = 1; next } /^$/ { a = 0 }
		a && !/^;/ { $1 = $1; print "  " $0 }' <<<"$out"
	if [ "$b1" -gt "$b0" ] && [ "$q1" -eq "$q0" ]; then
		from=bloomwall
		why="blocked_null $b0 -> $b1, unbound logged no query"
	elif [ "$q1" -gt "$q0" ] && [ "$b1" -eq "$b0" ]; then
		from=unbound
		why="unbound logged the query, blocked_null stays $b0"
	else
		from="nobody known"
		why="blocked_null $b0 -> $b1, unbound's queries $q0 -> $q1"
	fi
	printf '  %s %s: %s from %s (%s)\n' "$2" "$3" "${got:-no answer}" \
		"$from" "$why"
	if [ "$got" != "$4" ] || [ "$from" != "$5" ]; then
		echo "  unexpected: should be $4 from $5" >&2
		STATUS=1
	fi
}

# peer_xdp: an XDP_PASS program on the sender's veth. bloomwall answers a
# blocked query with XDP_TX, which on a veth puts the frame in the peer's
# ring; that ring runs only while the peer has NAPI, which a native XDP
# program turns on (a NIC has no such condition; doc/dns.md, "The data path").
peer_xdp()
{
	local inc

	# The host's system include dirs, as the Makefile passes them to
	# clang -target bpf (CLANG_BPF_SYS_INCLUDES).
	inc=$(clang -v -E - </dev/null 2>&1 | sed -n \
		'/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
	# shellcheck disable=SC2086 # a list of options, split on purpose
	clang -O2 -g -target bpf $inc -c "$TOP/tests/load/xdp_pass.bpf.c" \
		-o "$TMP/xdp_pass.bpf.o" || return 1
	printf '$ ip -n %s link set dev %s xdpdrv obj xdp_pass.bpf.o sec xdp\n' \
		"$BW_NS" "$BW_TX"
	ip -n "$BW_NS" link set dev "$BW_TX" xdpdrv obj "$TMP/xdp_pass.bpf.o" \
		sec xdp
}

dns_half()
{
	local seen

	step "The DNS half: a domain list (hosts lines, plain names, adblock rules)"
	sed 's/^/  /' "$NAMES"

	step "A resolver behind the receiver's veth: Debian's unbound on $BW_RX4 and $BW_RX6"
	echo "  its own config, log and pid file in $TMP;"
	echo "  it answers the demo's names from local data and asks no other server"
	resolver_start || return 1
	echo "  unbound $(unbound -V | sed -n 's/^Version //p'), pid $RESOLVER_PID; without bloomwall it answers every name:"
	ask "$BW_RX4" ads.demo.test A 192.0.2.81 unbound

	step "Attach bloomwall with the domain list, in front of the resolver"
	echo "  bloomwall answers with XDP_TX; on a veth, that frame reaches the peer"
	echo "  only while the peer runs NAPI: the sender's veth gets an XDP_PASS"
	echo "  program first (tests/load/xdp_pass.bpf.c; a NIC needs none)"
	peer_xdp || return 1
	bw attach "$BW_RX" --mode native --seed 4242 "$NAMES" || return 1
	seen=$(wc -l <"$TMP/unbound.log")

	step "Queries from the sender: listed names answered by bloomwall (XDP), the others by unbound"
	ask "$BW_RX4" ads.demo.test A 0.0.0.0 bloomwall
	ask "$BW_RX4" eu.telemetry.demo.test A 0.0.0.0 bloomwall
	ask "$BW_RX6" tracker.demo.test AAAA :: bloomwall
	ask "$BW_RX4" www.demo.test A 192.0.2.80 unbound
	ask "$BW_RX6" www.demo.test AAAA 2001:db8::80 unbound

	step "Ask the running filter about names"
	bw query "$BW_RX" ads.demo.test eu.telemetry.demo.test www.demo.test

	step "The DNS counters"
	printf '$ bloomwall status %s   (its DNS section)\n' "$BW_RX"
	"$BLOOMWALL" status "$BW_RX" 2>&1 |
		awk '/^  DNS counters/ { d = 1 } /^  [^ ]/ && !/DNS counters/ { d = 0 }
			d { print "  " $0 }'
	printf '$ bloomwall stats --prometheus %s   (packets by verdict and reason, those above 0)\n' \
		"$BW_RX"
	"$BLOOMWALL" stats --prometheus "$BW_RX" 2>&1 |
		grep -E '^bloomwall_packets_total.* [1-9][0-9]*$' | sed 's/^/  /'

	step "What unbound logged since the attach (log-queries): only the names bloomwall let through"
	tail -n +$((seen + 1)) "$TMP/unbound.log" | sed -nE 's/^.* info: /  /p'

	step "Detach; stop unbound"
	bw detach "$BW_RX" || STATUS=1
	kill "$RESOLVER_PID"
	wait "$RESOLVER_PID" 2>/dev/null
	RESOLVER_PID=""
	echo "  unbound stopped"
}

# ------------------------------------------------------------------ the tour

for tool in bpftool ping unbound dig setpriv clang; do
	command -v $tool >/dev/null && continue
	echo "demo: no $tool here (make deps installs what the demo needs)" >&2
	exit 1
done
bw_isolate || exit 1
bw_topo_up bwdemo || exit 1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bwdemo.XXXXXX") || exit 1
LIST=$TMP/addresses.txt
NAMES=$TMP/names.txt
printf '# demo blocklist\n%s\n%s\n192.0.2.66\n2001:db8::66\n' \
	"$BW_A4" "$BW_A6" >"$LIST"
printf '%s\n' '# demo domain list' '0.0.0.0 ads.demo.test' \
	'tracker.demo.test' '||telemetry.demo.test^' >"$NAMES"

step "Two namespaces joined by a veth pair (private to this demo)"
echo "  receiver $BW_RX: $BW_RX4, $BW_RX6   <- bloomwall attaches here"
echo "  sender   $BW_TX (netns $BW_NS): $BW_A4, $BW_A6 (listed),"
echo "           $BW_B4, $BW_B6 (not listed)"

step "A blocklist: one address a line, comments allowed"
sed 's/^/  /' "$LIST"

step "Attach: build the Bloom filter, load the XDP program, pin it"
# A fixed seed: the unlisted demo address is then known not to be a false
# positive of this filter, whatever the machine.
bw attach "$BW_RX" --mode native --seed 4242 "$LIST" || exit 1

step "Traffic from the sender (the CLI has exited; the filter keeps working)"
traffic "$BW_A4" "$BW_RX4" DROPPED
traffic "$BW_B4" "$BW_RX4" DELIVERED
traffic "$BW_A6" "$BW_RX6" DROPPED
traffic "$BW_B6" "$BW_RX6" DELIVERED

step "Ask the running filter"
bw query "$BW_RX" "$BW_A4" "$BW_B4"

step "Status"
bw status "$BW_RX"

step "The same counters with plain bpftool (per CPU; zero fields hidden)"
printf '$ bpftool map dump pinned %s/%s/stats\n' "$BW_PIN_ROOT" "$BW_RX"
bpftool map dump pinned "$BW_PIN_ROOT/$BW_RX/stats" |
	awk '!(/": 0,?$/ && !/"(cpu|key)"/)' |
	sed -E ':a;N;$!ba;s/,(\n *\})/\1/g' | sed 's/^/  /'

step "Detach: the interface passes everything again"
bw detach "$BW_RX" || STATUS=1
traffic "$BW_A4" "$BW_RX4" DELIVERED

dns_half || exit 1
echo
echo "Done. Everything this demo made goes away with its namespaces."
exit $STATUS
