// SPDX-License-Identifier: GPL-2.0
#include "export.h"

#include <errno.h>

int ex_write_svg(struct pf *p, const struct ex_opts *o, FILE *f)
{
	(void)p;
	(void)o;
	(void)f;
	return -ENOSYS;
}

int ex_write_diff_svg(struct pf *a, struct pf *b, const struct ex_opts *o, int normalize, FILE *f)
{
	(void)a;
	(void)b;
	(void)o;
	(void)normalize;
	(void)f;
	return -ENOSYS;
}
