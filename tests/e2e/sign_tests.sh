# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of signed images and rollback protection (P10 item 2):
# keygen's files and modes, build --sign-key (byte-identical, serial from
# the list's mtime or --serial), inspect naming the signer, load with the
# right key (the image's verdicts on real pings) and refused with another
# key, unsigned, tampered or by the default key in /etc/bloomwall, the
# running program and generation unchanged; load and watch --image refusing
# an older serial, the newer filter kept, and --allow-rollback taking it;
# a trusted-keys file that another user can change (its mode, a directory
# on its path, its owner) refused, naming the path and the fix; two images
# with one serial and other bytes not swapped back and forth, and default
# serials that grow within a second.
# Sourced by tests/e2e/run.sh, whose helpers (bw, list, json, kv, fail,
# assert_*, expect_*, generation) and topology they use, and the watch
# helpers of ops_tests.sh (start_watch, stop_watch, wait_line, kill_watch).
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $SIGN_TESTS"

# shellcheck disable=SC2034 # read by run.sh
SIGN_TESTS="test_sign_keygen_build_inspect test_sign_load
test_sign_default_key test_sign_watch_rollback test_sign_trust_modes
test_sign_equal_serial"

# The id of the program on $BW_RX's XDP hook, as the kernel says.
sign_prog_id()
{
	ip -d link show dev "$BW_RX" | grep -oE 'prog/xdp id [0-9]+' |
		grep -oE '[0-9]+$'
}

# sign_keys DIR NAME: a key pair DIR/NAME.key, DIR/NAME.pub; its id.
sign_keys()
{
	"$BLOOMWALL" keygen "$1/$2.key" "$1/$2.pub" |
		sed -n 's/^.*: public key written: key id \([0-9a-f]*\)$/\1/p'
}

# sign_image OUT MTIME LIST ARGS...: build -o OUT of LIST, its mtime set to
# @MTIME first (so its serial is MTIME in microseconds: MTIME000000).
sign_image()
{
	local out=$1 mtime=$2 l=$3

	shift 3
	touch -d "@$mtime" "$l"
	bw 0 build -o "$out" "${SEED[@]}" "$@" "$l"
}

# The same state as before a refused load: program, generation, verdicts.
sign_unchanged()
{
	assert_eq "$(sign_prog_id)" "$1" "$3: the program on the hook"
	assert_eq "$(generation)" "$2" "$3: the generation"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
}

test_sign_keygen_build_inspect()
{
	local d=$TMP_DIR/keys l id id2 before

	mkdir -p "$d"
	bw 0 keygen "$d/a.key" "$d/a.pub"
	assert_grep "$OUT" "^$d/a.key: secret key written \\(mode 0600\\)\$" "keygen: the secret"
	assert_grep "$OUT" "^$d/a.pub: public key written: key id [0-9a-f]{16}\$" "keygen: the public key"
	id=$(sed -n 's/^.*key id //p' "$OUT")
	assert_eq "$(stat -c %a "$d/a.key")" 600 "the secret key's mode"
	assert_eq "$(stat -c %a "$d/a.pub")" 644 "the public key's mode"
	assert_grep "$d/a.pub" "^bloomwall-ed25519-pub [A-Za-z0-9+/]{43}= key-id:$id\$" "the public key file"
	# The key id is the SHA-256 of the raw key, as doc/fleet.md says.
	assert_eq "$(awk '{print $2}' "$d/a.pub" | base64 -d | sha256sum | cut -c1-16)" \
		"$id" "the key id from sha256sum"
	before=$(sha256sum "$d/a.key" "$d/a.pub")
	bw 1 keygen "$d/a.key" "$d/a.pub"
	assert_line "$ERR" "$d/a.key: exists: not replaced (--force replaces it)" \
		"keygen does not overwrite"
	assert_eq "$(sha256sum "$d/a.key" "$d/a.pub")" "$before" "the keys as they were"
	bw 0 keygen --force "$d/a.key" "$d/a.pub"
	[ "$(sha256sum "$d/a.key" "$d/a.pub")" != "$before" ] || fail "--force kept the old keys"
	id=$(sed -n 's/^.*key id //p' "$OUT")
	id2=$(sign_keys "$d" b)

	l=$(list a.txt "$BW_A4" 192.0.2.0/24)
	sign_image "$TMP_DIR/s1.img" 1700000000 "$l" --sign-key "$d/a.key"
	assert_line "$OUT" "$TMP_DIR/s1.img: serial 1700000000000000 (from the lists' mtime), time 2023-11-14 22:13:20 UTC, signed by key $id" \
		"build says the serial, time and signer"
	bw 0 build -o "$TMP_DIR/s2.img" "${SEED[@]}" --sign-key "$d/a.key" "$l"
	cmp "$TMP_DIR/s1.img" "$TMP_DIR/s2.img" || fail "the same list, flags and key gave two images"
	bw 0 build -o "$TMP_DIR/n.img" "${SEED[@]}" --serial 7 "$l"
	assert_grep "$OUT" "^$TMP_DIR/n.img: serial 7 \\(given\\), time 2023-11-14 22:13:20 UTC, unsigned\$" \
		"--serial, unsigned"

	bw 0 inspect "$TMP_DIR/s1.img"
	assert_kv "$OUT" signature "signed by key $id, not checked against a trusted key (no --verify-key): it holds for the key it names" \
		"inspect names the signer"
	assert_kv "$OUT" serial 1700000000000000 "inspect: the serial"
	assert_kv "$OUT" time "2023-11-14 22:13:20 UTC" "inspect: the time"
	bw 0 inspect --verify-key "$d/a.pub" "$TMP_DIR/s1.img"
	assert_kv "$OUT" signature "signed by key $id, verified (a trusted key of $d/a.pub)" \
		"inspect --verify-key: verified"
	bw 0 -j inspect --verify-key "$d/a.pub" "$TMP_DIR/s1.img"
	assert_eq "$(json "$OUT" '[d["image"][k] for k in ("signed", "verified", "signer", "serial")]')" \
		"[true,true,\"$id\",1700000000000000]" "inspect JSON"
	bw 0 inspect "$TMP_DIR/n.img"
	assert_kv "$OUT" signature "none (unsigned)" "inspect: unsigned"
	bw 1 inspect --verify-key "$d/b.pub" "$TMP_DIR/s1.img"
	assert_line "$ERR" "$TMP_DIR/s1.img: refused: signed by key $id, which is not a trusted key ($d/b.pub: $id2)" \
		"inspect with another key"
	bw 1 inspect --verify-key "$d/a.pub" "$TMP_DIR/n.img"
	assert_line "$ERR" "$TMP_DIR/n.img: refused: unsigned, and a signature is required: $d/a.pub holds the trusted keys (sign it with 'bloomwall build --sign-key')" \
		"inspect of an unsigned image with a key"
	chmod 640 "$d/a.key"
	bw 1 build -o "$TMP_DIR/x.img" --sign-key "$d/a.key" "$l"
	assert_line "$ERR" "$d/a.key: refused: the secret key file is open to group or others (mode 0640): chmod 600 $d/a.key" \
		"a secret key others may read"
	[ -e "$TMP_DIR/x.img" ] && fail "an image was written with a refused key"
	return 0
}

test_sign_load()
{
	local d=$TMP_DIR/keys-load la lb id prog gen

	mkdir -p "$d"
	id=$(sign_keys "$d" a)
	sign_keys "$d" b >/dev/null
	la=$(list a.txt "$BW_A4")
	lb=$(list b.txt "$BW_B4")
	sign_image "$TMP_DIR/new.img" 1700000000 "$la" --sign-key "$d/a.key"
	sign_image "$TMP_DIR/old.img" 1600000000 "$lb" --sign-key "$d/a.key"
	sign_image "$TMP_DIR/other.img" 1800000000 "$lb" --sign-key "$d/b.key"
	sign_image "$TMP_DIR/plain.img" 1800000000 "$lb"
	bw 0 attach "$BW_RX" "${SEED[@]}" "$lb"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4

	bw 0 load "$BW_RX" --verify-key "$d/a.pub" "$TMP_DIR/new.img"
	assert_line "$OUT" "$BW_RX: image serial 1700000000000000 (of 2023-11-14 22:13:20 UTC), signed by key $id, verified ($d/a.pub)" \
		"load says what it verified"
	prog=$(sign_prog_id)
	gen=$(generation)
	sign_unchanged "$prog" "$gen" "after the load"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" image "serial 1700000000000000 (of 2023-11-14 22:13:20 UTC), signed by key $id, verified when loaded" \
		"status shows the running image"
	bw 0 stats "$BW_RX" --prometheus
	assert_line "$OUT" "bloomwall_image_serial{iface=\"$BW_RX\"} 1700000000000000" \
		"the metrics: the running image's serial"
	assert_grep "$OUT" "^bloomwall_image_info\\{iface=\"$BW_RX\",hash=\"[0-9a-f]{32}\",signer=\"$id\",verified=\"1\"\\} 1\$" \
		"the metrics: its hash and signer"
	if command -v promtool >/dev/null; then
		promtool check metrics <"$OUT" || fail "promtool refuses the metrics"
	fi

	bw 1 load "$BW_RX" --verify-key "$d/a.pub" "$TMP_DIR/other.img"
	assert_grep "$ERR" "^$TMP_DIR/other.img: refused: signed by key [0-9a-f]{16}, which is not a trusted key \\($d/a.pub: $id\\)\$" \
		"another key's image"
	sign_unchanged "$prog" "$gen" "another key"
	bw 1 load "$BW_RX" --verify-key "$d/a.pub" "$TMP_DIR/plain.img"
	assert_grep "$ERR" "^$TMP_DIR/plain.img: refused: unsigned, and a signature is required" \
		"an unsigned image"
	sign_unchanged "$prog" "$gen" "unsigned"
	# One byte of the filter changed: the signature is checked first.
	cp "$TMP_DIR/new.img" "$TMP_DIR/bad.img"
	image_flip "$TMP_DIR/bad.img" 300
	bw 1 load "$BW_RX" --verify-key "$d/a.pub" "$TMP_DIR/bad.img"
	assert_line "$ERR" "$TMP_DIR/bad.img: refused: bad signature: it does not hold for trusted key $id (the image was changed after it was signed, or the signature is forged)" \
		"a tampered image, refused by its signature before its crc"
	bw 1 load "$BW_RX" "$TMP_DIR/bad.img"
	assert_grep "$ERR" "^$TMP_DIR/bad.img: refused: corrupted: its signature does not hold for the key it names" \
		"tampered, without a key"
	sign_unchanged "$prog" "$gen" "tampered"

	# Rollback: an older serial is refused, --allow-rollback takes it.
	bw 1 load "$BW_RX" --verify-key "$d/a.pub" "$TMP_DIR/old.img"
	assert_line "$ERR" "$TMP_DIR/old.img: refused: a rollback: serial 1600000000000000 (of 2020-09-13 12:26:40 UTC) is older than the running filter's 1700000000000000 (of 2023-11-14 22:13:20 UTC); --allow-rollback takes it" \
		"load refuses an older serial"
	sign_unchanged "$prog" "$gen" "an older serial"
	bw 0 load "$BW_RX" --verify-key "$d/a.pub" --allow-rollback "$TMP_DIR/old.img"
	assert_eq "$(generation)" $((gen + 1)) "--allow-rollback loads it"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"
	# A reload from lists runs no image: any image may follow.
	bw 0 reload "$BW_RX" "$la"
	bw 0 load "$BW_RX" "$TMP_DIR/old.img"
	assert_line "$OUT" "$BW_RX: image serial 1600000000000000 (of 2020-09-13 12:26:40 UTC), signed by key $id, no signature required (no --verify-key, no /etc/bloomwall/verify.pub)" \
		"load without a key says so"
	bw 0 detach "$BW_RX"
}

# /etc/bloomwall/verify.pub, on a tmpfs of this test's mount namespace only
# (run.sh makes every mount private): the host never sees the key, and the
# directory is removed again if the test made it.
# Takes the test's tmpfs off /etc/bloomwall, and the directory if it made it.
sign_etc_cleanup()
{
	umount /etc/bloomwall 2>/dev/null
	[ -n "${SIGN_ETC_MADE:-}" ] && rmdir /etc/bloomwall 2>/dev/null
	return 0
}

test_sign_default_key()
{
	local d=$TMP_DIR/keys-default l id

	mkdir -p "$d"
	id=$(sign_keys "$d" a)
	l=$(list a.txt "$BW_A4")
	sign_image "$TMP_DIR/s.img" 1700000000 "$l" --sign-key "$d/a.key"
	sign_image "$TMP_DIR/u.img" 1700000000 "$l"
	SIGN_ETC_MADE=
	trap sign_etc_cleanup EXIT
	if [ ! -d /etc/bloomwall ]; then
		mkdir /etc/bloomwall || skip "cannot make /etc/bloomwall"
		SIGN_ETC_MADE=1
	fi
	mount -t tmpfs -o size=64k,mode=755 bwtest-etc /etc/bloomwall ||
		skip "cannot mount a tmpfs on /etc/bloomwall"
	cp "$d/a.pub" /etc/bloomwall/verify.pub
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	bw 1 load "$BW_RX" "$TMP_DIR/u.img"
	assert_line "$ERR" "$TMP_DIR/u.img: refused: unsigned, and a signature is required: /etc/bloomwall/verify.pub (the default) holds the trusted keys (sign it with 'bloomwall build --sign-key')" \
		"the default key refuses an unsigned image, and says it is the default"
	bw 1 inspect "$TMP_DIR/u.img"
	bw 0 load "$BW_RX" "$TMP_DIR/s.img"
	assert_line "$OUT" "$BW_RX: image serial 1700000000000000 (of 2023-11-14 22:13:20 UTC), signed by key $id, verified (/etc/bloomwall/verify.pub (the default))" \
		"the default key verifies"
	echo garbage >/etc/bloomwall/verify.pub
	bw 1 load "$BW_RX" "$TMP_DIR/s.img"
	assert_line "$ERR" "/etc/bloomwall/verify.pub:1: not a bloomwall public key (\"bloomwall-ed25519-pub BASE64\"): it does not start with the key's tag" \
		"a broken default is an error, not no key"
	bw 0 detach "$BW_RX"
	sign_etc_cleanup
	[ -e /etc/bloomwall/verify.pub ] && fail "the test's key is left in /etc/bloomwall"
	return 0
}

test_sign_watch_rollback()
{
	local d=$TMP_DIR/keys-watch w=$TMP_DIR/w/watch.img la lb gen

	trap kill_watch EXIT
	mkdir -p "$d" "$TMP_DIR/w"
	sign_keys "$d" a >/dev/null
	sign_keys "$d" b >/dev/null
	la=$(list a.txt "$BW_A4")
	lb=$(list b.txt "$BW_B4")
	bw 0 build -o "$TMP_DIR/new.img" --serial 2000 --sign-key "$d/a.key" "$la"
	bw 0 build -o "$TMP_DIR/old.img" --serial 1000 --sign-key "$d/a.key" "$lb"
	bw 0 build -o "$TMP_DIR/other.img" --serial 3000 --sign-key "$d/b.key" "$lb"
	bw 0 build -o "$TMP_DIR/plain.img" --serial 3000 "$lb"
	bw 0 build -o "$TMP_DIR/twin.img" --serial 2000 --sign-key "$d/a.key" "$lb"
	cp "$TMP_DIR/new.img" "$w"
	start_watch --debounce 0.2 --image "$w" --verify-key "$d/a.pub"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	gen=$(generation)
	# Yesterday's image from a mirror: refused, the newer one runs on.
	cp "$TMP_DIR/old.img" "$w.tmp" && mv "$w.tmp" "$w"
	wait_line "$WATCH_OUT" "reload FAILED"
	assert_grep "$WATCH_ERR" "^$w: refused: a rollback: serial 1000 \\(of .*\\) is older than the running filter's 2000 \\(of .*\\); --allow-rollback takes it\$" \
		"watch refuses an older serial"
	cp "$TMP_DIR/other.img" "$w.tmp" && mv "$w.tmp" "$w"
	wait_line "$WATCH_OUT" "reload FAILED" 2
	cp "$TMP_DIR/plain.img" "$w.tmp" && mv "$w.tmp" "$w"
	wait_line "$WATCH_OUT" "reload FAILED" 3
	# Another build given the running serial: refused too.
	cp "$TMP_DIR/twin.img" "$w.tmp" && mv "$w.tmp" "$w"
	wait_line "$WATCH_OUT" "reload FAILED" 4
	assert_grep "$WATCH_ERR" "^$w: refused: serial 2000 \\(of .*\\) is the running filter's, and the image is not the one that runs" \
		"watch refuses an equal serial with other bytes"
	assert_grep "$WATCH_ERR" "^$w: refused: signed by key [0-9a-f]{16}, which is not a trusted key" \
		"watch refuses another key's image"
	assert_grep "$WATCH_ERR" "^$w: refused: unsigned, and a signature is required" \
		"watch refuses an unsigned image"
	assert_eq "$(generation)" "$gen" "the refused images changed nothing"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	stop_watch TERM

	# --allow-rollback: the older image goes in.
	cp "$TMP_DIR/old.img" "$w"
	start_watch --debounce 0.2 --image "$w" --verify-key "$d/a.pub" --allow-rollback
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	assert_eq "$(generation)" $((gen + 1)) "--allow-rollback swaps the older image in"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"
	stop_watch TERM
	bw 2 watch "$BW_RX" --verify-key "$d/a.pub" "$la"
	assert_grep "$ERR" "^bloomwall watch: --verify-key and --allow-rollback check images" \
		"--verify-key with lists is a usage error"
	bw 0 detach "$BW_RX"
}

# A trusted-keys file others can write: user nobody appends his own key to
# a 0666 file and signs an image with it. load refuses the file, naming it
# and the fix; so for a 0644 file in a 0777 directory (nobody could put his
# own file in its place) and for one nobody owns; a 0644 root-owned file in
# root's directories verifies.
test_sign_trust_modes()
{
	local d=$TMP_DIR/keys-trust la lb ida prog gen

	command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
	mkdir -p "$d" "$d/open"
	ida=$(sign_keys "$d" a)
	sign_keys "$d" n >/dev/null
	cp "$d/a.pub" "$d/a.orig"
	la=$(list a.txt "$BW_A4")
	lb=$(list b.txt "$BW_B4")
	sign_image "$TMP_DIR/a.img" 1700000000 "$la" --sign-key "$d/a.key"
	sign_image "$TMP_DIR/n.img" 1700000001 "$la" --sign-key "$d/n.key"
	bw 0 attach "$BW_RX" "${SEED[@]}" "$lb"
	prog=$(sign_prog_id)
	gen=$(generation)

	# nobody can get to the key file and write it: the attack is real.
	chmod 711 "$TMP_DIR" "$d"
	chmod 666 "$d/a.pub"
	# shellcheck disable=SC2016 # sh's own $1 and $2
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c 'cat "$1" >>"$2"' sh "$d/n.pub" "$d/a.pub" ||
		fail "nobody cannot append to a 0666 file"
	bw 1 load "$BW_RX" --verify-key "$d/a.pub" "$TMP_DIR/n.img"
	assert_line "$ERR" "$d/a.pub: refused: the public key file is writable by group and others (mode 0666): another user could change it (chmod go-w $d/a.pub)" \
		"a 0666 trusted-keys file"
	assert_eq "$(sign_prog_id)" "$prog" "0666: the program on the hook"
	assert_eq "$(generation)" "$gen" "0666: the generation"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"

	# A 0644 file of root's in a 0777 directory.
	cp "$d/a.orig" "$d/open/a.pub"
	chmod 644 "$d/open/a.pub"
	chmod 777 "$d/open"
	bw 1 load "$BW_RX" --verify-key "$d/open/a.pub" "$TMP_DIR/a.img"
	assert_line "$ERR" "$d/open/a.pub: refused: the directory $d/open above it is writable by group and others (mode 0777): another user could replace the public key file (chmod go-w $d/open)" \
		"a trusted-keys file in a 0777 directory"
	bw 1 inspect --verify-key "$d/open/a.pub" "$TMP_DIR/a.img"
	assert_grep "$ERR" "^$d/open/a.pub: refused: the directory $d/open above it is writable" \
		"inspect refuses it too"
	# One nobody owns, 0644.
	chmod 755 "$d/open"
	chown 65534 "$d/open/a.pub"
	bw 1 load "$BW_RX" --verify-key "$d/open/a.pub" "$TMP_DIR/a.img"
	assert_line "$ERR" "$d/open/a.pub: refused: the public key file is owned by uid 65534, not by root or the caller: that user could change it (chown root $d/open/a.pub)" \
		"a trusted-keys file another user owns"
	assert_eq "$(generation)" "$gen" "nothing was loaded"

	# Root's, 0644, in root's directories: verified and loaded.
	chown 0 "$d/open/a.pub"
	bw 0 load "$BW_RX" --verify-key "$d/open/a.pub" "$TMP_DIR/a.img"
	assert_grep "$OUT" "^$BW_RX: image serial 1700000000000000 .*, signed by key $ida, verified \\($d/open/a.pub\\)\$" \
		"a 0644 root-owned file verifies"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 detach "$BW_RX"
}

# Two images signed by one key with one serial and other lists: the one
# that runs stays, the other is refused as a second build of that serial
# (the issue: they replaced each other back and forth); the same image
# again loads, --allow-rollback takes the other. Two default-serial builds
# of a list written twice in a row get growing serials.
test_sign_equal_serial()
{
	local d=$TMP_DIR/keys-equal la lb l s1 s2 prog gen

	mkdir -p "$d"
	sign_keys "$d" a >/dev/null
	la=$(list a.txt "$BW_A4")
	lb=$(list b.txt "$BW_B4")
	sign_image "$TMP_DIR/a.img" 1700000000 "$la" --serial 5000 --sign-key "$d/a.key"
	sign_image "$TMP_DIR/b.img" 1700000000 "$lb" --serial 5000 --sign-key "$d/a.key"
	bw 0 attach "$BW_RX" "${SEED[@]}" "$lb"
	bw 0 load "$BW_RX" --verify-key "$d/a.pub" "$TMP_DIR/a.img"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	prog=$(sign_prog_id)
	gen=$(generation)

	bw 1 load "$BW_RX" --verify-key "$d/a.pub" "$TMP_DIR/b.img"
	assert_line "$ERR" "$TMP_DIR/b.img: refused: serial 5000 (of 2023-11-14 22:13:20 UTC) is the running filter's, and the image is not the one that runs (its bytes differ): two builds got the same serial; give the new one a higher --serial (--allow-rollback takes it)" \
		"an equal serial with other bytes"
	assert_eq "$(sign_prog_id)" "$prog" "the program on the hook"
	assert_eq "$(generation)" "$gen" "the generation"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"

	# The same image again: no error.
	bw 0 load "$BW_RX" --verify-key "$d/a.pub" "$TMP_DIR/a.img"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	# The operator who means it.
	bw 0 load "$BW_RX" --verify-key "$d/a.pub" --allow-rollback "$TMP_DIR/b.img"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"
	bw 0 detach "$BW_RX"

	# Default serials: a list written twice in a row, built after each.
	l=$TMP_DIR/c.txt
	echo "$BW_A4" >"$l"
	bw 0 build -o "$TMP_DIR/c1.img" "${SEED[@]}" "$l"
	s1=$(sed -n 's/^.*: serial \([0-9]*\) (from the lists.*$/\1/p' "$OUT")
	echo "$BW_B4" >"$l"
	bw 0 build -o "$TMP_DIR/c2.img" "${SEED[@]}" "$l"
	s2=$(sed -n 's/^.*: serial \([0-9]*\) (from the lists.*$/\1/p' "$OUT")
	[ -n "$s1" ] || fail "build did not say the first serial"
	[ -n "$s2" ] || fail "build did not say the second serial"
	[ "$s2" -gt "$s1" ] ||
		fail "two builds in a row: serial $s2 is not above $s1"
}
