// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Gathering what status shows of an interface (status_view.h).
 */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <unistd.h>

#include "bloom.h"
#include "lpm.h"
#include "pin.h"
#include "prog.h"
#include "running.h"
#include "status_view.h"

static void gather_program(struct bw_status_view *v)
{
	int fd = bw_pin_open(v->iface, BW_PIN_PROG);

	v->prog_err = fd < 0 ? fd : 0;
	v->prog_id = bw_obj_id(fd);
	v->prog_hdr_err = fd < 0 ? fd : bw_prog_header(fd, &v->prog_hdr);
	if (fd >= 0)
		close(fd);
	v->xdp_err = v->ifindex ? bw_xdp_info(v->ifindex, v->prog_id, &v->x)
				: -ENODEV;
	if (bw_pin_exists(v->iface, BW_PIN_LINK))
		v->kind =
			"bpf_link of bloomwall's own (--link, or libxdp failed)";
	else if (v->x.dispatcher)
		v->kind = "libxdp dispatcher";
	else
		v->kind = "plain (libxdp dispatcher unavailable)";
}

static void gather_regions(struct bw_status_view *v, const void *mem)
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

static void gather_filter(struct bw_status_view *v)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;

	v->filter_err = bw_open_running(v->iface, false, &m);
	if (v->filter_err)
		return;
	v->map_id = m.id;
	v->nblocks = m.nblocks;
	v->filter_mem = bw_map_memlock(m.fd);
	memcpy(&v->hdr, m.mem, sizeof(v->hdr));
	memcpy(&v->info, (char *)m.mem + BW_BLOCK_BYTES, sizeof(v->info));
	gather_regions(v, m.mem);
	bw_filter_close(&m);
}

/* Entries and memory of a trie; both < 0 when fd is not one. */
static void trie_size(int fd, long long *entries, long long *mem)
{
	*entries = fd < 0 ? fd : bw_lpm_count(fd);
	*mem = fd < 0 ? fd : bw_map_memlock(fd);
	if (fd >= 0)
		close(fd);
}

static void gather_tries(struct bw_status_view *v)
{
	int outer, fd = -ENOENT;

	trie_size(bw_pin_open(v->iface, BW_PIN_ALLOW), &v->allow_entries,
		  &v->allow_mem);
	if (!v->filter_err && (v->hdr.flags & BW_F_VERIFY)) {
		outer = bw_pin_open(v->iface, BW_PIN_EXACT);
		if (outer >= 0) {
			fd = bw_exact_open(outer, v->hdr.exact_slot);
			close(outer);
		}
	}
	trie_size(fd, &v->exact_entries, &v->exact_mem);
}

void bw_status_gather(struct bw_status_view *v, const char *iface)
{
	int fd;

	memset(v, 0, sizeof(*v));
	v->iface = iface;
	v->ifindex = (int)if_nametoindex(iface);
	gather_program(v);
	gather_filter(v);
	gather_tries(v);
	fd = bw_pin_open(iface, BW_PIN_STATS);
	v->stats_err = fd < 0 ? fd : bw_stats_read(fd, &v->stats);
	if (fd >= 0)
		close(fd);
}
