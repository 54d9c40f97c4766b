/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The config file (bloomwall.yaml(5)): FILE, then FILE.local when it is
 * there, key by key over FILE (where a package's postinst writes the
 * CrowdSec key). Each holds keys at the top level and, under
 * interfaces.IFACE, the same keys for one interface, over the top
 * level's. Each key's value goes through the parser of the watch option
 * it equals (conf_keys.h), and the command line wins over the file.
 */
#ifndef __BW_CONF_H
#define __BW_CONF_H

#include <stdbool.h>

struct bw_args;
struct bw_conf;
struct bw_conf_key;
struct bw_verb;
struct bw_yaml;

/*
 * Reads path and path.local (each a regular file no other user may
 * change, bw_file_trusted in base/file.h, and one no other may read when
 * it holds api_key), checking every key of both: known, of its type;
 * with values, every value of every interface through its option's
 * parser too, and what the keys say together. Each error is said once,
 * "bloomwall FILE:LINE: key: what". *out is the config even after errors
 * (NULL only when out of memory); 0, or -EINVAL after errors.
 */
int bw_conf_read(const struct bw_verb *v, const char *path, bool values,
		 struct bw_conf **out);

/*
 * Selects the settings for iface (NULL: the top level alone): the top
 * level, then interfaces.IFACE; FILE.local's over FILE's, key by key.
 */
void bw_conf_select(struct bw_conf *c, const char *iface);

/*
 * Applies the selected settings to a, each through its option's parser,
 * but for the options a's command line gave (and the list files when it
 * gave any). 0, or -EINVAL after saying why.
 */
int bw_conf_apply(struct bw_conf *c, const struct bw_verb *v,
		  struct bw_args *a);

/* The selected value of key k, NULL when not set; *file: whose. */
const struct bw_yaml *bw_conf_value(const struct bw_conf *c,
				    const struct bw_conf_key *k,
				    const char **file);

/* The interfaces the files name under interfaces:, one by one (i from 0);
 * NULL past the last. */
const char *bw_conf_iface(const struct bw_conf *c, unsigned int i);

void bw_conf_free(struct bw_conf *c);

#endif /* __BW_CONF_H */
