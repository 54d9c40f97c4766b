# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of the capabilities each verb needs (issue 10, item 4):
# every verb runs under capsh, as root in a reduced bounding set, once with
# exactly the set user/cmd/args.c documents (it works) and once without each
# capability of that set in turn (exit 1, a message naming the missing one,
# no crash, nothing changed). Sourced by tests/e2e/run.sh, whose helpers
# they use (bw, list, expect_dropped, expect_delivered, assert_line,
# assert_eq, kv, generation, hook_prog_id, assert_detached, fail, skip).
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $CAPS_TESTS"

# shellcheck disable=SC2034 # read by tests/e2e/run.sh, which sources this
CAPS_TESTS="test_caps_attach test_caps_verbs"

# What user/cmd/args.c says each capability is for.
CAPS_WHY_SYS="to open the running program and its maps by id"
CAPS_WHY_NET="to change the interface's XDP hook"

# caps_need VERB: the capabilities VERB needs, as capsh names them.
caps_need()
{
	case $1 in
	status | query) echo cap_sys_admin ;;
	*) echo cap_sys_admin,cap_net_admin ;;
	esac
}

# caps_msg VERB MISSING: what VERB says when run by root without the
# capabilities in MISSING (capsh names, comma-separated).
caps_msg()
{
	local verb=$1 missing=",$2," need sys net=""

	need=$(caps_need "$verb")
	sys="CAP_SYS_ADMIN"
	[ "${missing#*,cap_sys_admin,}" != "$missing" ] && sys="$sys (missing)"
	sys="$sys $CAPS_WHY_SYS"
	if [ "${need#*cap_net_admin}" != "$need" ]; then
		net="CAP_NET_ADMIN"
		[ "${missing#*,cap_net_admin,}" != "$missing" ] &&
			net="$net (missing)"
		net=", and $net $CAPS_WHY_NET"
	fi
	echo "bloomwall $verb: needs $sys$net; root here runs with fewer capabilities (see 'capsh --print')"
}

# caps_all_but KEEP: every capability of our bounding set except those in
# KEEP (comma-separated), as a capsh --drop list.
caps_all_but()
{
	local keep=",$1," c out=""

	for c in $(capsh --print | sed -n 's/^Bounding set =//p' | tr , ' '); do
		case $keep in
		*",$c,"*) ;;
		*) out="$out,$c" ;;
		esac
	done
	echo "${out#,}"
}

# bw_capsh RC DROP ARGS...: like bw, with the capabilities in DROP taken
# out of the bounding set (root regains only what is left at the exec).
bw_capsh()
{
	local want=$1 drop=$2 rc

	shift 2
	echo "+ capsh --drop=$drop -- bloomwall $*"
	# shellcheck disable=SC2016 # expanded by capsh's shell, not here
	capsh --drop="$drop" -- -c 'exec "$0" "$@"' "$BLOOMWALL" "$@" \
		>"$OUT" 2>"$ERR"
	rc=$?
	sed 's/^/  | /' "$OUT"
	sed 's/^/  ! /' "$ERR"
	[ "$rc" -ne 139 ] || fail "bloomwall $* crashed (SIGSEGV) without $drop"
	[ "$rc" -eq "$want" ] || fail "bloomwall $* without $drop: exit $rc, expected $want"
}

# What a refused verb must leave as it was: the program on the hook, the
# filter generation, its entries, the allowlist.
caps_state()
{
	local s

	s=$("$BLOOMWALL" status "$BW_RX" 2>/dev/null)
	echo "prog $(hook_prog_id) generation $(kv <(echo "$s") generation)" \
		"entries $(kv <(echo "$s") "source prefixes")" \
		"allowlist $(kv <(echo "$s") allowlist)"
}

caps_ready()
{
	command -v capsh >/dev/null || skip "no capsh (package libcap2-bin)"
	capsh --has-p=cap_sys_admin 2>/dev/null ||
		skip "the runner itself lacks CAP_SYS_ADMIN"
}

# attach: refused without CAP_SYS_ADMIN (libxdp crashed there before) or
# CAP_NET_ADMIN, nothing attached; works with exactly the two, and without
# CAP_BPF, which CAP_SYS_ADMIN stands in for.
test_caps_attach()
{
	local l cap

	caps_ready
	l=$(list a.txt "$BW_A4")
	for cap in cap_sys_admin cap_net_admin; do
		bw_capsh 1 "$cap" attach "$BW_RX" "${SEED[@]}" "$l"
		assert_line "$ERR" "$(caps_msg attach "$cap")" \
			"attach without $cap names it"
		assert_detached
		bw_capsh 1 "$cap" attach "$BW_RX" --link "${SEED[@]}" "$l"
		assert_line "$ERR" "$(caps_msg attach "$cap")" \
			"attach --link without $cap names it"
		assert_detached
	done
	bw_capsh 1 cap_sys_admin,cap_net_admin attach "$BW_RX" "$l"
	assert_line "$ERR" \
		"$(caps_msg attach cap_sys_admin,cap_net_admin)" \
		"attach without both names both"
	assert_detached
	expect_delivered "$BW_A4" "$BW_RX4"

	bw_capsh 0 "$(caps_all_but "$(caps_need attach)")" attach "$BW_RX" \
		"${SEED[@]}" "$l"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 detach "$BW_RX"
	bw_capsh 0 cap_bpf,cap_perfmon attach "$BW_RX" "${SEED[@]}" "$l"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
}

# Every other verb on a running filter: refused without each capability it
# needs, with the filter, the hook and the allowlist as they were; then it
# works with exactly its set.
test_caps_verbs()
{
	local l1 l2 v verb cap before need

	caps_ready
	l1=$(list a.txt "$BW_A4")
	l2=$(list b.txt "$BW_B4")
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l1"
	for v in "reload $BW_RX ${SEED[*]} $l2" "add $BW_RX $BW_C4" \
		"remove $BW_RX $BW_C4" \
		"allow $BW_RX $BW_A4" "unallow $BW_RX $BW_A4" \
		"status $BW_RX" "query $BW_RX $BW_A4" "detach $BW_RX"; do
		verb=${v%% *}
		need=$(caps_need "$verb")
		before=$(caps_state)
		for cap in ${need//,/ }; do
			# shellcheck disable=SC2086 # verb and arguments, split on purpose
			bw_capsh 1 "$cap" $v
			assert_line "$ERR" "$(caps_msg "$verb" "$cap")" \
				"$verb without $cap names it"
			assert_eq "$(caps_state)" "$before" \
				"$verb without $cap changed nothing"
		done
		# shellcheck disable=SC2086
		bw_capsh 0 "$(caps_all_but "$need")" $v
	done
	assert_detached
	expect_delivered "$BW_B4" "$BW_RX4"
}
