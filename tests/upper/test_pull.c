// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The pull of watch --url apart from the network: its schedule (the
 * jitter's bounds, the backoff and its cap, the first pull), the end of a
 * pull (the image that went in kept as the last good one with its URL's
 * ETag; a refusal or a failure counted by reason, the download removed,
 * the failures in a row), its samples and its state section.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "daemon/pull.h"
#include "daemon/pull_end.h"
#include "daemon/pull_sched.h"
#include "out/pull_out.h"
#include "test_helpers.h"

BW_TEST(test_pull_jitter_bounds)
{
	double d, lo = 1e9, hi = 0;
	int i;

	ASSERT_TRUE(bw_pull_delay(60, 0, 0.0) >= 54.0 - 1e-9, "u 0: -10%");
	ASSERT_TRUE(bw_pull_delay(60, 0, 0.999999) <= 66.0, "u ~1: +10%");
	ASSERT_TRUE(bw_pull_delay(60, 0, 0.5) == 60.0, "u 0.5: the interval");
	for (i = 0; i < 10000; i++) {
		d = bw_pull_delay(10, 0, bw_pull_uniform());
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	ASSERT_TRUE(lo >= 9.0 && hi <= 11.0, "10000 draws within +-10%");
	/* Spread: not all in one place (a broken random source). */
	ASSERT_TRUE(lo < 9.2 && hi > 10.8, "10000 draws fill the range");
}

BW_TEST(test_pull_backoff_cap)
{
	ASSERT_TRUE(bw_pull_delay(2, 1, 0.5) == 2.0, "1 failure: the interval");
	ASSERT_TRUE(bw_pull_delay(2, 2, 0.5) == 4.0, "2: twice");
	ASSERT_TRUE(bw_pull_delay(2, 3, 0.5) == 8.0, "3: four times");
	ASSERT_TRUE(bw_pull_delay(2, BW_PULL_BACKOFF_MAX + 1, 0.5) == 32.0,
		    "the cap: 16 times");
	ASSERT_TRUE(bw_pull_delay(2, 1000, 0.5) == 32.0, "never past it");
	ASSERT_TRUE(bw_pull_delay(2, 1000, 0.999999) <= 35.2, "jitter on it");
}

BW_TEST(test_pull_first_delay)
{
	ASSERT_TRUE(bw_pull_first_delay(60, false, 0.7) == 0.0,
		    "nothing runs: at once");
	ASSERT_TRUE(bw_pull_first_delay(60, true, 0.5) == 30.0,
		    "a filter runs: within the interval");
	ASSERT_TRUE(bw_pull_first_delay(60, true, 0.9999999) < 60.0,
		    "never a whole interval");
}

static void make_pull(struct bw_pull *p, struct bw_pull_cfg *c, char *dir)
{
	memset(c, 0, sizeof(*c));
	c->urls[0] = "http://a.example/f.img";
	c->urls[1] = "http://b.example/f.img";
	c->nurls = 2;
	c->interval = 10;
	c->state_dir = dir;
	ASSERT_OK(bw_pull_init(p, "eth9", c), "init");
}

static void put_download(struct bw_pull *p, int url, const char *etag,
			 const char *body)
{
	int fd = open(p->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ASSERT_TRUE(fd >= 0, "the download");
	ASSERT_TRUE(write(fd, body, strlen(body)) == (ssize_t)strlen(body),
		    "written");
	close(fd);
	p->fetched = url;
	p->answered = url;
	snprintf(p->fetched_etag, sizeof(p->fetched_etag), "%s", etag);
	snprintf(p->fetched_sha, sizeof(p->fetched_sha), "%064x", url + 1);
}

static char *slurp(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

BW_TEST(test_pull_finish)
{
	char dir[] = "/tmp/bw-pull-XXXXXX";
	struct bw_pull_cfg c;
	struct bw_capture cap;
	struct bw_pull p;
	struct stat st;
	char *s;

	if (!ASSERT_TRUE(mkdtemp(dir) != NULL, "mkdtemp"))
		return;
	make_pull(&p, &c, dir);
	ASSERT_FALSE(bw_pull_have_last(&p), "no last good image yet");
	/* The second URL's image went in: kept, its ETag remembered. */
	put_download(&p, 1, "\"v1\"", "image one");
	bw_pull_finish(&p, 0, 0, 2);
	ASSERT_TRUE(bw_pull_have_last(&p), "kept as the last good one");
	ASSERT_STREQ(slurp(p.cur), "image one", "its bytes");
	ASSERT_TRUE(stat(p.tmp, &st) && errno == ENOENT, "no download left");
	ASSERT_STREQ(p.url[1].etag, "\"v1\"", "the ETag of the URL");
	ASSERT_STREQ(p.url[0].etag, "", "not the other's");
	ASSERT_EQ_U64(p.fig.results[BW_PULL_OK], 1, "counted ok");
	/* A refused image: counted, removed, the last good one kept. */
	put_download(&p, 0, "\"bad\"", "tampered");
	bw_capture_fd(&cap, STDOUT_FILENO);
	bw_pull_finish(&p, 0, -EINVAL, 2);
	s = bw_capture_end(&cap);
	ASSERT_STRSTR(
		s,
		"eth9: pull FAILED (refused): http://a.example/f.img: the image was refused (the reason is above): the last good filter stays (generation 2); next try in ",
		"the line of a refusal");
	ASSERT_STRSTR(s, " s (1 in a row)\n", "one in a row");
	free(s);
	ASSERT_STREQ(slurp(p.cur), "image one", "the last good image stays");
	ASSERT_TRUE(stat(p.tmp, &st) && errno == ENOENT,
		    "the refused one gone");
	ASSERT_STREQ(p.url[0].etag, "", "no ETag for a refused image");
	ASSERT_EQ_U64(p.fig.failures[BW_PULL_R_REFUSED], 1, "refused");
	ASSERT_EQ_U64(p.fig.consecutive, 1, "one in a row");
	/*
	 * A transfer's failure (counted where its URL failed, in the pull's
	 * step: not again at the end), then an unchanged pull: the row ends.
	 */
	p.why = BW_PULL_R_TIMEOUT;
	snprintf(p.trying, sizeof(p.trying), "http://a.example/f.img: slow");
	p.json = true;
	bw_capture_fd(&cap, STDOUT_FILENO);
	bw_pull_finish(&p, -ETIMEDOUT, 0, 2);
	s = bw_capture_end(&cap);
	p.json = false;
	ASSERT_STRSTR(
		s,
		"{\"iface\":\"eth9\",\"event\":\"pull\",\"result\":\"failed\",\"reason\":\"timeout\",\"why\":\"http://a.example/f.img: slow\",\"generation\":2,\"consecutive_failures\":2,",
		"--json: one record");
	free(s);
	ASSERT_EQ_U64(p.fig.consecutive, 2, "two in a row");
	ASSERT_EQ_U64(p.fig.failures[BW_PULL_R_TIMEOUT], 0,
		      "a URL's failure is not counted again at the end");
	p.answered = 1;
	bw_capture_fd(&cap, STDOUT_FILENO);
	bw_pull_finish(&p, 1, 0, 2);
	s = bw_capture_end(&cap);
	ASSERT_STRSTR(
		s,
		"eth9: pull from http://b.example/f.img works again (unchanged) after 2 failed\n",
		"the row's end said");
	free(s);
	ASSERT_EQ_U64(p.fig.consecutive, 0, "the row ended");
	ASSERT_EQ_U64(p.fig.results[BW_PULL_UNCHANGED], 1, "unchanged");
	ASSERT_EQ_U64(p.fig.results[BW_PULL_FAILED], 2, "failed twice");

	struct json_object *root = json_object_new_object();

	bw_pull_json(&p, root);
	ASSERT_STRSTR(
		json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN),
		"\"answered\":\"http:\\/\\/b.example\\/f.img\"",
		"the URL that answered");
	ASSERT_STRSTR(
		json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN),
		"\"consecutive_failures\":0", "no failure in a row");
	ASSERT_STRSTR(
		json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN),
		"\"refused\":1", "the refusal counted");
	json_object_put(root);
	unlink(p.cur);
	rmdir(p.dir);
	rmdir(dir);
}

BW_TEST(test_pull_metrics)
{
	struct bw_pull_figures f = { .consecutive = 3,
				     .last_time = 1700000000,
				     .last = BW_PULL_FAILED };
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	f.results[BW_PULL_OK] = 2;
	f.failures[BW_PULL_R_CUT] = 3;
	bw_pull_metrics_write(m, "eth0", &f);
	fclose(m);
	ASSERT_STRSTR(buf,
		      "bloomwall_pull_total{iface=\"eth0\",result=\"ok\"} 2\n",
		      "ok");
	ASSERT_STRSTR(
		buf,
		"bloomwall_pull_failures_total{iface=\"eth0\",reason=\"cut\"} 3\n",
		"by reason");
	ASSERT_STRSTR(buf,
		      "bloomwall_pull_consecutive_failures{iface=\"eth0\"} 3\n",
		      "in a row");
	ASSERT_STRSTR(buf, "bloomwall_pull_last_success{iface=\"eth0\"} 0\n",
		      "the last failed");
	free(buf);
}
