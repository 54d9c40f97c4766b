// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall build -o FILE [OPTIONS] LIST...: a filter built from lists
 * into plain memory and written as an image (image.h), for 'bloomwall
 * load' on this host or another. No root, no kernel: the builder never
 * calls bpf(), and neither does this verb.
 *
 * Without --seed the seed comes from the lists' bytes and the options, so
 * the same lists and flags give a byte-identical image (a fleet compares
 * images by hash) and a changed list a new seed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "cli.h"
#include "image.h"
#include "log.h"
#include "output.h"
#include "reload.h"

static const struct bw_opt build_only_opts[] = {
	{ "output", BW_OPT_OUTPUT, "FILE",
	  "write the image to FILE (required)" },
	{ 0 },
};

static const struct bw_opt *const build_opts[] = { build_only_opts,
						   bw_build_opts, NULL };

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
	if (a->build.verify || a->build.nallow) {
		pr_warn("bloomwall build: --verify and --allow cannot go into an image yet (image format %d carries neither the exact prefix set nor an allowlist); build without them, and after 'bloomwall load' use 'bloomwall allow'\n",
			BW_IMAGE_VERSION);
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

static int write_image(const struct bw_build_req *req, struct bw_build *b,
		       const char *path, bool seed_given)
{
	__u32 nblocks = bw_build_blocks(b);
	void *mem, *img = NULL;
	size_t len;
	int err;

	mem = calloc(nblocks, BW_BLOCK_BYTES);
	if (!mem) {
		pr_warn("%s: no memory for a filter of %u blocks\n", path,
			nblocks);
		return -ENOMEM;
	}
	bw_build_fill(b, mem);
	err = bw_image_encode(mem, nblocks, &img, &len);
	free(mem);
	if (err)
		pr_warn("%s: no memory for the image\n", path);
	if (!err)
		err = bw_image_write_file(path, img, len);
	if (!err) {
		bw_build_report(req, b);
		say_image(path, img, len, seed_given);
	}
	free(img);
	return err;
}

static int do_build(struct bw_args *a)
{
	const struct bw_build_args *ba = &a->build;
	/* The first positional is a list too: they are contiguous in argv. */
	const char *const *lists = (const char *const *)a->pos - 1;
	int nlists = a->npos + 1, err;
	struct bw_build_req req;
	struct bw_rec_build key;
	struct bw_build b;
	__u16 flags;

	err = check_args(a);
	if (err)
		return err;
	flags = (ba->match ?: BW_F_MATCH_SRC) |
		(ba->monitor ? BW_F_MONITOR : 0);
	bw_build_req_from_args(&req, a->output, ba, lists, nlists,
			       BW_DEFAULT_FPR, flags, 1);
	req.origin = 0; /* an image: reproducible, stamped when loaded */
	if (!ba->seed_set) {
		seed_key(&req, &key);
		err = bw_image_seed(lists, nlists, &key, sizeof(key),
				    &req.opts.seed);
		if (err)
			return err;
	}
	err = bw_build_plan(&req, &b);
	if (err)
		return err;
	/* Like the address allowlist, the name allowlist is no image's. */
	if (b.allow_names.ndom) {
		pr_warn("%s: the lists hold %'zu allow %s (@@||name^), which an image does not carry; allow them on the interface with 'bloomwall allow IFACE NAME'\n",
			a->output, b.allow_names.ndom,
			bw_plural(b.allow_names.ndom, "entry", "entries"));
		bw_build_free(&b);
		return -EINVAL;
	}
	err = write_image(&req, &b, a->output, ba->seed_set);
	bw_build_free(&b);
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
		"Without --seed the seed is derived from the lists' content and the\n"
		"options: the same lists (at the same paths) and flags give a\n"
		"byte-identical image, a changed list a new seed. A list on standard\n"
		"input or a pipe then cannot be used: give --seed.\n"
		"--verify and --allow are refused: images do not carry the exact prefix\n"
		"set or an allowlist yet.\n"
		"With --json: {\"filter\": {the build's figures}, \"image\": {\"path\",\n"
		"\"bytes\", \"format\", \"seed\", \"seed_from\", \"crc32\"}}.\n",
	.opts = build_opts,
	.pos = { .first = BW_POS_FILE,
		 .rest = "LIST",
		 .min_rest = 0,
		 .rest_many = true },
	.run = do_build,
};
