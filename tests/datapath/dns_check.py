#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""dns_check.py - an independent decoder for the DNS answers bloomwall's
XDP program writes (tests/datapath/test_dns*.c save them): each frame is
parsed by scapy, its IPv4 header checksum and UDP checksum recomputed by
scapy and compared, its lengths and DNS fields checked against what the
test expected. Exit status 0 only if every answer passes.

Usage: dns_check.py DIR   (DIR/manifest, one line per answer:
  FILE ACTION RCODE QTYPE QCLASS TTL HAS_ANSWER NAME WHAT...)
"""
import os
import sys

from scapy.all import DNS, DNSRR, IP, UDP, Ether, IPv6, raw  # noqa: E402


def recomputed(frame, layer, field):
    """The field as scapy computes it for the frame with the field unset."""
    copy = Ether(raw(frame))
    delattr(copy[layer], field)
    return getattr(Ether(raw(copy))[layer], field)


def check_ip(pkt, errs):
    if IP in pkt:
        ip = pkt[IP]
        if ip.chksum != recomputed(pkt, IP, "chksum"):
            errs.append("IPv4 header checksum %#x wrong" % ip.chksum)
        if ip.len != len(raw(ip)):
            errs.append("IPv4 total length %d, packet %d" %
                        (ip.len, len(raw(ip))))
        if ip.ttl != 64:
            errs.append("IPv4 TTL %d" % ip.ttl)
        return ip
    if IPv6 in pkt:
        ip6 = pkt[IPv6]
        if ip6.plen != len(raw(ip6.payload)):
            errs.append("IPv6 payload length %d, payload %d" %
                        (ip6.plen, len(raw(ip6.payload))))
        if ip6.hlim != 64:
            errs.append("IPv6 hop limit %d" % ip6.hlim)
        return ip6
    errs.append("no IP layer")
    return None


def check_udp(pkt, errs):
    if UDP not in pkt:
        errs.append("no UDP layer")
        return
    udp = pkt[UDP]
    if udp.chksum == 0 or udp.chksum != recomputed(pkt, UDP, "chksum"):
        errs.append("UDP checksum %#x wrong" % udp.chksum)
    if udp.len != len(raw(udp)):
        errs.append("UDP length %d, datagram %d" % (udp.len, len(raw(udp))))
    if udp.sport != 53:
        errs.append("UDP source port %d" % udp.sport)


def check_answer_rr(dns, qtype, ttl, errs):
    rr = dns.an
    if not isinstance(rr, DNSRR):
        errs.append("no answer record")
        return
    if rr.rrname.lower() != dns.qd.qname.lower():
        errs.append("answer name %r" % rr.rrname)
    if rr.type != qtype or rr.rclass != 1 or rr.ttl != ttl:
        errs.append("answer type %d class %d ttl %d" %
                    (rr.type, rr.rclass, rr.ttl))
    want = "0.0.0.0" if qtype == 1 else "::"
    if rr.rdlen != (4 if qtype == 1 else 16) or rr.rdata != want:
        errs.append("answer rdlen %s rdata %r" % (rr.rdlen, rr.rdata))


def check_dns(pkt, rcode, qtype, qclass, ttl, has_answer, name, errs):
    if DNS not in pkt:
        errs.append("no DNS layer")
        return
    dns = pkt[DNS]
    flags = (dns.qr, dns.opcode, dns.aa, dns.tc, dns.ra, dns.z, dns.rcode)
    if flags != (1, 0, 0, 0, 1, 0, rcode):
        errs.append("DNS qr/opcode/aa/tc/ra/z/rcode %r" % (flags,))
    counts = (dns.qdcount, dns.ancount, dns.nscount, dns.arcount)
    if counts != (1, 1 if has_answer else 0, 0, 0):
        errs.append("DNS counts qd/an/ns/ar %r" % (counts,))
    qname = dns.qd.qname.decode("ascii", "replace")
    want = name if name.endswith(".") else name + "."
    if qname != want:
        errs.append("question %r, want %r" % (qname, want))
    if dns.qd.qtype != qtype or dns.qd.qclass != qclass:
        errs.append("question type %d class %d" %
                    (dns.qd.qtype, dns.qd.qclass))
    if len(raw(dns)) != pkt[UDP].len - 8:
        errs.append("DNS message %d bytes, UDP says %d" %
                    (len(raw(dns)), pkt[UDP].len - 8))
    if has_answer:
        check_answer_rr(dns, qtype, ttl, errs)


def check(path, fields):
    action, rcode, qtype, qclass, ttl, has_answer = (int(f)
                                                     for f in fields[:6])
    name = fields[6]
    with open(path, "rb") as f:
        pkt = Ether(f.read())
    errs = []
    check_ip(pkt, errs)
    check_udp(pkt, errs)
    check_dns(pkt, rcode, qtype, qclass, ttl, has_answer == 1, name, errs)
    if action > 2:
        errs.append("action %d answers nothing" % action)
    return errs


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = sys.argv[1]
    failed = checked = 0
    with open(os.path.join(d, "manifest")) as man:
        for line in man:
            parts = line.split(None, 8)
            errs = check(os.path.join(d, parts[0]), parts[1:8])
            checked += 1
            if errs:
                failed += 1
                what = parts[8].strip() if len(parts) > 8 else parts[0]
                print("  dns_check.py: %s: %s" % (what, "; ".join(errs)))
    print("  dns_check.py: %d answers decoded by scapy, %d failed" %
          (checked, failed))
    return 1 if failed or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
