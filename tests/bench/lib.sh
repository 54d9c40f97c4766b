#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# What the bench scripts that run the CLI in a namespace of their own share
# (sourced: adds.sh, remove.sh, pull.sh). The caller sets $ns.

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
