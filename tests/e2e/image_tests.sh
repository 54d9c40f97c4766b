# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of filter images (issue 12, item 1): build writes one as
# an unprivileged user, the same lists and flags give the same bytes,
# inspect shows it (text and JSON), load swaps it in as reload does, and a
# corrupted or truncated image is refused with the running filter as it was.
# Sourced by tests/e2e/run.sh, whose helpers (bw, list, json, kv, fail,
# assert_eq, assert_line, assert_grep, expect_*, generation) and topology
# they use: bloomwall on $BW_RX, pings from the sender's A, B and C.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $IMAGE_TESTS"

# shellcheck disable=SC2034 # read by run.sh
IMAGE_TESTS="test_image_build_unprivileged test_image_load"

IMAGE_NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# A directory and lists the unprivileged user can read and write.
image_dir()
{
	chmod 755 "$TMP_DIR"
	mkdir -p "$TMP_DIR/img"
	chown 65534:65534 "$TMP_DIR/img"
	echo "$TMP_DIR/img"
}

# nobody RC ARGS...: bw as uid 65534, no capabilities.
nobody()
{
	local want=$1 rc

	shift
	echo "+ (uid 65534) bloomwall $*"
	"${IMAGE_NOBODY[@]}" "$BLOOMWALL" "$@" >"$OUT" 2>"$ERR"
	rc=$?
	sed 's/^/  | /' "$OUT"
	sed 's/^/  ! /' "$ERR"
	[ "$rc" -eq "$want" ] || fail "(uid 65534) bloomwall $*: exit $rc, expected $want"
}

test_image_build_unprivileged()
{
	local d f l s1 s2

	command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
	"${IMAGE_NOBODY[@]}" test -x "$BLOOMWALL" ||
		skip "$BLOOMWALL is not reachable for an unprivileged user"
	d=$(image_dir)
	l=$(list a.txt "$BW_A4" "$BW_A6" 192.0.2.0/24)
	chmod 644 "$l"
	nobody 0 build -o "$d/a.img" "$l"
	assert_grep "$OUT" "^$d/a.img: image written: [0-9,]+ bytes, seed 0x[0-9a-f]{8} \(from the lists\), crc32 0x[0-9a-f]{8}$" \
		"build says what it wrote"
	[ "$(stat -c %u "$d/a.img")" = 65534 ] || fail "the image is not nobody's"
	nobody 0 build -o "$d/b.img" "$l"
	cmp "$d/a.img" "$d/b.img" || fail "the same list and flags gave two images"
	nobody 0 build -o "$d/c.img" --fpr 0.01 "$l"
	cmp -s "$d/a.img" "$d/c.img" && fail "another --fpr gave the same image"
	nobody 0 build -o "$d/s.img" --seed 7 "$l"
	assert_grep "$OUT" "seed 0x00000007 \(given\)" "--seed is taken"
	for f in "$d"/.bloomwall-image.*; do
		[ -e "$f" ] && fail "a temporary file was left: $f"
	done

	nobody 0 inspect "$d/a.img"
	assert_eq "$(kv "$OUT" format)" "1 (filter format 3, little-endian)" "inspect: format"
	assert_eq "$(kv "$OUT" list)" "$l" "inspect: the list"
	assert_eq "$(kv "$OUT" generation)" 1 "inspect: generation"
	assert_grep "$OUT" "^    0       IPv4   /32 " "inspect: the IPv4 /32 region"
	s1=$(kv "$OUT" "hash seed")
	nobody 0 -j inspect "$d/a.img"
	assert_eq "$(json "$OUT" 'd["ok"]')" true "inspect JSON: ok"
	assert_eq "$(json "$OUT" 'd["image"]["format"]')" 1 "inspect JSON: format"
	assert_eq "$(json "$OUT" 'd["lists"]')" "[\"$l\"]" "inspect JSON: lists"
	assert_eq "$(json "$OUT" 'd["filter"]["source_entries"]')" 3 "inspect JSON: entries"
	assert_eq "$(json "$OUT" '[r["prefix"] for r in d["filter"]["regions"]]')" \
		"[32,128]" "inspect JSON: regions"
	assert_eq "$(json "$OUT" 'd["options"]["match"]')" '"src"' "inspect JSON: options"

	# A changed list: a new seed.
	echo "$BW_B4" >>"$l"
	nobody 0 build -o "$d/a.img" "$l"
	nobody 0 inspect "$d/a.img"
	s2=$(kv "$OUT" "hash seed")
	[ "$s1" != "$s2" ] || fail "a changed list kept the seed $s1"

	nobody 2 build -o "$d/v.img" --verify "$l"
	assert_grep "$ERR" "^bloomwall build: --verify and --allow cannot go into an image yet" \
		"build --verify is refused"
	nobody 2 build "$l"
	assert_grep "$ERR" "^bloomwall build: -o FILE is required" "build without -o"
	bw_has_xdp "$BW_RX" && fail "build or inspect attached something"
	return 0
}

test_image_load()
{
	local la lb img gen

	la=$(list a.txt "$BW_A4" "$BW_A6")
	lb=$(list b.txt "$BW_B4")
	img=$TMP_DIR/a.img
	bw 0 build -o "$img" "$la"
	bw 0 attach "$BW_RX" "${SEED[@]}" "$lb"
	bw 0 add "$BW_RX" "$BW_C4"
	# A name: the running filter gains name regions; the image has none.
	bw 0 add "$BW_RX" kept.example
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	gen=$(generation)

	# The adds are kept as reload keeps them: set in the image's filter
	# and recorded; one it has no region for is left out, and said.
	bw 0 load "$BW_RX" "$img"
	assert_grep "$OUT" "^$BW_RX: filter generation $((gen + 1)) from image $img: " \
		"load says what it swaps in"
	assert_line "$OUT" "$BW_RX: 1 entry added at run time kept ('bloomwall remove $BW_RX ADDR|NAME...' takes one out)" \
		"load keeps the address added"
	assert_line "$ERR" "$BW_RX: kept.example, added at run time, is left out: the image's filter has no region for it" \
		"load says which add has no room"
	assert_line "$OUT" "$BW_RX: 1 entry added at run time left out" \
		"and counts it"
	assert_eq "$(generation)" $((gen + 1)) "generation after load"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "added entries kept" 1 "the kept add is recorded"
	bw 0 status "$BW_RX"
	assert_eq "$(kv "$OUT" "hash seed")" \
		"$("$BLOOMWALL" inspect "$img" | kv /dev/stdin "hash seed")" \
		"the running filter has the image's seed"

	# Corrupted and truncated images: refused, nothing changes.
	cp "$img" "$TMP_DIR/bad.img"
	printf '\x5a' | dd of="$TMP_DIR/bad.img" bs=1 seek=300 conv=notrunc 2>/dev/null
	bw 1 load "$BW_RX" "$TMP_DIR/bad.img"
	assert_grep "$ERR" "^$TMP_DIR/bad.img: refused: corrupted: crc32 0x[0-9a-f]{8}, its header says 0x[0-9a-f]{8}$" \
		"a corrupted image is refused"
	head -c 100 "$img" >"$TMP_DIR/short.img"
	bw 1 load "$BW_RX" "$TMP_DIR/short.img"
	assert_grep "$ERR" "^$TMP_DIR/short.img: refused: truncated: 100 bytes of the [0-9]+ its header says$" \
		"a truncated image is refused"
	bw 1 inspect "$TMP_DIR/bad.img"
	assert_eq "$(generation)" $((gen + 1)) "generation after the refused loads"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	bw 0 -j load "$BW_RX" "$img"
	assert_eq "$(json "$OUT" 'd["filter"]["generation"]')" $((gen + 2)) \
		"load JSON: generation"
	bw 0 detach "$BW_RX"
}
