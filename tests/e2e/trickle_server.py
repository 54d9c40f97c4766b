#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""An HTTP server that trickles, for tests/e2e/trickle_tests.sh.

Usage: trickle_server.py PORT MODE_FILE BODY_FILE COUNT_FILE
Listens on 127.0.0.1:PORT; each GET (any path) reads MODE_FILE:
  whole    200 and BODY_FILE's bytes at once
  trickle  200 with a Content-Length of a million bytes, then spaces,
           one every TRICKLE seconds (env, default 0.5): an answer that
           goes on without ending, well within any timeout
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

    def do_GET(self):
        mode = open(MODE).read().strip()
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
