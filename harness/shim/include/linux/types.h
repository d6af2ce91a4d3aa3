/* SPDX-License-Identifier: GPL-2.0 */
/* Shim: the uapi types from the system, plus the kernel-internal u8..s64. */
#ifndef SHIM_LINUX_TYPES_H
#define SHIM_LINUX_TYPES_H
#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#define BITS_PER_LONG (__SIZEOF_LONG__ * 8)
#endif
