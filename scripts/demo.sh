#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# make demo: a short guided tour of bloomwall on a veth pair between two
# network namespaces that this script makes for itself (inside its own
# `unshare -n -m`, so nothing it creates is visible to the host or outlives
# it). Run as root; BLOOMWALL points at the binary (default ./bloomwall).
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

LIST=""

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup()
{
	[ -n "${BW_RX:-}" ] && "$BLOOMWALL" detach "$BW_RX" >/dev/null 2>&1
	bw_topo_down
	[ -n "$LIST" ] && rm -f "$LIST"
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

bw_isolate || exit 1
bw_topo_up bwdemo || exit 1
LIST=$(mktemp /tmp/bwdemo-list.XXXXXX) || exit 1
printf '# demo blocklist\n%s\n%s\n192.0.2.66\n2001:db8::66\n' \
	"$BW_A4" "$BW_A6" >"$LIST"

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
echo
echo "Done. Everything this demo made goes away with its namespaces."
exit $STATUS
