# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of a fleet pulling its filter over HTTP (watch --url,
# P10): Debian's nginx, with a configuration of the test's own (pid, logs,
# temporary paths in the test's directory), serves an image directory in a
# server namespace; FLEET_HOSTS client namespaces (5 in make test, 20 in
# make fleet) each run their own `bloomwall watch --url` on their end of a
# veth pair whose other end is a port of a bridge in the server
# namespace. The server namespace also holds the senders' addresses A, B
# and C, whose pings through each pair the clients' filters judge.
#
#   netns fl-srv-ID: br0 10.80.0.1/16 (nginx :8080), A .2, B .3, C .4
#        | fp1 ... fpN (bridge ports)
#   netns fl-cI-ID:  fcIDhI 10.80.1.I/16, bloomwall watch --url
#
# Sourced by tests/e2e/run.sh, whose helpers (bw, fail, skip, assert_*,
# json, kv, wait_line) they use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $FLEET_TESTS"

# shellcheck disable=SC2034 # read by run.sh
FLEET_TESTS="test_fleet_pull test_fleet_signed test_pull_mirrors_https
test_pull_slow_server test_pull_encoded"

FLEET_HOSTS=${FLEET_HOSTS:-5}
FL_SRV_IP=10.80.0.1
FL_A=10.80.0.2
FL_B=10.80.0.3
FL_C=10.80.0.4
FL_PORT=8080
FL_TLS_PORT=8443
FL_PIDS=()
FL_NS=()

fl_srv()
{
	nsenter --net="/run/netns/$FL_SRV" "$@"
}

# fl_in I CMD...: CMD in client I's namespace.
fl_in()
{
	local i=$1

	shift
	nsenter --net="/run/netns/${FL_NS[$i]}" "$@"
}

fl_iface()
{
	echo "fc${FL_ID}h$1"
}

fl_host_up()
{
	local i=$1 ns=fl-c$1-$FL_ID ifc

	ifc=$(fl_iface "$i")
	FL_NS[i]=$ns
	ip netns add "$ns" || return 1
	ip -n "$ns" link set dev lo up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip link add "$ifc" netns "$ns" type veth peer name "fp$i" \
		netns "$FL_SRV" || return 1
	ip -n "$FL_SRV" link set dev "fp$i" master br0 up || return 1
	ip -n "$ns" addr add "10.80.1.$i/16" dev "$ifc"
	ip -n "$ns" link set dev "$ifc" up
}

# fleet_up N: the server namespace with its bridge, and N clients.
fleet_up()
{
	local i a

	FL_ID=$(printf '%04x' $((RANDOM % 65536)))
	FL_SRV=fl-srv-$FL_ID
	FL_DIR=$TMP_DIR/fleet
	# The runner's directory outlives a test: nothing of the last one's.
	rm -rf "$FL_DIR"
	mkdir -p "$FL_DIR/www" "$FL_DIR/stage" "$FL_DIR/nginx/tmp" \
		"$FL_DIR/state" || return 1
	ip netns add "$FL_SRV" || return 1
	ip -n "$FL_SRV" link set dev lo up
	ip netns exec "$FL_SRV" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip -n "$FL_SRV" link add br0 type bridge || return 1
	for a in $FL_SRV_IP $FL_A $FL_B $FL_C; do
		ip -n "$FL_SRV" addr add "$a/16" dev br0
	done
	ip -n "$FL_SRV" link set dev br0 up
	for i in $(seq "$1"); do
		fl_host_up "$i" || return 1
	done
}

fleet_down()
{
	local i

	for i in "${!FL_PIDS[@]}"; do
		[ -n "${FL_PIDS[$i]}" ] && kill -TERM "${FL_PIDS[$i]}" 2>/dev/null
	done
	for i in "${!FL_PIDS[@]}"; do
		[ -n "${FL_PIDS[$i]}" ] && wait "${FL_PIDS[$i]}" 2>/dev/null
	done
	FL_PIDS=()
	fl_nginx_stop
	for i in "${!FL_NS[@]}"; do
		ip netns del "${FL_NS[$i]}" 2>/dev/null
	done
	FL_NS=()
	[ -n "${FL_SRV:-}" ] && ip netns del "$FL_SRV" 2>/dev/null
	FL_SRV=
	return 0
}

# fl_nginx_conf [TLS]: nginx serving $FL_DIR/www on $FL_SRV_IP; with TLS
# also https on $FL_TLS_PORT with $FL_DIR/tls/srv.{crt,key}, and
# /redirect (https) sending the client to http.
fl_nginx_conf()
{
	local tls=""

	if [ "${1:-}" = TLS ]; then
		tls="server {
		listen $FL_SRV_IP:$FL_TLS_PORT ssl;
		ssl_certificate $FL_DIR/tls/srv.crt;
		ssl_certificate_key $FL_DIR/tls/srv.key;
		root $FL_DIR/www;
		location /redirect/ { return 302 http://$FL_SRV_IP:$FL_PORT/f.img; }
	}"
	fi
	# shellcheck disable=SC2016 # nginx's variables, not the shell's
	nginx_conf "$FL_DIR/nginx" \
		'$remote_addr $status $request_uri $body_bytes_sent $server_port' "
	default_type application/octet-stream;
	server {
		listen $FL_SRV_IP:$FL_PORT;
		root $FL_DIR/www;
		location /slow/ { limit_rate 10k; }
		# A mirror that answers gzip whatever was asked (FILE.gz).
		location /gz/ { gzip_static always; }
		location /enc/ { add_header Content-Encoding x-bw-test; }
	}
	$tls"
}

# Starts nginx in the server namespace; returns once it answers.
fl_nginx_start()
{
	nginx_serve "$FL_DIR/nginx" "http://$FL_SRV_IP:$FL_PORT/" "$FL_SRV"
}

fl_nginx_stop()
{
	[ -n "${FL_DIR:-}" ] && nginx_stop "$FL_DIR/nginx"
	return 0
}

# fl_publish FILE [NAME]: FILE onto the server as NAME (f.img), as an
# operator's build host would: into a staging directory, a modification
# time of its own (nginx's ETag is mtime-size: two images of one size
# within a second would look the same), then one rename into the
# directory nginx serves.
FL_MTIME=1700000000
fl_publish()
{
	local name=${2:-f.img}

	FL_MTIME=$((FL_MTIME + 10))
	cp "$1" "$FL_DIR/stage/$name" || fail "cannot stage $1"
	touch -d "@$FL_MTIME" "$FL_DIR/stage/$name"
	mv "$FL_DIR/stage/$name" "$FL_DIR/www/$name"
}

# fl_watch I ARGS...: client I's watch in the background.
fl_watch()
{
	local i=$1 ifc

	shift
	ifc=$(fl_iface "$i")
	: >"$FL_DIR/w$i.out"
	: >"$FL_DIR/w$i.err"
	# nsenter itself, not a function: $! is the watch's own pid.
	nsenter --net="/run/netns/${FL_NS[$i]}" "$BLOOMWALL" watch "$ifc" \
		--state-dir "$FL_DIR/state" \
		--metrics-file "$FL_DIR/m$i.prom" "$@" \
		>>"$FL_DIR/w$i.out" 2>>"$FL_DIR/w$i.err" &
	FL_PIDS[i]=$!
}

# fl_wait_all N ERE COUNT: every client's watch printed ERE COUNT times.
fl_wait_all()
{
	local n=$1 i

	for i in $(seq "$n"); do
		WATCH_PID=${FL_PIDS[$i]} WATCH_ERR=$FL_DIR/w$i.err \
			wait_line "$FL_DIR/w$i.out" "$2" "$3"
	done
}

# fl_query I ADDR VERDICT: client I's filter says VERDICT of ADDR.
fl_query()
{
	local out

	out=$(fl_in "$1" "$BLOOMWALL" query "$(fl_iface "$1")" "$2" 2>&1)
	grep -qE "^$2  $3( |\$)" <<<"$out" ||
		fail "host $1: query $2: '$out', expected $3"
}

# fl_ping SRC I: replies to 3 pings from the server's SRC to client I.
fl_ping()
{
	fl_srv ping -n -q -c 3 -i 0.05 -W 1 -I "$1" "10.80.1.$2" 2>&1 |
		sed -nE 's/.* ([0-9]+) (packets )?received.*/\1/p'
}

fl_generation()
{
	fl_in "$1" "$BLOOMWALL" status "$(fl_iface "$1")" >"$FL_DIR/st" 2>&1
	kv "$FL_DIR/st" generation
}

# fl_pulled I RESULT: client I's pulls with RESULT, from its metrics.
fl_pulled()
{
	sed -nE "s/^bloomwall_pull_total\\{iface=\"$(fl_iface "$1")\",result=\"$2\"\\} ([0-9]+)\$/\\1/p" \
		"$FL_DIR/m$1.prom"
}

fl_failures()
{
	sed -nE "s/^bloomwall_pull_failures_total\\{iface=\"$(fl_iface "$1")\",reason=\"$2\"\\} ([0-9]+)\$/\\1/p" \
		"$FL_DIR/m$1.prom"
}

# fl_image NAME ADDR...: an image of a list of ADDRs, its path.
fl_image()
{
	local name=$1

	shift
	printf '%s\n' "$@" >"$FL_DIR/$name.txt"
	"$BLOOMWALL" build -o "$FL_DIR/$name.img" "${SEED[@]}" \
		"$FL_DIR/$name.txt" >/dev/null || fail "build $name"
	echo "$FL_DIR/$name.img"
}

# The swap under traffic: pings from C (in both images) to every client
# while the new image goes out; none may be answered.
fl_change_under_traffic()
{
	local n=$1 img=$2 i t0 t now left min max pings=()

	for i in $(seq "$n"); do
		nsenter --net="/run/netns/$FL_SRV" \
			ping -n -q -i 0.01 -c 100000 -I "$FL_C" "10.80.1.$i" \
			>"$FL_DIR/ping$i" 2>&1 &
		pings[i]=$!
	done
	sleep 0.5
	t0=$(date +%s.%N)
	fl_publish "$img"
	left=$n
	declare -A arrived=()
	for t in $(seq 1200); do
		for i in $(seq "$n"); do
			[ -n "${arrived[$i]:-}" ] && continue
			if [ "$(grep -cE "reload ok: generation [0-9]+, .*\\(pull of " "$FL_DIR/w$i.out")" -ge 2 ]; then
				now=$(date +%s.%N)
				arrived[$i]=$(printf '%.2f' "$(echo "$now - $t0" | bc)")
				left=$((left - 1))
			fi
		done
		[ "$left" -eq 0 ] && break
		sleep 0.05
	done
	sleep 0.3
	for i in $(seq "$n"); do
		kill -INT "${pings[$i]}" 2>/dev/null
		wait "${pings[$i]}"
	done
	[ "$left" -eq 0 ] || fail "$left hosts did not take the new image in 60 s"
	min=$(printf '%s\n' "${arrived[@]}" | sort -n | head -n 1)
	max=$(printf '%s\n' "${arrived[@]}" | sort -n | tail -n 1)
	echo "  the new image reached $n hosts in ${min}..${max} s after the rename (spread $(printf '%.2f' "$(echo "$max - $min" | bc)") s; --interval $FL_INTERVAL, jitter +-10%)"
	echo "FLEET_SPREAD hosts=$n interval=$FL_INTERVAL first=$min last=$max" >>"$FL_DIR/spread"
	for i in $(seq "$n"); do
		grep -qE '([1-9][0-9]*) packets transmitted' "$FL_DIR/ping$i" ||
			fail "host $i: no frame sent during the change: $(cat "$FL_DIR/ping$i")"
		grep -qE ' 0 received' "$FL_DIR/ping$i" ||
			fail "host $i: a frame from C passed during the change: $(grep transmitted "$FL_DIR/ping$i")"
		echo "  host $i during the change: $(grep transmitted "$FL_DIR/ping$i")"
	done
}

# Every host still runs generation GEN and drops B (the new image's).
fl_all_kept()
{
	local n=$1 gen=$2 i

	for i in $(seq "$n"); do
		assert_eq "$(fl_generation "$i")" "$gen" "host $i keeps generation $gen"
		fl_query "$i" "$FL_B" drop
		fl_query "$i" "$FL_A" pass
	done
}

# The fleet: the first image everywhere, 304s, a change under traffic, the
# server away and back, a tampered and a cut image refused.
test_fleet_pull()
{
	local n=$FLEET_HOSTS i old new bad gen url half

	nginx_needed
	trap fleet_down EXIT
	FL_INTERVAL=${FLEET_INTERVAL:-1}
	fleet_up "$n" || fail "cannot make the fleet's namespaces"
	fl_nginx_conf
	fl_nginx_start
	old=$(fl_image old "$FL_A" "$FL_C")
	new=$(fl_image new "$FL_B" "$FL_C")
	fl_publish "$old"
	url=http://$FL_SRV_IP:$FL_PORT/f.img
	for i in $(seq "$n"); do
		fl_watch "$i" --url "$url" --interval "$FL_INTERVAL"
	done
	# Nothing ran: an empty filter attached first, then the image.
	fl_wait_all "$n" "reload ok: generation 2, 2 entries, .* \\(pull of $url, ETag \"" 1
	for i in $(seq "$n"); do
		assert_eq "$(fl_ping "$FL_A" "$i")" 0 "host $i drops A (the first image)"
		assert_eq "$(fl_ping "$FL_B" "$i")" 3 "host $i passes B"
	done

	# Unchanged: nginx answers 304 to the ETag, nothing is swapped.
	for i in $(seq "$n"); do
		for _ in $(seq 100); do
			grep -q "^10\\.80\\.1\\.$i 304 /f.img " "$FL_DIR/nginx/access.log" && break
			sleep 0.1
		done
		grep -q "^10\\.80\\.1\\.$i 304 /f.img " "$FL_DIR/nginx/access.log" ||
			fail "host $i: no 304 in nginx's log"
	done
	sleep "$FL_INTERVAL"
	for i in $(seq "$n"); do
		assert_eq "$(fl_generation "$i")" 2 "host $i: a 304 swaps nothing"
		[ "$(fl_pulled "$i" unchanged)" -ge 1 ] ||
			fail "host $i: metrics count no unchanged pull"
	done

	fl_change_under_traffic "$n" "$new"
	fl_all_kept "$n" 3

	# The server away: every host keeps its filter and counts the
	# failures; back: every host pulls again.
	fl_nginx_stop
	fl_wait_all "$n" "pull FAILED \\(connect\\): $url: .*: the last good filter stays \\(generation 3\\); next try in [0-9.]+ s \\(2 in a row\\)\$" 1
	fl_all_kept "$n" 3
	for i in $(seq "$n"); do
		[ "$(fl_failures "$i" connect)" -ge 2 ] ||
			fail "host $i: metrics count no connect failures"
	done
	fl_nginx_start
	fl_wait_all "$n" "pull from $url works again \\(unchanged\\) after [0-9]+ failed\$" 1
	fl_in 1 "$BLOOMWALL" status "$(fl_iface 1)" >"$OUT" 2>&1
	sed -n '/^  Pull$/,$p' "$OUT"
	assert_kv "$OUT" source "$url (answered last)" "status: the source"
	assert_kv "$OUT" "last pull" "unchanged from $url" "status: the last pull"
	assert_kv "$OUT" "consecutive failures" 0 "status: no failure in a row"
	assert_kv "$OUT" "image sha256" "$(sha256sum "$new" | cut -d' ' -f1)" \
		"status: the running image's hash"

	# A tampered image (one bit of the filter flipped: its crc32 no
	# longer agrees), then a cut one: refused everywhere, the last good
	# filter kept.
	bad=$FL_DIR/tampered.img
	cp "$new" "$bad"
	printf '\x5a' | dd of="$bad" bs=1 seek=300 conv=notrunc status=none
	fl_publish "$bad"
	fl_wait_all "$n" "pull FAILED \\(refused\\): $url: the image was refused" 1
	grep -h "refused" "$FL_DIR/w1.err" | head -n 2 | sed 's/^/  w1! /'
	fl_all_kept "$n" 3
	half=$(($(stat -c %s "$new") / 2))
	head -c "$half" "$new" >"$FL_DIR/cut.img"
	fl_publish "$FL_DIR/cut.img"
	fl_wait_all "$n" "pull FAILED \\(cut\\): $url: cut short: $half of the $((half * 2)) bytes its header says" 1
	fl_all_kept "$n" 3
	printf '<html><head><title>503 Service Unavailable</title></head><body>oops</body></html>\n' \
		>"$FL_DIR/html.img"
	fl_publish "$FL_DIR/html.img"
	fl_wait_all "$n" "pull FAILED \\(not_image\\): $url: not a bloomwall image: it starts with 3c 68 74 6d, not \"BWIMAGE\": " 1
	fl_all_kept "$n" 3
	for i in $(seq "$n"); do
		[ "$(fl_failures "$i" refused)" -ge 1 ] ||
			fail "host $i: metrics count no refused image"
	done
	gen=$(fl_generation 1)
	grep -E '^bloomwall_pull_[a-z_]+\{.*\} [1-9]' "$FL_DIR/m1.prom" | sed 's/^/  m1 /'
	fleet_down
	trap - EXIT
	sed 's/^/  w1 /' "$FL_DIR/w1.out"
	sed 's/^/  w1! /' "$FL_DIR/w1.err"
	assert_eq "$gen" 3 "the last good filter ran to the end"
	grep -c ' 200 /f.img ' "$FL_DIR/nginx/access.log" |
		sed 's/^/  nginx: 200 answers: /'
	grep -c ' 304 /f.img ' "$FL_DIR/nginx/access.log" |
		sed 's/^/  nginx: 304 answers: /'
}

# fl_signed NAME SERIAL KEY ADDR...: an image of ADDRs with --serial
# SERIAL, signed with KEY ("-": unsigned), its path.
fl_signed()
{
	local name=$1 serial=$2 key=$3 sign=()

	shift 3
	[ "$key" != - ] && sign=(--sign-key "$key")
	printf '%s\n' "$@" >"$FL_DIR/$name.txt"
	"$BLOOMWALL" build -o "$FL_DIR/$name.img" "${SEED[@]}" --serial "$serial" \
		"${sign[@]}" "$FL_DIR/$name.txt" >/dev/null || fail "build $name"
	echo "$FL_DIR/$name.img"
}

# fl_refused_everywhere N IMAGE REASON: IMAGE published; every host
# refuses it for REASON, counts it, and keeps generation GEN (B dropped).
fl_refused_everywhere()
{
	local n=$1 img=$2 why=$3 gen=$4 i before=()

	for i in $(seq "$n"); do
		before[i]=$(grep -c "pull FAILED ($why)" "$FL_DIR/w$i.out")
	done
	fl_publish "$img"
	for i in $(seq "$n"); do
		WATCH_PID=${FL_PIDS[$i]} WATCH_ERR=$FL_DIR/w$i.err \
			wait_line "$FL_DIR/w$i.out" "pull FAILED \\($why\\): " $((before[i] + 1))
	done
	grep "pull FAILED ($why)" "$FL_DIR/w1.out" | tail -n 1 | sed 's/^/  w1 /'
	tail -n 1 "$FL_DIR/w1.err" | sed 's/^/  w1! /'
	fl_all_kept "$n" "$gen"
	# The metrics file is written after the line (the bound only ends
	# a hang).
	for i in $(seq "$n"); do
		for _ in $(seq 100); do
			[ "$(fl_failures "$i" "$why")" -ge 1 ] && break
			sleep 0.1
		done
		[ "$(fl_failures "$i" "$why")" -ge 1 ] ||
			fail "host $i: metrics count no '$why' failure"
	done
}

# Signed images (--verify-key): the fleet takes the one signed with its
# key, refuses an unsigned one, one of another key, a tampered one and an
# older one (a rollback: a stale mirror, a replayed file), and takes the
# next newer one.
test_fleet_signed()
{
	local n=$FLEET_HOSTS i url k good bad

	nginx_needed
	trap fleet_down EXIT
	FL_INTERVAL=${FLEET_INTERVAL:-1}
	fleet_up "$n" || fail "cannot make the fleet's namespaces"
	k=$FL_DIR/keys
	mkdir -p "$k"
	"$BLOOMWALL" keygen "$k/a.key" "$k/a.pub" >/dev/null || fail "keygen a"
	"$BLOOMWALL" keygen "$k/b.key" "$k/b.pub" >/dev/null || fail "keygen b"
	fl_nginx_conf
	fl_nginx_start
	good=$(fl_signed v1 100 "$k/a.key" "$FL_B" "$FL_C")
	fl_publish "$good"
	url=http://$FL_SRV_IP:$FL_PORT/f.img
	for i in $(seq "$n"); do
		fl_watch "$i" --url "$url" --interval "$FL_INTERVAL" \
			--verify-key "$k/a.pub"
	done
	fl_wait_all "$n" "reload ok: generation 2, 2 entries, .* \\(pull of $url, ETag " 1
	fl_all_kept "$n" 2

	fl_refused_everywhere "$n" "$(fl_signed unsigned 200 - "$FL_A")" signature 2
	fl_refused_everywhere "$n" "$(fl_signed other 300 "$k/b.key" "$FL_A")" signature 2
	bad=$FL_DIR/tampered.img
	cp "$(fl_signed t 400 "$k/a.key" "$FL_A")" "$bad"
	printf '\x5a' | dd of="$bad" bs=1 seek=300 conv=notrunc status=none
	fl_refused_everywhere "$n" "$bad" signature 2
	fl_refused_everywhere "$n" "$(fl_signed old 50 "$k/a.key" "$FL_A")" rollback 2
	assert_grep "$FL_DIR/w1.err" "refused: a rollback: serial 50 " \
		"the watch says why"

	fl_publish "$(fl_signed v2 500 "$k/a.key" "$FL_A" "$FL_C")"
	fl_wait_all "$n" "reload ok: generation 3, 2 entries, .* \\(pull of $url, ETag " 1
	for i in $(seq "$n"); do
		fl_query "$i" "$FL_A" drop
		fl_query "$i" "$FL_B" pass
	done
	fl_in 1 "$BLOOMWALL" status "$(fl_iface 1)" >"$OUT" 2>&1
	sed -n '/^  Pull$/,$p' "$OUT"
	assert_kv "$OUT" "image sha256" "$(sha256sum "$FL_DIR/v2.img" | cut -d' ' -f1)" \
		"status: the hash of the image that runs"
	fleet_down
	trap - EXIT
}

# One host: a dead mirror first, https with a CA of the test's own
# (--ca-file), an https URL redirected to http refused, a 404.
test_pull_mirrors_https()
{
	local img url dead tls

	nginx_needed
	command -v openssl >/dev/null || skip "no openssl"
	trap fleet_down EXIT
	fleet_up 1 || fail "cannot make the namespaces"
	mkdir -p "$FL_DIR/tls"
	tls=$FL_DIR/tls
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=fleet-ca \
		-keyout "$tls/ca.key" -out "$tls/ca.crt" 2>/dev/null ||
		fail "openssl: no CA"
	openssl req -newkey rsa:2048 -nodes -subj "/CN=$FL_SRV_IP" \
		-keyout "$tls/srv.key" -out "$tls/srv.csr" 2>/dev/null
	printf 'subjectAltName=IP:%s\n' "$FL_SRV_IP" >"$tls/ext"
	openssl x509 -req -in "$tls/srv.csr" -CA "$tls/ca.crt" \
		-CAkey "$tls/ca.key" -CAcreateserial -days 2 \
		-extfile "$tls/ext" -out "$tls/srv.crt" 2>/dev/null ||
		fail "openssl: no server certificate"
	fl_nginx_conf TLS
	fl_nginx_start
	img=$(fl_image one "$FL_A")
	fl_publish "$img"
	url=https://$FL_SRV_IP:$FL_TLS_PORT/f.img
	dead=http://$FL_SRV_IP:1/f.img

	# Without the CA: a TLS failure, nothing attached, counted.
	fl_watch 1 --url "$url" --interval 0.5
	wait_line "$FL_DIR/w1.out" "pull FAILED \\(protocol\\): $url: .*: no filter runs; next try in" 1
	kill -TERM "${FL_PIDS[1]}"
	wait "${FL_PIDS[1]}"
	sed 's/^/  w /' "$FL_DIR/w1.out"

	# The dead mirror first, then https with --ca-file.
	fl_watch 1 --url "$dead" --url "$url" --ca-file "$tls/ca.crt" \
		--interval 0.5 --connect-timeout 2
	wait_line "$FL_DIR/w1.out" "reload ok: generation 2, 1 entries, .*\\(pull of $url, ETag " 1
	fl_query 1 "$FL_A" drop
	fl_in 1 "$BLOOMWALL" status "$(fl_iface 1)" >"$OUT" 2>&1
	sed -n '/^  Pull$/,$p' "$OUT"
	assert_kv "$OUT" source "$dead" "status: the first URL"
	assert_kv "$OUT" mirror "$url (answered last)" "status: the mirror answered"
	fl_in 1 "$BLOOMWALL" -j status "$(fl_iface 1)" >"$OUT" 2>&1
	assert_eq "$(json "$OUT" 'd[0]["pull"]["answered"]')" "\"$url\"" \
		"status --json: the URL that answered"
	kill -TERM "${FL_PIDS[1]}"
	wait "${FL_PIDS[1]}" || fail "the watch's exit status on SIGTERM"
	FL_PIDS=()

	# https redirected to http: refused, the last good filter stays; a 404.
	fl_watch 1 --url "https://$FL_SRV_IP:$FL_TLS_PORT/redirect/x" \
		--url "http://$FL_SRV_IP:$FL_PORT/nothing.img" \
		--ca-file "$tls/ca.crt" --interval 0.5
	wait_line "$FL_DIR/w1.out" "pull FAILED \\(http_status\\): https://$FL_SRV_IP:$FL_TLS_PORT/redirect/x: redirected \\(HTTP 302\\) to http://$FL_SRV_IP:$FL_PORT/f.img, not followed: only https:// is; http://$FL_SRV_IP:$FL_PORT/nothing.img: HTTP status 404: the last good filter stays \\(generation 2\\)" 1
	sed 's/^/  w /' "$FL_DIR/w1.out"
	fl_query 1 "$FL_A" drop
	grep -qE "^10\\.80\\.1\\.1 [0-9]+ /f.img [0-9]+ $FL_PORT\$" "$FL_DIR/nginx/access.log" &&
		fail "the redirect to http was followed: $(cat "$FL_DIR/nginx/access.log")"
	kill -TERM "${FL_PIDS[1]}"
	wait "${FL_PIDS[1]}" || fail "the watch's exit status on SIGTERM"
	FL_PIDS=()

	# A CA file others could change: refused before anything is pulled.
	cp "$tls/ca.crt" "$tls/open.crt"
	chmod 666 "$tls/open.crt"
	fl_in 1 "$BLOOMWALL" watch "$(fl_iface 1)" --url "$url" \
		--ca-file "$tls/open.crt" >"$OUT" 2>"$ERR" &&
		fail "a watch with a CA file others can write"
	assert_grep "$ERR" "^bloomwall watch: --ca-file $tls/open.crt: refused: the CA file is writable by group and others \\(mode 0666\\)" "a CA others can change"

	# A reboot with the servers away: nothing runs, the last good image
	# (STATE/IFACE/current.img) goes in before the first pull fails.
	fl_in 1 "$BLOOMWALL" detach "$(fl_iface 1)" >/dev/null ||
		fail "detach"
	fl_watch 1 --url "$dead" --interval 0.5
	wait_line "$FL_DIR/w1.out" "reload ok: generation [0-9]+, 1 entries, .*\\(start: the last good image pulled\\)\$" 1
	wait_line "$FL_DIR/w1.out" "pull FAILED \\(connect\\): $dead: .*: the last good filter stays" 1
	fl_query 1 "$FL_A" drop
	kill -TERM "${FL_PIDS[1]}"
	wait "${FL_PIDS[1]}" || fail "the watch's exit status on SIGTERM"
	FL_PIDS=()
}

# A server that trickles (nginx's limit_rate): --timeout ends the pull (a
# timeout, counted); SIGTERM in the middle of a download ends the watch at
# once, exit 0, the download removed.
test_pull_slow_server()
{
	local url tmp i

	nginx_needed
	trap fleet_down EXIT
	fleet_up 1 || fail "cannot make the namespaces"
	fl_nginx_conf
	fl_nginx_start
	mkdir -p "$FL_DIR/www/slow" "$FL_DIR/stage/slow"
	# Random addresses: no prefix merges them, the image is ~400 KB.
	awk 'BEGIN { srand(7); for (i = 0; i < 200000; i++)
		printf "%d.%d.%d.%d\n", 1 + int(rand() * 222), int(rand() * 256),
			int(rand() * 256), int(rand() * 256) }' \
		>"$FL_DIR/big.txt"
	"$BLOOMWALL" build -o "$FL_DIR/big.img" "${SEED[@]}" "$FL_DIR/big.txt" \
		>/dev/null || fail "build"
	fl_publish "$FL_DIR/big.img" slow/f.img
	url=http://$FL_SRV_IP:$FL_PORT/slow/f.img
	tmp=$FL_DIR/state/$(fl_iface 1)/pull.tmp

	fl_watch 1 --url "$url" --timeout 1 --interval 30
	wait_line "$FL_DIR/w1.out" "pull FAILED \\(timeout\\): $url: .*: no filter runs; next try in" 1
	[ -e "$tmp" ] && fail "the cut download was left behind"
	kill -TERM "${FL_PIDS[1]}"
	wait "${FL_PIDS[1]}" || fail "the watch's exit status on SIGTERM"

	fl_watch 1 --url "$url" --interval 30
	for i in $(seq 100); do
		[ -s "$tmp" ] && break
		sleep 0.1
	done
	[ -s "$tmp" ] || fail "no download under way"
	echo "  $(stat -c %s "$tmp") of $(stat -c %s "$FL_DIR/big.img") bytes came; SIGTERM"
	kill -TERM "${FL_PIDS[1]}"
	WATCH_PID=${FL_PIDS[1]}
	wait_gone "$WATCH_PID" || fail "the watch did not stop on SIGTERM in the middle of a download"
	wait "$WATCH_PID" || fail "the watch's exit status on SIGTERM"
	WATCH_PID=
	FL_PIDS=()
	sed 's/^/  w /' "$FL_DIR/w1.out"
	assert_grep "$FL_DIR/w1.out" "^$(fl_iface 1): watch stopped \\(SIGTERM\\); no filter runs\$" \
		"the stop said"
	[ -e "$tmp" ] && fail "the download was left behind"
	fleet_down
	trap - EXIT
}

# A mirror that answers Content-Encoding: gzip (nginx's gzip_static always,
# whatever the request asked): the image is decoded and goes in. One in an
# encoding nobody decodes: the pull fails naming it, once.
test_pull_encoded()
{
	local img url enc

	nginx_needed
	command -v gzip >/dev/null || skip "no gzip"
	trap fleet_down EXIT
	fleet_up 1 || fail "cannot make the namespaces"
	fl_nginx_conf
	fl_nginx_start
	mkdir -p "$FL_DIR/www/gz" "$FL_DIR/www/enc"
	img=$(fl_image two "$FL_A" "$FL_B")
	gzip -9 -c "$img" >"$FL_DIR/www/gz/f.img.gz"
	cp "$img" "$FL_DIR/www/enc/f.img"
	url=http://$FL_SRV_IP:$FL_PORT/gz/f.img
	enc=http://$FL_SRV_IP:$FL_PORT/enc/f.img
	# The server sends gzip to a client that did not ask for it.
	fl_srv curl -s -D "$FL_DIR/hdrs" -o "$FL_DIR/raw" "$url" ||
		fail "curl $url"
	grep -qi '^Content-Encoding: gzip' "$FL_DIR/hdrs" ||
		fail "nginx does not answer gzip: $(cat "$FL_DIR/hdrs")"
	cmp -s "$FL_DIR/raw" "$FL_DIR/www/gz/f.img.gz" ||
		fail "nginx's answer is not the gzip file"

	fl_watch 1 --url "$url" --interval 0.5
	wait_line "$FL_DIR/w1.out" "reload ok: generation 2, [0-9]+ entries, .*\\(pull of $url" 1
	sed 's/^/  w /' "$FL_DIR/w1.out"
	fl_query 1 "$FL_A" drop
	fl_query 1 "$FL_B" drop
	fl_query 1 "$FL_C" pass
	kill -TERM "${FL_PIDS[1]}"
	wait "${FL_PIDS[1]}" || fail "the watch's exit status on SIGTERM"
	FL_PIDS=()

	fl_watch 1 --url "$enc" --interval 0.5
	wait_line "$FL_DIR/w1.out" "pull FAILED \\(protocol\\): $enc: Content-Encoding x-bw-test: Unrecognized content encoding" 1
	sed 's/^/  w /' "$FL_DIR/w1.out"
	[ "$(grep "pull FAILED" "$FL_DIR/w1.out" | head -n 1 |
		grep -o x-bw-test | wc -l)" = 1 ] ||
		fail "the encoding is not named once"
	grep -q "not a bloomwall image" "$FL_DIR/w1.out" &&
		fail "an encoded answer taken for a wrong image"
	fl_query 1 "$FL_A" drop
	kill -TERM "${FL_PIDS[1]}"
	wait "${FL_PIDS[1]}" || fail "the watch's exit status on SIGTERM"
	FL_PIDS=()
}
