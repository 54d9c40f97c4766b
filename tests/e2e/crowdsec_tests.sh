# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of the CrowdSec bouncer (watch --crowdsec) against the
# real local API of Debian's crowdsec package: 'crowdsec -no-cs' (the API
# only, no central API) on 127.0.0.1 inside the test's own network
# namespace, with a config, data dir and sqlite database of the test's own
# under $TMP_DIR; keys and decisions through 'cscli -c' against it. Real
# frames through the veth pair drop and pass as the decisions say; the
# watch's log lines, 'status', 'query --why' and the metrics say why.
# Sourced by tests/e2e/run.sh after ops_tests.sh, whose watch helpers
# (start_watch, stop_watch, wait_line, kill_watch) they use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $CROWDSEC_TESTS"

# shellcheck disable=SC2034 # read by run.sh
CROWDSEC_TESTS="test_cs_decisions test_cs_expiry_offline test_cs_lapi_restart
test_cs_wrong_key test_cs_hostile_lapi test_cs_tls test_cs_ranges test_cs_import_100k
test_cs_sizing test_cs_systemd_unit test_cs_resync_drift test_cs_resync_bulk
test_cs_hostile_strings"

CS_PORT=18080
CS_URL=http://127.0.0.1:$CS_PORT
SYNC_OK='crowdsec: full sync ok: '

# cs_setup: a config of the test's own in $CS_DIR, a machine for cscli
# and a bouncer key in $CS_KEY (0600); the LAPI not started yet.
cs_setup()
{
	if ! command -v crowdsec >/dev/null || ! command -v cscli >/dev/null; then
		skip "no crowdsec package"
	fi
	CS_DIR=$TMP_DIR/crowdsec
	CS_CONF=$CS_DIR/config.yaml
	CS_KEY=$CS_DIR/bouncer.key
	rm -rf "$CS_DIR"
	mkdir -p "$CS_DIR/data" "$CS_DIR/hub" "$CS_DIR/notifications"
	cp /etc/crowdsec/profiles.yaml /etc/crowdsec/simulation.yaml "$CS_DIR/"
	cat >"$CS_CONF" <<EOF
common:
  daemonize: false
  log_media: file
  log_level: info
  log_dir: $CS_DIR/
  working_dir: $CS_DIR/
config_paths:
  config_dir: $CS_DIR/
  data_dir: $CS_DIR/data/
  simulation_path: $CS_DIR/simulation.yaml
  hub_dir: $CS_DIR/hub/
  index_path: $CS_DIR/hub/.index.json
  notification_dir: $CS_DIR/notifications/
  plugin_dir: /usr/lib/crowdsec/plugins/
cscli:
  output: human
db_config:
  log_level: info
  type: sqlite
  db_path: $CS_DIR/data/crowdsec.db
  use_wal: true
  flush:
    max_items: 5000
    max_age: 7d
api:
  client:
    insecure_skip_verify: false
    credentials_path: $CS_DIR/local_api_credentials.yaml
  server:
    log_level: info
    listen_uri: 127.0.0.1:$CS_PORT
    profiles_path: $CS_DIR/profiles.yaml
    trusted_ips:
      - 127.0.0.1
prometheus:
  enabled: false
  level: full
  listen_addr: 127.0.0.1
  listen_port: 16060
EOF
	cs machines add tester --auto -f "$CS_DIR/local_api_credentials.yaml" \
		>/dev/null 2>&1 || fail "cscli machines add"
	(umask 077 && cs bouncers add "bw-$BW_RX" -o raw >"$CS_KEY") ||
		fail "cscli bouncers add"
	echo "  bouncer key in $CS_KEY ($(wc -c <"$CS_KEY") bytes)"
}

cs()
{
	cscli -c "$CS_CONF" "$@"
}

# cs_start: the LAPI, waited for (a bound, not a time to meet).
cs_start()
{
	crowdsec -no-cs -c "$CS_CONF" >>"$CS_DIR/crowdsec.out" 2>&1 &
	CS_PID=$!
	serving "$CS_PID" "$CS_URL/v1/decisions/stream" 300 && return 0
	tail -n 20 "$CS_DIR/crowdsec.out" "$CS_DIR/crowdsec_api.log" 2>/dev/null
	fail "the LAPI did not come up on $CS_URL"
}

cs_stop()
{
	[ -z "${CS_PID:-}" ] && return 0
	kill "$CS_PID" 2>/dev/null
	wait "$CS_PID" 2>/dev/null
	CS_PID=
	return 0
}

cs_cleanup()
{
	kill_watch
	cs_stop
	[ -n "${NOTIFY_PID:-}" ] && kill "$NOTIFY_PID" 2>/dev/null
	NOTIFY_PID=
	return 0
}

# notify_listen: a datagram socket as systemd's NOTIFY_SOCKET (exported),
# what comes in appended to $NOTIFY_OUT, one message a line.
notify_listen()
{
	NOTIFY_OUT=$TMP_DIR/notify.out
	export NOTIFY_SOCKET=$TMP_DIR/notify.sock
	: >"$NOTIFY_OUT"
	rm -f "$NOTIFY_SOCKET"
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    d = s.recv(4096)
    with open(sys.argv[2], "ab") as f:
        f.write(d.replace(b"\n", b" ") + b"\n")' "$NOTIFY_SOCKET" "$NOTIFY_OUT" &
	NOTIFY_PID=$!
	wait_for_file "$NOTIFY_SOCKET"
}

wait_for_file()
{
	local i

	for i in $(seq 100); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	fail "no $1"
}

# cs_add ARGS...: cscli decisions add ARGS; the decision's line said.
cs_add()
{
	echo "+ cscli decisions add $*"
	cs decisions add "$@" 2>&1 | sed 's/^/  c /'
}

cs_delete()
{
	echo "+ cscli decisions delete $*"
	cs decisions delete "$@" 2>&1 | sed 's/^/  c /'
}

# wait_updates N: the watch has printed N lines of polls that changed
# something (updates or full syncs).
wait_updates()
{
	wait_line "$WATCH_OUT" "crowdsec: (update|full sync ok): " "$1"
}

# updates: how many such lines so far.
updates()
{
	grep -cE "crowdsec: (update|full sync ok): " "$WATCH_OUT"
}

# polls_ok: the successful polls the watch published (status's requests).
polls_ok()
{
	"$BLOOMWALL" status "$BW_RX" 2>/dev/null |
		sed -nE 's/^    requests +([0-9]+) ok.*/\1/p'
}

# wait_polls N: N more successful polls (a bound, not a time to meet).
wait_polls()
{
	local want i

	want=$(($(polls_ok) + $1))
	for i in $(seq 300); do
		[ "$(polls_ok)" -ge "$want" ] && return 0
		sleep 0.1
	done
	fail "no $1 more polls in 30 s"
}

# A list for the filter: a /32 target and a /16 one (65,536 keys
# expanded: it stays a target), neither the test's addresses.
cs_list()
{
	list cs.txt "$BW_C4" 198.18.0.0/16
}

# cs_watch ARGS...: the bouncer, waited for its first full sync.
cs_watch()
{
	start_watch "${SEED[@]}" --crowdsec "$CS_URL" --crowdsec-key-file "$CS_KEY" \
		--update-frequency 0.5 --log-rate 100 "$@"
	wait_line "$WATCH_OUT" "$SYNC_OK"
	# The start's rebuild comes after the first sync.
	wait_line "$WATCH_OUT" "$RELOAD_OK"
}

# The decisions of the LAPI go in and out of the running filter as they
# come and go: an add drops within an update, a delete passes again; two
# decisions on a value (two reasons) keep it until both went; query
# --why names the decision, status the source; systemd hears READY=1
# after the first full sync.
test_cs_decisions()
{
	local n id

	trap cs_cleanup EXIT
	cs_setup
	cs_start
	notify_listen
	cs_watch "$(cs_list)"
	unset NOTIFY_SOCKET
	assert_grep "$WATCH_OUT" "^$BW_RX: crowdsec: bouncer of $CS_URL, every 0.5 s\$" "start line"
	wait_line "$NOTIFY_OUT" "^READY=1 STATUS=0 CrowdSec decisions from $CS_URL\$"
	# libsystemd is opened to say it, not linked into every start.
	readelf -d "$BLOOMWALL" >"$TMP_DIR/dynamic" || fail "readelf -d $BLOOMWALL"
	assert_grep "$TMP_DIR/dynamic" '\(NEEDED\) .*\[libc\.so\.6\]$' "readelf lists what is linked"
	grep -E '\(NEEDED\) .*\[libsystemd' "$TMP_DIR/dynamic" && fail "libsystemd is linked"
	expect_delivered "$BW_A4" "$BW_RX4"

	n=$(updates)
	cs_add --ip "$BW_A4" --duration 1h --reason first-reason
	wait_updates $((n + 1))
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	bw 0 query "$BW_RX" --why "$BW_A4"
	assert_grep "$OUT" "^$BW_A4  drop " "query says drop"
	assert_grep "$OUT" "^  why: CrowdSec decision [0-9]+ \\(origin cscli, scenario 'first-reason'\\): Ip $BW_A4, ban until [0-9-]+ [0-9:]+ UTC \\(in 59m[0-9]{2}s\\)\$" \
		"query --why names the decision"
	bw 0 query "$BW_RX" --json --why "$BW_A4" "$BW_B4"
	assert_eq "$(json "$OUT" '[[a["crowdsec"]["url"], [[x["origin"], x["scenario"], x["scope"], x["value"], x["type"], x["until"] > x["id"]] for x in a["crowdsec"]["decisions"]], a["crowdsec"]["more"]] for a in d["addresses"] if "crowdsec" in a]')" \
		'[["'"$CS_URL"'",[["cscli","first-reason","Ip","'"$BW_A4"'","ban",true]],0]]' \
		"query --json --why: the decision's fields, for the covered address only"
	# A script asks the watch's socket itself ("why"), reading fields.
	python3 - "/run/bloomwall/$BW_RX.sock" "$BW_A4" "$BW_B4" >"$OUT" <<'EOF2'
import json, socket, sys

s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
q = {"v": 1, "op": "why", "addresses": sys.argv[2:]}
s.sendall(json.dumps(q).encode() + b"\n")
r = json.loads(s.makefile().readline())
assert r["v"] == 1 and r["op"] == "why" and r["ok"] is True, r
print(json.dumps([r["crowdsec"], r["url"]] +
                 [[a["address"], [[d["origin"], d["scenario"], d["scope"],
                                   d["value"]] for d in a["decisions"]],
                   a["more"]] for a in r["results"]]))
EOF2
	assert_eq "$(cat "$OUT")" \
		'[true, "'"$CS_URL"'", ["'"$BW_A4"'", [["cscli", "first-reason", "Ip", "'"$BW_A4"'"]], 0], ["'"$BW_B4"'", [], 0]]' \
		"the socket's why: per address its decisions"
	# The drop log names the decision behind a drop.
	bw 0 log "$BW_RX" --count 1
	assert_grep "$OUT" " $BW_RX ipv4 icmp $BW_A4 -> $BW_RX4 address drop gen 1\$" "a drop event"
	assert_grep "$OUT" "^  why: CrowdSec decision [0-9]+ \\(origin cscli, scenario 'first-reason'\\)" \
		"the event names the decision's origin"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^  CrowdSec$" "status has the source"
	assert_kv "$OUT" "url" "$CS_URL (every 0.5 s)" "the source's URL"
	assert_grep "$OUT" "^    last sync +ok, [0-9]+ s ago" "last sync"
	assert_kv "$OUT" "decisions" "1 (1 value)" "decisions held"
	assert_kv "$OUT" "cscli Ip" "1" "by origin and scope"

	# A second decision on the value: it stays dropped until both went.
	n=$(updates)
	cs_add --ip "$BW_A4" --duration 2h --reason second-reason
	wait_updates $((n + 1))
	bw 0 query "$BW_RX" --why "$BW_A4"
	assert_grep "$OUT" "scenario 'second-reason'" "both decisions named"
	# cscli lists one decision a value (the longest): the id from --why.
	id=$(sed -n "s/^  why: CrowdSec decision \([0-9]*\) .*first-reason.*/\1/p" "$OUT")
	[ -n "$id" ] || fail "no id for the first decision in query --why"
	# The LAPI (1.4) says nothing of a deletion while another decision
	# covers the value: two polls later it is still dropped.
	cs_delete --id "$id"
	wait_polls 2
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 query "$BW_RX" --why "$BW_A4"
	assert_grep "$OUT" "scenario 'second-reason'" "the second decision holds it"
	# cscli deletes both; the stream names one: a full sync follows.
	n=$(grep -c "$SYNC_OK" "$WATCH_OUT")
	cs_delete --ip "$BW_A4"
	wait_line "$WATCH_OUT" "${SYNC_OK}0 new, [0-9]+ deleted; 0 decisions held on 0 values" $((n + 1))
	expect_delivered "$BW_A4" "$BW_RX4"
	bw 0 query "$BW_RX" --why "$BW_A4"
	grep -q "CrowdSec" "$OUT" && fail "query --why still names a decision"
	stop_watch TERM
}

# A 5 s decision ends by the watch's own clock, even with the LAPI gone:
# dropped, the LAPI stopped, then passed again within a second or so of
# its end (waited for with a bound).
test_cs_expiry_offline()
{
	local n i

	trap cs_cleanup EXIT
	cs_setup
	cs_start
	cs_watch "$(cs_list)"
	n=$(updates)
	cs_add --ip "$BW_A4" --duration 5s
	wait_updates $((n + 1))
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	cs_stop
	wait_line "$WATCH_OUT" "crowdsec: poll of $CS_URL failed: .*; the filter keeps what it holds \\(1 decisions\\)"
	for i in $(seq 40); do
		[ "$(bw_ping "$BW_A4" "$BW_RX4" 1)" = 1 ] && break
		sleep 0.5
	done
	expect_delivered "$BW_A4" "$BW_RX4"
	assert_grep "$WATCH_OUT" "failed: Failed to connect to 127.0.0.1 port $CS_PORT" \
		"the failure is said"
	stop_watch TERM
}

# The LAPI stopped: the filter keeps its decisions and the failures are
# counted; decisions deleted while it was down (its database edited) go
# at the full resync once it is back; new ones come in again.
test_cs_lapi_restart()
{
	local n sync_at start_at

	command -v sqlite3 >/dev/null || skip "no sqlite3"
	trap cs_cleanup EXIT
	cs_setup
	cs_start
	cs_watch --metrics-file "$TMP_DIR/m.prom" --interval 0.5 "$(cs_list)"
	cs_add --ip "$BW_A4" --duration 1h
	cs_add --ip "$BW_B4" --duration 1h
	wait_line "$WATCH_OUT" "crowdsec: update: .*; 2 decisions held on 2 values"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	cs_stop
	wait_line "$WATCH_OUT" "crowdsec: poll of $CS_URL failed: "
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	sqlite3 "$CS_DIR/data/crowdsec.db" "DELETE FROM decisions WHERE value = '$BW_A4';" ||
		fail "sqlite3 delete"
	n=$(grep -c "$SYNC_OK" "$WATCH_OUT")
	cs_start
	wait_line "$WATCH_OUT" "$SYNC_OK" $((n + 1))
	expect_delivered "$BW_A4" "$BW_RX4"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	n=$(updates)
	cs_add --ip "$BW_A4" --duration 1h
	wait_updates $((n + 1))
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	wait_line "$TMP_DIR/m.prom" 'bloomwall_lapi_requests_total\{iface="[^"]+",result="down"\} [1-9]'
	assert_grep "$TMP_DIR/m.prom" "^bloomwall_decisions\\{iface=\"$BW_RX\",origin=\"cscli\",scope=\"Ip\"\\} 2\$" \
		"decisions by origin and scope"
	assert_grep "$TMP_DIR/m.prom" "^bloomwall_lapi_last_sync_timestamp_seconds\\{iface=\"$BW_RX\"\\} [1-9]" \
		"last sync time"
	stop_watch TERM

	# The watch restarted (the filter stays attached): its first full sync
	# comes before its start's rebuild, so the filter that start swaps in
	# holds the decisions; none passes at any moment of the restart.
	start_watch "${SEED[@]}" --crowdsec "$CS_URL" --crowdsec-key-file "$CS_KEY" \
		--update-frequency 0.5 "$(cs_list)"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	sync_at=$(grep -nE "$SYNC_OK" "$WATCH_OUT" | head -n 1 | cut -d: -f1)
	start_at=$(grep -nE "$RELOAD_OK" "$WATCH_OUT" | head -n 1 | cut -d: -f1)
	if [ -z "$sync_at" ] || [ "$sync_at" -gt "$start_at" ]; then
		fail "the first full sync did not come before the start's rebuild"
	fi
	bw 0 query "$BW_RX" "$BW_A4" "$BW_B4"
	assert_eq "$(grep -c '  drop ' "$OUT")" 2 "the start's filter drops both decisions"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	stop_watch TERM
}

# cs_db SQL: runs SQL on the LAPI's own database, as a row the LAPI's
# update stream never reports (crowdsec #2014) comes to be.
cs_db()
{
	echo "+ sqlite3 crowdsec.db \"$1\""
	sqlite3 -cmd ".timeout 5000" "$CS_DIR/data/crowdsec.db" "$1" ||
		fail "sqlite3 $1"
}

# cs_db_copy FROM TO: a decision row for value TO, a copy of FROM's (its
# creation time too: older than the bouncer's last poll, so the update
# stream never names it; a full answer does).
cs_db_copy()
{
	local cols

	cols=$(sqlite3 "$CS_DIR/data/crowdsec.db" \
		"SELECT group_concat(name, ',') FROM pragma_table_info('decisions') WHERE name NOT IN ('id', 'value');")
	[ -n "$cols" ] || fail "no columns in the LAPI's decisions table"
	cs_db "INSERT INTO decisions ($cols, value) SELECT $cols, '$2' FROM decisions WHERE value = '$1';"
}

# resyncs: how many periodic resyncs the watch published (status JSON).
resyncs()
{
	"$BLOOMWALL" status --json "$BW_RX" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["crowdsec"]["resync"]["count"])'
}

# The LAPI's database changed behind its update stream (a row deleted, a
# row added with an old creation time): the updates never say so; the
# periodic full resync puts in and takes out what they missed, says the
# drift in a line, status and the metrics.
test_cs_resync_drift()
{
	trap cs_cleanup EXIT
	command -v sqlite3 >/dev/null || skip "no sqlite3"
	cs_setup
	cs_start
	cs_watch --resync-interval 15 --metrics-file "$TMP_DIR/m.prom" \
		--interval 0.5 "$(cs_list)"
	cs_add --ip "$BW_A4" --duration 1h
	wait_line "$WATCH_OUT" "crowdsec: update: .*; 1 decision held on 1 value"
	cs_db_copy "$BW_A4" "$BW_B4"
	cs_db "DELETE FROM decisions WHERE value = '$BW_A4';"
	wait_polls 2
	# The updates missed both (unless the resync came already: a slow run).
	bw 0 query "$BW_RX" "$BW_A4" "$BW_B4"
	if [ "$(resyncs)" = 0 ]; then
		assert_grep "$OUT" "^$BW_A4  drop " "the updates missed the deletion"
		assert_grep "$OUT" "^$BW_B4  pass( |\$)" "the updates missed the new row"
	else
		echo "  (a resync came before the check: the miss not shown)"
	fi
	wait_line "$WATCH_OUT" "crowdsec: resync ok: drift 2 \(1 put in, 1 taken out: what the updates had not said\); 1 in the answer, 1 decision held on 1 value "
	expect_delivered "$BW_A4" "$BW_RX4"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    resync +every 15s, [1-9][0-9]* so far, last [0-9]+ s ago: drift [02]; 2 in all\$" \
		"status: the resyncs and their drift"
	wait_line "$TMP_DIR/m.prom" "^bloomwall_decisions_resync_drift_total\\{iface=\"$BW_RX\"\\} 2\$"
	# In step again: the next resync finds nothing.
	wait_line "$WATCH_OUT" "crowdsec: resync ok: drift 0 " 1
	assert_grep "$TMP_DIR/m.prom" "^bloomwall_decisions_resync_drift_total\\{iface=\"$BW_RX\"\\} 2\$" \
		"the drift counter stays"
	stop_watch TERM
}

# A burst of updates (an import of 1,500) is followed by a resync once it
# settled, long before --resync-interval (1h): rows the stream missed
# while the import was committed come in then; one decision is no burst.
test_cs_resync_bulk()
{
	local f=$TMP_DIR/import.csv

	trap cs_cleanup EXIT
	cs_setup
	cs_start
	cs_watch --resync-interval 1h "$(cs_list)"
	cs_add --ip "$BW_A4" --duration 1h
	wait_line "$WATCH_OUT" "crowdsec: update: .*; 1 decision held on 1 value"
	wait_polls 2
	grep -q "resync ok" "$WATCH_OUT" && fail "a resync after one decision"
	{
		echo value
		awk 'BEGIN { for (i = 0; i < 1500; i++) printf "100.64.%d.%d\n", i / 250, i % 250 + 1 }'
	} >"$f"
	echo "+ cscli decisions import -i $f (1500 values)"
	cs decisions import -i "$f" --duration 1h 2>&1 | tail -n 1 | sed 's/^/  c /'
	wait_line "$WATCH_OUT" "crowdsec: resync ok: drift [0-9]+ \\([0-9]+ put in, 0 taken out: what the updates had not said\\); 1501 in the answer, 1501 decisions held on 1501 values "
	bw 0 query "$BW_RX" 100.64.0.1 100.64.5.250
	assert_eq "$(grep -c '  drop ' "$OUT")" 2 "the import's first and last drop"
	assert_eq "$(resyncs)" 1 "one resync: the burst's"
	stop_watch TERM
}

# A decision's strings hold newlines and an escape sequence (a scenario
# through cscli, a value written into the LAPI's database): the watch's
# log and query --why print them escaped, one line a record, no raw
# control byte; JSON carries them whole (json-c escapes).
test_cs_hostile_strings()
{
	local reason value esc

	trap cs_cleanup EXIT
	command -v sqlite3 >/dev/null || skip "no sqlite3"
	esc=$(printf '\033')
	reason="evil
$BW_RX: FORGED scenario line${esc}[2J"
	value="10.77.0.9
$BW_RX: FORGED value line${esc}[31m"
	cs_setup
	cs_start
	cs_add --ip "$BW_A4" --duration 1h --reason "$reason"
	cs_add --ip "$BW_B4" --duration 1h
	cs_db "UPDATE decisions SET value = '$value' WHERE value = '$BW_B4';"
	cs_watch "$(cs_list)"
	wait_line "$WATCH_OUT" "crowdsec: decision [0-9]+ \\(Ip 10\\.77\\.0\\.9\\\\n$BW_RX: FORGED value line\\\\x1b\\[31m, origin cscli\\) refused: not an address or prefix of scope Ip\$"
	grep -q "$esc" "$WATCH_OUT" && fail "a raw ESC in the watch's log"
	grep -q "^$BW_RX: FORGED" "$WATCH_OUT" && fail "a forged line in the watch's log"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	bw 0 query "$BW_RX" --why "$BW_A4"
	grep -q "$esc" "$OUT" && fail "a raw ESC in query --why"
	assert_eq "$(wc -l <"$OUT")" 2 "query --why: one line a record"
	assert_grep "$OUT" "^  why: CrowdSec decision [0-9]+ \\(origin cscli, scenario 'evil\\\\n$BW_RX: FORGED scenario line\\\\x1b\\[2J'\\): Ip $BW_A4, ban until " \
		"query --why: the scenario escaped"
	bw 0 query "$BW_RX" --json --why "$BW_A4"
	assert_eq "$(wc -l <"$OUT")" 1 "query --json --why: one line"
	grep -q "$esc" "$OUT" && fail "a raw ESC in query --json --why"
	assert_eq "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print([x["scenario"] for a in d["addresses"] if "crowdsec" in a
       for x in a["crowdsec"]["decisions"]] == [sys.argv[2]])' "$OUT" "$reason")" \
		True "query --json --why: the scenario whole"
	bw 0 status "$BW_RX"
	grep -q "$esc" "$OUT" && fail "a raw ESC in status"
	stop_watch TERM
}

# A wrong key: 403 said and counted, the lists' filter keeps running, and
# systemd is told why it is not ready (no READY=1); a key file others can
# read is refused before anything is attached.
test_cs_wrong_key()
{
	local l

	trap cs_cleanup EXIT
	cs_setup
	l=$(list a.txt "$BW_A4")
	# Verify mode's trie holds the lists' entries only: refused at once.
	bw 2 watch "$BW_RX" --verify --crowdsec "$CS_URL" --crowdsec-key-file "$CS_KEY" "$l"
	assert_grep "$ERR" "^bloomwall watch: --verify confirms a hit in an exact trie of the lists' entries, which the CrowdSec decisions are not in" \
		"watch --crowdsec --verify refused"
	assert_detached
	cs_start
	(umask 077 && echo 0123456789abcdef0123456789abcdef >"$TMP_DIR/wrong.key")
	notify_listen
	start_watch "${SEED[@]}" --crowdsec "$CS_URL" --crowdsec-key-file "$TMP_DIR/wrong.key" \
		--update-frequency 0.5 "$l"
	wait_line "$WATCH_OUT" "crowdsec: full poll of $CS_URL failed: HTTP 403 \\(a wrong or revoked API key: 'cscli bouncers list'\\); the filter keeps what it holds \\(0 decisions\\), next try in 0.5 s \\(full\\)"
	# The start goes on without the decisions: the lists' filter.
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	wait_line "$WATCH_OUT" "failed: HTTP 403" 2
	unset NOTIFY_SOCKET
	wait_line "$NOTIFY_OUT" "^STATUS=waiting for the CrowdSec LAPI: HTTP 403"
	grep -q READY "$NOTIFY_OUT" && fail "READY=1 without a sync"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    last sync +never; last try [0-9]+ s ago: forbidden: HTTP 403" "status says why"
	stop_watch TERM

	chmod 644 "$CS_KEY"
	bw_bpffs_reset
	"$BLOOMWALL" detach "$BW_RX" >/dev/null 2>&1
	bw 1 watch "$BW_RX" --crowdsec "$CS_URL" --crowdsec-key-file "$CS_KEY" "$l"
	assert_line "$ERR" "bloomwall watch: --crowdsec-key-file $CS_KEY refused: the API key file is open to group or others (mode 0644): chmod 600 $CS_KEY" \
		"a readable key file is refused"
	assert_detached
}

# fake_lapi MODE: the misbehaving LAPI (fake_lapi.py) on $FAKE_URL, in MODE.
fake_lapi()
{
	FAKE_MODE=$TMP_DIR/fake.mode
	FAKE_LOG=$TMP_DIR/fake.log
	FAKE_URL=http://127.0.0.1:18081
	echo "$1" >"$FAKE_MODE"
	: >"$FAKE_LOG"
	python3 "$TOP/tests/e2e/fake_lapi.py" 18081 "$FAKE_MODE" "$FAKE_LOG" &
	FAKE_PID=$!
	for i in $(seq 100); do
		curl -s -o /dev/null "$FAKE_URL/" && return 0
		sleep 0.05
	done
	fail "the fake LAPI did not come up"
}

fake_cleanup()
{
	kill_watch
	[ -n "${FAKE_PID:-}" ] && kill "$FAKE_PID" 2>/dev/null
	FAKE_PID=
	return 0
}

# A LAPI that answers 500, too slowly, cut short, or not JSON: each is
# said with its reason and counted, the decision held keeps dropping, and
# every next poll is a full one; once it answers again, a full sync. One
# that never answers does not keep SIGTERM from ending the watch.
test_cs_hostile_lapi()
{
	local n mode want

	trap fake_cleanup EXIT
	(umask 077 && echo 0123456789abcdef0123456789abcdef >"$TMP_DIR/fake.key")
	fake_lapi ok
	start_watch "${SEED[@]}" --crowdsec "$FAKE_URL" --crowdsec-key-file "$TMP_DIR/fake.key" \
		--update-frequency 0.2 --crowdsec-timeout 1 "$(cs_list)"
	wait_line "$WATCH_OUT" "${SYNC_OK}1 new"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	# 500stream, first (so that its line is the first failure's): an
	# error's body that parses as a stream (deleting the decision) is
	# never applied.
	for mode in 500stream 500 slow cut malformed; do
		case $mode in
		500 | 500stream) want="failed: HTTP 500;" ;;
		slow) want="failed: Operation timed out after 1[0-9]{3} milliseconds with 0 bytes received;" ;;
		cut) want="failed: transfer closed with [0-9]+ bytes remaining to read;" ;;
		malformed) want="failed: the answer is not a decision stream: not JSON at byte 31;" ;;
		esac
		want="crowdsec: (full )?poll of $FAKE_URL $want the filter keeps what it holds \\(1 decisions\\)"
		n=$(grep -cE -- "$want" "$WATCH_OUT" || true)
		echo "$mode" >"$FAKE_MODE"
		wait_line "$WATCH_OUT" "$want" $((n + 1))
		expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	done
	tail -n 1 "$FAKE_LOG" | grep -q "startup=true" || fail "the poll after a failure is not a full one"
	bw 0 status "$BW_RX"
	assert_grep "$OUT" "^    requests +[0-9]+ ok, [0-9]+ server_error, [0-9]+ timeout, [0-9]+ cut, [0-9]+ malformed\$" \
		"each failure counted by its result"
	n=$(grep -c "$SYNC_OK" "$WATCH_OUT")
	echo ok >"$FAKE_MODE"
	wait_line "$WATCH_OUT" "${SYNC_OK}1 new, 0 deleted; 1 decision held on 1 value" $((n + 1))
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	stop_watch TERM

	# A LAPI that never answers: SIGTERM still ends the watch, in the
	# middle of the request (the fake answers after 120 s, if ever).
	echo hang >"$FAKE_MODE"
	n=$(grep -c "startup=true" "$FAKE_LOG")
	start_watch "${SEED[@]}" --crowdsec "$FAKE_URL" --crowdsec-key-file "$TMP_DIR/fake.key" \
		--crowdsec-timeout 300 "$(cs_list)"
	wait_line "$FAKE_LOG" "startup=true" $((n + 1))
	kill -TERM "$WATCH_PID"
	wait_gone "$WATCH_PID" || fail "the watch did not end on SIGTERM during a request"
	wait "$WATCH_PID"
	assert_eq "$?" 0 "its exit status"
	WATCH_PID=
	assert_grep "$WATCH_OUT" "watch stopped \\(SIGTERM\\)" "it says so"
}

# tls_certs DIR: a CA, a server certificate for 127.0.0.1 and a client
# certificate (P-256, a day), all signed by the CA; and another CA.
tls_certs()
{
	local d=$1 n

	mkdir -p "$d"
	for n in ca other; do
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
			-keyout "$d/$n.key" -out "$d/$n.pem" -days 1 -subj "/CN=test-$n" \
			2>/dev/null || fail "openssl: $n"
	done
	for n in srv client; do
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
			-keyout "$d/$n.key" -out "$d/$n.csr" -subj "/CN=$n" 2>/dev/null ||
			fail "openssl req: $n"
		openssl x509 -req -in "$d/$n.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" \
			-CAcreateserial -out "$d/$n.pem" -days 1 \
			-extfile <(printf 'subjectAltName=IP:127.0.0.1\n') 2>/dev/null ||
			fail "openssl x509: $n"
	done
}

# TLS client certificates instead of a key: a LAPI over https that asks
# for one takes the bouncer's; the same LAPI without the certificate
# (a key instead), or checked against another CA, refuses or is refused.
test_cs_tls()
{
	local d=$TMP_DIR/tls

	command -v openssl >/dev/null || skip "no openssl"
	trap fake_cleanup EXIT
	tls_certs "$d"
	TLS_DIR=$d fake_lapi_tls
	start_watch "${SEED[@]}" --crowdsec "$FAKE_URL" --crowdsec-cert "$d/client.pem" \
		--crowdsec-cert-key "$d/client.key" --crowdsec-ca "$d/ca.pem" \
		--update-frequency 0.5 "$(cs_list)"
	wait_line "$WATCH_OUT" "${SYNC_OK}1 new, 0 deleted; 1 decision held on 1 value"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	stop_watch TERM

	start_watch "${SEED[@]}" --crowdsec "$FAKE_URL" --crowdsec-cert "$d/client.pem" \
		--crowdsec-cert-key "$d/client.key" --crowdsec-ca "$d/other.pem" "$(cs_list)"
	wait_line "$WATCH_OUT" "crowdsec: full poll of $FAKE_URL failed: SSL certificate problem: "
	stop_watch TERM
	bw 0 status "$BW_RX"
	(umask 077 && echo 0123456789abcdef0123456789abcdef >"$TMP_DIR/tls.key")
	start_watch "${SEED[@]}" --crowdsec "$FAKE_URL" --crowdsec-key-file "$TMP_DIR/tls.key" \
		--crowdsec-ca "$d/ca.pem" "$(cs_list)"
	wait_line "$WATCH_OUT" "crowdsec: full poll of $FAKE_URL failed: "
	grep -q "$SYNC_OK" "$WATCH_OUT" && fail "a sync without a client certificate"
	stop_watch TERM
	bw 1 watch "$BW_RX" --crowdsec "http://127.0.0.1:1" --crowdsec-cert "$d/client.pem" "$(cs_list)"
	assert_line "$ERR" "bloomwall watch: --crowdsec-cert needs an https:// URL" "cert over http refused"

	# A key others can read, a CA others can change: refused before the
	# watch starts, saying how to fix it; nothing runs but what ran.
	cp "$d/client.key" "$d/open.key"
	chmod 644 "$d/open.key"
	bw 1 watch "$BW_RX" --crowdsec "$FAKE_URL" --crowdsec-cert "$d/client.pem" \
		--crowdsec-cert-key "$d/open.key" --crowdsec-ca "$d/ca.pem" "$(cs_list)"
	assert_line "$ERR" "bloomwall watch: --crowdsec-cert-key $d/open.key: refused: the client key file is open to group or others (mode 0644): chmod 600 $d/open.key" "a key others read"
	cat "$d/client.key" >>"$d/client.pem"
	chmod 644 "$d/client.pem"
	bw 1 watch "$BW_RX" --crowdsec "$FAKE_URL" --crowdsec-cert "$d/client.pem" \
		--crowdsec-ca "$d/ca.pem" "$(cs_list)"
	assert_grep "$ERR" "^bloomwall watch: --crowdsec-cert $d/client.pem: refused: the client certificate and key file is open to group or others" "a certificate holding its key, others read it"
	chmod 666 "$d/ca.pem"
	bw 1 watch "$BW_RX" --crowdsec "$FAKE_URL" --crowdsec-cert "$d/client.pem" \
		--crowdsec-cert-key "$d/client.key" --crowdsec-ca "$d/ca.pem" "$(cs_list)"
	assert_grep "$ERR" "^bloomwall watch: --crowdsec-ca $d/ca.pem: refused: the CA file is writable by" "a CA others can change"
	grep -q "watching\|reload ok" "$OUT" && fail "a watch started on refused TLS files"
	return 0
}

# fake_lapi_tls: fake_lapi ok over https (TLS_DIR in the environment).
fake_lapi_tls()
{
	FAKE_MODE=$TMP_DIR/fake.mode
	FAKE_LOG=$TMP_DIR/fake.log
	FAKE_URL=https://127.0.0.1:18082
	echo ok >"$FAKE_MODE"
	: >"$FAKE_LOG"
	python3 "$TOP/tests/e2e/fake_lapi.py" 18082 "$FAKE_MODE" "$FAKE_LOG" &
	FAKE_PID=$!
	for i in $(seq 100); do
		python3 -c 'import socket; socket.create_connection(("127.0.0.1", 18082), 1)' 2>/dev/null && return 0
		sleep 0.05
	done
	fail "the fake LAPI did not come up"
}

# Range decisions: one the filter has a target length for drops; /0 and
# one wider than --widest-range are refused and counted, and drop
# nothing. A decision of a family the lists lack comes in once they have
# it.
test_cs_ranges()
{
	local n

	trap cs_cleanup EXIT
	cs_setup
	cs_start
	cs_watch --widest-range 16,19 "$(cs_list)"
	n=$(updates)
	cs_add --range 0.0.0.0/0 --duration 1h
	cs_add --range 10.0.0.0/8 --duration 1h
	cs_add --range 10.77.0.0/16 --duration 1h
	cs_add --range 10.78.0.0/20 --duration 1h
	wait_updates $((n + 1))
	# The four may come in more than one poll: the /16 and the /20 held.
	wait_line "$WATCH_OUT" "crowdsec: update: .*; 2 decisions held on 2 values"
	wait_line "$WATCH_OUT" "crowdsec: decision [0-9]+ \\(Range 0.0.0.0/0, origin cscli\\) refused: a range wider than the limit \\(/16 IPv4, /19 IPv6: --widest-range\\)"
	assert_grep "$WATCH_OUT" "crowdsec: decision [0-9]+ \\(Range 10.0.0.0/8, origin cscli\\) refused: a range wider" \
		"the /8 refused"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	bw 0 status "$BW_RX"
	assert_kv "$OUT" "refused" "2 too_wide" "refused ones counted"

	# An IPv6 ban with IPv4-only lists: a watch with a decision source
	# always has a /128 target (doc/watch.md "Live entries: room"): taken.
	n=$(updates)
	cs_add --ip "$BW_A6" --duration 1h
	wait_updates $((n + 1))
	grep -qE "Ip $BW_A6, origin cscli\\) refused" "$WATCH_OUT" && fail "the IPv6 ban refused"
	expect_dropped "$BW_A6" "$BW_RX6" dropped_v6
	# An IPv6 /48 where the only IPv6 target is /128 (2^80 keys):
	# refused, one rebuild gives it a target length of its own, and the
	# full answer after it brings it in.
	cs_add --range 2001:db8:77::/48 --duration 1h
	wait_line "$WATCH_OUT" "Range 2001:db8:77::/48, origin cscli\\) refused: the running filter cannot take it: too many live keys"
	wait_line "$WATCH_OUT" "reload ok: .*\\(live entries: 1 refused for want of a target length\\)"
	wait_line "$WATCH_OUT" "$SYNC_OK" 2
	bw 0 query "$BW_RX" 2001:db8:77:ffff::1
	assert_grep "$OUT" "^2001:db8:77:ffff::1  drop " "the /48 in after the rebuild"
	stop_watch TERM
}

# 100,000 addresses of a real list imported at once (cscli decisions
# import), then the bouncer started: its first full answer holds them all,
# parsed as it streams, and every one is in the filter, the test's sender
# among them. The list holds 2 entries: the watch sizes its rebuilds for
# the live entries (doc/watch.md "Live entries: room").
test_cs_import_100k()
{
	local f=$TMP_DIR/import.csv src=$BW_DATA_DIR/ipv4/ipsum/ipsum.txt
	local probe

	[ -f "$src" ] || skip "no $src"
	trap cs_cleanup EXIT
	cs_setup
	cs_start
	{
		echo value
		echo "$BW_A4"
		grep -v '^#' "$src" | cut -f1 | head -n 99999
	} >"$f"
	probe=$(sed -n 5000p "$f")
	echo "+ cscli decisions import -i $f ($(($(wc -l <"$f") - 1)) values)"
	cs decisions import -i "$f" --duration 1h 2>&1 | tail -n 1 | sed 's/^/  c /'
	cs_watch "$(cs_list)"
	assert_grep "$WATCH_OUT" "${SYNC_OK}100000 new, 0 deleted; 100000 decisions held on 100000 values" \
		"the full answer holds the 100,000"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	bw 0 query "$BW_RX" --why "$probe"
	assert_grep "$OUT" "^$probe  drop " "an imported address drops"
	assert_grep "$OUT" "^  why: CrowdSec decision [0-9]+ \\(origin cscli-import, " "named by its decision"
	stop_watch TERM
}

# sizing_drops: how many of 20,000 addresses of 11.0.0.0/8 (in no list,
# no decision; the same ones every run) the running filter drops.
sizing_drops()
{
	local addrs

	mapfile -t addrs < <(awk 'BEGIN { x = 12345; for (i = 0; i < 20000; i++) {
		x = (x * 69069 + 1) % 4294967296
		printf "11.%d.%d.%d\n", int(x / 65536) % 256, int(x / 256) % 256, x % 256 } }')
	"$BLOOMWALL" query "$BW_RX" "${addrs[@]}" >"$TMP_DIR/sizing.txt" 2>&1
	grep -c '  drop ' "$TMP_DIR/sizing.txt"
}

# 20,000 decisions on a 2-entry IPv4-only list: the first full sync comes
# before the watch's start, whose build has room for them, and random
# unlisted addresses drop near the target rate (0.1 %: under 5 x, i.e.
# fewer than 100 of 20,000) where the filter sized for the list alone
# dropped nearly all.
test_cs_sizing()
{
	local drops

	trap fake_cleanup EXIT
	BIG=20000 fake_lapi big
	(umask 077 && echo 0123456789abcdef0123456789abcdef >"$TMP_DIR/fake.key")
	start_watch "${SEED[@]}" --crowdsec "$FAKE_URL" --crowdsec-key-file "$TMP_DIR/fake.key" \
		--update-frequency 60 "$(cs_list)"
	wait_line "$WATCH_OUT" "${SYNC_OK}20001 new"
	wait_line "$WATCH_OUT" "reload ok: .*\\(start\\)"
	bw 0 query "$BW_RX" 100.64.0.2 100.64.156.62 10.77.0.2
	assert_eq "$(grep -c '  drop ' "$OUT")" 3 "decisions drop after the rebuild"
	drops=$(sizing_drops)
	echo "  $drops of 20000 unlisted addresses drop"
	[ "$drops" -lt 100 ] || fail "$drops of 20000 unlisted addresses drop (target 0.1 %)"
	bw 0 status "$BW_RX"
	grep -iE 'fpr|false|bytes|size' "$OUT" | sed 's/^/  s /' | head -n 8
	stop_watch TERM
}

# The bouncer's unit passes systemd-analyze verify with no warning.
test_cs_systemd_unit()
{
	local d=$TMP_DIR/unit

	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	mkdir -p "$d"
	sed "s|/usr/sbin/bloomwall|$BLOOMWALL|g" \
		"$TOP/scripts/bloomwall-crowdsec@.service" >"$d/bloomwall-crowdsec@.service"
	cp "$d/bloomwall-crowdsec@.service" "$d/bloomwall-crowdsec@$BW_RX.service"
	(cd "$d" && systemd-analyze verify --man=no "bloomwall-crowdsec@$BW_RX.service") \
		>"$OUT" 2>&1
	assert_eq "$?" 0 "systemd-analyze verify"
	sed 's/^/  | /' "$OUT"
	[ -s "$OUT" ] && fail "systemd-analyze verify warns"
	assert_line "$TOP/scripts/bloomwall-crowdsec@.service" "Type=notify" "Type=notify"
	assert_line "$TOP/scripts/bloomwall-crowdsec@.service" \
		"After=sys-subsystem-net-devices-%i.device network-pre.target crowdsec.service" \
		"ordered after crowdsec"
}

# ---- bench (make bench-crowdsec; not in CROWDSEC_TESTS) -------------------

# now_ms: CLOCK_REALTIME in milliseconds.
now_ms()
{
	date +%s%3N
}

# median of the numbers on stdin.
median()
{
	sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The time from 'cscli decisions add' to the first dropped frame, 20
# times (median), at --update-frequency 1; then the time from a startup
# answer of 100,000 and of 1,000,000 decisions (fake_lapi.py, streamed) to
# the filter holding them, with the watch's peak memory.
test_cs_bench()
{
	local i t0 t1 before lat=$TMP_DIR/lat.txt big=$TMP_DIR/big.txt n pid
	local huge=$TMP_DIR/huge.txt run runs l

	trap 'cs_cleanup; fake_cleanup' EXIT
	cs_setup
	cs_start
	cs_watch --update-frequency 1 "$(cs_list)"
	: >"$lat"
	for i in $(seq 20); do
		before=$(bw_stat "$BW_RX" dropped_v4)
		t0=$(now_ms)
		cs decisions add --ip "$BW_A4" --duration 1h >/dev/null 2>&1
		while [ "$(bw_stat "$BW_RX" dropped_v4)" = "$before" ]; do
			ip netns exec "$BW_NS" ping -n -q -c 1 -W 0.02 -I "$BW_A4" "$BW_RX4" >/dev/null 2>&1
			[ $(($(now_ms) - t0)) -gt 30000 ] && fail "no drop within 30 s"
		done
		t1=$(now_ms)
		echo $((t1 - t0)) >>"$lat"
		n=$(grep -cE ': (update|full sync ok): .*; 0 decisions held' "$WATCH_OUT")
		cs decisions delete --ip "$BW_A4" >/dev/null 2>&1
		wait_line "$WATCH_OUT" ': (update|full sync ok): .*; 0 decisions held' $((n + 1))
	done
	echo "BENCH add-to-drop at --update-frequency 1: median $(median <"$lat") ms of 20 (min $(sort -n "$lat" | head -n 1), max $(sort -n "$lat" | tail -n 1); cscli's own run included)"
	stop_watch TERM
	cs_stop

	awk 'BEGIN { for (i = 0; i < 2000000; i += 2)
		printf "100.%d.%d.%d\n", 128 + int(i / 65536), int(i / 256) % 256, i % 256 }' >"$big"
	# The daemon's memory at 10M list entries plus 1M decisions too
	# (BENCH_CS_10M=0 leaves it out: the list alone is 140 MB).
	runs="100000:$big 1000000:$big"
	if [ "${BENCH_CS_10M:-1}" != 0 ]; then
		awk 'BEGIN { for (i = 0; i < 10000000; i++)
			printf "20.%d.%d.%d\n", int(i / 65536), int(i / 256) % 256, i % 256 }' >"$huge"
		runs="$runs 1000000:$huge"
	fi
	for run in $runs; do
		n=${run%%:*}
		l=${run#*:}
		"$BLOOMWALL" detach "$BW_RX" >/dev/null 2>&1
		BIG=$n fake_lapi big
		(umask 077 && echo 0123456789abcdef0123456789abcdef >"$TMP_DIR/fake.key")
		t0=$(now_ms)
		start_watch "${SEED[@]}" --crowdsec "$FAKE_URL" --crowdsec-key-file "$TMP_DIR/fake.key" \
			--crowdsec-timeout 600 --update-frequency 60 "$l"
		pid=$WATCH_PID
		# The first full sync comes first: the start's filter has them.
		wait_line "$WATCH_OUT" "$RELOAD_OK"
		echo "BENCH startup from $n decisions on a list of $(wc -l <"$l") addresses: the first filter, the decisions in it, after $(($(now_ms) - t0)) ms; $(grep "$SYNC_OK" "$WATCH_OUT"); watch daemon RSS $(awk '/VmRSS/ { print $2, $3 }' /proc/"$pid"/status), peak $(awk '/VmHWM/ { print $2, $3 }' /proc/"$pid"/status)"
		stop_watch TERM
		fake_cleanup
	done
}
