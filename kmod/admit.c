// SPDX-License-Identifier: GPL-2.0
/*
 * Activation: when an admitted request is handed to its engine. A request
 * starts when the context has room under max_active and its key under
 * max_active_per_key (keys.c keeps the per-key queues), with a job from
 * the context's job table, which grows only outside the lock, ahead of
 * need (retire_jobs_reserve()). Bounds at submission are req.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>
#include <linux/retire.h>

#include "buf.h"
#include "cancel.h"
#include "ctx.h"
#include "dmabuf.h"
#include "history.h"
#include "keys.h"
#include "engine.h"
#include "admit.h"
#include "req.h"
#include "stats.h"

/*
 * Hand @req to the device with a job from the context's table: one is
 * kept free for every request that may start (retire_jobs_reserve()), and
 * the caller saw room under max_active. An engine that runs inline ends it
 * here, at the same time.
 */
void retire_req_activate_locked(struct retire_ctx *ctx,
				struct retire_req *req, ktime_t now)
{
	struct retire_engine_work w;
	struct retire_job *job;
	u64 jh;

	lockdep_assert_held(&ctx->lock);
	if (retire_engine_runs_inline(ctx->engine)) {
		struct retire_engine_result res;

		retire_req_run_locked(ctx, req, now, true, &res);
		retire_req_terminate_at_locked(ctx, req, &res, now, true);
		retire_req_terminated_locked(ctx, req, now);
		return;
	}
	retire_req_work_locked(ctx, req, &w);
	job = retire_slot_alloc_locked(&ctx->jobs, &jh);
	req->job = retire_handle_slot(jh);
	retire_keys_start_locked(ctx, req);
	/* a device with a queue of its own says when it begins the request */
	if (ctx->engine->ops->queues)
		INIT_LIST_HEAD(&req->node);
	else
		retire_watchdog_arm(ctx, req, now);
	retire_event_at_locked(ctx, RETIRE_EV_ACTIVATE, req->handle, 0, 0, now);
	ctx->engine->ops->start(ctx->engine, ctx, retire_job_pdu(job), &w);
}

/* may a new request with @key start at admission? */
bool retire_may_activate_locked(struct retire_ctx *ctx, u64 key)
{
	lockdep_assert_held(&ctx->lock);
	/*
	 * retire_jobs_reserve() keeps a job for every request that may start
	 * (an engine that runs inline takes none)
	 */
	if (WARN_ON_ONCE(ctx->active < ctx->limits.max_active &&
			 !ctx->jobs.nfree &&
			 !retire_engine_runs_inline(ctx->engine)))
		return false;
	return retire_keys_may_start_locked(ctx, key);
}

/*
 * Hand waiting requests to the device while it has room, oldest first,
 * passing over those whose key is at its bound (keys.c: each step is
 * O(1), a saturated key's requests are not visited).
 *
 * A pass takes at most RETIRE_CTX_BATCH steps, so a hold of the lock with
 * interrupts off stays short whatever waits: an engine that runs requests
 * inline (a null device, or one moving a short range under the lock)
 * does their work here, and a raised bound may let thousands go. A work
 * item takes the next batch.
 *
 * An engine completing inline terminates the request it was just given,
 * which comes back here: that nested call returns at once, and this loop,
 * which keeps no iterator, looks again.
 */
void retire_activate_waiting_locked(struct retire_ctx *ctx, ktime_t now)
{
	struct retire_req *req;
	u32 steps = 0;
	bool again;

	lockdep_assert_held(&ctx->lock);
	/* a closed context cancels its waiters: none starts meanwhile */
	if (ctx->closed || ctx->activating)
		return;
	ctx->activating = true;
	while (ctx->active < ctx->limits.max_active) {
		if (steps++ >= RETIRE_CTX_BATCH) {
			queue_work(retire_wq, &ctx->activate_work);
			break;
		}
		req = retire_keys_next_locked(ctx, &again);
		if (!req) {
			if (again)
				continue;
			break;
		}
		ctx->waiting_nr--;
		retire_req_activate_locked(ctx, req, now);
	}
	ctx->activating = false;
}

/**
 * retire_ctx_activate_work() - start what an activation pass left behind
 * @work: the context's activate_work
 */
void retire_ctx_activate_work(struct work_struct *work)
{
	struct retire_ctx *ctx = container_of(work, struct retire_ctx,
					      activate_work);

	spin_lock_irq(&ctx->lock);
	retire_activate_waiting_locked(ctx, ktime_get());
	spin_unlock_irq(&ctx->lock);
}

/*
 * Jobs to keep free so that every request that may start finds one: as
 * many as may be active at once, min(@max_active, active + waiting +
 * @extra), less those active requests hold.
 */
u32 retire_jobs_wanted_locked(struct retire_ctx *ctx, u32 max_active,
			      u32 extra)
{
	u64 may = min_t(u64, max_active,
			(u64)ctx->active + ctx->waiting_nr + extra);

	lockdep_assert_held(&ctx->lock);
	/* an engine that runs inline takes no job */
	if (retire_engine_runs_inline(ctx->engine))
		return 0;
	return may > ctx->active ? may - ctx->active : 0;
}

/**
 * retire_jobs_reserve() - jobs for every request that may start
 * @ctx:	the context; the caller holds ctx->mutex, not its lock
 * @max_active:	the bound on active requests to reserve for
 * @extra:	requests about to be admitted
 *
 * The job table grows only here, outside the lock, so activation (which
 * also happens on the completion path) never allocates. It holds as many
 * jobs as were ever wanted at once: at most the module's max_active cap,
 * however many requests are unretired.
 *
 * Return: 0 or -ENOMEM.
 */
int retire_jobs_reserve(struct retire_ctx *ctx, u32 max_active, u32 extra)
{
	u32 want;

	lockdep_assert_held(&ctx->mutex);
	spin_lock_irq(&ctx->lock);
	want = retire_jobs_wanted_locked(ctx, max_active, extra);
	spin_unlock_irq(&ctx->lock);
	return retire_slot_reserve(&ctx->jobs, want);
}

/**
 * retire_ctx_limits_changed_locked() - take new limits into force
 * @ctx:	the context
 * @l:		limits already checked against the caps and current use
 *
 * Raised activity bounds start the waiters that now fit.
 */
void retire_ctx_limits_changed_locked(struct retire_ctx *ctx,
				      const struct retire_limits *l)
{
	bool raised = l->max_active_per_key > ctx->limits.max_active_per_key;

	lockdep_assert_held(&ctx->lock);
	ctx->limits = *l;
	if (raised)
		retire_keys_raised_locked(ctx);
	retire_activate_waiting_locked(ctx, ktime_get());
}
EXPORT_SYMBOL_IF_KUNIT(retire_ctx_limits_changed_locked);
