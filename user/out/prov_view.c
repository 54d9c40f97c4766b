// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The provenance section of status and inspect: where the filter came
 * from, every list compared with its file now (prov_view.h).
 */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/output.h"
#include "filter/provenance.h"
#include "image/image_serial.h"
#include "image/sign_key.h"
#include "net/src_cache.h"
#include "out/prov_view.h"

static const char *state_note(enum bw_prov_state st)
{
	switch (st) {
	case BW_PROV_UNCHANGED:
		return "unchanged since";
	case BW_PROV_CHANGED:
		return "CHANGED since (hash differs; reload to apply)";
	case BW_PROV_MISSING:
		return "MISSING now";
	case BW_PROV_UNREADABLE:
		return "UNREADABLE now";
	case BW_PROV_STDIN:
		return "read from standard input";
	default:
		return "not recorded by the bloomwall that built it";
	}
}

static void out_origin(const struct bw_records *r)
{
	const struct bw_rec_origin *o = &r->origin;
	static const __u8 zero[16];
	char t[64], hex[BW_PROV_HEX];
	bool image = memcmp(o->image_hash, zero, sizeof(zero));

	if (!r->have_origin) {
		bw_out_kv(
			"built",
			"not recorded (an image not loaded yet, or an older bloomwall built it)");
		bw_out_null("built", NULL);
		return;
	}
	bw_out_kv("built", "%s by %s%s%s",
		  bw_image_time_str(o->time_ns, t, sizeof(t)),
		  bw_prov_how_name(o->how), image ? " of image " : "",
		  image ? bw_prov_hex(o->image_hash, hex) : "");
	bw_out_u64("built_ns", NULL, o->time_ns);
	bw_out_string("built", NULL, t);
	bw_out_string("how", NULL, bw_prov_how_name(o->how));
	if (image)
		bw_out_string("image_hash", NULL, hex);
	else
		bw_out_null("image_hash", NULL);
}

/*
 * "image": the serial, time and signer of the image a loaded filter came
 * from (BW_REC_IMAGE, as load stamped it); an image file's own is shown
 * by inspect, whose signature says more.
 */
static void out_image(const struct bw_records *r)
{
	const struct bw_rec_image *im = &r->image;
	char t[64], hex[BW_KEY_ID_HEX];

	if (!r->have_image || !r->have_origin) {
		bw_out_null("image", NULL);
		return;
	}
	bw_key_id_hex(im->signer, hex);
	bw_out_kv("image", "serial %llu (of %s), %s%s%s",
		  (unsigned long long)im->serial,
		  bw_image_time_str(im->time_ns, t, sizeof(t)),
		  im->flags & BW_REC_IMAGE_SIGNED ? "signed by key "
						  : "unsigned",
		  im->flags & BW_REC_IMAGE_SIGNED ? hex : "",
		  !(im->flags & BW_REC_IMAGE_SIGNED) ? ""
		  : im->flags & BW_REC_IMAGE_VERIFIED
			  ? ", verified when loaded"
			  : ", not checked against a trusted key when loaded");
	bw_out_open_object("image");
	bw_out_u64("serial", NULL, im->serial);
	bw_out_u64("time_ns", NULL, im->time_ns);
	bw_out_string("time", NULL, t);
	if (im->flags & BW_REC_IMAGE_SIGNED)
		bw_out_string("signer", NULL, hex);
	else
		bw_out_null("signer", NULL);
	bw_out_bool("verified", NULL, im->flags & BW_REC_IMAGE_VERIFIED);
	bw_out_close_object();
}

/* "changed": the last change since the build, when there was one. */
static void out_change(const struct bw_records *r)
{
	const struct bw_rec_change *c = &r->change;
	char t[64];

	if (!r->have_change) {
		bw_out_null("changed", NULL);
		return;
	}
	bw_out_kv("changed", "%s by %s (%'u %s since the build)",
		  bw_image_time_str(c->time_ns, t, sizeof(t)),
		  bw_prov_verb_name(c->verb), c->changes,
		  bw_plural(c->changes, "change", "changes"));
	bw_out_open_object("changed");
	bw_out_u64("time_ns", NULL, c->time_ns);
	bw_out_string("time", NULL, t);
	bw_out_string("by", NULL, bw_prov_verb_name(c->verb));
	bw_out_u64("changes", NULL, c->changes);
	bw_out_close_object();
}

/* "sized for": the keys the build sized the regions for. */
static void out_sized(const struct bw_records *r)
{
	const struct bw_rec_sized *z = &r->sized;

	if (!r->have_sized) {
		bw_out_null("sized_entries", NULL);
		bw_out_null("sized_name_entries", NULL);
		return;
	}
	bw_out_kv("sized for", "%'llu address %s, %'llu name %s (at the build)",
		  (unsigned long long)z->entries,
		  bw_plural(z->entries, "key", "keys"),
		  (unsigned long long)z->name_entries,
		  bw_plural(z->name_entries, "key", "keys"));
	bw_out_u64("sized_entries", NULL, z->entries);
	bw_out_u64("sized_name_entries", NULL, z->name_entries);
}

/* One recorded file: key "list" or "allow file" in the text. */
static void out_list(const char *key, const char *path,
		     const struct bw_rec_src *src)
{
	enum bw_prov_state st = bw_prov_compare(path, src);
	char hex[BW_PROV_HEX], t[64], url[2048];
	bool by_url = bw_src_url_of(path, url, sizeof(url));

	bw_out_open_object(NULL);
	bw_out_string("path", NULL, path);
	/* A list given by URL: its copy in the cache (net/src_cache.h). */
	if (by_url) {
		bw_out_kv("from URL", "%s (its copy below)", url);
		bw_out_string("url", NULL, url);
	}
	bw_out_string("state", NULL, bw_prov_state_name(st));
	if (!src || !src->known) {
		bw_out_kv(key, "%s: %s", path, state_note(st));
		bw_out_close_object();
		return;
	}
	bw_out_kv(key, "%s: %'llu %s from %'llu %s (%'llu bytes%s%s), %s", path,
		  (unsigned long long)src->s.entries,
		  bw_plural(src->s.entries, "entry", "entries"),
		  (unsigned long long)src->s.lines,
		  bw_plural(src->s.lines, "line", "lines"),
		  (unsigned long long)src->s.size,
		  src->s.mtime_ns ? ", mtime " : "",
		  src->s.mtime_ns
			  ? bw_image_time_str(src->s.mtime_ns, t, sizeof(t))
			  : "",
		  state_note(st));
	bw_out_u64("entries", NULL, src->s.entries);
	bw_out_u64("lines", NULL, src->s.lines);
	bw_out_u64("bytes", NULL, src->s.size);
	bw_out_u64("mtime_ns", NULL, src->s.mtime_ns);
	bw_out_string("hash", NULL, bw_prov_hex(src->s.hash, hex));
	bw_out_close_object();
}

void bw_prov_out(const struct bw_records *r)
{
	int i;

	bw_out_text("  Provenance\n");
	bw_out_open_object("provenance");
	out_origin(r);
	out_image(r);
	out_change(r);
	out_sized(r);
	bw_out_open_array("lists");
	for (i = 0; i < r->nlists; i++)
		out_list("list", r->lists[i], r->src ? &r->src[i] : NULL);
	bw_out_close_array();
	if (!r->nlists)
		bw_out_kv("lists", "none recorded");
	/* The allowlist files the running allowlist was read from. */
	bw_out_open_array("allow_lists");
	for (i = 0; i < r->nallow; i++)
		out_list("allow file", r->allow[i], &r->allow_src[i]);
	bw_out_close_array();
	bw_out_close_object();
}
