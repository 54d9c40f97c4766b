#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Crash safety, sourced by tests/e2e/run.sh: every mutating verb is killed
# (SIGKILL, strace's fault injection) before each of its system calls in
# turn, and after every kill:
#   - the program on the interface's hook, run by bpftool on a listed and
#     two unlisted frames, judges them by the old filter or the new one,
#     whole (or no program runs, where that is the old or the new state);
#   - query agrees with it;
#   - the next command (reload, or attach when nothing runs) succeeds at
#     once (the lock is free), and then status says the pins name what
#     runs.
# test_crash_sweep runs a sample of the points (every system call that
# changes kernel or pin state, and every STRIDE-th of the rest);
# BW_CRASH_FULL=1 (make crash-sweep) runs every point.

# shellcheck disable=SC2034 # read by run.sh, which sources this file
CRASH_TESTS="test_crash_sweep"

CRASH_STRIDE=${BW_CRASH_STRIDE:-12}
CRASH_NAMES=(A B C)
# The name the DNS frame asks for (verdict D: block or pass).
CRASH_QNAME=crash.test

# crash_frame SRC FILE: an Ethernet/IPv4/UDP frame from SRC to $BW_RX4.
crash_frame()
{
	python3 - "$1" "$2" <<'EOF'
import socket, struct, sys

src, path = sys.argv[1], sys.argv[2]
eth = bytes.fromhex("020000000001" "020000000002") + b"\x08\x00"
udp = struct.pack("!HHHH", 4000, 5000, 12, 0) + b"ping"
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                 socket.inet_aton(src), socket.inet_aton("10.77.0.1"))
open(path, "wb").write(eth + ip + udp)
EOF
}

# crash_dns_frame SRC FILE: a DNS query for $CRASH_QNAME (A, IN) from SRC
# to $BW_RX4, UDP port 53. SRC is in no list (the address filter comes
# first: a listed source is dropped before its name is read).
crash_dns_frame()
{
	python3 - "$1" "$2" "$CRASH_QNAME" <<'EOF'
import socket, struct, sys

src, path, qname = sys.argv[1], sys.argv[2], sys.argv[3]
eth = bytes.fromhex("020000000001" "020000000002") + b"\x08\x00"
name = b"".join(bytes([len(l)]) + l.encode() for l in qname.split(".")) + b"\0"
dns = struct.pack("!HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0) + name + \
    struct.pack("!HH", 1, 1)
udp = struct.pack("!HHHH", 4000, 53, 8 + len(dns), 0) + dns
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                 socket.inet_aton(src), socket.inet_aton("10.77.0.1"))
open(path, "wb").write(eth + ip + udp)
EOF
}

# "A:drop B:pass C:pass D:pass": the verdicts of the program on $BW_RX's
# hook for the three crash sources and the DNS query (D: block when it is
# dropped or answered), or "none" when the hook runs no program.
crash_judge()
{
	local id a rv out=""

	id=$(hook_prog_id)
	if [ -z "$id" ]; then
		echo none
		return
	fi
	for a in A B C; do
		rv=$(bpftool prog run id "$id" data_in "$TMP_DIR/frame.$a" \
			repeat 1 2>&1 | sed -nE 's/.*[Rr]eturn value: ([0-9]+).*/\1/p')
		case $rv in
		1) out="$out $a:drop" ;;
		2) out="$out $a:pass" ;;
		*) out="$out $a:?$rv" ;;
		esac
	done
	rv=$(bpftool prog run id "$id" data_in "$TMP_DIR/frame.D" \
		repeat 1 2>&1 | sed -nE 's/.*[Rr]eturn value: ([0-9]+).*/\1/p')
	case $rv in
	1 | 3) out="$out D:block" ;;
	2) out="$out D:pass" ;;
	*) out="$out D:?$rv" ;;
	esac
	echo "${out# }"
}

# The same verdicts as query gives them ("none" when it says nothing runs).
crash_query()
{
	local lines out="" i

	if ! "$BLOOMWALL" query "$BW_RX" "$BW_A4" "$BW_B4" "$BW_C4" \
		>"$TMP_DIR/q.out" 2>"$TMP_DIR/q.err"; then
		if grep -qxF "$(msg_not_attached "$BW_RX")" "$TMP_DIR/q.err"; then
			echo none
		else
			echo "error: $(head -n 1 "$TMP_DIR/q.err")"
		fi
		return
	fi
	mapfile -t lines <"$TMP_DIR/q.out"
	for i in 0 1 2; do
		case ${lines[$i]:-} in
		*"  drop"*) out="$out ${CRASH_NAMES[$i]}:drop" ;;
		*"  pass"*) out="$out ${CRASH_NAMES[$i]}:pass" ;;
		*) out="$out ${CRASH_NAMES[$i]}:?" ;;
		esac
	done
	case $("$BLOOMWALL" query "$BW_RX" "$CRASH_QNAME" 2>&1) in
	"$CRASH_QNAME  block"*) out="$out D:block" ;;
	"$CRASH_QNAME  pass"*) out="$out D:pass" ;;
	*) out="$out D:?" ;;
	esac
	echo "${out# }"
}

# Back to nothing: no program on the hook, no pins.
crash_reset()
{
	"$BLOOMWALL" detach "$BW_RX" >/dev/null 2>&1
	ip link set dev "$BW_RX" xdp off 2>/dev/null
	ip link set dev "$BW_RX" xdpgeneric off 2>/dev/null
	bw_bpffs_reset
}

# The state a verb starts from, per scenario.
crash_setup()
{
	crash_reset
	case $1 in
	attach) return 0 ;;
	unallow)
		"$BLOOMWALL" attach "$BW_RX" --mode native "${SEED[@]}" \
			--allow "$TMP_DIR/allow_a.txt" "$TMP_DIR/a.txt" ;;
	remove)
		"$BLOOMWALL" attach "$BW_RX" --mode native "${SEED[@]}" \
			"$TMP_DIR/a.txt" && "$BLOOMWALL" add "$BW_RX" "$BW_B4" ;;
	load | load_sections)
		"$BLOOMWALL" attach "$BW_RX" --mode native "${SEED[@]}" \
			"$TMP_DIR/a.txt" && "$BLOOMWALL" add "$BW_RX" "$BW_C4" ;;
	allow_name)
		"$BLOOMWALL" attach "$BW_RX" --mode native "${SEED[@]}" \
			"$TMP_DIR/a.txt" "$TMP_DIR/n.txt" ;;
	unallow_name)
		"$BLOOMWALL" attach "$BW_RX" --mode native "${SEED[@]}" \
			"$TMP_DIR/a.txt" "$TMP_DIR/n.txt" &&
			"$BLOOMWALL" allow "$BW_RX" "$CRASH_QNAME" ;;
	remove_name)
		"$BLOOMWALL" attach "$BW_RX" --mode native "${SEED[@]}" \
			"$TMP_DIR/a.txt" &&
			"$BLOOMWALL" add "$BW_RX" "$CRASH_QNAME" ;;
	*)
		"$BLOOMWALL" attach "$BW_RX" --mode native "${SEED[@]}" \
			"$TMP_DIR/a.txt" ;;
	esac >/dev/null 2>&1
}

# The verb under test, per scenario.
crash_cmd()
{
	case $1 in
	attach) echo "attach $BW_RX --mode native ${SEED[*]} $TMP_DIR/a.txt" ;;
	reload) echo "reload $BW_RX ${SEED[*]} $TMP_DIR/b.txt" ;;
	add) echo "add $BW_RX $BW_B4" ;;
	remove) echo "remove $BW_RX $BW_B4" ;;
	allow) echo "allow $BW_RX $BW_A4" ;;
	unallow) echo "unallow $BW_RX $BW_A4" ;;
	detach) echo "detach $BW_RX" ;;
	load) echo "load $BW_RX $TMP_DIR/b.img" ;;
	load_sections) echo "load $BW_RX $TMP_DIR/v.img" ;;
	add_name) echo "add $BW_RX $CRASH_QNAME" ;;
	remove_name) echo "remove $BW_RX $CRASH_QNAME" ;;
	allow_name) echo "allow $BW_RX $CRASH_QNAME" ;;
	unallow_name) echo "unallow $BW_RX $CRASH_QNAME" ;;
	esac
}

# After a kill: the next command works at once, and leaves the pins in step.
crash_recover()
{
	local verb=reload

	[ "$1" = none ] && verb=attach
	if [ $verb = reload ]; then
		timeout 20 "$BLOOMWALL" reload "$BW_RX" "${SEED[@]}" \
			"$TMP_DIR/a.txt" >"$TMP_DIR/r.out" 2>&1
	else
		timeout 20 "$BLOOMWALL" attach "$BW_RX" --mode native \
			"${SEED[@]}" "$TMP_DIR/a.txt" >"$TMP_DIR/r.out" 2>&1
	fi || {
		echo "$verb after the kill failed: $(tail -n 1 "$TMP_DIR/r.out")"
		return 1
	}
	"$BLOOMWALL" status "$BW_RX" >"$TMP_DIR/s.out" 2>&1
	if [ "$(kv "$TMP_DIR/s.out" pins)" != "$BW_PIN_ROOT/$BW_RX (name what runs)" ]; then
		echo "pins not in step after the $verb: $(kv "$TMP_DIR/s.out" pins)"
		return 1
	fi
}

# crash_points VERB: "SYSCALL K" per system call of one clean run, sampled
# unless BW_CRASH_FULL=1.
crash_points()
{
	local cmd

	crash_setup "$1"
	cmd=$(crash_cmd "$1")
	# shellcheck disable=SC2086 # the command line, split on purpose
	strace -qq -o "$TMP_DIR/trace" "$BLOOMWALL" $cmd >/dev/null 2>&1
	awk -v full="${BW_CRASH_FULL:-0}" -v stride="$CRASH_STRIDE" '
	match($0, /^[a-z_0-9]+\(/) {
		name = substr($0, 1, RLENGTH - 1)
		n[name]++
		i++
		keep = full || (i % stride) == 0 ||
			/BPF_LINK|BPF_OBJ_PIN|BPF_PROG_LOAD|BPF_MAP_UPDATE|BPF_MAP_CREATE|BPF_MAP_DELETE/ ||
			name ~ /^(rename|renameat2?|unlink|unlinkat|mkdir|mkdirat|rmdir|flock|sendto|sendmsg)$/
		if (keep)
			print name, n[name]
	}' "$TMP_DIR/trace"
}

# crash_verb VERB OLD NEW: kills VERB at each point; prints the counts.
crash_verb()
{
	local verb=$1 old=$2 new=$3 cmd s k rc got q points=0 killed=0 bad=0

	cmd=$(crash_cmd "$verb")
	crash_points "$verb" >"$TMP_DIR/points.$verb"
	while read -r s k; do
		points=$((points + 1))
		crash_setup "$verb"
		# shellcheck disable=SC2086 # the command line, split on purpose
		strace -qq -o /dev/null -e trace="$s" \
			-e inject="$s":signal=SIGKILL:when="$k" \
			"$BLOOMWALL" $cmd >/dev/null 2>&1
		rc=$?
		[ $rc -eq 137 ] && killed=$((killed + 1))
		got=$(crash_judge)
		q=$(crash_query)
		if [ "$got" != "$old" ] && [ "$got" != "$new" ]; then
			echo "  $verb killed at $s #$k: the hook judges '$got' (old '$old', new '$new')"
			bad=$((bad + 1))
		elif [ "$q" != "$got" ]; then
			echo "  $verb killed at $s #$k: query says '$q', the hook '$got'"
			bad=$((bad + 1))
		elif ! crash_recover "$got" >"$TMP_DIR/why" 2>&1; then
			echo "  $verb killed at $s #$k: $(cat "$TMP_DIR/why")"
			bad=$((bad + 1))
		fi
	done <"$TMP_DIR/points.$verb"
	echo "crash sweep: $verb: $points points, $killed killed, $bad inconsistent"
	CRASH_POINTS=$((CRASH_POINTS + points))
	CRASH_KILLED=$((CRASH_KILLED + killed))
	CRASH_BAD=$((CRASH_BAD + bad))
}

test_crash_sweep()
{
	local listed="A:drop B:pass C:pass D:pass"
	local named="A:drop B:pass C:pass D:block"

	command -v strace >/dev/null || skip "strace is not installed"
	list a.txt "$BW_A4" >/dev/null
	list b.txt "$BW_B4" >/dev/null
	list n.txt "$CRASH_QNAME" >/dev/null
	list allow_a.txt "$BW_A4" >/dev/null
	"$BLOOMWALL" build -o "$TMP_DIR/b.img" "${SEED[@]}" "$TMP_DIR/b.txt" \
		>/dev/null || fail "cannot build the image for load"
	"$BLOOMWALL" build -o "$TMP_DIR/v.img" "${SEED[@]}" --verify \
		--allow "$TMP_DIR/allow_a.txt" "$TMP_DIR/a.txt" \
		>/dev/null || fail "cannot build the image with sections"
	crash_frame "$BW_A4" "$TMP_DIR/frame.A"
	crash_frame "$BW_B4" "$TMP_DIR/frame.B"
	crash_frame "$BW_C4" "$TMP_DIR/frame.C"
	crash_dns_frame 10.77.0.9 "$TMP_DIR/frame.D"
	CRASH_POINTS=0
	CRASH_KILLED=0
	CRASH_BAD=0
	crash_verb attach none "$listed"
	crash_verb reload "$listed" "A:pass B:drop C:pass D:pass"
	crash_verb add "$listed" "A:drop B:drop C:pass D:pass"
	crash_verb remove "A:drop B:drop C:pass D:pass" "$listed"
	crash_verb allow "$listed" "A:pass B:pass C:pass D:pass"
	crash_verb unallow "A:pass B:pass C:pass D:pass" "$listed"
	# load keeps the add of C (issue 12); names: in place or by a rebuild.
	crash_verb load "A:drop B:pass C:drop D:pass" "A:pass B:drop C:drop D:pass"
	# An image with verify's exact set and an allowlist (A listed, allowed;
	# its one /32 target length holds the add of C, which then drops only
	# if the exact trie staged in the other slot has it too).
	crash_verb load_sections "A:drop B:pass C:drop D:pass" \
		"A:pass B:pass C:drop D:pass"
	crash_verb add_name "$listed" "$named"
	crash_verb remove_name "$named" "$listed"
	crash_verb allow_name "$named" "$listed"
	crash_verb unallow_name "$listed" "$named"
	crash_verb detach "$listed" none
	echo "crash sweep: $CRASH_POINTS points, $CRASH_KILLED killed, $CRASH_BAD inconsistent"
	[ "$CRASH_KILLED" -gt 0 ] || fail "no kill took effect: strace injection broken?"
	assert_eq "$CRASH_BAD" 0 "inconsistent states after a kill"
}
