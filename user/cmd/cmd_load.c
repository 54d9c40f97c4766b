// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall load IFACE FILE: the filter of an image ('bloomwall build')
 * swapped in through reload's path: read and checked first, then copied
 * into a new filter map, numbered after the running filter and swapped in
 * under the lock in one atomic step, with its sections (verify's exact
 * trie, the allowlist, the lists' allow entries for names) applied as
 * reload applies what it builds from the same lists and flags. A refused
 * image, or any failure, leaves the running filter as it was.
 */
#include "cmd/cli.h"
#include "cmd/cmd_load.h"
#include "cmd/sign_args.h"
#include "image/image.h"
#include "image/image_file.h"
#include "image/image_serial.h"
#include "image/sign_key.h"
#include "base/output.h"
#include "ops/image_load.h"
#include "ops/reload.h"
#include "base/log.h"
#include "out/op_report.h"

/* "IFACE: image serial N (of T), signed by key K, verified (FILE)". */
static void say_image(const char *iface, const struct bw_image *img)
{
	const struct bw_image_sig *s = &img->sig;
	char t[64], hex[BW_KEY_ID_HEX];
	struct bw_rec_image ri;

	bw_out_open_object("image");
	bw_out_text("%s: image ", iface);
	if (!bw_image_rec_read(img, &ri)) {
		bw_out_u64("serial", "serial %llu ", ri.serial);
		bw_out_string("time", "(of %s), ",
			      bw_image_time_str(ri.time_ns, t, sizeof(t)));
	} else {
		bw_out_null("serial", "without a serial, ");
	}
	if (s->present)
		bw_out_string("signer", "signed by key %s, ",
			      bw_key_id_hex(s->key_id, hex));
	else
		bw_out_null("signer", "unsigned, ");
	bw_out_bool("verified", NULL, s->verified);
	if (s->verified)
		bw_out_string("trusted_keys", "verified (%s)\n", s->source);
	else
		bw_out_text("no signature required (no --verify-key, no %s)\n",
			    BW_VERIFY_KEY_DEFAULT);
	bw_out_close_object();
}

static int check_rollback(const struct bw_args *a, const struct bw_image *img)
{
	char why[320];
	int err;

	err = bw_image_rollback_running(a->iface, a->ifindex, img, why,
					sizeof(why));
	if (err == -BW_EROLLBACK)
		pr_warn("%s: refused: %s\n", a->pos[0], why);
	return err;
}

static int do_load(struct bw_args *a)
{
	/* The running adds go into the image's filter, as reload builds them in. */
	struct bw_build_args ba = { 0 };
	struct bw_image img;
	struct bw_reload_req r = { .iface = a->iface,
				   .ifindex = a->ifindex,
				   .args = &ba,
				   .image = &img,
				   .image_path = a->pos[0],
				   .allow_rollback = a->sign.allow_rollback };
	struct bw_reload_result res;
	struct bw_verify_keys keys;
	int err;

	bw_out_string("iface", NULL, a->iface);
	err = bw_check_privileges("load");
	if (err)
		return err;
	err = bw_verify_keys_resolve(a->sign.verify_key, BW_VERIFY_KEY_DEFAULT,
				     &keys);
	if (err)
		return err;
	err = bw_image_read_file_keys(a->pos[0], &keys, &img);
	if (err)
		return err;
	/* Said before anything is built; the reload checks again, locked. */
	err = a->sign.allow_rollback ? 0 : check_rollback(a, &img);
	if (err) {
		bw_image_free(&img);
		return err;
	}
	err = bw_reload(&r, &res);
	bw_reload_report(a->iface, &res);
	if (!err)
		say_image(a->iface, &img);
	bw_image_free(&img);
	return err;
}

const struct bw_verb bw_verb_load = {
	.name = "load",
	.summary = "swap the filter of an image FILE in on IFACE",
	.details =
		"FILE is an image from 'bloomwall build'. It is checked whole first (size,\n"
		"version, byte order, crc32, the filter inside): a truncated, corrupted,\n"
		"wrong-version or wrong-endian image is refused and nothing changes.\n"
		"With --verify-key PUBLIC, or when /etc/bloomwall/verify.pub is there, the\n"
		"image must be signed ('build --sign-key') by one of the keys of that file:\n"
		"its signature is checked before anything else of it is read, and an\n"
		"unsigned image, another key's or a bad signature is refused, nothing\n"
		"changed. An image whose serial is lower than the running filter's (one\n"
		"loaded from an image) is refused as a rollback unless --allow-rollback.\n"
		"The filter is then swapped in as 'bloomwall reload' swaps a rebuilt one:\n"
		"one atomic update, numbered after the running filter, counters kept. The\n"
		"image's own options apply (--match, monitor, --fpr, seed, --verify), and\n"
		"its sections as 'reload' with the same lists and flags applies them: in\n"
		"verify mode its exact prefix set fills a new exact trie in the slot the\n"
		"running filter does not use; an image built with --allow replaces the\n"
		"allowlist (addresses and names) as 'reload --allow' does, one built\n"
		"without keeps the running one (entries from 'bloomwall allow' too); the\n"
		"lists' allow entries for names replace those of the running lists.\n"
		"Entries added with 'bloomwall add' are kept as reload keeps them: set in\n"
		"the image's filter as add sets them, in verify mode put in its exact trie,\n"
		"and recorded with it; one the image has no target length or name region\n"
		"for is left out, and said.\n"
		"With --json: {\"iface\", \"filter\": {\"generation\", \"image\", \"entries\",\n"
		"\"blocks\", \"bytes\", \"seed\", \"fpr\"}, \"verify\": {\"exact_entries\"} in verify\n"
		"mode, \"allow\": {\"entries\", \"added\", \"removed\"} with an allowlist,\n"
		"\"swap\": {...}, \"added_kept\", \"added_forgotten\", \"image\": {\"serial\",\n"
		"\"time\", \"signer\", \"verified\", \"trusted_keys\"}}.\n",
	.opts = (const struct bw_opt *const[]){ bw_verify_load_opts,
						bw_log_opts, NULL },
	.pos = { .rest = "FILE", .min_rest = 1 },
	.run = do_load,
};
