// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A build's record area (build_records.h): the lists by absolute path,
 * their provenance, the allowlist files, the added entries and names, what
 * the regions were sized for.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "filter/build_records.h"
#include "filter/provenance.h"
#include "filter/records_edit.h"
#include "filter/records_write.h"

/* Appends the domain entries of src to l. */
/* Frees n paths and the array. */
static void free_paths(char **p, int n)
{
	int i;

	for (i = 0; p && i < n; i++)
		free(p[i]);
	free(p);
}

/*
 * Files by their absolute paths: a rebuild, status and query --why may run
 * from another directory. NULL without memory.
 */
static char **abs_paths(const char *const *files, int n)
{
	char **abs = calloc(n ?: 1, sizeof(*abs));
	int i;

	if (!abs)
		return NULL;
	for (i = 0; i < n; i++)
		if (strcmp(files[i], "-"))
			abs[i] = realpath(files[i], NULL);
	for (i = 0; i < n; i++)
		if (!abs[i])
			abs[i] = strdup(files[i]);
	for (i = 0; i < n && abs[i]; i++)
		;
	if (i == n)
		return abs;
	free_paths(abs, n);
	return NULL;
}

static int record_lists(const struct bw_build_req *req, struct bw_records *r)
{
	char **abs = abs_paths(req->lists, req->nlists);
	int err;

	if (!abs)
		return -ENOMEM;
	err = bw_records_set_lists(r, (const char *const *)abs, req->nlists);
	free_paths(abs, req->nlists);
	return err;
}

/* What each allowlist file was, read once more when the caller had not. */
static int allow_sources(const struct bw_build_req *req,
			 struct bw_rec_source *src)
{
	struct bw_list_opts lo = { .mask_host_bits = req->mask_host_bits,
				   .domains = true };
	struct bw_list l;
	int i, err = 0;

	if (req->allow_src) {
		memcpy(src, req->allow_src, req->nallow_files * sizeof(*src));
		return 0;
	}
	bw_list_init(&l);
	for (i = 0; !err && i < req->nallow_files; i++)
		err = bw_prov_load(&l, req->allow_files[i], &lo, &src[i]);
	bw_list_free(&l);
	return err;
}

/* The allowlist files: those given, or those the running filter kept. */
static int record_allow(const struct bw_build_req *req, struct bw_records *r)
{
	int i, n = req->nallow_files, err;
	struct bw_rec_source *src;
	char **abs;

	if (!n)
		return req->keep_allow
			       ? bw_records_copy_allow(r, req->keep_allow)
			       : 0;
	src = calloc(n, sizeof(*src));
	abs = abs_paths(req->allow_files, n);
	err = src && abs ? allow_sources(req, src) : -ENOMEM;
	for (i = 0; !err && !req->origin && i < n; i++)
		src[i].mtime_ns = 0;
	if (!err)
		err = bw_records_set_allow(r, (const char *const *)abs, src, n);
	free_paths(abs, n);
	free(src);
	return err;
}

/* Each list's source, and when and how (provenance.h). */
static void record_sources(const struct bw_build_req *req,
			   struct bw_rec_source *src, struct bw_records *r)
{
	int i;

	for (i = 0; src && i < req->nlists; i++) {
		if (!req->origin)
			src[i].mtime_ns = 0;
		bw_records_set_source(r, i, &src[i]);
	}
	if (req->change && req->prev) {
		/* A change keeps how the filter was built, and says so. */
		r->have_origin = req->prev->have_origin;
		r->origin = req->prev->origin;
		r->have_change = req->prev->have_change;
		r->change = req->prev->change;
		/* And the image it came from: rollback checks still hold. */
		r->have_image = req->prev->have_image;
		r->image = req->prev->image;
		bw_prov_change(r, req->change);
		return;
	}
	r->have_origin = req->origin != 0;
	if (req->origin)
		bw_prov_origin(&r->origin, req->origin, NULL);
}

/* What the regions were sized for, before any runtime add (records.h). */
void bw_build_record_sized(const struct bw_plan *p, struct bw_records *r)
{
	struct bw_rec_sized *s = &r->sized;
	int i;

	memset(s, 0, sizeof(*s));
	r->have_sized = true;
	s->entries = p->info.entries;
	for (i = 0; i < BW_REGIONS; i++) {
		/* The room for live entries on top of the region's keys. */
		if (p->sized[i] > p->info.region_entries[i])
			s->entries += p->sized[i] - p->info.region_entries[i];
		s->region_entries[i] = p->sized[i] > UINT32_MAX
					       ? UINT32_MAX
					       : (__u32)p->sized[i];
		if (!p->sized[i])
			s->region_entries[i] = p->info.region_entries[i];
	}
	if (!(p->hdr.flags & BW_F_DNS))
		return;
	for (i = 0; i < BW_NAME_REGIONS; i++) {
		s->name_region_entries[i] = p->dns.region_entries[i];
		s->name_entries += p->dns.region_entries[i];
	}
}

/* What the filter was built from, for its record area. */
int bw_build_records(const struct bw_build_req *req, struct bw_rec_source *src,
		     struct bw_records *r)
{
	struct bw_rec_build *rb = &r->build;
	int f, err;

	bw_records_init(r);
	r->have_build = true;
	memcpy(&rb->fpr_bits, &req->opts.fpr, sizeof(rb->fpr_bits));
	rb->flags = req->opts.flags & (BW_F_MATCH_SRC | BW_F_MATCH_DST |
				       BW_F_MONITOR | BW_F_VERIFY);
	for (f = 0; f < BW_FAMILIES; f++)
		rb->max_lengths[f] = (__u8)req->cidr.max_lengths[f];
	rb->opts = (req->mask_host_bits ? BW_REC_OPT_MASK_HOST_BITS : 0) |
		   (req->skip_invalid ? BW_REC_OPT_SKIP_INVALID : 0);
	r->have_dns = true;
	r->dns.action = req->opts.dns_action;
	r->dns.ttl = req->opts.dns_ttl;
	r->dns.opts = req->subdomains ? BW_REC_DNS_SUBDOMAINS : 0;
	err = record_lists(req, r);
	if (!err)
		record_sources(req, src, r);
	if (!err)
		err = record_allow(req, r);
	/* The kept adds, each with its expiry; one listed twice kept once. */
	if (!err && req->added)
		err = bw_records_add_all(r, req->added);
	/* Their owners with them (filter/owners.h). */
	if (!err && req->added && req->prev)
		err = bw_owners_copy(&r->owners, &req->prev->owners);
	if (err)
		pr_warn("%s: no memory for the filter's records\n", req->label);
	return err;
}
