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
#include "op.h"
#include "records.h"
#include "req.h"
#include "ring.h"
#include "token.h"

/* the fields of struct retire_op only SUBMIT may set */
static bool retire_op_submit_fields_zero(const struct retire_op *op)
{
	return !op->flags && !op->user_data && !op->buf && !op->offset &&
	       !op->len && !op->deadline_ns && !op->key && !op->dev_flags;
}

/* one operation of an ENTER batch, as its own ioctl would run it */
int retire_op_run(struct retire_ctx *ctx, struct retire_op *op, ktime_t now)
{
	struct retire_sqe sqe;
	u64 token;
	int ret;

	lockdep_assert_held(&ctx->mutex);
	if (op->pad)
		return -EINVAL;
	if (op->opcode == RETIRE_OP_SUBMIT) {
		/* @handle is SUBMIT's output: ignored on input, 0 if refused */
		op->handle = 0;
		if (op->error)
			return -EINVAL;
		sqe = (struct retire_sqe) {
			.user_data = op->user_data,
			.buf = op->buf,
			.offset = op->offset,
			.len = op->len,
			.deadline_ns = op->deadline_ns,
			.key = op->key,
			.dev_flags = op->dev_flags,
			.flags = op->flags,
		};
		ret = retire_submit_one(ctx, &sqe, now);
		if (!ret)
			op->handle = sqe.handle;
		return ret;
	}
	if (!retire_op_submit_fields_zero(op))
		return -EINVAL;
	if (op->opcode != RETIRE_OP_RETURN && op->error)
		return -EINVAL;
	switch (op->opcode) {
	case RETIRE_OP_CANCEL:
		return retire_req_cancel(ctx, op->handle);
	case RETIRE_OP_RETIRE:
		return retire_req_retire(ctx, op->handle);
	case RETIRE_OP_BORROW:
		ret = retire_token_borrow(ctx, op->handle, &token);
		break;
	case RETIRE_OP_RETURN:
		if (op->error > 0 || op->error < -MAX_ERRNO)
			return -EINVAL;
		return retire_token_return(ctx, op->handle, op->error);
	case RETIRE_OP_HANDOFF:
		ret = retire_token_handoff(ctx, op->handle, &token);
		break;
	default:
		return -EINVAL;
	}
	if (!ret)
		op->handle = token;
	return ret;
}

/*
 * RETIRE_IOC_ENTER with RETIRE_ENTER_F_RINGS: the operations queued in the
 * submission ring, then records into the completion ring until it holds
 * @e->min_complete (ring.c). Called with ctx->mutex held; drops it.
 */
int retire_enter_rings(struct retire_ctx *ctx, struct retire_enter *e)
{
	ktime_t deadline = 0;
	u32 avail;
	int n, ret;

	ret = retire_ring_take_ops(ctx, e->nr_ops, &e->done, retire_op_run);
	for (;;) {
		if (ret)
			break;
		n = retire_ring_post(ctx, e->min_complete, &avail);
		if (n < 0) {
			ret = n;
			break;
		}
		e->reaped += n;
		if (avail >= e->min_complete)
			break;
		mutex_unlock(&ctx->mutex);
		ret = retire_records_wait(ctx, e->flags, e->timeout_ns,
					  &deadline);
		if (ret)
			/* the deadline is no failure, a signal only alone */
			return ret < 0 && !e->done && !e->reaped ? ret : 0;
		mutex_lock(&ctx->mutex);
	}
	mutex_unlock(&ctx->mutex);
	/* a ring turned bad after operations ran is not the call's failure */
	return e->done || e->reaped ? 0 : ret;
}
