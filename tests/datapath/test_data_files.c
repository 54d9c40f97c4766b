// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Every list file of the test data builds with the CLI's build, within
 * its size and with no false negative; firehol_level1 gets the target
 * lengths doc/lists.md quotes.
 */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

#include "bloomwall.h"
#include "lists_fixture.h"
#include "kernel/lpm.h"
#include "filter/records.h"
#include "test_helpers.h"

/* Userspace lookups: first and last address of every source prefix hit. */
static size_t lookup_misses(const void *mem, const struct bw_list *src)
{
	struct bw_prefix p, probe[3];
	size_t i, n = src->n4 + src->n6, missed = 0;
	int j;

	for (i = 0; i < n; i++) {
		bw_list_prefix(src, i, &p);
		lf_probes_of(&p, probe);
		for (j = 0; j < 3; j++)
			missed += !bw_filter_lookup(mem, &probe[j], NULL);
	}
	return missed;
}

/* Builds one file with the CLI's build; checks size and false negatives. */
static void check_file(const char *path)
{
	struct bw_built b = BW_BUILT_INIT;
	const struct bw_info *info;
	struct bw_build_req req;
	char *files[1] = { (char *)path };
	struct bw_list src;

	bw_list_init(&src);
	lf_req_init(&req, files, 1, false, 0, 1);
	if (!ASSERT_OK(bw_build_lists(&req, &b), path) ||
	    !lf_load_src(files, 1, &src))
		goto out;
	info = (const void *)((char *)b.filter.mem + BW_BLOCK_BYTES);
	/*
	 * At 0.1 % a blocked Bloom filter needs about 2 bytes a key; the
	 * record area after the regions (the list's path) is not the Bloom
	 * filter's.
	 */
	ASSERT_LE((double)bw_records_start(b.filter.mem) * BW_BLOCK_BYTES,
		  4.0 * info->entries + 4 * BW_BLOCK_BYTES, "filter bytes");
	ASSERT_EQ(lookup_misses(b.filter.mem, &src), 0, "false negatives");
out:
	bw_list_free(&src);
	bw_built_close(&b);
}

static int walk(const char *dir, int depth)
{
	char path[768];
	struct dirent *de;
	struct stat st;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!ASSERT_OK_PTR(d, dir))
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode) && depth < 4) {
			n += walk(path, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			check_file(path);
			n++;
		}
	}
	closedir(d);
	return n;
}

/* Every file under ipv4/, ipv6/ and spamhaus/ builds, none misses a key. */
BW_TEST(test_cidr_all_data_files_load)
{
	static const char *const dirs[] = { "ipv4", "ipv6", "spamhaus" };
	const char *dir = bw_test_data_dir();
	char path[512];
	size_t i;
	int n = 0;

	if (!dir)
		return;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, dirs[i]);
		n += walk(path, 0);
	}
	ASSERT_GE(n, 10, "list files found");
}

/*
 * firehol_level1 (0.0.0.0/8, 10.0.0.0/8, 224.0.0.0/3 ...) gets the targets
 * doc/lists.md quotes, and 224.0.0.0/3 becomes 512 keys of /12, no more.
 */
BW_TEST(test_cidr_level1_targets)
{
	static const __u8 want[] = { 32, 24, 19, 12 };
	const char *dir = bw_test_data_dir();
	struct bw_built b = BW_BUILT_INIT;
	const struct bw_hdr *hdr;
	const struct bw_info *info;
	struct bw_build_req req;
	char path[512], *files[1] = { path };
	int i;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/ipv4/firehol/firehol_level1.netset",
		 dir);
	lf_req_init(&req, files, 1, false, 0, 1);
	if (!ASSERT_OK(bw_build_lists(&req, &b), "build"))
		return;
	hdr = b.filter.mem;
	info = (const void *)((char *)b.filter.mem + BW_BLOCK_BYTES);
	ASSERT_EQ(hdr->nlengths[BW_V4], 4, "IPv4 targets");
	for (i = 0; i < 4; i++)
		ASSERT_EQ(hdr->plen[BW_V4][i], want[i], "target length");
	ASSERT_LE((double)info->entries / info->source_entries, 4.0,
		  "expansion factor");
	ASSERT_LE(info->region_entries[3], 1024, "/12 keys (224/3 is 512)");
	bw_built_close(&b);
}
