#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Installs every Debian package that building, testing, the demo and the
# benchmark need. Idempotent: quiet and quick when all is there.
set -eu

PKGS="make gcc clang llvm pkg-config libbpf-dev libxdp-dev xdp-tools bpftool
libelf-dev zlib1g-dev iproute2 iputils-ping tcpdump python3 python3-scapy
util-linux libclang-rt-14-dev libjson-c-dev"

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
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
