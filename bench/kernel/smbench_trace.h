/* SPDX-License-Identifier: GPL-2.0 */
/* The event of the smbench module (bench/kernel/smbench.c). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smbench

#if !defined(_SMBENCH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SMBENCH_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(smbench_event,
	TP_PROTO(u32 v),
	TP_ARGS(v),
	TP_STRUCT__entry(__field(u32, v)),
	TP_fast_assign(__entry->v = v;),
	TP_printk("v=%u", __entry->v)
);

#endif /* _SMBENCH_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE smbench_trace
#include <trace/define_trace.h>
