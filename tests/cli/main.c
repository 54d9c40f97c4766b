// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Command-line tests: the verbs' options and arguments. No privileges. */
#include "test_helpers.h"

BW_TEST_GLOBALS;

int main(int argc, char **argv)
{
	return bw_test_main("cli", argc, argv);
}
