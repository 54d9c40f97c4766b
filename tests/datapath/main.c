// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Datapath tests: the XDP program through BPF_PROG_TEST_RUN (needs root). */
#include "test_helpers.h"

BW_TEST_GLOBALS;

int main(int argc, char **argv)
{
	return bw_test_main("datapath", argc, argv);
}
