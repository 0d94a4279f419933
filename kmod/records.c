// SPDX-License-Identifier: GPL-2.0
/*
 * Record delivery: a request owes its reader records (the ready list of
 * req.c's retire_req_queue_locked()); here they are filled, committed
 * (which may retire the request) and handed over, to a read(), a REAP,
 * an ENTER, the reaper, or the completion ring (ring.c).
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
#include "records.h"
#include "req.h"
#include "stats.h"

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
 * The TERMINAL record of @req, of @outcome and @rflags, was handed over at
 * @now: what reading it means.
 */
static __always_inline void
retire_terminal_read_locked(struct retire_ctx *ctx, struct retire_req *req,
			    u32 outcome, u32 rflags, ktime_t now)
{
	lockdep_assert_held(&ctx->lock);
	if (outcome == RETIRE_OUTCOME_COMPLETED)
		retire_stat_inc(&ctx->stats, RETIRE_ST_PUBLISHED);
	else if (outcome == RETIRE_OUTCOME_STALE)
		retire_ctx_stale_locked(ctx, RETIRE_ST_STALE_PUBLISHED, NULL,
					req->handle);
	req->terminal_read = true;
	retire_stat_hist(&ctx->stats, RETIRE_HIST_CQ_WAIT, req->t_terminal,
			 now);
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
		retire_slot_release_locked(&ctx->reqs, &req->slot,
					   retire_req_idx(req));
	}
}

/**
 * retire_record_direct_locked() - a TERMINAL record, never on the ready list
 * @ctx:	the context; the caller holds its lock
 * @req:	a request that just terminated and owes no other record
 * @cqe:	where it goes: the completion ring, which cannot fault
 * @now:	when it is read
 *
 * The fast lane's (retire_submit_inline_locked()): written and read at
 * once, as retire_records_post() would write and read it.
 */
void retire_record_direct_locked(struct retire_ctx *ctx,
				 struct retire_req *req,
				 struct retire_cqe *cqe, ktime_t now)
{
	u32 outcome, fl;

	outcome = retire_req_fill_cqe(ctx, req, RETIRE_PEND_TERMINAL, cqe, &fl);
	retire_terminal_read_locked(ctx, req, outcome, fl, now);
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
		retire_terminal_read_locked(ctx, req, outcome, rflags, now);
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
							      &cqes[*tail & mask],
							      &fl);
				/* read without the mutex by a waiter */
				WRITE_ONCE(*tail, *tail + 1);
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

/*
 * A record came: one is ready to be read, or, with @tail (the completion
 * ring's), the fast lane of another caller wrote one into the ring since
 * the waiter saw it at @seen.
 */
static bool retire_records_came(struct retire_ctx *ctx, const u32 *tail,
				u32 seen)
{
	return retire_records_ready(ctx) || (tail && READ_ONCE(*tail) != seen);
}

/*
 * Wait for records under RETIRE_IOC_REAP's rules; with @tail and @seen, for
 * the completion ring's tail to move past @seen too. @deadline starts at 0
 * and is set at the first wait. Returns 0 to look again, 1 once the
 * deadline has passed (at once for a zero timeout), -EINTR on a signal.
 */
int retire_records_wait(struct retire_ctx *ctx, u32 flags, u64 timeout_ns,
			ktime_t *deadline, const u32 *tail, u32 seen)
{
	ktime_t now;
	long left;

	/*
	 * A signal or the deadline ends the wait, not the records. The clock
	 * is read only once a wait is needed; a timeout past what a ktime
	 * holds waits as long as one can.
	 */
	if (flags & RETIRE_REAP_F_WAIT_FOREVER && !timeout_ns) {
		left = wait_event_interruptible(ctx->waitq,
						retire_records_came(ctx, tail,
								    seen));
		return left ? -EINTR : 0;
	}
	/*
	 * One clock read for the check and what is left: a deadline passing
	 * between two reads would give a negative relative timeout, which
	 * hrtimer saturates to KTIME_MAX, a wait that no timer ends.
	 */
	now = ktime_get();
	if (!*deadline)
		*deadline = ktime_add_safe(now, ns_to_ktime(min_t(u64, timeout_ns,
								  KTIME_MAX)));
	if (!ktime_before(now, *deadline))
		return 1;
	left = wait_event_interruptible_hrtimeout(ctx->waitq,
						  retire_records_came(ctx, tail,
								      seen),
						  ktime_sub(*deadline, now));
	return left && left != -ETIME ? -EINTR : 0;
}

/*
 * Reap into @ucqes (@nr records) until @min_complete are there, @timeout_ns
 * passes or a signal arrives (RETIRE_IOC_REAP's rules); *@reaped counts
 * them. @n is the first take's result (records, or -EFAULT), which the
 * caller made under the hold of ctx->mutex its operations ran under; each
 * later take holds the mutex again, the wait does not. Returns 0, or
 * -EFAULT or -EINTR if nothing was reaped.
 */
int retire_reap_wait(struct retire_ctx *ctx, struct retire_cqe __user *ucqes,
		     u32 nr, u32 min_complete, u64 timeout_ns, u32 flags,
		     int n, u32 *reaped)
{
	ktime_t deadline = 0;
	int ret;

	for (;;) {
		if (n < 0)
			return *reaped ? 0 : n;
		*reaped += n;
		if (*reaped >= min_complete)
			return 0;
		ret = retire_records_wait(ctx, flags, timeout_ns, &deadline,
					  NULL, 0);
		if (ret)
			return ret < 0 && !*reaped ? ret : 0;
		mutex_lock(&ctx->mutex);
		n = retire_records_take(ctx, ucqes + *reaped, nr - *reaped);
		mutex_unlock(&ctx->mutex);
	}
}
