/* SPDX-License-Identifier: GPL-2.0 */
/* Shim: everything is in shim_kernel.h. */
#include "../shim_kernel.h"
