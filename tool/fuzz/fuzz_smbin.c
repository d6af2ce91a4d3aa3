// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target for the stack_map_bin decoder: the copying and the owning (in-place) paths. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smbin_map map, omap;
	struct smbin_err err, oerr;
	size_t i, total = 0;
	char *owned;
	int ret, oret;

	ret = smbin_decode(data, size, &map, &err);
	if (ret != 0 && ret != -EBADMSG && ret != -ENOMEM)
		abort();
	if (ret == -EBADMSG && (err.offset > size || !memchr(err.msg, '\0', sizeof(err.msg))))
		abort();
	/* Invariants of whatever decoded: depths bounded, ids strictly increasing, ips in range. */
	for (i = 0; i < map.nr; i++) {
		if (map.stacks[i].nr > SMBIN_MAX_DEPTH)
			abort();
		if (i && map.stacks[i].id <= map.stacks[i - 1].id)
			abort();
		if (map.stacks[i].nr)
			total += map.stacks[i].ips[map.stacks[i].nr - 1] & 1;
	}
	if (ret == 0 && map.nr != map.nr_stacks_hdr)
		abort();
	/* The owning decoder (what the tool uses): same verdict, same records, frames in place. */
	owned = malloc(size + 1);
	if (owned) {
		memcpy(owned, data, size);
		oret = smbin_decode_owned(owned, size, &omap, &oerr);
		if (ret != -ENOMEM && oret != -ENOMEM) {
			if (oret != ret || omap.nr != map.nr)
				abort();
			if (ret == -EBADMSG &&
			    (oerr.offset != err.offset || strcmp(oerr.msg, err.msg)))
				abort();
			for (i = 0; i < map.nr; i++) {
				if (omap.stacks[i].id != map.stacks[i].id ||
				    omap.stacks[i].nr != map.stacks[i].nr ||
				    omap.stacks[i].ref_count != map.stacks[i].ref_count ||
				    memcmp(omap.stacks[i].ips, map.stacks[i].ips,
					   map.stacks[i].nr * sizeof(uint64_t)))
					abort();
			}
		}
		smbin_free(&omap);
	}
	smbin_free(&map);
	return (int)(total & 0);
}
