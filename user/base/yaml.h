/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A YAML document read into a tree (libyaml's parser), bounded: the
 * file's size, the depth of nesting and the count of nodes, so that an
 * untrusted file can cost no more than these. Every node keeps its line
 * for messages ("FILE:LINE: what"). Anchors and aliases are refused (a
 * few lines of aliases can name a billion nodes), and so are tags,
 * several documents and keys that are not scalars or come twice.
 */
#ifndef __BW_YAML_H
#define __BW_YAML_H

#include <stdbool.h>
#include <stddef.h>

#define BW_YAML_MAX_BYTES (1U << 20)
#define BW_YAML_MAX_DEPTH 16
#define BW_YAML_MAX_NODES 10000

enum bw_yaml_kind {
	BW_YAML_SCALAR,
	BW_YAML_SEQ,
	BW_YAML_MAP,
};

struct bw_yaml {
	enum bw_yaml_kind kind;
	unsigned int line; /* 1-based, where the node starts */
	char *key;	   /* its key, in a mapping; NULL elsewhere */
	char *text;	   /* a scalar's text; NULL elsewhere */
	bool quoted; /* a scalar written in quotes: a string, never null */
	struct bw_yaml *kids; /* a sequence's items or a mapping's values */
	size_t n;
};

/*
 * Parses buf (len bytes; name is for messages) into *out: an empty
 * document is an empty mapping. 0, -EINVAL with "NAME:LINE: what" in err
 * (errlen bytes), or -ENOMEM.
 */
int bw_yaml_parse(const char *buf, size_t len, const char *name,
		  struct bw_yaml **out, char *err, size_t errlen);

/*
 * Reads fd (a regular file, base/file.h's bw_open_regular) to its end,
 * at most BW_YAML_MAX_BYTES, and parses it as bw_yaml_parse does. 0 or
 * -errno with err said ("NAME: larger than ...").
 */
int bw_yaml_read_fd(int fd, const char *name, struct bw_yaml **out, char *err,
		    size_t errlen);

void bw_yaml_free(struct bw_yaml *y);

/* The value of key in the mapping y; NULL when y is no mapping or has none. */
const struct bw_yaml *bw_yaml_get(const struct bw_yaml *y, const char *key);

/* Whether y is null: an unquoted "", "~" or "null". */
bool bw_yaml_is_null(const struct bw_yaml *y);

/* y as a boolean (true/false, yes/no, on/off, any case): 0, or -EINVAL. */
int bw_yaml_bool(const struct bw_yaml *y, bool *v);

/* What a message calls y's kind: "a mapping", "a list", "a scalar". */
const char *bw_yaml_kind_name(const struct bw_yaml *y);

#endif /* __BW_YAML_H */
