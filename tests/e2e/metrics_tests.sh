# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# watch --metrics-listen: /metrics over HTTP (the metrics file's very
# exposition), scraped by a real Prometheus; a slow peer neither holds a
# scrape up nor keeps SIGTERM from ending the watch; bad addresses are
# refused. The alert rules (scripts/prometheus) and the Grafana dashboard
# (scripts/grafana): promtool accepts and tests the rules, and every
# series both name is one a running watch serves.
# Sourced by run.sh; the servers listen on the worker's own loopback.

# shellcheck disable=SC2034 # read by run.sh
METRICS_TESTS="test_metrics_listen test_metrics_prometheus test_metrics_slow_peer
test_metrics_listen_bad test_metrics_rules test_metrics_names
test_metrics_listen_no_lib"

MX_ADDR=127.0.0.1:60607
MX_URL=http://$MX_ADDR/metrics
MX_RULES=$TOP/scripts/prometheus/bloomwall.rules.yml
MX_DASH=$TOP/scripts/grafana/bloomwall.json

# mx_get URL FILE [CURL ARGS...]: the answer's body in FILE, its status
# line and headers in FILE.h; curl's status.
mx_get()
{
	local url=$1 f=$2

	shift 2
	curl -sS -g -m 10 -D "$f.h" -o "$f" "$@" "$url"
}

# mx_status FILE: the status code of the answer mx_get kept.
mx_status()
{
	sed -n '1s/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p' "$1.h"
}

# mx_wait URL FILE EXPR WANT: gets URL until prom's EXPR on it is WANT
# (the bound, 60 s, only ends a hang).
mx_wait()
{
	local i got=

	for i in $(seq 300); do
		if mx_get "$1" "$2" 2>/dev/null; then
			got=$(prom "$2" "$3")
			[ "$got" = "$4" ] && return 0
		fi
		sleep 0.2
	done
	fail "$3 on $1: '$got', not '$4', after 60 s"
}

mx_needs()
{
	command -v promtool >/dev/null || skip "no promtool (Debian package prometheus)"
	command -v curl >/dev/null || skip "no curl"
}

# The served exposition is the file's, byte for byte (one renderer); the
# counters follow the frames; only GET and HEAD of /metrics.
test_metrics_listen()
{
	local l m=$TMP_DIR/m.prom h=$TMP_DIR/h.prom p0 tx0 tx1

	mx_needs
	trap kill_watch EXIT
	quiet_sender
	l=$(list a.txt "$BW_A4")
	start_watch "${SEED[@]}" --metrics-listen "$MX_ADDR" --metrics-file "$m" \
		--interval 3600 "$l"
	wait_line "$WATCH_OUT" "^$BW_RX: serving the metrics on $MX_URL\$"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	mx_wait "$MX_URL" "$h" 'get("bloomwall_watch_reloads_total", result="ok")' "[1.0]"
	assert_eq "$(mx_status "$h")" 200 "GET /metrics"
	assert_grep "$h.h" $'^Content-Type: text/plain; version=0\\.0\\.4; charset=utf-8\r$' \
		"the exposition's content type"
	cmp "$m" "$h" || fail "the served exposition is not the metrics file's"
	p0=$(prom "$h" 'int(sum(get("bloomwall_packets_total")))')
	tx0=$(tx_frames)
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	tx1=$(tx_frames)
	# Rendered again after a rebuild (and at each tick).
	kill -HUP "$WATCH_PID"
	mx_wait "$MX_URL" "$h" 'get("bloomwall_watch_reloads_total", result="ok")' "[2.0]"
	assert_eq "$(prom "$h" 'int(sum(get("bloomwall_packets_total")))')" \
		$((p0 + tx1 - tx0)) "the served packets_total follows the frames sent"
	assert_eq "$(prom "$h" 'get("bloomwall_packets_total", verdict="drop", reason="address", family="ipv4")')" \
		"[3.0]" "the 3 dropped requests"
	assert_eq "$(prom "$h" 'get("bloomwall_filter_generation")')" "[2.0]" "generation 2"
	assert_eq "$(prom "$h" 'get("bloomwall_watch_filter_generation")')" "[2.0]" \
		"the generation the watch put in"
	cmp "$m" "$h" || fail "the served exposition is not the metrics file's after a rebuild"

	mx_get "$MX_URL" "$h" -I || fail "HEAD /metrics"
	assert_eq "$(mx_status "$h")" 200 "HEAD /metrics"
	mx_get "http://$MX_ADDR/" "$h" || fail "GET /"
	assert_eq "$(mx_status "$h")" 404 "another path"
	mx_get "http://$MX_ADDR/metrics/x" "$h" || fail "GET /metrics/x"
	assert_eq "$(mx_status "$h")" 404 "a path under /metrics"
	mx_get "$MX_URL" "$h" -X POST -d x=1 || fail "POST /metrics"
	assert_eq "$(mx_status "$h")" 405 "another method"
	assert_grep "$h.h" $'^Allow: GET, HEAD\r$' "405 names the methods"
	stop_watch TERM
	mx_get "$MX_URL" "$h" 2>/dev/null && fail "/metrics still answers after the watch ended"
	return 0
}

mx_prom_stop()
{
	kill_watch
	[ -n "${PROM_PID:-}" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID"
	PROM_PID=
	return 0
}

# mx_query EXPR: the value of Prometheus's instant query EXPR (the first
# series'), or "none".
mx_query()
{
	curl -sS -m 10 -G --data-urlencode "query=$1" \
		"http://$PROM_ADDR/api/v1/query" |
		python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "none")'
}

# mx_query_wait EXPR WANT: until the query gives WANT (60 s bound).
mx_query_wait()
{
	local i got=

	for i in $(seq 300); do
		got=$(mx_query "$1" 2>/dev/null)
		[ "$got" = "$2" ] && return 0
		sleep 0.2
	done
	sed 's/^/  p /' "$TMP_DIR/prom/prometheus.log" | tail -20
	fail "Prometheus: $1 is '$got', not '$2', after 60 s"
}

# Debian's Prometheus, with a configuration and a data directory of the
# test's own, scrapes the watch every second; its HTTP API gives the
# bloomwall series back, with the drops counted; the alert rules load
# and evaluate on them.
test_metrics_prometheus()
{
	local l d=$TMP_DIR/prom i

	mx_needs
	command -v prometheus >/dev/null || skip "no prometheus (Debian package prometheus)"
	trap mx_prom_stop EXIT
	PROM_ADDR=127.0.0.1:19090
	quiet_sender
	l=$(list a.txt "$BW_A4")
	start_watch "${SEED[@]}" --metrics-listen "$MX_ADDR" --interval 0.5 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	mkdir -p "$d/data"
	cat >"$d/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $MX_RULES
scrape_configs:
  - job_name: bloomwall
    static_configs:
      - targets: ['$MX_ADDR']
EOF
	echo "+ prometheus --config.file=$d/prometheus.yml ... &"
	prometheus --config.file="$d/prometheus.yml" --storage.tsdb.path="$d/data" \
		--web.listen-address="$PROM_ADDR" >"$d/prometheus.log" 2>&1 &
	PROM_PID=$!
	for i in $(seq 300); do
		curl -sf -o /dev/null "http://$PROM_ADDR/-/ready" && break
		kill -0 "$PROM_PID" 2>/dev/null || break
		sleep 0.2
	done
	curl -sf -o /dev/null "http://$PROM_ADDR/-/ready" || {
		sed 's/^/  p /' "$d/prometheus.log" | tail -20
		fail "Prometheus did not come up"
	}
	mx_query_wait 'up{job="bloomwall"}' 1
	mx_query_wait "bloomwall_attached{iface=\"$BW_RX\"}" 1
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	# The watch renders it at its next tick, Prometheus scrapes it.
	mx_query_wait "bloomwall_packets_total{iface=\"$BW_RX\",verdict=\"drop\",reason=\"address\",family=\"ipv4\"}" 3
	mx_query_wait "bloomwall_filter_entries{job=\"bloomwall\",iface=\"$BW_RX\"}" 1
	# The rules loaded, and none fails to evaluate on these series.
	curl -sS -m 10 "http://$PROM_ADDR/api/v1/rules" >"$d/rules.json"
	python3 - "$d/rules.json" <<'EOF' || fail "the alert rules are not loaded and healthy"
import json, sys
rules = [r for g in json.load(open(sys.argv[1]))["data"]["groups"]
         for r in g["rules"]]
print("  rules loaded:", len(rules))
bad = [(r["name"], r.get("lastError")) for r in rules if r["health"] == "err"]
assert len(rules) >= 10 and not bad, bad
EOF
	stop_watch TERM
	mx_query_wait 'up{job="bloomwall"}' 0
}

# A peer that connects and sends nothing, and one that sends half a
# request: a scrape still gets its answer, and SIGTERM ends the watch
# within a second, their connections closed. Over IPv6 ([::1]:PORT).
test_metrics_slow_peer()
{
	local l h=$TMP_DIR/h.prom t0 t1 rc addr='[::1]:60607'

	mx_needs
	trap 'kill_watch; [ -n "${SLOW_PID:-}" ] && kill "$SLOW_PID" 2>/dev/null; true' EXIT
	l=$(list a.txt "$BW_A4")
	start_watch "${SEED[@]}" --metrics-listen "$addr" --interval 3600 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	: >"$TMP_DIR/slow.out"
	python3 - "$TMP_DIR/slow.out" <<'EOF' &
import socket, sys
out = open(sys.argv[1], "a", buffering=1)
mute = socket.create_connection(("::1", 60607))
half = socket.create_connection(("::1", 60607))
half.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
out.write("connected\n")
for s in (mute, half):
    s.settimeout(300)
    try:
        while s.recv(4096):
            pass
    except OSError:
        pass
    out.write("closed\n")
EOF
	SLOW_PID=$!
	wait_line "$TMP_DIR/slow.out" "^connected\$"
	mx_get "http://$addr/metrics" "$h" || fail "no answer while slow peers hold connections"
	assert_eq "$(mx_status "$h")" 200 "a scrape beside the slow peers"
	assert_grep "$h" "^bloomwall_attached\\{iface=\"$BW_RX\"\\} 1\$" "its exposition"
	t0=$(date +%s%N)
	kill -TERM "$WATCH_PID"
	wait "$WATCH_PID"
	rc=$?
	t1=$(date +%s%N)
	sed 's/^/  w /' "$WATCH_OUT"
	sed 's/^/  w! /' "$WATCH_ERR"
	WATCH_PID=
	echo "  SIGTERM to exit: $(((t1 - t0) / 1000000)) ms"
	assert_eq "$rc" 0 "the watch's exit status on SIGTERM"
	[ $((t1 - t0)) -lt 1000000000 ] || fail "the watch took more than a second to end"
	wait_line "$TMP_DIR/slow.out" "^closed\$" 2
	mx_get "http://$addr/metrics" "$h" 2>/dev/null && fail "/metrics still answers"
	return 0
}

# Bad addresses are refused before anything runs, each with its reason;
# a port in use too.
test_metrics_listen_bad()
{
	local l a hint="give ADDR:PORT, e.g. 127.0.0.1:60607 or [::1]:60607"

	trap '[ -n "${BUSY_PID:-}" ] && kill "$BUSY_PID" 2>/dev/null; true' EXIT
	l=$(list a.txt "$BW_A4")
	bw 2 watch "$BW_RX" --metrics-listen localhost:60607 "$l"
	assert_line "$ERR" "bloomwall watch: --metrics-listen 'localhost:60607': ADDR is not an IPv4 address, nor an IPv6 one in brackets (no names); $hint" \
		"a name"
	bw 2 watch "$BW_RX" --metrics-listen ::1:60607 "$l"
	assert_line "$ERR" "bloomwall watch: --metrics-listen '::1:60607': ADDR is not an IPv4 address, nor an IPv6 one in brackets (no names); $hint" \
		"IPv6 without brackets"
	for a in 127.0.0.1 '[::1]' 127.0.0.1:; do
		bw 2 watch "$BW_RX" --metrics-listen "$a" "$l"
		assert_line "$ERR" "bloomwall watch: --metrics-listen '$a': no :PORT at its end; $hint" \
			"no port: $a"
	done
	for a in 127.0.0.1:0 127.0.0.1:65536 127.0.0.1:80x '[::1]:123456'; do
		bw 2 watch "$BW_RX" --metrics-listen "$a" "$l"
		assert_line "$ERR" "bloomwall watch: --metrics-listen '$a': the port is not a number 1-65535; $hint" \
			"a bad port: $a"
	done
	assert_detached
	# An address of no interface here, and a port another holds.
	bw 1 watch "$BW_RX" --metrics-listen 192.0.2.1:60607 "$l"
	assert_line "$ERR" "bloomwall watch: --metrics-listen 192.0.2.1:60607: cannot listen there: Cannot assign requested address" \
		"an address not on this host"
	# SO_REUSEADDR: the earlier tests' connections may linger in TIME_WAIT.
	python3 -c 'import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 60607))
s.listen()
open(sys.argv[1], "w").write("listening\n")
time.sleep(300)' "$TMP_DIR/busy.out" &
	BUSY_PID=$!
	for a in $(seq 100); do
		grep -qx listening "$TMP_DIR/busy.out" 2>/dev/null && break
		kill -0 "$BUSY_PID" 2>/dev/null || break
		sleep 0.1
	done
	grep -qx listening "$TMP_DIR/busy.out" 2>/dev/null ||
		fail "the test's own listener on $MX_ADDR did not come up"
	bw 1 watch "$BW_RX" --metrics-listen "$MX_ADDR" "$l"
	assert_line "$ERR" "bloomwall watch: --metrics-listen $MX_ADDR: cannot listen there: Address already in use" \
		"a port in use"
	assert_detached
}

# libmicrohttpd is not linked but opened when the server starts
# (user/net/dl_libs.c): where it cannot be loaded, --metrics-listen fails
# naming it and its Debian package, and nothing is attached.
test_metrics_listen_no_lib()
{
	local lib=$TMP_DIR/lib l

	readelf -d "$BLOOMWALL" >"$TMP_DIR/dynamic" || fail "readelf -d $BLOOMWALL"
	assert_grep "$TMP_DIR/dynamic" '\(NEEDED\) .*\[libc\.so\.6\]$' "readelf lists what is linked"
	grep -E '\(NEEDED\) .*\[libmicrohttpd' "$TMP_DIR/dynamic" && fail "libmicrohttpd is linked"
	mkdir -p "$lib"
	: >"$lib/libmicrohttpd.so.12"
	l=$(list a.txt "$BW_A4")
	LD_LIBRARY_PATH=$lib bw 1 watch "$BW_RX" --metrics-listen "$MX_ADDR" "$l"
	assert_line "$ERR" "bloomwall watch: --metrics-listen $MX_ADDR: libmicrohttpd.so.12 cannot be loaded (Debian package libmicrohttpd12): $lib/libmicrohttpd.so.12: file too short" \
		"the server names the library and its package"
	assert_detached
}

# promtool accepts the alert rules and their tests pass
# (tests/prom/bloomwall.rules.test.yml); the dashboard is JSON with a
# data source variable every query goes through.
test_metrics_rules()
{
	command -v promtool >/dev/null || skip "no promtool (Debian package prometheus)"
	promtool check rules "$MX_RULES" || fail "promtool check rules refuses $MX_RULES"
	(cd "$TOP/tests/prom" && promtool test rules bloomwall.rules.test.yml) ||
		fail "promtool test rules: the alerts' tests fail"
	python3 - "$MX_DASH" <<'EOF' || fail "the dashboard's data source"
import json, sys
d = json.load(open(sys.argv[1]))
v = [t for t in d["templating"]["list"] if t["type"] == "datasource"]
assert v and v[0]["query"] == "prometheus", "no Prometheus data source variable"
ds = "${%s}" % v[0]["name"]
n = 0
for p in d["panels"]:
    assert p["datasource"]["uid"] == ds, p["title"]
    for t in p["targets"]:
        assert t["datasource"]["uid"] == ds and t["expr"], p["title"]
        n += 1
print("  %d panels, %d queries through %s" % (len(d["panels"]), n, ds))
EOF
}

# mx_names FILE...: the metric names of the expositions.
mx_names()
{
	sed -n 's/^\(bloomwall_[a-z0-9_]*\)[{ ].*/\1/p' "$@" | sort -u
}

# Every bloomwall series the rules and the dashboard name is served by a
# running watch: one with lists and a CrowdSec source (a fake LAPI), one
# that pulls an image (from nowhere: the pull's series all the same).
test_metrics_names()
{
	local l h=$TMP_DIR/h.prom names=$TMP_DIR/names used missing

	mx_needs
	trap fake_cleanup EXIT
	(umask 077 && echo 0123456789abcdef0123456789abcdef >"$TMP_DIR/fake.key")
	fake_lapi ok
	l=$(list a.txt "$BW_A4")
	start_watch "${SEED[@]}" --metrics-listen "$MX_ADDR" --interval 0.5 \
		--crowdsec "$FAKE_URL" --crowdsec-key-file "$TMP_DIR/fake.key" \
		--update-frequency 0.5 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	mx_wait "$MX_URL" "$h" 'int(sum(get("bloomwall_decisions")))' 1
	cp "$h" "$TMP_DIR/cs.prom"
	stop_watch TERM
	bw 0 detach "$BW_RX"
	start_watch --metrics-listen "$MX_ADDR" --interval 60 \
		--state-dir "$TMP_DIR/pull" --url http://127.0.0.1:9/bloomwall.img
	mx_wait "$MX_URL" "$h" 'int(sum(get("bloomwall_pull_total", result="failed")))' 1
	cp "$h" "$TMP_DIR/pull.prom"
	stop_watch TERM
	# A list by URL (url_tests.sh's nginx): the bloomwall_source_* series.
	trap 'fake_cleanup; url_nginx_stop' EXIT
	url_nginx_start
	printf '%s\n' "$BW_B4" >"$TMP_DIR/www/l.txt"
	start_watch "${SEED[@]}" --metrics-listen "$MX_ADDR" --interval 0.5 \
		--state-dir "$TMP_DIR/src" "$URL_SRV/l.txt"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	mx_wait "$MX_URL" "$h" 'int(sum(get("bloomwall_source_entries")))' 1
	cp "$h" "$TMP_DIR/src.prom"
	stop_watch TERM
	url_nginx_stop
	mx_names "$TMP_DIR/cs.prom" "$TMP_DIR/pull.prom" "$TMP_DIR/src.prom" >"$names"
	echo "  $(wc -l <"$names") metric names served"
	python3 - "$MX_RULES" "$MX_DASH" >"$TMP_DIR/used" <<'EOF'
import json, re, sys, yaml
exprs = [r["expr"] for g in yaml.safe_load(open(sys.argv[1]))["groups"]
         for r in g["rules"]]
exprs += [t["expr"] for p in json.load(open(sys.argv[2]))["panels"]
          for t in p["targets"]]
exprs += [t["definition"] for t in json.load(open(sys.argv[2]))["templating"]["list"]
          if t["type"] == "query"]
for n in sorted({m for e in exprs for m in re.findall(r"\bbloomwall_[a-z0-9_]+", e)}):
    print(n)
EOF
	used=$(wc -l <"$TMP_DIR/used")
	echo "  $used metric names in the rules and the dashboard"
	[ "$used" -ge 20 ] || fail "too few names read from the rules and the dashboard"
	missing=$(comm -23 "$TMP_DIR/used" "$names")
	[ -z "$missing" ] || fail "named but not served: $(echo "$missing" | tr '\n' ' ')"
}
