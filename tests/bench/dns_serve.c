// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The pieces of the end-to-end DNS run (tests/bench/dnsperf.sh) that need
 * the bench's names and filter: --print-names N writes the first N list
 * names, one a line (for unbound's local-zones and dnsperf's queries);
 * --dns-serve NSA:DEVA:NSB:DEVB,N attaches bloomwall's own program, with a
 * filter of those N names as subtree entries and the action REFUSED, in
 * native mode on DEVB in namespace NSB, and a plain XDP_PASS on DEVA in
 * NSA (a veth sends XDP_TX frames to its peer only when the peer runs
 * NAPI, which an XDP program turns on), then exits: both stay attached
 * until the script detaches them or deletes the namespaces.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <net/if.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "bench_dns.h"
#include "lists/names.h"
#include "bench.skel.h"
#include "bloomwall.skel.h"
#include "kernel/prog.h"

int dns_print_names(__u64 n)
{
	char name[BW_NAME_MAX + 1];
	size_t len;
	__u64 i;

	for (i = 0; i < n; i++) {
		len = dns_name(dns_labels(i), i, name);
		printf("%.*s\n", (int)len, name);
	}
	return fflush(stdout) ? -errno : 0;
}

/* Enters network namespace ns (its /var/run/netns name). */
static int enter_ns(const char *ns)
{
	char path[256];
	int fd, err;

	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	err = setns(fd, CLONE_NEWNET) ? -errno : 0;
	close(fd);
	return err;
}

static int attach(const char *ns, const char *dev, int prog_fd)
{
	int err = enter_ns(ns), ifindex;

	if (err)
		return err;
	ifindex = if_nametoindex(dev);
	if (!ifindex)
		return -ENODEV;
	return bpf_xdp_attach(ifindex, prog_fd, XDP_FLAGS_DRV_MODE, NULL);
}

int dns_serve(const char *spec, __u64 n)
{
	struct bw_filter_map fm = BW_FILTER_MAP_INIT;
	char buf[256], *p[4] = {}, *save = NULL;
	struct bench_row cost = {};
	struct bloomwall *bw = NULL;
	struct bench *sk = NULL;
	struct bw_maps maps;
	int i, prog = -1, err;

	snprintf(buf, sizeof(buf), "%s", spec);
	if (strchr(buf, ','))
		*strchr(buf, ',') = 0;
	for (i = 0; i < 4; i++) {
		p[i] = strtok_r(i ? NULL : buf, ":", &save);
		if (!p[i])
			return -EINVAL;
	}
	err = dns_make_filter(n, true, BW_DNS_REFUSED, &fm, &cost);
	if (!err) {
		bw = bloomwall__open_and_load();
		sk = bench__open_and_load();
		err = bw && sk ? 0 : -errno;
	}
	if (!err) {
		bw_maps_from_skel(bw, &maps);
		prog = bw_prog_load(&maps, &fm);
		err = prog < 0 ? prog : 0;
	}
	if (!err)
		err = attach(p[2], p[3], prog)
			      ?: attach(p[0], p[1],
					bpf_program__fd(sk->progs.xdp_pass));
	if (prog >= 0)
		close(prog);
	bench__destroy(sk);
	bloomwall__destroy(bw);
	bw_filter_close(&fm);
	return err;
}
