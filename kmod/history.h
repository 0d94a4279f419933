/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_HISTORY_H
#define _RETIRE_HISTORY_H

#include <linux/compiler.h>
#include <linux/ktime.h>
#include <linux/types.h>
#include <linux/retire.h>

#include "ctx.h"
#include "trace.h"

struct seq_file;

/**
 * struct retire_history - a context's last RETIRE_HISTORY_LEN events
 * @recorded:	events since the context was created; the next one goes to
 *		@ev[@recorded % RETIRE_HISTORY_LEN], over the oldest
 * @ev:		the ring
 *
 * Protected by the context's lock. Fixed at creation: the history never
 * grows, whatever the context does.
 */
struct retire_history {
	u64 recorded;
	struct retire_history_event ev[RETIRE_HISTORY_LEN];
};

static_assert((RETIRE_HISTORY_LEN & (RETIRE_HISTORY_LEN - 1)) == 0);

/**
 * retire_event_at_locked() - record an event and fire its tracepoint
 * @ctx:	the context; the caller holds its lock
 * @type:	RETIRE_EV_*, a constant: the switch folds to one tracepoint
 * @handle:	the handle it concerns
 * @value:	per @type
 * @aux:	per @type
 * @now:	when it happened: the time the caller already read (the hot
 *		path's events reuse it rather than read the clock again)
 */
static __always_inline void retire_event_at_locked(struct retire_ctx *ctx,
						   u32 type, u64 handle,
						   s32 value, u64 aux,
						   ktime_t now)
{
	struct retire_history *h = ctx->history;
	struct retire_history_event *ev;

	lockdep_assert_held(&ctx->lock);
	switch (type) {
	case RETIRE_EV_SUBMIT:
		trace_submit(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_ACTIVATE:
		trace_activate(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_TERMINAL:
		trace_terminal(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_TIMEOUT:
		trace_timeout(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_CANCEL:
		trace_cancel(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_BORROW:
		trace_borrow(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_RETURN:
		trace_return(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_HANDOFF:
		trace_handoff(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_RETIRE:
		trace_retire(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_STALE:
		trace_stale(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_QUARANTINE:
		trace_quarantine(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_RESET:
		trace_reset(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_FENCE:
		trace_fence(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_GATE:
		trace_gate(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_EXPORT:
		trace_export(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_IMPORT:
		trace_import(ctx->id, handle, value, aux);
		break;
	case RETIRE_EV_REVOKE:
		trace_revoke(ctx->id, handle, value, aux);
		break;
	}
	ev = &h->ev[h->recorded++ & (RETIRE_HISTORY_LEN - 1)];
	ev->time_ns = ktime_to_ns(now);
	ev->handle = handle;
	ev->aux = aux;
	ev->type = type;
	ev->value = value;
}

/* retire_event_at_locked() now */
static __always_inline void retire_event_locked(struct retire_ctx *ctx,
						u32 type, u64 handle,
						s32 value, u64 aux)
{
	lockdep_assert_held(&ctx->lock);
	retire_event_at_locked(ctx, type, handle, value, aux, ktime_get());
}

struct retire_history *retire_history_alloc(void);
void retire_history_free(struct retire_history *h);
u32 retire_history_copy(struct retire_ctx *ctx, struct retire_history_event *out,
			u32 nr, u64 *recorded);
int retire_history_copy_id(u64 id, struct retire_history_event *out, u32 *nr,
			   u64 *recorded);
int retire_history_show(struct seq_file *m, struct retire_ctx *ctx);

#endif /* _RETIRE_HISTORY_H */
