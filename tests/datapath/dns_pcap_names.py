#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The DNS queries of a capture, as an independent dissector (scapy) reads
them, for tests/datapath/test_dns_pcap.c.

Usage: dns_pcap_names.py CAPTURE
Prints one line per frame that is a standard DNS query over UDP to port 53
(not a fragment, QR=0, OPCODE 0, one question): "INDEX NAME", INDEX the
frame's number from 0, NAME the question's name case-folded, without the
trailing dot ("." for the root). Exits non-zero if the capture cannot be
read.
"""
import sys

from scapy.all import DNS, IP, IPv6, IPv6ExtHdrFragment, UDP, rdpcap


def is_fragment(pkt):
    if IP in pkt and (pkt[IP].flags.MF or pkt[IP].frag):
        return True
    return IPv6ExtHdrFragment in pkt


def main():
    for i, pkt in enumerate(rdpcap(sys.argv[1])):
        if UDP not in pkt or pkt[UDP].dport != 53 or is_fragment(pkt):
            continue
        if DNS not in pkt:
            continue
        dns = pkt[DNS]
        if dns.qr != 0 or dns.opcode != 0 or dns.qdcount != 1 or not dns.qd:
            continue
        name = dns.qd[0].qname.decode("ascii", "replace").rstrip(".")
        print(i, name.lower() or ".")


if __name__ == "__main__":
    main()
