// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall inspect FILE: an image checked (image.h) and shown: its
 * header, the filter's settings and regions (fill and estimated rate, as
 * status shows them), and what it was built from. No root, no bpf().
 */
#include <stdlib.h>
#include <string.h>

#include "filter/bloom.h"
#include "cmd/cli.h"
#include "cmd/cmd_inspect.h"
#include "image/image.h"
#include "image/image_file.h"
#include "image/image_serial.h"
#include "image/sign_key.h"
#include "cmd/sign_args.h"
#include "base/log.h"
#include "base/output.h"
#include "filter/provenance.h"
#include "image/image_sec.h"
#include "out/prov_view.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "ops/reload.h"
#include "out/status_text.h"
#include "ops/status.h"

/* Who signed it, checked against what; its serial and time. */
static void out_sig(const struct bw_image *img)
{
	const struct bw_image_sig *s = &img->sig;
	char hex[BW_KEY_ID_HEX], t[64];
	struct bw_rec_image ri;

	bw_out_bool("signed", NULL, s->present);
	bw_out_bool("verified", NULL, s->verified);
	if (!s->present) {
		bw_out_kv("signature", "none (unsigned)");
		bw_out_null("signer", NULL);
	} else {
		bw_key_id_hex(s->key_id, hex);
		if (s->verified)
			bw_out_kv(
				"signature",
				"signed by key %s, verified (a trusted key of %s)",
				hex, s->source);
		else
			bw_out_kv(
				"signature",
				"signed by key %s, not checked against a trusted key (no --verify-key): it holds for the key it names",
				hex);
		bw_out_string("signer", NULL, hex);
	}
	if (s->verified)
		bw_out_string("trusted_keys", NULL, s->source);
	else
		bw_out_null("trusted_keys", NULL);
	if (bw_image_rec_read(img, &ri)) {
		bw_out_kv("serial", "none (an older bloomwall built it)");
		bw_out_null("serial", NULL);
		bw_out_null("time", NULL);
		return;
	}
	bw_out_kv("serial", "%llu", (unsigned long long)ri.serial);
	bw_out_u64("serial", NULL, ri.serial);
	bw_out_kv("time", "%s", bw_image_time_str(ri.time_ns, t, sizeof(t)));
	bw_out_string("time", NULL, t);
	bw_out_u64("time_ns", NULL, ri.time_ns);
}

static void out_image(const char *path, const struct bw_image *img)
{
	const struct bw_image_hdr *h = img->hdr;
	bool le = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

	bw_out_open_object("image");
	bw_out_string("path", "Image %s\n", path);
	bw_out_kv("format", "%u (filter format %u, %s)", h->version,
		  h->filter_version, le ? "little-endian" : "big-endian");
	bw_out_u64("format", NULL, h->version);
	bw_out_u64("filter_format", NULL, h->filter_version);
	bw_out_string("byte_order", NULL, le ? "little" : "big");
	bw_out_kv("size", "%'llu bytes, %'u blocks",
		  (unsigned long long)h->image_bytes, h->nblocks);
	bw_out_u64("bytes", NULL, h->image_bytes);
	bw_out_u64("blocks", NULL, h->nblocks);
	bw_out_kv("crc32", "0x%08x (good)", h->crc);
	bw_out_u64("crc32", NULL, h->crc);
	out_sig(img);
	bw_out_close_object();
}

/* The Names section, as status shows it; no allowlist in an image. */
static void out_names(struct bw_status_view *v, const struct bw_image *img)
{
	struct bw_records rec;

	v->allow_names = -1;
	v->names_kept = -1;
	bw_dns_settings(img->filter, NULL, &v->dns_opts);
	if (!bw_records_read(img->filter, img->nblocks, &rec)) {
		v->names_kept =
			(long long)bw_entries_count(&rec.added, BW_ENTRY_NAME);
		bw_dns_settings(img->filter, &rec, &v->dns_opts);
		bw_records_free(&rec);
	}
	memcpy(&v->hdr, img->filter, sizeof(v->hdr));
	bw_status_names(v, img->filter);
	bw_status_out_names(v);
}

static void out_filter(const struct bw_image *img)
{
	struct bw_status_view *v;
	const struct bw_hdr *hdr = img->filter;

	v = calloc(1, sizeof(*v));
	if (!v)
		return;
	memcpy(&v->info, (char *)img->filter + BW_BLOCK_BYTES, sizeof(v->info));
	bw_status_regions(v, img->filter);
	bw_out_text("  Filter\n");
	bw_out_open_object("filter");
	bw_out_kv("generation", "%llu", (unsigned long long)v->info.generation);
	bw_out_u64("generation", NULL, v->info.generation);
	bw_out_kv("action", "%s",
		  hdr->flags & BW_F_MONITOR
			  ? "monitor (count matches, never drop)"
			  : "enforce (drop matches)");
	bw_out_string("action", NULL,
		      hdr->flags & BW_F_MONITOR ? "monitor" : "enforce");
	bw_out_kv("match", "%s address", bw_match_name(hdr->flags));
	bw_out_string("match", NULL, bw_match_name(hdr->flags));
	bw_out_kv("entries", "%'llu (%'llu in the lists)",
		  (unsigned long long)v->info.entries,
		  (unsigned long long)v->info.source_entries);
	bw_out_u64("entries", NULL, v->info.entries);
	bw_out_u64("source_entries", NULL, v->info.source_entries);
	bw_out_kv("target fpr", "%g%%", bw_info_fpr(&v->info) * 100);
	bw_out_double("target_fpr", NULL, bw_info_fpr(&v->info));
	bw_out_kv("hash seed", "0x%08x", hdr->seed);
	bw_out_u64("seed", NULL, hdr->seed);
	bw_status_out_regions(v);
	bw_out_close_object();
	out_names(v, img);
	free(v);
}

/* What each section holds; null in JSON for one the image does not carry. */
static void out_sections(const struct bw_image *img)
{
	static const char *const keys[BW_IMAGE_NSEC] = { "exact", "allow",
							 "allow_names" };
	const struct bw_image_sec *s;
	int i;

	bw_out_text("  Sections\n");
	bw_out_open_object("sections");
	for (i = 0; i < BW_IMAGE_NSEC; i++) {
		s = img->sec[i];
		if (!s) {
			bw_out_kv(bw_image_sec_name(i), "none");
			bw_out_null(keys[i], NULL);
			continue;
		}
		bw_out_kv(
			bw_image_sec_name(i),
			"%'llu %s (%'llu IPv4, %'llu IPv6, %'llu %s; %'llu bytes)",
			(unsigned long long)(s->n4 + s->n6 + s->ndom),
			bw_plural(s->n4 + s->n6 + s->ndom, "entry", "entries"),
			(unsigned long long)s->n4, (unsigned long long)s->n6,
			(unsigned long long)s->ndom,
			bw_plural(s->ndom, "name", "names"),
			(unsigned long long)(sizeof(*s) + s->bytes));
		bw_out_u64(keys[i], NULL, s->n4 + s->n6 + s->ndom);
	}
	bw_out_close_object();
}

static void out_options(const struct bw_rec_build *rb)
{
	double fpr;

	memcpy(&fpr, &rb->fpr_bits, sizeof(fpr));
	bw_out_open_object("options");
	bw_out_kv("options", "--fpr %g --match %s --max-lengths %u,%u%s%s%s%s",
		  fpr, bw_match_name(rb->flags), rb->max_lengths[BW_V4],
		  rb->max_lengths[BW_V6],
		  rb->flags & BW_F_MONITOR ? " --monitor" : "",
		  rb->flags & BW_F_VERIFY ? " --verify" : "",
		  rb->opts & BW_REC_OPT_MASK_HOST_BITS ? " --mask-host-bits"
						       : "",
		  rb->opts & BW_REC_OPT_SKIP_INVALID ? " --skip-invalid" : "");
	bw_out_double("fpr", NULL, fpr);
	bw_out_string("match", NULL, bw_match_name(rb->flags));
	bw_out_bool("monitor", NULL, rb->flags & BW_F_MONITOR);
	bw_out_bool("verify", NULL, rb->flags & BW_F_VERIFY);
	bw_out_open_array("max_lengths");
	bw_out_u64(NULL, NULL, rb->max_lengths[BW_V4]);
	bw_out_u64(NULL, NULL, rb->max_lengths[BW_V6]);
	bw_out_close_array();
	bw_out_bool("mask_host_bits", NULL,
		    rb->opts & BW_REC_OPT_MASK_HOST_BITS);
	bw_out_bool("skip_invalid", NULL, rb->opts & BW_REC_OPT_SKIP_INVALID);
	bw_out_close_object();
}

/* The record area: checked by bw_image_check, so it reads. */
static int out_records(const struct bw_image *img)
{
	struct bw_records rec;
	size_t n;
	int i, err;

	err = bw_records_read(img->filter, img->nblocks, &rec);
	if (err)
		return err;
	bw_out_text("  Built from\n");
	bw_out_open_array("lists");
	for (i = 0; i < rec.nlists; i++) {
		bw_out_kv("list", "%s", rec.lists[i]);
		bw_out_string(NULL, NULL, rec.lists[i]);
	}
	bw_out_close_array();
	if (!rec.nlists)
		bw_out_kv("lists", "not recorded");
	if (rec.have_build)
		out_options(&rec.build);
	else
		bw_out_null("options", NULL);
	/* Addresses: the names are counted in the Names section. */
	n = bw_entries_count(&rec.added, BW_ENTRY_PREFIX);
	bw_out_kv("added entries", "%'zu", n);
	bw_out_u64("added", NULL, n);
	bw_prov_out(&rec);
	bw_records_free(&rec);
	return 0;
}

static int do_inspect(struct bw_args *a)
{
	struct bw_verify_keys keys;
	struct bw_image img;
	int err;

	err = bw_verify_keys_resolve(a->sign.verify_key, BW_VERIFY_KEY_DEFAULT,
				     &keys);
	if (err)
		return err;
	err = bw_image_read_file_keys(a->file, &keys, &img);
	if (err)
		return err;
	out_image(a->file, &img);
	out_filter(&img);
	out_sections(&img);
	err = out_records(&img);
	bw_image_free(&img);
	return err;
}

const struct bw_verb bw_verb_inspect = {
	.name = "inspect",
	.summary = "check an image FILE and show what it holds",
	.details =
		"With --verify-key PUBLIC, or when /etc/bloomwall/verify.pub is there, the\n"
		"image's signature is checked first against the keys of that file, and an\n"
		"unsigned image, another key's or a bad signature is refused; without, a\n"
		"signature it carries must still hold for the key it names. It says\n"
		"whether the image is signed and by which key id, its serial and time.\n"
		"Checks the image whole (size, version, byte order, crc32, the filter\n"
		"inside) and refuses a truncated, corrupted, wrong-version or wrong-endian\n"
		"one, saying which. Then shows its header, the filter's settings, per region\n"
		"the family, prefix length, blocks, entries, probes, fill and estimated\n"
		"false-positive rate (as 'bloomwall status' shows them), and the lists and\n"
		"options it was built from. Then the sections it carries (format 2): the\n"
		"exact prefix set of --verify, the allowlist of --allow, the lists' allow\n"
		"entries for names, each counted, or none. Needs no root.\n"
		"With --json: {\"image\": {\"path\", \"format\", \"filter_format\", \"byte_order\",\n"
		"\"bytes\", \"blocks\", \"crc32\", \"signed\", \"verified\", \"signer\",\n"
		"\"trusted_keys\", \"serial\", \"time\", \"time_ns\"}, \"filter\": {\"generation\", \"action\", \"match\",\n"
		"\"entries\", \"source_entries\", \"target_fpr\", \"seed\", \"regions\": [...],\n"
		"\"est_fpr\"}, \"sections\": {\"exact\", \"allow\", \"allow_names\": entries, or\n"
		"null}, \"lists\": [...], \"options\": {...}, \"added\"}.\n",
	.opts = (const struct bw_opt *const[]){ bw_verify_opts, NULL },
	.pos = { .first = BW_POS_FILE },
	.run = do_inspect,
};
