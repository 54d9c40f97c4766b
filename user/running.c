// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Reading what an interface runs: its pins, its maps, its filter.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bloom.h"
#include "cli.h"
#include "hook.h"
#include "log.h"
#include "lpm.h"
#include "pin.h"
#include "running.h"

int bw_explain_not_attached(const char *iface)
{
	__u32 id = 0;
	int ifindex = (int)if_nametoindex(iface);

	if (ifindex)
		id = bw_unpinned_prog(ifindex);
	if (id)
		pr_warn("%s: a bloomwall program (id %u) is attached but its pins under %s/%s are gone (was it attached from 'ip netns exec', whose /sys is private?). Remove it with 'bloomwall detach %s'.\n",
			iface, id, BW_PIN_ROOT, iface, iface);
	else
		pr_warn("%s: bloomwall is not attached (nothing pinned at %s/%s). Try 'bloomwall status', or 'bloomwall attach %s LIST...'.\n",
			iface, BW_PIN_ROOT, iface, iface);
	return -ENOENT;
}

int bw_open_pinned_map(const char *iface, const char *name)
{
	int fd = bw_pin_open(iface, name);

	if (fd >= 0)
		return fd;
	if (fd != -ENOENT || !bw_pin_dir_exists(iface)) {
		if (fd == -ENOENT)
			return bw_explain_not_attached(iface);
		pr_warn("%s: cannot open %s/%s/%s: %s\n", iface, BW_PIN_ROOT,
			iface, name, bw_errno_hint(fd));
		return fd;
	}
	pr_warn("%s: bloomwall is attached but has no '%s' map pinned (attached by an older version?). Run 'bloomwall detach %s' and attach again.\n",
		iface, name, iface);
	return fd;
}

int bw_open_maps(const char *iface, struct bw_maps *mp)
{
	struct {
		int *fd;
		const char *name;
	} pins[] = {
		{ &mp->filter_id, BW_PIN_FILTER_ID },
		{ &mp->stats, BW_PIN_STATS },
		{ &mp->allow, BW_PIN_ALLOW },
		{ &mp->exact, BW_PIN_EXACT },
	};
	size_t i;

	for (i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) {
		*pins[i].fd = bw_open_pinned_map(iface, pins[i].name);
		if (*pins[i].fd < 0) {
			int err = *pins[i].fd;

			*pins[i].fd = -1;
			bw_maps_close(mp);
			return err;
		}
	}
	return 0;
}

/* The slot holds an id; the map behind it may be freed by a concurrent swap. */
#define OPEN_RETRIES 5

int bw_filter_open_current(int registry_fd, bool writable,
			   struct bw_filter_map *m)
{
	__u32 key = 0, id;
	int tries, err = -ENOENT;

	for (tries = 0; tries < OPEN_RETRIES; tries++) {
		if (bpf_map_lookup_elem(registry_fd, &key, &id))
			return errno == ENOENT ? -ENOENT : -errno;
		if (!id)
			return -ENOENT;
		err = bw_filter_open_id(id, writable, m);
		if (err != -ENOENT)
			return err;
	}
	return err;
}

static int open_running(const char *iface, bool writable,
			struct bw_filter_map *m, bool quiet_invalid)
{
	int registry, err;

	registry = bw_pin_open(iface, BW_PIN_FILTER_ID);
	if (registry == -ENOENT)
		return bw_explain_not_attached(iface);
	if (registry < 0) {
		pr_warn("%s: cannot open %s/%s/%s: %s\n", iface, BW_PIN_ROOT,
			iface, BW_PIN_FILTER_ID, bw_errno_hint(registry));
		return registry;
	}
	err = bw_filter_open_current(registry, writable, m);
	close(registry);
	if (!err && bw_filter_check(m->mem, m->nblocks))
		err = -EINVAL;
	if (err && !(quiet_invalid && err == -EINVAL))
		pr_warn("%s: cannot read the running filter: %s. Rebuild it with 'bloomwall reload %s LIST...'.\n",
			iface,
			err == -EINVAL ? "it is not a valid bloomwall filter"
				       : bw_errno_hint(err),
			iface);
	if (err)
		bw_filter_close(m);
	return err;
}

int bw_open_running(const char *iface, bool writable, struct bw_filter_map *m)
{
	return open_running(iface, writable, m, false);
}

int bw_open_running_or_invalid(const char *iface, struct bw_filter_map *m)
{
	return open_running(iface, false, m, true);
}
