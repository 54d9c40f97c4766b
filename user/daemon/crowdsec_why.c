// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* query --why's CrowdSec server (crowdsec_why.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include <json-c/json.h>

#include "base/run_dir.h"
#include "daemon/crowdsec_why.h"
#include "filter/why.h"
#include "lists/list_parse.h"
#include "out/cs_why.h"

int bw_cs_why_listen(const char *iface)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err;

	err = bw_run_path(sa.sun_path, sizeof(sa.sun_path), iface,
			  BW_RUN_SOCKET);
	if (err)
		return err;
	err = bw_run_dir();
	if (err)
		return err;
	unlink(sa.sun_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(sa.sun_path, 0600) || listen(fd, 8)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

void bw_cs_why_close(int fd, const char *iface)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];

	if (fd < 0)
		return;
	close(fd);
	if (!bw_run_path(path, sizeof(path), iface, BW_RUN_SOCKET))
		unlink(path);
}

/* The question "why ADDR\n", read within a second. 0 or -errno. */
static int read_question(int c, char *buf, size_t cap)
{
	struct pollfd p = { .fd = c, .events = POLLIN };
	size_t len = 0;
	ssize_t n;

	while (len < cap - 1) {
		if (poll(&p, 1, 1000) <= 0)
			return -ETIMEDOUT;
		n = read(c, buf + len, cap - 1 - len);
		if (n <= 0)
			return n ? -errno : -EPIPE;
		len += (size_t)n;
		buf[len] = '\0';
		if (memchr(buf, '\n', len))
			break;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return strncmp(buf, "why ", 4) ? -EINVAL : 0;
}

struct answer {
	struct bw_prefix addr;
	struct json_object *list;
	long long more;
};

static int add_covering(void *ctx, const struct bw_cs_held *h)
{
	struct answer *a = ctx;
	struct json_object *o;
	char v[64];

	if (!bw_why_covers(&h->p, &a->addr))
		return 0;
	if (json_object_array_length(a->list) >= BW_CS_WHY_MAX) {
		a->more++;
		return 0;
	}
	o = json_object_new_object();
	if (!o)
		return 0;
	json_object_object_add(o, "id", json_object_new_int64(h->id));
	json_object_object_add(o, "origin", json_object_new_string(h->origin));
	json_object_object_add(o, "scenario",
			       json_object_new_string(h->scenario));
	json_object_object_add(
		o, "scope", json_object_new_string(h->range ? "Range" : "Ip"));
	json_object_object_add(
		o, "value",
		json_object_new_string(bw_prefix_str(&h->p, v, sizeof(v))));
	json_object_object_add(o, "type", json_object_new_string(h->type));
	json_object_object_add(o, "until",
			       json_object_new_int64(h->until_ms / 1000));
	json_object_array_add(a->list, o);
	return 0;
}

static void answer(int c, const struct bw_cs_set *set, const char *url,
		   const char *q)
{
	struct answer a = { .list = json_object_new_array() };
	struct json_object *root = json_object_new_object();
	char err[BW_ERRLEN];
	const char *s;
	size_t len;

	if (!root || !a.list)
		goto out;
	json_object_object_add(root, "url", json_object_new_string(url));
	if (!bw_parse_prefix(q, &a.addr, err, sizeof(err)))
		bw_cs_set_foreach(set, add_covering, &a);
	json_object_object_add(root, "decisions", a.list);
	a.list = NULL;
	json_object_object_add(root, "more", json_object_new_int64(a.more));
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	len = strlen(s);
	/* A client that went gets nothing more. */
	if (write(c, s, len) < 0)
		goto out;
out:
	json_object_put(a.list);
	json_object_put(root);
}

void bw_cs_why_serve(int fd, const struct bw_cs_set *set, const char *url)
{
	struct timeval tv = { .tv_sec = 1 };
	char q[128];
	int c;

	c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (!read_question(c, q, sizeof(q)))
		answer(c, set, url, q + 4);
	close(c);
}
