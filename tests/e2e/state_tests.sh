# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of the state directory and the lock (issue 10, items 2
# and 3). An unprivileged user (uid 65534) on a world-writable bpffs (mode
# 1777, what a plain `mount -t bpf bpf /sys/fs/bpf` gives) tries what
# worked against earlier versions: make /sys/fs/bpf/bloomwall first, plant
# symlinks in it for root's detach to follow, hold its lock, rename root's
# pins. Root's verbs must refuse with a clear sentence, follow and remove
# nothing that is not root's, and never hang. Sourced by tests/e2e/run.sh,
# whose helpers (bw, list, fail, skip, assert_*, expect_*) they use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $STATE_TESTS"

STATE_NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
# shellcheck disable=SC2034 # read by run.sh
STATE_TESTS="test_state_dir_private test_state_foreign_root
test_state_symlink test_state_foreign_entries test_state_rename
test_state_lock_foreign test_state_lock_wait"

# The attacks' setting: a fresh bpffs mounted world-writable (the runner's
# own mount is too, but this does not depend on it), and a test directory
# that uid 65534 may enter.
state_setup()
{
	command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
	umount /sys/fs/bpf 2>/dev/null
	mount -t bpf -o mode=1777 bpf /sys/fs/bpf || fail "cannot mount a bpffs"
	assert_eq "$(stat -c %a /sys/fs/bpf)" 1777 "a world-writable bpffs"
	chmod 755 "$TMP_DIR"
}

# as_nobody CMD...: CMD as uid/gid 65534 with no groups.
as_nobody()
{
	"${STATE_NOBODY[@]}" "$@"
}

# A directory of root's files for a planted symlink to point root's verbs at.
make_victim()
{
	rm -rf "$TMP_DIR/victim"
	mkdir "$TMP_DIR/victim"
	echo keep >"$TMP_DIR/victim/a"
	echo keep >"$TMP_DIR/victim/b"
}

assert_victim()
{
	[ "$(cat "$TMP_DIR/victim/a" "$TMP_DIR/victim/b" 2>/dev/null)" = \
		"$(printf 'keep\nkeep')" ] ||
		fail "victim/ was changed: $(ls -la "$TMP_DIR/victim")"
}

# owner_mode PATH: "UID MODE" of PATH itself.
owner_mode()
{
	stat -c '%u %a' "$1"
}

msg_refuse_owner()
{
	echo "bloomwall: $1 is owned by uid 65534, not root; refusing to use it (remove it, as root, after checking who made it)"
}

msg_refuse_symlink()
{
	echo "bloomwall: $1 is a symlink; refusing to follow it (remove it, as root, after checking who made it)"
}

msg_made_private()
{
	echo "note: $BW_PIN_ROOT was mode $1, open to other users; made it 0700"
}

# bw_bounded RC ARGS...: bw, but a verb that hangs fails the test; RC "-"
# takes any exit status.
bw_bounded()
{
	local want=$1 rc

	shift
	echo "+ bloomwall $*"
	timeout 60 "$BLOOMWALL" "$@" >"$OUT" 2>"$ERR"
	rc=$?
	sed 's/^/  | /' "$OUT"
	sed 's/^/  ! /' "$ERR"
	[ "$rc" -ne 124 ] || fail "bloomwall $*: still waiting after 60 s"
	[ "$want" = - ] || [ "$rc" -eq "$want" ] ||
		fail "bloomwall $*: exit $rc, expected $want"
}

# hold_lock [nobody]: takes the lock on the state directory with flock(1)
# in the background (as uid 65534 with "nobody") and waits until the kernel shows it held; the
# holder's pid is in HOLDER. release_lock ends it (the test's EXIT trap too).
hold_lock()
{
	local i as=()

	[ "${1:-}" = nobody ] && as=("${STATE_NOBODY[@]}")
	# setpriv and flock exec: $! is the pid that takes the lock.
	"${as[@]}" flock -o "$BW_PIN_ROOT" sleep 300 &
	HOLDER=$!
	trap release_lock EXIT
	for i in $(seq 100); do
		grep -qE "^[0-9]+: FLOCK +ADVISORY +WRITE $HOLDER " /proc/locks &&
			return 0
		[ "$i" -lt 100 ] && sleep 0.1
	done
	fail "flock (pid $HOLDER) did not take the lock on $BW_PIN_ROOT"
}

# Ends flock's child; flock then exits and the lock is free.
release_lock()
{
	local c

	[ -n "${HOLDER:-}" ] || return 0
	for c in $(pgrep -P "$HOLDER"); do
		kill "$c"
	done
	wait "$HOLDER" 2>/dev/null
	HOLDER=""
}

# Root's verbs make the state directory root's and 0700, and keep it: no
# other user can look into it, write in it or remove it, even empty. One
# found open to others is made 0700, and the verb says so.
test_state_dir_private()
{
	local l

	state_setup
	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	assert_eq "$(owner_mode "$BW_PIN_ROOT")" "0 700" "the state directory"
	as_nobody ls "$BW_PIN_ROOT" && fail "another user can list it"
	as_nobody mkdir "$BW_PIN_ROOT/x" && fail "another user can write in it"
	bw 0 detach "$BW_RX"
	assert_eq "$(owner_mode "$BW_PIN_ROOT")" "0 700" \
		"the state directory after the last detach"
	as_nobody rmdir "$BW_PIN_ROOT" && fail "another user removed it"

	chmod 1777 "$BW_PIN_ROOT"
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	assert_line "$ERR" "$(msg_made_private 1777)" "attach says it fixed it"
	assert_eq "$(owner_mode "$BW_PIN_ROOT")" "0 700" "made private again"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
}

# The attack as found: another user makes the state directory first and
# plants a symlink to a directory of root's files where root's pins go.
# detach then unlinked every file in it. Now root's verbs refuse that
# directory, and nothing in it is followed or removed.
test_state_foreign_root()
{
	local l verb

	state_setup
	make_victim
	l=$(list a.txt "$BW_A4")
	as_nobody mkdir "$BW_PIN_ROOT" || fail "uid 65534 cannot mkdir"
	as_nobody ln -s "$TMP_DIR/victim" "$BW_PIN_ROOT/$BW_RX" ||
		fail "uid 65534 cannot plant the symlink"
	for verb in detach attach reload; do
		if [ $verb = detach ]; then
			bw_bounded 1 detach "$BW_RX"
		else
			bw_bounded 1 $verb "$BW_RX" "${SEED[@]}" "$l"
		fi
		# reload reads the hook first: nothing of bloomwall runs there.
		if [ $verb = reload ]; then
			assert_line "$ERR" "$(msg_not_attached "$BW_RX")" \
				"reload: nothing runs on the hook"
		else
			assert_line "$ERR" "$(msg_refuse_owner "$BW_PIN_ROOT")" \
				"$verb names the directory and its owner"
		fi
		assert_victim
	done
	bw_has_xdp "$BW_RX" && fail "attach attached into another user's directory"
	[ -L "$BW_PIN_ROOT/$BW_RX" ] || fail "the planted symlink was removed"
	assert_eq "$(owner_mode "$BW_PIN_ROOT")" "65534 755" \
		"the refused directory is left as it was"

	# Removed by root (rm does not follow it), all is well again.
	rm -r "$BW_PIN_ROOT"
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	assert_victim
}

# A state directory of root's but open to others (made by hand, say) in
# which another user planted a symlink: made 0700, the symlink refused and
# left in place, nothing it points to touched.
test_state_symlink()
{
	local l

	state_setup
	make_victim
	l=$(list a.txt "$BW_A4")
	mkdir -m 1777 "$BW_PIN_ROOT"
	as_nobody ln -s "$TMP_DIR/victim" "$BW_PIN_ROOT/$BW_RX" ||
		fail "uid 65534 cannot plant the symlink"
	bw_bounded 1 detach "$BW_RX"
	assert_line "$ERR" "$(msg_made_private 1777)" "detach made it private"
	assert_line "$ERR" "$(msg_refuse_symlink "$BW_PIN_ROOT/$BW_RX")" \
		"detach refuses the symlink"
	assert_victim
	bw_bounded 1 status "$BW_RX"
	assert_line "$ERR" "$(msg_refuse_symlink "$BW_PIN_ROOT/$BW_RX")" \
		"status refuses the symlink"
	bw_bounded 1 attach "$BW_RX" "${SEED[@]}" "$l"
	assert_line "$ERR" "$(msg_refuse_symlink "$BW_PIN_ROOT/$BW_RX")" \
		"attach refuses the symlink"
	assert_victim
	[ -L "$BW_PIN_ROOT/$BW_RX" ] || fail "the planted symlink was removed"
	assert_eq "$(owner_mode "$BW_PIN_ROOT")" "0 700" "made private"

	rm "$BW_PIN_ROOT/$BW_RX"
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
}

# Below an open state directory: an interface directory of another user's,
# and in root's own interface directory a pin that is another user's
# symlink. Both refused, neither followed nor removed.
test_state_foreign_entries()
{
	state_setup
	make_victim
	mkdir -m 1777 "$BW_PIN_ROOT" "$BW_PIN_ROOT/$BW_RX"
	if ! as_nobody mkdir "$BW_PIN_ROOT/bwother0" ||
		! as_nobody ln -s "$TMP_DIR/victim/a" "$BW_PIN_ROOT/bwother0/prog" ||
		! as_nobody ln -s "$TMP_DIR/victim/a" "$BW_PIN_ROOT/$BW_RX/prog" ||
		! as_nobody ln -s "$TMP_DIR/victim/b" "$BW_PIN_ROOT/$BW_RX/stats"; then
		fail "uid 65534 cannot plant its entries"
	fi
	bw_bounded 1 detach "$BW_RX"
	assert_line "$ERR" "$(msg_refuse_symlink "$BW_PIN_ROOT/$BW_RX/prog")" \
		"detach refuses the planted pin"
	assert_victim
	if [ ! -L "$BW_PIN_ROOT/$BW_RX/prog" ] || [ ! -L "$BW_PIN_ROOT/$BW_RX/stats" ]; then
		fail "a planted symlink was removed"
	fi
	# status shows what it can of the others and exits 0.
	bw_bounded - status
	assert_line "$ERR" "$(msg_refuse_owner "$BW_PIN_ROOT/bwother0")" \
		"status refuses the other user's directory"
	assert_victim
	[ -L "$BW_PIN_ROOT/bwother0/prog" ] || fail "a planted symlink was removed"
}

# Renaming root's state directory or pins away (to put one's own in their
# place) is refused by the kernel: the bpffs is sticky and the directory
# 0700. The filter keeps running and the next reload works.
test_state_rename()
{
	local l

	state_setup
	l=$(list a.txt "$BW_A4")
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	as_nobody mv "$BW_PIN_ROOT" /sys/fs/bpf/stolen &&
		fail "another user renamed the state directory"
	as_nobody mv "$BW_PIN_ROOT/$BW_RX" "$BW_PIN_ROOT/stolen" &&
		fail "another user renamed the pin directory"
	[ -e "$BW_PIN_ROOT/$BW_RX/prog" ] || fail "the prog pin is gone"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 reload "$BW_RX" "${SEED[@]}" "$l"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
}

# Another user holding the lock cannot make root's verbs wait forever:
# on a directory of theirs the verb refuses the directory; on one of root's
# that was open when they opened it, the verb names the holder and refuses
# to wait; on a private one they cannot open it at all.
test_state_lock_foreign()
{
	local l

	state_setup
	l=$(list a.txt "$BW_A4")
	as_nobody mkdir "$BW_PIN_ROOT" || fail "uid 65534 cannot mkdir"
	hold_lock nobody
	bw_bounded 1 attach "$BW_RX" "${SEED[@]}" "$l"
	assert_line "$ERR" "$(msg_refuse_owner "$BW_PIN_ROOT")" \
		"attach refuses the other user's directory"
	release_lock
	rmdir "$BW_PIN_ROOT"

	mkdir -m 1777 "$BW_PIN_ROOT"
	hold_lock nobody
	bw_bounded 1 attach "$BW_RX" "${SEED[@]}" "$l"
	assert_line "$ERR" "$(msg_made_private 1777)" "attach made it private"
	assert_line "$ERR" \
		"bloomwall: the lock on $BW_PIN_ROOT is held by pid $HOLDER (uid 65534), not root; refusing to wait for it (it was opened while $BW_PIN_ROOT was open to other users; end that process)" \
		"attach names the holder and does not wait"
	bw_has_xdp "$BW_RX" && fail "attach went on without the lock"
	release_lock

	as_nobody flock -n "$BW_PIN_ROOT" true &&
		fail "another user took the lock on the private directory"
	bw_bounded 0 attach "$BW_RX" "${SEED[@]}" "$l"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
}

# A verb that must wait for the lock says once who holds it (pid and
# command line) and goes on when it is free.
test_state_lock_wait()
{
	local la lb rp rc i

	state_setup
	la=$(list a.txt "$BW_A4")
	lb=$(list b.txt "$BW_B4")
	bw 0 attach "$BW_RX" "${SEED[@]}" "$la"
	hold_lock
	timeout 60 "$BLOOMWALL" reload "$BW_RX" "${SEED[@]}" "$lb" \
		>"$OUT" 2>"$ERR" &
	rp=$!
	for i in $(seq 300); do
		[ -s "$ERR" ] && break
		sleep 0.1
	done
	sed 's/^/  ! /' "$ERR"
	assert_line "$ERR" \
		"bloomwall: waiting for the lock held by pid $HOLDER (flock -o $BW_PIN_ROOT sleep 300)" \
		"reload names the holder"
	kill -0 "$rp" 2>/dev/null || fail "reload did not wait for the lock"
	assert_eq "$(generation)" 1 "generation while reload waits"
	release_lock
	wait "$rp"
	rc=$?
	sed 's/^/  | /' "$OUT"
	assert_eq "$rc" 0 "reload's exit status once the lock is free"
	assert_eq "$(grep -c 'waiting for the lock' "$ERR")" 1 \
		"the holder is named once"
	expect_delivered "$BW_A4" "$BW_RX4"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
}
