#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# The Debian package: 'make deb', what the .deb holds, lintian, the units'
# offline exposure, then the .deb installed into a clean Debian 12 root
# (debootstrap --variant=minbase, in a chroot) with Debian's crowdsec there:
# the bouncer's registration at install, when crowdsec comes later and when
# crowdsec is unpacked but not configured (its pending registrations), the
# key file, the key accepted by the local API, 'bloomwall config check' of
# the installed config, and a purge that deletes the bouncer and leaves no
# path with "bloomwall" under /etc. Run by tests/run.sh beside the e2e
# suite; as root (chroot, mounts).
#
# Usage: tests/pkg/run.sh [TEST...]      (default: every test in ALL_TESTS)
# Env:   OUTPUT         the build dir (default .output): make deb's .deb
#        BW_PKG_CACHE   the debootstrap root's tarball and apt's downloads
#                       (default /var/cache/bloomwall-tests), kept between runs
#        BW_PKG_MIRROR  the Debian mirror (default http://deb.debian.org/debian)
#        V=1            every test's output, not only a failing one's
#
# Each test prints "[name] PASS|FAIL|SKIPPED (why)"; the last line is
# "pkg: N passed, N failed[, N skipped]" (tests/run.sh reads it). Where
# the mirror cannot be reached the chroot tests say so and are skipped.
# The chroot tests run in order on one root; one whose step before failed
# is skipped, naming that step.
set -u
# Debian's python3 before any version manager's shims (tests/e2e/run.sh).
export PATH=/usr/bin:$PATH
export LC_ALL=C

ALL_TESTS="test_pkg_build test_pkg_contents test_pkg_lintian test_pkg_unit_exposure
test_pkg_install_no_crowdsec test_pkg_crowdsec_later test_pkg_key_accepted
test_pkg_config_check test_pkg_purge test_pkg_register_at_install
test_pkg_pending_registration"

TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
OUTPUT=${OUTPUT:-.output}
CACHE=${BW_PKG_CACHE:-/var/cache/bloomwall-tests}
MIRROR=${BW_PKG_MIRROR:-http://deb.debian.org/debian}
EXPOSURE_MAX=4.0

if [ "$(id -u)" -ne 0 ]; then
	echo "pkg: needs root (chroot, mounts)" >&2
	exit 3
fi
# Every mount (proc, the apt cache) in a mount namespace of our own: gone
# with the suite, whatever ends it.
if [ -z "${BW_PKG_NS:-}" ]; then
	BW_PKG_NS=1 exec unshare -m --propagation private "$0" "$@"
fi

# One line each, for the matches below.
ALL_TESTS=$(tr '\n' ' ' <<<"$ALL_TESTS")
WANT=" ${*:-$ALL_TESTS} "
for t in $WANT; do
	case " $ALL_TESTS " in
	*" $t "*) ;;
	*)
		echo "pkg: no test matches '$t'" >&2
		exit 2
		;;
	esac
done

WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/bloomwall-pkg.XXXXXX")
R=$WORK/root
# The root's mounts (proc, the apt cache) off first: rm stays on WORK's
# file system whatever is left.
cleanup()
{
	local m
	awk -v r="$R/" 'index($2 "/", r) == 1 { print $2 }' /proc/self/mounts | sort -r |
		while read -r m; do
			umount -l "$m"
		done
	rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
# test_pkg_build makes it anew; a run of later tests alone takes the last.
DEB=$(find "$OUTPUT" -maxdepth 1 -name 'bloomwall_*.deb' 2>/dev/null | head -n 1)
ROOT_STATE=        # "": not made yet; ok; or why there is none
BLOCKED=           # the chroot step that failed: later ones are skipped
npass=0 nfail=0 nskip=0
took=""

# check WHAT COMMAND...: one assertion; COMMAND's output goes to the log.
check()
{
	local what=$1
	shift
	T_ASSERTS=$((T_ASSERTS + 1))
	if "$@" >>"$T_LOG" 2>&1; then
		echo "  ok: $what" >>"$T_LOG"
	else
		echo "  FAIL: $what" >>"$T_LOG"
		T_FAILED=1
	fi
}

skip()
{
	T_SKIP=$1
}

run_test()
{
	local name=$1 t0=$SECONDS
	T_LOG=$WORK/$name.log T_ASSERTS=0 T_FAILED=0 T_SKIP=
	: >"$T_LOG"
	"$name"
	took="$took${took:+, }$name $((SECONDS - t0))"
	if [ "$T_FAILED" = 1 ]; then
		echo "[$name] FAIL"
		sed 's/^/    /' "$T_LOG"
		nfail=$((nfail + 1))
		return
	fi
	[ "${V:-0}" = 1 ] && sed 's/^/    /' "$T_LOG"
	if [ -n "$T_SKIP" ]; then
		echo "[$name] SKIPPED ($T_SKIP)"
		nskip=$((nskip + 1))
	elif [ "$T_ASSERTS" -eq 0 ]; then
		echo "[$name] FAIL (no assertion)"
		nfail=$((nfail + 1))
	else
		echo "[$name] PASS"
		npass=$((npass + 1))
	fi
}

# in_root COMMAND...: COMMAND in the chroot, with a plain environment.
in_root()
{
	chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C HOME=/root "$@"
}

# chroot_ready: whether the chroot tests can run; skips (no root made) or
# fails (a step before failed) the test otherwise.
chroot_ready()
{
	if [ -z "$DEB" ]; then
		skip "no .deb (test_pkg_build)"
		return 1
	fi
	[ -z "$ROOT_STATE" ] && make_root
	if [ "$ROOT_STATE" != ok ]; then
		skip "$ROOT_STATE"
		return 1
	fi
	if [ -n "$BLOCKED" ]; then
		skip "$BLOCKED failed"
		return 1
	fi
	return 0
}

# A step of the chain failed: the tests after it say so.
block()
{
	[ "$T_FAILED" = 1 ] && [ -z "$BLOCKED" ] && BLOCKED=$1
	return 0
}

# make_root: the debootstrap root (from the cached tarball, made on the
# first run), /proc, apt's downloads kept in the cache, no service started
# (policy-rc.d), apt's lists updated. ROOT_STATE is ok, or why not.
make_root()
{
	local tar=$CACHE/bookworm-minbase.tar
	mkdir -p "$CACHE/archives/partial"
	if [ ! -s "$tar" ]; then
		echo "pkg: making the debootstrap root (once; kept in $tar)"
		if ! debootstrap --variant=minbase bookworm "$WORK/boot" "$MIRROR" \
			>"$WORK/debootstrap.log" 2>&1; then
			tail -n 5 "$WORK/debootstrap.log"
			ROOT_STATE="mirror $MIRROR not reachable: debootstrap failed"
			return
		fi
		tar -C "$WORK/boot" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
		rm -rf "${WORK:?}/boot"
	fi
	mkdir -p "$R"
	if ! tar -C "$R" -xf "$tar"; then
		ROOT_STATE="cannot unpack $tar"
		return
	fi
	cp /etc/resolv.conf "$R/etc/resolv.conf"
	echo "deb $MIRROR bookworm main" >"$R/etc/apt/sources.list"
	mount -t proc proc "$R/proc"
	mount --bind "$CACHE/archives" "$R/var/cache/apt/archives"
	printf '#!/bin/sh\n# no service starts in the test root\nexit 101\n' >"$R/usr/sbin/policy-rc.d"
	chmod 0755 "$R/usr/sbin/policy-rc.d"
	if ! in_root apt-get update -qq --error-on=any >"$WORK/apt-update.log" 2>&1; then
		tail -n 5 "$WORK/apt-update.log"
		ROOT_STATE="mirror $MIRROR not reachable: apt-get update failed in the root"
		return
	fi
	cp "$DEB" "$R/tmp/"
	ROOT_STATE=ok
}

apt_install()
{
	in_root apt-get install -y -q --no-install-recommends "$@"
}

# The bouncers the root's crowdsec knows, one name a line.
bouncers()
{
	in_root cscli bouncers list -o raw 2>/dev/null | awk -F, 'NR > 1 { print $1 }'
}

# bouncer_absent PREFIX: crowdsec answers, and no bouncer's name starts
# with PREFIX.
bouncer_absent()
{
	local out
	out=$(in_root cscli bouncers list -o raw) || return 1
	! grep -q "^$1" <<<"$out"
}

# No name under the root's /etc holds "bloomwall" (those left are said).
no_etc_paths()
{
	local p
	p=$(cd "$R" && find etc -path '*bloomwall*')
	[ -z "$p" ] && return 0
	echo "left under /etc: $p"
	return 1
}

key_file_ok()
{
	local f=$R/etc/bloomwall/bloomwall.yaml.local
	[ "$(stat -c '%a %U' "$f")" = "600 root" ] || {
		stat -c '%a %U %n' "$f"
		return 1
	}
	grep -Eq '^api_key: [0-9A-Za-z+/=]{16,}$' "$f" && grep -Eq '^api_url: http://127\.0\.0\.1:[0-9]+/$' "$f"
}

registered()
{
	local name
	name=$(cat "$R/var/lib/bloomwall/crowdsec-bouncer") || return 1
	echo "bouncer name: $name"
	case $name in
	*bloomwall*) ;;
	*) return 1 ;;
	esac
	bouncers | grep -qxF "$name"
}

test_pkg_build()
{
	rm -f "$OUTPUT"/bloomwall_*.deb
	check "make deb" make --no-print-directory OUTPUT="$OUTPUT" deb
	DEB=$(find "$OUTPUT" -maxdepth 1 -name 'bloomwall_*.deb' 2>/dev/null | head -n 1)
	check "a bloomwall_*.deb in $OUTPUT" test -s "$DEB"
}

test_pkg_contents()
{
	local x=$WORK/deb f
	[ -n "$DEB" ] || {
		skip "no .deb (test_pkg_build)"
		return
	}
	dpkg-deb -x "$DEB" "$x"
	dpkg-deb -e "$DEB" "$x/DEBIAN"
	for f in /usr/sbin/bloomwall /usr/share/man/man8/bloomwall.8.gz \
		/lib/systemd/system/bloomwall@.service /lib/systemd/system/bloomwall-crowdsec@.service \
		/usr/share/bash-completion/completions/bloomwall \
		/usr/share/zsh/vendor-completions/_bloomwall \
		/usr/share/fish/vendor_completions.d/bloomwall.fish \
		/etc/fail2ban/action.d/bloomwall.conf; do
		check "the package holds $f" test -s "$x$f"
	done
	check "the fail2ban action is a conffile" grep -qx /etc/fail2ban/action.d/bloomwall.conf "$x/DEBIAN/conffiles"
	check "crowdsec and fail2ban are suggested" \
		bash -c "dpkg-deb -f '$DEB' Suggests | grep -q crowdsec && dpkg-deb -f '$DEB' Suggests | grep -q fail2ban"
	check "the dependencies are dh_shlibdeps' (libbpf1, libxdp1)" \
		bash -c "dpkg-deb -f '$DEB' Depends | grep -q 'libbpf1' && dpkg-deb -f '$DEB' Depends | grep -q 'libxdp1'"
	check "and the libraries it opens (libcurl4, libmicrohttpd12, libsystemd0)" \
		bash -c "dpkg-deb -f '$DEB' Depends | grep -q 'libcurl4 (>= ' && dpkg-deb -f '$DEB' Depends | grep -q 'libmicrohttpd12 (>= ' && dpkg-deb -f '$DEB' Depends | grep -qw 'libsystemd0'"
	# dpkg-buildflags reached the compiler and the linker.
	check "fortified, bindnow" bash -c "readelf --dyn-syms -W '$x/usr/sbin/bloomwall' | grep -q '_chk@' &&
		readelf -d '$x/usr/sbin/bloomwall' | grep -q BIND_NOW"
	check "the units run /usr/sbin/bloomwall" grep -q '^ExecStart=/usr/sbin/bloomwall watch %I' \
		"$x/lib/systemd/system/bloomwall@.service"
	check "the completions parse" zsh -n "$x/usr/share/zsh/vendor-completions/_bloomwall"
	check "(fish)" fish -n "$x/usr/share/fish/vendor_completions.d/bloomwall.fish"
	# The files other parts of the tree bring: in the package when there.
	if [ -f user/bloomwall.yaml.5 ]; then
		check "a section-5 page" test -s "$x/usr/share/man/man5/bloomwall.yaml.5.gz"
	fi
	if [ -f scripts/bloomwall.yaml.example ]; then
		check "the config, a conffile" grep -qx /etc/bloomwall/bloomwall.yaml "$x/DEBIAN/conffiles"
	fi
	if [ -f scripts/prometheus/bloomwall.rules.yml ]; then
		check "promtool accepts the alert rules" promtool check rules "$x/usr/share/bloomwall/bloomwall.rules.yml"
	fi
	if [ -f scripts/grafana/bloomwall.json ]; then
		check "the dashboard is JSON" python3 -m json.tool "$x/usr/share/bloomwall/bloomwall.json"
	fi
}

test_pkg_lintian()
{
	[ -n "$DEB" ] || {
		skip "no .deb (test_pkg_build)"
		return
	}
	lintian --fail-on error,warning "$DEB" >"$WORK/lintian.out" 2>&1
	cat "$WORK/lintian.out" >>"$T_LOG"
	check "lintian: no E: or W: line" bash -c "! grep -E '^[EW]: ' '$WORK/lintian.out'"
}

# exposure UNIT-FILE: systemd-analyze's offline exposure of the template
# as the instance @eth0.
exposure()
{
	local d=$WORK/units u
	mkdir -p "$d"
	u=$(basename "$1" | sed 's/@\.service$/@eth0.service/')
	cp "$1" "$d/$u"
	systemd-analyze security --offline=true "$d/$u" 2>&1 |
		sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p'
}

test_pkg_unit_exposure()
{
	local x=$WORK/deb u e d=$WORK/verify
	[ -d "$x/lib/systemd/system" ] || {
		skip "no .deb unpacked (test_pkg_contents)"
		return
	}
	for u in "$x"/lib/systemd/system/*.service; do
		e=$(exposure "$u")
		echo "$(basename "$u"): exposure ${e:-?}" >>"$T_LOG"
		check "$(basename "$u") exposure $e <= $EXPOSURE_MAX" \
			awk -v e="$e" -v m="$EXPOSURE_MAX" 'BEGIN { exit !(e != "" && e + 0 <= m + 0) }'
	done
	# verify, offline: the unit parses and names commands that are there
	# (in the unpacked package; the man pages are not looked up).
	mkdir -p "$d"
	for u in "$x"/lib/systemd/system/*@.service; do
		sed "s|/usr/sbin/bloomwall|$x/usr/sbin/bloomwall|g" "$u" >"$d/$(basename "$u" | sed 's/@\./@eth0./')"
	done
	check "systemd-analyze verify" systemd-analyze verify --man=no "$d"/*.service
}

test_pkg_install_no_crowdsec()
{
	chroot_ready || return
	apt_install "/tmp/$(basename "$DEB")" >"$WORK/install.out" 2>&1
	check "apt installs the .deb" test $? -eq 0
	cat "$WORK/install.out" >>"$T_LOG"
	check "the no-CrowdSec hint, one line" \
		grep -qx "bloomwall: no CrowdSec here (cscli not found): no bouncer registered, nothing started; installing crowdsec later registers one" \
		"$WORK/install.out"
	check "no key file" test ! -e "$R/etc/bloomwall/bloomwall.yaml.local"
	check "the binary runs in the root" in_root bloomwall --version
	check "the units in place" test -s "$R/lib/systemd/system/bloomwall@.service" -a \
		-s "$R/lib/systemd/system/bloomwall-crowdsec@.service"
	check "no unit enabled" bash -c "! ls '$R'/etc/systemd/system/*.wants/bloomwall* 2>/dev/null"
	block test_pkg_install_no_crowdsec
}

# crowdsec installed with bloomwall there: the trigger registers.
test_pkg_crowdsec_later()
{
	chroot_ready || return
	# With this file there, crowdsec's postinst registers with no central API.
	mkdir -p "$R/etc/crowdsec"
	echo '# no central API in the test root' >"$R/etc/crowdsec/online_api_credentials.yaml"
	apt_install crowdsec >"$WORK/crowdsec.out" 2>&1
	check "apt installs crowdsec" test $? -eq 0
	grep -E 'bloomwall|Registered' "$WORK/crowdsec.out" >>"$T_LOG"
	check "a bouncer named bloomwall-... registered" registered
	check "the key file: 0600, root's, a filled api_key:" key_file_ok
	block test_pkg_crowdsec_later
}

# The key the package wrote is one the LAPI takes (and another is refused):
# 'crowdsec -no-cs' of the root, in a network namespace of its own.
test_pkg_key_accepted()
{
	local key url
	chroot_ready || return
	key=$(sed -n 's/^api_key: //p' "$R/etc/bloomwall/bloomwall.yaml.local")
	url=$(sed -n 's/^api_url: //p' "$R/etc/bloomwall/bloomwall.yaml.local")
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -n bash -c '
		ip link set lo up
		chroot "$1" /usr/bin/crowdsec -no-cs -c /etc/crowdsec/config.yaml >"$4/lapi.out" 2>&1 &
		pid=$!
		code=000
		for _ in $(seq 1 300); do
			code=$(curl -s -o /dev/null -w "%{http_code}" -H "X-Api-Key: $2" "$3v1/decisions")
			[ "$code" != 000 ] && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		bad=$(curl -s -o /dev/null -w "%{http_code}" -H "X-Api-Key: 0$2" "$3v1/decisions")
		kill "$pid"
		wait "$pid" 2>/dev/null
		echo "$code $bad"
	' sh "$R" "$key" "$url" "$WORK" >"$WORK/codes" 2>>"$T_LOG"
	echo "LAPI answers (the key, another key): $(cat "$WORK/codes")" >>"$T_LOG"
	check "the LAPI takes the key (200) and refuses another (403)" grep -qx '200 403' "$WORK/codes"
}

test_pkg_config_check()
{
	chroot_ready || return
	if ! in_root bloomwall --help 2>/dev/null | grep -q '^  config '; then
		skip "this build has no 'bloomwall config' verb"
		return
	fi
	check "bloomwall config check accepts the installed config and its key" \
		in_root bloomwall config check /etc/bloomwall/bloomwall.yaml
}

test_pkg_purge()
{
	local name
	chroot_ready || return
	name=$(cat "$R/var/lib/bloomwall/crowdsec-bouncer")
	in_root dpkg --purge bloomwall >>"$T_LOG" 2>&1
	check "dpkg --purge" test $? -eq 0
	check "the bouncer $name deleted" bouncer_absent "$name,"
	check "no path with bloomwall under /etc" no_etc_paths
	check "no state under /var/lib" test ! -e "$R/var/lib/bloomwall"
	block test_pkg_purge
}

# crowdsec configured before: postinst registers at once.
test_pkg_register_at_install()
{
	chroot_ready || return
	in_root dpkg -i "/tmp/$(basename "$DEB")" >"$WORK/install2.out" 2>&1
	check "dpkg -i" test $? -eq 0
	cat "$WORK/install2.out" >>"$T_LOG"
	check "registered at install, named for the host" grep -Eq \
		"^bloomwall: registered as CrowdSec bouncer bloomwall-$(uname -n)-[a-z0-9]{6}, key in /etc/bloomwall/bloomwall.yaml.local\$" \
		"$WORK/install2.out"
	check "a bouncer named bloomwall-... registered" registered
	check "the key file: 0600, root's, a filled api_key:" key_file_ok
	in_root dpkg --purge bloomwall >>"$T_LOG" 2>&1
	check "purged: no bouncer named bloomwall-..." bouncer_absent bloomwall
	check "no path with bloomwall under /etc" no_etc_paths
	block test_pkg_register_at_install
}

# crowdsec unpacked, not configured, when bloomwall is configured (Debian
# bugs #1035499, #1036985): the key is queued in crowdsec's pending
# registrations, which crowdsec's configure registers.
test_pkg_pending_registration()
{
	local cs
	chroot_ready || return
	cs=$(find "$R/var/cache/apt/archives" -name 'crowdsec_*.deb' | sort | tail -n 1)
	[ -n "$cs" ] || {
		check "crowdsec's .deb in apt's cache" false
		return
	}
	in_root dpkg --purge crowdsec >>"$T_LOG" 2>&1
	echo '# no central API in the test root' >"$R/etc/crowdsec/online_api_credentials.yaml"
	in_root dpkg --unpack "/var/cache/apt/archives/$(basename "$cs")" >>"$T_LOG" 2>&1
	check "crowdsec unpacked, not configured" bash -c "chroot '$R' dpkg-query -W -f '\${Status}' crowdsec | grep -q unpacked"
	in_root dpkg -i "/tmp/$(basename "$DEB")" >"$WORK/install3.out" 2>&1
	cat "$WORK/install3.out" >>"$T_LOG"
	check "queued at install" grep -q "queued for crowdsec's configuration" "$WORK/install3.out"
	check "the key file: 0600, root's, a filled api_key:" key_file_ok
	in_root dpkg --configure -a >"$WORK/configure.out" 2>&1
	check "crowdsec configured" test $? -eq 0
	cat "$WORK/configure.out" >>"$T_LOG"
	check "crowdsec's configure registered it" registered
	check "no registration left pending" test ! -e "$R/var/lib/crowdsec/pending-registration"
	in_root dpkg --purge bloomwall >>"$T_LOG" 2>&1
	check "purged: no bouncer named bloomwall-..." bouncer_absent bloomwall
	check "no path with bloomwall under /etc" no_etc_paths
}

for t in $ALL_TESTS; do
	case $WANT in
	*" $t "*) run_test "$t" ;;
	esac
done
echo "pkg: seconds: $took"
if [ "$nskip" -gt 0 ]; then
	echo "pkg: $npass passed, $nfail failed, $nskip skipped"
else
	echo "pkg: $npass passed, $nfail failed"
fi
[ "$nfail" -eq 0 ]
