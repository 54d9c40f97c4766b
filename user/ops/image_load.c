// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall load's build step (image_load.h): an image's filter, checked
 * already (image.h), copied into a new filter map and numbered after the
 * running one, for reload's swap; in verify mode a new exact trie of the
 * image's exact prefix set (and the entries kept from 'add'), and the
 * lists' allow entries for names, as a reload from the lists builds them.
 */
#include <errno.h>
#include <string.h>

#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "filter/records_edit.h"
#include "filter/records_write.h"
#include "image/image.h"
#include "base/log.h"
#include "image/image_sec.h"
#include "image/image_serial.h"
#include "kernel/lpm.h"
#include "kernel/running.h"
#include "filter/provenance.h"
#include "filter/records.h"
#include "lists/list_parse.h"
#include "ops/image_load.h"

/* Room in rec for every kept add; those that do not fit go again below. */
static int record_kept(const struct bw_records *kept, bool own_allow,
		       struct bw_records *rec)
{
	if (bw_records_add_all(rec, &kept->added) ||
	    bw_owners_copy(&rec->owners, &kept->owners))
		return -ENOMEM;
	/*
	 * The running allowlist stays, and so do its files' records, unless
	 * the image brings its own: then its records name its files.
	 */
	return own_allow ? 0 : bw_records_copy_allow(rec, kept);
}

/*
 * Sets an added entry in the image's filter (live: only checks that it
 * has a target length or a region for it, the watch sets it); false if
 * it has none (said).
 */
static bool set_entry(const char *iface, void *mem, const struct bw_entries *s,
		      size_t i, bool live)
{
	const struct bw_entry *e = &s->v[i];
	bool sub = e->d.flags & BW_DOM_SUBTREE;
	struct bw_add_plan ap;
	char buf[BW_NAME_MAX + 3];

	if (!bw_entry_is_name(e) && !bw_add_plan(mem, &e->p, &ap)) {
		if (!live)
			bw_add_insert(mem, &e->p, &ap);
		return true;
	}
	if (!bw_entry_is_name(e)) {
		pr_warn("%s: %s, added at run time, is left out: the image's filter has no target length that holds it ('bloomwall add' it again, or reload from lists)\n",
			iface, bw_entries_str(s, i, buf, sizeof(buf)));
		return false;
	}
	if (live ? bw_name_has_region(mem, sub)
		 : bw_name_insert(mem, bw_entry_name(s, e), e->d.len, sub) >= 0)
		return true;
	pr_warn("%s: %s, added at run time, is left out: the image's filter has no region for it\n",
		iface, bw_entries_str(s, i, buf, sizeof(buf)));
	return false;
}

/*
 * The entries added at run time, set in the image's filter as 'add' sets
 * them and kept in its records, as a reload keeps them; one the image has
 * no region for is left out (said, and taken out of kept and rec). live:
 * a watch keeps them live (adds_live), so they are left out of the blocks,
 * its hook sets them.
 * Returns how many were left out.
 */
static size_t set_kept(const char *iface, void *mem, struct bw_records *kept,
		       struct bw_records *rec, bool live)
{
	struct bw_entries *a = &kept->added;
	size_t i = 0, out = 0;
	long k;

	while (i < a->n) {
		if (set_entry(iface, mem, a, i, live)) {
			i++;
			continue;
		}
		k = bw_records_find(rec, bw_entries_key(a, i));
		if (k >= 0)
			bw_records_drop(rec, (size_t)k);
		bw_entries_drop(a, i);
		out++;
	}
	return out;
}

/* Room for 'bloomwall add' on top, as reload.c sizes its trie. */
static __u32 exact_cap(size_t n)
{
	__u64 cap = (__u64)n + BW_ALLOW_MAX;

	return cap > 0xffffffffULL ? 0xffffffffU : (__u32)cap;
}

/*
 * Verify mode: the image's exact prefix set and the kept adds (a reload
 * merges them in with the lists; the trie's longest match needs no merge)
 * into a new trie, for the slot the new filter names.
 */
static int stage_exact(const char *iface, const struct bw_image *img,
		       const struct bw_records *kept, struct bw_built *b)
{
	struct bw_list l;
	size_t i, n;
	int err;

	bw_list_init(&l);
	err = bw_image_sec_read(img->sec[BW_IMAGE_EXACT], &l);
	for (i = 0; !err && i < kept->added.n; i++)
		if (!bw_entry_is_name(&kept->added.v[i]))
			err = bw_list_push(&l, &kept->added.v[i].p);
	if (err) {
		pr_warn("%s: no memory for the exact prefix set\n", iface);
		bw_list_free(&l);
		return err;
	}
	n = l.n4 + l.n6;
	b->exact_fd = bw_lpm_create(BW_PIN_EXACT, exact_cap(n));
	if (b->exact_fd < 0) {
		err = b->exact_fd;
		b->exact_fd = -1;
		pr_warn("%s: cannot create the exact trie for verify mode: %s\n",
			iface, bw_errno_hint(err));
	} else {
		err = bw_lpm_fill(b->exact_fd, &l);
		if (err)
			pr_warn("%s: cannot fill the exact trie (%'zu prefixes) for verify mode: %s\n",
				iface, n, bw_errno_hint(err));
	}
	bw_list_free(&l);
	if (err)
		return err;
	b->exact_entries = n;
	return 0;
}

/* The lists' allow entries for names, for the name allowlist. */
static int stage_names(const char *iface, const struct bw_image *img,
		       struct bw_built *b)
{
	int err;

	if (!img->sec[BW_IMAGE_NAMES])
		return 0;
	err = bw_image_sec_read(img->sec[BW_IMAGE_NAMES], &b->allow_names);
	if (err)
		pr_warn("%s: no memory for the image's allow entries\n", iface);
	return err;
}

/* Not older than what runs, unless the operator said so. */
static int check_rollback(const struct bw_image_stage_req *st, const __u8 *hash,
			  const struct bw_records *running)
{
	struct bw_rec_image ri;
	char why[320];
	int err;

	if (st->allow_rollback || !running->have_image)
		return 0;
	err = bw_image_rec_read(st->img, &ri);
	if (err && err != -ENOENT) {
		pr_warn("%s: the image's record area is malformed: %s\n",
			st->path, strerror(-err));
		return err;
	}
	err = bw_image_rollback_check(err ? NULL : &ri, hash, running, why,
				      sizeof(why));
	if (err)
		pr_warn("%s: refused: %s\n", st->path, why);
	return err;
}

int bw_image_rollback_running(const char *iface, int ifindex,
			      const struct bw_image *img, char *why,
			      size_t errlen)
{
	struct bw_running rn = BW_RUNNING_INIT;
	struct bw_records rec;
	struct bw_rec_image ri;
	__u8 hash[16];
	int err, have;

	err = bw_running_open(iface, ifindex, BW_RUN_QUIET | BW_RUN_OLD_OK,
			      &rn);
	if (err == -ENOENT)
		return 0; /* nothing runs: nothing to roll back */
	if (err)
		return err;
	bw_records_init(&rec);
	err = rn.filter_err ? 0 : bw_running_records(&rn, &rec);
	bw_running_close(&rn);
	have = err ? err : bw_image_rec_read(img, &ri);
	bw_prov_hash(img->buf, img->len, hash);
	if (!err && (have == 0 || have == -ENOENT))
		err = bw_image_rollback_check(have ? NULL : &ri, hash, &rec,
					      why, errlen);
	else if (!err)
		err = have;
	bw_records_free(&rec);
	return err;
}

int bw_image_stage(const struct bw_image_stage_req *st, struct bw_records *kept,
		   size_t *left_out, struct bw_built *b)
{
	const char *iface = st->iface, *path = st->path;
	const struct bw_image *img = st->img;
	__u64 generation = st->generation;
	struct bw_dns_hdr *dns;
	struct bw_hdr *hdr;
	struct bw_info *info;
	struct bw_records rec;
	__u32 nblocks;
	__u8 hash[16];
	int err;

	/* Provenance: the image's lists as it recorded them, and its hash. */
	bw_prov_hash(img->buf, img->len, hash);
	err = check_rollback(st, hash, kept);
	if (err)
		return err;
	err = bw_prov_image_records(path, img->filter, img->nblocks,
				    st->origin ?: BW_ORIGIN_LOAD, hash, &rec,
				    &nblocks);
	if (err)
		return err;
	*left_out = 0;
	bw_image_rec_stamp(&rec, &img->sig);
	err = record_kept(kept, img->sec[BW_IMAGE_ALLOW] != NULL, &rec);
	nblocks = bw_records_end(img->filter, &rec);
	if (!err)
		err = bw_filter_create(nblocks, &b->filter);
	if (!err) {
		memcpy(b->filter.mem, img->filter,
		       (size_t)bw_records_start(img->filter) * BW_BLOCK_BYTES);
		*left_out = set_kept(iface, b->filter.mem, kept, &rec,
				     st->adds_live);
		err = bw_records_write(b->filter.mem, nblocks, &rec);
	}
	bw_records_free(&rec);
	if (!err && img->sec[BW_IMAGE_EXACT])
		err = stage_exact(iface, img, kept, b);
	if (!err)
		err = stage_names(iface, img, b);
	if (err) {
		bw_built_close(b);
		return err;
	}
	hdr = b->filter.mem;
	info = (void *)((char *)b->filter.mem + BW_BLOCK_BYTES);
	hdr->exact_slot = st->exact_slot;
	bw_set_allow_flag(hdr, st->allow);
	/* The name allowlist the program keeps decides whether it looks. */
	dns = (struct bw_dns_hdr *)bw_filter_dns(hdr);
	if (dns && st->allow_names)
		dns->flags |= BW_DNS_F_ALLOW;
	info->generation = generation;

	memset(&b->fig, 0, sizeof(b->fig));
	b->fig.label = iface;
	b->fig.image = path;
	b->fig.plan.nblocks = img->nblocks;
	b->fig.plan.hdr = *hdr;
	b->fig.plan.info = *info;
	b->fig.exact_trie = b->exact_fd >= 0;
	b->fig.exact_entries = b->exact_entries;
	return 0;
}
