# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end test of the hardened unit's restrictions (issue 30, item 5):
# the verbs the unit runs, run under what scripts/bloomwall@.service sets,
# as near as a host whose PID 1 is not systemd gets (no systemd-run): a
# private mount namespace where every mount is read-only but the unit's
# ReadWritePaths (ProtectSystem=strict, ProtectHome=read-only,
# ProtectKernelTunables), the bounding set cut to the unit's
# CapabilityBoundingSet, and no_new_privs (NoNewPrivileges). Attach, a
# watch, its rebuild on a list's change and an add it takes in place must
# drop what they list.
#
# Not emulated here: PrivateTmp (the test's lists are in its /tmp
# directory), PrivateDevices, ProtectKernelModules/Logs, ProtectClock,
# ProtectHostname, ProtectControlGroups, ProtectProc, RestrictNamespaces,
# RestrictRealtime, RestrictSUIDSGID, LockPersonality and the seccomp
# settings (SystemCallFilter, RestrictAddressFamilies,
# MemoryDenyWriteExecute), which test_unit_syscalls checks against a
# watch's strace instead; sd_notify (Type=notify) is crowdsec_tests'.
# Sourced by tests/e2e/run.sh, whose helpers it uses (bw, list, fail, skip,
# expect_*, assert_*), with wait_line, stop_watch and kill_watch of
# ops_tests.sh and caps_all_but of caps_tests.sh.
#
# run.sh lists it with: ALL_TESTS="$ALL_TESTS $UNIT_TESTS"

# shellcheck disable=SC2034 # read by tests/e2e/run.sh
UNIT_TESTS="test_unit_sandbox"

UNIT_FILE=$TOP/scripts/bloomwall@.service

# unit_value KEY: the values of the unit's KEY= lines, on one line.
unit_value()
{
	sed -n "s/^$1=//p" "$UNIT_FILE" | tr '\n' ' '
}

# unit_sandbox_init: UNIT_SANDBOX, the command line that runs a command
# under the unit's restrictions (see the head of this file): an array, so
# that "${UNIT_SANDBOX[@]}" CMD & makes $! the command's own pid (every
# step execs the next). ReadWritePaths that are not there are left out,
# as systemd does with a "-" path (StateDirectory= would make the others).
unit_sandbox_init()
{
	local caps rw

	caps=$(unit_value CapabilityBoundingSet | tr '[:upper:]' '[:lower:]' | xargs | tr ' ' ,)
	rw=$(unit_value ReadWritePaths | sed 's/\(^\| \)-/\1/g')
	# shellcheck disable=SC2016 # expanded by the sandbox's shell
	UNIT_SANDBOX=(unshare -m --propagation private bash -c '
		rw=$1 drop=$2
		shift 2
		awk "{ print \$2 }" /proc/self/mounts | sort -u | while read -r m; do
			mount -o remount,bind,ro "$m" 2>/dev/null
		done
		for p in $rw; do
			[ -d "$p" ] || continue
			mountpoint -q "$p" || mount --bind "$p" "$p" || exit 1
			mount -o remount,bind,rw "$p" || exit 1
		done
		exec capsh --drop="$drop" -- -c "exec setpriv --no-new-privs \"\$0\" \"\$@\"" "$@"
	' unit-sandbox "$rw" "$(caps_all_but "$caps")")
}

unit_sandbox()
{
	"${UNIT_SANDBOX[@]}" "$@"
}

test_unit_sandbox()
{
	local d=$TMP_DIR/lists l out

	caps_ready
	command -v setpriv >/dev/null || skip "no setpriv (package util-linux)"
	trap kill_watch EXIT
	unit_sandbox_init
	# The sandbox holds: / is not writable, nor /run beside the state
	# directory; only the unit's capabilities are left; no_new_privs.
	out=$(unit_sandbox sh -c 'touch /var/bw-probe' 2>&1) &&
		fail "the sandbox lets /var be written"
	echo "  touch /var/bw-probe: $out"
	assert_grep <(echo "$out") "Read-only file system" "/var read-only"
	unit_sandbox sh -c 'touch /run/bw-probe' 2>/dev/null && fail "the sandbox lets /run be written"
	unit_sandbox touch /run/bloomwall/bw-probe || fail "/run/bloomwall not writable in the sandbox"
	rm -f /run/bloomwall/bw-probe
	unit_sandbox capsh --has-p=cap_sys_module 2>/dev/null &&
		fail "the sandbox keeps CAP_SYS_MODULE"
	unit_sandbox capsh --has-p=cap_net_admin || fail "the sandbox lost CAP_NET_ADMIN"
	assert_eq "$(unit_sandbox grep NoNewPrivs /proc/self/status | tr -d '\t ')" \
		NoNewPrivs:1 "no_new_privs in the sandbox"

	# attach (ExecStart's verb when no filter runs) ...
	l=$(list a.txt "$BW_A4")
	echo "+ (sandbox) bloomwall attach $BW_RX $l"
	unit_sandbox "$BLOOMWALL" attach "$BW_RX" "${SEED[@]}" "$l" >"$OUT" 2>"$ERR" ||
		fail "attach in the sandbox: $(cat "$ERR")"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	bw 0 detach "$BW_RX"

	# ... and the watch: its start, a rebuild after a rename, an add taken
	# in place, SIGTERM.
	mkdir -p "$d"
	l=$d/block.txt
	printf '%s\n' "$BW_A4" >"$l"
	WATCH_OUT=$TMP_DIR/watch.out
	WATCH_ERR=$TMP_DIR/watch.err
	: >"$WATCH_OUT"
	: >"$WATCH_ERR"
	echo "+ (sandbox) bloomwall watch $BW_RX $l &"
	"${UNIT_SANDBOX[@]}" "$BLOOMWALL" watch "$BW_RX" "${SEED[@]}" --debounce 0.1 "$l" \
		>>"$WATCH_OUT" 2>>"$WATCH_ERR" &
	WATCH_PID=$!
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	printf '%s\n' "$BW_B4" >"$d/.block.txt.tmp"
	mv "$d/.block.txt.tmp" "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"
	bw 0 add "$BW_RX" "$BW_C4"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	stop_watch TERM
	assert_grep "$WATCH_OUT" "^$BW_RX: reload ok: generation 2, " "the rebuild in the sandbox"
	grep -q "Read-only file system\|Operation not permitted" "$WATCH_ERR" &&
		fail "the watch hit the sandbox: $(cat "$WATCH_ERR")"

	# The unit's own ExecStartPre and ExecStart lines, where this build
	# reads a config file (bloomwall.yaml(5)): the test's config for
	# /etc/bloomwall/bloomwall.yaml, $BLOOMWALL_ARGS unset.
	if ! "$BLOOMWALL" --help | grep -q '^  config '; then
		echo "  (no 'config' verb in this build: the unit's own lines not run)"
		return 0
	fi
	local cfg=$TMP_DIR/bloomwall.yaml pre start
	printf '%s\n' "$BW_A4" >"$d/.block.txt.tmp"
	mv "$d/.block.txt.tmp" "$l"
	printf 'lists:\n  - %s\nseed: %s\n' "$l" "${SEED[1]}" >"$cfg"
	read -ra pre <<<"$(unit_line ExecStartPre "$cfg")"
	read -ra start <<<"$(unit_line ExecStart "$cfg")"
	echo "+ (sandbox) ${pre[*]}"
	unit_sandbox "${pre[@]}" || fail "the unit's ExecStartPre in the sandbox"
	echo "+ (sandbox) ${start[*]} &"
	: >"$WATCH_OUT"
	"${UNIT_SANDBOX[@]}" "${start[@]}" >>"$WATCH_OUT" 2>>"$WATCH_ERR" &
	WATCH_PID=$!
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	stop_watch TERM
}

# unit_line KEY CONFIG: the unit's KEY= command line for $BW_RX, with
# $BLOOMWALL for /usr/sbin/bloomwall and CONFIG for its config file.
unit_line()
{
	# shellcheck disable=SC2016 # the unit's own $BLOOMWALL_ARGS, literally
	sed -n "s/^$1=//p" "$UNIT_FILE" |
		sed -e "s|/usr/sbin/bloomwall|$BLOOMWALL|" -e "s|/etc/bloomwall/bloomwall.yaml|$2|g" \
			-e "s|%I|$BW_RX|g" -e 's|\$BLOOMWALL_ARGS||'
}
