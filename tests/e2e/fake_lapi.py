#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""A CrowdSec LAPI that misbehaves, for tests/e2e/crowdsec_tests.sh.

Usage: fake_lapi.py PORT MODE_FILE LOG_FILE
Listens on 127.0.0.1:PORT; each request to /v1/decisions/stream reads
MODE_FILE and answers:
  ok         200, one decision (id 1, Ip 10.77.0.2, 1h) in a full answer
             (startup=true), nothing new in a delta
  500        500 with an HTML page
  500stream  500 whose body is a well-formed stream deleting decision 1
             (a proxy's or a broken LAPI's): never to be applied
  slow       the answer after 5 s
  hang       no answer for 120 s
  cut        200 whose body ends before its Content-Length
  malformed  200 with bytes that are not a decision stream
  big        200, a full answer of BIG decisions (env BIG, default
             1000000), streamed, ids 1..BIG on 100.64.0.0/10, plus id 1
Each request's path is appended to LOG_FILE. With TLS_DIR set in the
environment: https with TLS_DIR/srv.pem and srv.key, a client certificate
signed by TLS_DIR/ca.pem required.
"""
import os
import ssl
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, MODE, LOG = int(sys.argv[1]), sys.argv[2], sys.argv[3]
DECISION = ('{"duration":"%s","id":%d,"origin":"cscli","scenario":"%s",'
            '"scope":"Ip","type":"ban","value":"%s"}')


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, ctype="application/json", length=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length",
                         str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)

    def big(self):
        n = int(os.environ.get("BIG", "1000000"))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def chunk(s):
            b = s.encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(b), b))

        chunk('{"deleted":null,"new":[' +
              DECISION % ("1h", 1, "fake", "10.77.0.2"))
        batch = []
        for i in range(n):
            a = 2 * i
            v = "100.%d.%d.%d" % (64 + a // 65536, a // 256 % 256, a % 256)
            batch.append("," + DECISION % ("1h", i + 2, "big", v))
            if len(batch) == 5000:
                chunk("".join(batch))
                batch = []
        chunk("".join(batch) + "]}")
        self.wfile.write(b"0\r\n\r\n")

    def do_GET(self):
        try:
            self.answer()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout): nothing to say

    def answer(self):
        with open(LOG, "a") as f:
            f.write(self.path + "\n")
        mode = open(MODE).read().strip()
        full = "startup=true" in self.path
        if mode == "ok":
            body = ('{"deleted":null,"new":[%s]}' %
                    (DECISION % ("1h", 1, "fake", "10.77.0.2"))
                    if full else '{"deleted":null,"new":null}')
            self.reply(200, body.encode())
        elif mode == "500":
            self.reply(500, b"<html><body>500 Internal Server Error</body></html>",
                       "text/html")
        elif mode == "500stream":
            self.reply(500, ('{"deleted":[%s],"new":null}' %
                             (DECISION % ("1h", 1, "fake", "10.77.0.2"))).encode())
        elif mode == "slow":
            time.sleep(5)
            self.reply(200, b'{"deleted":null,"new":null}')
        elif mode == "hang":
            time.sleep(120)
        elif mode == "cut":
            self.reply(200, b'{"deleted":null,"new":[{"id":1', length=1000)
            self.close_connection = True
        elif mode == "malformed":
            self.reply(200, b'{"deleted":null,"new":[{"id":1,}]}')
        elif mode == "big":
            self.big()


server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
if os.environ.get("TLS_DIR"):
    d = os.environ["TLS_DIR"]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(d + "/srv.pem", d + "/srv.key")
    ctx.load_verify_locations(d + "/ca.pem")
    ctx.verify_mode = ssl.CERT_REQUIRED
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
server.serve_forever()
