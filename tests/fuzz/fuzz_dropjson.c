// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libFuzzer target for what a list source by URL hands the lists' readers
 * (issue 31): Spamhaus DROP JSON lines (user/lists/dropjson.c), each line
 * of the input through the reader and the end's record count checked, the
 * input also read as a file (its format detected); and the input unpacked
 * by its magic bytes (user/lists/unpack.c: gzip, xz, bzip2, plain) in
 * pieces of sizes the input picks, under a small bound, as a download
 * arrives, the bytes it gives checked as a list as they come
 * (user/lists/list_stream.c). Built with ASan and UBSan by 'make fuzz'; a crash, a leak or
 * undefined behaviour is a finding.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/log.h"
#include "lists/dropjson.h"
#include "lists/list.h"
#include "lists/list_load.h"
#include "lists/list_stream.h"
#include "lists/unpack.h"

static void read_file(const uint8_t *data, size_t size,
		      const struct bw_list_opts *o)
{
	struct bw_list l;
	int fd = memfd_create("fuzz_dropjson", MFD_CLOEXEC);

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

static void lines(char *text, size_t len, const struct bw_list_opts *o)
{
	char err[BW_ERRLEN], note[BW_ERRLEN], *line = text, *nl;
	struct bw_dropjson d = { .meta = -1 };
	struct bw_list l;
	size_t lineno = 0;

	bw_list_init(&l);
	while (line < text + len) {
		nl = memchr(line, '\n', (size_t)(text + len - line));
		if (nl)
			*nl = '\0';
		bw_dropjson_detect(line, strlen(line));
		bw_dropjson_line(&d, &l, line, strlen(line), ++lineno, o, err,
				 sizeof(err));
		if (!nl)
			break;
		line = nl + 1;
	}
	bw_dropjson_end(&d, err, sizeof(err));
	bw_dropjson_note(&d, note, sizeof(note));
	bw_list_finish(&l);
	bw_list_free(&l);
}

/* The unpacked bytes checked as a list as they come (a download's way). */
static int sink(void *ctx, const void *buf, size_t len)
{
	struct bw_list_stream *s = ctx;

	bw_list_stream_feed(s, buf, len);
	return 0;
}

/* Unpacked in pieces the first byte sizes, at most 1 MiB out. */
static void unpack(const uint8_t *data, size_t size)
{
	struct bw_list_opts o = { .domains = true };
	struct bw_list_stream s;
	struct bw_unpack u;
	size_t step = size ? (size_t)data[0] % 64 + 1 : 1, i;

	if (bw_list_stream_init(&s, "fuzz", &o)) {
		bw_list_stream_free(&s);
		return;
	}
	bw_unpack_init(&u, 1 << 20, sink, &s);
	for (i = 0; i < size; i += step)
		if (bw_unpack_feed(&u, data + i,
				   size - i < step ? size - i : step))
			break;
	bw_unpack_end(&u);
	bw_unpack_free(&u);
	bw_list_stream_end(&s);
	bw_list_stream_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bw_list_opts o = {
		.mask_host_bits = size & 2,
		.skip_invalid = size & 4,
		.note_mapped = true,
		.threads = 1,
	};
	char *text;

	bw_log_level = BW_LOG_NONE; /* the messages are not the point */
	read_file(data, size, &o);
	unpack(data, size);
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	lines(text, size, &o);
	free(text);
	return 0;
}
