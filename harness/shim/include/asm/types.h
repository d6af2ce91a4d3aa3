/* SPDX-License-Identifier: GPL-2.0 */
/* Shim: the system's asm/types.h; the kernel-internal types come with linux/compiler.h. */
#include_next <asm/types.h>
