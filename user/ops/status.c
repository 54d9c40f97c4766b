// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Gathering what status shows of an interface (status.h).
 */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "filter/bloom_names.h"
#include "kernel/allow_names.h"
#include "filter/bloom.h"
#include "kernel/lock.h"
#include "kernel/lpm.h"
#include "kernel/pin.h"
#include "kernel/prog.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "ops/build.h"
#include "ops/daemon_state.h"
#include "ops/handover.h"
#include "kernel/running.h"
#include "ops/status.h"

static void gather_program(struct bw_status_view *v, const struct bw_running *r)
{
	v->prog_id = r->prog_id;
	v->x = r->hook;
	v->prog_hdr = r->prog_hdr;
	v->link = r->link_fd >= 0;
	v->pins_in_step = bw_pins_in_step(r);
	if (v->link)
		v->kind =
			"bpf_link of bloomwall's own (--link, or libxdp failed)";
	else if (v->x.dispatcher)
		v->kind = "libxdp dispatcher";
	else
		v->kind = "plain (libxdp dispatcher unavailable)";
}

void bw_status_regions(struct bw_status_view *v, const void *mem)
{
	const struct bw_hdr *hdr = mem;
	struct bw_region_row *row;
	double pass;
	__u64 set, total;
	int f, i;

	for (f = 0; f < BW_FAMILIES; f++) {
		pass = 1.0;
		for (i = 0; i < hdr->nlengths[f] && i < BW_MAX_LENGTHS; i++) {
			row = &v->rows[v->nrows++];
			row->region = f * BW_MAX_LENGTHS + i;
			row->family = f;
			row->plen = hdr->plen[f][i];
			row->probes = hdr->probes[row->region];
			row->blocks = hdr->region_end[row->region] -
				      bw_region_start(hdr, row->region);
			row->entries = v->info.region_entries[row->region];
			bw_region_fill(mem, row->region, &set, &total,
				       &row->fpr);
			row->fill = total ? (double)set / total : 0.0;
			pass *= 1.0 - row->fpr;
		}
		/* An unlisted address hits if any region of its family does. */
		v->fam_fpr[f] = i ? 1.0 - pass : -1.0;
	}
}

/* Read only to count: a malformed area is shown, not warned about. */
static void gather_records(struct bw_status_view *v,
			   const struct bw_filter_map *m)
{
	struct bw_records rec;

	if (bw_records_read(m->mem, m->nblocks, &rec)) {
		v->added_kept = v->names_kept = v->added_gone = -1;
		bw_dns_settings(m->mem, NULL, &v->dns_opts);
		return;
	}
	v->added_kept = (long long)rec.added.n;
	v->names_kept = (long long)bw_entries_count(&rec.added, BW_ENTRY_NAME);
	v->added_gone = (long long)rec.gone.n;
	v->have_sized = rec.have_sized;
	v->sized_entries = rec.sized.entries;
	v->have_image = rec.have_image && rec.have_origin;
	v->image = rec.image;
	if (rec.have_origin)
		memcpy(v->image_hash, rec.origin.image_hash,
		       sizeof(v->image_hash));
	bw_dns_settings(m->mem, &rec, &v->dns_opts);
	bw_records_free(&rec);
}

void bw_status_names(struct bw_status_view *v, const void *mem)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(mem);
	__u64 set, total;
	int n;

	v->has_dns = dns != NULL;
	if (!dns)
		return;
	v->dns = *dns;
	for (n = 0; n < BW_NAME_REGIONS; n++) {
		bw_name_region_fill(mem, n, &set, &total, &v->name_fpr[n]);
		v->name_fill[n] = total ? (double)set / total : 0.0;
	}
}

static void gather_filter(struct bw_status_view *v, const struct bw_running *r)
{
	const struct bw_filter_map *m = &r->filter;

	v->filter_err = r->filter_err;
	if (v->filter_err)
		return;
	v->map_id = m->id;
	v->nblocks = m->nblocks;
	v->filter_mem = bw_map_memlock(m->fd);
	memcpy(&v->hdr, m->mem, sizeof(v->hdr));
	memcpy(&v->info, (char *)m->mem + BW_BLOCK_BYTES, sizeof(v->info));
	bw_status_regions(v, m->mem);
	gather_records(v, m);
	bw_status_names(v, m->mem);
}

/* Entries and memory of a trie; both < 0 when fd is not one. */
static void trie_size(int fd, long long *entries, long long *mem)
{
	*entries = fd < 0 ? fd : bw_lpm_count(fd);
	*mem = fd < 0 ? fd : bw_map_memlock(fd);
	if (fd >= 0)
		close(fd);
}

static void gather_tries(struct bw_status_view *v, const struct bw_running *r)
{
	int fd = -ENOENT;

	trie_size(dup(r->maps.allow), &v->allow_entries, &v->allow_mem);
	v->allow_names = r->maps.allow_names < 0
				 ? -ENOENT
				 : (long long)bw_allow_names_count(
					   r->maps.allow_names, 0xff);
	if (r->prog_hdr.flags & BW_F_VERIFY)
		fd = bw_exact_open(r->maps.exact, r->prog_hdr.exact_slot);
	trie_size(fd, &v->exact_entries, &v->exact_mem);
}

/* Nothing of bloomwall's runs: what the hook holds, what pins are left. */
static void gather_absent(struct bw_status_view *v)
{
	v->prog_err = v->filter_err = v->stats_err = -ENOENT;
	v->dns_stats_err = -ENOENT;
	v->log_stats_err = -ENOENT;
	v->dns_drops_err = -ENOENT;
	v->log_rate = -1;
	v->prog_hdr_err = -ENOENT;
	v->allow_entries = v->allow_mem = -ENOENT;
	v->exact_entries = v->exact_mem = -ENOENT;
	v->filter_mem = -ENOENT;
	v->egress_err = v->egress_dns_err = -ENOENT;
	v->kernel_mem = -1;
	v->xdp_err = v->ifindex ? bw_xdp_info(v->ifindex, 0, &v->x) : -ENODEV;
	v->pins_left = bw_pins_left(v->iface, v->moved_to, sizeof(v->moved_to));
}

/* The egress hook, its counters and who tried; the memory of both. */
static void gather_egress(struct bw_status_view *v, const struct bw_running *r)
{
	const struct bw_egress *e = &r->egress;
	long long tc_alone;

	if (bw_hooks_memlock(r->prog_fd, e->prog_fd, &v->kernel_mem, &tc_alone))
		v->kernel_mem = -1;
	v->nwho_in = r->maps.who < 0 ? 0
				     : bw_who_top(r->maps.who, -1, v->who_in,
						  BW_STATUS_WHO);
	if (v->nwho_in < 0)
		v->nwho_in = 0;
	v->egress_dns_err = -ENOENT;
	v->egress_err = e->prog_fd < 0 ? -ENOENT : 0;
	if (v->egress_err)
		return;
	if (e->dns >= 0)
		v->egress_dns_err = bw_dns_stats_read(e->dns, &v->egress_dns);
	v->egress_id = e->prog_id;
	v->egress_behind = bw_egress_behind(r);
	v->egress_stats_err =
		e->stats < 0 ? -ENOENT
			     : bw_stats_read(e->stats, &v->egress_stats);
	v->nwho = e->who < 0
			  ? 0
			  : bw_who_top(e->who, e->stats, v->who, BW_STATUS_WHO);
	if (v->nwho < 0)
		v->nwho = 0;
}

/* The records of what r runs and its watch, into sr: 0 or -errno. */
static int read_records(const char *iface, const struct bw_running *r,
			struct bw_status_records *sr)
{
	int err;

	err = r->filter_err ? -ENOENT : bw_running_records(r, &sr->rec);
	if (!err)
		sr->watch_pid = bw_lock_watch_holder(iface);
	return err;
}

int bw_status_gather_all(struct bw_status_view *v, const char *iface,
			 struct bw_status_records *sr)
{
	struct bw_running r;
	int rec_err = -ENOENT;

	memset(v, 0, sizeof(*v));
	v->iface = iface;
	v->ifindex = (int)if_nametoindex(iface);
	if (sr) {
		bw_records_init(&sr->rec);
		sr->watch_pid = 0;
	}
	if (!v->ifindex || bw_running_open(iface, v->ifindex,
					   BW_RUN_QUIET | BW_RUN_OLD_OK, &r)) {
		gather_absent(v);
		return rec_err;
	}
	gather_program(v, &r);
	gather_filter(v, &r);
	gather_tries(v, &r);
	v->stats_err = bw_stats_read(r.maps.stats, &v->stats);
	v->dns_stats_err =
		r.maps.dns_stats < 0
			? -ENOENT
			: bw_dns_stats_read(r.maps.dns_stats, &v->dns_stats);
	v->dns_drops_err =
		r.maps.dns_drops < 0
			? -ENOENT
			: bw_dns_drops_read(r.maps.dns_drops, &v->dns_drops);
	gather_egress(v, &r);
	v->log_rate = r.maps.log_rate;
	v->log_stats_err =
		r.maps.log_stats < 0
			? -ENOENT
			: bw_log_stats_read(r.maps.log_stats, &v->log_stats);
	if (sr)
		rec_err = read_records(iface, &r, sr);
	bw_running_close(&r);
	return rec_err;
}

void bw_status_gather(struct bw_status_view *v, const char *iface)
{
	bw_status_gather_all(v, iface, NULL);
}

void bw_status_watch(const char *iface, struct bw_status_watch *sw)
{
	struct bw_watch_reply r;

	memset(sw, 0, sizeof(*sw));
	sw->ask_err =
		bw_watch_ask(iface, BW_ASK_STATUS, NULL, BW_STATUS_ASK_MS, &r);
	if (!sw->ask_err) {
		sw->state = r.o;
		return;
	}
	sw->err = bw_dstate_read(iface, &sw->state);
	sw->published = !sw->err;
}

void bw_status_watch_free(struct bw_status_watch *sw)
{
	json_object_put(sw->state);
	sw->state = NULL;
}

void bw_status_records_free(struct bw_status_records *sr)
{
	bw_records_free(&sr->rec);
}

bool bw_status_pinned(const char *iface)
{
	return bw_pin_dir_exists(iface);
}

/* Interfaces whose hook runs bloomwall but that have no pin directory. */
static int each_unpinned(int (*fn)(const char *iface, void *arg), void *arg)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	int n = 0;

	for (i = ifs; i && i->if_index; i++) {
		if (bw_pin_dir_exists(i->if_name) ||
		    !bw_hook_prog_id((int)i->if_index))
			continue;
		fn(i->if_name, arg);
		n++;
	}
	if_freenameindex(ifs);
	return n;
}

int bw_status_each(int (*fn)(const char *iface, void *arg), void *arg)
{
	int n = bw_for_each_pinned(fn, arg);

	if (n < 0) {
		pr_warn("bloomwall: cannot list %s: %s\n", BW_PIN_ROOT,
			bw_errno_hint(n));
		return n;
	}
	return n + each_unpinned(fn, arg);
}

int bw_status_find(const char *iface, int ifindex)
{
	if (bw_hook_prog_id(ifindex) || bw_pin_dir_exists(iface))
		return 0;
	return bw_explain_not_attached(iface);
}

int bw_status_not_attached(const char *iface)
{
	return bw_explain_not_attached(iface);
}

int bw_status_counters(const char *iface, int ifindex, struct bw_stats *s)
{
	struct bw_running r;
	int err;

	err = bw_running_open(iface, ifindex, BW_RUN_OLD_OK, &r);
	if (err)
		return err;
	err = bw_stats_read(r.maps.stats, s);
	if (err)
		pr_warn("%s: cannot read the counters: %s\n", iface,
			bw_errno_hint(err));
	bw_running_close(&r);
	return err;
}

int bw_status_log(const char *iface, int ifindex, long *rate,
		  struct bw_log_stats *ls)
{
	struct bw_running r;
	int err;

	err = bw_running_open(iface, ifindex, BW_RUN_OLD_OK | BW_RUN_QUIET, &r);
	if (!err && r.maps.log_stats < 0)
		err = -ENOENT;
	if (!err)
		err = bw_log_stats_read(r.maps.log_stats, ls);
	*rate = r.maps.log_rate;
	bw_running_close(&r);
	return err;
}
