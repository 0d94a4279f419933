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

static enum hrtimer_restart retire_watchdog_fire(struct hrtimer *t)
{
	struct retire_req *req = container_of(t, struct retire_req, watchdog);
	struct retire_ctx *ctx = req->ctx;
	unsigned long flags;

	/* the same incarnation argument as retire_deadline_fire() */
	spin_lock_irqsave(&ctx->lock, flags);
	if (req->state == RETIRE_REQ_ACTIVE)
		retire_req_quarantine_locked(ctx, req);
	spin_unlock_irqrestore(&ctx->lock, flags);
	return HRTIMER_NORESTART;
}

/**
 * retire_deadline_init() - one-time set-up of a request slot's timers
 * @req: the request slot
 */
void retire_deadline_init(struct retire_req *req)
{
	hrtimer_init(&req->deadline, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	req->deadline.function = retire_deadline_fire;
	hrtimer_init(&req->watchdog, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	req->watchdog.function = retire_watchdog_fire;
}

/**
 * retire_watchdog_arm() - start the watchdog of a request going active
 * @req: the request; the caller holds its context's lock
 *
 * Past it, the device's silence is no longer evidence of progress: the
 * request is quarantined (retire_req_quarantine_locked()).
 */
void retire_watchdog_arm(struct retire_req *req)
{
	lockdep_assert_held(&req->ctx->lock);
	hrtimer_start(&req->watchdog, ns_to_ktime(req->ctx->limits.watchdog_ns),
		      HRTIMER_MODE_REL);
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
