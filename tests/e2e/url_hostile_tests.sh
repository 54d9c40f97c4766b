# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of lists given by URL against a hostile server
# (hostile_http.py, on loopback): a decompression bomb, as a .gz file and
# as a Content-Encoding, refused within its first mebibytes; two fetches
# of one source into one state directory at once, each copy whole; a
# copy cut on disk behind its meta's back fetched whole again; a URL's
# control bytes printed escaped.
# Sourced by tests/e2e/run.sh after sock_tests.sh (SOCK_PY).
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $URL_HOSTILE_TESTS"

# shellcheck disable=SC2034 # read by run.sh
URL_HOSTILE_TESTS="test_url_bomb test_url_cache_race test_url_cut_copy test_url_ctl_printed
test_url_password"

HOSTILE_HTTP_PORT=18095
HOSTILE_HTTP_URL=http://127.0.0.1:$HOSTILE_HTTP_PORT
HOSTILE_HTTP_PID=

# hostile_http_start DIR: the server answers DIR's files.
hostile_http_start()
{
	"$SOCK_PY" "$TOP/tests/e2e/hostile_http.py" "$HOSTILE_HTTP_PORT" "$1" &
	HOSTILE_HTTP_PID=$!
	serving "$HOSTILE_HTTP_PID" "$HOSTILE_HTTP_URL/" 100 ||
		fail "hostile_http.py does not answer on $HOSTILE_HTTP_URL"
}

hostile_http_cleanup()
{
	[ -n "$HOSTILE_HTTP_PID" ] && kill "$HOSTILE_HTTP_PID" 2>/dev/null
	HOSTILE_HTTP_PID=
	return 0
}

# url_tmp_left DIR: fails when a temporary file is left in DIR/lists.
url_tmp_left()
{
	local left

	left=$(find "$1/lists" -name '*.tmp*' 2>/dev/null)
	[ -z "$left" ] || fail "temporary files left: $left"
}

# A gzip of 60 MB of one address (a thousand times smaller), as a file and
# as a Content-Encoding: refused as a bomb, not unpacked to its end (well
# under the 1 GiB bound), no copy, nothing left; a real list in gzip goes.
test_url_bomb()
{
	local www=$TMP_DIR/www st=$TMP_DIR/state u

	trap hostile_http_cleanup EXIT
	mkdir -p "$www"
	yes 192.0.2.1 | head -n 6000000 | gzip -1 >"$www/bomb.gz"
	awk 'BEGIN { for (i = 0; i < 20000; i++)
		printf "10.%d.%d.%d\n", i / 65536, i / 256 % 256, i % 256 }' |
		gzip -9 >"$www/real.gz"
	hostile_http_start "$www"
	for u in file/bomb.gz ce/bomb.gz; do
		bw 1 build -o "$TMP_DIR/f.img" --state-dir "$st" \
			"$HOSTILE_HTTP_URL/$u"
		grep -q "size: .*decompression bomb" "$ERR" ||
			fail "$u: not refused as a decompression bomb"
		url_tmp_left "$st"
	done
	bw 0 build -o "$TMP_DIR/f.img" --state-dir "$st" \
		"$HOSTILE_HTTP_URL/file/real.gz"
	grep -q "20000 prefixes" "$OUT" || fail "the gzip'd list not read whole"
	trap - EXIT
	hostile_http_cleanup
}

# Two builds fetch one slow source into one state dir at once (two watches
# sharing /var/lib/bloomwall): each fetches and builds from the list whole
# (not from the other's half-written copy), the copy is the list, and no
# temporary file is left.
test_url_cache_race()
{
	local www=$TMP_DIR/www st=$TMP_DIR/state url copy a b

	trap hostile_http_cleanup EXIT
	mkdir -p "$www"
	awk 'BEGIN { for (i = 0; i < 20000; i++)
		printf "10.%d.%d.%d\n", i / 65536, i / 256 % 256, i % 256 }' \
		>"$www/list.txt"
	hostile_http_start "$www"
	url=$HOSTILE_HTTP_URL/slow/list.txt
	"$BLOOMWALL" build -o "$TMP_DIR/a.img" --state-dir "$st" "$url" \
		>"$TMP_DIR/a.out" 2>&1 &
	a=$!
	sleep 0.4
	"$BLOOMWALL" build -o "$TMP_DIR/b.img" --state-dir "$st" "$url" \
		>"$TMP_DIR/b.out" 2>&1 &
	b=$!
	wait "$a" || fail "the first build failed: $(cat "$TMP_DIR/a.out")"
	wait "$b" || fail "the second build failed: $(cat "$TMP_DIR/b.out")"
	cat "$TMP_DIR/a.out" "$TMP_DIR/b.out"
	for a in a b; do
		grep -q "fetched (20000 entries" "$TMP_DIR/$a.out" ||
			fail "build $a did not fetch the list"
		grep -q "20000 prefixes" "$TMP_DIR/$a.out" ||
			fail "build $a did not build from the whole list"
	done
	copy=$(find "$st/lists" -name '*-list.txt')
	cmp "$copy" "$www/list.txt" || fail "the copy is not the list whole"
	url_tmp_left "$st"
	trap - EXIT
	hostile_http_cleanup
}

# The copy cut on disk (a full disk, an operator's editor): its meta still
# has the validators, but the next fetch asks whole, not If-Modified-Since,
# and the build reads the whole list again, not the cut copy a 304 would
# have confirmed.
test_url_cut_copy()
{
	local www=$TMP_DIR/www st=$TMP_DIR/state url copy

	trap hostile_http_cleanup EXIT
	mkdir -p "$www"
	awk 'BEGIN { for (i = 0; i < 2000; i++)
		printf "10.0.%d.%d\n", i / 256, i % 256 }' >"$www/list.txt"
	hostile_http_start "$www"
	url=$HOSTILE_HTTP_URL/lm/list.txt
	bw 0 build -o "$TMP_DIR/f.img" --state-dir "$st" "$url"
	bw 0 build -o "$TMP_DIR/f.img" --state-dir "$st" "$url"
	grep -q "unchanged (2000 entries, HTTP 304)" "$ERR" ||
		fail "the server's 304 not seen: the test proves nothing"
	copy=$(find "$st/lists" -name '*-list.txt')
	truncate -s 100 "$copy"
	bw 0 build -o "$TMP_DIR/f.img" --state-dir "$st" "$url"
	grep -q "2000 prefixes" "$OUT" || fail "built from the cut copy"
	cmp "$copy" "$www/list.txt" || fail "the copy is still cut"
	trap - EXIT
	hostile_http_cleanup
}

# A URL with an escape sequence and a newline (a config file's, pasted):
# what build says of it holds neither, escaped as status prints them.
test_url_ctl_printed()
{
	bw 1 build -o "$TMP_DIR/f.img" --state-dir "$TMP_DIR/state" \
		"$(printf 'http://127.0.0.1:1/a\033[31mb\nc')"
	grep -q $'\033' "$ERR" && fail "an escape byte printed as it is"
	[ "$(wc -l <"$ERR")" -eq 1 ] || fail "the URL's newline printed"
	grep -qF 'a\x1b[31mb\nc' "$ERR" || fail "the URL not printed escaped"
}

# A list URL with a password: the server gets it (it answers 401 without),
# nothing else does: not what build and the watch print, not status, the
# metrics, the image's provenance, nor the cache's names and meta.
test_url_password()
{
	local www=$TMP_DIR/www st=$TMP_DIR/state url shown where
	local secret=s3cret-pw

	trap hostile_http_cleanup EXIT
	mkdir -p "$www"
	printf '%s\n' "$BW_A4" >"$www/list.txt"
	hostile_http_start "$www"
	url=http://bob:$secret@127.0.0.1:$HOSTILE_HTTP_PORT/auth/list.txt
	shown="http://bob:***@127.0.0.1:$HOSTILE_HTTP_PORT/auth/list.txt"
	bw 1 build -o "$TMP_DIR/f.img" --state-dir "$TMP_DIR/none" \
		"${url/$secret/wrong}"
	assert_grep "$ERR" "HTTP 401" "a wrong password: refused by the server"
	bw 0 build -o "$TMP_DIR/f.img" --state-dir "$st" "$url"
	grep -qF "$shown: fetched (1 entries" "$ERR" ||
		fail "build names the URL redacted: $(cat "$ERR")"
	bw 0 inspect "$TMP_DIR/f.img"
	grep -qF "$shown" "$OUT" || fail "inspect names the URL, redacted"
	start_watch "${SEED[@]}" --metrics-file "$TMP_DIR/m.prom" \
		--state-dir "$st" "$url"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	wait_line "$TMP_DIR/m.prom" "^bloomwall_source_entries"
	bw 0 status "$BW_RX"
	grep -qF "$shown" "$OUT" || fail "status names the URL, redacted"
	bw 0 status --json "$BW_RX"
	stop_watch TERM
	where=$(grep -rlF "$secret" "$st" "$TMP_DIR/f.img" "$WATCH_OUT" \
		"$TMP_DIR/m.prom" "$OUT" "$ERR" 2>/dev/null)
	[ -z "$where" ] || fail "the password is in: $where"
	find "$st" -name "*$secret*" | grep -q . &&
		fail "the password is in a cache file's name"
	trap - EXIT
	hostile_http_cleanup
}
