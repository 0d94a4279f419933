// SPDX-License-Identifier: GPL-2.0
/*
 * Operations: what RETIRE_IOC_ENTER runs, one retire_op at a time, each as
 * its own ioctl would run it, from an array or the submission ring; and
 * ENTER's ring form, which then posts records into the completion ring.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/retire.h>

#include "cancel.h"
#include "ctx.h"
#include "fence.h"
#include "op.h"
#include "records.h"
#include "req.h"
#include "ring.h"
#include "token.h"

/* the fields of struct retire_op only SUBMIT may set, but @key and @flags */
static bool retire_op_submit_fields_zero(const struct retire_op *op)
{
	return !op->user_data && !op->buf && !op->offset && !op->len &&
	       !op->deadline_ns && !op->dev_flags;
}

/* which requests a cancel by match names: exactly one of KEY and ANY */
static int retire_cancel_match_check(u32 flags, u64 key)
{
	switch (flags) {
	case RETIRE_CANCEL_F_KEY:
		return 0;
	case RETIRE_CANCEL_F_ANY:
		return key ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

/*
 * SUBMIT, BORROW, HANDOFF and FENCE run under ctx->mutex: they may grow a
 * table.
 * CANCEL, CANCEL_MATCH, RETIRE and RETURN take ctx->lock alone, so that a
 * single one never waits behind a reader faulting in its records under the
 * mutex.
 */
static bool retire_op_needs_mutex(u32 opcode)
{
	return opcode == RETIRE_OP_SUBMIT || opcode == RETIRE_OP_BORROW ||
	       opcode == RETIRE_OP_HANDOFF || opcode == RETIRE_OP_FENCE;
}

/*
 * The operation's shape: known opcode, @pad zero (but SUBMIT's in-fence),
 * @error only for RETURN, @flags and @key only for SUBMIT and
 * CANCEL_MATCH, the request's other fields only for SUBMIT, which checks
 * their values itself (after the injected failure's ordinal: an entry of
 * the wrong shape is no attempt).
 */
static int retire_op_check(const struct retire_op *op)
{
	if (op->pad && !(op->opcode == RETIRE_OP_SUBMIT &&
			 op->flags & RETIRE_SQE_F_IN_FENCE))
		return -EINVAL;
	switch (op->opcode) {
	case RETIRE_OP_SUBMIT:
		return op->error ? -EINVAL : 0;
	case RETIRE_OP_CANCEL_MATCH:
		if (op->error || retire_cancel_match_check(op->flags, op->key))
			return -EINVAL;
		return retire_op_submit_fields_zero(op) ? 0 : -EINVAL;
	case RETIRE_OP_RETURN:
		if (op->error > 0 || op->error < -MAX_ERRNO)
			return -EINVAL;
		break;
	case RETIRE_OP_CANCEL:
	case RETIRE_OP_RETIRE:
	case RETIRE_OP_BORROW:
	case RETIRE_OP_HANDOFF:
	case RETIRE_OP_FENCE:
		if (op->error)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	return !op->flags && !op->key && retire_op_submit_fields_zero(op) ?
	       0 : -EINVAL;
}

/**
 * retire_op_run() - run one operation: the path of every request command
 * @ctx:	the context; the caller holds ctx->mutex for SUBMIT, BORROW and
 *		HANDOFF (ENTER holds it for its whole batch)
 * @op:		the operation; @op->handle is set as its opcode says
 * @now:	SUBMIT's admission time, one clock read for a batch
 *
 * ENTER's array and submission ring and the single-op ioctls (SUBMIT,
 * CANCEL, RETIRE, TOKEN, CANCEL_MATCH) all come here, so an operation is
 * validated once, the same way whichever command carried it.
 *
 * Return: the operation's result, -EINVAL for one of the wrong shape;
 * CANCEL_MATCH's is the number of requests it found, FENCE's (and an
 * out-fenced SUBMIT's) a file descriptor.
 */
int retire_op_run(struct retire_ctx *ctx, struct retire_op *op, ktime_t now)
{
	u32 kept;
	u64 token;
	int ret;

	/* SUBMIT's and CANCEL_MATCH's @handle is output only */
	if (op->opcode == RETIRE_OP_SUBMIT ||
	    op->opcode == RETIRE_OP_CANCEL_MATCH)
		op->handle = 0;
	ret = retire_op_check(op);
	if (ret)
		return ret;
	if (retire_op_needs_mutex(op->opcode))
		lockdep_assert_held(&ctx->mutex);
	switch (op->opcode) {
	case RETIRE_OP_SUBMIT:
		return retire_submit_one(ctx, op, now);
	case RETIRE_OP_CANCEL:
		return retire_req_cancel(ctx, op->handle);
	case RETIRE_OP_RETIRE:
		return retire_req_retire(ctx, op->handle);
	case RETIRE_OP_RETURN:
		return retire_token_return(ctx, op->handle, op->error);
	case RETIRE_OP_CANCEL_MATCH:
		ret = retire_req_cancel_match(ctx, op->flags, op->key, &kept);
		op->handle = kept;
		return ret;
	case RETIRE_OP_FENCE:
		return retire_fence_get(ctx, op->handle);
	case RETIRE_OP_BORROW:
		ret = retire_token_borrow(ctx, op->handle, &token);
		break;
	default:	/* RETIRE_OP_HANDOFF, as retire_op_check() left it */
		ret = retire_token_handoff(ctx, op->handle, &token);
		break;
	}
	/* the new token's handle, in place of the one named; unchanged if not */
	if (!ret)
		op->handle = token;
	return ret;
}

/**
 * retire_op_run_one() - one operation for its own ioctl
 * @ctx:	the context
 * @op:		the operation
 *
 * Takes ctx->mutex for the operations that need it, none for the others.
 *
 * Return: as retire_op_run().
 */
int retire_op_run_one(struct retire_ctx *ctx, struct retire_op *op)
{
	int ret;

	if (!retire_op_needs_mutex(op->opcode))
		return retire_op_run(ctx, op, 0);
	mutex_lock(&ctx->mutex);
	ret = retire_op_run(ctx, op, ktime_get());
	mutex_unlock(&ctx->mutex);
	return ret;
}

/**
 * retire_enter_arrays() - RETIRE_IOC_ENTER with arrays, and RETIRE_IOC_REAP
 * @ctx:	the context
 * @e:		the checked arguments; @e->done and @e->reaped are set
 * @ops:	@e->nr_ops operations copied in; each one's result is set
 *
 * The operations run under one hold of ctx->mutex and one clock read, and
 * the first take of records under the same hold. REAP is this call with no
 * operations.
 *
 * Return: 0; without operations, the reap's -EFAULT or -EINTR; with them,
 * -EFAULT only: the operations ran, a wait cut short is no failure.
 */
int retire_enter_arrays(struct retire_ctx *ctx, struct retire_enter *e,
			struct retire_op *ops)
{
	struct retire_cqe __user *ucqes = u64_to_user_ptr(e->cqes);
	ktime_t now;
	int n = 0;
	u32 i;

	mutex_lock(&ctx->mutex);
	now = e->nr_ops ? ktime_get() : 0;
	for (i = 0; i < e->nr_ops; i++)
		ops[i].result = retire_op_run(ctx, &ops[i], now);
	e->done = e->nr_ops;
	if (e->nr_cqes)
		n = retire_records_take(ctx, ucqes, e->nr_cqes);
	mutex_unlock(&ctx->mutex);
	if (!e->nr_cqes)
		return 0;
	n = retire_reap_wait(ctx, ucqes, e->nr_cqes, e->min_complete,
			     e->timeout_ns, e->flags, n, &e->reaped);
	return n == -EFAULT || !e->nr_ops ? n : 0;
}

/*
 * RETIRE_IOC_ENTER with RETIRE_ENTER_F_RINGS: the operations queued in the
 * submission ring, then records into the completion ring until it holds
 * @e->min_complete (ring.c).
 */
int retire_enter_rings(struct retire_ctx *ctx, struct retire_enter *e)
{
	ktime_t deadline = 0;
	u32 avail, seen;
	int n, ret;

	mutex_lock(&ctx->mutex);
	ret = retire_ring_take_ops(ctx, e->nr_ops, e->min_complete, &e->done,
				   &e->reaped);
	for (;;) {
		if (ret)
			break;
		n = retire_ring_post(ctx, &avail);
		if (n < 0) {
			ret = n;
			break;
		}
		e->reaped += n;
		if (avail >= e->min_complete)
			break;
		/* another caller's fast lane writes into the ring itself */
		seen = ctx->ring->cq_tail;
		mutex_unlock(&ctx->mutex);
		ret = retire_records_wait(ctx, e->flags, e->timeout_ns,
					  &deadline, &ctx->ring->cq_tail, seen);
		if (ret)
			/* the deadline is no failure, a signal only alone */
			return ret < 0 && !e->done && !e->reaped ? ret : 0;
		mutex_lock(&ctx->mutex);
	}
	mutex_unlock(&ctx->mutex);
	/* a ring turned bad after operations ran is not the call's failure */
	return e->done || e->reaped ? 0 : ret;
}
