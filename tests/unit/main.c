// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests: parsing, sizing, hash vectors, building. No privileges. */
#include "test_helpers.h"

BW_TEST_GLOBALS;

int main(int argc, char **argv)
{
	return bw_test_main("unit", argc, argv);
}
