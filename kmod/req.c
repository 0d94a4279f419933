// SPDX-License-Identifier: GPL-2.0
/*
 * The request state machine: submission and its bounds, the device's
 * terminal event, consumption and retirement. admit.c hands admitted
 * requests to the engine; records.c delivers the records a request owes.
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

#include "admit.h"
#include "buf.h"
#include "cancel.h"
#include "ctx.h"
#include "dmabuf.h"
#include "history.h"
#include "keys.h"
#include "engine.h"
#include "fence.h"
#include "records.h"
#include "req.h"
#include "stats.h"

/* a request is two cache lines: 64 of them fill an 8 KiB chunk exactly */
static_assert(sizeof(struct retire_req) <= 128);

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

/* inlined into the terminal event, which most often ends it */
static __always_inline void
__retire_req_end_logical(struct retire_ctx *ctx, struct retire_req *req,
			 ktime_t now)
{
	lockdep_assert_held(&ctx->lock);
	if (req->logical_done)
		return;
	req->logical_done = true;
	retire_stat_add(&ctx->stats, RETIRE_ST_LOGICAL, -1);
	retire_stat_hist(&ctx->stats, RETIRE_HIST_LOGICAL, req->t_admit, now);
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
	__retire_req_end_logical(ctx, req, now);
}

/*
 * The terminal event's body, inlined into both callers: the fast lane's
 * and the reports' (retire_req_terminate_locked()) paths are the hot ones.
 */
static __always_inline void
__retire_req_terminate_at(struct retire_ctx *ctx, struct retire_req *req,
			  const struct retire_engine_result *res, ktime_t now,
			  bool keyed)
{
	lockdep_assert_held(&ctx->lock);
	if (req->state == RETIRE_REQ_ACTIVE) {
		/* an engine that runs inline took no job and no watch */
		if (!retire_engine_runs_inline(ctx->engine)) {
			/* the report gives the job back: the next start may take it */
			struct retire_slot *job = retire_slot_get(&ctx->jobs,
								  req->job);

			retire_slot_kill_locked(&ctx->jobs, job);
			retire_slot_release_locked(&ctx->jobs, job, req->job);
			list_del(&req->node);
		}
		if (keyed)
			retire_keys_end_locked(ctx, req);
		ctx->active--;
		/* a revoked import's fence may wait for this one */
		if (req->buf->import)
			retire_import_end(req->buf->import);
	} else {
		ctx->waiting_nr--;
		if (req->gated)
			retire_gate_cancel_locked(ctx, req);
		else
			retire_keys_unwait_locked(ctx, req);
	}
	if (req->dl)
		retire_deadline_disarm(ctx, req);

	/* from here the request's memory holds what the terminal event says */
	req->state = RETIRE_REQ_TERMINATED;
	/* read without the lock by retire_req_cancel_wait() */
	WRITE_ONCE(ctx->terminals, ctx->terminals + 1);
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
	/* the moment device access ended, and not retirement: fence.c */
	if (req->fenced)
		retire_fence_signal_locked(ctx, req);
	/*
	 * The device's own terminal event is the evidence quarantine waited
	 * for: no access follows it, so the request may retire like any
	 * other (and its context admit again) without an engine reset.
	 */
	if (req->quarantined)
		retire_req_unquarantine_locked(ctx, req);
	if (!req->quarantined)
		req->buf->state = RETIRE_BUF_HELD;

	__retire_req_end_logical(ctx, req, now);
}

/**
 * retire_req_terminate_at_locked() - the request's terminal event, at @now
 * @ctx:	the context
 * @req:	a WAITING (cancelled before it started) or ACTIVE request
 * @res:	what the device reported
 * @now:	when
 * @keyed:	an ACTIVE request's key counts it (all but the fast lane's)
 *
 * Ends device access: from here no device touches the buffer for this
 * request. The record it owes is the caller's: retire_req_terminated_locked()
 * queues it, the fast lane writes it itself.
 */
void retire_req_terminate_at_locked(struct retire_ctx *ctx,
				    struct retire_req *req,
				    const struct retire_engine_result *res,
				    ktime_t now, bool keyed)
{
	__retire_req_terminate_at(ctx, req, res, now, keyed);
}

/*
 * After retire_req_terminate_at_locked(): owe the TERMINAL record, and let
 * the waiting requests the device now has room for start.
 */
void retire_req_terminated_locked(struct retire_ctx *ctx,
				  struct retire_req *req, ktime_t now)
{
	retire_req_queue_locked(ctx, req, RETIRE_PEND_TERMINAL);
	retire_activate_waiting_locked(ctx, now);
}

/**
 * retire_req_terminate_locked() - the request's terminal event, now
 * @ctx:	the context
 * @req:	a WAITING (cancelled before it started) or ACTIVE request
 * @res:	what the device reported
 *
 * Owes its reader the TERMINAL record.
 */
void retire_req_terminate_locked(struct retire_ctx *ctx,
				 struct retire_req *req,
				 const struct retire_engine_result *res)
{
	ktime_t now = ktime_get();

	__retire_req_terminate_at(ctx, req, res, now, true);
	retire_req_terminated_locked(ctx, req, now);
}

/*
 * Retire a request that may: @now is the time of it. @record: a RETIRED
 * record is owed (the slot is released when it is read); without, the
 * caller has said so in the TERMINAL record and releases the slot.
 */
void retire_req_retire_locked(struct retire_ctx *ctx, struct retire_req *req,
			      ktime_t now, bool record)
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

/* the request's fields; retire_op_run() checked the operation's */
static int retire_submit_check(const struct retire_op *op)
{
	if (op->flags & ~RETIRE_SQE_F_ALL)
		return -EINVAL;
	if (!op->dev_flags || op->dev_flags & ~RETIRE_DEV_ALL)
		return -EINVAL;
	if (op->flags & RETIRE_SQE_F_ONE_RECORD &&
	    !(op->flags & RETIRE_SQE_F_AUTO_RETIRE))
		return -EINVAL;
	if (!op->len)
		return -EINVAL;
	/* a ktime is signed: 2^63 ns and more would be in the past */
	if (op->deadline_ns > KTIME_MAX)
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

/*
 * The buffer @op names and the context's bounds, in the order
 * retire_submit_one() checks them: 0 with the buffer in *@bufp, or the
 * refusal's errno with the counter it goes to in *@bound.
 */
static __always_inline int
retire_submit_bounds_locked(struct retire_ctx *ctx, const struct retire_op *op,
			    struct retire_buf **bufp, enum retire_stat *bound)
{
	struct retire_buf *buf;
	u64 end;
	int ret;

	lockdep_assert_held(&ctx->lock);
	*bound = RETIRE_ST_REFUSED;
	buf = retire_ctx_lookup_locked(ctx, &ctx->bufs, op->buf,
				       RETIRE_ST_STALE_USER);
	if (!buf)
		return -ENOENT;
	if (check_add_overflow(op->offset, op->len, &end) || end > buf->len)
		return -EINVAL;
	if (buf->state != RETIRE_BUF_FREE)
		return -EBUSY;
	ret = retire_buf_engine_check(buf, ctx->engine);
	if (ret)
		return ret;
	if (ctx->unretired >= ctx->limits.max_unretired) {
		*bound = RETIRE_ST_REFUSED_UNRETIRED;
		return -ENOSPC;
	}
	if (ctx->reserved_bytes + op->len > ctx->limits.max_reserved_bytes) {
		*bound = RETIRE_ST_REFUSED_RESERVED;
		return -EDQUOT;
	}
	*bufp = buf;
	return 0;
}

/*
 * A new request for @op on @buf, admitted at @now in the context's next
 * free slot: everything but its deadline, its fence and its start.
 */
static __always_inline struct retire_req *
retire_req_admit_locked(struct retire_ctx *ctx, const struct retire_op *op,
			struct retire_buf *buf, ktime_t now, bool fenced)
{
	struct retire_req *req;
	u64 handle;

	lockdep_assert_held(&ctx->lock);
	req = retire_slot_alloc_locked(&ctx->reqs, &handle);
	/* nothing of the previous incarnation: see struct retire_req */
	memset(&req->admission, 0, sizeof(req->admission));
	req->dev_flags = op->dev_flags;
	req->auto_retire = !!(op->flags & RETIRE_SQE_F_AUTO_RETIRE);
	req->one_record = !!(op->flags & RETIRE_SQE_F_ONE_RECORD);
	req->fenced = fenced;
	req->handle = handle;
	req->user_data = op->user_data;
	req->key = op->key;
	req->offset = op->offset;
	req->len = op->len;
	req->buf = buf;
	req->intent = ctx->intent;
	req->t_admit = now;
	retire_buf_pool_take_locked(ctx, buf, RETIRE_BUF_ATTACHED);
	ctx->unretired++;
	ctx->reserved_bytes += op->len;
	retire_stat_inc(&ctx->stats, RETIRE_ST_ADMITTED);
	retire_stat_inc(&ctx->stats, RETIRE_ST_PHYSICAL);
	retire_stat_inc(&ctx->stats, RETIRE_ST_LOGICAL);
	retire_stat_inc(&ctx->stats, RETIRE_ST_DEVICE);
	retire_stat_owned(&ctx->stats, op->len);
	retire_event_at_locked(ctx, RETIRE_EV_SUBMIT, handle, op->dev_flags,
			       op->len, now);
	return req;
}

/**
 * retire_submit_one() - admit one request, or refuse it changing nothing
 * @ctx:	the context; the caller holds ctx->mutex
 * @op:		a RETIRE_OP_SUBMIT operation; @op->handle is set when
 *		admitted
 * @now:	its admission time: one clock read serves a whole batch, all
 *		of it handed over at once
 *
 * Checks, in order: the injected failure of every Nth attempt (-EIO);
 * quarantine (-ENOTRECOVERABLE); the entry (-EINVAL); its fences: an
 * in-fence that names no open file (-EBADF) or no sync_file (-EINVAL), an
 * out-fence with no fd free (-EMFILE); the engine, whose
 * device may be gone (-ENODEV); the buffer
 * (-ENOENT stale, -EINVAL range, -EBUSY attached; an import the engine
 * cannot serve, -EOPNOTSUPP, or attached for another's device, -EXDEV);
 * the bounds: unretired
 * requests (-ENOSPC), reserved bytes (-EDQUOT), and, for a request that
 * would have to wait, waiting requests (-ENOBUFS). -EAGAIN when every
 * request slot waits for its RETIRED record to be read; -ENOMEM.
 *
 * Return: 0 when admitted, else the errno of the bound that refused.
 */
int retire_submit_one(struct retire_ctx *ctx, struct retire_op *op,
		      ktime_t now)
{
	struct retire_fence_prep fp = { .fd = -1 };
	/* without a fence, none of fence.c's steps is called */
	bool fenced = op->flags & (RETIRE_SQE_F_OUT_FENCE |
				   RETIRE_SQE_F_IN_FENCE);
	struct retire_deadline *dl = NULL;
	enum retire_stat bound;
	struct retire_buf *buf;
	struct retire_req *req;
	bool activate;
	u64 handle;
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
	ret = retire_submit_check(op);
	if (!ret)
		ret = retire_deadline_new(op->deadline_ns, &dl);
	if (!ret && fenced)
		ret = retire_fence_prepare(op, &fp);

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
		     retire_keys_need_room_locked(&ctx->keys))) {
		spin_unlock_irq(&ctx->lock);
		ret = retire_slot_reserve(&ctx->reqs, 1) ?:
		      retire_jobs_reserve(ctx, ctx->limits.max_active, 1) ?:
		      retire_keys_reserve(ctx);
		spin_lock_irq(&ctx->lock);
	}
	if (ret) {
		ret = retire_refuse_locked(ctx, ret, RETIRE_ST_REFUSED);
		goto out_unlock;
	}
	ret = retire_submit_bounds_locked(ctx, op, &buf, &bound);
	if (ret) {
		ret = retire_refuse_locked(ctx, ret, bound);
		goto out_unlock;
	}
	/* one that waits for its in-fence waits whatever room there is */
	activate = !fp.gate && retire_may_activate_locked(ctx, op->key);
	if (!activate && ctx->waiting_nr >= ctx->limits.max_waiting) {
		ret = retire_refuse_locked(ctx, -ENOBUFS,
					   RETIRE_ST_REFUSED_WAITING);
		goto out_unlock;
	}
	if (ctx->reqs.free_head == RETIRE_SLOT_NONE) {
		ret = retire_refuse_locked(ctx, -EAGAIN, RETIRE_ST_REFUSED);
		goto out_unlock;
	}
	/* the slot the request takes next: the last step that may fail */
	if (fenced && retire_fence_attach_locked(ctx, ctx->reqs.free_head,
						 &fp)) {
		ret = retire_refuse_locked(ctx, -ENOMEM, RETIRE_ST_REFUSED);
		goto out_unlock;
	}
	req = retire_req_admit_locked(ctx, op, buf, now, fp.out);
	handle = req->handle;

	retire_deadline_arm(ctx, req, dl, op->deadline_ns);
	dl = NULL;
	if (fenced && retire_fence_gate_locked(ctx, req, &fp, req->t_admit)) {
		/* held for its in-fence (fence.c) */
	} else if (activate) {
		retire_req_activate_locked(ctx, req, req->t_admit);
	} else {
		req->state = RETIRE_REQ_WAITING;
		retire_keys_wait_locked(ctx, req);
		ctx->waiting_nr++;
		/* a pass left for the work item may have room for it */
		retire_activate_waiting_locked(ctx, req->t_admit);
	}
	spin_unlock_irq(&ctx->lock);

	op->handle = handle;
	return fenced ? retire_fence_commit(ctx, &fp, handle) : 0;

out_unlock:
	spin_unlock_irq(&ctx->lock);
	retire_deadline_free(dl);
	if (fenced)
		retire_fence_abandon(&fp);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_submit_one);

/**
 * retire_submit_inline_locked() - the fast lane: a request from admission
 *				    to retirement in one step
 * @ctx:	the context; the caller holds ctx->mutex and ctx->lock
 * @op:		an operation from the submission ring
 * @now:	the batch's time: admission, terminal event and the reading
 *		of the record share it
 * @cqe:	room the caller reserved in the completion ring
 *
 * For a SUBMIT with AUTO_RETIRE and ONE_RECORD and nothing else (no fence,
 * no deadline) to an engine that runs inline, while no record waits to be
 * read (records stay in order) and no request waits to start (nor does it
 * pass them): the request is admitted, run, ended and
 * retired, its one record written to @cqe, through the same steps
 * retire_submit_one() and the ready list take one at a time, less the
 * ready list itself and a clock read each.
 *
 * Return: 0 with the record in @cqe and the request's (already stale)
 * handle in @op->handle; a refusal's errno, as retire_submit_one() gives
 * and counts it; or 1 for an operation or a context the fast lane does
 * not take: nothing changed, retire_op_run() takes it.
 */
int retire_submit_inline_locked(struct retire_ctx *ctx, struct retire_op *op,
				ktime_t now, struct retire_cqe *cqe)
{
	enum retire_stat bound = RETIRE_ST_REFUSED;
	struct retire_engine_result res;
	struct retire_buf *buf;
	struct retire_req *req;
	int ret;

	lockdep_assert_held(&ctx->mutex);
	lockdep_assert_held(&ctx->lock);
	if (op->opcode != RETIRE_OP_SUBMIT ||
	    op->flags != RETIRE_SQE_F_INLINE_LANE || op->deadline_ns ||
	    op->pad || op->error ||
	    !retire_engine_runs_inline(ctx->engine) ||
	    ctx->engine->ops->fail_submit || READ_ONCE(ctx->engine->gone) ||
	    ctx->quarantined || ctx->ready_head != RETIRE_SLOT_NONE ||
	    ctx->waiting_nr || ctx->reqs.free_head == RETIRE_SLOT_NONE)
		return 1;
	/* output only, as retire_op_run() has it */
	op->handle = 0;
	ret = retire_submit_check(op) ?:
	      retire_submit_bounds_locked(ctx, op, &buf, &bound);
	if (ret)
		return retire_refuse_locked(ctx, ret, bound);

	req = retire_req_admit_locked(ctx, op, buf, now, false);
	/* as retire_deadline_arm() leaves a request without one */
	req->dl = NULL;
	/* no other request can see it active: its key need not count it */
	retire_req_run_locked(ctx, req, now, false, &res);
	__retire_req_terminate_at(ctx, req, &res, now, false);
	op->handle = req->handle;
	/* read as it is written: the request retires and its slot is free */
	retire_record_direct_locked(ctx, req, cqe, now);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(retire_submit_inline_locked);

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
