#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""An HTTP server that trickles, for tests/e2e/trickle_tests.sh.

Usage: trickle_server.py PORT MODE_FILE BODY_FILE COUNT_FILE
Listens on 127.0.0.1:PORT; each GET (any path) reads MODE_FILE:
  whole    200 and BODY_FILE's bytes at once
  trickle  200 with a Content-Length of a million bytes, then spaces,
           one every TRICKLE seconds (env, default 0.5): an answer that
           goes on without ending, well within any timeout
  cut      200 with a Content-Length 1000 bytes past BODY_FILE's, its
           bytes, then the connection closed
  html     200, text/html, an error page
  e500     500 with a short body
  empty    200 with no body
  notlist  200 with text that is no list
  bypath   the mode the path's last part names (/x/cut.txt: cut)
COUNT_FILE says what was served, rewritten whole after each byte:
  whole N      answers given whole
  trickles N   trickling answers begun
  bytes N      bytes trickled (all of them)
  open N       trickling answers whose client is still there
  closed N     trickling answers whose client went away
"""
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, MODE, BODY, COUNT = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
DELAY = float(os.environ.get("TRICKLE", "0.5"))
LENGTH = 1000000

counts = {"whole": 0, "trickles": 0, "bytes": 0, "open": 0, "closed": 0}
lock = threading.Lock()


def count(**add):
    with lock:
        for k, v in add.items():
            counts[k] += v
        tmp = COUNT + ".tmp"
        with open(tmp, "w") as f:
            for k in ("whole", "trickles", "bytes", "open", "closed"):
                f.write("%s %d\n" % (k, counts[k]))
        os.rename(tmp, COUNT)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, ctype="text/plain", length=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        count(whole=1)

    def do_GET(self):
        mode = open(MODE).read().strip()
        if mode == "bypath":
            mode = self.path.rsplit("/", 1)[-1].split(".")[0]
        if mode == "cut":
            body = open(BODY, "rb").read()
            self.answer(200, body, length=len(body) + 1000)
            self.close_connection = True
            return
        if mode == "html":
            self.answer(200, b"<!DOCTYPE html>\n<html><body>Service unavailable</body></html>\n",
                        "text/html")
            return
        if mode == "e500":
            self.answer(500, b"internal error\n")
            return
        if mode == "empty":
            self.answer(200, b"")
            return
        if mode == "notlist":
            self.answer(200, b"192.0.2.1\nthis is no list\n")
            return
        if mode == "whole":
            body = open(BODY, "rb").read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            count(whole=1)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(LENGTH))
        self.end_headers()
        self.wfile.flush()
        count(trickles=1, open=1)
        try:
            for _ in range(LENGTH):
                time.sleep(DELAY)
                self.wfile.write(b" ")
                self.wfile.flush()
                count(bytes=1)
        except (BrokenPipeError, ConnectionResetError):
            pass
        count(open=-1, closed=1)
        self.close_connection = True


ThreadingHTTPServer.daemon_threads = True
server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
count()  # COUNT_FILE there: the server listens
server.serve_forever()
