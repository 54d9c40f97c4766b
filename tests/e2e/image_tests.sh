# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of filter images (issue 12, item 1): build writes one as
# an unprivileged user, the same lists and flags give the same bytes,
# inspect shows it (text and JSON), load swaps it in as reload does, and a
# corrupted or truncated image is refused with the running filter as it was.
# Format 2's sections: an image built with --verify and --allow drops,
# passes and refuses false positives as reload --verify --allow with the
# same lists does; the lists' allow entries for names replace the running
# lists' and the operator's stay.
# Sourced by tests/e2e/run.sh, whose helpers (bw, list, json, kv, fail,
# assert_eq, assert_line, assert_grep, expect_*, generation) and topology
# they use: bloomwall on $BW_RX, pings from the sender's A, B and C.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $IMAGE_TESTS"

# shellcheck disable=SC2034 # read by run.sh
IMAGE_TESTS="test_image_build_unprivileged test_image_load
test_image_verify_allow test_image_names_allow test_image_refused_fields
test_image_not_regular"

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
	local d f l a s1 s2

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
	assert_eq "$(kv "$OUT" format)" "2 (filter format 3, little-endian)" "inspect: format"
	assert_kv "$OUT" "exact prefix set" none "inspect: no sections"
	assert_eq "$(kv "$OUT" list)" "$l" "inspect: the list"
	assert_eq "$(kv "$OUT" generation)" 1 "inspect: generation"
	assert_grep "$OUT" "^    0       IPv4   /32 " "inspect: the IPv4 /32 region"
	s1=$(kv "$OUT" "hash seed")
	nobody 0 -j inspect "$d/a.img"
	assert_eq "$(json "$OUT" 'd["ok"]')" true "inspect JSON: ok"
	assert_eq "$(json "$OUT" 'd["image"]["format"]')" 2 "inspect JSON: format"
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

	# --verify and --allow: sections, byte-identical too; the allowlist's
	# content is in the seed.
	a=$(list allow.txt "$BW_C4" ok.example)
	chmod 644 "$a"
	nobody 0 build -o "$d/v.img" --verify --allow "$a" "$l"
	assert_line "$OUT" "$d/v.img: sections: exact prefix set 3, allowlist 2" \
		"build --verify --allow says its sections"
	nobody 0 build -o "$d/w.img" --verify --allow "$a" "$l"
	cmp "$d/v.img" "$d/w.img" || fail "the same lists, allowlist and flags gave two images"
	nobody 0 -j inspect "$d/v.img"
	assert_eq "$(json "$OUT" '[d["sections"][k] for k in ("exact", "allow", "allow_names")]')" \
		"[3,2,null]" "inspect JSON: the sections"
	assert_eq "$(json "$OUT" 'd["options"]["verify"]')" true "inspect JSON: verify"
	s1=$(json "$OUT" 'd["filter"]["seed"]')
	echo "$BW_B4" >>"$a"
	nobody 0 build -o "$d/w.img" --verify --allow "$a" "$l"
	nobody 0 -j inspect "$d/w.img"
	[ "$(json "$OUT" 'd["filter"]["seed"]')" != "$s1" ] ||
		fail "a changed allowlist kept the seed $s1"
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

# flip FILE OFFSET: one byte of FILE changed (all its bits).
image_flip()
{
	/usr/bin/python3 - "$1" "$2" <<'PY'
import sys
path, off = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    f.seek(off)
    b = f.read(1)[0]
    f.seek(off)
    f.write(bytes([b ^ 0xff]))
PY
}

# What an image built with --verify --allow B (and reload with the same)
# does: A drops, B is allowlisted, C is a Bloom hit the exact trie refuses,
# the operator's A6 went with the allowlist it replaced. $1: whose.
image_verify_verdicts()
{
	local fp

	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	fp=$(bw_stat "$BW_RX" false_pos)
	expect_delivered "$BW_C4" "$BW_RX4"
	assert_eq $(($(bw_stat "$BW_RX" false_pos) - fp)) 3 \
		"$1: the trie refused the 3 false positives"
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	bw 0 query "$BW_RX" "$BW_A4" "$BW_B4" "$BW_C4" "$BW_A6"
	assert_line "$OUT" "$BW_A4  drop (in blocklist /32 region, confirmed by the exact list)" \
		"$1: A is listed"
	assert_line "$OUT" "$BW_B4  pass (allowlisted)" "$1: B is allowlisted"
	assert_line "$OUT" "$BW_C4  pass (false positive: not in the exact list)" \
		"$1: C is a false positive"
}

# load of an image with --verify and --allow against reload with the same.
test_image_verify_allow()
{
	local l al img nv q gen size

	l=$TMP_DIR/v.txt
	# Even addresses only (none merge): at 30 %, the filter fills.
	{
		printf '%s\n' "$BW_A4" "$BW_B4" "$BW_A6"
		awk 'BEGIN { for (i = 0; i < 1024; i++)
			printf "198.18.%d.%d\n", int(i / 128), (i % 128) * 2 }'
	} >"$l"
	al=$(list allow.txt "$BW_B4")
	img=$TMP_DIR/v.img
	nv=$TMP_DIR/nv.img
	# Seed 4 makes C, in no list, a false positive of this filter.
	bw 0 build -o "$img" --seed 4 --fpr 0.3 --verify --allow "$al" "$l"
	assert_line "$OUT" "$img: sections: exact prefix set 1026, allowlist 1" \
		"build: the sections (A and B merge into a /31)"
	bw 0 inspect "$img"
	assert_kv "$OUT" "exact prefix set" \
		"1026 entries (1025 IPv4, 1 IPv6, 0 names; 8272 bytes)" \
		"inspect: the exact prefix set"
	assert_kv "$OUT" allowlist "1 entry (1 IPv4, 0 IPv6, 0 names; 56 bytes)" \
		"inspect: the allowlist"
	bw 0 build -o "$nv" --seed 4 --fpr 0.3 "$l"

	bw 0 attach "$BW_RX" "${SEED[@]}" "$(list o.txt "$BW_C6")"
	bw 0 allow "$BW_RX" "$BW_A6"
	# Without sections: C drops (a false positive nothing refuses), B is
	# listed, and the operator's allow entry stays, as reload keeps it.
	bw 0 load "$BW_RX" "$nv"
	bw 0 query "$BW_RX" "$BW_C4"
	assert_line "$OUT" "$BW_C4  drop (in blocklist /32 region)" \
		"C is a false positive of the filter"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A6" "$BW_RX6"

	bw 0 load "$BW_RX" "$img"
	assert_line "$OUT" "$BW_RX: verify mode: exact trie of 1026 prefixes" \
		"load fills the exact trie"
	assert_line "$OUT" "$BW_RX: allowlist replaced: 1 entry (1 added, 1 removed)" \
		"load replaces the allowlist as reload --allow does"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    allow file +$al: 1 entry from 1 line \\(" \
		"load: the provenance names the image's allowlist file"
	# Each swap takes the other slot: attach 0, the first load 1, this 0.
	assert_kv "$OUT" verify "on (exact trie in slot 0: 1026 prefixes)" \
		"load: the trie in the other slot"
	image_verify_verdicts load
	q=$(cat "$OUT")

	bw 0 reload "$BW_RX" --seed 4 --fpr 0.3 --verify --allow "$al" "$l"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" verify "on (exact trie in slot 1: 1026 prefixes)" \
		"reload: the trie in the other slot"
	image_verify_verdicts reload
	assert_eq "$(cat "$OUT")" "$q" "load and reload --verify --allow: the same verdicts"

	# Back to the image, an add kept in its filter and its exact trie as
	# reload keeps one; then bad images change nothing.
	bw 0 add "$BW_RX" 198.51.100.7
	bw 0 -j load "$BW_RX" "$img"
	assert_eq "$(json "$OUT" '[d["verify"]["exact_entries"], d["allow"]["entries"], d["added_kept"]]')" \
		"[1027,1,1]" "load JSON: verify, allow and the kept add"
	bw 0 query "$BW_RX" 198.51.100.7
	assert_line "$OUT" "198.51.100.7  drop (in blocklist /32 region, confirmed by the exact list)" \
		"the kept add is in the exact trie"
	gen=$(generation)
	size=$(stat -c %s "$img")
	cp "$img" "$TMP_DIR/bad.img"
	image_flip "$TMP_DIR/bad.img" $((size - 200)) # in the exact prefix set
	bw 1 load "$BW_RX" "$TMP_DIR/bad.img"
	assert_grep "$ERR" "^$TMP_DIR/bad.img: refused: corrupted: crc32 0x[0-9a-f]{8}, its header says 0x[0-9a-f]{8}$" \
		"a changed byte in a section is refused"
	head -c $((size - 8)) "$img" >"$TMP_DIR/short.img"
	bw 1 load "$BW_RX" "$TMP_DIR/short.img"
	assert_line "$ERR" "$TMP_DIR/short.img: refused: truncated: $((size - 8)) bytes of the $size its header says" \
		"an image cut in its last section is refused"
	assert_eq "$(generation)" "$gen" "generation after the refused loads"
	bw 0 status "$BW_RX"
	assert_kv "$OUT" verify "on (exact trie in slot 0: 1027 prefixes)" \
		"the running trie after the refused loads"
	image_verify_verdicts "after the refused loads"
	bw 0 detach "$BW_RX"
}

# The lists' allow entries for names: load puts them in the name allowlist
# and a later image without them takes them out, as reload does; the
# operator's entry (allow IFACE NAME) stays through both.
test_image_names_allow()
{
	local d e

	d=$(list d.txt '*.example.com' '@@||good.example.com^')
	e=$(list e.txt '*.example.com')
	bw 0 build -o "$TMP_DIR/d.img" "${SEED[@]}" "$d"
	assert_line "$OUT" "$TMP_DIR/d.img: sections: name allow entries 1" \
		"build: the lists' allow entry"
	bw 0 build -o "$TMP_DIR/e.img" "${SEED[@]}" "$e"
	bw 0 attach "$BW_RX" --mode native "${SEED[@]}" "$e"
	bw 0 status "$BW_RX"
	[ -n "$(kv "$OUT" "name allow entries")" ] ||
		skip "the program has no name allowlist map"
	bw 0 allow "$BW_RX" mail.example.com
	bw 0 load "$BW_RX" "$TMP_DIR/d.img"
	bw 0 query "$BW_RX" good.example.com www.good.example.com mail.example.com bad.example.com
	assert_line "$OUT" "good.example.com  pass (subtree entry *.example.com; allowed by subtree entry *.good.example.com)" \
		"load: @@||name^ allows the name"
	assert_line "$OUT" "www.good.example.com  pass (subtree entry *.example.com; allowed by subtree entry *.good.example.com)" \
		"load: and every name under it"
	assert_line "$OUT" "mail.example.com  pass (subtree entry *.example.com; allowed by exact entry mail.example.com)" \
		"load: the operator's entry stays"
	assert_line "$OUT" "bad.example.com  block (subtree entry *.example.com; answer null)" \
		"load: the block stands beside them"
	bw 0 load "$BW_RX" "$TMP_DIR/e.img"
	bw 0 query "$BW_RX" good.example.com mail.example.com
	assert_line "$OUT" "good.example.com  block (subtree entry *.example.com; answer null)" \
		"a list's @@ entry goes with the image"
	assert_line "$OUT" "mail.example.com  pass (subtree entry *.example.com; allowed by exact entry mail.example.com)" \
		"the operator's entry outlives the load"
	bw 0 detach "$BW_RX"
}

# image_set FILE OFFSET SIZE VALUE: a little-endian field of FILE set, then
# the file's crc32 made right, so only the check of that field can refuse it.
image_set()
{
	/usr/bin/python3 - "$@" <<'PY'
import struct, sys, zlib
path, off, size, val = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4], 0)
with open(path, "r+b") as f:
    b = bytearray(f.read())
    b[off:off + size] = val.to_bytes(size, "little")
    b[40:44] = bytes(4)
    b[40:44] = struct.pack("<I", zlib.crc32(bytes(b)))
    f.seek(0)
    f.write(b)
PY
}

# image_dns_off FILE: the offset of the DNS block in FILE (region_end[7]).
image_dns_off()
{
	/usr/bin/python3 - "$1" <<'PY'
import struct, sys
with open(sys.argv[1], "rb") as f:
    b = f.read()
print(64 + 64 * struct.unpack_from("<I", b, 64 + 32 + 28)[0])
PY
}

# Images whose crc is right but whose filter no build writes: refused by
# load and inspect naming the field and value; the running filter stays.
test_image_refused_fields()
{
	local l img bad gen dns

	l=$(list a.txt "$BW_A4" "$BW_A6" ads.example)
	img=$TMP_DIR/a.img
	bad=$TMP_DIR/bad.img
	bw 0 build -o "$img" "${SEED[@]}" "$l"
	bw 0 attach "$BW_RX" "${SEED[@]}" "$(list b.txt "$BW_B4")"
	gen=$(generation)

	# No IPv4 length, the IPv4 region kept: it loaded, and A passed.
	cp "$img" "$bad"
	image_set "$bad" $((64 + 12)) 1 0
	bw 1 load "$BW_RX" "$bad"
	assert_grep "$ERR" "^$bad: refused: filter header: region 0 is past nlengths\\[IPv4\\] = 0, but has [0-9]+ blocks" \
		"nlengths[IPv4] 0 is refused, naming the region"
	bw 1 inspect "$bad"
	assert_grep "$ERR" "^$bad: refused: filter header: region 0 is past nlengths\\[IPv4\\] = 0" \
		"inspect refuses it too"

	# A TTL no --dns-ttl gives: it answered with TTL 4294967295.
	cp "$img" "$bad"
	dns=$(image_dns_off "$bad")
	image_set "$bad" $((dns + 8)) 4 0xffffffff
	bw 1 load "$BW_RX" "$bad"
	assert_line "$ERR" "$bad: refused: DNS block: ttl 4294967295; --dns-ttl takes 0 to 86400 seconds" \
		"the DNS TTL is refused by value"

	# Header flags this bloomwall does not know.
	cp "$img" "$bad"
	image_set "$bad" $((64 + 6)) 2 0xffe1
	bw 1 load "$BW_RX" "$bad"
	assert_grep "$ERR" "^$bad: refused: filter header: flags 0xffe1: bits 0xffc0 are none this bloomwall knows$" \
		"unknown flag bits are refused"

	assert_eq "$(generation)" "$gen" "generation after the refused loads"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"
	bw 0 load "$BW_RX" "$img"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 detach "$BW_RX"
}

# Images and outputs that are no regular files: a FIFO is refused at once
# (open() used to wait for a writer forever), a device node is neither
# read nor replaced (build -o /dev/null replaced the host's /dev/null).
test_image_not_regular()
{
	local l fifo node rc

	l=$(list a.txt "$BW_A4")
	fifo=$TMP_DIR/img.fifo
	node=$TMP_DIR/null
	mkfifo "$fifo"
	timeout 20 "$BLOOMWALL" inspect "$fifo" >"$OUT" 2>"$ERR"
	rc=$?
	assert_eq "$rc" 1 "inspect FIFO: exit status (124: it blocked)"
	assert_line "$ERR" "$fifo: not a regular file (a FIFO): the image must be one" \
		"inspect FIFO says what it is"
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	timeout 20 "$BLOOMWALL" load "$BW_RX" "$fifo" >"$OUT" 2>"$ERR"
	rc=$?
	assert_eq "$rc" 1 "load FIFO: exit status (124: it blocked)"
	assert_line "$ERR" "$fifo: not a regular file (a FIFO): the image must be one" \
		"load FIFO says what it is"
	bw 1 inspect "$TMP_DIR"
	assert_line "$ERR" "$TMP_DIR: not a regular file (a directory): the image must be one" \
		"a directory is said to be one"

	bw 1 build -o "$fifo" "$l"
	assert_line "$ERR" "$fifo: is a FIFO, not a regular file: refusing to replace it with the image" \
		"build -o FIFO is refused"
	[ -p "$fifo" ] || fail "build -o replaced the FIFO"
	mknod "$node" c 1 3
	bw 1 build -o "$node" "$l"
	assert_line "$ERR" "$node: is a character device, not a regular file: refusing to replace it with the image" \
		"build -o of a device node is refused"
	[ -c "$node" ] || fail "build -o replaced the device node"
	assert_eq "$(stat -c %t:%T "$node")" 1:3 "the node is the one made"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 detach "$BW_RX"
}
