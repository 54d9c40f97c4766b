/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * One value of the config file checked against its key's kind and taken
 * by its option's parser, as the command line's would be (conf_keys.h).
 */
#ifndef __BW_CONF_VALUE_H
#define __BW_CONF_VALUE_H

#include <stdbool.h>
#include <stddef.h>

struct bw_args;
struct bw_conf_key;
struct bw_verb;
struct bw_yaml;

/* What values leave behind: errors said, strings applied values point to. */
struct bw_conf_mem {
	bool check; /* config check: key files read too */
	int errors;
	char **owned;
	size_t nowned;
};

/* A key's value, where it is from and where it goes. */
struct bw_conf_val {
	struct bw_conf_mem *c;
	const struct bw_verb *v;
	const struct bw_conf_key *k;
	const struct bw_yaml *y;
	const char *file, *key; /* key: its path, "interfaces.eth0.fpr" */
	struct bw_args *a;	/* NULL: the type alone is checked */
};

/* x's value checked, and applied to x->a: 0, or -errno said and counted
 * (lists: conf_list.h). */
int bw_conf_take(const struct bw_conf_val *x);

/* "bloomwall FILE:LINE: key: what", counted in c's errors; -EINVAL. */
int bw_conf_say(struct bw_conf_mem *c, const char *file,
		const struct bw_yaml *y, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* s kept until c is freed (s itself; NULL, s freed, without memory). */
char *bw_conf_own(struct bw_conf_mem *c, char *s);

/* What c kept, freed. */
void bw_conf_mem_free(struct bw_conf_mem *c);

#endif /* __BW_CONF_VALUE_H */
