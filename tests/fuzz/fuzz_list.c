// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libFuzzer target for everything that reads untrusted list text: the file
 * reader (line bound, NUL bytes, skipped-line output), the line parser
 * (every option combination), prefix merging and expansion, and the
 * command-line address parser. Built with ASan and UBSan by 'make fuzz';
 * a crash, a leak or undefined behaviour is a finding.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/log.h"
#include "lists/cidr.h"
#include "lists/list.h"
#include "lists/list_load.h"
#include "lists/list_parse.h"

/* The input split into lines as a file would be, options from its size. */
static void parse_lines(struct bw_list *l, char *text, size_t size)
{
	struct bw_list_opts o = {
		.mask_host_bits = size & 2,
		.skip_invalid = size & 4,
	};
	char err[BW_ERRLEN], *save, *line;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		err[0] = '\0';
		bw_list_parse_line(l, line, &o, err, sizeof(err));
	}
}

/* The input as a file: the reader splits it, bounds its lines, skips. */
static void read_file(const uint8_t *data, size_t size)
{
	struct bw_list_opts o = {
		.mask_host_bits = size & 2,
		.skip_invalid = size & 4,
	};
	struct bw_list l;
	int fd;

	fd = memfd_create("fuzz_list", MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, data, size) == (ssize_t)size && !lseek(fd, 0, SEEK_SET)) {
		bw_list_init(&l);
		bw_list_load_fd(&l, fd, "fuzz", &o);
		bw_list_free(&l);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bw_list l, out;
	struct bw_cidr_stats st;
	char err[BW_ERRLEN];
	struct bw_prefix p;
	char *text;

	bw_log_level = BW_LOG_NONE; /* the messages are not the point */
	read_file(data, size);
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	bw_parse_prefix(text, &p, err, sizeof(err));
	bw_list_init(&l);
	parse_lines(&l, text, size);
	bw_list_finish(&l);
	bw_list_init(&out);
	if (!bw_cidr_prepare(&l, NULL, &out, &st))
		bw_list_free(&out);
	bw_list_free(&l);
	free(text);
	return 0;
}
