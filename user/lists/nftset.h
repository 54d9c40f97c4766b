/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * nftables set elements ("nft list set|ruleset" output, nft -f files),
 * read a line at a time into a list's addresses (list.h):
 *
 *   table inet filter {
 *       set blocklist {
 *           type ipv4_addr
 *           flags interval
 *           elements = { 10.0.0.1, 10.1.0.0/16,
 *                        10.2.0.1-10.2.0.9 }
 *       }
 *   }
 *   add element inet filter blocklist { 192.0.2.1, 198.51.100.0/24 }
 *
 * Elements are addresses, prefixes or IPv4 ranges, across lines; their
 * options (timeout, expires, comment, counter) are ignored and counted.
 * A set's "type" (or "typeof ip saddr") says its family; a set of
 * another type (inet_service, a concatenation...) or a map is a bad
 * line where its elements start. Chains and their rules are skipped.
 * A statement opens its block on its own line ("elements = {" with its
 * "=", "set NAME {"): a "{" alone on a line is a bad line. '#' comments.
 */
#ifndef __BW_NFTSET_H
#define __BW_NFTSET_H

#include <stdbool.h>
#include <stddef.h>

#include "lists/list.h"

#define BW_NFT_DEPTH 16
#define BW_NFT_WORD 24

struct bw_nft {
	__u8 stack[BW_NFT_DEPTH]; /* the blocks open, outermost first */
	int depth;
	char word[3][BW_NFT_WORD]; /* the statement so far: its first words */
	int nwords;
	int family;	 /* the set's: BW_V4 or BW_V6, -1 unknown */
	bool not_addr;	 /* the set holds no addresses (or is a map) */
	bool elem_start; /* the next word is an element */
	int skip;	 /* option values still to skip */
	size_t sets, options;
};

void bw_nft_init(struct bw_nft *n);

/* Whether a line starts an nftables file (table, add element, ...). */
bool bw_nft_detect(const char *line, size_t len);

/* One line (NUL-terminated). 0, -EINVAL with the reason in err, -ENOMEM. */
int bw_nft_line(struct bw_nft *n, struct bw_list *l, const char *line,
		size_t len, const struct bw_list_opts *opts, char *err,
		size_t errlen);

/* At the end of the file: -EINVAL if a block is still open. */
int bw_nft_end(const struct bw_nft *n, char *err, size_t errlen);

void bw_nft_note(const struct bw_nft *n, char *buf, size_t len);

#endif /* __BW_NFTSET_H */
