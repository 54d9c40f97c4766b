// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Unit tests of the layers above the kernel-free ones (kernel helpers
 * that need no BPF, out, ops, cmd). No privileges. tests/unit links the
 * kernel-free layers alone; these link everything.
 */
#include "test_helpers.h"

BW_TEST_GLOBALS;

int main(int argc, char **argv)
{
	return bw_test_main("upper", argc, argv);
}
