// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Datapath tests: the XDP program through BPF_PROG_TEST_RUN (needs root).
 *
 * Without root, or as root without the capabilities the tests use, no test
 * could run: the suite says so and exits 3 (BW_TEST_EXIT_NEEDS_ROOT) before
 * running any, instead of a summary line of skips.
 */
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "test_helpers.h"

BW_TEST_GLOBALS;

/*
 * CAP_SYS_ADMIN: loading the program, BPF_PROG_TEST_RUN, bpffs pins and
 * opening maps by id (the kernel grants CAP_BPF with it); CAP_NET_ADMIN:
 * the networking program types.
 */
static const struct {
	int cap;
	const char *name;
} needed[] = {
	{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
	{ CAP_NET_ADMIN, "CAP_NET_ADMIN" },
};

/* True when this process may run the tests; else says why on stderr. */
static bool privileged(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};
	unsigned long long eff;
	bool ok = geteuid() == 0;
	size_t i;

	if (syscall(SYS_capget, &hdr, d))
		eff = 0;
	else
		eff = d[0].effective | (unsigned long long)d[1].effective << 32;
	for (i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		ok = ok && (eff & (1ULL << needed[i].cap));
	if (ok)
		return true;
	fprintf(stderr, "datapath: needs root (BPF_PROG_TEST_RUN, bpffs)\n");
	for (i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (!(eff & (1ULL << needed[i].cap)))
			fprintf(stderr, "  %s is not in the effective set\n",
				needed[i].name);
	return false;
}

int main(int argc, char **argv)
{
	if (!privileged())
		return BW_TEST_EXIT_NEEDS_ROOT;
	return bw_test_main("datapath", argc, argv);
}
