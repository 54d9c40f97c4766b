# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of list sources by URL set up in the config file
# (bloomwall.yaml(5), lists: items as mappings): each source fetched at
# its own refresh, as Debian's nginx's access log shows; status and the
# metrics name each one's interval; SIGHUP fetches every source now; a
# download is judged as the rebuild reads it (--mask-host-bits).
# Sourced by tests/e2e/run.sh after
# url_tests.sh, whose helpers (url_nginx_up, url_publish,
# url_cleanup) they use, and ops_tests.sh's.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $URL_SRC_TESTS"

# shellcheck disable=SC2034 # read by run.sh
URL_SRC_TESTS="test_url_src_config test_url_src_hup test_url_src_mask"

# Two URLs from one config file, one every 2 s and one every hour: the
# first answered 304 again and again, the second fetched once; an
# address appended to the first drops; status and the metrics show each
# source's own interval; config show each value's line.
test_url_src_config()
{
	local st=$TMP_DIR/state conf=$TMP_DIR/bloomwall.yaml log=$TMP_DIR/nginx/access.log
	local fast slow

	url_nginx_up
	printf '%s\n' "$BW_A4" >"$TMP_DIR/stage/fast.txt"
	url_publish fast.txt
	printf '%s\n' "$BW_B4" >"$TMP_DIR/stage/slow.txt"
	url_publish slow.txt
	fast=$URL_SRV/fast.txt slow=$URL_SRV/slow.txt
	cat >"$conf" <<EOF2
lists:
  - url: $fast
    refresh: 2s
  - url: $slow
    refresh: 1h
state_dir: $st
debounce: 0.2
interval: 0.5
metrics_file: $TMP_DIR/metrics.prom
EOF2
	bw 0 config check "$conf"
	assert_line "$OUT" "$conf: ok" "config check"
	bw 0 config show "$conf"
	assert_line "$OUT" "  - url: \"$fast\"  # $conf:2" "config show: the first source"
	assert_line "$OUT" "    refresh: 2s  # $conf:3" "config show: its refresh, its line"
	assert_line "$OUT" "    refresh: 1h  # $conf:5" "config show: the second's"
	assert_line "$OUT" "refresh: 1h  # default" "config show: the watch's refresh"

	start_watch "${SEED[@]}" --config "$conf"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	assert_grep "$WATCH_OUT" "^$BW_RX: $fast: fetched every 2s, stale after 6s\$" \
		"the start says the first source's interval"
	assert_grep "$WATCH_OUT" "^$BW_RX: $slow: fetched every 1h, stale after 3h\$" \
		"the start says the second source's interval"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_C4" "$BW_RX4"

	# The fast source answered 304 again and again; the slow one once.
	wait_line "$log" "^304 /fast.txt\$" 3
	assert_eq "$(grep -c '^200 /fast.txt$' "$log")" 1 "the first source's one new copy"
	assert_eq "$(grep -c 'slow.txt$' "$log")" 1 "the second source: fetched once"
	assert_grep "$log" "^200 /slow.txt\$" "its one fetch"

	# Appended to the fast source: fetched at its next refresh, dropped.
	printf '%s\n%s\n' "$BW_A4" "$BW_C4" >"$TMP_DIR/stage/fast.txt"
	url_publish fast.txt
	wait_line "$WATCH_OUT" "^$BW_RX: $fast: a new copy, 2 entries, "
	wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	assert_eq "$(grep -c 'slow.txt$' "$log")" 1 "the second source: still once"

	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    refresh +every 2s, stale after 6s\$" "status: the first's interval"
	assert_grep "$OUT" "^    refresh +every 1h, stale after 3h\$" "status: the second's interval"
	bw 0 status --json "$BW_RX"
	assert_eq "$(json "$OUT" '[(s["url"].split("/")[-1], s["refresh"], s["max_age"]) for s in d[0]["sources"]]')" \
		'[["fast.txt",2,6],["slow.txt",3600,10800]]' "status --json: each source's own"
	wait_line "$TMP_DIR/metrics.prom" "^bloomwall_source_refresh_seconds\\{iface=\"$BW_RX\",url=\"$slow\"\\} 3600\$"
	assert_grep "$TMP_DIR/metrics.prom" \
		"^bloomwall_source_refresh_seconds\\{iface=\"$BW_RX\",url=\"$fast\"\\} 2\$" \
		"the metric: the first's interval"
	stop_watch TERM
	trap - EXIT
	url_cleanup
}

# SIGHUP fetches the URLs now, conditionally: a 304 in nginx's log long
# before the hour's refresh; a change published, the next SIGHUP's fetch
# brings it and its address drops.
test_url_src_hup()
{
	local st=$TMP_DIR/state log=$TMP_DIR/nginx/access.log url

	url_nginx_up
	printf '%s\n' "$BW_A4" >"$TMP_DIR/stage/list.txt"
	url_publish list.txt
	url=$URL_SRV/list.txt
	start_watch "${SEED[@]}" --debounce 0.2 --refresh 1h --state-dir "$st" "$url"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	assert_eq "$(grep -c 'list.txt$' "$log")" 1 "one fetch at the start"

	kill -HUP "$WATCH_PID"
	wait_line "$WATCH_OUT" "^$BW_RX: $url: SIGHUP: fetched now\$"
	wait_line "$log" "^304 /list.txt\$"
	wait_line "$WATCH_OUT" "^$BW_RX: $url: unchanged \\(HTTP 304, "
	assert_eq "$(grep -c 'list.txt$' "$log")" 2 "SIGHUP: one request more"

	printf '%s\n%s\n' "$BW_A4" "$BW_C4" >"$TMP_DIR/stage/list.txt"
	url_publish list.txt
	expect_delivered "$BW_C4" "$BW_RX4"
	kill -HUP "$WATCH_PID"
	wait_line "$WATCH_OUT" "^$BW_RX: $url: a new copy, 2 entries, "
	wait_line "$log" "^200 /list.txt\$" 2
	# SIGHUP's rebuild waited for its fetch: the new copy is in it.
	wait_line "$WATCH_OUT" "^$BW_RX: reload ok: generation [0-9]+, 2 entries, .*\\(SIGHUP\\)\$"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	# Five times the debounce: a rebuild for the new file would be done.
	sleep 1
	assert_eq "$(grep -c 'reload ok: .*(change of' "$WATCH_OUT")" 0 \
		"no second rebuild for the copy SIGHUP fetched"
	stop_watch TERM
	trap - EXIT
	url_cleanup
}

# A download is judged with the rebuild's options: a prefix with host
# bits set is no list without --mask-host-bits (no copy is written, and
# the watch, with no copy to start from, ends), and one with it: fetched,
# masked by the rebuild, its addresses dropped.
test_url_src_mask()
{
	local st=$TMP_DIR/state url

	url_nginx_up
	# 10.77.0.3/31 is 10.77.0.2/31 with a host bit: $BW_A4 and $BW_B4.
	printf '%s/31\n' "$BW_B4" >"$TMP_DIR/stage/m.txt"
	url_publish m.txt
	url=$URL_SRV/m.txt
	bw 1 watch "$BW_RX" "${SEED[@]}" --refresh 1h --state-dir "$st" "$url"
	assert_grep "$OUT" "^$BW_RX: $url: no copy: parse: not a list: $url:1: host bits set in " \
		"refused at the fetch"
	assert_eq "$(find "$st/lists" -name '*m.txt' | wc -l)" 0 "no copy written"
	assert_detached "$BW_RX"

	start_watch "${SEED[@]}" --mask-host-bits --refresh 1h --state-dir "$st" "$url"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	assert_grep "$WATCH_OUT" "^$BW_RX: $url: a new copy, 1 entries, " "taken, masked"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_C4" "$BW_RX4"
	stop_watch TERM
	trap - EXIT
	url_cleanup
}
