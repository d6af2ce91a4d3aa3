/* SPDX-License-Identifier: GPL-2.0 */
/* Shim: the system's errno values are the kernel's on Linux. */
#include_next <linux/errno.h>
