/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The config file's lists: key, watch's LIST arguments. An item is a
 * path or an http(s) URL, or a mapping for one source: url (or path),
 * and, for a URL, its own refresh, max_age and force_refresh, each the
 * top level's key of that name for this source alone, taken by the same
 * option's parser and over the watch's value (daemon/watch_src.h). A
 * file is read again whenever it changes: those keys with a path are
 * refused.
 */
#ifndef __BW_CONF_LIST_H
#define __BW_CONF_LIST_H

struct bw_conf_val;

/*
 * x's lists checked and applied to x->a (pos, npos, pos_set): 0, or
 * -errno after each error said (conf_value.h's bw_conf_say).
 */
int bw_conf_lists(const struct bw_conf_val *x);

#endif /* __BW_CONF_LIST_H */
