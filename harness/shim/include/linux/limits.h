/* SPDX-License-Identifier: GPL-2.0 */
/* Shim: the system's uapi limits plus the kernel's U*_MAX constants. */
#ifndef SHIM_LINUX_LIMITS_H
#define SHIM_LINUX_LIMITS_H
#include_next <linux/limits.h>
#include <limits.h>
#define U8_MAX ((unsigned char)~0U)
#define U16_MAX ((unsigned short)~0U)
#define U32_MAX ((unsigned int)~0U)
#define U64_MAX ((unsigned long long)~0ULL)
#define S32_MAX ((int)(U32_MAX >> 1))
#endif
