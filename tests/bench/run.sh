#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Runs the benchmark: makes a veth pair between two fresh namespaces for the
# drop-rate figure (removed on every exit path), then the harness.
# Usage: run.sh BENCH_BINARY RESULTS_FILE [harness options]
# BENCH_QUICK=1 in the environment: smaller sizes, fewer trials.
# Harness options (make bench BENCH_ARGS="..."): --sizes 123666,10000000
# picks the random list sizes; --bloom-only skips the exact structures (a
# one-minute A/B of bloomwall against the bare lookup); --parts tmsvc picks
# the parts (t table, 6 IPv6 table, m mixed list, d DNS names, s build and
# swap, v veth, a DNS answers on the veth, c one packet through the CLI's
# program, i live entries in place against rebuild and swap); --trials N.
# Then, unless BENCH_E2E=0, the end-to-end DNS run (dnsperf.sh: dnsperf
# against unbound, and against bloomwall in front of it), appended to the
# results; then, unless BENCH_PULL=0, a watch --url's pull from nginx
# against a reload (pull.sh); then, unless BENCH_URLS=0, a list by URL
# kept fresh by a watch (urls.sh: a 304 refresh, a changed 1M list);
# then, unless BENCH_REMOVE=0, the CLI's
# remove handed to a watch against its rebuild (remove.sh); then, unless
# BENCH_ADDS=0, add handed to a watch against its copy and swap (one add,
# fail2ban-style bans and unbans, a bulk remove: adds.sh); then, unless
# BENCH_EGRESS=0, the host's own UDP out through a veth with bloomwall
# --egress against an nftables set in the output hook (egress.sh); then,
# unless BENCH_CROWDSEC=0, the CrowdSec bouncer against the real LAPI
# (test_cs_bench in crowdsec_tests.sh).

set -u

bin=$1
results=$2
shift 2

if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root (BPF_PROG_TEST_RUN, XDP, network namespaces)" >&2
	exit 1
fi
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf

tag=bwbench-$$-$RANDOM
nsa=$tag-a
nsb=$tag-b
deva=bwb$$a
devb=bwb$$b

# shellcheck disable=SC2317 # run by the EXIT trap below
cleanup() {
	ip netns del "$nsa" 2>/dev/null
	ip netns del "$nsb" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

veth=()
if ip netns add "$nsa" && ip netns add "$nsb" &&
   ip -n "$nsa" link add "$deva" type veth peer name "$devb" netns "$nsb" &&
   ip -n "$nsa" link set "$deva" up && ip -n "$nsb" link set "$devb" up; then
	veth=(--veth "$nsa:$deva:$nsb:$devb")
else
	echo "bench: cannot make the veth pair; no drop-rate figure" >&2
fi

mkdir -p "$(dirname "$results")"
cd "$(dirname "$0")/../.." || exit 1
"$bin" --out "$results" "${veth[@]}" "$@"
rc=$?
if [ $rc = 0 ] && [ "${BENCH_E2E:-1}" != 0 ]; then
	if [ "${BENCH_QUICK:-0}" != 0 ]; then
		tests/bench/dnsperf.sh "$bin" "$results" 20000 3
	else
		tests/bench/dnsperf.sh "$bin" "$results" 100000 10
	fi
	rc=$?
fi
# The fleet's pull against a reload (pull.sh), unless BENCH_PULL=0.
if [ $rc = 0 ] && [ "${BENCH_PULL:-1}" != 0 ]; then
	if [ "${BENCH_QUICK:-0}" != 0 ]; then
		tests/bench/pull.sh "$(dirname "$bin")/../bloomwall" "$results" 1000000
	else
		tests/bench/pull.sh "$(dirname "$bin")/../bloomwall" "$results" 10000000
	fi
	rc=$?
fi
# A list by URL kept fresh by a watch (urls.sh), unless BENCH_URLS=0.
if [ $rc = 0 ] && [ "${BENCH_URLS:-1}" != 0 ]; then
	tests/bench/urls.sh "$(dirname "$bin")/../bloomwall" "$results" 1000000
	rc=$?
fi
# remove with a watch (in place) against without (rebuild), the CLI
# (remove.sh), unless BENCH_REMOVE=0.
if [ $rc = 0 ] && [ "${BENCH_REMOVE:-1}" != 0 ]; then
	if [ "${BENCH_QUICK:-0}" != 0 ]; then
		tests/bench/remove.sh "$(dirname "$bin")/../bloomwall" "$results" 1000000 5
	else
		tests/bench/remove.sh "$(dirname "$bin")/../bloomwall" "$results" 10000000 10
	fi
	rc=$?
fi
# add with a watch (in place) against BLOOMWALL_ADD_SWAP=1 (copy, swap,
# the watch's takeover), bans and unbans, a bulk remove (adds.sh), unless
# BENCH_ADDS=0.
if [ $rc = 0 ] && [ "${BENCH_ADDS:-1}" != 0 ]; then
	if [ "${BENCH_QUICK:-0}" != 0 ]; then
		tests/bench/adds.sh "$(dirname "$bin")/../bloomwall" "$results" 1000000 5 100000 100
	else
		tests/bench/adds.sh "$(dirname "$bin")/../bloomwall" "$results" 10000000 20 100000 1000
	fi
	rc=$?
fi
# bloomwall --egress against nft's output hook, the host's own traffic
# (egress.sh: sizes, trials, seconds a row), unless BENCH_EGRESS=0.
if [ $rc = 0 ] && [ "${BENCH_EGRESS:-1}" != 0 ]; then
	if [ "${BENCH_QUICK:-0}" != 0 ]; then
		tests/bench/egress.sh "$bin" "$(dirname "$bin")/../bloomwall" "$results" 1000000 3 1
	else
		tests/bench/egress.sh "$bin" "$(dirname "$bin")/../bloomwall" "$results" 1000000,10000000 5 2
	fi
	rc=$?
fi
# The CrowdSec bouncer against the real LAPI (crowdsec_tests.sh
# test_cs_bench: cscli decisions add to the first dropped frame, startup
# from 100k and 1M decisions), unless BENCH_CROWDSEC=0 or no crowdsec.
if [ $rc = 0 ] && [ "${BENCH_CROWDSEC:-1}" != 0 ] && command -v crowdsec >/dev/null; then
	cs_out=$(V=1 BLOOMWALL=$(realpath "$(dirname "$bin")/../bloomwall") \
		tests/e2e/run.sh test_cs_bench 2>&1)
	rc=$?
	{
		echo
		echo "## CrowdSec bouncer (real LAPI, crowdsec_tests.sh test_cs_bench)"
		echo
		grep -E '^ *BENCH ' <<<"$cs_out" | sed 's/^ *BENCH /- /'
	} >>"$results"
	grep -E '^ *BENCH |^\[' <<<"$cs_out" >&2
fi
[ $rc = 0 ] && echo "bench: results written to $results" >&2
exit $rc
