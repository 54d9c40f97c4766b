// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libFuzzer target for the list formats told from a file's content
 * (user/lists/list_format.c and the readers of RPZ zones, dnsmasq and
 * Unbound lines, ipset save files and nftables sets): the input read as a
 * file (the format detected, the reader's line bound, the notes), then
 * its lines fed to each format's reader in turn whatever they hold, so
 * every reader sees every input. Built with ASan and UBSan by 'make
 * fuzz'; a crash, a leak or undefined behaviour is a finding.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/log.h"
#include "lists/list.h"
#include "lists/list_format.h"
#include "lists/list_load.h"

/* The input as a file: detected, read to its end, noted. */
static void read_file(const uint8_t *data, size_t size,
		      const struct bw_list_opts *o)
{
	struct bw_list l;
	int fd;

	fd = memfd_create("fuzz_formats", MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, data, size) == (ssize_t)size && !lseek(fd, 0, SEEK_SET)) {
		bw_list_init(&l);
		bw_list_load_fd(&l, fd, "fuzz", o);
		bw_list_finish(&l);
		bw_list_free(&l);
	}
	close(fd);
}

/* Every line through one format's reader, as if the file were that. */
static void as_format(enum bw_fmt_kind kind, char *text, size_t len,
		      const struct bw_list_opts *o)
{
	char err[BW_ERRLEN], note[2 * BW_ERRLEN], *line = text, *nl;
	struct bw_fmt f;
	struct bw_list l;
	size_t lineno = 0;

	bw_fmt_init(&f);
	f.kind = kind;
	bw_list_init(&l);
	while (line < text + len) {
		nl = memchr(line, '\n', (size_t)(text + len - line));
		if (nl)
			*nl = '\0';
		bw_fmt_line(&f, &l, line, ++lineno, o, err, sizeof(err));
		if (!nl)
			break;
		*nl = '\n';
		line = nl + 1;
	}
	bw_fmt_end(&f, err, sizeof(err));
	bw_fmt_note(&f, note, sizeof(note));
	bw_list_finish(&l);
	bw_list_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bw_list_opts o = {
		.mask_host_bits = size & 2,
		.skip_invalid = size & 4,
		.domains = !(size & 8),
		.note_mapped = true,
		.threads = 1,
	};
	enum bw_fmt_kind k;
	char *text;

	bw_log_level = BW_LOG_NONE; /* the messages are not the point */
	read_file(data, size, &o);
	/* A NUL ends a line early, as a reader that never sees it. */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (k = BW_FMT_PLAIN; k <= BW_FMT_DROPJSON; k++)
		as_format(k, text, size, &o);
	free(text);
	return 0;
}
