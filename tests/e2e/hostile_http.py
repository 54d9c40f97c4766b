#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""A server that answers as a hostile one may, for url_hostile_tests.sh.

Usage: hostile_http.py PORT DIR
Listens on 127.0.0.1:PORT; GET /MODE/NAME answers with DIR/NAME:
  file  200, its bytes at once
  ce    200, its bytes with Content-Encoding: gzip (they must be gzip)
  slow  200 with its Content-Length, its bytes in 10 pieces 0.1 s apart
  lm    200 with a Last-Modified; 304 to any If-Modified-Since
  auth  200 only with Basic credentials bob:s3cret-pw, else 401
"""
import base64
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, DIR = int(sys.argv[1]), sys.argv[2]


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        parts = self.path.strip("/").split("/")
        try:
            with open(os.path.join(DIR, os.path.basename(parts[1])), "rb") as f:
                body = f.read()
        except (IndexError, OSError):
            self.send_error(404)
            return
        want = "Basic " + base64.b64encode(b"bob:s3cret-pw").decode()
        if parts[0] == "auth" and self.headers.get("Authorization") != want:
            self.send_error(401)
            return
        if parts[0] == "lm" and self.headers.get("If-Modified-Since"):
            self.send_response(304)
            self.end_headers()
            return
        self.send_response(200)
        if parts[0] == "lm":
            self.send_header("Last-Modified", "Tue, 14 Nov 2023 22:13:20 GMT")
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        if parts[0] == "ce":
            self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        if parts[0] != "slow":
            self.wfile.write(body)
            return
        step = len(body) // 10 + 1
        for i in range(0, len(body), step):
            self.wfile.write(body[i:i + step])
            self.wfile.flush()
            time.sleep(0.1)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
