/* SPDX-License-Identifier: GPL-2.0 */
/* Shim: local_t is in shim_kernel.h. */
#include "../shim_kernel.h"
