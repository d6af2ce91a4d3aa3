// SPDX-License-Identifier: GPL-2.0
#include "export.h"

#include <errno.h>

int ex_write_perfetto(struct pf *p, const struct ex_opts *o, FILE *f)
{
	(void)p;
	(void)o;
	(void)f;
	return -ENOSYS;
}
