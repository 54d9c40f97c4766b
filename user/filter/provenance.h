/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Provenance of a filter: what each list was when the filter was built
 * from it (size, lines, entries, mtime, an XXH3-128 hash of its bytes,
 * taken in the pass that reads it), when and how the filter came to be,
 * and whether each list file is still what it was. status prints it,
 * query --why (why.h) reads the lists again with it.
 *
 * The hash is libxxhash's XXH3_128bits over the file's bytes, stored in
 * canonical (big-endian) form, as bw_rec_source.hash says.
 */
#ifndef __BW_PROVENANCE_H
#define __BW_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "filter/records.h"
#include "lists/list.h"

/*
 * A list's bytes as they stream past: size, the hash so far and, when
 * count_lines, the lines (a list reader that counts them itself says no:
 * counting costs three times the hash).
 */
struct bw_prov_stream {
	void *state; /* XXH3_state_t */
	__u64 size, lines;
	bool count_lines;
	bool open_line; /* the last byte fed was not a newline */
};

/* 0 or -ENOMEM. */
int bw_prov_stream_init(struct bw_prov_stream *s, bool count_lines);
void bw_prov_stream_feed(struct bw_prov_stream *s, const void *buf, size_t len);
/* Size, lines and hash into out (the rest untouched); frees the state. */
void bw_prov_stream_end(struct bw_prov_stream *s, struct bw_rec_source *out);
/* Frees the state without a result (an error path). */
void bw_prov_stream_free(struct bw_prov_stream *s);

/* XXH3-128 of len bytes, canonical form. */
void bw_prov_hash(const void *buf, size_t len, __u8 out[16]);

/* 32 hex digits and a NUL. */
#define BW_PROV_HEX 33
const char *bw_prov_hex(const __u8 h[16], char *buf);

/*
 * bw_list_load() that also notes in src what it read: bytes, lines, the
 * entries the file gave (before merging), mtime (0 for standard input or
 * a pipe) and the hash, all from the one pass that reads it.
 */
int bw_prov_load(struct bw_list *l, const char *path,
		 const struct bw_list_opts *opts, struct bw_rec_source *src);

/* Stamps o: now (CLOCK_REALTIME), how, the image's hash or zero. */
void bw_prov_origin(struct bw_rec_origin *o, enum bw_origin how,
		    const __u8 *image_hash);

/* "attach", "reload", "load", "watch", "change" or "unknown". */
const char *bw_prov_how_name(__u8 how);

/*
 * Records a change (enum bw_change_verb) to the filter r describes: the
 * last change, stamped now, one more since the build; the origin stays.
 */
void bw_prov_change(struct bw_records *r, __u8 verb);

/* "add", "remove", "allow", "unallow" or "unknown". */
const char *bw_prov_verb_name(__u8 verb);

struct bw_running;

/* A struct bw_edit's edit: writes the records ctx into the copy. */
int bw_prov_change_edit(void *mem, __u32 nblocks, void *ctx);

/*
 * The entries a filter (mem, nblocks, as it runs) was sized for at its
 * build, from its BW_REC_SIZED record: address keys in *entries, name keys
 * in *names (either may be NULL). 0, -ENOENT when not recorded (an older
 * bloomwall built it: fall back to the model), -EINVAL, -ENOMEM.
 */
int bw_prov_sized(const void *mem, __u32 nblocks, __u64 *entries, __u64 *names);

/* A recorded list compared with the file as it is now. */
enum bw_prov_state {
	BW_PROV_UNCHANGED,
	BW_PROV_CHANGED,    /* its hash (or size) differs */
	BW_PROV_MISSING,    /* no such file now */
	BW_PROV_UNREADABLE, /* there, but not readable as a list file */
	BW_PROV_UNKNOWN,    /* nothing recorded to compare (older filter) */
	BW_PROV_STDIN,	    /* read from standard input: cannot be read again */
};

/* "unchanged", "changed", "missing", "unreadable", "unknown", "stdin". */
const char *bw_prov_state_name(enum bw_prov_state st);

/* Compares; hashes the file only when its size is what was recorded. */
enum bw_prov_state bw_prov_compare(const char *path,
				   const struct bw_rec_src *src);

/*
 * bloomwall load: the records of the image's filter (mem, nblocks), with
 * the origin stamped (how: BW_ORIGIN_LOAD, or BW_ORIGIN_WATCH for watch
 * --image; the image's hash): rec filled and
 * *need the blocks the filter takes with them. 0 or -errno (said).
 */
int bw_prov_image_records(const char *path, const void *mem, __u32 nblocks,
			  enum bw_origin how, const __u8 image_hash[16],
			  struct bw_records *rec, __u32 *need);

#endif /* __BW_PROVENANCE_H */
