/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The retire tracepoints: every event a context's history records, as it
 * happens (Documentation/retire.rst, "Watching it").
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM retire

#if !defined(_RETIRE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RETIRE_TRACE_H

#include <linux/tracepoint.h>

#include "names.h"

#define retire_show_outcome(o)	__print_symbolic(o, RETIRE_TP_OUTCOMES)
#define retire_show_stale(k)	__print_symbolic(k, RETIRE_TP_STALES)

/* one request's event: the handle decoded, and two values per event */
DECLARE_EVENT_CLASS(retire_req_event,
		    TP_PROTO(u64 ctx, u64 handle, s32 value, u64 aux),
		    TP_ARGS(ctx, handle, value, aux),
		    TP_STRUCT__entry(__field(u64, ctx)
				     __field(u64, handle)
				     __field(u64, aux)
				     __field(s32, value)),
		    TP_fast_assign(__entry->ctx = ctx;
				   __entry->handle = handle;
				   __entry->aux = aux;
				   __entry->value = value;),
		    TP_printk("ctx=%llu req=%#llx slot=%u gen=%u",
			      __entry->ctx, __entry->handle,
			      RETIRE_HANDLE_SLOT(__entry->handle),
			      RETIRE_HANDLE_GEN(__entry->handle)));

#define RETIRE_REQ_EVENT(name)						\
	DEFINE_EVENT(retire_req_event, name,				\
		     TP_PROTO(u64 ctx, u64 handle, s32 value, u64 aux),	\
		     TP_ARGS(ctx, handle, value, aux))

#define RETIRE_REQ_EVENT_PRINT(name, fmt, args...)			\
	DEFINE_EVENT_PRINT(retire_req_event, name,			\
			   TP_PROTO(u64 ctx, u64 handle, s32 value, u64 aux), \
			   TP_ARGS(ctx, handle, value, aux),		\
			   TP_printk("ctx=%llu req=%#llx slot=%u gen=%u " fmt, \
				     __entry->ctx, __entry->handle,	\
				     RETIRE_HANDLE_SLOT(__entry->handle), \
				     RETIRE_HANDLE_GEN(__entry->handle), args))

RETIRE_REQ_EVENT_PRINT(submit, "flags=%d len=%llu",
		       __entry->value, __entry->aux);
RETIRE_REQ_EVENT(activate);
RETIRE_REQ_EVENT_PRINT(terminal, "outcome=%s error=%d",
		       retire_show_outcome(__entry->aux), __entry->value);
RETIRE_REQ_EVENT(timeout);
RETIRE_REQ_EVENT_PRINT(cancel, "result=%d", __entry->value);
RETIRE_REQ_EVENT_PRINT(borrow, "token=%#llx", __entry->aux);
RETIRE_REQ_EVENT_PRINT(return, "token=%#llx error=%d",
		       __entry->aux, __entry->value);
RETIRE_REQ_EVENT_PRINT(handoff, "token=%#llx", __entry->aux);
RETIRE_REQ_EVENT(retire);
RETIRE_REQ_EVENT(quarantine);
RETIRE_REQ_EVENT(reset);
RETIRE_REQ_EVENT_PRINT(fence, "error=%d", __entry->value);
RETIRE_REQ_EVENT_PRINT(gate, "error=%d", __entry->value);

/* a buffer's events: its handle, a buffer's */
#define RETIRE_BUF_EVENT_PRINT(name, fmt, args...)			\
	DEFINE_EVENT_PRINT(retire_req_event, name,			\
			   TP_PROTO(u64 ctx, u64 handle, s32 value, u64 aux), \
			   TP_ARGS(ctx, handle, value, aux),		\
			   TP_printk("ctx=%llu buf=%#llx slot=%u gen=%u " fmt, \
				     __entry->ctx, __entry->handle,	\
				     RETIRE_HANDLE_SLOT(__entry->handle), \
				     RETIRE_HANDLE_GEN(__entry->handle), args))

RETIRE_BUF_EVENT_PRINT(export, "exports=%d len=%llu", __entry->value,
		       __entry->aux);
RETIRE_BUF_EVENT_PRINT(import, "len=%llu", __entry->aux);
RETIRE_BUF_EVENT_PRINT(revoke, "importers=%d len=%llu", __entry->value,
		       __entry->aux);

/* an imported dma-buf's exporter moved or revoked it */
TRACE_EVENT(move_notify,
	    TP_PROTO(u64 size, u32 cancelled, u32 active),
	    TP_ARGS(size, cancelled, active),
	    TP_STRUCT__entry(__field(u64, size)
			     __field(u32, cancelled)
			     __field(u32, active)),
	    TP_fast_assign(__entry->size = size;
			   __entry->cancelled = cancelled;
			   __entry->active = active;),
	    TP_printk("len=%llu cancelled=%u active=%u", __entry->size,
		      __entry->cancelled, __entry->active));

/* a handle refused before anything it names was read */
TRACE_EVENT(stale,
	    TP_PROTO(u64 ctx, u64 handle, s32 kind, u64 found),
	    TP_ARGS(ctx, handle, kind, found),
	    TP_STRUCT__entry(__field(u64, ctx)
			     __field(u64, handle)
			     __field(u64, found)
			     __field(s32, kind)),
	    TP_fast_assign(__entry->ctx = ctx;
			   __entry->handle = handle;
			   __entry->found = found;
			   __entry->kind = kind;),
	    TP_printk("ctx=%llu counter=%s handle=%#llx kind=%u slot=%u expected=%u found=%llu",
		      __entry->ctx, retire_show_stale(__entry->kind),
		      __entry->handle, RETIRE_HANDLE_KIND(__entry->handle),
		      RETIRE_HANDLE_SLOT(__entry->handle),
		      RETIRE_HANDLE_GEN(__entry->handle), __entry->found));

#endif /* _RETIRE_TRACE_H */

/* the module builds outside the kernel tree: the header is beside it */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
