// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* query --why, the CrowdSec decisions (cs_why.h): the socket's client. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "base/log.h"
#include "base/output.h"
#include "base/run_dir.h"
#include "out/cs_why.h"

/* An answer is small: BW_CS_WHY_MAX decisions of some 500 bytes. */
#define ANSWER_MAX (256U * 1024)
#define TIMEOUT_MS 3000

static int connect_to(const char *iface)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err;

	err = bw_run_path(sa.sun_path, sizeof(sa.sun_path), iface,
			  BW_RUN_SOCKET);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Reads the answer until the daemon closes, bounded in size and time. */
static int read_answer(int fd, char **out)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char *buf = malloc(ANSWER_MAX + 1);
	size_t len = 0;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (poll(&p, 1, TIMEOUT_MS) <= 0) {
			free(buf);
			return -ETIMEDOUT;
		}
		n = read(fd, buf + len, ANSWER_MAX - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (len += (size_t)n) == ANSWER_MAX)
			break;
	}
	if (n < 0) {
		free(buf);
		return -errno;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

static int ask(const char *iface, const char *addr, struct json_object **ans)
{
	char q[128], *text = NULL;
	int fd, n, err;

	n = snprintf(q, sizeof(q), "why %s\n", addr);
	if (n < 0 || (size_t)n >= sizeof(q))
		return -EINVAL;
	fd = connect_to(iface);
	if (fd < 0)
		return fd;
	err = write(fd, q, (size_t)n) == n ? 0 : -EIO;
	if (!err)
		err = read_answer(fd, &text);
	close(fd);
	if (err)
		return err;
	*ans = json_tokener_parse(text);
	free(text);
	if (!*ans || !json_object_is_type(*ans, json_type_object)) {
		json_object_put(*ans);
		return -EBADMSG;
	}
	return 0;
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
			       json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : "";
}

static long long num(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v)
						     : 0;
}

/* "2026-12-02 07:40:00 UTC (in 3h59m)" */
static void until_text(long long until, char *buf, size_t cap)
{
	time_t t = (time_t)until;
	long long left = until - (long long)time(NULL);
	struct tm tm;
	char when[32];

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	if (left < 0)
		left = 0;
	if (left >= 3600)
		snprintf(buf, cap, "%s (in %lldh%02lldm)", when, left / 3600,
			 left / 60 % 60);
	else
		snprintf(buf, cap, "%s (in %lldm%02llds)", when, left / 60,
			 left % 60);
}

static void out_decision(struct json_object *d)
{
	char until[80];

	until_text(num(d, "until"), until, sizeof(until));
	bw_out_open_object(NULL);
	bw_out_int("id", "  why: CrowdSec decision %lld", num(d, "id"));
	bw_out_string("origin", " (origin %s", str(d, "origin"));
	bw_out_string("scenario", ", scenario '%s'", str(d, "scenario"));
	bw_out_string("scope", "): %s", str(d, "scope"));
	bw_out_string("value", " %s", str(d, "value"));
	bw_out_string("type", ", %s", str(d, "type"));
	bw_out_int("until", NULL, num(d, "until"));
	bw_out_text(" until %s\n", until);
	bw_out_close_object();
}

int bw_cs_why_out(const char *iface, const char *addr)
{
	struct json_object *ans = NULL, *ds = NULL;
	size_t i, n;
	int err;

	err = ask(iface, addr, &ans);
	/* No watch, or one without a CrowdSec source: nothing to say. */
	if (err == -ENOENT || err == -ECONNREFUSED)
		return 0;
	if (err) {
		pr_warn("%s: the watch's CrowdSec source did not answer for %s: %s\n",
			iface, addr, strerror(-err));
		return err;
	}
	json_object_object_get_ex(ans, "decisions", &ds);
	n = json_object_is_type(ds, json_type_array)
		    ? json_object_array_length(ds)
		    : 0;
	if (!n) {
		json_object_put(ans);
		return 0;
	}
	bw_out_open_object("crowdsec");
	bw_out_string("url", NULL, str(ans, "url"));
	bw_out_open_array("decisions");
	for (i = 0; i < n; i++)
		out_decision(json_object_array_get_idx(ds, i));
	bw_out_close_array();
	bw_out_int("more",
		   num(ans, "more")
			   ? "  why: and %lld more CrowdSec decisions\n"
			   : NULL,
		   num(ans, "more"));
	bw_out_close_object();
	err = (int)(n + (size_t)num(ans, "more"));
	json_object_put(ans);
	return err;
}
