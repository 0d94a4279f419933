// SPDX-License-Identifier: GPL-2.0
/*
 * Cancellation and deadlines.
 *
 * Both only ever say something *to the caller*: a deadline that expires
 * tells the waiter it stopped waiting, a cancel tells what it found. Neither
 * clears device access; only the device's terminal event does.
 *
 * Cancel results, as io_uring's ASYNC_CANCEL but made unambiguous by
 * generations:
 *   0          the request had not started and is removed; its TERMINAL
 *              record (cancelled) is separate from the CANCEL_ACK record
 *   -EALREADY  the device holds it; wait for its own terminal event
 *   -ENOENT    no live request by that handle: it never releases anything
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <kunit/visibility.h>
#include <linux/retire.h>

#include "cancel.h"
#include "ctx.h"
#include "engine.h"
#include "req.h"
#include "stats.h"

static enum hrtimer_restart retire_deadline_fire(struct hrtimer *t)
{
	struct retire_req *req = container_of(t, struct retire_req, deadline);
	struct retire_ctx *ctx = req->ctx;
	unsigned long flags;

	/*
	 * The slot is not reused before hrtimer_cancel() (see
	 * retire_record_commit()), so @req is this timer's incarnation; it
	 * may have terminated meanwhile, which the state says.
	 */
	spin_lock_irqsave(&ctx->lock, flags);
	if ((req->state == RETIRE_REQ_WAITING ||
	     req->state == RETIRE_REQ_ACTIVE) && !req->timed_out) {
		req->timed_out = true;
		retire_stat_inc(&ctx->stats, RETIRE_ST_TIMED_OUT);
		retire_req_end_logical_locked(ctx, req, ktime_get());
		retire_req_queue_locked(ctx, req, RETIRE_PEND_TIMEOUT);
	}
	spin_unlock_irqrestore(&ctx->lock, flags);
	return HRTIMER_NORESTART;
}

/*
 * The context's watchdog: every active request whose time is up is
 * quarantined, in expiry order; the timer then follows the first that is
 * not. A request that terminated has left the list, so the timer may fire
 * for nothing: it costs one pass and saves touching the timer on every
 * terminal event. Quarantined requests stay on the list (still active)
 * and are passed over: at most max_active of them.
 */
static enum hrtimer_restart retire_watchdog_fire(struct hrtimer *t)
{
	struct retire_ctx *ctx = container_of(t, struct retire_ctx, watchdog);
	struct retire_req *req;
	unsigned long flags;
	ktime_t now;

	spin_lock_irqsave(&ctx->lock, flags);
	now = ktime_get();
	list_for_each_entry(req, &ctx->active_list, active_node) {
		if (req->quarantined)
			continue;
		if (!ktime_after(req->watch_at, now)) {
			retire_req_quarantine_locked(ctx, req);
			continue;
		}
		/*
		 * Started again rather than restarted: an activation may have
		 * queued this timer while it waited for the lock, and the
		 * expiry of a queued timer must not be edited in place.
		 */
		if (!hrtimer_is_queued(t) ||
		    ktime_before(req->watch_at, hrtimer_get_expires(t)))
			hrtimer_start(t, req->watch_at, HRTIMER_MODE_ABS);
		break;
	}
	spin_unlock_irqrestore(&ctx->lock, flags);
	return HRTIMER_NORESTART;
}

/**
 * retire_deadline_init() - one-time set-up of a request slot's timer
 * @req: the request slot
 */
void retire_deadline_init(struct retire_req *req)
{
	hrtimer_init(&req->deadline, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	req->deadline.function = retire_deadline_fire;
}

/**
 * retire_watchdog_init() - set up a context's watchdog timer
 * @ctx: the context
 */
void retire_watchdog_init(struct retire_ctx *ctx)
{
	hrtimer_init(&ctx->watchdog, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	ctx->watchdog.function = retire_watchdog_fire;
}

/**
 * retire_watchdog_arm() - a request goes active: its watchdog starts
 * @req: the request; the caller holds its context's lock
 *
 * Past it, the device's silence is no longer evidence of progress: the
 * request is quarantined (retire_req_quarantine_locked()). It joins the
 * active list in expiry order: at the tail unless watchdog_ns was lowered
 * since the requests before it went active. The context's one timer is
 * touched only when it is idle or set for later than this expiry, so a
 * stream of short requests arms it about once per watchdog period.
 */
void retire_watchdog_arm(struct retire_req *req)
{
	struct retire_ctx *ctx = req->ctx;
	struct list_head *pos;

	lockdep_assert_held(&ctx->lock);
	req->watch_at = ktime_add_safe(ktime_get(),
				       ns_to_ktime(min_t(u64, ctx->limits.watchdog_ns,
							 KTIME_MAX)));
	for (pos = ctx->active_list.prev; pos != &ctx->active_list;
	     pos = pos->prev)
		if (!ktime_after(list_entry(pos, struct retire_req,
					    active_node)->watch_at,
				 req->watch_at))
			break;
	list_add(&req->active_node, pos);
	if (!hrtimer_is_queued(&ctx->watchdog) ||
	    ktime_before(req->watch_at, hrtimer_get_expires(&ctx->watchdog)))
		hrtimer_start(&ctx->watchdog, req->watch_at, HRTIMER_MODE_ABS);
}

/**
 * retire_deadline_arm() - start the deadline of a just-admitted request
 * @req: the request; the caller holds its context's lock
 */
void retire_deadline_arm(struct retire_req *req)
{
	lockdep_assert_held(&req->ctx->lock);
	if (req->deadline_ns)
		hrtimer_start(&req->deadline, ns_to_ktime(req->deadline_ns),
			      HRTIMER_MODE_REL);
}

/**
 * retire_req_cancel() - ask for a request to be cancelled
 * @ctx:	the context
 * @handle:	the request's handle
 *
 * Return: 0, -EALREADY or -ENOENT, as described at the top of this file.
 * The first cancel of a request also delivers a CANCEL_ACK record carrying
 * the result; repeating it changes nothing.
 */
int retire_req_cancel(struct retire_ctx *ctx, u64 handle)
{
	static const struct retire_engine_result cancelled = {
		.error = -ECANCELED,
		.cancelled = true,
	};
	struct retire_req *req;
	bool first;
	int ret;

	spin_lock_irq(&ctx->lock);
	req = retire_slot_lookup_locked(&ctx->reqs, handle);
	if (!req) {
		retire_ctx_stale_locked(ctx, RETIRE_ST_STALE_CANCEL);
		ret = -ENOENT;
		goto out_count;
	}
	if (req->state != RETIRE_REQ_WAITING &&
	    req->state != RETIRE_REQ_ACTIVE) {
		ret = -ENOENT;
		goto out_count;
	}

	first = !req->cancel_requested;
	req->cancel_requested = true;
	if (req->state == RETIRE_REQ_WAITING ||
	    ctx->engine->try_stop(ctx, retire_handle_slot(handle)))
		ret = 0;
	else
		ret = -EALREADY;

	if (first) {
		req->ack_error = ret;
		req->ack_flags = RETIRE_CQE_F_CANCEL_REQUESTED |
				 (ret ? RETIRE_CQE_F_OUTSTANDING : 0) |
				 (req->timed_out ? RETIRE_CQE_F_TIMED_OUT : 0);
		retire_req_end_logical_locked(ctx, req, ktime_get());
		retire_req_queue_locked(ctx, req, RETIRE_PEND_CANCEL_ACK);
	}
	if (!ret)
		retire_req_terminate_locked(ctx, req, &cancelled);

out_count:
	retire_stat_inc(&ctx->stats, ret == 0 ? RETIRE_ST_CANCEL_OK :
				     ret == -EALREADY ? RETIRE_ST_CANCEL_ALREADY :
				     RETIRE_ST_CANCEL_NOENT);
	spin_unlock_irq(&ctx->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_req_cancel);
