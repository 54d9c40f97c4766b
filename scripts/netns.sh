# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# Namespace helpers shared by tests/e2e/run.sh and scripts/demo.sh. Sourced,
# not run. The caller re-executes itself under `unshare -n -m` first
# (bw_reexec_unshared) so that everything made here lives in a private
# network and mount namespace and disappears with the process.
#
# Topology made by bw_topo_up:
#
#   this namespace (receiver)              netns $BW_NS (sender)
#   $BW_RX  10.77.0.1/24 fd00:77::1/64 <== veth ==> $BW_TX  .2 .3 .4  ::2 ::3 ::4
#
# bloomwall attaches to $BW_RX; the sender pings from one of its addresses.
# Neighbour entries are static on both ends, so no ARP or neighbour
# solicitation is sent from a test address: the only packets from it are the
# test's own pings, and drop counter deltas are exact. (The kernel's own MLD
# and router solicitations still cross, from link-local or unspecified
# sources, and count as passed.)

BW_RX4=10.77.0.1
BW_RX6=fd00:77::1
BW_A4=10.77.0.2
BW_A6=fd00:77::2
BW_B4=10.77.0.3
BW_B6=fd00:77::3
BW_C4=10.77.0.4
BW_C6=fd00:77::4
BW_MAC_RX=02:77:00:00:00:01
BW_MAC_TX=02:77:00:00:00:02
BW_PIN_ROOT=/sys/fs/bpf/bloomwall

# Re-runs the calling script in its own network and mount namespace.
# Usage: bw_reexec_unshared "$0" "$@"   (returns only when already inside)
bw_reexec_unshared()
{
	[ -n "${BW_UNSHARED:-}" ] && return 0
	export BW_UNSHARED=1
	exec unshare -n -m "$@"
}

# Inside the new namespaces: private mounts, our own bpffs and /run/netns,
# loopback up. Nothing mounted here is seen by the host.
bw_isolate()
{
	mount --make-rprivate / || return 1
	mount -t bpf bpf /sys/fs/bpf || return 1
	mkdir -p /run/netns || return 1
	mount -t tmpfs -o size=1m bwnetns /run/netns || return 1
	ip link set dev lo up
}

# A fresh bpffs: pins of an earlier test cannot leak into the next one.
bw_bpffs_reset()
{
	umount /sys/fs/bpf 2>/dev/null
	mount -t bpf bpf /sys/fs/bpf
}

# bw_topo_up PREFIX: sets BW_ID, BW_NS, BW_RX, BW_TX and builds the pair.
bw_topo_up()
{
	local prefix=$1

	BW_ID=$(printf '%04x' $((RANDOM % 65536)))
	BW_NS=$prefix-$BW_ID
	BW_RX=bwr-$BW_ID
	BW_TX=bws-$BW_ID
	ip netns add "$BW_NS" || return 1
	ip -n "$BW_NS" link set dev lo up
	bw_topo_pair
}

# bw_topo_pair: (re)makes the veth pair $BW_RX / $BW_TX, with its addresses,
# between this namespace and $BW_NS (which must exist).
bw_topo_pair()
{
	local a

	ip link add "$BW_RX" address $BW_MAC_RX type veth \
		peer name "$BW_TX" address $BW_MAC_TX netns "$BW_NS" || return 1
	ip addr add $BW_RX4/24 dev "$BW_RX"
	ip addr add $BW_RX6/64 dev "$BW_RX" nodad
	for a in $BW_A4 $BW_B4 $BW_C4; do
		ip -n "$BW_NS" addr add "$a/24" dev "$BW_TX"
		ip neigh replace "$a" lladdr $BW_MAC_TX nud permanent dev "$BW_RX"
	done
	for a in $BW_A6 $BW_B6 $BW_C6; do
		ip -n "$BW_NS" addr add "$a/64" dev "$BW_TX" nodad
		ip neigh replace "$a" lladdr $BW_MAC_TX nud permanent dev "$BW_RX"
	done
	ip -n "$BW_NS" neigh replace $BW_RX4 lladdr $BW_MAC_RX nud permanent dev "$BW_TX"
	ip -n "$BW_NS" neigh replace $BW_RX6 lladdr $BW_MAC_RX nud permanent dev "$BW_TX"
	ip link set dev "$BW_RX" up || return 1
	ip -n "$BW_NS" link set dev "$BW_TX" up
}

# Removes the pair and the sender namespace; safe to call twice.
bw_topo_down()
{
	[ -n "${BW_NS:-}" ] && ip netns del "$BW_NS" 2>/dev/null
	[ -n "${BW_RX:-}" ] && ip link del dev "$BW_RX" 2>/dev/null
	BW_NS=""
	BW_RX=""
	BW_TX=""
	return 0
}

# bw_ping SRC DST [COUNT]: pings DST from the sender's address SRC over the
# pair; prints how many replies came back (0 when every request was dropped),
# or ping's own error when it sent nothing, so that a broken setup is never
# mistaken for a drop.
bw_ping()
{
	local src=$1 dst=$2 count=${3:-3} out

	out=$(ip netns exec "$BW_NS" ping -n -q -c "$count" -i 0.05 -W 1 \
		-I "$src" "$dst" 2>&1)
	sed -nE 's/.* ([0-9]+) (packets )?received.*/\1/p' <<<"$out" | head -n 1 |
		grep . || echo "no ping summary: $(head -n 1 <<<"$out")"
}

# bw_stat IFACE FIELD: the per-CPU counter FIELD of IFACE summed over CPUs,
# read the way an operator would, through bpftool and the BTF field names.
bw_stat()
{
	bpftool map dump pinned "$BW_PIN_ROOT/$1/stats" 2>/dev/null |
		awk -v f="\"$2\":" '$1 == f { gsub(",", "", $2); s += $2 }
			END { print s + 0 }'
}

# Does IFACE carry an XDP program? (ip link prints "xdp"/"xdpgeneric")
bw_has_xdp()
{
	ip link show dev "$1" | grep -qE '(^|[ /])xdp'
}
