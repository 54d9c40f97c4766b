#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Clients of a watch's socket for tests/e2e/sock_tests.sh, polite and not.
# Each prints what the watch did to it, one "key value" line per count, so
# the test counts what was served.
#
#   ask SOCK QUESTION      the answer line, and "seconds S" on stderr
#   drip SOCK SECONDS      for SECONDS (or until the watch is gone), a
#                          connection at a time sends one byte every
#                          0.8 s until the watch closes it
#   silent SOCK N          N connections that say nothing; "open" once all
#                          are connected, then what became of them
#   big SOCK BYTES         one question of BYTES bytes and its newline
import socket
import sys
import time

DRIP = 0.8


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def read_all(s, timeout):
    """What the watch sends until it closes (None: it did not, in time)."""
    s.settimeout(timeout)
    data = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                return data
            data += b
    except (socket.timeout, BlockingIOError):
        return None
    except ConnectionResetError:
        return data


def kind(answer):
    """A closed client's answer, in a word."""
    if answer is None:
        return "open"
    if not answer:
        return "nothing"
    for word, key in (("not whole", "late"), ("busy", "busy"),
                      ("too long", "too_long"),
                      ("not allowed", "refused")):
        if word.encode() in answer:
            return key
    return "answer"


def ask(path, question):
    t = time.monotonic()
    s = connect(path)
    try:
        s.sendall(question.encode() + b"\n")
    except OSError as e:
        # Refused at once: the error line is still there to read.
        print("send", e.__class__.__name__, file=sys.stderr)
    answer = read_all(s, 5)
    print("seconds %.3f" % (time.monotonic() - t), file=sys.stderr)
    sys.stdout.write(answer.decode() if answer is not None else "")
    return 0 if answer else 1


def drip(path, seconds):
    counts = {}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            s = connect(path)
        except OSError:
            # The watch is gone.
            counts["gone"] = 1
            break
        answer = None
        while answer is None and time.monotonic() < end:
            try:
                s.send(b"s")
            except OSError:
                answer = read_all(s, 0.1) or b""
                break
            answer = read_all(s, DRIP)
        k = kind(answer)
        counts[k] = counts.get(k, 0) + 1
        s.close()
    for k in sorted(counts):
        print(k, counts[k])
    return 0


def silent(path, n):
    import resource
    import selectors

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, n + 64)),
                                                hard))
    conns = [connect(path) for _ in range(n)]
    print("open", flush=True)
    sel = selectors.DefaultSelector()
    for s in conns:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, b"")
    counts = {}
    end = time.monotonic() + 10
    while sel.get_map() and time.monotonic() < end:
        for key, _ in sel.select(0.5):
            s = key.fileobj
            try:
                b = s.recv(65536)
            except ConnectionResetError:
                b = b""
            if b:
                sel.modify(s, selectors.EVENT_READ, key.data + b)
                continue
            k = kind(key.data)
            counts[k] = counts.get(k, 0) + 1
            sel.unregister(s)
            s.close()
    if sel.get_map():
        counts["open"] = len(sel.get_map())
    for k in sorted(counts):
        print(k, counts[k])
    return 0


def big(path, n):
    s = connect(path)
    try:
        s.sendall(b"x" * n + b"\n")
    except OSError as e:
        print("send", e.__class__.__name__, file=sys.stderr)
    answer = read_all(s, 5)
    sys.stdout.write(answer.decode() if answer else "")
    return 0 if answer else 1


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "ask":
        return ask(path, sys.argv[3])
    if mode == "drip":
        return drip(path, float(sys.argv[3]))
    if mode == "silent":
        return silent(path, int(sys.argv[3]))
    if mode == "big":
        return big(path, int(sys.argv[3]))
    print("unknown mode", mode, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
