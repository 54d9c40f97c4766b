# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# End-to-end tests of the config file (bloomwall.yaml(5)): a watch started
# with --config drops what its lists hold, interfaces.IFACE over the top
# level, FILE.local over FILE, the command line over both; config check
# names each error with its line, refuses what must be refused (a key
# readable by others, a device, a FIFO, a huge file, aliases) and runs
# unprivileged; config show prints every key, defaults included; and a
# config in cs-firewall-bouncer's keys makes a bouncer of the real local
# API. Sourced by tests/e2e/run.sh after crowdsec_tests.sh and
# ops_tests.sh, whose helpers (cs_setup, start_watch, ...) they use.
#
# run.sh lists them with: ALL_TESTS="$ALL_TESTS $CONFIG_TESTS"

# shellcheck disable=SC2034 # read by run.sh
CONFIG_TESTS="test_config_watch test_config_check test_config_show
test_config_crowdsec"

DEPRECATED="bloomwall watch: BLOOMWALL_ARGS (the unit's environment file) is deprecated and goes in the next release: put these settings in /etc/bloomwall/bloomwall.yaml (bloomwall.yaml(5)), the unit's --config"

# conf_run ARGS...: a watch with ARGS, its first rebuild waited for.
conf_run()
{
	start_watch "$@"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
}

test_config_watch()
{
	local l1 l2 conf=$TMP_DIR/bloomwall.yaml

	trap kill_watch EXIT
	l1=$(list one.txt "$BW_A4")
	l2=$(list two.txt "$BW_B4")
	# monitor at the top level, off for this interface: the interface's
	# section wins, so the listed address is dropped.
	cat >"$conf" <<EOF2
# the test's own
lists:
  - $l1
seed: 4242
debounce: 0.2
monitor: true
interfaces:
  $BW_RX:
    monitor: false
  other0:
    lists: [$l2]
EOF2
	bw 0 config check "$conf"
	assert_line "$OUT" "$conf: ok" "config check"
	conf_run --config "$conf"
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	grep -qF "BLOOMWALL_ARGS" "$WATCH_ERR" && fail "warned without BLOOMWALL_ARGS"
	stop_watch TERM

	# FILE.local over FILE, key by key: its lists, FILE's seed and all.
	printf 'lists: [%s]\n' "$l2" >"$conf.local"
	conf_run --config "$conf"
	expect_dropped "$BW_B4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_A4" "$BW_RX4"
	stop_watch TERM

	# The command line over both; BLOOMWALL_ARGS warns once.
	export BLOOMWALL_ARGS="--debounce 0.2"
	conf_run --config "$conf" "$l1"
	unset BLOOMWALL_ARGS
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	assert_line "$WATCH_ERR" "$DEPRECATED" "the deprecation warning"
	assert_eq "$(grep -cF BLOOMWALL_ARGS "$WATCH_ERR")" 1 "warned once"
	stop_watch TERM

	# A bad value: the watch does not start, and says where.
	printf 'fpr: 7\n' >"$conf.local"
	bw 1 watch "$BW_RX" --config "$conf"
	assert_line "$ERR" "bloomwall $conf.local:1: fpr: --fpr takes a false-positive rate between 0 and 0.5 exclusive (e.g. 0.001 or 0.1%), not '7'" \
		"the watch names the file, line and key"
}

test_config_check()
{
	local f=$TMP_DIR/bad.yaml k=$TMP_DIR/key.yaml d

	cat >"$f" <<EOF2
# errors on purpose
fpx: 0.01
seed: banana
lists: {a: b}
interfaces:
  $BW_RX:
    dns_action: nope
update_frequency: 10s
insecure_skip_verify: true
EOF2
	bw 1 config check "$f"
	assert_line "$ERR" "bloomwall $f:2: fpx: unknown key (fpr?)" "unknown key"
	assert_line "$ERR" "bloomwall $f:3: seed: --seed takes a number from 0 to 4294967295 (decimal, or hexadecimal after 0x), not 'banana'" \
		"a bad value, as the option's parser says it"
	assert_line "$ERR" "bloomwall $f:4: lists: takes a list or a value, not a mapping" \
		"a wrong type"
	assert_line "$ERR" "bloomwall $f:7: interfaces.$BW_RX.dns_action: --dns-action must be null, nxdomain, refused or drop, not 'nope'" \
		"an interface's key"
	assert_line "$ERR" "bloomwall $f:9: insecure_skip_verify: bloomwall always checks the local API's certificate: give its CA with ca_cert_path instead" \
		"a cs-firewall-bouncer setting refused"
	assert_eq "$(wc -l <"$ERR")" 5 "one line an error, update_frequency 10s taken"
	assert_eq "$(wc -c <"$OUT")" 0 "nothing on stdout"

	# The key in a file others can read: refused, the fix said.
	printf 'api_url: http://127.0.0.1:8080\napi_key: 0123abcd\n' >"$k"
	chmod 0644 "$k"
	bw 1 config check "$k"
	assert_line "$ERR" "bloomwall $k: refused: the config file is open to group or others (mode 0644): chmod 600 $k" \
		"a readable key"
	chmod 0600 "$k"
	bw 0 config check "$k"
	assert_line "$OUT" "$k: ok" "the same file, 0600"
	# The key in a file of its own: read as the watch will.
	printf '0123abcd\n' >"$TMP_DIR/bouncer.key"
	chmod 0644 "$TMP_DIR/bouncer.key"
	printf 'api_key_file: %s\n' "$TMP_DIR/bouncer.key" >"$k"
	bw 1 config check "$k"
	assert_line "$ERR" "bloomwall $k:1: api_key_file: --crowdsec-key-file $TMP_DIR/bouncer.key refused: the API key file is open to group or others (mode 0644): chmod 600 $TMP_DIR/bouncer.key" \
		"a readable key file"
	chmod 0600 "$TMP_DIR/bouncer.key"
	bw 0 config check "$k"

	# What is no config file: said, never read or waited on.
	bw 1 config check /dev/zero
	assert_line "$ERR" "/dev/zero: not a regular file (a character device): the config file must be one" "/dev/zero"
	mkfifo "$TMP_DIR/fifo"
	bw 1 config check "$TMP_DIR/fifo"
	assert_line "$ERR" "$TMP_DIR/fifo: not a regular file (a FIFO): the config file must be one" "a FIFO"
	yes 'x: y' | head -c 2000000 >"$TMP_DIR/big.yaml"
	bw 1 config check "$TMP_DIR/big.yaml"
	assert_line "$ERR" "bloomwall $TMP_DIR/big.yaml: larger than 1048576 bytes" "a huge file"
	printf 'a: &a [x, x, x, x]\nb: [*a, *a, *a, *a]\n' >"$TMP_DIR/laughs.yaml"
	bw 1 config check "$TMP_DIR/laughs.yaml"
	assert_line "$ERR" "bloomwall $TMP_DIR/laughs.yaml:1: anchors and aliases (&, *) are not taken" "aliases"
	bw 2 config check
	bw 2 config lint "$k"

	# Unprivileged: no BPF, no capability (a directory nobody can read).
	d=$(mktemp -d /tmp/bwconf.XXXXXX)
	chmod 0755 "$d"
	printf 'fpr: 0.01\nlists: [/x]\n' >"$d/c.yaml"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$BLOOMWALL" config check "$d/c.yaml" >"$OUT" 2>"$ERR"
	assert_eq "$?:$(cat "$OUT")" "0:$d/c.yaml: ok" "config check as nobody"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$BLOOMWALL" config show "$d/c.yaml" >"$OUT" 2>"$ERR"
	assert_eq "$?" 0 "config show as nobody"
	assert_line "$OUT" "fpr: 0.01  # $d/c.yaml:1" "show as nobody"
	rm -rf "$d"
}

test_config_show()
{
	local f=$TMP_DIR/show.yaml

	cat >"$f" <<EOF2
seed: 7
api_key: secretkey123
origins: [cscli, crowdsec]
interfaces:
  $BW_RX:
    fpr: 0.02
EOF2
	chmod 0600 "$f"
	bw 0 config show "$f"
	assert_line "$OUT" "seed: 7  # $f:1" "a value and where it is from"
	assert_line "$OUT" "fpr: 0.001  # default" "a default"
	assert_line "$OUT" "interval: 10  # default" "the watch's default"
	assert_line "$OUT" "update_frequency: 10s  # default" "a CrowdSec default"
	assert_line "$OUT" "origins: [cscli, crowdsec]  # $f:3" "a list"
	assert_line "$OUT" 'api_key: "(redacted)"  # '"$f:2" "the key redacted"
	grep -qF secretkey123 "$OUT" && fail "the key was shown"
	assert_line "$OUT" "  enabled: false  # default" "prometheus, nested"
	# Every key of the table once (the man page lists the same).
	assert_eq "$(grep -cE '^ *[a-z_]+: ' "$OUT")" \
		"$(grep -cE '^ *[a-z_]+: .*  # ' "$OUT")" "each key says where"
	bw 0 config show "$f" --interface "$BW_RX"
	assert_line "$OUT" "fpr: 0.02  # $f:6" "the interface's section"
	bw 2 config show "$f" --interface 'no/such'
	bw 2 config check "$f" --interface "$BW_RX"

	# The example: valid as shipped (all commented out) and with every
	# key set ('#key:' and '#  ' lines uncommented), which sets every key
	# but api_key_file (its alternative to api_key, in prose).
	cp "$TOP/scripts/bloomwall.yaml.example" "$TMP_DIR/ex.yaml"
	bw 0 config check "$TMP_DIR/ex.yaml"
	sed -E 's/^#([a-z_]+:|  )/\1/' "$TOP/scripts/bloomwall.yaml.example" >"$TMP_DIR/all.yaml"
	chmod 0600 "$TMP_DIR/all.yaml"
	bw 0 config check "$TMP_DIR/all.yaml"
	bw 0 config show "$TMP_DIR/all.yaml" --interface eth1
	assert_eq "$(grep -E '  # default$' "$OUT")" "api_key_file: null  # default" \
		"the example sets every key"
	assert_line "$OUT" "monitor: true  # $TMP_DIR/all.yaml:$(grep -n '^#    monitor: true' "$TMP_DIR/ex.yaml" | cut -d: -f1)" \
		"the example's interface section"
}

# cs-firewall-bouncer's keys, the key in FILE.local as a postinst writes
# it: a bouncer of the real local API.
test_config_crowdsec()
{
	local conf=$TMP_DIR/bloomwall.yaml n

	trap cs_cleanup EXIT
	cs_setup
	cs_start
	cat >"$conf" <<EOF2
lists: [$(cs_list)]
seed: 4242
log_rate: 100
update_frequency: 0.5
supported_decisions_types: [ban]
origins: [cscli]
scopes: [ip, range]
insecure_skip_verify: false
EOF2
	(umask 077 && printf 'api_url: %s\napi_key: %s\n' "$CS_URL" "$(cat "$CS_KEY")" \
		>"$conf.local")
	bw 0 config check "$conf"
	start_watch --config "$conf"
	wait_line "$WATCH_OUT" "$SYNC_OK"
	wait_line "$WATCH_OUT" "$RELOAD_OK"
	assert_grep "$WATCH_OUT" "^$BW_RX: crowdsec: bouncer of $CS_URL, every 0.5 s\$" "start line"
	expect_delivered "$BW_A4" "$BW_RX4"
	n=$(updates)
	cs_add --ip "$BW_A4" --duration 1h --reason from-config
	wait_updates $((n + 1))
	expect_dropped "$BW_A4" "$BW_RX4" dropped_v4
	expect_delivered "$BW_B4" "$BW_RX4"
	stop_watch TERM
}
