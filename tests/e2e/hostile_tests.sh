# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of issue 29 (hostile input, round 3) that live in the
# watch's HTTP sources: a CrowdSec key never sent to a host it was not
# given for, against the real LAPI behind Debian's nginx (a configuration
# of the test's own, on loopback in the worker's namespace); a refused
# image that falls through to the next mirror, and images judged at
# their header, against nginx in the fleet's namespaces. Sourced by
# tests/e2e/run.sh after crowdsec_tests.sh and fleet_tests.sh, whose
# helpers (cs_setup, cs_start, cs_add, wait_updates) they use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $HOSTILE_TESTS"

# shellcheck disable=SC2034 # read by run.sh
HOSTILE_TESTS="test_hostile_cs_redirect test_hostile_mirror_refused
test_hostile_pull_header"

HO_PORT=18090

# ho_nginx_start CONF_BODY: nginx with the server blocks CONF_BODY (its
# access log HO_LOG: address, status, URI, the X-Api-Key it got),
# returns once it answers.
ho_nginx_start()
{
	local d=$TMP_DIR/ho-nginx

	rm -rf "$d"
	# shellcheck disable=SC2016 # nginx's variables, not the shell's
	nginx_conf "$d" \
		'$server_addr:$server_port $status $request_uri key=$http_x_api_key' "$1"
	HO_LOG=$d/access.log
	nginx_serve "$d" "http://127.0.0.1:$HO_PORT/"
}

ho_cleanup()
{
	cs_cleanup
	nginx_stop "$TMP_DIR/ho-nginx"
}

# A LAPI (behind a proxy) that redirects the stream to another host: the
# watch does not follow, says why, and the other host never gets the key;
# a redirect within the origin asked is followed, and its decisions drop.
test_hostile_cs_redirect()
{
	local far=127.0.0.2:$((HO_PORT + 1)) lapi=127.0.0.1:$CS_PORT

	trap ho_cleanup EXIT
	cs_setup
	cs_start
	ho_nginx_start "
	server {
		listen 127.0.0.1:$HO_PORT;
		location / { return 200 'proxy'; }
		location /v1/decisions/stream {
			return 302 http://$far\$request_uri;
		}
		location /same/ { proxy_pass http://$lapi/; }
	}
	server {
		listen 127.0.0.1:$((HO_PORT + 2));
		location /v1/decisions/stream {
			return 302 /same\$request_uri;
		}
		location /same/ { proxy_pass http://$lapi/; }
	}
	server {
		listen $far;
		location / { proxy_pass http://$lapi; }
	}"
	cs_add --ip "$BW_A4" --duration 1h --reason redirected

	start_watch "${SEED[@]}" --crowdsec "http://127.0.0.1:$HO_PORT" \
		--crowdsec-key-file "$CS_KEY" --update-frequency 0.5 \
		"$(list cs.txt "$BW_C4")"
	wait_line "$WATCH_OUT" "redirected \\(HTTP 302\\) to http://$far/v1/decisions/stream.*, not followed: its credentials go to http://127.0.0.1:$HO_PORT only"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	sed 's/^/  n /' "$HO_LOG"
	assert_grep "$HO_LOG" "^127.0.0.1:$HO_PORT 302 /v1/decisions/stream" \
		"the proxy redirected the watch"
	grep -q "^$far " "$HO_LOG" && fail "the watch followed the redirect to $far"
	grep -q "key=[^ -]" <(grep -v "^127.0.0.1:$HO_PORT " "$HO_LOG") &&
		fail "the key went to another origin"
	expect_delivered "$BW_A4" "$BW_RX4"
	stop_watch TERM

	# Within the origin: followed, the key with it.
	trap ho_cleanup EXIT
	start_watch "${SEED[@]}" --crowdsec "http://127.0.0.1:$((HO_PORT + 2))" \
		--crowdsec-key-file "$CS_KEY" --update-frequency 0.5 \
		"$(list cs.txt "$BW_C4")"
	wait_line "$WATCH_OUT" "$SYNC_OK"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	assert_grep "$HO_LOG" "^127.0.0.1:$((HO_PORT + 2)) 200 /same/v1/decisions/stream.* key=[^ -]" \
		"the redirect within the origin was followed"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	trap - EXIT
	ho_cleanup
}

# ho_fleet INTERVAL: one host of the fleet's (fleet_tests.sh), nginx
# serving mirrors m1/ and m2/ of $FL_DIR/www (m1/ at 10 KiB/s: what a
# transfer cut at the header left unsent shows in nginx's log), keys a
# and b; both mirrors serve v1 (key a, serial 100, B), which the host's
# watch (--url m1 --url m2 --verify-key a.pub, pulling every INTERVAL)
# took from m1.
ho_fleet()
{
	local m

	nginx_needed
	fleet_up 1 || fail "cannot make the namespaces"
	for m in m1 m2; do
		mkdir -p "$FL_DIR/www/$m" "$FL_DIR/stage/$m"
	done
	HO_KEYS=$FL_DIR/keys
	mkdir -p "$HO_KEYS"
	"$BLOOMWALL" keygen "$HO_KEYS/a.key" "$HO_KEYS/a.pub" >/dev/null ||
		fail "keygen a"
	"$BLOOMWALL" keygen "$HO_KEYS/b.key" "$HO_KEYS/b.pub" >/dev/null ||
		fail "keygen b"
	fl_nginx_conf
	sed -i 's|location /slow/ { limit_rate 10k; }|&\n\t\tlocation /m1/ { limit_rate 10k; }|' \
		"$FL_DIR/nginx/nginx.conf"
	fl_nginx_start
	HO_M1=http://$FL_SRV_IP:$FL_PORT/m1/f.img
	HO_M2=http://$FL_SRV_IP:$FL_PORT/m2/f.img
	fl_publish "$(fl_signed v1 100 "$HO_KEYS/a.key" "$FL_B")" m1/f.img
	fl_publish "$FL_DIR/v1.img" m2/f.img
	fl_watch 1 --url "$HO_M1" --url "$HO_M2" --interval "$1" \
		--verify-key "$HO_KEYS/a.pub"
	wait_line "$FL_DIR/w1.out" "reload ok: generation 2, 1 entries, .* \\(pull of $HO_M1, ETag " 1
}

# ho_sent PATH: the bytes nginx sent for the last request of PATH.
ho_sent()
{
	awk -v p="$1" '$3 == p { n = $4 } END { print n + 0 }' \
		"$FL_DIR/nginx/access.log"
}

# A refused image falls through to the next mirror: the first mirror
# serves another key's image, then an older serial, the second a newer
# one signed right; each time the second's goes in within the same pull,
# and each refusal is counted by its reason.
test_hostile_mirror_refused()
{
	local k

	trap fleet_down EXIT
	ho_fleet 3600
	k=$HO_KEYS

	fl_publish "$(fl_signed other 300 "$k/b.key" "$FL_A")" m1/f.img
	fl_publish "$(fl_signed v2 200 "$k/a.key" "$FL_A" "$FL_C")" m2/f.img
	kill -HUP "${FL_PIDS[1]}"
	wait_line "$FL_DIR/w1.out" "pull: the image of $HO_M1 was refused \\(signature\\); asking $HO_M2" 1
	wait_line "$FL_DIR/w1.out" "reload ok: generation 3, 2 entries, .* \\(pull of $HO_M2, ETag .*SIGHUP\\)" 1
	fl_query 1 "$FL_A" drop
	fl_query 1 "$FL_B" pass

	fl_publish "$(fl_signed old 50 "$k/a.key" "$FL_B")" m1/f.img
	fl_publish "$(fl_signed v3 400 "$k/a.key" "$FL_B" "$FL_C")" m2/f.img
	kill -HUP "${FL_PIDS[1]}"
	wait_line "$FL_DIR/w1.out" "pull: the image of $HO_M1 was refused \\(rollback\\); asking $HO_M2" 1
	wait_line "$FL_DIR/w1.out" "reload ok: generation 4, 2 entries, .* \\(pull of $HO_M2, ETag .*SIGHUP\\)" 1
	fl_query 1 "$FL_B" drop
	fl_query 1 "$FL_A" pass
	grep -q "pull FAILED" "$FL_DIR/w1.out" &&
		fail "a pull failed although the second mirror had a good image"
	assert_eq "$(fl_failures 1 signature)" 1 "signature refusals counted"
	assert_eq "$(fl_failures 1 rollback)" 1 "rollback refusals counted"
	fleet_down
	trap - EXIT
}

# An image is judged at its header, before the rest comes: under
# --verify-key an unsigned one, and one that says it is more than 16
# times the last good image, end their transfer there (nginx sent a
# small part of them; a mirror after it is asked); SIGHUP takes the
# large one.
test_hostile_pull_header()
{
	local k big size sent

	trap fleet_down EXIT
	ho_fleet 1
	k=$HO_KEYS

	# 20,000 addresses, none next to another (no merging): an image of
	# tens of KiB, seconds at m1's rate.
	seq 0 2 39998 | awk '{ printf "198.18.%d.%d\n", $1 / 256, $1 % 256 }' \
		>"$FL_DIR/many.txt"
	"$BLOOMWALL" build -o "$FL_DIR/unsigned.img" "${SEED[@]}" --serial 200 \
		"$FL_DIR/many.txt" >/dev/null || fail "build unsigned"
	size=$(stat -c %s "$FL_DIR/unsigned.img")
	fl_publish "$FL_DIR/unsigned.img" m1/f.img
	fl_publish "$(fl_signed v2 300 "$k/a.key" "$FL_A")" m2/f.img
	wait_line "$FL_DIR/w1.out" "reload ok: generation 3, 1 entries, .* \\(pull of $HO_M2, ETag " 1
	fl_query 1 "$FL_A" drop
	sent=$(ho_sent /m1/f.img)
	echo "  nginx sent $sent of the unsigned image's $size bytes"
	[ "$sent" -lt $((size / 2)) ] ||
		fail "the unsigned image was sent whole: not cut at its header"
	[ "$(fl_failures 1 signature)" -ge 1 ] ||
		fail "the unsigned image's refusal was not counted"

	# Signed, 20,001 entries after one: past 16 times, on both mirrors.
	cp "$FL_DIR/many.txt" "$FL_DIR/big.txt"
	echo "$FL_C" >>"$FL_DIR/big.txt"
	big=$FL_DIR/big.img
	"$BLOOMWALL" build -o "$big" "${SEED[@]}" --serial 400 \
		--sign-key "$k/a.key" "$FL_DIR/big.txt" >/dev/null ||
		fail "build big"
	fl_publish "$big" m1/f.img
	fl_publish "$big" m2/f.img
	wait_line "$FL_DIR/w1.out" "pull FAILED \\(too_large\\): .*an image of [0-9]+ bytes, more than 16 times the last good one: refused at its header \\(SIGHUP takes it\\)" 1
	fl_query 1 "$FL_C" pass
	kill -HUP "${FL_PIDS[1]}"
	wait_line "$FL_DIR/w1.out" "reload ok: generation 4, 20001 entries, .*SIGHUP\\)" 1
	fl_query 1 "$FL_C" drop
	fleet_down
	trap - EXIT
}
