// SPDX-License-Identifier: GPL-2.0
/*
 * The context: everything one open file description of /dev/retire owns.
 *
 * Its lifetime is a kref, not the file's. The file holds the first
 * reference; release() hands that reference to the reaper, a work item on
 * the module's workqueue, which returns every token, cancels what has not
 * started, consumes every record as it arrives, and drops the reference
 * once the last request is retired. close() is never taken as evidence
 * that a device stopped. Each context pins the module until it is freed,
 * so the module cannot be unloaded while any device work names it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/retire_netlink.h>
#include <kunit/visibility.h>

#include "admit.h"
#include "buf.h"
#include "cancel.h"
#include "ctx.h"
#include "debugfs.h"
#include "engine.h"
#include "fence.h"
#include "history.h"
#include "main.h"
#include "netlink.h"
#include "records.h"
#include "req.h"
#include "ring.h"
#include "stats.h"
#include "token.h"

/* the core's workqueue: reapers, context frees, activation passes */
struct workqueue_struct *retire_wq;

/* every context, open or draining: an engine reset walks them */
static LIST_HEAD(retire_ctx_list);
static DEFINE_MUTEX(retire_ctx_list_mutex);
/*
 * context ids for netlink and the history: never reused while the module
 * is loaded, and growing along retire_ctx_list (both under its mutex)
 */
static u64 retire_ctx_ids;

/**
 * retire_ctx_walk_after() - call @fn on every context after @id
 * @id:		the last context already seen (0 for all)
 * @fn:		called in id order; a non-zero return stops the walk
 * @arg:	passed to @fn
 *
 * For resumable netlink dumps: contexts are listed in creation order and
 * ids only grow.
 *
 * Return: what @fn returned last.
 */
int retire_ctx_walk_after(u64 id, retire_ctx_visit_t fn, void *arg)
{
	struct retire_ctx *ctx;
	int ret = 0;

	mutex_lock(&retire_ctx_list_mutex);
	list_for_each_entry(ctx, &retire_ctx_list, node) {
		if (ctx->id <= id)
			continue;
		ret = fn(ctx, arg);
		if (ret)
			break;
	}
	mutex_unlock(&retire_ctx_list_mutex);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_ctx_walk_after);

/**
 * retire_ctx_stale_locked() - count a stale notification, and tell
 * @ctx:	the context
 * @kind:	RETIRE_ST_STALE_* (or RETIRE_ST_STALE_PUBLISHED)
 * @t:		the table @handle was looked up in; NULL for a result
 *		withheld (@handle is then live)
 * @handle:	what was refused
 *
 * Allocation-free, for any context: the "stale" multicast message is sent
 * later, at most once per interval, with the cumulative counters. The
 * history and the stale tracepoint get the handle and what its slot held.
 */
void retire_ctx_stale_locked(struct retire_ctx *ctx, enum retire_stat kind,
			     const struct retire_slot_table *t, u64 handle)
{
	u32 found = t ? retire_slot_gen_locked(t, handle) :
			retire_handle_gen(handle);
	s32 which;

	lockdep_assert_held(&ctx->lock);
	switch (kind) {
	case RETIRE_ST_STALE_ENGINE:
		which = RETIRE_STALE_ENGINE;
		break;
	case RETIRE_ST_STALE_CANCEL:
		which = RETIRE_STALE_CANCEL;
		break;
	case RETIRE_ST_STALE_TOKEN:
		which = RETIRE_STALE_TOKEN;
		break;
	case RETIRE_ST_STALE_PUBLISHED:
		which = RETIRE_STALE_PUBLISHED;
		break;
	default:
		which = RETIRE_STALE_USER;
		break;
	}
	retire_event_locked(ctx, RETIRE_EV_STALE, handle, which, found);
	retire_stat_inc(&ctx->stats, kind);
	if (!ctx->stale_dirty) {
		ctx->stale_dirty = true;
		queue_delayed_work(retire_wq, &ctx->ntf_work,
				   retire_netlink_stale_delay());
	}
}

/**
 * retire_ctx_health_locked() - the context's quarantine count changed
 * @ctx: the context
 *
 * Allocation-free; the "health" message is sent from a work item.
 */
void retire_ctx_health_locked(struct retire_ctx *ctx)
{
	lockdep_assert_held(&ctx->lock);
	ctx->health_dirty = true;
	queue_work(retire_wq, &ctx->health_work);
}

/* the cumulative stale counters, as one "stale" multicast message */
static void retire_ctx_send_stale(struct retire_ctx *ctx)
{
	struct retire_nl_stale s = {
		.ctx_id = ctx->id,
		.pid = pid_nr(ctx->owner),
	};
	const u64 *v = ctx->stats.v;

	spin_lock_irq(&ctx->lock);
	ctx->stale_dirty = false;
	s.engine = v[RETIRE_ST_STALE_ENGINE];
	s.cancel = v[RETIRE_ST_STALE_CANCEL];
	s.token = v[RETIRE_ST_STALE_TOKEN];
	s.user = v[RETIRE_ST_STALE_USER];
	s.published = v[RETIRE_ST_STALE_PUBLISHED];
	spin_unlock_irq(&ctx->lock);
	retire_netlink_notify_stale(&s);
}

static void retire_ctx_ntf_work(struct work_struct *work)
{
	retire_ctx_send_stale(container_of(to_delayed_work(work),
					   struct retire_ctx, ntf_work));
}

static void retire_ctx_health_work(struct work_struct *work)
{
	struct retire_ctx *ctx = container_of(work, struct retire_ctx,
					      health_work);
	struct retire_nl_health h = {
		.event = RETIRE_HEALTH_EVENT_QUARANTINE,
		.ctx_id = ctx->id,
		.pid = pid_nr(ctx->owner),
	};
	bool dirty;

	spin_lock_irq(&ctx->lock);
	dirty = ctx->health_dirty;
	ctx->health_dirty = false;
	h.quarantined_now = ctx->quarantined;
	spin_unlock_irq(&ctx->lock);
	if (dirty && h.quarantined_now)
		retire_netlink_notify_health(&h);
}

/**
 * retire_ctx_walk() - call @fn on every context
 * @fn: may sleep; must not free the context
 */
void retire_ctx_walk(void (*fn)(struct retire_ctx *ctx))
{
	struct retire_ctx *ctx;

	mutex_lock(&retire_ctx_list_mutex);
	list_for_each_entry(ctx, &retire_ctx_list, node)
		fn(ctx);
	mutex_unlock(&retire_ctx_list_mutex);
}

/**
 * retire_stats_module() - the module-wide counters in the uapi layout
 * @out: filled completely
 *
 * The module's atomics plus every listed context's counters, each read
 * under its lock. May sleep.
 */
void retire_stats_module(struct retire_stats *out)
{
	struct retire_ctx *ctx;

	mutex_lock(&retire_ctx_list_mutex);
	retire_stats_module_base(out);
	list_for_each_entry(ctx, &retire_ctx_list, node) {
		spin_lock_irq(&ctx->lock);
		retire_stats_add_ctx(&ctx->stats, out);
		spin_unlock_irq(&ctx->lock);
	}
	mutex_unlock(&retire_ctx_list_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(retire_stats_module);

static void retire_job_init(void *obj, void *arg)
{
	struct retire_engine *e = arg;

	if (e->ops->job_init)
		e->ops->job_init(e, retire_job_pdu(obj));
}

static void retire_job_fini(void *obj, void *arg)
{
	struct retire_engine *e = arg;

	if (e->ops->job_fini)
		e->ops->job_fini(e, retire_job_pdu(obj));
}

/*
 * The job table for @engine's jobs, one per request that may be active,
 * and the engine's own set-up for the context (ops->attach).
 */
static int retire_ctx_jobs_init(struct retire_ctx *ctx,
				struct retire_slot_table *jobs,
				struct retire_engine *engine)
{
	struct retire_limits caps;
	int ret;

	retire_caps_get(&caps);
	ret = retire_slot_table_init(jobs, 0, retire_job_size(engine),
				     caps.max_active, retire_job_init,
				     retire_job_fini, engine, &ctx->lock);
	if (ret || !engine->ops->attach)
		return ret;
	ret = engine->ops->attach(engine, ctx);
	if (ret)
		retire_slot_table_destroy(jobs);
	return ret;
}

/* undo retire_ctx_jobs_init(): every job has reported */
static void retire_ctx_jobs_fini(struct retire_ctx *ctx,
				 struct retire_slot_table *jobs,
				 struct retire_engine *engine)
{
	/* jobs wait for their last timer and work item here */
	retire_slot_table_destroy(jobs);
	if (engine->ops->detach)
		engine->ops->detach(engine, ctx);
}

static void retire_ctx_free_work(struct work_struct *work)
{
	struct retire_ctx *ctx = container_of(work, struct retire_ctx,
					      free_work);

	struct retire_nl_health reaped = {
		.event = RETIRE_HEALTH_EVENT_REAPED,
		.ctx_id = ctx->id,
		.pid = pid_nr(ctx->owner),
	};

	/* waits for a reader of its files: none reads the context after */
	retire_debugfs_ctx_remove(ctx);
	mutex_lock(&retire_ctx_list_mutex);
	list_del(&ctx->node);
	/* in one step with leaving the list: the module's sums stay whole */
	spin_lock_irq(&ctx->lock);
	retire_stats_fold(&ctx->stats);
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&retire_ctx_list_mutex);
	cancel_work_sync(&ctx->reap_work);
	cancel_work_sync(&ctx->activate_work);
	retire_fences_fini(ctx);
	/*
	 * The last stale counters go out now rather than never, sent from
	 * here: flushing the pending work would wait for a worker of this
	 * same queue, and enough contexts freed at once would hold them all.
	 */
	cancel_delayed_work_sync(&ctx->ntf_work);
	if (ctx->stale_dirty)
		retire_ctx_send_stale(ctx);
	cancel_work_sync(&ctx->health_work);
	retire_netlink_notify_health(&reaped);
	WARN_ON_ONCE(ctx->unretired || ctx->ready_head != RETIRE_SLOT_NONE ||
		     !list_empty(&ctx->flow.jobs));
	retire_ctx_timer_fini(ctx);
	retire_slot_table_destroy(&ctx->reqs);
	retire_ctx_jobs_fini(ctx, &ctx->jobs, ctx->engine);
	retire_slot_table_destroy(&ctx->tokens);
	retire_keys_destroy(&ctx->keys);
	retire_buf_destroy_all(ctx);
	retire_slot_table_destroy(&ctx->bufs);
	retire_stat_add(NULL, RETIRE_ST_CONTEXTS, -1);
	put_pid(ctx->owner);
	kfree(ctx->stage);
	retire_ring_free(ctx);
	retire_engine_put(ctx->engine);
	retire_history_free(ctx->history);
	kfree(ctx);
	/* the last thing: retire_exit() flushes retire_wq before it returns */
	module_put(THIS_MODULE);
}

static void retire_ctx_reap_work(struct work_struct *work)
{
	struct retire_ctx *ctx = container_of(work, struct retire_ctx,
					      reap_work);
	bool done;

	mutex_lock(&ctx->mutex);
	retire_records_take_kernel(ctx, NULL, UINT_MAX);
	spin_lock_irq(&ctx->lock);
	done = !ctx->unretired && ctx->ready_head == RETIRE_SLOT_NONE;
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&ctx->mutex);
	/*
	 * The reference release() handed over, dropped exactly once; its
	 * imports go first, so that contexts importing each other's
	 * exports do not hold each other.
	 */
	if (done && !test_and_set_bit(0, &ctx->reaped)) {
		retire_buf_drop_imports(ctx);
		retire_ctx_put(ctx);
	}
}

/**
 * retire_ctx_create() - a new context with limits equal to the module caps
 * @engine: the device its requests go to; the context takes a reference
 *
 * Return: the context, holding one reference for the caller, or an
 * ERR_PTR(). Its memory is charged to the caller's memory cgroup.
 */
struct retire_ctx *retire_ctx_create(struct retire_engine *engine)
{
	struct retire_ctx *ctx;
	u32 nreq;
	int ret;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return ERR_PTR(-ENOMEM);

	kref_init(&ctx->ref);
	spin_lock_init(&ctx->lock);
	mutex_init(&ctx->mutex);
	mutex_init(&ctx->buf_mutex);
	retire_caps_get(&ctx->limits);
	ctx->ready_head = RETIRE_SLOT_NONE;
	ctx->ready_tail = RETIRE_SLOT_NONE;
	INIT_LIST_HEAD(&ctx->active_list);
	INIT_LIST_HEAD(&ctx->flow.jobs);
	INIT_LIST_HEAD(&ctx->flow.node);
	INIT_LIST_HEAD(&ctx->pool_lru);
	retire_ctx_timer_init(ctx);
	init_waitqueue_head(&ctx->waitq);
	INIT_WORK(&ctx->activate_work, retire_ctx_activate_work);
	INIT_WORK(&ctx->reap_work, retire_ctx_reap_work);
	INIT_WORK(&ctx->free_work, retire_ctx_free_work);
	INIT_DELAYED_WORK(&ctx->ntf_work, retire_ctx_ntf_work);
	INIT_WORK(&ctx->health_work, retire_ctx_health_work);
	retire_fences_init(ctx);
	ctx->owner = get_pid(task_tgid(current));
	ctx->uid = current_euid();
	get_task_comm(ctx->comm, current);
	ctx->engine = engine;

	/*
	 * twice max_unretired: retired requests keep a slot until their
	 * RETIRED record is read
	 */
	nreq = min_t(u64, 2ULL * ctx->limits.max_unretired, RETIRE_SLOT_MAX);
	ctx->history = retire_history_alloc();
	if (!ctx->history) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = retire_buf_table_init(ctx);
	if (ret)
		goto out_history;
	ret = retire_slot_table_init(&ctx->reqs, RETIRE_KIND_REQ,
				     sizeof(struct retire_req), nreq, NULL, NULL,
				     NULL, &ctx->lock);
	if (ret)
		goto out_bufs;
	/* a job for each request that may be active, never more */
	ret = retire_ctx_jobs_init(ctx, &ctx->jobs, engine);
	if (ret)
		goto out_reqs;
	/* one over the bound: a handoff holds both tokens for an instant */
	ret = retire_slot_table_init(&ctx->tokens, RETIRE_KIND_TOKEN,
				     sizeof(struct retire_token),
				     ctx->limits.max_tokens + 1, NULL, NULL,
				     NULL, &ctx->lock);
	if (ret)
		goto out_jobs;
	ret = retire_keys_init(&ctx->keys, &ctx->limits);
	if (ret)
		goto out_tokens;

	retire_engine_hold(engine);
	__module_get(THIS_MODULE);
	retire_stat_add(NULL, RETIRE_ST_CONTEXTS, 1);
	/*
	 * The id is taken where the context joins the list, under the same
	 * mutex: ids then grow along the list, which the resumable dumps and
	 * the history's lookup by id rely on. Taken before the allocations
	 * above, which may sleep, two opens could join in the other order.
	 */
	mutex_lock(&retire_ctx_list_mutex);
	ctx->id = ++retire_ctx_ids;
	list_add_tail(&ctx->node, &retire_ctx_list);
	mutex_unlock(&retire_ctx_list_mutex);
	retire_debugfs_ctx_add(ctx);
	return ctx;

out_tokens:
	retire_slot_table_destroy(&ctx->tokens);
out_jobs:
	retire_ctx_jobs_fini(ctx, &ctx->jobs, engine);
out_reqs:
	retire_slot_table_destroy(&ctx->reqs);
out_bufs:
	retire_slot_table_destroy(&ctx->bufs);
out_history:
	retire_history_free(ctx->history);
out_free:
	put_pid(ctx->owner);
	kfree(ctx);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(retire_ctx_create);

/**
 * retire_ctx_get() - take a reference
 * @ctx: the context
 */
void retire_ctx_get(struct retire_ctx *ctx)
{
	kref_get(&ctx->ref);
}

static void retire_ctx_last_put(struct kref *ref)
{
	struct retire_ctx *ctx = container_of(ref, struct retire_ctx, ref);

	/* never inline: a caller may hold the lock of a neighbour */
	queue_work(retire_wq, &ctx->free_work);
}

/**
 * retire_ctx_put() - drop a reference; the last one frees the context
 * @ctx: the context
 *
 * The free happens on the module's workqueue, after every timer and work
 * item of the context has finished.
 */
void retire_ctx_put(struct retire_ctx *ctx)
{
	kref_put(&ctx->ref, retire_ctx_last_put);
}
EXPORT_SYMBOL_IF_KUNIT(retire_ctx_put);

/**
 * retire_ctx_kick_reaper() - let the reaper look at a closed context
 * @ctx: the context; the caller holds its lock
 */
void retire_ctx_kick_reaper(struct retire_ctx *ctx)
{
	lockdep_assert_held(&ctx->lock);
	queue_work(retire_wq, &ctx->reap_work);
}

/**
 * retire_ctx_release() - the owner's file is gone
 * @ctx: the context; the caller's reference passes to the reaper
 *
 * Returns every borrow token (only the owner could), cancels what has not
 * started, consumes what has terminated, and leaves what the device still
 * holds to finish on its own: the reaper retires it when it does.
 */
void retire_ctx_release(struct retire_ctx *ctx)
{
	static const struct retire_engine_result cancelled = {
		.error = -ECANCELED,
		.cancelled = true,
	};
	struct retire_req *req;
	u32 idx, n, nr;
	bool more;

	mutex_lock(&ctx->mutex);
	spin_lock_irq(&ctx->lock);
	/* from here nothing starts (retire_activate_waiting_locked()) */
	ctx->closed = true;
	spin_unlock_irq(&ctx->lock);
	/*
	 * Its tokens are returned on its behalf, RETIRE_CTX_BATCH slots to a
	 * hold: the table grows only under the mutex, which is held, and
	 * only a terminated request has tokens, so nothing else moves them.
	 */
	for (idx = 0; idx < ctx->tokens.nr;) {
		spin_lock_irq(&ctx->lock);
		idx = retire_token_revoke_locked(ctx, idx, RETIRE_CTX_BATCH);
		spin_unlock_irq(&ctx->lock);
		cond_resched();
	}
	/*
	 * The waiters are cancelled from the head, RETIRE_CTX_BATCH to a hold
	 * of the lock: each cancel is O(1) now that nothing starts, and the
	 * interrupts are off for a bounded stretch however many wait. The
	 * mutex keeps new ones out meanwhile.
	 */
	do {
		spin_lock_irq(&ctx->lock);
		for (n = 0; n < RETIRE_CTX_BATCH; n++) {
			req = retire_keys_any_waiting_locked(ctx) ?:
			      retire_gate_first_locked(ctx);
			if (!req)
				break;
			req->cancel_requested = true;
			retire_req_terminate_locked(ctx, req, &cancelled);
		}
		more = ctx->waiting_nr;
		spin_unlock_irq(&ctx->lock);
		cond_resched();
	} while (more);
	/*
	 * What terminated and was read is the reaper's to retire; quarantined
	 * requests stay so (their device's terminal event, or an engine
	 * reset, frees them). The table only grows under the mutex, which is
	 * held: a slot is looked at under the lock, a batch at a time.
	 */
	nr = ctx->reqs.nr;
	for (idx = 0; idx < nr; idx += RETIRE_CTX_BATCH) {
		spin_lock_irq(&ctx->lock);
		for (n = idx; n < nr && n < idx + RETIRE_CTX_BATCH; n++) {
			req = retire_slot_get(&ctx->reqs, n);
			if (!req->slot.live ||
			    req->state != RETIRE_REQ_TERMINATED ||
			    !req->terminal_read)
				continue;
			req->consumed = true;
			retire_req_try_retire_locked(ctx, req);
		}
		spin_unlock_irq(&ctx->lock);
		cond_resched();
	}
	spin_lock_irq(&ctx->lock);
	retire_ctx_kick_reaper(ctx);
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&ctx->mutex);
}
EXPORT_SYMBOL_IF_KUNIT(retire_ctx_release);

/**
 * retire_ctx_set_engine() - bind the context to another engine
 * @ctx:	the context
 * @id:		the engine's id (RETIRE_IOC_CONTEXT)
 *
 * Only while no request is unretired: no job of the old engine is held,
 * and none of the new one yet. The old engine's job table is freed here,
 * after its jobs' last timers and work items (job_fini).
 *
 * Return: 0; -ENOENT for no such engine (or one whose device is gone, or
 * whose module is going); -EBUSY while a request is unretired; -ENOMEM, or
 * the engine's refusal (ops->attach).
 */
int retire_ctx_set_engine(struct retire_ctx *ctx, u32 id)
{
	struct retire_engine *e = retire_engine_get(id);
	struct retire_slot_table jobs;
	int ret;

	if (!e)
		return -ENOENT;
	ret = retire_ctx_jobs_init(ctx, &jobs, e);
	if (ret)
		goto out_put;
	mutex_lock(&ctx->mutex);
	spin_lock_irq(&ctx->lock);
	if (ctx->unretired || ctx->jobs.used) {
		ret = -EBUSY;
	} else {
		swap(ctx->jobs, jobs);
		swap(ctx->engine, e);
	}
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&ctx->mutex);
	/* what is left over: the old table and engine, or the unused new */
	retire_ctx_jobs_fini(ctx, &jobs, e);
out_put:
	retire_engine_put(e);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_ctx_set_engine);

/**
 * retire_ctx_flow() - the context's turn at an engine that takes turns
 * @ctx: a context bound to the caller's engine
 *
 * Return: its flow, kept under the engine's own lock.
 */
struct retire_flow *retire_ctx_flow(struct retire_ctx *ctx)
{
	return &ctx->flow;
}
EXPORT_SYMBOL_GPL(retire_ctx_flow);

#ifdef CONFIG_LOCKDEP
/**
 * retire_ctx_assert_held() - lockdep: the caller holds the context lock
 * @ctx: the context (an engine's start() and try_stop() run under it)
 */
void retire_ctx_assert_held(struct retire_ctx *ctx)
{
	lockdep_assert_held(&ctx->lock);
}
EXPORT_SYMBOL_GPL(retire_ctx_assert_held);
#endif

/**
 * retire_ctx_set_limits() - the owner sets its context's bounds
 * @ctx:	the context
 * @l:		the new limits
 *
 * All or nothing. Refused while it would leave the context above a new
 * bound: shrinking below what is in use is refused always, not only while
 * outstanding work or quarantine makes it unsafe (the stricter rule).
 *
 * Raising max_active or max_active_per_key starts, at once, the waiting
 * requests that may now run: a waiter is never left behind room it fits.
 *
 * Return: 0; -EPERM for a watchdog_ns below RETIRE_WATCHDOG_MIN_NS without
 * CAP_SYS_ADMIN; -EINVAL for a zero field (max_pinned_bytes may be 0), a
 * field above the module cap, or max_active_per_key > max_active; -EBUSY for a
 * field below current use (max_active_per_key: below the most requests
 * one key has active); -ENOMEM if the jobs a raised max_active needs
 * cannot be had.
 */
int retire_ctx_set_limits(struct retire_ctx *ctx, const struct retire_limits *l)
{
	const u64 *st = ctx->stats.v;
	struct retire_limits caps;
	int ret = 0;

	retire_caps_get(&caps);
	/* a watchdog that quarantines at once is the administrator's tool */
	if (l->watchdog_ns < RETIRE_WATCHDOG_MIN_NS && l->watchdog_ns &&
	    !capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!l->max_unretired || !l->max_active || !l->max_active_per_key ||
	    !l->max_waiting || !l->max_tokens || !l->max_buffers ||
	    !l->max_reserved_bytes || !l->max_pool_bytes || !l->watchdog_ns ||
	    l->max_unretired > caps.max_unretired ||
	    l->max_active > caps.max_active ||
	    l->max_active_per_key > caps.max_active_per_key ||
	    l->max_waiting > caps.max_waiting ||
	    l->max_tokens > caps.max_tokens ||
	    l->max_buffers > caps.max_buffers ||
	    l->max_reserved_bytes > caps.max_reserved_bytes ||
	    l->max_pinned_bytes > caps.max_pinned_bytes ||
	    l->max_pool_bytes > caps.max_pool_bytes ||
	    l->watchdog_ns > caps.watchdog_ns ||
	    l->max_active_per_key > l->max_active)
		return -EINVAL;

	mutex_lock(&ctx->mutex);
	/* the waiters a raised max_active starts each need a job */
	ret = retire_jobs_reserve(ctx, l->max_active, 0);
	if (ret)
		goto out_mutex;
	mutex_lock(&ctx->buf_mutex);
	spin_lock_irq(&ctx->lock);
	if (ctx->unretired > l->max_unretired ||
	    ctx->active > l->max_active ||
	    retire_keys_active_max_locked(ctx) > l->max_active_per_key ||
	    ctx->waiting_nr > l->max_waiting ||
	    st[RETIRE_ST_TOKENS_OUT] > l->max_tokens ||
	    st[RETIRE_ST_BUFFERS] > l->max_buffers ||
	    ctx->reserved_bytes > l->max_reserved_bytes ||
	    st[RETIRE_ST_PINNED_BYTES] > l->max_pinned_bytes ||
	    st[RETIRE_ST_POOL_BYTES] > l->max_pool_bytes)
		ret = -EBUSY;
	else
		retire_ctx_limits_changed_locked(ctx, l);
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&ctx->buf_mutex);
out_mutex:
	mutex_unlock(&ctx->mutex);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_ctx_set_limits);

/**
 * retire_ctx_epoch() - read or change intent for the publication predicate
 * @ctx:	the context
 * @op:		RETIRE_EPOCH_GET, _BUMP or _REVOKE
 * @key:	the key (0 for REVOKE)
 * @epoch:	the key's epoch afterwards
 * @authority:	the context's authority afterwards
 *
 * Return: 0; -EINVAL for an unknown op or a key with REVOKE; -ENOSPC to
 * bump a key when RETIRE_EPOCH_KEYS keys are already tracked.
 */
int retire_ctx_epoch(struct retire_ctx *ctx, u32 op, u64 key, u64 *epoch,
		     u64 *authority)
{
	int ret = 0;
	u32 i;

	if (op > RETIRE_EPOCH_REVOKE || (op == RETIRE_EPOCH_REVOKE && key))
		return -EINVAL;
	spin_lock_irq(&ctx->lock);
	for (i = 0; i < ctx->nr_epochs; i++)
		if (ctx->epochs[i].key == key)
			break;
	/* every change of intent moves the sequence requests compare with */
	if (op == RETIRE_EPOCH_REVOKE) {
		ctx->authority++;
		ctx->revoked_at = ++ctx->intent;
	} else if (op == RETIRE_EPOCH_BUMP) {
		if (i == ctx->nr_epochs) {
			if (i == RETIRE_EPOCH_KEYS) {
				ret = -ENOSPC;
				goto out;
			}
			ctx->epochs[i].key = key;
			ctx->epochs[i].epoch = 0;
			ctx->nr_epochs++;
		}
		ctx->epochs[i].epoch++;
		ctx->epochs[i].bumped_at = ++ctx->intent;
	}
	*epoch = i < ctx->nr_epochs ? ctx->epochs[i].epoch : 0;
	*authority = ctx->authority;
out:
	spin_unlock_irq(&ctx->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_ctx_epoch);

/**
 * retire_ctx_init() - create the module's workqueue and deadline slab
 *
 * Return: 0 or -ENOMEM.
 */
int retire_ctx_init(void)
{
	int ret;

	ret = retire_deadline_cache_init();
	if (ret)
		return ret;
	retire_wq = alloc_workqueue("retire", WQ_UNBOUND, 0);
	if (!retire_wq) {
		retire_deadline_cache_exit();
		return -ENOMEM;
	}
	return 0;
}

/**
 * retire_ctx_exit() - wait for every work item, then destroy the queue
 *
 * No context exists here: each pins the module until it is freed.
 */
void retire_ctx_exit(void)
{
	destroy_workqueue(retire_wq);
	retire_deadline_cache_exit();
}
