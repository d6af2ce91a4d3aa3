// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target for the stack_map_bin decoder. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smbin_map map;
	struct smbin_err err;
	size_t i, total = 0;
	int ret;

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
	smbin_free(&map);
	return (int)(total & 0);
}
