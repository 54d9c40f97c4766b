// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall build -o FILE [OPTIONS] LIST...: a filter built from lists
 * into plain memory and written as an image (image.h), for 'bloomwall
 * load' on this host or another. No root, no kernel: the builder never
 * calls bpf(), and neither does this verb.
 *
 * Without --seed the seed comes from the lists' bytes, the --allow files'
 * and the options, so the same lists and flags give a byte-identical image
 * (a fleet compares images by hash) and a changed list a new seed.
 *
 * What a reload would put beside the filter goes into the image's
 * sections: the exact prefix set of --verify, the allowlist of --allow and
 * the lists' allow entries for names, so that 'load' applies them as
 * 'reload' with the same lists and flags would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/builder.h"
#include "cmd/cli.h"
#include "cmd/list_urls.h"
#include "cmd/cmd_build.h"
#include "image/image.h"
#include "image/image_file.h"
#include "image/image_serial.h"
#include "image/image_sign.h"
#include "image/sign_key.h"
#include "base/log.h"
#include "base/output.h"
#include "image/image_sec.h"
#include "image/image_seed.h"
#include "ops/reload.h"
#include "cmd/sign_args.h"
#include "out/build_report.h"

static const struct bw_opt build_only_opts[] = {
	BW_OPT("output", "FILE", output, bw_parse_str,
	       "write the image to FILE (required)", .letter = 'o'),
	{ 0 },
};

static const struct bw_opt *const build_opts[] = { build_only_opts,
						   bw_sign_build_opts,
						   bw_build_opts,
						   bw_list_url_opts, NULL };

/* The options the seed is derived from, zero padding included. */
static void seed_key(const struct bw_build_req *req, struct bw_rec_build *k)
{
	int f;

	memset(k, 0, sizeof(*k));
	memcpy(&k->fpr_bits, &req->opts.fpr, sizeof(k->fpr_bits));
	k->flags = req->opts.flags;
	for (f = 0; f < BW_FAMILIES; f++)
		k->max_lengths[f] = (__u8)req->cidr.max_lengths[f];
	k->opts = (req->mask_host_bits ? BW_REC_OPT_MASK_HOST_BITS : 0) |
		  (req->skip_invalid ? BW_REC_OPT_SKIP_INVALID : 0);
}

static int check_args(const struct bw_args *a)
{
	if (!a->output) {
		pr_warn("bloomwall build: -o FILE is required: where the image goes\nTry 'bloomwall build --help'.\n");
		return -BW_EUSAGE;
	}
	return 0;
}

/* "FILE: image written: N bytes, seed S (from the lists), crc32 C". */
static void say_image(const char *path, const void *img, size_t len,
		      bool seed_given)
{
	const struct bw_image_hdr *h = img;
	const struct bw_hdr *fh = (const void *)(h + 1);

	bw_out_open_object("image");
	bw_out_string("path", "%s: image written: ", path);
	bw_out_u64("bytes", "%'llu bytes, ", len);
	bw_out_u64("format", NULL, h->version);
	bw_out_u64("seed", "seed 0x%08llx ", fh->seed);
	bw_out_string("seed_from", "(%s), ",
		      seed_given ? "given" : "from the lists");
	bw_out_u64("crc32", "crc32 0x%08llx\n", h->crc);
	bw_out_close_object();
}

/* "FILE: sections: exact prefix set 3, allowlist 2, name allow entries 1". */
static void say_sections(const char *path, const struct bw_image_lists *ls)
{
	static const char *const keys[BW_IMAGE_NSEC] = { "exact", "allow",
							 "allow_names" };
	const struct bw_list *l;
	const char *sep = "";
	int i;

	bw_out_open_object("sections");
	if (ls->present)
		bw_out_text("%s: sections: ", path);
	for (i = 0; i < BW_IMAGE_NSEC; i++) {
		l = &ls->l[i];
		if (!(ls->present & (1U << i))) {
			bw_out_null(keys[i], NULL);
			continue;
		}
		bw_out_text("%s%s ", sep, bw_image_sec_name(i));
		bw_out_u64(keys[i], "%'llu", l->n4 + l->n6 + l->ndom);
		sep = ", ";
	}
	if (ls->present)
		bw_out_text("\n");
	bw_out_close_object();
}

/* "FILE: serial N (from the lists' mtime), time T, signed by key K". */
static void say_serial(const char *path, const struct bw_rec_image *ri,
		       const struct bw_args *a, const struct bw_seckey *k)
{
	char t[64], hex[BW_KEY_ID_HEX];

	bw_out_open_object("release");
	bw_out_string("path", "%s: ", path);
	bw_out_u64("serial", "serial %llu ", ri->serial);
	bw_out_string("serial_from", "(%s), ",
		      a->sign.serial_set ? "given" : "from the lists' mtime");
	bw_out_u64("time_ns", NULL, ri->time_ns);
	bw_out_string("time", "time %s, ",
		      bw_image_time_str(ri->time_ns, t, sizeof(t)));
	if (k)
		bw_out_string("signer", "signed by key %s\n",
			      bw_key_id_hex(k->pub.id, hex));
	else
		bw_out_null("signer", "unsigned\n");
	bw_out_close_object();
}

/* The image of b's filter and sections, signed with k if not NULL. */
static int encode(struct bw_build *b, const struct bw_image_lists *ls,
		  const struct bw_seckey *k, const char *path, void **img,
		  size_t *len)
{
	__u32 nblocks = bw_build_blocks(b);
	void *mem;
	int err;

	mem = calloc(nblocks, BW_BLOCK_BYTES);
	if (!mem) {
		pr_warn("%s: no memory for a filter of %u blocks\n", path,
			nblocks);
		return -ENOMEM;
	}
	bw_build_fill(b, mem);
	err = bw_image_encode_lists(mem, nblocks, ls, img, len);
	free(mem);
	if (!err && k)
		err = bw_image_sign(img, len, k);
	if (err)
		pr_warn("%s: no memory for the image\n", path);
	return err;
}

static int write_image(const struct bw_build_req *req, struct bw_build *b,
		       const struct bw_image_lists *ls, const struct bw_args *a,
		       const struct bw_seckey *k)
{
	const char *path = a->output;
	void *img = NULL;
	size_t len;
	int err;

	err = encode(b, ls, k, path, &img, &len);
	if (!err)
		err = bw_image_write_file(path, img, len);
	if (!err) {
		struct bw_build_figures fig;

		bw_build_figures_get(req, b, &fig);
		bw_build_report(&fig);
		say_image(path, img, len, a->build.seed_set);
		say_sections(path, ls);
		say_serial(path, &b->rec.image, a, k);
	}
	free(img);
	return err;
}

/* The image record: its serial and time from the lists and --allow files. */
static int record_image(const struct bw_args *a, const char *const *lists,
			int nlists, struct bw_build *b)
{
	const struct bw_build_args *ba = &a->build;
	const char **files = calloc(nlists + ba->nallow + 1, sizeof(*files));
	bool derived;
	int i;

	if (!files) {
		pr_warn("bloomwall build: out of memory\n");
		return -ENOMEM;
	}
	for (i = 0; i < nlists; i++)
		files[i] = lists[i];
	for (i = 0; i < ba->nallow; i++)
		files[nlists + i] = ba->allow[i];
	bw_image_rec_make(files, nlists + ba->nallow, a->sign.serial_set,
			  a->sign.serial, &b->rec.image, &derived);
	free(files);
	b->rec.have_image = true;
	if (!derived && !a->sign.serial_set)
		pr_warn("%s: serial 0: no list is a file with an mtime to take it from; give --serial N, or the image counts as older than any other\n",
			a->output);
	return 0;
}

/*
 * The sections, as a reload builds them: the merged prefixes of --verify
 * (in bw_list_finish()'s order), the --allow files' entries, the lists'
 * allow entries for names. The lists move out of b.
 */
static void take_sections(const struct bw_build_args *ba, struct bw_build *b,
			  struct bw_list *allow, struct bw_image_lists *ls)
{
	if (ba->verify) {
		bw_list_finish(&b->exact);
		ls->l[BW_IMAGE_EXACT] = b->exact;
		bw_list_init(&b->exact);
		ls->present |= 1U << BW_IMAGE_EXACT;
	}
	if (ba->nallow) {
		ls->l[BW_IMAGE_ALLOW] = *allow;
		bw_list_init(allow);
		ls->present |= 1U << BW_IMAGE_ALLOW;
	}
	if (b->allow_names.ndom) {
		ls->l[BW_IMAGE_NAMES] = b->allow_names;
		bw_list_init(&b->allow_names);
		ls->present |= 1U << BW_IMAGE_NAMES;
	}
}

/* The request and its seed; the allowlist read (--allow) into allow. */
static int make_req(struct bw_args *a, const char *const *lists, int nlists,
		    struct bw_list *allow, struct bw_build_req *req)
{
	const struct bw_build_args *ba = &a->build;
	struct bw_rec_build key;
	__u16 flags;
	int err;

	if (ba->nallow) {
		err = bw_load_allow(a->output, ba->allow, ba->nallow,
				    ba->mask_host_bits, allow);
		if (err)
			return err;
	}
	flags = (ba->match ?: BW_F_MATCH_SRC) |
		(ba->monitor ? BW_F_MONITOR : 0);
	/* As a reload with --allow: the program reads an allowlist with entries. */
	if (allow->n4 + allow->n6)
		flags |= BW_F_ALLOW;
	bw_build_req_from_args(req, a->output, ba, lists, nlists,
			       BW_DEFAULT_FPR, flags, 1);
	req->origin = 0; /* an image: reproducible, stamped when loaded */
	req->allow_names = allow->ndom > 0;
	if (ba->seed_set)
		return 0;
	seed_key(req, &key);
	return bw_image_seed(lists, nlists, ba->allow, ba->nallow, &key,
			     sizeof(key), &req->opts.seed);
}

/* The LIST files: the first positional, then the rest. */
static const char **list_paths(const struct bw_args *a)
{
	const char **lists = calloc(a->npos + 1, sizeof(*lists));
	int i;

	if (!lists)
		return NULL;
	lists[0] = a->file;
	for (i = 0; i < a->npos; i++)
		lists[i + 1] = a->pos[i];
	return lists;
}

static int do_build(struct bw_args *a)
{
	int nlists = a->npos + 1, err = 0;
	struct bw_image_lists ls;
	struct bw_build_req req;
	struct bw_list allow;
	struct bw_seckey key;
	const char **lists;
	struct bw_build b;

	err = check_args(a);
	err = err ?: bw_list_urls_fetch(a, "build");
	if (err)
		return err;
	lists = list_paths(a);
	if (!lists) {
		pr_warn("bloomwall build: out of memory\n");
		return -ENOMEM;
	}
	bw_list_init(&allow);
	bw_image_lists_init(&ls);
	/* The key first: a build that cannot sign is not run. */
	if (a->sign.sign_key)
		err = bw_seckey_read(a->sign.sign_key, &key);
	if (!err)
		err = make_req(a, lists, nlists, &allow, &req);
	if (!err)
		err = bw_build_plan(&req, &b);
	if (!err) {
		take_sections(&a->build, &b, &allow, &ls);
		err = record_image(a, lists, nlists, &b);
		if (!err)
			err = write_image(&req, &b, &ls, a,
					  a->sign.sign_key ? &key : NULL);
		bw_build_free(&b);
	}
	bw_seckey_wipe(&key);
	bw_image_lists_free(&ls);
	bw_list_free(&allow);
	free(lists);
	return err;
}

const struct bw_verb bw_verb_build = {
	.name = "build",
	.summary = "build a filter from the LIST files into an image FILE",
	.synopsis = "-o FILE [OPTIONS] LIST...",
	.details =
		"Needs no root and no kernel: the filter is built in memory and written\n"
		"to FILE atomically (a temporary file beside it, fsync, rename), as a\n"
		"versioned image under a crc32: the filter's bytes as the filter map holds\n"
		"them, with the options and the lists' absolute paths it was built from.\n"
		"'bloomwall load IFACE FILE' swaps it in; 'bloomwall inspect FILE' shows it.\n"
		"Without --seed the seed is derived from the lists' content, the --allow\n"
		"files' and the options: the same lists (at the same paths) and flags give\n"
		"a byte-identical image, a changed list a new seed. A list on standard\n"
		"input or a pipe then cannot be used: give --seed.\n"
		"What a reload puts beside the filter goes into the image as sections,\n"
		"each under a crc32 of its own: with --verify the exact prefix set (the\n"
		"merged prefixes of the exact trie), with --allow the allowlist (its\n"
		"addresses and names), and the lists' allow entries for names\n"
		"(@@||name^). 'load' applies them as 'reload' with the same lists and\n"
		"flags would.\n"
		"The image carries a serial (--serial N, else the newest mtime of the lists\n"
		"and --allow files, in microseconds) and a time (SOURCE_DATE_EPOCH, else\n"
		"that mtime): 'load' and 'watch --image' refuse an image with a lower serial\n"
		"than the running filter's, or with the same serial and other bytes than\n"
		"the image that runs. --sign-key SECRET ('bloomwall keygen') signs it with\n"
		"Ed25519; the signature is deterministic, so the same input and key give\n"
		"the same bytes.\n"
		"With --json: {\"filter\": {the build's figures}, \"image\": {\"path\",\n"
		"\"bytes\", \"format\", \"seed\", \"seed_from\", \"crc32\"}, \"sections\":\n"
		"{\"exact\", \"allow\", \"allow_names\": entries, null when not carried},\n"
		"\"release\": {\"path\", \"serial\", \"serial_from\", \"time_ns\", \"time\",\n"
		"\"signer\": key id or null}}.\n",
	.opts = build_opts,
	.pos = { .first = BW_POS_FILE,
		 .rest = "LIST",
		 .min_rest = 0,
		 .rest_many = true },
	.run = do_build,
};
