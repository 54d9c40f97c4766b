# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of operations (issue 12, items 2, 3 and 5): the watch
# daemon (lists replaced by rename and edited in place, a bad list, an
# image, runtime adds past twice the target, SIGTERM with and without
# --detach-on-exit), stats and its Prometheus exposition (checked with
# promtool and against the frames sent through the veth), the metrics file,
# the estimated false-positive rate against the measured one, the systemd
# unit (systemd-analyze verify), bash completion (compgen), allow and
# unallow of names, and of addresses and names together, all or nothing
# when a step fails (strace's injection),
# and the bpf() calls a verb makes (strace's count).
# Sourced by tests/e2e/run.sh, whose helpers (bw, list, json, kv, fail,
# skip, assert_eq, assert_line, assert_grep, expect_*, generation) and
# topology they use: bloomwall on $BW_RX, pings from the sender's A, B, C.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $OPS_TESTS"

# shellcheck disable=SC2034 # read by run.sh
OPS_TESTS="test_watch_lists test_watch_json test_watch_image test_watch_adds_rebuild
test_stats_verb test_metrics_file test_fpr_estimate test_systemd_unit
test_completion test_unit_syscalls test_allow_name_all_or_nothing
test_allow_mixed_all_or_nothing test_verb_syscalls"

# wait_line FILE ERE [N]: waits until FILE has N lines (default 1)
# matching ERE; the test fails if the watch died first. Not a time
# threshold: the bound (60 s) only keeps a broken watch from hanging the
# run.
wait_line()
{
	local n=${3:-1} i

	for i in $(seq 600); do
		[ "$(grep -cE -- "$2" "$1")" -ge "$n" ] && return 0
		if [ -n "${WATCH_PID:-}" ] && ! kill -0 "$WATCH_PID" 2>/dev/null; then
			sed 's/^/  w /' "$1"
			sed 's/^/  w! /' "${WATCH_ERR:-/dev/null}"
			fail "the watch exited before /$2/ (x$n) in $(basename "$1")"
		fi
		sleep 0.1
	done
	sed 's/^/  w /' "$1"
	fail "no /$2/ (x$n) in $(basename "$1") after 60 s"
}

# start_watch ARGS...: bloomwall watch $BW_RX ARGS... in the background,
# its output in $WATCH_OUT (stdout) and $WATCH_ERR (stderr).
start_watch()
{
	WATCH_OUT=$TMP_DIR/watch.out
	WATCH_ERR=$TMP_DIR/watch.err
	echo "+ bloomwall watch $BW_RX $* &"
	# Emptied here, not by the background job's redirection: a wait_line
	# right after must not read the last watch's lines.
	: >"$WATCH_OUT"
	: >"$WATCH_ERR"
	"$BLOOMWALL" watch "$BW_RX" "$@" >>"$WATCH_OUT" 2>>"$WATCH_ERR" &
	WATCH_PID=$!
}

# stop_watch SIGNAL: the watch must exit 0 on it.
stop_watch()
{
	local rc

	kill -"$1" "$WATCH_PID"
	wait "$WATCH_PID"
	rc=$?
	sed 's/^/  w /' "$WATCH_OUT"
	sed 's/^/  w! /' "$WATCH_ERR"
	WATCH_PID=
	assert_eq "$rc" 0 "the watch's exit status on SIG$1"
}

# A test that fails with a watch running must not leave it behind.
kill_watch()
{
	[ -z "${WATCH_PID:-}" ] && return 0
	kill -KILL "$WATCH_PID" 2>/dev/null
	# Gone before the harness's detach, which clears a dead watch's lock
	# directory but not a live one's.
	wait "$WATCH_PID" 2>/dev/null
	sed 's/^/  w /' "$WATCH_OUT"
	sed 's/^/  w! /' "$WATCH_ERR"
	WATCH_PID=
	return 0
}

# query_is ADDR VERDICT: what the running filter says of ADDR.
query_is()
{
	bw 0 query "$BW_RX" "$1"
	assert_grep "$OUT" "^$1  $2( |\$)" "query $1"
}

RELOAD_OK='^bwr-[0-9a-f]+: reload ok: generation [0-9]+, [0-9,]+ entries, [0-9,]+ bytes, [0-9.]+ s \('

test_watch_lists()
{
	local d=$TMP_DIR/lists l

	trap kill_watch EXIT
	mkdir -p "$d"
	l=$d/block.txt
	printf '%s\n' "$BW_A4" >"$l"
	start_watch "${SEED[@]}" --debounce 0.2 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	assert_grep "$WATCH_OUT" "^$BW_RX: reload ok: generation 1, 1 entries, [0-9,]+ bytes, [0-9.]+ s \\(start\\)\$" \
		"the first line: attached at start"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"

	# rsync's way: a temporary file in the directory, renamed into place.
	printf '%s\n' "$BW_B4" >"$d/.block.txt.tmp"
	mv "$d/.block.txt.tmp" "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	assert_grep "$WATCH_OUT" "^$BW_RX: reload ok: generation 2, 1 entries, [0-9,]+ bytes, [0-9.]+ s \\(change of $l\\)\$" \
		"the rename is seen"
	assert_eq "$(generation)" 2 "generation after the rename"
	query_is "$BW_B4" drop
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"

	# An edit in place (a shell's >>, an editor that writes in place).
	printf '%s\n' "$BW_C4" >>"$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 3
	assert_grep "$WATCH_OUT" "^$BW_RX: reload ok: generation 3, 2 entries, " \
		"the edit in place is seen"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4

	# A bad list: the last good filter stays, and the watch says so.
	printf '%s\n' "$BW_A4" 10.77.0.300 >"$d/.block.txt.tmp"
	mv "$d/.block.txt.tmp" "$l"
	wait_line "$WATCH_OUT" "reload FAILED"
	assert_grep "$WATCH_OUT" "^$BW_RX: reload FAILED after [0-9.]+ s \\(change of $l\\): the last good filter stays \\(generation 3\\); fix the file and it is tried again\$" \
		"the failure says the last good filter stays"
	assert_line "$WATCH_ERR" "$l:2: not an IP address: \"10.77.0.300\"" \
		"the reason, file:line"
	assert_eq "$(generation)" 3 "generation after the bad list"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"

	# Fixed: tried again, and taken.
	printf '%s\n' "$BW_A4" >"$d/.block.txt.tmp"
	mv "$d/.block.txt.tmp" "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 4
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_C4" "$BW_RX4"

	stop_watch TERM
	assert_line "$WATCH_OUT" \
		"$BW_RX: watch stopped (SIGTERM); the filter stays attached (generation 4)" \
		"SIGTERM says the filter stays"
	assert_eq "$(grep -cE "$RELOAD_OK|reload FAILED" "$WATCH_OUT")" 5 \
		"one line per reload"
	bw_has_xdp "$BW_RX" || fail "SIGTERM took the filter off"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
}

# watch --json: one JSON object a line per reload, through the output
# layer's records; Python reads every line back.
test_watch_json()
{
	local d=$TMP_DIR/lists l

	trap kill_watch EXIT
	mkdir -p "$d"
	l=$d/block.txt
	printf '%s\n' "$BW_A4" >"$l"
	start_watch --json "${SEED[@]}" --debounce 0.2 "$l"
	wait_line "$WATCH_OUT" '"result":"ok"'
	printf '%s\n' "$BW_B4" "$BW_C4" >"$d/.block.txt.tmp"
	mv "$d/.block.txt.tmp" "$l"
	wait_line "$WATCH_OUT" '"result":"ok"' 2
	stop_watch TERM
	grep '^{' "$WATCH_OUT" >"$TMP_DIR/watch.json"
	python3 - "$TMP_DIR/watch.json" "$BW_RX" "$l" <<'PY' ||
import json, sys
lines = [json.loads(x) for x in open(sys.argv[1])]
iface, path = sys.argv[2], sys.argv[3]
assert len(lines) == 2, lines
want = [(1, 1, "start"), (2, 2, "change of " + path)]
for j, (gen, entries, trigger) in zip(lines, want):
    assert list(j) == ["iface", "result", "generation", "entries", "bytes",
                       "seconds", "trigger"], j
    assert j["iface"] == iface and j["result"] == "ok", j
    assert j["generation"] == gen and j["entries"] == entries, j
    assert isinstance(j["bytes"], int) and j["bytes"] > 0, j
    assert isinstance(j["seconds"], (int, float)) and j["seconds"] >= 0, j
    assert j["trigger"] == trigger, j
PY
		fail "watch --json lines"
	expect_dropped "$BW_C4" "$BW_RX4" dropped_v4
}

test_watch_image()
{
	local d=$TMP_DIR/img la lb

	trap kill_watch EXIT
	mkdir -p "$d"
	la=$(list a.txt "$BW_A4")
	lb=$(list b.txt "$BW_B4" "$BW_C4")
	bw 0 build -o "$d/filter.img" "$la"
	start_watch --debounce 0.2 --detach-on-exit --image "$d/filter.img"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	assert_grep "$WATCH_OUT" "^$BW_RX: reload ok: generation 2, 1 entries, [0-9,]+ bytes, [0-9.]+ s \\(start\\)\$" \
		"an empty filter attached, the image swapped in"
	# No lists were given: none "hold no entries".
	if grep -q "hold no entries" "$WATCH_ERR"; then
		sed 's/^/  w! /' "$WATCH_ERR"
		fail "watch --image warns of lists it was not given"
	fi
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	# build writes its image to a temporary file and renames it in place.
	bw 0 build -o "$d/filter.img" "$lb"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	assert_grep "$WATCH_OUT" "^$BW_RX: reload ok: generation 3, 2 entries, [0-9,]+ bytes, [0-9.]+ s \\(change of $d/filter.img\\)\$" \
		"the new image is swapped in"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"
	# A corrupt image: refused, the last good one stays.
	head -c 100 "$d/filter.img" >"$d/.cut"
	mv "$d/.cut" "$d/filter.img"
	wait_line "$WATCH_OUT" "reload FAILED"
	assert_grep "$WATCH_OUT" "the last good filter stays \\(generation 3\\)" \
		"a truncated image keeps the last good filter"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	stop_watch INT
	assert_line "$WATCH_OUT" \
		"$BW_RX: watch stopped (SIGINT); bloomwall detached (--detach-on-exit)" \
		"--detach-on-exit says it detached"
	assert_detached
}

# Runtime adds past twice the target rate: the watch rebuilds from the
# lists, the adds built in, and the estimate is back under the target.
test_watch_adds_rebuild()
{
	local l n=2000 gen

	trap kill_watch EXIT
	l=$TMP_DIR/many.txt
	ops_addrs 11 $n 0 >"$l"
	start_watch "${SEED[@]}" --fpr 0.01 --interval 0.2 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	# Three times the entries, in one add: far past twice the target.
	# shellcheck disable=SC2046 # one address a word
	"$BLOOMWALL" add "$BW_RX" $(ops_addrs 12 $((3 * n)) 0) >/dev/null ||
		fail "add failed"
	# Handed to the watch, live: past twice the target in place, the
	# watch answers busy and first rebuilds with room for them (its
	# lists' entries built in, the adds kept live), then sets them.
	wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	assert_grep "$WATCH_OUT" "^$BW_RX: reload ok: generation [0-9]+, 2000 entries, [0-9,]+ bytes, [0-9.]+ s \\(live entries: the filter's IPv4 addresses would be past its target false-positive rate \\(about [0-9.]+% where it is sized for 1%\\)\\)\$" \
		"the rebuild names its trigger"
	bw 0 -j status "$BW_RX"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))[0]["filter"]
assert d["est_fpr"]["ipv4"] <= d["target_fpr"], d["est_fpr"]
assert d["added_kept"] == 6000, d["added_kept"]' "$OUT" ||
		fail "after the rebuild: the estimate is not under the target, or adds were lost"
	gen=$(generation)
	stop_watch TERM
	assert_line "$WATCH_OUT" \
		"$BW_RX: watch stopped (SIGTERM); the filter stays attached (generation $gen)" \
		"SIGTERM"
}

# ops_addrs SEED N SKIP: N distinct IPv4 addresses of 100.64.0.0/10 and
# 198.18.0.0/15 that no other SEED draws (the seed picks a sub-range).
ops_addrs()
{
	python3 - "$@" <<'EOF'
import random, sys
seed, n, skip = (int(a) for a in sys.argv[1:4])
rng = random.Random(seed)
base = 0x64400000 + (seed % 16) * 0x40000  # 100.64.0.0/10 in sixteenths
for a in rng.sample(range(base, base + 0x40000), skip + n)[skip:]:
    print("%d.%d.%d.%d" % (a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255))
EOF
}

# tx_frames: frames the sender's end of the pair has sent, each of which
# meets the XDP program on $BW_RX.
tx_frames()
{
	ip -n "$BW_NS" -s -j link show dev "$BW_TX" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["stats64"]["tx"]["packets"])'
}

# quiet_sender: no IPv6 from the sender (MLD reports, router
# solicitations come when they will), so that only the test's frames cross.
quiet_sender()
{
	nsenter --net="/run/netns/$BW_NS" \
		sysctl -qw "net.ipv6.conf.$BW_TX.disable_ipv6=1"
}

# prom FILE EXPR: EXPR (Python) on s, the samples of the exposition in FILE
# as {(name, ((label, value), ...)): value}, after promtool has checked it.
prom()
{
	promtool check metrics <"$1" >"$TMP_DIR/promtool.out" 2>&1 || {
		sed 's/^/  p /' "$TMP_DIR/promtool.out"
		fail "promtool check metrics refuses $(basename "$1")"
	}
	python3 - "$1" "$2" <<'EOF'
import re, sys
s = {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    m = re.fullmatch(r'([a-z_]+)\{(.*)\} (\S+)\n', line)
    labels = tuple(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
    s[(m.group(1), labels)] = float(m.group(3))
def get(name, **kw):
    return [v for (n, l), v in s.items() if n == name and all(
        (k, w) in l for k, w in kw.items())]
print(eval(sys.argv[2]))
EOF
}

# stats: the counters (text, JSON), the exposition checked by promtool and
# against the frames sent, the rates a line a second until SIGINT.
test_stats_verb()
{
	local l tx0 tx1 p0 p1 pid rc

	command -v promtool >/dev/null || skip "no promtool (Debian package prometheus)"
	quiet_sender
	l=$(list a.txt "$BW_A4" "$BW_A6")
	bw 0 attach "$BW_RX" "${SEED[@]}" "$l"
	bw 0 stats "$BW_RX" --prometheus
	cp "$OUT" "$TMP_DIR/p0.prom"
	tx0=$(tx_frames)
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	tx1=$(tx_frames)
	bw 0 stats "$BW_RX" --prometheus
	cp "$OUT" "$TMP_DIR/p1.prom"
	p0=$(prom "$TMP_DIR/p0.prom" 'int(sum(get("bloomwall_packets_total")))')
	p1=$(prom "$TMP_DIR/p1.prom" 'int(sum(get("bloomwall_packets_total")))')
	echo "  frames sent $((tx1 - tx0)), packets_total rose $((p1 - p0))"
	assert_eq $((p1 - p0)) $((tx1 - tx0)) \
		"bloomwall_packets_total counts every frame sent through the veth"
	assert_eq "$(prom "$TMP_DIR/p1.prom" 'int(get("bloomwall_packets_total", verdict="drop", family="ipv4")[0])')" 3 \
		"the dropped IPv4 requests"
	assert_eq "$(prom "$TMP_DIR/p1.prom" 'len(get("bloomwall_packets_total"))')" 11 \
		"the series of packets_total"
	assert_eq "$(prom "$TMP_DIR/p1.prom" 'int(sum(get("bloomwall_packets_total", verdict="drop", reason="dns")))')" 0 \
		"no DNS drops: the address drops are every drop"
	assert_eq "$(prom "$TMP_DIR/p1.prom" 'int(sum(get("bloomwall_log_events_total")))')" 3 \
		"the drop log's events: the 3 dropped requests, logged or lost"
	assert_eq "$(prom "$TMP_DIR/p1.prom" 'get("bloomwall_filter_generation")')" "[1.0]" "generation gauge"
	assert_eq "$(prom "$TMP_DIR/p1.prom" 'get("bloomwall_filter_entries")')" "[2.0]" "entries gauge"
	assert_eq "$(prom "$TMP_DIR/p1.prom" 'sorted(dict(l)["family"] + "/" + dict(l)["prefix"] for (n, l) in s if n == "bloomwall_region_fill_ratio")')" \
		"['ipv4/32', 'ipv6/128']" "a fill gauge per region"
	assert_grep "$TMP_DIR/p1.prom" "^bloomwall_packets_total\\{iface=\"$BW_RX\",verdict=\"drop\",reason=\"address\",family=\"ipv4\"\\} 3\$" \
		"the series as the issue names it"

	bw 0 stats "$BW_RX"
	assert_kv "$OUT" dropped_v4 3 "stats text"
	bw 0 stats --json "$BW_RX"
	assert_eq "$(json "$OUT" 'd["counters"]["dropped_v4"]')" 3 "stats JSON"
	bw 2 stats "$BW_RX" --prometheus --json
	assert_line "$ERR" \
		"bloomwall stats: --prometheus writes the counters themselves; it goes with neither --json nor --interval" \
		"--prometheus with --json"

	# Rates: every frame sent shows up in rate x seconds, summed over lines.
	"$BLOOMWALL" stats --json --interval 0.2 "$BW_RX" >"$TMP_DIR/rates" &
	pid=$!
	tx0=$(tx_frames)
	wait_line "$TMP_DIR/rates" '"rates"' 1
	p0=$(wc -l <"$TMP_DIR/rates")
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	wait_line "$TMP_DIR/rates" '"rates"' $((p0 + 2))
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	assert_eq "$rc" 0 "stats --interval exits 0 on SIGINT"
	python3 - "$TMP_DIR/rates" "$p0" <<'EOF' || fail "the rates do not add up to the 3 dropped requests"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2]) - 1:]
d = round(sum(l["rates"]["dropped_v4"] * l["seconds"] for l in lines))
print("  dropped_v4 from the rates:", d)
assert d == 3
EOF
}

# watch --metrics-file: promtool accepts it, it is rewritten after each
# reload (generation, reload counts) and its counters follow the frames.
test_metrics_file()
{
	local l m=$TMP_DIR/prom/bloomwall.prom tx0 tx1 p0 p1 gen

	command -v promtool >/dev/null || skip "no promtool (Debian package prometheus)"
	trap kill_watch EXIT
	quiet_sender
	mkdir -p "$TMP_DIR/prom"
	l=$(list a.txt "$BW_A4")
	start_watch "${SEED[@]}" --metrics-file "$m" --interval 3600 "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	wait_line "$m" "^bloomwall_watch_reloads_total"
	assert_eq "$(prom "$m" 'get("bloomwall_watch_reloads_total", result="ok")')" "[1.0]" "one reload ok"
	assert_eq "$(prom "$m" 'get("bloomwall_filter_generation")')" "[1.0]" "generation 1"
	p0=$(prom "$m" 'int(sum(get("bloomwall_packets_total")))')
	tx0=$(tx_frames)
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	tx1=$(tx_frames)
	# SIGHUP: a rebuild, and the file written after it.
	kill -HUP "$WATCH_PID"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	assert_grep "$WATCH_OUT" "^$BW_RX: reload ok: generation 2, .*\\(SIGHUP\\)\$" "SIGHUP rebuilds"
	wait_line "$m" '^bloomwall_watch_reloads_total\{.*result="ok"\} 2$'
	p1=$(prom "$m" 'int(sum(get("bloomwall_packets_total")))')
	assert_eq $((p1 - p0)) $((tx1 - tx0)) "the file's packets_total follows the frames sent"
	assert_eq "$(prom "$m" 'get("bloomwall_filter_generation")')" "[2.0]" "generation 2 in the file"
	assert_eq "$(prom "$m" 'get("bloomwall_watch_last_reload_success")')" "[1.0]" "last reload ok"
	assert_eq "$(prom "$m" 'len(get("bloomwall_watch_last_reload_duration_seconds"))')" 1 "last duration"
	# A failed reload counts as failed.
	printf '%s\n' bogus >"$l"
	wait_line "$WATCH_OUT" "reload FAILED"
	wait_line "$m" '^bloomwall_watch_reloads_total\{.*result="failed"\} 1$'
	assert_eq "$(prom "$m" 'get("bloomwall_watch_last_reload_success")')" "[0.0]" "last reload failed"
	gen=$(prom "$m" 'int(get("bloomwall_filter_generation")[0])')
	assert_eq "$gen" 2 "the failed reload kept generation 2"
	[ -z "$(find "$TMP_DIR/prom" -name '.*')" ] || fail "a temporary file was left"
	stop_watch TERM
}

# The estimated rate (what status and stats report) against the measured
# one, with 50 %, 100 % and 150 % more entries added than the filter was
# built for (the first add grows it with room for the adds, the others
# fill that room): within 20 % at each step. A target of 20 %, so that
# the 40,000 unlisted addresses meet hundreds of false positives even in
# the grown filter (450 at the first step: its noise about 5 %).
test_fpr_estimate()
{
	local l n=4000 step added=0 est meas probes=$TMP_DIR/probes.txt

	l=$TMP_DIR/sized.txt
	ops_addrs 3 $n 0 >"$l"
	ops_addrs 5 40000 0 >"$probes" # unlisted: another sixteenth
	bw 0 attach "$BW_RX" "${SEED[@]}" --fpr 0.2 "$l"
	for step in 50 100 150; do
		# shellcheck disable=SC2046 # one address a word
		"$BLOOMWALL" add "$BW_RX" $(ops_addrs 4 $((n * step / 100)) 0 |
			tail -n +$((added + 1))) >/dev/null || fail "add failed"
		added=$((n * step / 100))
		bw 0 -j status "$BW_RX"
		est=$(json "$OUT" 'd[0]["filter"]["est_fpr"]["ipv4"]')
		meas=$(xargs -n 5000 "$BLOOMWALL" query "$BW_RX" <"$probes" |
			awk '$2 == "drop" { d++ } END { print d / NR }')
		bw 0 stats --prometheus "$BW_RX"
		assert_eq "$(prom "$OUT" 'round(get("bloomwall_filter_estimated_fpr", family="ipv4")[0], 6)')" \
			"$(python3 -c "print(round($est, 6))")" "stats reports what status reports"
		echo "  +$step %: $((n + added)) entries, estimated $est, measured $meas over 40,000 unlisted, $(prom "$OUT" 'get("bloomwall_filter_entries")[0]') keys set, sized $(prom "$OUT" 'get("bloomwall_filter_sized_entries")[0]')"
		python3 -c "import sys; e, m = $est, $meas
sys.exit(abs(e - m) > 0.2 * m)" ||
			fail "at +$step %: estimated $est is not within 20 % of measured $meas"
	done
	assert_eq "$(prom "$OUT" 'get("bloomwall_filter_added_entries")')" "[6000.0]" "added entries kept"
	# Sized (recorded by the build that grew it) for more than it holds;
	# the ratio is the keys set over that.
	prom "$OUT" '(get("bloomwall_filter_sized_entries")[0] >= get("bloomwall_filter_entries")[0] and
abs(get("bloomwall_filter_entries_over_sized_ratio")[0] - get("bloomwall_filter_entries")[0] / get("bloomwall_filter_sized_entries")[0]) < 1e-5)' |
		grep -qx True || fail "the grown filter is not sized for the 10,000 entries it holds"
}

# The unit passes systemd-analyze verify (ExecStart pointed at this build:
# verify checks the binary is there), with no warning; a unit whose binary
# is missing does not, so the check bites.
test_systemd_unit()
{
	local d=$TMP_DIR/unit

	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	mkdir -p "$d"
	sed "s|/usr/sbin/bloomwall|$BLOOMWALL|" "$TOP/scripts/bloomwall@.service" \
		>"$d/bloomwall@.service"
	cp "$d/bloomwall@.service" "$d/bloomwall@$BW_RX.service"
	(cd "$d" && systemd-analyze verify --man=no "bloomwall@$BW_RX.service") \
		>"$OUT" 2>&1
	assert_eq "$?" 0 "systemd-analyze verify"
	sed 's/^/  | /' "$OUT"
	[ -s "$OUT" ] && fail "systemd-analyze verify warns"
	sed "s|$BLOOMWALL|/nonexistent/bloomwall|" "$d/bloomwall@.service" \
		>"$d/bloomwall@$BW_RX.service"
	(cd "$d" && systemd-analyze verify --man=no "bloomwall@$BW_RX.service") \
		>"$OUT" 2>&1 && fail "verify passes a unit without its binary"
	assert_grep "$OUT" "/nonexistent/bloomwall is not executable" "verify names the binary"
	# What the verbs need, and nothing else.
	assert_line "$TOP/scripts/bloomwall@.service" \
		"CapabilityBoundingSet=CAP_SYS_ADMIN CAP_NET_ADMIN" "capabilities"
}

# Bash completion (compgen; no root needed): verbs, each verb's options
# exactly as its --help lists them, interfaces, values.
test_completion()
{
	local v want got

	# comp WORDS...: the completions of the last word, one line.
	comp()
	{
		bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
_bloomwall; printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' \
			_ "$TOP/scripts/bloomwall.bash-completion" "$@"
	}
	got=$(comp bloomwall "")
	for v in attach reload status query add remove allow unallow detach \
		build inspect load watch stats log keygen config; do
		[[ " $got " == *" $v "* ]] || fail "verb $v not completed: $got"
		want=$("$BLOOMWALL" "$v" --help | sed -n '/^Options:/,/^$/p' |
			grep -oE -- '^ +(-[a-zA-Z], )?--[a-z-]+' |
			grep -oE -- '--[a-z-]+' | sort | tr '\n' ' ')
		assert_eq "$(comp bloomwall "$v" --)" "$want" "the options of $v"
	done
	assert_eq "$(comp bloomwall wat)" "watch " "a verb's start"
	[[ " $(comp bloomwall watch "") " == *" $BW_RX "* ]] ||
		fail "the interface $BW_RX is not completed"
	assert_eq "$(comp bloomwall attach "$BW_RX" --mode "")" "auto native skb " "--mode values"
	assert_eq "$(comp bloomwall stats --p)" "--prometheus " "an option's start"
	assert_eq "$(comp bloomwall config "")" "check show " "config's actions"
}

# The unit's SystemCallFilter holds every system call a watch makes (attach,
# a rebuild after a rename, the metrics file, SIGTERM with
# --detach-on-exit, all traced with strace), its RestrictAddressFamilies
# every socket's family, and MemoryDenyWriteExecute holds: no mapping
# both writable and executable.
test_unit_syscalls()
{
	local l m=$TMP_DIR/m.prom st=$TMP_DIR/syscalls.d/strace pid bad

	command -v strace >/dev/null || skip "no strace"
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	trap kill_watch EXIT
	# The trace outside the watched directory: each of its writes would
	# be an event, each event read a line more of it.
	mkdir -p "$TMP_DIR/syscalls.d"
	l=$(list a.txt "$BW_A4")
	WATCH_OUT=$TMP_DIR/watch.out
	WATCH_ERR=$TMP_DIR/watch.err
	: >"$WATCH_OUT"
	: >"$WATCH_ERR"
	strace -f -qq -o "$st" "$BLOOMWALL" watch "$BW_RX" "${SEED[@]}" \
		--debounce 0.1 --interval 0.2 --detach-on-exit \
		--metrics-file "$m" "$l" >>"$WATCH_OUT" 2>>"$WATCH_ERR" &
	pid=$!
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	WATCH_PID=$(pgrep -P "$pid" -x bloomwall)
	[ -n "$WATCH_PID" ] || fail "no bloomwall under strace"
	printf '%s\n' "$BW_B4" >"$TMP_DIR/.a.tmp"
	mv "$TMP_DIR/.a.tmp" "$l"
	wait_line "$WATCH_OUT" "$RELOAD_OK" 2
	wait_line "$m" "^bloomwall_filter_generation"
	kill -TERM "$WATCH_PID"
	wait "$pid"
	WATCH_PID=
	assert_grep "$WATCH_OUT" "bloomwall detached \\(--detach-on-exit\\)" "detached"
	systemd-analyze syscall-filter >"$TMP_DIR/groups" 2>/dev/null
	bad=$(python3 - "$TMP_DIR/groups" "$st" "$TOP/scripts/bloomwall@.service" <<'EOF'
import re, sys
groups, cur = {}, None
for line in open(sys.argv[1]):
    w = line.strip()
    if line.startswith("@"):
        cur = groups.setdefault(w, [])
    elif w and not w.startswith("#") and cur is not None:
        cur.append(w)
def expand(g):
    out = set()
    for x in groups.get(g, []):
        out |= expand(x) if x.startswith("@") else {x}
    return out
# The unit's SystemCallFilter= lines in order: the first an allow list,
# then "~" takes out of it and the others add, as systemd reads them.
unit = open(sys.argv[3]).read()
allowed = None
for m in re.finditer(r"^SystemCallFilter=(.*)$", unit, re.M):
    words = m.group(1).split()
    neg = words[0].startswith("~")
    names = set()
    for w in [words[0].lstrip("~")] + words[1:]:
        names |= expand(w) if w.startswith("@") else {w}
    if allowed is None:
        assert not neg
        allowed = names
    elif neg:
        allowed -= names
    else:
        allowed |= names
trace = open(sys.argv[2]).read()
used = set(re.findall(r"^\d+ +([a-z_0-9]+)\(", trace, re.M))
assert len(used) > 20, used
bad = sorted(used - allowed)
# RestrictAddressFamilies=: the families of the sockets made.
families = set(re.search(r"^RestrictAddressFamilies=(.*)$", unit, re.M).group(1).split())
bad += sorted(set(re.findall(r"^\d+ +socket\((AF_[A-Z0-9]+)", trace, re.M)) - families)
# MemoryDenyWriteExecute=yes: no mapping both writable and executable.
if re.search(r"^\d+ +(mmap|mprotect|pkey_mprotect)\(.*PROT_WRITE\|PROT_EXEC", trace, re.M):
    bad.append("W+X")
print(" ".join(bad))
EOF
) || fail "cannot read the trace, the groups or the unit"
	echo "  system calls, socket families or W+X mappings the unit refuses: ${bad:-none}"
	assert_eq "$bad" "" "what the unit's filters would refuse"
}

# The names allow/unallow change; the first is in the block list.
NA_NAMES=(ads.example.com x.example.org)
# The entries one allow/unallow changes (the names, or with $BW_A4, which
# is listed too), and what a failed one says.
NA_ENTRIES=("${NA_NAMES[@]}")
NA_UNCHANGED="the name allowlist is as it was"

# na_setup VERB: a fresh filter with $BW_A4 and the first name listed; for
# unallow, the entries allowed (recorded: changed by allow).
na_setup()
{
	"$BLOOMWALL" detach "$BW_RX" >/dev/null 2>&1
	"$BLOOMWALL" attach "$BW_RX" --mode native "${SEED[@]}" \
		"$TMP_DIR/na.txt" >/dev/null 2>&1 || fail "attach failed"
	[ "$1" = allow ] ||
		"$BLOOMWALL" allow "$BW_RX" "${NA_ENTRIES[@]}" >/dev/null 2>&1 ||
		fail "allow failed"
}

# Both allowlists as query and status show them, one line: the verdicts
# on $BW_A4 and on the first name, the name map's entries, the address
# allowlist, the records' last change, and the program on the hook.
na_state()
{
	local q

	q=$("$BLOOMWALL" query "$BW_RX" "${NA_NAMES[0]}" "$BW_A4" 2>&1 | tr '\n' ' ')
	"$BLOOMWALL" status "$BW_RX" >"$TMP_DIR/na.status" 2>&1
	echo "$q| entries $(kv "$TMP_DIR/na.status" "name allow entries") | allowlist $(kv "$TMP_DIR/na.status" allowlist) | changed $(kv "$TMP_DIR/na.status" changed) | program $(hook_prog_id)"
}

# na_fail VERB SYSCALL ERE [N]: VERB of $NA_ENTRIES with SYSCALL failing
# (EPERM) at its Nth call (default 1st) whose strace line matches ERE, its
# sequence number read from a traced run of the same command first; then
# VERB has failed, said nothing changed, printed no result, and query and
# status show the state before it, map, allowlist, records and program.
na_fail()
{
	local verb=$1 sys=$2 ere=$3 nth=${4:-1} k rc before try

	for try in 1 2 3; do
		na_setup "$verb"
		strace -qq -e signal=none -o "$TMP_DIR/na.trace" -e trace="$sys" \
			"$BLOOMWALL" "$verb" "$BW_RX" "${NA_ENTRIES[@]}" >/dev/null 2>&1 ||
			fail "$verb under strace failed"
		k=$(grep -nE -- "$ere" "$TMP_DIR/na.trace" | sed -n "${nth}p" | cut -d: -f1)
		[ -n "$k" ] || fail "$verb makes no call $nth of $sys matching /$ere/"
		na_setup "$verb"
		before=$(na_state)
		echo "+ strace (the $sys #$k fails: EPERM) bloomwall $verb $BW_RX ${NA_ENTRIES[*]}"
		strace -qq -e signal=none -o "$TMP_DIR/na.inj" -e trace="$sys" \
			-e inject="$sys":error=EPERM:when="$k" \
			"$BLOOMWALL" "$verb" "$BW_RX" "${NA_ENTRIES[@]}" >"$OUT" 2>"$ERR"
		rc=$?
		sed 's/^/  | /' "$OUT"
		sed 's/^/  ! /' "$ERR"
		# The bpf calls before it vary with other processes' BPF
		# objects (the kernel's ids are global): check it hit its call.
		grep -E -- "$ere" "$TMP_DIR/na.inj" | grep -q "(INJECTED)$" && break
		echo "  the injection missed the $sys call /$ere/; again"
		[ "$try" -lt 3 ] || fail "the injection missed its call 3 times"
	done
	assert_eq "$rc" 1 "$verb with the $sys /$ere/ failing: exit status"
	assert_eq "$(na_state)" "$before" \
		"$verb with the $sys /$ere/ failing: the state before it"
	assert_line "$ERR" "$BW_RX: nothing changed: $NA_UNCHANGED" \
		"$verb with the $sys /$ere/ failing: said"
	assert_eq "$(grep -c . "$OUT")" 0 "$verb with the $sys /$ere/ failing: no result printed"
}

# allow and unallow of names change the map and the records (the filter's
# copy, swapped in) together or not at all: when the commit of the swap
# (netlink), the filter copy that carries the record or the second entry's
# change fails, the entries the command changed are put back.
test_allow_name_all_or_nothing()
{
	local verb

	command -v strace >/dev/null || skip "no strace"
	list na.txt "$BW_A4" "${NA_NAMES[0]}" >/dev/null
	for verb in allow unallow; do
		na_fail "$verb" sendto RTM_SETLINK
		na_fail "$verb" bpf 'BPF_MAP_CREATE.*map_name="bw_filter"'
	done
	na_fail allow bpf BPF_MAP_UPDATE_ELEM 2
	na_fail unallow bpf BPF_MAP_DELETE_ELEM 2
	# Nothing failing: the change, and its record.
	na_setup allow
	bw 0 allow "$BW_RX" "${NA_NAMES[@]}"
	assert_grep "$OUT" "^${NA_NAMES[0]}  allowed\$" "allowed"
	na_state >"$TMP_DIR/na.after"
	cat "$TMP_DIR/na.after"
	assert_grep "$TMP_DIR/na.after" \
		"^$BW_A4  drop .* ${NA_NAMES[0]}  pass .*\\| entries 2 \\| allowlist 0 entries \\| changed .* by allow \\(1 change since the build\\) \\| program [0-9]+\$" \
		"the change and its record"
}

# One allow or unallow of names and an address: the names change in the
# map, then one swap brings the filter copy (the record) and the new
# address allowlist. When that swap fails (its commit, or the filter
# copy) or the names' second change does, the names changed are put back
# and the address allowlist never changed: the state before it, whole.
test_allow_mixed_all_or_nothing()
{
	local verb

	command -v strace >/dev/null || skip "no strace"
	list na.txt "$BW_A4" "${NA_NAMES[0]}" >/dev/null
	NA_ENTRIES=("${NA_NAMES[0]}" "$BW_A4" "${NA_NAMES[1]}")
	NA_UNCHANGED="the allowlist and the name allowlist are as they were"
	for verb in allow unallow; do
		na_fail "$verb" sendto RTM_SETLINK
		na_fail "$verb" bpf 'BPF_MAP_CREATE.*map_name="bw_filter"'
	done
	na_fail unallow bpf BPF_MAP_DELETE_ELEM 2
	# Nothing failing: both change, in one swap.
	na_setup allow
	bw 0 allow "$BW_RX" "${NA_ENTRIES[@]}"
	assert_line "$OUT" "$BW_A4  allowed" "the address allowed"
	assert_line "$OUT" \
		"$BW_RX: 3 of 3 added (allowlist now 1 entry, name allowlist now 2 entries)" \
		"both allowlists counted"
	na_state >"$TMP_DIR/na.after"
	cat "$TMP_DIR/na.after"
	assert_grep "$TMP_DIR/na.after" \
		"^$BW_A4  pass \\(allowlisted\\) ${NA_NAMES[0]}  pass .*\\| entries 2 \\| allowlist 1 entry \\| changed .* by allow \\(1 change since the build\\) \\| program [0-9]+\$" \
		"the change, its one record"
	expect_delivered "$BW_A4" "$BW_RX4"
	bw 0 unallow "$BW_RX" "${NA_ENTRIES[@]}"
	assert_line "$OUT" \
		"$BW_RX: 3 of 3 removed (allowlist now 0 entries, name allowlist now 0 entries)" \
		"both taken out"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
}

# count_bpf TRACE CMD: how many bpf(CMD, ...) calls an strace -f trace holds.
count_bpf()
{
	grep -c "bpf($2," "$1"
}

# What runs is opened once per command, not once per map or per step: a
# reload made 290 BPF_MAP_GET_FD_BY_ID and 761 bpf() calls in all, 11 and
# 115 since (tests/bench/README.md). The bounds are three times those: a
# regression to a pass over the program's maps per map, or to opening what
# runs again at every step, fails; a map more does not. A count of system
# calls, not a time: the same on every run.
test_verb_syscalls()
{
	local a b t=$TMP_DIR/t verb n all

	command -v strace >/dev/null || skip "no strace"
	a=$(list a.txt "$BW_A4")
	b=$(list b.txt "$BW_B4")
	bw 0 attach "$BW_RX" "${SEED[@]}" "$a"
	for verb in "reload $BW_RX $b" "add $BW_RX $BW_C4" \
		"remove $BW_RX $BW_C4" "allow $BW_RX $BW_C4" "status $BW_RX"; do
		# shellcheck disable=SC2086 # the verb's words
		strace -f -qq -o "$t" "$BLOOMWALL" $verb >"$OUT" 2>"$ERR" ||
			fail "bloomwall $verb: exit $?: $(cat "$ERR")"
		n=$(count_bpf "$t" BPF_MAP_GET_FD_BY_ID)
		all=$(grep -c ' bpf(' "$t")
		echo "$verb: bpf() $all, BPF_MAP_GET_FD_BY_ID $n"
		[ "$n" -le 33 ] ||
			fail "$verb: $n BPF_MAP_GET_FD_BY_ID (at most 33)"
		[ "$all" -le 345 ] || fail "$verb: $all bpf() calls (at most 345)"
	done
}
