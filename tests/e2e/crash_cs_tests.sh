# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# The kill sweep over the CrowdSec bouncer's in-place writes, sourced by
# tests/e2e/run.sh beside crash_tests.sh, whose helpers it uses
# (crash_frame, crash_reset, crash_watch_gone, crash_watch_hung,
# crash_watch_pids, crash_live_points, crash_live_verdicts), with
# crowdsec_tests.sh's LAPI of the test's own (cs_setup, cs_start, cs_stop,
# cs: Debian's crowdsec 1.4.6, 'crowdsec -no-cs' on 127.0.0.1 in the
# test's network namespace).
#
# 'bloomwall watch --crowdsec --update-frequency 1' on a list takes four
# decisions from its startup answer: two of an hour (L), one of an hour
# that is deleted later (D) and a short one (S, a few seconds). Once that
# sync is said, 'cscli decisions add --ip' (N: an in-place add); once N is
# said taken, 'cscli decisions delete --ip' (D: an in-place delete); then
# S ends by the watch's own clock (an in-place delete: its row is taken
# out of the LAPI's database once the watch has it, so that no poll says
# it deleted first); then SIGTERM. The watch (not its rebuilds'
# children) is killed before each of its system calls from its start line
# on (strace's fault injection, as test_crash_sweep_live), and SIGKILLed
# at moments after N's add and D's delete returned (the in-place writes
# are memory stores between system calls). After each kill:
#   - no watch process is left; the hook's program (bpftool prog run on a
#     frame per address) and query drop the list's entry and every
#     decision that is live in the LAPI and that the watch had said it took
#     before the kill (L and D once the startup sync was said, unless D's
#     delete had begun; N once an update said it new; S, held by the
#     watch until its end, while the check begins more than a second
#     before that end), and pass two unlisted addresses;
#   - the LAPI is brought to the final set (N added, D deleted, if the
#     kill came first), and a next watch converges to it: once S's end is
#     past, L and N drop, D and S pass, its state file counts 3 decisions
#     and 3 live entries, and it ends on SIGTERM within a second with 0.
# make test runs a sample (every STRIDE-th call from the start line, and
# a kill after N's add and after D's delete); BW_CRASH_FULL=1 (make
# crash-sweep) runs every call and 15 timed kills after each.

# shellcheck disable=SC2034 # read by run.sh, which sources this file
CRASH_CS_TESTS="test_crash_sweep_cs"

CRASH_CS_STRIDE=${BW_CRASH_CS_STRIDE:-120}
# Seconds: S's duration (it ends inside the traced window).
CRASH_CS_SHORT_S=${BW_CRASH_CS_SHORT_S:-4}
CRASH_CS_LONG=(10.77.0.11 10.77.0.12)
CRASH_CS_NEW=10.77.0.13
CRASH_CS_DEL=10.77.0.14
CRASH_CS_SHORT=10.77.0.21
CRASH_CS_UNLISTED=(10.77.0.4 10.77.0.31)
# What a next watch converges to: L and N.
CRASH_CS_FINAL=3

crash_cs_watch_args()
{
	echo "watch $BW_RX --debounce 0 --interval 60 --crowdsec $CS_URL --crowdsec-key-file $CS_KEY --update-frequency 1 ${SEED[*]} $CRASH_CL"
}

# Milliseconds since the epoch.
crash_cs_ms()
{
	date +%s%3N
}

# crash_cs_state SECTION KEY: a count of the watch's state file (live
# entries, crowdsec decisions), or nothing.
crash_cs_state()
{
	python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]])' \
		"/run/bloomwall/$BW_RX.json" "$1" "$2" 2>/dev/null
}

# The state each point starts from: the list's filter, and in the LAPI L,
# D and S alone; S's end as the LAPI keeps it (whole seconds) in
# CRASH_CS_S_END (ms).
crash_cs_setup()
{
	local a u

	crash_reset
	"$BLOOMWALL" attach "$BW_RX" --mode native "${SEED[@]}" "$CRASH_CL" \
		>/dev/null 2>&1 || return 1
	cs decisions delete --all >/dev/null 2>&1 || return 1
	{
		echo duration,scope,value
		for a in "${CRASH_CS_LONG[@]}" "$CRASH_CS_DEL"; do
			echo "1h,Ip,$a"
		done
		echo "${CRASH_CS_SHORT_S}s,Ip,$CRASH_CS_SHORT"
	} >"$TMP_DIR/cs.csv"
	cs decisions import -i "$TMP_DIR/cs.csv" >"$TMP_DIR/ci.out" 2>&1 || {
		cat "$TMP_DIR/ci.out"
		return 1
	}
	u=$(sqlite3 -cmd '.timeout 10000' "$CS_DIR/data/crowdsec.db" \
		"SELECT until FROM decisions WHERE value = '$CRASH_CS_SHORT' ORDER BY id DESC LIMIT 1;")
	CRASH_CS_S_END=$(date -d "$u" +%s%3N) || return 1
}

# crash_cs_said new|deleted LINE: a poll line past line LINE of the
# watch's output took a decision in (new) or out (deleted).
crash_cs_said()
{
	local ere=': [1-9][0-9]* new, '

	[ "$1" = deleted ] && ere=': [0-9]+ new, [1-9][0-9]* deleted; '
	tail -n +$(($2 + 1)) "$TMP_DIR/w.out" |
		grep -qE "crowdsec: (update|full sync ok)$ere"
}

# N's add and D's delete in the LAPI, each once a point (CRASH_CS_ADDED,
# CRASH_CS_DELETED: begun; CRASH_CS_ADD_LINE, CRASH_CS_DEL_LINE: the
# watch's output lines before it).
crash_cs_add()
{
	[ "$CRASH_CS_ADDED" = 1 ] && return 0
	CRASH_CS_ADD_LINE=$(wc -l <"$TMP_DIR/w.out")
	CRASH_CS_ADDED=1
	cs decisions add --ip "$CRASH_CS_NEW" --duration 1h \
		>>"$TMP_DIR/cs.err" 2>&1 || echo "cscli decisions add failed" >>"$TMP_DIR/cs.bad"
}

crash_cs_delete()
{
	[ "$CRASH_CS_DELETED" = 1 ] && return 0
	CRASH_CS_DEL_LINE=$(wc -l <"$TMP_DIR/w.out")
	CRASH_CS_DELETED=1
	cs decisions delete --ip "$CRASH_CS_DEL" \
		>>"$TMP_DIR/cs.err" 2>&1 || echo "cscli decisions delete failed" >>"$TMP_DIR/cs.bad"
}

# S's row out of the LAPI's database once the watch took it: no deletion
# the stream would report, so that the watch's own clock alone ends it
# (the LAPI says an ended decision deleted, at a poll that may come first).
crash_cs_forget()
{
	sqlite3 -cmd '.timeout 10000' "$CS_DIR/data/crowdsec.db" \
		"DELETE FROM decisions WHERE value = '$CRASH_CS_SHORT';" \
		>>"$TMP_DIR/cs.err" 2>&1 ||
		echo "sqlite3: S's row not deleted" >>"$TMP_DIR/cs.bad"
}

# crash_cs_timed WHEN PID: with CRASH_CS_TIMED=WHEN:DELAY, PID SIGKILLed
# DELAY s from now.
crash_cs_timed()
{
	[ "${CRASH_CS_TIMED:-}" ] && [ "${CRASH_CS_TIMED%%:*}" = "$1" ] || return 0
	sleep "${CRASH_CS_TIMED#*:}"
	kill -KILL "$2" 2>/dev/null
}

# What the watch's filter must say while it runs, once D and S went (the
# clean run, before its SIGTERM): the in-place writes took effect.
crash_cs_final_verdicts()
{
	crash_live_verdicts drop "$BW_A4" "${CRASH_CS_LONG[@]}" "$CRASH_CS_NEW"
	crash_live_verdicts pass "$CRASH_CS_DEL" "$CRASH_CS_SHORT" \
		"${CRASH_CS_UNLISTED[@]}"
}

# crash_cs_run STRACE_ARGS...: the watch under strace STRACE_ARGS; after
# its startup sync N's add, after N's update D's delete, after S's end
# (3 decisions held, a second past it) SIGTERM. Sets CRASH_RC, CRASH_HUNG
# as crash_watch_run does, and CRASH_CS_PHASE. With CRASH_CS_TIMED=add:D
# or delete:D, the watch is SIGKILLed D s after N's add or D's delete
# returned. With CRASH_CS_CLEAN=1, crash_cs_final_verdicts before the
# SIGTERM, into $TMP_DIR/clean.bad.
crash_cs_run()
{
	local spid wpid="" i phase=start

	CRASH_HUNG=0
	CRASH_CS_ADDED=0
	CRASH_CS_DELETED=0
	CRASH_CS_ADD_LINE=0
	CRASH_CS_DEL_LINE=0
	: >"$TMP_DIR/w.out"
	: >"$TMP_DIR/cs.err"
	: >"$TMP_DIR/cs.bad"
	: >"$TMP_DIR/clean.bad"
	crash_traced_start "$(crash_cs_watch_args)" "$@"
	spid=$CRASH_SPID
	# Bounds, not times to meet: 40 s in all.
	for i in $(seq 800); do
		kill -0 "$spid" 2>/dev/null || break
		[ -z "$wpid" ] && wpid=$(crash_traced_pid)
		case $phase in
		start)
			if [ -n "$wpid" ] && grep -q "$SYNC_OK" "$TMP_DIR/w.out"; then
				crash_cs_forget
				crash_cs_add
				phase=add
				crash_cs_timed add "$wpid"
			fi
			;;
		add)
			if crash_cs_said new "$CRASH_CS_ADD_LINE"; then
				crash_cs_delete
				phase=delete
				crash_cs_timed delete "$wpid"
			fi
			;;
		delete)
			crash_cs_said deleted "$CRASH_CS_DEL_LINE" && phase=expiry
			;;
		expiry)
			if [ "$(crash_cs_ms)" -gt $((CRASH_CS_S_END + 1000)) ] &&
				[ "$(crash_cs_state crowdsec decisions)" = "$CRASH_CS_FINAL" ]; then
				[ "${CRASH_CS_CLEAN:-0}" = 1 ] &&
					crash_cs_final_verdicts >"$TMP_DIR/clean.bad"
				kill -TERM "$wpid" 2>/dev/null
				phase=term
			fi
			;;
		esac
		if [ "$i" -eq 800 ]; then
			CRASH_HUNG=1
			crash_watch_hung "$wpid" >"$TMP_DIR/w.hung"
			# shellcheck disable=SC2046 # pids
			kill -KILL $(crash_watch_pids) 2>/dev/null
		fi
		sleep 0.05
	done
	wait "$spid"
	CRASH_RC=$(cat "$TMP_DIR/w.rc")
	CRASH_CS_PHASE=$phase
	return 0
}

# crash_cs_after_kill NOW: after a kill, NOW (ms) when the check began:
# every decision still live (in the LAPI; S, whose row went: until its
# end) that the watch had said it took drops (the watch is gone: none was
# taken out after NOW), the list's entry drops, the unlisted pass. Prints
# what does not.
crash_cs_after_kill()
{
	local must=("$BW_A4")

	if grep -q "$SYNC_OK" "$TMP_DIR/w.out"; then
		must+=("${CRASH_CS_LONG[@]}")
		# Not once cscli began to delete it (the LAPI may say either).
		[ "$CRASH_CS_DELETED" = 0 ] && must+=("$CRASH_CS_DEL")
		# The watch counts S's duration from its request's start, the
		# LAPI from its answer: a second's margin for that.
		[ $(($1 + 1000)) -lt "$CRASH_CS_S_END" ] && must+=("$CRASH_CS_SHORT")
	fi
	[ "$CRASH_CS_ADDED" = 1 ] && crash_cs_said new "$CRASH_CS_ADD_LINE" &&
		must+=("$CRASH_CS_NEW")
	crash_live_verdicts drop "${must[@]}"
	crash_live_verdicts pass "${CRASH_CS_UNLISTED[@]}"
}

# Then the LAPI's final set (what the kill kept the run from doing), and
# a next watch converges to it: once S's end is a second past, L and N
# drop and D, S and the unlisted pass, its state file counts 3 decisions
# and 3 live entries; it ends on SIGTERM with 0 within a second (a bound).
# Prints why not.
crash_cs_recover()
{
	local i pid bad n="" d=""

	crash_cs_add
	crash_cs_delete
	if [ -s "$TMP_DIR/cs.bad" ]; then
		cat "$TMP_DIR/cs.bad" "$TMP_DIR/cs.err"
		return 1
	fi
	: >"$TMP_DIR/n.out"
	# shellcheck disable=SC2046 # the command line, split on purpose
	"$BLOOMWALL" $(crash_cs_watch_args) >>"$TMP_DIR/n.out" \
		2>"$TMP_DIR/n.err" &
	pid=$!
	for i in $(seq 200); do
		grep -q "$SYNC_OK" "$TMP_DIR/n.out" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q "$SYNC_OK" "$TMP_DIR/n.out"; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		echo "the next watch did not take over and sync"
		sed 's/^/    n /' "$TMP_DIR/n.out"
		sed 's/^/    n! /' "$TMP_DIR/n.err"
		return 1
	fi
	# A bound: 20 s.
	for i in $(seq 200); do
		if [ "$(crash_cs_ms)" -gt $((CRASH_CS_S_END + 1000)) ]; then
			n=$(crash_cs_state live entries)
			d=$(crash_cs_state crowdsec decisions)
			bad=$(crash_cs_final_verdicts)
			[ -z "$bad" ] && [ "$n" = "$CRASH_CS_FINAL" ] &&
				[ "$d" = "$CRASH_CS_FINAL" ] && break
		fi
		sleep 0.1
	done
	bad=$(crash_cs_final_verdicts)
	[ "$n" = "$CRASH_CS_FINAL" ] ||
		bad="$bad; the state file says ${n:-no} live entries, not $CRASH_CS_FINAL"
	[ "$d" = "$CRASH_CS_FINAL" ] ||
		bad="$bad; the state file says ${d:-no} decisions, not $CRASH_CS_FINAL"
	crash_next_watch_end "$pid" 10 "$bad"
}

# crash_cs_check WHAT: after a killed watch. Prints what failed.
crash_cs_check()
{
	local now bad

	if [ "$CRASH_HUNG" = 1 ]; then
		echo "  $1: the watch did not end (killed after the bound)"
		sed 's/^/    h /' "$TMP_DIR/w.hung"
		return 1
	fi
	if ! crash_watch_gone >"$TMP_DIR/why" 2>&1; then
		echo "  $1: $(cat "$TMP_DIR/why")"
		return 1
	fi
	now=$(crash_cs_ms)
	bad=$(crash_cs_after_kill "$now")
	if [ -n "$bad" ]; then
		echo "  $1: MISS after the kill (phase $CRASH_CS_PHASE):"
		# shellcheck disable=SC2001 # a prefix on every line
		sed 's/^/    /' <<<"$bad"
		sed 's/^/    w /' "$TMP_DIR/w.out"
		sed 's/^/    w! /' "$TMP_DIR/w.err"
		return 1
	fi
	if ! crash_cs_recover >"$TMP_DIR/why" 2>&1; then
		echo "  $1: $(cat "$TMP_DIR/why")"
		sed 's/^/    w /' "$TMP_DIR/w.out"
		return 1
	fi
}

crash_cs_cleanup()
{
	# shellcheck disable=SC2046 # pids
	kill -KILL $(crash_watch_pids) 2>/dev/null
	cs_stop
}

test_crash_sweep_cs()
{
	local s k calls window t0 bad=0 points=0 killed=0 phases a d delays

	command -v strace >/dev/null || skip "strace is not installed"
	command -v sqlite3 >/dev/null || skip "no sqlite3"
	trap crash_cs_cleanup EXIT
	cs_setup
	cs_start
	mkdir -p "$TMP_DIR/cl"
	# In a directory of its own: the traces are no events for the watch.
	CRASH_CL=$TMP_DIR/cl/list.txt
	printf '%s\n' "$BW_A4" 10.77.1.{1..20} >"$CRASH_CL"
	for a in "$BW_A4" "${CRASH_CS_LONG[@]}" "$CRASH_CS_NEW" "$CRASH_CS_DEL" \
		"$CRASH_CS_SHORT" "${CRASH_CS_UNLISTED[@]}"; do
		crash_frame "$a" "$TMP_DIR/lf.$a"
	done

	# One clean run: the sync, N's add, D's delete and S's end in place,
	# and a next watch converging.
	crash_cs_setup || fail "cannot set the sweep's state up"
	CRASH_CS_CLEAN=1 crash_cs_run -qq -o "$TMP_DIR/cstrace"
	sed 's/^/  w /' "$TMP_DIR/w.out"
	sed 's/^/  w! /' "$TMP_DIR/w.err"
	if [ "$CRASH_RC" -ne 0 ] || [ "$CRASH_HUNG" = 1 ]; then
		sed 's/^/  h /' "$TMP_DIR/w.hung" 2>/dev/null
		fail "the clean watch under strace exited $CRASH_RC (phase $CRASH_CS_PHASE)"
	fi
	assert_eq "$CRASH_CS_PHASE" term "the clean watch's run: took N in, D and S out"
	if [ -s "$TMP_DIR/clean.bad" ]; then
		cat "$TMP_DIR/clean.bad"
		fail "the clean watch's filter after its in-place writes"
	fi
	crash_cs_recover || fail "the next watch after the clean one"
	CRASH_LIVE_STRIDE=$CRASH_CS_STRIDE crash_live_points "$TMP_DIR/cstrace" \
		>"$TMP_DIR/points.cs"
	read -r _ calls window < <(grep '^n ' "$TMP_DIR/points.cs")
	echo "the clean run: $calls calls, $window from its start line on"
	[ "$window" -gt 0 ] || fail "no start line's write in the trace"

	t0=$SECONDS
	phases=""
	while read -r s k; do
		[ "$s" = n ] && continue
		points=$((points + 1))
		crash_cs_setup || fail "cannot set the sweep's state up"
		crash_cs_run -qq -o /dev/null -e trace="$s" \
			-e inject="$s":signal=SIGKILL:when="$k"
		[ "$CRASH_RC" -eq 137 ] && killed=$((killed + 1))
		phases="$phases $CRASH_CS_PHASE"
		crash_cs_check "watch killed at $s #$k" || bad=$((bad + 1))
	done <"$TMP_DIR/points.cs"
	delays="add:0.5 delete:0.5"
	[ "${BW_CRASH_FULL:-0}" = 1 ] &&
		delays="$(seq -f 'add:%.1f' 0.1 0.1 1.5) $(seq -f 'delete:%.1f' 0.1 0.1 1.5)"
	delays=${BW_CRASH_CS_TIMED:-$delays}
	for d in $delays; do
		points=$((points + 1))
		crash_cs_setup || fail "cannot set the sweep's state up"
		CRASH_CS_TIMED=$d crash_cs_run -qq -o /dev/null -e trace=none
		[ "$CRASH_RC" -eq 137 ] && killed=$((killed + 1))
		phases="$phases $CRASH_CS_PHASE"
		crash_cs_check "watch SIGKILLed ${d#*:} s after the ${d%%:*}" ||
			bad=$((bad + 1))
	done
	echo "crash sweep: crowdsec: $points points ($(($(wc -l <"$TMP_DIR/points.cs") - 1)) of the $window calls from the start line on, stride $CRASH_CS_STRIDE; $(echo "$delays" | wc -w) timed), $killed killed, $bad inconsistent; killed in phase: $(tr ' ' '\n' <<<"$phases" | grep . | sort | uniq -c | tr -s ' \n' ' '); $((SECONDS - t0)) s"
	[ "$killed" -gt 0 ] || fail "no kill took effect: strace injection broken?"
	assert_eq "$bad" 0 "inconsistent states after a kill"
}
