#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Installs every Debian package that building, testing, the demo, the
# benchmark, the fuzzers, make deb and its test (tests/pkg) and CI
# (.ci/run: clang-format, shellcheck) need.
# Idempotent: quiet and quick when all is there. Run by make deps, make test,
# make demo (and the other goals that run something) and .ci/run; a plain
# make only checks for the tools and names the missing package.
set -eu

PKGS="make gcc clang llvm pkg-config libbpf-dev libxdp-dev xdp-tools bpftool
libelf-dev zlib1g-dev iproute2 iputils-ping tcpdump python3 python3-scapy
util-linux libcap2-bin libclang-rt-14-dev libjson-c-dev libxxhash-dev clang-format shellcheck strace
unbound bind9-dnsutils dnsperf systemd prometheus libcurl4-openssl-dev
libsodium-dev libsystemd-dev nginx fail2ban crowdsec inotify-tools sqlite3
libyaml-dev debhelper dpkg-dev lintian debootstrap curl zsh fish
libmicrohttpd-dev nftables
liblzma-dev libbz2-dev"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing" >&2
	echo "install-deps: run as root (or: sudo $0)" >&2
	exit 1
fi
echo "install-deps: installing$missing"
# CrowdSec's package registers with the central API at install unless this
# file is there; holding only a comment, it registers with none (the tests
# run only a local API of their own).
if [ ! -e /etc/crowdsec/online_api_credentials.yaml ]; then
	mkdir -p /etc/crowdsec
	echo '# no central API: bloomwall tests run a local API only' \
		>/etc/crowdsec/online_api_credentials.yaml
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
