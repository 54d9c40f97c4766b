// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* A build's request, with its defaults (build_req.h). */
#include <string.h>

#include "filter/build_req.h"
#include "filter/provenance.h"

void bw_build_req_init(struct bw_build_req *req, const char *label)
{
	memset(req, 0, sizeof(*req));
	req->label = label;
	bw_build_opts_init(&req->opts);
	bw_cidr_opts_init(&req->cidr);
	req->generation = 1;
	req->origin = BW_ORIGIN_ATTACH;
}
