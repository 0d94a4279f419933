// SPDX-License-Identifier: GPL-2.0
/*
 * The request state machine: admission, the device's terminal event,
 * delivery of records, consumption and retirement.
 *
 *   FREE -submit-> WAITING -activate-> ACTIVE -terminal-> TERMINATED
 *                     | cancel: 0                            | TERMINAL read,
 *                     +---------> TERMINATED (cancelled)     | RETIRE ioctl,
 *                                                            v last token back
 *   FREE <-RETIRED record read- RETIRED (generation moved on) <-+
 *
 * Only the device's terminal event moves a request past ACTIVE: a deadline
 * or a cancel acknowledgment never does. Every event names its request
 * by handle and is checked against the live incarnation under the context
 * lock before anything else of the request is read.
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
#include "history.h"
#include "keys.h"
#include "engine.h"
#include "req.h"
#include "stats.h"

/* a request is two cache lines: 64 of them fill an 8 KiB chunk exactly */
static_assert(sizeof(struct retire_req) <= 128);

static void retire_req_unquarantine_locked(struct retire_ctx *ctx,
					   struct retire_req *req);

static u32 retire_req_idx(const struct retire_req *req)
{
	return retire_handle_slot(req->handle);
}

static struct retire_req *retire_req_at(struct retire_ctx *ctx, u32 idx)
{
	return retire_slot_get(&ctx->reqs, idx);
}

/**
 * retire_req_queue_locked() - owe the reader a record
 * @ctx:	the context
 * @req:	the request
 * @pend:	RETIRE_PEND_*
 *
 * Never allocates: the ready list threads through the requests.
 */
void retire_req_queue_locked(struct retire_ctx *ctx, struct retire_req *req,
			     u8 pend)
{
	u32 idx = retire_req_idx(req);

	lockdep_assert_held(&ctx->lock);
	req->pending |= pend;
	if (!req->on_ready) {
		req->on_ready = true;
		req->ready_next = RETIRE_SLOT_NONE;
		if (ctx->ready_tail == RETIRE_SLOT_NONE)
			WRITE_ONCE(ctx->ready_head, idx);
		else
			retire_req_at(ctx, ctx->ready_tail)->ready_next = idx;
		ctx->ready_tail = idx;
	}
	if (ctx->closed)
		retire_ctx_kick_reaper(ctx);
	/* the barrier orders the list_add before the check; waiters pair */
	if (wq_has_sleeper(&ctx->waitq))
		wake_up_interruptible(&ctx->waitq);
}

/**
 * retire_req_end_logical_locked() - nobody waits for it any more
 * @ctx:	the context
 * @req:	the request
 * @now:	the event's time
 *
 * Logically outstanding ends at the first of terminal event, timeout or
 * cancel; physically outstanding only at retirement.
 */
void retire_req_end_logical_locked(struct retire_ctx *ctx,
				   struct retire_req *req, ktime_t now)
{
	lockdep_assert_held(&ctx->lock);
	if (req->logical_done)
		return;
	req->logical_done = true;
	retire_stat_add(&ctx->stats, RETIRE_ST_LOGICAL, -1);
	retire_stat_hist(&ctx->stats, RETIRE_HIST_LOGICAL, req->t_admit, now);
}

/*
 * Hand @req to the device with a job from the context's table: one is
 * kept free for every request that may start (retire_jobs_reserve()), and
 * the caller saw room under max_active.
 */
static void retire_req_activate_locked(struct retire_ctx *ctx,
				       struct retire_req *req, ktime_t now)
{
	struct retire_engine_work w = {
		.handle = req->handle,
		.pages = req->buf->pages,
		.buf = req->buf,
		.offset = req->offset,
		.len = req->len,
		.dev_flags = req->dev_flags,
		.user_data = req->user_data,
	};
	struct retire_job *job;
	u64 jh;

	lockdep_assert_held(&ctx->lock);
	job = retire_slot_alloc_locked(&ctx->jobs, &jh);
	req->job = retire_handle_slot(jh);
	req->state = RETIRE_REQ_ACTIVE;
	ctx->active++;
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
static bool retire_may_activate_locked(struct retire_ctx *ctx, u64 key)
{
	lockdep_assert_held(&ctx->lock);
	/* retire_jobs_reserve() keeps a job for every request that may start */
	if (WARN_ON_ONCE(ctx->active < ctx->limits.max_active &&
			 !ctx->jobs.nfree))
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
static void retire_activate_waiting_locked(struct retire_ctx *ctx, ktime_t now)
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
static u32 retire_jobs_wanted_locked(struct retire_ctx *ctx, u32 max_active,
				     u32 extra)
{
	u64 may = min_t(u64, max_active,
			(u64)ctx->active + ctx->waiting_nr + extra);

	lockdep_assert_held(&ctx->lock);
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

/**
 * retire_req_terminate_locked() - the request's terminal event
 * @ctx:	the context
 * @req:	a WAITING (cancelled before it started) or ACTIVE request
 * @res:	what the device reported
 *
 * Ends device access: from here no device touches the buffer for this
 * request.
 */
void retire_req_terminate_locked(struct retire_ctx *ctx,
				 struct retire_req *req,
				 const struct retire_engine_result *res)
{
	ktime_t now = ktime_get();

	lockdep_assert_held(&ctx->lock);
	if (req->state == RETIRE_REQ_ACTIVE) {
		/* the report gives the job back: the next start may take it */
		struct retire_slot *job = retire_slot_get(&ctx->jobs, req->job);

		retire_slot_kill_locked(&ctx->jobs, job);
		retire_slot_release_locked(&ctx->jobs, job, req->job);
		ctx->active--;
		list_del(&req->node);
		retire_keys_end_locked(ctx, req);
	} else {
		ctx->waiting_nr--;
		retire_keys_unwait_locked(ctx, req);
	}
	retire_deadline_disarm(ctx, req);

	/* from here the request's memory holds what the terminal event says */
	req->state = RETIRE_REQ_TERMINATED;
	req->t_terminal = now;
	req->tokens = 0;
	req->result_len = 0;
	req->checksum = 0;
	if (res->cancelled) {
		req->outcome = RETIRE_OUTCOME_CANCELLED;
		req->error = -ECANCELED;
		retire_stat_inc(&ctx->stats, RETIRE_ST_CANCELLED);
	} else if (res->error) {
		req->outcome = RETIRE_OUTCOME_FAILED;
		req->error = res->error;
		retire_stat_inc(&ctx->stats, RETIRE_ST_FAILED);
	} else {
		req->outcome = RETIRE_OUTCOME_COMPLETED;
		req->error = 0;
		req->result_len = res->transferred;
		if (req->dev_flags & RETIRE_DEV_READ)
			req->checksum = res->checksum;
		retire_stat_inc(&ctx->stats, RETIRE_ST_COMPLETED);
	}
	retire_stat_add(&ctx->stats, RETIRE_ST_DEVICE, -1);
	if (res->reset)
		retire_event_at_locked(ctx, RETIRE_EV_RESET, req->handle, 0, 0,
				       now);
	retire_event_at_locked(ctx, RETIRE_EV_TERMINAL, req->handle,
			       req->error, req->outcome, now);
	/*
	 * The device's own terminal event is the evidence quarantine waited
	 * for: no access follows it, so the request may retire like any
	 * other (and its context admit again) without an engine reset.
	 */
	if (req->quarantined)
		retire_req_unquarantine_locked(ctx, req);
	if (!req->quarantined)
		req->buf->state = RETIRE_BUF_HELD;

	retire_req_end_logical_locked(ctx, req, now);
	retire_req_queue_locked(ctx, req, RETIRE_PEND_TERMINAL);
	retire_activate_waiting_locked(ctx, now);
}

/*
 * the device's access ended, the terminal record consumed, no borrow token
 * out, not quarantined
 */
static bool retire_req_may_retire(const struct retire_req *req)
{
	return req->state == RETIRE_REQ_TERMINATED && req->consumed &&
	       !req->tokens && !req->quarantined;
}

/*
 * Retire a request that may: @now is the time of it. @record: a RETIRED
 * record is owed (the slot is released when it is read); without, the
 * caller has said so in the TERMINAL record and releases the slot.
 */
static void retire_req_retire_locked(struct retire_ctx *ctx,
				     struct retire_req *req, ktime_t now,
				     bool record)
{
	lockdep_assert_held(&ctx->lock);
	req->state = RETIRE_REQ_RETIRED;
	retire_buf_pool_put_locked(ctx, req->buf);
	req->buf = NULL;
	ctx->unretired--;
	ctx->reserved_bytes -= req->len;
	retire_stat_inc(&ctx->stats, RETIRE_ST_RETIRED);
	retire_stat_add(&ctx->stats, RETIRE_ST_PHYSICAL, -1);
	retire_stat_owned(&ctx->stats, -(s64)req->len);
	retire_stat_hist(&ctx->stats, RETIRE_HIST_PHYSICAL, req->t_admit, now);
	retire_event_at_locked(ctx, RETIRE_EV_RETIRE, req->handle, 0, 0, now);
	retire_slot_kill_locked(&ctx->reqs, &req->slot);
	if (record)
		retire_req_queue_locked(ctx, req, RETIRE_PEND_RETIRED);
}

/**
 * retire_req_try_retire_locked() - retire if nothing may touch the buffer
 * @ctx:	the context
 * @req:	the request
 *
 * Exactly once: when the device's access has ended, the owner consumed the
 * terminal record and no borrow token is out. The buffer goes back to its
 * pool, the slot's generation moves on (every old handle is stale from
 * here) and a RETIRED record is owed; the slot is reused only once that
 * record is read.
 */
void retire_req_try_retire_locked(struct retire_ctx *ctx,
				  struct retire_req *req)
{
	lockdep_assert_held(&ctx->lock);
	if (retire_req_may_retire(req))
		retire_req_retire_locked(ctx, req, ktime_get(), true);
}
EXPORT_SYMBOL_IF_KUNIT(retire_req_try_retire_locked);

static int retire_sqe_check(const struct retire_sqe *sqe)
{
	static_assert(ARRAY_SIZE(sqe->reserved) == 2);
	if (sqe->flags & ~RETIRE_SQE_F_ALL || sqe->pad ||
	    sqe->reserved[0] || sqe->reserved[1])
		return -EINVAL;
	if (!sqe->dev_flags || sqe->dev_flags & ~RETIRE_DEV_ALL)
		return -EINVAL;
	if (sqe->flags & RETIRE_SQE_F_ONE_RECORD &&
	    !(sqe->flags & RETIRE_SQE_F_AUTO_RETIRE))
		return -EINVAL;
	if (!sqe->len)
		return -EINVAL;
	/* a ktime is signed: 2^63 ns and more would be in the past */
	if (sqe->deadline_ns > KTIME_MAX)
		return -EINVAL;
	return 0;
}

/* a refusal: the entry changed nothing but these counters */
static int retire_refuse_locked(struct retire_ctx *ctx, int err,
				enum retire_stat bound)
{
	lockdep_assert_held(&ctx->lock);
	retire_stat_inc(&ctx->stats, RETIRE_ST_REFUSED);
	if (bound != RETIRE_ST_REFUSED)
		retire_stat_inc(&ctx->stats, bound);
	return err;
}

/**
 * retire_submit_one() - admit one request, or refuse it changing nothing
 * @ctx:	the context; the caller holds ctx->mutex
 * @sqe:	the request; @sqe->handle is set when admitted
 * @now:	its admission time: one clock read serves a whole batch, all
 *		of it handed over at once
 *
 * Checks, in order: the injected failure of every Nth attempt (-EIO);
 * quarantine (-ENOTRECOVERABLE); the entry (-EINVAL); the engine, whose
 * device may be gone (-ENODEV); the buffer
 * (-ENOENT stale, -EINVAL range, -EBUSY attached); the bounds: unretired
 * requests (-ENOSPC), reserved bytes (-EDQUOT), and, for a request that
 * would have to wait, waiting requests (-ENOBUFS). -EAGAIN when every
 * request slot waits for its RETIRED record to be read; -ENOMEM.
 *
 * Return: 0 when admitted, else the errno of the bound that refused.
 */
int retire_submit_one(struct retire_ctx *ctx, struct retire_sqe *sqe,
		      ktime_t now)
{
	struct retire_deadline *dl = NULL;
	struct retire_buf *buf;
	struct retire_req *req;
	bool activate;
	u64 end, handle;
	int ret;

	lockdep_assert_held(&ctx->mutex);
	/* every attempt counts in the ordinal, refused ones too */
	if (ctx->engine->ops->fail_submit &&
	    ctx->engine->ops->fail_submit(ctx->engine)) {
		spin_lock_irq(&ctx->lock);
		ret = retire_refuse_locked(ctx, -EIO, RETIRE_ST_REFUSED_INJECTED);
		spin_unlock_irq(&ctx->lock);
		return ret;
	}
	ret = retire_sqe_check(sqe);
	if (!ret)
		ret = retire_deadline_new(sqe->deadline_ns, &dl);

	spin_lock_irq(&ctx->lock);
	if (ctx->quarantined) {
		ret = retire_refuse_locked(ctx, -ENOTRECOVERABLE,
					   RETIRE_ST_REFUSED_QUARANTINE);
		goto out_unlock;
	}
	/* the engine's device was removed: nothing more goes to it */
	if (!ret && READ_ONCE(ctx->engine->gone))
		ret = -ENODEV;
	/*
	 * A request slot and a job for every request that may start are
	 * there almost always; when not, they are allocated outside the lock
	 * and the checks below run on what the context is then.
	 */
	if (!ret && ((!ctx->reqs.nfree && ctx->reqs.nr < ctx->reqs.max) ||
		     ctx->jobs.nfree < retire_jobs_wanted_locked(ctx,
								 ctx->limits.max_active,
								 1) ||
		     !ctx->keys.nr_free)) {
		spin_unlock_irq(&ctx->lock);
		ret = retire_slot_reserve(&ctx->reqs, 1) ?:
		      retire_jobs_reserve(ctx, ctx->limits.max_active, 1) ?:
		      (ctx->keys.nr_free ? 0 : retire_keys_reserve(ctx));
		spin_lock_irq(&ctx->lock);
	}
	if (ret) {
		ret = retire_refuse_locked(ctx, ret, RETIRE_ST_REFUSED);
		goto out_unlock;
	}
	buf = retire_ctx_lookup_locked(ctx, &ctx->bufs, sqe->buf,
				       RETIRE_ST_STALE_USER);
	if (!buf) {
		ret = retire_refuse_locked(ctx, -ENOENT, RETIRE_ST_REFUSED);
		goto out_unlock;
	}
	if (check_add_overflow(sqe->offset, sqe->len, &end) ||
	    end > buf->len) {
		ret = retire_refuse_locked(ctx, -EINVAL, RETIRE_ST_REFUSED);
		goto out_unlock;
	}
	if (buf->state != RETIRE_BUF_FREE) {
		ret = retire_refuse_locked(ctx, -EBUSY, RETIRE_ST_REFUSED);
		goto out_unlock;
	}
	if (ctx->unretired >= ctx->limits.max_unretired) {
		ret = retire_refuse_locked(ctx, -ENOSPC,
					   RETIRE_ST_REFUSED_UNRETIRED);
		goto out_unlock;
	}
	if (ctx->reserved_bytes + sqe->len > ctx->limits.max_reserved_bytes) {
		ret = retire_refuse_locked(ctx, -EDQUOT,
					   RETIRE_ST_REFUSED_RESERVED);
		goto out_unlock;
	}
	activate = retire_may_activate_locked(ctx, sqe->key);
	if (!activate && ctx->waiting_nr >= ctx->limits.max_waiting) {
		ret = retire_refuse_locked(ctx, -ENOBUFS,
					   RETIRE_ST_REFUSED_WAITING);
		goto out_unlock;
	}
	req = retire_slot_alloc_locked(&ctx->reqs, &handle);
	if (!req) {
		ret = retire_refuse_locked(ctx, -EAGAIN, RETIRE_ST_REFUSED);
		goto out_unlock;
	}

	/* nothing of the previous incarnation: see struct retire_req */
	memset(&req->admission, 0, sizeof(req->admission));
	req->dev_flags = sqe->dev_flags;
	req->auto_retire = !!(sqe->flags & RETIRE_SQE_F_AUTO_RETIRE);
	req->one_record = !!(sqe->flags & RETIRE_SQE_F_ONE_RECORD);
	req->handle = handle;
	req->user_data = sqe->user_data;
	req->key = sqe->key;
	req->offset = sqe->offset;
	req->len = sqe->len;
	req->buf = buf;
	req->intent = ctx->intent;
	req->t_admit = now;
	retire_buf_pool_take_locked(ctx, buf, RETIRE_BUF_ATTACHED);
	ctx->unretired++;
	ctx->reserved_bytes += sqe->len;
	retire_stat_inc(&ctx->stats, RETIRE_ST_ADMITTED);
	retire_stat_inc(&ctx->stats, RETIRE_ST_PHYSICAL);
	retire_stat_inc(&ctx->stats, RETIRE_ST_LOGICAL);
	retire_stat_inc(&ctx->stats, RETIRE_ST_DEVICE);
	retire_stat_owned(&ctx->stats, sqe->len);
	retire_event_at_locked(ctx, RETIRE_EV_SUBMIT, handle, sqe->dev_flags,
			       sqe->len, now);

	retire_deadline_arm(ctx, req, dl, sqe->deadline_ns);
	dl = NULL;
	if (activate) {
		retire_req_activate_locked(ctx, req, req->t_admit);
	} else {
		req->state = RETIRE_REQ_WAITING;
		retire_keys_wait_locked(ctx, req);
		ctx->waiting_nr++;
		/* a pass left for the work item may have room for it */
		retire_activate_waiting_locked(ctx, req->t_admit);
	}
	spin_unlock_irq(&ctx->lock);

	sqe->handle = handle;
	return 0;

out_unlock:
	spin_unlock_irq(&ctx->lock);
	retire_deadline_free(dl);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_submit_one);

/**
 * retire_req_retire() - the owner consumed the terminal record
 * @ctx:	the context
 * @handle:	the request's handle
 *
 * Return: 0 (retired now, or when the last borrow token returns: the
 * RETIRED record says when); -EBUSY if the TERMINAL record has not been
 * read (or the request is still in flight); -EALREADY if it was already
 * consumed; -ENOENT for a stale or foreign handle (counted).
 */
int retire_req_retire(struct retire_ctx *ctx, u64 handle)
{
	struct retire_req *req;
	int ret = 0;

	spin_lock_irq(&ctx->lock);
	req = retire_ctx_lookup_locked(ctx, &ctx->reqs, handle,
				       RETIRE_ST_STALE_USER);
	if (!req) {
		ret = -ENOENT;
	} else if (req->consumed) {
		ret = -EALREADY;
	} else if (req->state != RETIRE_REQ_TERMINATED || !req->terminal_read) {
		ret = -EBUSY;
	} else {
		req->consumed = true;
		retire_req_try_retire_locked(ctx, req);
	}
	spin_unlock_irq(&ctx->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_req_retire);

/**
 * retire_req_cqe_flags() - RETIRE_CQE_F_* common to a request's records
 * @req: the request
 *
 * Return: TIMED_OUT and CANCEL_REQUESTED as they stand.
 */
u32 retire_req_cqe_flags(const struct retire_req *req)
{
	return (req->timed_out ? RETIRE_CQE_F_TIMED_OUT : 0) |
	       (req->cancel_requested ? RETIRE_CQE_F_CANCEL_REQUESTED : 0);
}

/**
 * retire_req_publishable_locked() - the publication predicate
 * @ctx:	the context
 * @req:	a request whose device succeeded
 *
 * Evaluated when the TERMINAL record is delivered, not when the device
 * finished: intent may have changed in between.
 *
 * Return: true if it may be published as completed: no cancel named it,
 * its key was not bumped and the context's authority was not revoked
 * since it was admitted.
 */
bool retire_req_publishable_locked(const struct retire_ctx *ctx,
				   const struct retire_req *req)
{
	u32 i;

	lockdep_assert_held(&ctx->lock);
	if (req->cancel_requested)
		return false;
	/* the common case: intent has not moved since admission */
	if (req->intent == ctx->intent)
		return true;
	if (ctx->revoked_at > req->intent)
		return false;
	for (i = 0; i < ctx->nr_epochs; i++)
		if (ctx->epochs[i].key == req->key)
			return ctx->epochs[i].bumped_at <= req->intent;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(retire_req_publishable_locked);

/**
 * retire_req_quarantine_locked() - the device held it past the watchdog
 * @ctx:	the context
 * @req:	an ACTIVE request
 *
 * Termination cannot be proven: the outcome is unknown, the buffer is
 * quarantined (never freed or reused, still owned) and admission stops for
 * the whole context until the device's terminal event arrives after all,
 * or an engine reset guarantees no further access.
 */
void retire_req_quarantine_locked(struct retire_ctx *ctx,
				  struct retire_req *req)
{
	lockdep_assert_held(&ctx->lock);
	if (req->quarantined || req->state != RETIRE_REQ_ACTIVE)
		return;
	req->quarantined = true;
	req->buf->state = RETIRE_BUF_QUARANTINED;
	ctx->quarantined++;
	retire_stat_inc(&ctx->stats, RETIRE_ST_QUARANTINED);
	retire_stat_inc(&ctx->stats, RETIRE_ST_QUARANTINED_NOW);
	retire_ctx_health_locked(ctx);
	retire_event_locked(ctx, RETIRE_EV_QUARANTINE, req->handle, 0, 0);
	pr_warn_ratelimited("request %#llx quarantined: its device has held it past the watchdog\n",
			    req->handle);
	retire_req_queue_locked(ctx, req, RETIRE_PEND_QUARANTINE);
}

static void retire_req_unquarantine_locked(struct retire_ctx *ctx,
					   struct retire_req *req)
{
	lockdep_assert_held(&ctx->lock);
	req->quarantined = false;
	ctx->quarantined--;
	retire_stat_add(&ctx->stats, RETIRE_ST_QUARANTINED_NOW, -1);
	if (req->state == RETIRE_REQ_TERMINATED) {
		req->buf->state = RETIRE_BUF_HELD;
		retire_req_try_retire_locked(ctx, req);
	}
}

/**
 * retire_ctx_unquarantine() - an engine reset: nothing touches a buffer
 * @ctx: a context
 *
 * Requests the reset ended left quarantine as their terminal event
 * arrived; this releases those whose device had terminated on its own.
 */
void retire_ctx_unquarantine(struct retire_ctx *ctx)
{
	struct retire_req *req;
	u32 idx, n;
	bool more = true;

	/*
	 * RETIRE_CTX_BATCH slots to a hold of the lock, so the interrupts are
	 * off for a bounded stretch however many slots there are; the mutex
	 * keeps the table from growing (or being freed) meanwhile.
	 */
	mutex_lock(&ctx->mutex);
	for (idx = 0; more && idx < ctx->reqs.nr; idx += RETIRE_CTX_BATCH) {
		spin_lock_irq(&ctx->lock);
		for (n = idx; n < ctx->reqs.nr && n < idx + RETIRE_CTX_BATCH;
		     n++) {
			req = retire_slot_get(&ctx->reqs, n);
			if (req->slot.live && req->quarantined &&
			    req->state == RETIRE_REQ_TERMINATED)
				retire_req_unquarantine_locked(ctx, req);
		}
		more = ctx->quarantined;
		spin_unlock_irq(&ctx->lock);
		cond_resched();
	}
	mutex_unlock(&ctx->mutex);
}
EXPORT_SYMBOL_IF_KUNIT(retire_ctx_unquarantine);

/*
 * The record for pending bit @bit, written whole into @cqe, which may be
 * the caller's memory: it is only written, never read back. Measurements
 * only if published. Returns the record's outcome, and its flags in
 * *@rflags.
 */
static u32 retire_req_fill_cqe(const struct retire_ctx *ctx,
			       const struct retire_req *req, u8 bit,
			       struct retire_cqe *cqe, u32 *rflags)
{
	u64 result_len = 0, latency_ns = 0, checksum = 0;
	u32 type = 0, outcome = 0, flags = retire_req_cqe_flags(req);
	s32 error = 0;

	switch (bit) {
	case RETIRE_PEND_TIMEOUT:
		type = RETIRE_REC_TIMEOUT;
		outcome = RETIRE_OUTCOME_TIMED_OUT;
		flags |= RETIRE_CQE_F_OUTSTANDING;
		break;
	case RETIRE_PEND_CANCEL_ACK:
		/* what the first cancel found, as it found it */
		type = RETIRE_REC_CANCEL_ACK;
		flags = RETIRE_CQE_F_CANCEL_REQUESTED;
		if (req->ack_timed_out)
			flags |= RETIRE_CQE_F_TIMED_OUT;
		if (req->ack_already) {
			outcome = RETIRE_OUTCOME_OUTSTANDING_WORK;
			error = -EALREADY;
			flags |= RETIRE_CQE_F_OUTSTANDING;
		} else {
			outcome = RETIRE_OUTCOME_CANCEL_REQUESTED;
		}
		break;
	case RETIRE_PEND_QUARANTINE:
		type = RETIRE_REC_QUARANTINE;
		outcome = RETIRE_OUTCOME_UNKNOWN;
		flags |= RETIRE_CQE_F_OUTSTANDING;
		break;
	case RETIRE_PEND_TERMINAL:
		type = RETIRE_REC_TERMINAL;
		outcome = req->outcome;
		error = req->error;
		if (outcome == RETIRE_OUTCOME_COMPLETED &&
		    !retire_req_publishable_locked(ctx, req))
			outcome = RETIRE_OUTCOME_STALE;
		if (outcome == RETIRE_OUTCOME_COMPLETED) {
			flags |= RETIRE_CQE_F_MEASURED;
			result_len = req->result_len;
			latency_ns = ktime_to_ns(ktime_sub(req->t_terminal,
							   req->t_admit));
			checksum = req->checksum;
		}
		/*
		 * Reading it consumes the request (one_record implies
		 * AUTO_RETIRE), and it retires then unless a token is out: a
		 * token can be returned before the record is committed, but
		 * only the reader, who holds ctx->mutex, could borrow one.
		 */
		if (req->one_record && !req->tokens && !req->quarantined)
			flags |= RETIRE_CQE_F_RETIRED;
		break;
	case RETIRE_PEND_RETIRED:
		type = RETIRE_REC_RETIRED;
		outcome = RETIRE_OUTCOME_RETIRED;
		break;
	}
	*cqe = (struct retire_cqe) {
		.user_data = req->user_data,
		.handle = req->handle,
		.type = type,
		.outcome = outcome,
		.error = error,
		.flags = flags,
		.result_len = result_len,
		.latency_ns = latency_ns,
		.checksum = checksum,
	};
	*rflags = flags;
	return outcome;
}

/**
 * retire_records_ready() - is a record waiting to be read?
 * @ctx: the context
 *
 * Return: true if so. Lockless: for wait conditions and poll.
 */
bool retire_records_ready(struct retire_ctx *ctx)
{
	return READ_ONCE(ctx->ready_head) != RETIRE_SLOT_NONE;
}

/*
 * The record was handed over: drop it, and act on what reading it means.
 * @prev is the request before @req on the ready list (RETIRE_SLOT_NONE
 * for the head). Returns true if @req left the list (it may have joined it
 * again at the tail, owing a RETIRED record).
 */
static bool retire_record_commit(struct retire_ctx *ctx,
				 struct retire_req *req, u8 bit, u32 outcome,
				 u32 rflags, u32 prev, ktime_t now)
{
	u32 idx = retire_req_idx(req);
	bool left = false;

	lockdep_assert_held(&ctx->lock);
	req->pending &= ~bit;
	if (!req->pending) {
		if (prev == RETIRE_SLOT_NONE)
			WRITE_ONCE(ctx->ready_head, req->ready_next);
		else
			retire_req_at(ctx, prev)->ready_next = req->ready_next;
		if (ctx->ready_tail == idx)
			ctx->ready_tail = prev;
		req->on_ready = false;
		left = true;
	}

	if (bit == RETIRE_PEND_TERMINAL) {
		if (outcome == RETIRE_OUTCOME_COMPLETED)
			retire_stat_inc(&ctx->stats, RETIRE_ST_PUBLISHED);
		else if (outcome == RETIRE_OUTCOME_STALE)
			retire_ctx_stale_locked(ctx, RETIRE_ST_STALE_PUBLISHED,
						NULL, req->handle);
		req->terminal_read = true;
		retire_stat_hist(&ctx->stats, RETIRE_HIST_CQ_WAIT,
				 req->t_terminal, now);
		if (ctx->closed || req->auto_retire) {
			/*
			 * The reaper consumes for an owner that is gone; an
			 * AUTO_RETIRE request is consumed by this read.
			 */
			req->consumed = true;
			if (retire_req_may_retire(req))
				retire_req_retire_locked(ctx, req, now,
							 !(rflags & RETIRE_CQE_F_RETIRED));
		}
		/* the record said it retired: it owes nothing more */
		if (rflags & RETIRE_CQE_F_RETIRED &&
		    !WARN_ON_ONCE(req->state != RETIRE_REQ_RETIRED)) {
			req->state = RETIRE_REQ_FREE;
			retire_slot_release_locked(&ctx->reqs, &req->slot, idx);
		}
	} else if (bit == RETIRE_PEND_RETIRED) {
		/* its job went back at the terminal event: the slot is free */
		req->state = RETIRE_REQ_FREE;
		retire_slot_release_locked(&ctx->reqs, &req->slot, idx);
	}
	return left;
}

/* records one pass of __retire_records_take() hands over without a stage */
#define RETIRE_STAGE_MIN	4

/*
 * In passes: under one hold of the lock, the records of the first ready
 * requests are filled into the stage, each request's pending records in
 * their order before the next request's (the order one record at a time
 * would give); the stage goes to the reader in one copy; under a second
 * hold the records are committed in that order. A record is dropped only
 * after it reached the reader. Committing may owe a request a new record
 * (a TERMINAL read that retires it owes RETIRED, queued behind every
 * other ready request), which a later pass finds.
 */
static int __retire_records_take(struct retire_ctx *ctx, bool to_user,
				 struct retire_cqe __user *u,
				 struct retire_cqe *k, unsigned int nr)
{
	struct retire_cqe local[RETIRE_STAGE_MIN], *stage = local;
	struct retire_req *reqs[RETIRE_STAGE_MIN], **rq = reqs;
	unsigned int cap = RETIRE_STAGE_MIN, n = 0, m, i;
	struct retire_req *req = NULL;
	u8 bits[RETIRE_SUBMIT_MAX];
	u32 idx, prev, fl;
	ktime_t now;

	lockdep_assert_held(&ctx->mutex);
	if (nr > RETIRE_STAGE_MIN) {
		/* the stage, and after it the requests of a pass */
		if (!ctx->stage)
			ctx->stage = kmalloc_array(RETIRE_SUBMIT_MAX,
						   sizeof(*ctx->stage) +
						   sizeof(*rq),
						   GFP_KERNEL_ACCOUNT);
		if (ctx->stage) {
			stage = ctx->stage;
			rq = (struct retire_req **)(stage + RETIRE_SUBMIT_MAX);
			cap = RETIRE_SUBMIT_MAX;
		}
	}
	/* the reaper asks for everything: passes of at most @cap each */
	while (n < nr) {
		m = 0;
		spin_lock_irq(&ctx->lock);
		for (idx = ctx->ready_head; idx != RETIRE_SLOT_NONE;
		     idx = req->ready_next) {
			u8 p;

			req = retire_req_at(ctx, idx);
			p = req->pending;
			while (p && m < min(cap, nr - n)) {
				rq[m] = req;
				bits[m] = p & -p;
				p &= ~bits[m];
				retire_req_fill_cqe(ctx, req, bits[m], &stage[m],
						    &fl);
				m++;
			}
			if (p)
				break;
		}
		spin_unlock_irq(&ctx->lock);
		if (!m)
			break;

		/* only this mutex holder drops records: the requests stay put */
		if (to_user && copy_to_user(&u[n], stage, m * sizeof(*stage)))
			return n ? n : -EFAULT;
		if (k)
			memcpy(&k[n], stage, m * sizeof(*stage));

		/*
		 * The requests of the pass are still the head of the list, in
		 * order: the list only grew at its tail meanwhile. A request
		 * that stays is the one before the next.
		 */
		spin_lock_irq(&ctx->lock);
		prev = RETIRE_SLOT_NONE;
		now = ktime_get();
		for (i = 0; i < m; i++) {
			req = rq[i];
			if (!retire_record_commit(ctx, req, bits[i],
						  stage[i].outcome,
						  stage[i].flags, prev, now) &&
			    (i + 1 == m || rq[i + 1] != req))
				prev = retire_req_idx(req);
		}
		spin_unlock_irq(&ctx->lock);
		n += m;
	}
	return n;
}

/**
 * retire_records_post() - move records into memory the module owns
 * @ctx:	the context; the caller holds ctx->mutex
 * @cqes:	a ring of records (the completion ring)
 * @mask:	its size - 1
 * @tail:	its tail, advanced past the records moved
 * @room:	records it has room for
 *
 * In one hold of the lock, oldest first, each request's records in their
 * order: a record is committed as it is written, since writing cannot
 * fault. Those that find no room stay ready, in order. A record is only
 * written: the ring is the caller's to scribble on, so the module never
 * reads back from it.
 *
 * Return: records moved.
 */
u32 retire_records_post(struct retire_ctx *ctx, struct retire_cqe *cqes,
			u32 mask, u32 *tail, u32 room)
{
	struct retire_req *req;
	u32 idx, next, prev, outcome, fl, n = 0;
	bool left;
	ktime_t now;
	u8 bit;

	lockdep_assert_held(&ctx->mutex);
	/* nothing ready: no lock, no clock (a wait for records comes here) */
	if (READ_ONCE(ctx->ready_head) == RETIRE_SLOT_NONE || !room)
		return 0;
	spin_lock_irq(&ctx->lock);
	now = ktime_get();
	/*
	 * A request whose last record went may join the tail again, owing
	 * RETIRED (an AUTO_RETIRE TERMINAL): the walk reaches it there, or
	 * the next one from the head does.
	 */
	while (n < room && ctx->ready_head != RETIRE_SLOT_NONE) {
		prev = RETIRE_SLOT_NONE;
		for (idx = ctx->ready_head; idx != RETIRE_SLOT_NONE && n < room;
		     idx = next) {
			req = retire_req_at(ctx, idx);
			next = req->ready_next;
			left = false;
			while (req->pending && n < room && !left) {
				bit = req->pending & -req->pending;
				outcome = retire_req_fill_cqe(ctx, req, bit,
							      &cqes[(*tail)++ & mask],
							      &fl);
				n++;
				left = retire_record_commit(ctx, req, bit,
							    outcome, fl, prev,
							    now);
			}
			/* only a full ring leaves a request where it was */
			if (!left)
				prev = idx;
		}
	}
	spin_unlock_irq(&ctx->lock);
	return n;
}

/**
 * retire_records_take() - hand over up to @nr records, oldest first
 * @ctx:	the context; the caller holds ctx->mutex
 * @u:		the reader's array
 * @nr:		its capacity
 *
 * A record is dropped only after it reached the reader, so a fault loses
 * nothing.
 *
 * Return: records handed over, or -EFAULT if the first could not be.
 */
int retire_records_take(struct retire_ctx *ctx, struct retire_cqe __user *u,
			unsigned int nr)
{
	return __retire_records_take(ctx, true, u, NULL, nr);
}

/**
 * retire_records_take_kernel() - the same, into kernel memory
 * @ctx:	the context; the caller holds ctx->mutex
 * @k:		the array, or NULL to consume the records unseen (the reaper)
 * @nr:		its capacity
 *
 * Return: records handed over.
 */
int retire_records_take_kernel(struct retire_ctx *ctx, struct retire_cqe *k,
			       unsigned int nr)
{
	return __retire_records_take(ctx, false, NULL, k, nr);
}
EXPORT_SYMBOL_IF_KUNIT(retire_records_take_kernel);
