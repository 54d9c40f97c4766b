// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The cost of a signed image's check (image_sign.c) beside the checks an
 * image already gets (image.c): the image swap.c wrote for each size,
 * signed in memory with a key made here, then its signature checked
 * against that key as a trusted one (the SHA-512 of every byte and one
 * Ed25519 verification), and the image checks that follow (crc32, the
 * filter, the record area, the sections).
 */
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "bench.h"
#include "bench_extra.h"
#include "image/image.h"
#include "image/image_sign.h"
#include "image/sign_key.h"

#define SIGN_SIZES 2
#define SIGN_TRIALS 3

struct sign_result {
	__u64 n;
	size_t bytes;
	double verify[SIGN_TRIALS], check[SIGN_TRIALS];
	int trials;
};

static struct sign_result sign_res[SIGN_SIZES];
static int nsign;

static void *read_all(const char *path, size_t *len)
{
	struct stat st;
	void *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st))
		goto out;
	*len = (size_t)st.st_size;
	buf = malloc(*len ?: 1);
	if (buf && read(fd, buf, *len) != (ssize_t)*len) {
		free(buf);
		buf = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	return buf;
}

int bench_sign_image(const char *path, __u64 n)
{
	static struct bw_verify_keys keys;
	static struct bw_seckey k;
	struct sign_result *r;
	struct bw_image_sig sig;
	struct bw_image img;
	char why[320];
	size_t len = 0;
	__u64 t0, t1, t2;
	void *buf;
	int t, err = 0;

	if (nsign == SIGN_SIZES || sodium_init() < 0)
		return 0;
	if (!keys.n) {
		crypto_sign_keypair(k.pub.pk, k.sk);
		bw_key_id(k.pub.pk, k.pub.id);
		keys.k[0] = k.pub;
		keys.n = 1;
	}
	buf = read_all(path, &len);
	if (!buf || bw_image_sign(&buf, &len, &k)) {
		free(buf);
		return -ENOMEM;
	}
	r = &sign_res[nsign++];
	r->n = n;
	r->bytes = len;
	for (t = 0; t < SIGN_TRIALS && !err; t++) {
		t0 = now_ns();
		err = bw_image_sig_check(buf, len, &keys, &sig, why,
					 sizeof(why));
		t1 = now_ns();
		err = err ?: bw_image_check(buf, len, &img, why, sizeof(why));
		t2 = now_ns();
		r->verify[t] = (t1 - t0) / 1e9;
		r->check[t] = (t2 - t1) / 1e9;
		r->trials = t + 1;
	}
	if (err)
		fprintf(stderr, "bench: signed image refused: %s\n", why);
	free(buf);
	return err;
}

void print_sign_results(FILE *f)
{
	double v, vm, c, cm;
	int i;

	if (!nsign)
		return;
	fprintf(f,
		"### Signed image: signature check against the image checks (one core, median (min) of %d)\n\n",
		SIGN_TRIALS);
	fprintf(f,
		"| entries | image | signature check ms | image checks ms | signature / checks |\n");
	fprintf(f, "|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < nsign; i++) {
		finish_stats(sign_res[i].verify, sign_res[i].trials, &v, &vm);
		finish_stats(sign_res[i].check, sign_res[i].trials, &c, &cm);
		fprintf(f,
			"| %llu | %.1f MiB | %.2f (%.2f) | %.2f (%.2f) | %.2fx |\n",
			(unsigned long long)sign_res[i].n,
			sign_res[i].bytes / (double)(1 << 20), v * 1e3,
			vm * 1e3, c * 1e3, cm * 1e3, c > 0 ? v / c : 0.0);
	}
	fprintf(f,
		"\nsignature check = bw_image_sig_check with the signer's key trusted (libsodium's crypto_sign_verify_detached over every byte before the section: SHA-512, one Ed25519 verification); image checks = bw_image_check (crc32, the filter's header, info and regions, the record area, the sections), what every load does anyway.\n\n");
}
