# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# Debian's nginx as the tests' web server, sourced by tests/e2e/run.sh:
# one configuration skeleton and one start and stop for every test that
# serves files or proxies (url_tests.sh, fleet_tests.sh, hostile_tests.sh,
# metrics_tests.sh through url_tests.sh). Everything of one server lives
# in its directory DIR: nginx.conf, the pid, error.log, access.log, the
# temporary paths, nginx's own output (stdout) and the pid the test
# started (serve.pid).

# nginx_needed: the test is skipped where Debian's nginx is not installed.
nginx_needed()
{
	command -v nginx >/dev/null || skip "no nginx (Debian package nginx)"
}

# nginx_conf DIR LOG_FORMAT HTTP...: DIR/nginx.conf, its access log
# DIR/access.log in LOG_FORMAT (nginx's log_format string), HTTP (the
# server blocks and any other lines of the http block) as given.
nginx_conf()
{
	local d=$1 format=$2

	shift 2
	mkdir -p "$d/tmp" || return 1
	cat >"$d/nginx.conf" <<EOF
user root;
worker_processes 1;
pid $d/nginx.pid;
error_log $d/error.log;
events { worker_connections 512; }
http {
	log_format test '$format';
	access_log $d/access.log test;
	client_body_temp_path $d/tmp/body;
	proxy_temp_path $d/tmp/proxy;
	fastcgi_temp_path $d/tmp/fastcgi;
	uwsgi_temp_path $d/tmp/uwsgi;
	scgi_temp_path $d/tmp/scgi;
	$*
}
EOF
}

# nginx_serve DIR URL [NETNS]: nginx on DIR/nginx.conf in the background
# (in the named network namespace NETNS, else the caller's); returns once
# URL answers there. Fails the test, with nginx's errors, if it does not
# within 10 s (a bound).
nginx_serve()
{
	local d=$1 url=$2 in=()

	[ -n "${3:-}" ] && in=(nsenter --net="/run/netns/$3")
	"${in[@]}" nginx -c "$d/nginx.conf" -g 'daemon off;' \
		>>"$d/stdout" 2>&1 &
	echo $! >"$d/serve.pid"
	serving $! "$url" 100 "${in[@]}" && return 0
	cat "$d/error.log" "$d/stdout" 2>/dev/null
	fail "nginx does not answer on $url"
}

# nginx_stop DIR: the nginx nginx_serve started on DIR ends (SIGTERM,
# waited for); nothing if none runs.
nginx_stop()
{
	local pid

	pid=$(cat "$1/serve.pid" 2>/dev/null) || return 0
	rm -f "$1/serve.pid"
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}
