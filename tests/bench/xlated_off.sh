#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# xlated_off.sh: whether a program loaded with --log-rate 0 is, instruction
# for instruction, the program of a bloomwall without the drop log. Both
# binaries attach the same filters (addresses; addresses in monitor mode;
# addresses and names) to a veth of a private network namespace, and the
# verifier's output (bpftool prog dump xlated) is compared with map ids,
# .rodata offsets and jump offsets left out (they differ by layout only).
#
# Usage: tests/bench/xlated_off.sh OLD_BLOOMWALL NEW_BLOOMWALL
#   OLD_BLOOMWALL  a bloomwall built without the drop log (e.g. main's)
#   NEW_BLOOMWALL  this one; it attaches with --log-rate 0
# Prints a line per filter: instructions of each and the lines that
# differ (and those lines); exit status 1 when any differ. Needs root,
# bpftool, python3. Against a bloomwall from before dns_drops (which came
# with the drop log), the names program differs by that counter alone: 17
# instructions per family on the blocked-query path, and the stack slots
# its key moves.
set -o nounset

if [ $# -ne 2 ]; then
	echo "usage: $0 OLD_BLOOMWALL NEW_BLOOMWALL" >&2
	exit 2
fi
OLD=$(realpath -e "$1") || exit 2
NEW=$(realpath -e "$2") || exit 2
if [ -z "${BW_XL_INNER:-}" ]; then
	BW_XL_INNER=1 exec unshare -n -m "$0" "$OLD" "$NEW"
fi
mount --make-rprivate / && mount -t bpf bpf /sys/fs/bpf || exit 1
DIR=$(mktemp -d /tmp/bw-xlated-XXXXXX) || exit 1
trap 'rm -rf "$DIR"' EXIT
ip link add bwxa type veth peer name bwxb || exit 1
ip link set bwxa up
ip link set bwxb up
printf '10.1.2.3\n2001:db8::5\n' >"$DIR/addrs.txt"
printf '10.1.2.3\nads.example.com\n*.doubleclick.net\n' >"$DIR/names.txt"

# dump BIN TAG ARGS...: attach, dump the program's xlated code, detach.
dump()
{
	local bin=$1 tag=$2 id

	shift 2
	"$bin" attach bwxa --mode native "$@" >/dev/null || return 1
	id=$(bpftool -j net show dev bwxa |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["xdp"][0]["id"])')
	# Ids, .rodata offsets and jump targets move with the layout only.
	bpftool prog dump xlated id "$id" 2>/dev/null | grep -vE '^ *;' |
		sed -E 's/^ *[0-9]+: //; s/map\[id:[0-9]+\]/map/g;
			s/\+[0-9]+\]\[/+X][/g; s/pc[+-][0-9]+/pc/g;
			s/bpf_prog_[0-9a-f]+_/bpf_prog_/g' >"$DIR/$tag"
	"$bin" detach bwxa >/dev/null
}

rc=0
for kind in addrs monitor names; do
	case $kind in
	addrs) args=("$DIR/addrs.txt") ;;
	monitor) args=(--monitor "$DIR/addrs.txt") ;;
	names) args=("$DIR/names.txt") ;;
	esac
	if ! dump "$OLD" "old.$kind" "${args[@]}" ||
		! dump "$NEW" "new.$kind" --log-rate 0 "${args[@]}"; then
		echo "$kind: attach failed"
		rc=1
		continue
	fi
	n=$(diff "$DIR/old.$kind" "$DIR/new.$kind" | grep -c '^[<>]')
	echo "$kind: $(wc -l <"$DIR/old.$kind") instructions without the drop log," \
		"$(wc -l <"$DIR/new.$kind") with --log-rate 0, $n lines differ"
	[ "$n" -eq 0 ] && continue
	diff "$DIR/old.$kind" "$DIR/new.$kind" | grep '^[<>]' | sed 's/^/    /'
	rc=1
done
ip link del bwxa
exit $rc
