// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Reading what an interface runs from its hook, and keeping the pins a
 * true cache of it (running.h).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "filter/bloom.h"
#include "base/log.h"
#include "filter/records_write.h"
#include "kernel/lpm.h"
#include "kernel/pin.h"
#include "filter/provenance.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "kernel/running.h"
#include "kernel/prog.h"

int bw_explain_not_attached(const char *iface)
{
	pr_warn("%s: bloomwall is not attached (its XDP hook runs no bloomwall program). Try 'bloomwall status', or 'bloomwall attach %s LIST...'.\n",
		iface, iface);
	return -ENOENT;
}

/* The link that holds the program: the pinned one if it does, else any. */
static int find_link(const char *iface, int ifindex, __u32 prog_id)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	int fd;

	fd = bw_pin_open(iface, BW_PIN_LINK);
	if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) &&
	    info.type == BPF_LINK_TYPE_XDP && info.prog_id == prog_id)
		return fd;
	if (fd >= 0)
		close(fd);
	fd = bw_hook_link(ifindex, prog_id);
	return fd < 0 ? -1 : fd;
}

/* Read-only: a change is made on a copy (bw_swap_running). */
static void check_filter(struct bw_running *r)
{
	if (!r->filter_err && bw_filter_check(r->filter.mem, r->filter.nblocks))
		r->filter_err = -EINVAL;
	if (r->filter_err)
		bw_filter_close(&r->filter);
}

int bw_running_open(const char *iface, int ifindex, unsigned int flags,
		    struct bw_running *r)
{
	int err;

	*r = (struct bw_running)BW_RUNNING_INIT;
	r->iface = iface;
	r->ifindex = ifindex;
	if (!ifindex)
		err = -ENOENT;
	else
		err = r->prog_fd = bw_hook_find(ifindex, &r->hook);
	if (err == -ENOENT) {
		r->prog_fd = -1;
		return flags & BW_RUN_QUIET ? err
					    : bw_explain_not_attached(iface);
	}
	if (err < 0) {
		r->prog_fd = -1;
		pr_warn("%s: cannot read its XDP hook: %s\n", iface,
			bw_errno_hint(err));
		return err;
	}
	r->prog_id = bw_obj_id(r->prog_fd);
	r->link_fd = find_link(iface, ifindex, r->prog_id);
	err = bw_prog_open(r->prog_fd, &r->maps, &r->filter, &r->filter_err,
			   &r->prog_hdr);
	/* Tries of an older key would silently never match the new keys. */
	r->old_tries = !err && bw_lpm_is_v1(r->maps.allow);
	if (r->old_tries && !(flags & BW_RUN_OLD_OK)) {
		pr_warn("%s: its program was attached by an older bloomwall (allowlist and exact tries keyed without the family); 'bloomwall reload %s LIST...' upgrades it\n",
			iface, iface);
		bw_running_close(r);
		return -ESTALE;
	}
	if (err) {
		pr_warn("%s: the bloomwall program on its hook (id %u) is not one this bloomwall can read (%s); replace it with 'bloomwall detach %s' and attach again\n",
			iface, r->prog_id, bw_errno_hint(err), iface);
		bw_running_close(r);
		return err;
	}
	check_filter(r);
	bw_egress_find(ifindex, &r->egress);
	if (flags & BW_RUN_REPAIR)
		bw_pins_sync(iface, r->prog_fd, &r->maps, r->link_fd, false);
	if ((flags & BW_RUN_REPAIR) && bw_egress_behind(r))
		bw_egress_catch_up(r);
	return 0;
}

/* Whether r's link, if it has one, still holds r's program. */
static bool link_holds(const struct bw_running *r)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	return r->link_fd < 0 ||
	       (!bpf_obj_get_info_by_fd(r->link_fd, &info, &len) &&
		info.prog_id == r->prog_id);
}

int bw_running_map(const char *iface, bool writable, struct bw_filter_map *m,
		   __u32 *prog)
{
	struct bw_running r;
	int err;

	err = bw_running_open(iface, (int)if_nametoindex(iface),
			      BW_RUN_QUIET | BW_RUN_OLD_OK, &r);
	if (err)
		return -ENOENT;
	err = r.filter_err ? -ENOENT
			   : bw_filter_open_id(r.filter.id, writable, m);
	*prog = r.prog_id;
	bw_running_close(&r);
	return err;
}

int bw_running_refresh(struct bw_running *r, unsigned int flags)
{
	const char *iface = r->iface;
	int ifindex = r->ifindex, fd = -ENOENT;
	struct bw_xdp_info x;
	bool same;

	if (r->prog_fd >= 0 && (!r->old_tries || (flags & BW_RUN_OLD_OK)))
		fd = bw_hook_find(ifindex, &x);
	same = fd >= 0 && bw_obj_id(fd) == r->prog_id && link_holds(r);
	if (fd >= 0)
		close(fd);
	if (!same) {
		bw_running_close(r);
		return bw_running_open(iface, ifindex, flags, r);
	}
	r->hook = x;
	bw_egress_close(&r->egress);
	bw_egress_find(ifindex, &r->egress);
	if (flags & BW_RUN_REPAIR)
		bw_pins_sync(iface, r->prog_fd, &r->maps, r->link_fd, false);
	if ((flags & BW_RUN_REPAIR) && bw_egress_behind(r))
		bw_egress_catch_up(r);
	return 0;
}

void bw_running_close(struct bw_running *r)
{
	bw_filter_close(&r->filter);
	bw_maps_close(&r->maps);
	bw_egress_close(&r->egress);
	if (r->prog_fd >= 0)
		close(r->prog_fd);
	if (r->link_fd >= 0)
		close(r->link_fd);
	r->prog_fd = r->link_fd = -1;
}

int bw_running_need_filter(const struct bw_running *r)
{
	if (!r->filter_err)
		return 0;
	pr_warn("%s: cannot read the running filter: %s. Rebuild it with 'bloomwall reload %s LIST...'.\n",
		r->iface,
		r->filter_err == -EINVAL ? "it is not a valid bloomwall filter"
					 : bw_errno_hint(r->filter_err),
		r->iface);
	return r->filter_err;
}

int bw_running_records(const struct bw_running *r, struct bw_records *rec)
{
	int err;

	bw_records_init(rec);
	if (r->filter_err)
		return 0;
	err = bw_records_read(r->filter.mem, r->filter.nblocks, rec);
	if (err == -EINVAL) {
		pr_warn("warning: %s: the running filter's record area is malformed; taken as empty: entries added at run time, if any, are not kept\n",
			r->iface);
		return 0;
	}
	if (err)
		pr_warn("%s: cannot read the running filter's records: %s\n",
			r->iface, bw_errno_hint(err));
	return err;
}

/* ---- the egress hook ----------------------------------------------------- */

bool bw_egress_behind(const struct bw_running *r)
{
	return r->egress.prog_fd >= 0 && !r->filter_err &&
	       r->egress.filter_id != r->filter.id;
}

int bw_egress_catch_up(struct bw_running *r)
{
	int prog, tc = -1, err;

	pr_warn("%s: its egress hook runs another filter than its XDP hook (a command was interrupted): loading the egress program for the running filter\n",
		r->iface);
	prog = bw_prog_load_pair(&r->maps, &r->filter, &r->egress, &tc);
	if (prog < 0) {
		err = prog;
	} else {
		close(prog);
		err = bw_egress_attach(r->ifindex, tc);
		close(tc);
	}
	if (err) {
		pr_warn("%s: cannot bring its egress hook to the running filter: %s\n",
			r->iface, bw_errno_hint(err));
		return err;
	}
	bw_egress_close(&r->egress);
	return bw_egress_find(r->ifindex, &r->egress);
}

/* ---- pins ---------------------------------------------------------------- */

/*
 * Pins that earlier versions made and that name nothing needed any more:
 * 0.1's filter pins, and the egress program's per-CPU slots of before they
 * moved into egress_stats.
 */
static const char *const old_pins[] = { "filter", "filter_id",
					"egress_who_cpu" };

#define NPINS 12

/*
 * What an interface's pins should name: the program (prog_id: its id, 0:
 * not known), its maps, its link, and the egress program's own maps (eg:
 * what the egress hook runs; no pins for them without one).
 */
static void pins_wanted(int prog_fd, __u32 prog_id, const struct bw_maps *m,
			int link_fd, const struct bw_egress *eg,
			struct bw_pin_set w[NPINS])
{
	w[0] = (struct bw_pin_set){ BW_PIN_PROG, prog_fd, prog_id };
	w[1] = (struct bw_pin_set){ BW_PIN_STATS, m->stats, m->ids[0] };
	w[2] = (struct bw_pin_set){ BW_PIN_ALLOW, m->allow, m->ids[1] };
	w[3] = (struct bw_pin_set){ BW_PIN_EXACT, m->exact, m->ids[2] };
	w[4] = (struct bw_pin_set){ BW_PIN_LINK, link_fd, 0 };
	w[5] = (struct bw_pin_set){ BW_PIN_ALLOW_NAMES, m->allow_names,
				    m->ids[3] };
	w[6] = (struct bw_pin_set){ BW_PIN_DNS_STATS, m->dns_stats, m->ids[4] };
	w[7] = (struct bw_pin_set){ BW_PIN_LOG_RING, m->log_ring, m->ids[6] };
	w[8] = (struct bw_pin_set){ BW_PIN_LOG_STATS, m->log_stats, m->ids[7] };
	w[9] = (struct bw_pin_set){ BW_PIN_DNS_DROPS, m->dns_drops, m->ids[5] };
	w[10] = (struct bw_pin_set){ BW_PIN_EGRESS_STATS, eg->stats, 0 };
	w[11] = (struct bw_pin_set){ BW_PIN_EGRESS_WHO, eg->who, 0 };
}

bool bw_pins_in_step(const struct bw_running *r)
{
	struct bw_pin_set w[NPINS];
	bool ok = true;
	int i, fd;

	pins_wanted(r->prog_fd, r->prog_id, &r->maps, r->link_fd, &r->egress,
		    w);
	for (i = 0; ok && i < NPINS; i++) {
		fd = bw_pin_open(r->iface, w[i].name);
		ok = w[i].fd < 0
			     ? fd < 0
			     : fd >= 0 &&
				       bw_obj_id(fd) ==
					       (w[i].id ?: bw_obj_id(w[i].fd));
		if (fd >= 0)
			close(fd);
	}
	return ok;
}

int bw_pins_sync(const char *iface, int prog_fd, const struct bw_maps *known,
		 int link_fd, bool quiet)
{
	struct bw_maps maps = BW_MAPS_INIT;
	struct bw_egress eg = BW_EGRESS_INIT;
	struct bw_pin_set pins[NPINS];
	int changed = 0, err, ifindex;
	size_t i;

	err = known ? 0 : bw_prog_maps(prog_fd, &maps);
	if (err)
		return err;
	/* The egress hook's maps as the interface's egress hook has them. */
	ifindex = (int)if_nametoindex(iface);
	if (!ifindex || bw_egress_find(ifindex, &eg))
		eg = (struct bw_egress)BW_EGRESS_INIT;
	pins_wanted(prog_fd, 0, known ?: &maps, link_fd, &eg, pins);
	err = bw_pin_dir_create(iface);
	if (err == -EEXIST)
		err = 0;
	else if (!err)
		changed++;
	if (!err) {
		err = bw_pins_set(iface, pins, NPINS);
		changed += err > 0 ? err : 0;
		err = err < 0 ? err : 0;
	}
	for (i = 0; !err && i < sizeof(old_pins) / sizeof(old_pins[0]); i++)
		bw_pin_remove(iface, old_pins[i]);
	bw_maps_close(&maps);
	bw_egress_close(&eg);
	if (err)
		pr_warn("warning: %s: cannot update its pins under %s/%s: %s; the filter runs, and the next command tries again\n",
			iface, BW_PIN_ROOT, iface, bw_errno_hint(err));
	else if (changed && !quiet)
		pr_warn("note: %s: its pins did not name what its hook runs (an earlier command was interrupted?); repaired\n",
			iface);
	return err;
}

/* The interface whose hook runs prog_id, into name; false if none does. */
static bool where_runs(__u32 prog_id, char *name, size_t len)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	struct bw_xdp_info x;
	bool found = false;
	int fd;

	for (i = ifs; i && i->if_index && !found; i++) {
		fd = bw_hook_find((int)i->if_index, &x);
		if (fd < 0)
			continue;
		found = bw_obj_id(fd) == prog_id;
		if (found)
			snprintf(name, len, "%s", i->if_name);
		close(fd);
	}
	if_freenameindex(ifs);
	return found;
}

int bw_pins_left(const char *iface, char *moved_to, size_t len)
{
	int fd;

	moved_to[0] = '\0';
	if (!bw_pin_dir_exists(iface))
		return 0;
	fd = bw_pin_open(iface, BW_PIN_PROG);
	if (fd < 0)
		return 1;
	if (!where_runs(bw_obj_id(fd), moved_to, len) ||
	    !strcmp(moved_to, iface))
		moved_to[0] = '\0';
	close(fd);
	return 1;
}

struct unpin_ctx {
	const char *keep;
	__u32 prog_id;
};

static int unpin_if_names(const char *iface, void *arg)
{
	const struct unpin_ctx *u = arg;
	int fd;
	bool names;

	if (!strcmp(iface, u->keep))
		return 0;
	fd = bw_pin_open(iface, BW_PIN_PROG);
	if (fd < 0)
		return 0;
	names = bw_obj_id(fd) == u->prog_id;
	close(fd);
	if (names && !bw_unpin_all(iface))
		pr_warn("note: removed the pins under %s/%s: they named the program of %s (renamed from %s?)\n",
			BW_PIN_ROOT, iface, u->keep, iface);
	return 0;
}

void bw_unpin_others(const char *iface, __u32 prog_id)
{
	struct unpin_ctx u = { .keep = iface, .prog_id = prog_id };

	if (prog_id)
		bw_for_each_pinned(unpin_if_names, &u);
}

int bw_running_change_prepare(const struct bw_running *r, __u8 verb,
			      struct bw_records *rec, __u32 *extra)
{
	__u32 need;
	int err;

	err = bw_running_records(r, rec);
	if (err)
		return err;
	bw_prov_change(rec, verb);
	need = bw_records_end(r->filter.mem, rec);
	*extra = need > r->filter.nblocks ? need - r->filter.nblocks : 0;
	return 0;
}
