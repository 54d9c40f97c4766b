# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of lists given by URL (issue 31): Debian's nginx, with a
# configuration of the test's own, serves the shared lists on loopback as
# plain text, as a gzip'd FireHOL netset and as Spamhaus DROP JSON lines;
# a watch keeps them fresh (304s in nginx's log, a change dropped within
# one refresh), keeps every list's last good copy when a source fails, and
# starts from its cache with nginx stopped. A server of the tests' own
# (trickle_server.py) answers cut, HTML, 500, empty, no list, trickling: each keeps
# the copy and says why; SIGTERM ends a watch whose list download
# trickles within 1 s. Sourced by tests/e2e/run.sh after trickle_tests.sh,
# whose helpers they use (and ops_tests.sh's, sock_tests.sh's).
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $URL_TESTS"

# shellcheck disable=SC2034 # read by run.sh
URL_TESTS="test_url_lists test_url_failures test_url_trickle test_url_spamhaus
test_url_no_libcurl"

URL_PORT=18084
URL_SRV=http://127.0.0.1:$URL_PORT
URL_MTIME=1700000000

# url_nginx_start: nginx serving $TMP_DIR/www on $URL_SRV, its access log
# "STATUS URI" lines in $TMP_DIR/nginx/access.log; returns once it answers.
url_nginx_start()
{
	mkdir -p "$TMP_DIR/www" "$TMP_DIR/stage"
	# shellcheck disable=SC2016 # nginx's variables, not the shell's
	nginx_conf "$TMP_DIR/nginx" '$status $request_uri' "
	default_type application/octet-stream;
	types { text/plain txt; application/json json; }
	server {
		listen 127.0.0.1:$URL_PORT;
		root $TMP_DIR/www;
	}"
	nginx_serve "$TMP_DIR/nginx" "$URL_SRV/"
}

# url_nginx_up: url_nginx_start in a test of its own, which ends with
# url_cleanup (skipped without nginx).
url_nginx_up()
{
	nginx_needed
	trap url_cleanup EXIT
	url_nginx_start
}

url_nginx_stop()
{
	nginx_stop "$TMP_DIR/nginx"
}

url_cleanup()
{
	kill_watch
	url_nginx_stop
	trickle_cleanup
}

# url_publish NAME: $TMP_DIR/stage/NAME onto the server, a modification
# time of its own (nginx's ETag is mtime-size), in one rename.
url_publish()
{
	URL_MTIME=$((URL_MTIME + 10))
	touch -d "@$URL_MTIME" "$TMP_DIR/stage/$1"
	mv "$TMP_DIR/stage/$1" "$TMP_DIR/www/$1"
}

# drop_json DROP_TXT CIDR...: Spamhaus' DROP text as its JSON lines, the
# CIDRs added, the closing metadata line counting the records.
drop_json()
{
	local f=$1

	shift
	awk -v extra="$*" '
		/^[0-9]/ { printf "{\"cidr\":\"%s\",\"sblid\":\"%s\",\"rir\":\"ripencc\"}\n", $1, $3; n++ }
		END {
			k = split(extra, e, " ")
			for (i = 1; i <= k; i++) { printf "{\"cidr\":\"%s\",\"sblid\":\"SBL0\",\"rir\":\"test\"}\n", e[i]; n++ }
			printf "{\"type\":\"metadata\",\"timestamp\":1737133427,\"size\":%d,\"records\":%d,\"copyright\":\"(c) 2025 The Spamhaus Project SLU\",\"terms\":\"https://www.spamhaus.org/drop/terms/\"}\n", n * 60, n
		}' "$f"
}

# first_entry FILE: the address of FILE's first entry (comments skipped).
first_entry()
{
	grep -m1 -E '^[0-9]' "$1" | sed -E 's/[ \t;/].*//'
}

# The issue's acceptance: three sources (plain, FireHOL netset gzip'd,
# DROP JSON lines) kept fresh every 2 s; a change in 10 s; 304s; a 404
# and an emptied file keep their copies; status names every URL; a start
# from the cache with nginx stopped.
test_url_lists()
{
	local st=$TMP_DIR/state ipsum=$BW_DATA_DIR/ipv4/ipsum/ipsum.txt
	local dshield=$BW_DATA_DIR/ipv4/firehol/dshield.netset
	local drop=$BW_DATA_DIR/spamhaus/drop.txt a b c i u

	url_nginx_up
	{ head -n 2000 "$ipsum"; echo "$BW_A4"; } >"$TMP_DIR/stage/a.txt"
	url_publish a.txt
	{ cat "$dshield"; echo "$BW_B4"; } | gzip >"$TMP_DIR/stage/b.netset.gz"
	url_publish b.netset.gz
	drop_json "$drop" "$BW_C4/32" >"$TMP_DIR/stage/c.json"
	url_publish c.json
	a=$URL_SRV/a.txt b=$URL_SRV/b.netset.gz c=$URL_SRV/c.json
	start_watch "${SEED[@]}" --debounce 0.2 --refresh 2s --state-dir "$st" \
		--metrics-file "$TMP_DIR/metrics.prom" --interval 0.5 "$a" "$b" "$c"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	assert_grep "$WATCH_OUT" "^$BW_RX: $c: a new copy, $(($(grep -c '^[0-9]' "$drop") + 1)) entries, [0-9]+ bytes \\(plain, HTTP 200, [0-9.]+ s\\)" \
		"the DROP JSON lines read"
	assert_grep "$WATCH_OUT" "^$BW_RX: $b: a new copy, [0-9]+ entries, [0-9]+ bytes \\(gzip, HTTP 200, [0-9.]+ s\\)" \
		"the netset unpacked"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B6" "$BW_RX6"
	query_is "$(first_entry "$ipsum")" drop
	query_is "$(first_entry "$dshield")" drop
	query_is "$(first_entry "$drop")" drop
	# query --why and status name the URL, and the line in its copy.
	bw 0 query "$BW_RX" --why "$BW_C4"
	assert_grep "$OUT" "^  why: $c line $(($(grep -c '^[0-9]' "$drop") + 1)) \\(its copy $st/lists/[0-9a-f]+-c.json\\): " \
		"query --why names the URL and the line"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    from URL +$b \\(its copy below\\)\$" "provenance names the URL"

	# Appended on the server: dropped within 10 s (the issue's bound).
	{ head -n 2000 "$ipsum"; echo "$BW_A4"; echo "$BW_A6"; } >"$TMP_DIR/stage/a.txt"
	url_publish a.txt
	for i in $(seq 100); do
		"$BLOOMWALL" query "$BW_RX" "$BW_A6" 2>/dev/null | grep -q "  drop" && break
		sleep 0.1
	done
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	assert_grep "$TMP_DIR/nginx/access.log" "^304 /b.netset.gz$" "304 answers"
	assert_grep "$TMP_DIR/nginx/access.log" "^304 /c.json$" "304 answers"

	# B gone (404), A emptied: both keep their last good copy.
	rm "$TMP_DIR/www/b.netset.gz"
	: >"$TMP_DIR/stage/a.txt"
	url_publish a.txt
	wait_line "$WATCH_OUT" "^$BW_RX: $b: kept the copy of [0-9a-z]+ ago: http: HTTP 404; next try in "
	wait_line "$WATCH_OUT" "^$BW_RX: $a: kept the copy of [0-9a-z]+ ago: empty: an empty answer; next try in "
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	kill -0 "$WATCH_PID" || fail "the watch ended"
	bw 0 status "$BW_RX"
	for u in "$a" "$b" "$c"; do
		assert_grep "$OUT" "^    source +$u\$" "status names $u"
	done
	assert_grep "$OUT" "^    last fetch +FAILED: HTTP 404 \\(HTTP 404\\); the copy kept\$" \
		"status says why B failed"
	assert_grep "$TMP_DIR/metrics.prom" \
		"^bloomwall_source_fetches_total\\{iface=\"$BW_RX\",url=\"$b\",result=\"http\"\\} [1-9]" \
		"the metrics count B's failures"
	assert_grep "$TMP_DIR/metrics.prom" \
		"^bloomwall_source_stale\\{iface=\"$BW_RX\",url=\"$c\"\\} 0\$" "C is fresh"

	# Stopped, detached, nginx stopped: the same watch starts from its cache.
	stop_watch TERM
	bw 0 detach "$BW_RX"
	url_nginx_stop
	start_watch "${SEED[@]}" --debounce 0.2 --refresh 2s --state-dir "$st" "$a" "$b" "$c"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	for u in "$a" "$b" "$c"; do
		assert_grep "$WATCH_OUT" "^$BW_RX: $u: the copy of [0-9a-z]+ ago \\([0-9]+ entries\\) in use until it is fetched again\$" \
			"the start says the age of $u's copy"
	done
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B6" "$BW_RX6"
	wait_line "$WATCH_OUT" "^$BW_RX: $a: kept the copy of [0-9a-z]+ ago: connect: "
	stop_watch TERM

	# reload fetches once: the server down, the copy is used and its age
	# said; a URL with no copy fails the reload, the filter left as it was.
	bw 0 reload "$BW_RX" "${SEED[@]}" --state-dir "$st" "$a" "$c"
	assert_grep "$ERR" "^bloomwall reload: $a: connect: .*; the copy of [0-9a-z]+ ago is used\$" \
		"reload says it uses the copy"
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	expect_delivered "$BW_B4" "$BW_RX4"
	bw 1 reload "$BW_RX" "${SEED[@]}" --state-dir "$st" "$a" "$URL_SRV/new.txt"
	assert_grep "$ERR" "^bloomwall reload: $URL_SRV/new.txt: connect: .*, and there is no copy of it in " \
		"no copy: the reload fails"
	expect_delivered "$BW_B4" "$BW_RX4"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	trap - EXIT
	url_cleanup
}

# Each way a source fails, on a server of the tests' own: the copy kept,
# the reason said in the log and in status, nothing rebuilt.
test_url_failures()
{
	local st=$TMP_DIR/state body=$TMP_DIR/body.txt m urls=()

	trap url_cleanup EXIT
	{ head -n 500 "$BW_DATA_DIR/ipv4/ipsum/ipsum.txt"; echo "$BW_A4"; } >"$body"
	trickle_start "$body"
	for m in cut html e500 empty notlist trickle; do
		urls+=("$TRICKLE_URL/$m.txt")
	done
	start_watch "${SEED[@]}" --debounce 0.2 --refresh 1s --timeout 3 \
		--state-dir "$st" "${urls[@]}"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	echo bypath >"$TRICKLE_MODE"
	wait_line "$WATCH_OUT" "^$BW_RX: $TRICKLE_URL/cut.txt: kept the copy of [0-9a-z]+ ago: cut: "
	wait_line "$WATCH_OUT" "^$BW_RX: $TRICKLE_URL/html.txt: kept the copy of [0-9a-z]+ ago: html: an HTML page answered with 200 \\(Content-Type text/html\\), not a list; "
	wait_line "$WATCH_OUT" "^$BW_RX: $TRICKLE_URL/e500.txt: kept the copy of [0-9a-z]+ ago: http: HTTP 500; "
	wait_line "$WATCH_OUT" "^$BW_RX: $TRICKLE_URL/empty.txt: kept the copy of [0-9a-z]+ ago: empty: an empty answer; "
	wait_line "$WATCH_OUT" "^$BW_RX: $TRICKLE_URL/trickle.txt: kept the copy of [0-9a-z]+ ago: timeout: "
	wait_line "$WATCH_OUT" "^$BW_RX: $TRICKLE_URL/notlist.txt: kept the copy of [0-9a-z]+ ago: parse: not a list: $TRICKLE_URL/notlist.txt:2: "
	assert_eq "$(grep -cE "$RELOAD_OK" "$WATCH_OUT")" 1 "rebuilds after the start"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	query_is "$(first_entry "$body")" drop
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    last fetch +FAILED: HTTP 500 \\(HTTP 500\\); the copy kept\$" \
		"status says why"
	assert_grep "$OUT" "^    failures +cut [0-9]+\$" "status counts the cut answers"
	assert_grep "$OUT" "^    STALE +no answer for longer than --max-age 3s: its entries are as they were\$" \
		"status flags the sources past --max-age (3 refreshes)"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[(s["url"].split("/")[-1], s["last_result"], s["stale"], s["results"]["new"]) for s in d[0]["sources"]]')" \
		'[["cut.txt","cut",true,1],["html.txt","html",true,1],["e500.txt","http",true,1],["empty.txt","empty",true,1],["notlist.txt","parse",true,1],["trickle.txt","timeout",true,1]]' \
		"status --json: each source's last result, stale, its one new copy"
	stop_watch TERM
	trap - EXIT
	url_cleanup
}

# A list download that trickles (within --timeout): the watch's 1 s
# contracts hold while it goes on, and SIGTERM ends the watch within 1 s;
# also when it is the first fetch of a source with no copy yet.
test_url_trickle()
{
	local st=$TMP_DIR/state body=$TMP_DIR/body.txt url

	trap url_cleanup EXIT
	printf '%s\n' "$BW_A4" >"$body"
	trickle_start "$body"
	url=$TRICKLE_URL/list.txt
	start_watch "${SEED[@]}" --debounce 0.2 --refresh 1s --timeout 300 \
		--state-dir "$st" "$url"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	echo trickle >"$TRICKLE_MODE"
	trickle_wait trickles 1
	trickle_wait bytes 1
	trickle_contracts
	# SIGHUP's rebuild waits for the fetch under way, for 10 s at most.
	kill -HUP "$WATCH_PID"
	wait_line "$WATCH_OUT" "^$BW_RX: reload ok: .*\\(SIGHUP\\)\$"
	assert_eq "$(trickle_count open)" 1 "the fetch still under way"
	trickle_sigterm

	# No copy yet: the start waits for the first fetch, the loop does not.
	start_watch "${SEED[@]}" --debounce 0.2 --refresh 1s --timeout 300 \
		--state-dir "$TMP_DIR/state2" "$url"
	trickle_wait trickles 2
	trickle_wait bytes $(($(trickle_count bytes) + 1))
	grep -qE "$RELOAD_OK" "$WATCH_OUT" &&
		fail "the start's rebuild did not wait for the first fetch"
	trickle_sigterm
	trap - EXIT
	url_cleanup
}

# Spamhaus' hosts: no more often than hourly, whatever --refresh says,
# unless --force-refresh. The test's namespace reaches no host: the first
# fetch fails, and with no copy to start from the watch ends (exit 1),
# as with a missing list file.
test_url_spamhaus()
{
	local u=https://www.spamhaus.org/drop/drop_v4.json

	bw 1 watch "$BW_RX" --refresh 2s --state-dir "$TMP_DIR/state" "$u"
	assert_grep "$OUT" "^$BW_RX: $u: fetched every hour, not every 2 s: Spamhaus asks for an hour between automated downloads \\(--force-refresh overrides\\)\$" \
		"hourly said"
	assert_grep "$OUT" "^$BW_RX: $u: no copy: connect: .*; next try in ([0-9]+[hm])+([0-9]+s)?\$" \
		"the next try an hour on"
	assert_grep "$ERR" "^$BW_RX: $u: no copy to start from, and its fetch failed: " \
		"the watch ends without a copy"
	bw 1 watch "$BW_RX" --refresh 2s --force-refresh --state-dir "$TMP_DIR/state" "$u"
	assert_grep "$OUT" "^$BW_RX: $u: no copy: connect: .*; next try in [0-9]s\$" \
		"forced: at --refresh"
	grep -q "fetched every hour" "$OUT" && fail "--force-refresh still hourly"
	assert_detached "$BW_RX"
}

# libcurl is not linked but opened by the verbs that fetch (user/net/
# dl_libs.c): where it cannot be loaded (a broken file, a library without
# its functions) a fetch fails naming it and its Debian package, and a
# verb that fetches nothing runs as ever.
test_url_no_libcurl()
{
	local lib=$TMP_DIR/lib st=$TMP_DIR/state l why

	readelf -d "$BLOOMWALL" >"$TMP_DIR/dynamic" || fail "readelf -d $BLOOMWALL"
	assert_grep "$TMP_DIR/dynamic" '\(NEEDED\) .*\[libc\.so\.6\]$' "readelf lists what is linked"
	grep -E '\(NEEDED\) .*\[libcurl' "$TMP_DIR/dynamic" && fail "libcurl is linked"
	mkdir -p "$lib"
	: >"$lib/libcurl.so.4"
	for why in "file too short" "undefined symbol: curl_global_init"; do
		LD_LIBRARY_PATH=$lib bw 1 build -o "$TMP_DIR/f.img" --state-dir "$st" "$URL_SRV/a.txt"
		assert_grep "$ERR" "^bloomwall build: $URL_SRV/a\\.txt: .*libcurl\\.so\\.4 cannot be loaded \\(Debian package libcurl4\\): $lib/libcurl\\.so\\.4: $why, " \
			"the fetch names the library and its package: $why"
		[ -e "$TMP_DIR/f.img" ] && fail "an image written without its list"
		# Then a library of that name without libcurl's functions.
		echo 'int not_curl;' | gcc -shared -x c -o "$lib/libcurl.so.4" - ||
			fail "the stub library"
	done
	l=$(list a.txt "$BW_A4")
	LD_LIBRARY_PATH=$lib bw 0 build -o "$TMP_DIR/f.img" "${SEED[@]}" "$l"
	[ -s "$TMP_DIR/f.img" ] || fail "build of a file without libcurl"
}
