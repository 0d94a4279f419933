// SPDX-License-Identifier: GPL-2.0
/*
 * Cancellation, deadlines and the watchdog.
 *
 * Both cancellation and a deadline only ever say something *to the
 * caller*: a deadline that expires tells the waiter it stopped waiting, a
 * cancel tells what it found. Neither clears device access; only the
 * device's terminal event does.
 *
 * Cancel results, as io_uring's ASYNC_CANCEL but made unambiguous by
 * generations:
 *   0          the request was still waiting (admitted, not yet handed
 *              to the engine) and is removed, or the engine stopped it
 *              (try_stop); its TERMINAL record (cancelled) is separate
 *              from the CANCEL_ACK record
 *   -EALREADY  the engine holds it and did not stop it, even one it has not
 *              begun transferring: wait for its own terminal event
 *   -ENOENT    no live request by that handle: it never releases anything
 *
 * Time: one hrtimer per context serves every deadline and every watchdog.
 * Watchdogs join the active list in expiry order (they are appended as
 * requests start); deadlines, in any order, sit in a timerqueue. A request
 * without a deadline carries no timer state at all; one with a deadline
 * owns a small node from a slab, allocated before it is admitted and freed
 * at its terminal event. The timer is armed for the earliest expiry it
 * knows of and is touched only when a new expiry comes before it, so a
 * stream of requests arms it about once per period.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/timerqueue.h>
#include <kunit/visibility.h>
#include <linux/retire.h>

#include "buf.h"
#include "cancel.h"
#include "ctx.h"
#include "history.h"
#include "engine.h"
#include "req.h"
#include "stats.h"

/**
 * struct retire_deadline - one request's deadline
 * @node:	in ctx->deadlines, keyed by the expiry
 * @handle:	the request it times: the timer finds it by handle, like
 *		every other event
 */
struct retire_deadline {
	struct timerqueue_node node;
	u64 handle;
};

static struct kmem_cache *retire_deadline_cache;

/* make sure the context's timer fires no later than @at */
static void retire_timer_want_locked(struct retire_ctx *ctx, ktime_t at)
{
	lockdep_assert_held(&ctx->lock);
	/*
	 * Started again rather than edited: the expiry of a queued timer
	 * must not change in place, and a callback that waited for the lock
	 * may find the timer queued again by an activation meanwhile.
	 */
	if (!hrtimer_is_queued(&ctx->timer) ||
	    ktime_before(at, hrtimer_get_expires(&ctx->timer)))
		hrtimer_start(&ctx->timer, at, HRTIMER_MODE_ABS);
}

/* the caller stopped waiting: a TIMEOUT record, nothing else changes */
static void retire_req_timeout_locked(struct retire_ctx *ctx,
				      struct retire_req *req, ktime_t now)
{
	lockdep_assert_held(&ctx->lock);
	if (req->timed_out)
		return;
	req->timed_out = true;
	retire_stat_inc(&ctx->stats, RETIRE_ST_TIMED_OUT);
	retire_event_locked(ctx, RETIRE_EV_TIMEOUT, req->handle, 0, 0);
	retire_req_end_logical_locked(ctx, req, now);
	retire_req_queue_locked(ctx, req, RETIRE_PEND_TIMEOUT);
}

/*
 * Every deadline that has passed delivers its TIMEOUT record; every active
 * request whose watchdog has passed is quarantined, in expiry order. The
 * timer then follows the first expiry of either kind still ahead. A
 * request that terminated took its deadline along and left the active
 * list, so the timer may fire for nothing: that costs one pass and saves
 * touching the timer on every terminal event. Quarantined requests stay
 * on the active list (still active) and are passed over: at most
 * max_active of them.
 */
static enum hrtimer_restart retire_ctx_timer_fire(struct hrtimer *t)
{
	struct retire_ctx *ctx = container_of(t, struct retire_ctx, timer);
	struct timerqueue_node *tq;
	struct retire_deadline *dl;
	struct retire_req *req;
	unsigned long flags;
	ktime_t now;

	spin_lock_irqsave(&ctx->lock, flags);
	now = ktime_get();
	while ((tq = timerqueue_getnext(&ctx->deadlines)) &&
	       !ktime_after(tq->expires, now)) {
		dl = container_of(tq, struct retire_deadline, node);
		timerqueue_del(&ctx->deadlines, tq);
		/* a deadline leaves with its request's terminal event */
		req = retire_slot_lookup_locked(&ctx->reqs, dl->handle);
		if (!WARN_ON_ONCE(!req || req->dl != dl)) {
			req->dl = NULL;
			retire_req_timeout_locked(ctx, req, now);
		}
		kmem_cache_free(retire_deadline_cache, dl);
	}
	if (tq)
		retire_timer_want_locked(ctx, tq->expires);

	list_for_each_entry(req, &ctx->active_list, node) {
		if (req->quarantined)
			continue;
		if (!ktime_after(req->watch_at, now)) {
			retire_req_quarantine_locked(ctx, req);
			continue;
		}
		retire_timer_want_locked(ctx, req->watch_at);
		break;
	}
	spin_unlock_irqrestore(&ctx->lock, flags);
	return HRTIMER_NORESTART;
}

/**
 * retire_ctx_timer_init() - set up a context's timer and deadline queue
 * @ctx: the context
 */
void retire_ctx_timer_init(struct retire_ctx *ctx)
{
	timerqueue_init_head(&ctx->deadlines);
	hrtimer_init(&ctx->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	ctx->timer.function = retire_ctx_timer_fire;
}

/**
 * retire_ctx_timer_fini() - stop a context's timer before it is freed
 * @ctx: a context with no request left: no deadline is queued
 */
void retire_ctx_timer_fini(struct retire_ctx *ctx)
{
	/* nothing is active and no deadline is left: a firing timer ends */
	hrtimer_cancel(&ctx->timer);
	WARN_ON_ONCE(timerqueue_getnext(&ctx->deadlines));
}

/**
 * retire_watchdog_arm() - a request goes active: its watchdog starts
 * @ctx:	the context; the caller holds its lock
 * @req:	the request
 * @now:	the time it starts
 *
 * Past it, the device's silence is no longer evidence of progress: the
 * request is quarantined (retire_req_quarantine_locked()). It joins the
 * active list in expiry order: at the tail unless watchdog_ns was lowered
 * since the requests before it went active.
 */
void retire_watchdog_arm(struct retire_ctx *ctx, struct retire_req *req,
			 ktime_t now)
{
	struct list_head *pos;

	lockdep_assert_held(&ctx->lock);
	req->watch_at = ktime_add_safe(now,
				       ns_to_ktime(min_t(u64, ctx->limits.watchdog_ns,
							 KTIME_MAX)));
	for (pos = ctx->active_list.prev; pos != &ctx->active_list;
	     pos = pos->prev)
		if (!ktime_after(list_entry(pos, struct retire_req,
					    node)->watch_at,
				 req->watch_at))
			break;
	list_add(&req->node, pos);
	retire_timer_want_locked(ctx, req->watch_at);
}

/**
 * retire_deadline_new() - a deadline for a request about to be admitted
 * @deadline_ns:	the request's relative deadline, 0 for none
 * @dl:			the new deadline, NULL for none
 *
 * Called before the context lock is taken (it may sleep). A request that
 * is refused gives it back with retire_deadline_free().
 *
 * Return: 0 or -ENOMEM.
 */
int retire_deadline_new(u64 deadline_ns, struct retire_deadline **dl)
{
	*dl = NULL;
	if (!deadline_ns)
		return 0;
	*dl = kmem_cache_alloc(retire_deadline_cache, GFP_KERNEL_ACCOUNT);
	return *dl ? 0 : -ENOMEM;
}

/**
 * retire_deadline_free() - give back a deadline that was never armed
 * @dl: from retire_deadline_new(), or NULL
 */
void retire_deadline_free(struct retire_deadline *dl)
{
	if (dl)
		kmem_cache_free(retire_deadline_cache, dl);
}

/**
 * retire_deadline_arm() - start the deadline of a just-admitted request
 * @ctx:	the context; the caller holds its lock
 * @req:	the request, which takes @dl over
 * @dl:		from retire_deadline_new(), or NULL for none
 * @deadline_ns: relative deadline, at most KTIME_MAX
 */
void retire_deadline_arm(struct retire_ctx *ctx, struct retire_req *req,
			 struct retire_deadline *dl, u64 deadline_ns)
{
	lockdep_assert_held(&ctx->lock);
	req->dl = dl;
	if (!dl)
		return;
	timerqueue_init(&dl->node);
	dl->handle = req->handle;
	dl->node.expires = ktime_add_safe(req->t_admit,
					  ns_to_ktime(deadline_ns));
	if (timerqueue_add(&ctx->deadlines, &dl->node))
		retire_timer_want_locked(ctx, dl->node.expires);
}

/**
 * retire_deadline_disarm() - the request terminated: its deadline goes
 * @ctx:	the context; the caller holds its lock
 * @req:	a WAITING or ACTIVE request with a deadline
 */
void retire_deadline_disarm(struct retire_ctx *ctx, struct retire_req *req)
{
	lockdep_assert_held(&ctx->lock);
	timerqueue_del(&ctx->deadlines, &req->dl->node);
	kmem_cache_free(retire_deadline_cache, req->dl);
	req->dl = NULL;
}

/**
 * retire_deadline_expires() - when a request's deadline passes
 * @req:	a WAITING or ACTIVE request; the caller holds its context's
 *		lock
 *
 * Return: the time, or 0 if it has none (or it has passed).
 */
ktime_t retire_deadline_expires(const struct retire_req *req)
{
	return req->dl ? req->dl->node.expires : 0;
}

/*
 * The cancel of @req, waiting or on the device, under ctx->lock: 0 if it
 * ended cancelled, -EALREADY if the engine kept it. The first cancel of a
 * request owes its CANCEL_ACK record.
 */
static int retire_req_cancel_locked(struct retire_ctx *ctx,
				    struct retire_req *req, ktime_t now)
{
	static const struct retire_engine_result cancelled = {
		.error = -ECANCELED,
		.cancelled = true,
	};
	bool first = !req->cancel_requested;
	int ret;

	lockdep_assert_held(&ctx->lock);
	req->cancel_requested = true;
	if (req->state == RETIRE_REQ_WAITING ||
	    ctx->engine->ops->try_stop(ctx->engine, ctx,
			retire_job_pdu(retire_slot_get(&ctx->jobs, req->job))))
		ret = 0;
	else
		ret = -EALREADY;
	retire_event_at_locked(ctx, RETIRE_EV_CANCEL, req->handle, ret, 0, now);

	if (first) {
		req->ack_already = ret == -EALREADY;
		req->ack_timed_out = req->timed_out;
		retire_req_end_logical_locked(ctx, req, now);
		retire_req_queue_locked(ctx, req, RETIRE_PEND_CANCEL_ACK);
	}
	if (!ret) {
		retire_req_terminate_at_locked(ctx, req, &cancelled, now, true);
		retire_req_terminated_locked(ctx, req, now);
	}
	retire_stat_inc(&ctx->stats, ret ? RETIRE_ST_CANCEL_ALREADY :
					   RETIRE_ST_CANCEL_OK);
	return ret;
}

static bool retire_req_in_flight(const struct retire_req *req)
{
	return req->state == RETIRE_REQ_WAITING ||
	       req->state == RETIRE_REQ_ACTIVE;
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
	struct retire_req *req;
	int ret;

	spin_lock_irq(&ctx->lock);
	req = retire_ctx_lookup_locked(ctx, &ctx->reqs, handle,
				       RETIRE_ST_STALE_CANCEL);
	if (req && retire_req_in_flight(req)) {
		/*
		 * The clock now, not the batch's: an engine's report or an
		 * activation since the batch began may be later than that
		 */
		ret = retire_req_cancel_locked(ctx, req, ktime_get());
	} else {
		ret = -ENOENT;
		/* its terminal event came first: nothing left to stop */
		if (req)
			retire_event_locked(ctx, RETIRE_EV_CANCEL, handle, ret,
					    0);
		retire_stat_inc(&ctx->stats, RETIRE_ST_CANCEL_NOENT);
	}
	spin_unlock_irq(&ctx->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_req_cancel);

/*
 * What a walk looks for: a request of a key (RETIRE_CANCEL_F_KEY), any
 * request (RETIRE_CANCEL_F_ANY), or, with @import, a waiting request on a
 * buffer that is that import.
 */
struct retire_req_match {
	u32 flags;
	u64 key;
	const struct retire_import *import;
};

static bool retire_req_matches(const struct retire_req *req,
			       const struct retire_req_match *m)
{
	if (!req->slot.live || !retire_req_in_flight(req))
		return false;
	if (m->import)
		return req->state == RETIRE_REQ_WAITING &&
		       req->buf->import == m->import;
	return m->flags & RETIRE_CANCEL_F_ANY || req->key == m->key;
}

/*
 * Every request of the context that @m names and that is still waiting
 * or on the device, visited in slot order RETIRE_CTX_BATCH at a time, the
 * lock dropped between batches. With @cancel each is cancelled and *@kept
 * counts those the engine kept. Returns how many were found.
 */
static u32 retire_req_match_walk(struct retire_ctx *ctx,
				 const struct retire_req_match *m,
				 bool cancel, u32 *kept)
{
	static const struct retire_engine_result revoked = {
		.error = -ECANCELED,
		.cancelled = true,
	};
	ktime_t now = ktime_get();
	struct retire_req *req;
	u32 idx = 0, end, found = 0;

	spin_lock_irq(&ctx->lock);
	for (;;) {
		end = min_t(u32, idx + RETIRE_CTX_BATCH, ctx->reqs.nr);
		for (; idx < end; idx++) {
			req = retire_slot_get(&ctx->reqs, idx);
			if (!retire_req_matches(req, m))
				continue;
			found++;
			if (!cancel)
				continue;
			/* nobody asked: no CANCEL_ACK, its TERMINAL says it */
			if (m->import)
				retire_req_terminate_locked(ctx, req, &revoked);
			else if (retire_req_cancel_locked(ctx, req, now))
				(*kept)++;
		}
		if (idx >= ctx->reqs.nr)
			break;
		spin_unlock_irq(&ctx->lock);
		cond_resched();
		spin_lock_irq(&ctx->lock);
	}
	spin_unlock_irq(&ctx->lock);
	return found;
}

/**
 * retire_req_cancel_match() - cancel every request of a key, or every one
 * @ctx:	the context
 * @flags:	RETIRE_CANCEL_F_KEY or RETIRE_CANCEL_F_ANY
 * @key:	the key, with RETIRE_CANCEL_F_KEY
 * @kept:	set to how many of them the engine kept (-EALREADY)
 *
 * Each request found waiting or on the device is cancelled as
 * retire_req_cancel() would cancel it by its handle: its own result
 * (counted as cancel_ok or cancel_already), history event and CANCEL_ACK
 * record. A request admitted while the walk runs may or may not be found.
 *
 * Return: how many were found.
 */
u32 retire_req_cancel_match(struct retire_ctx *ctx, u32 flags, u64 key,
			    u32 *kept)
{
	struct retire_req_match m = { .flags = flags, .key = key };

	*kept = 0;
	return retire_req_match_walk(ctx, &m, true, kept);
}
EXPORT_SYMBOL_IF_KUNIT(retire_req_cancel_match);

/**
 * retire_req_cancel_import() - an import was revoked: end its waiters
 * @ctx:	a context, perhaps with a buffer that is @import
 * @import:	the import, already refusing new requests
 *
 * Each request waiting on a buffer that is @import (gated or queued)
 * ends cancelled without device access; those on the device are left to
 * end (the revoke fence waits for them). No CANCEL_ACK is owed: nobody
 * asked.
 *
 * Return: how many were cancelled.
 */
u32 retire_req_cancel_import(struct retire_ctx *ctx,
			     const struct retire_import *import)
{
	struct retire_req_match m = { .import = import };

	return retire_req_match_walk(ctx, &m, true, NULL);
}

/* a terminal event of the context since it counted @seen */
static bool retire_terminal_came(struct retire_ctx *ctx, u32 seen)
{
	return READ_ONCE(ctx->terminals) != seen;
}

/**
 * retire_req_cancel_wait() - wait until no request a match names is in
 *			      flight
 * @ctx:	the context
 * @flags:	RETIRE_CANCEL_F_KEY or RETIRE_CANCEL_F_ANY
 * @key:	the key, with RETIRE_CANCEL_F_KEY
 * @timeout_ns:	the most to wait; 0 waits without bound
 * @pending:	set to how many were still waiting or on the device
 *
 * Each terminal event wakes the wait, which then walks the requests again.
 *
 * Return: 0 once none is; -ETIME when @timeout_ns passed first; -EINTR on
 * a signal.
 */
int retire_req_cancel_wait(struct retire_ctx *ctx, u32 flags, u64 key,
			   u64 timeout_ns, u32 *pending)
{
	ktime_t deadline = KTIME_MAX, now;
	struct retire_req_match m = { .flags = flags, .key = key };
	u32 seen;
	long left;

	if (timeout_ns)
		deadline = ktime_add_safe(ktime_get(),
					  ns_to_ktime(min_t(u64, timeout_ns,
							    KTIME_MAX)));
	for (;;) {
		/* read before the walk: a terminal event after it wakes us */
		seen = READ_ONCE(ctx->terminals);
		*pending = retire_req_match_walk(ctx, &m, false, NULL);
		if (!*pending)
			return 0;
		if (deadline == KTIME_MAX) {
			left = wait_event_interruptible(ctx->waitq,
							retire_terminal_came(ctx, seen));
		} else {
			now = ktime_get();
			if (!ktime_before(now, deadline))
				return -ETIME;
			left = wait_event_interruptible_hrtimeout(ctx->waitq,
								  retire_terminal_came(ctx, seen),
								  ktime_sub(deadline, now));
			if (left == -ETIME)
				left = 0;
		}
		if (left)
			return -EINTR;
	}
}
EXPORT_SYMBOL_IF_KUNIT(retire_req_cancel_wait);

/**
 * retire_deadline_cache_init() - the slab deadlines come from
 *
 * Return: 0 or -ENOMEM.
 */
int retire_deadline_cache_init(void)
{
	retire_deadline_cache = KMEM_CACHE(retire_deadline, SLAB_ACCOUNT);
	return retire_deadline_cache ? 0 : -ENOMEM;
}

/**
 * retire_deadline_cache_exit() - destroy it; every context is gone
 */
void retire_deadline_cache_exit(void)
{
	kmem_cache_destroy(retire_deadline_cache);
}

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

void retire_req_unquarantine_locked(struct retire_ctx *ctx,
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
	u32 idx = 0, end;

	/*
	 * RETIRE_CTX_BATCH slots to a hold of the lock, so the interrupts are
	 * off for a bounded stretch however many slots there are. Not the
	 * mutex: its owner may hold it for as long as a page fault in a
	 * copy to user memory takes, and a reset must not wait for that
	 * while it holds the list of contexts (every open() waits on it).
	 * The lock suffices: the table grows under it (each batch reads its
	 * size again), and its chunks are freed only after the context has
	 * left the list, which the caller's walk holds.
	 */
	spin_lock_irq(&ctx->lock);
	while (ctx->quarantined && idx < ctx->reqs.nr) {
		end = min_t(u32, idx + RETIRE_CTX_BATCH, ctx->reqs.nr);
		for (; idx < end; idx++) {
			req = retire_slot_get(&ctx->reqs, idx);
			if (req->slot.live && req->quarantined &&
			    req->state == RETIRE_REQ_TERMINATED)
				retire_req_unquarantine_locked(ctx, req);
		}
		spin_unlock_irq(&ctx->lock);
		cond_resched();
		spin_lock_irq(&ctx->lock);
	}
	spin_unlock_irq(&ctx->lock);
}
EXPORT_SYMBOL_IF_KUNIT(retire_ctx_unquarantine);
