// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libFuzzer target for what reads the config file (base/yaml.c), an
 * untrusted file: any bytes either make a tree within the bounds (depth,
 * node count), every node's line within the input, or an error with a
 * message; never a crash, a leak or undefined behaviour. Built with ASan
 * and UBSan by 'make fuzz'.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/yaml.h"

static size_t lines;

/* The nodes under y, checked: bounded depth, lines in the input. */
static size_t walk(const struct bw_yaml *y, int depth)
{
	size_t n = 1, i;
	bool b;

	/* An empty value's line may be the one after the input's last. */
	if (depth > BW_YAML_MAX_DEPTH + 1 || y->line < 1 || y->line > lines + 1)
		abort();
	switch (y->kind) {
	case BW_YAML_SCALAR:
		if (!y->text || y->n)
			abort();
		bw_yaml_bool(y, &b);
		bw_yaml_is_null(y);
		break;
	case BW_YAML_MAP:
		for (i = 0; i < y->n; i++)
			if (!y->kids[i].key ||
			    bw_yaml_get(y, y->kids[i].key) != &y->kids[i])
				abort(); /* a key twice */
					 /* fall through */
	case BW_YAML_SEQ:
		if (y->text)
			abort();
		for (i = 0; i < y->n; i++)
			n += walk(&y->kids[i], depth + 1);
		break;
	}
	bw_yaml_kind_name(y);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bw_yaml *y = NULL;
	char err[256];
	size_t i;
	int ret;

	lines = 1;
	for (i = 0; i < size; i++)
		lines += data[i] == '\n' || data[i] == '\r';
	ret = bw_yaml_parse((const char *)data, size, "fuzz", &y, err,
			    sizeof(err));
	if (ret) {
		if (y || !err[0])
			abort();
		return 0;
	}
	if (!y || walk(y, 1) > BW_YAML_MAX_NODES + 1)
		abort();
	bw_yaml_free(y);
	return 0;
}
