// SPDX-License-Identifier: GPL-2.0
/*
 * The engine API's side in the core (include/linux/retire_engine.h): the
 * registry of the devices the core can hand requests to, and the calls an
 * engine makes about a request (begin, moving, terminal event).
 *
 * The core knows engines only through struct retire_engine and its ops,
 * as the block layer knows drivers through blk_mq_ops; engines are
 * modules of their own that register with it. Each context is bound to
 * one engine (the one default_engine names, unless RETIRE_IOC_CONTEXT
 * says otherwise) and holds a reference to it and to its module, so an
 * engine outlives its device for as long as a context names it, and its
 * module cannot be unloaded under it; an unregistered engine is "gone":
 * nothing more is admitted for it, and its driver ends at once whatever
 * it is still given. A context that finds no engine to bind to is bound
 * to none, a placeholder that is always gone: its submits fail with
 * -ENODEV until RETIRE_IOC_CONTEXT binds it to an engine.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include <linux/retire.h>
#include <linux/retire_netlink.h>

#include "buf.h"
#include "cancel.h"
#include "compat.h"
#include "ctx.h"
#include "dmabuf.h"
#include "engine.h"
#include "fence.h"
#include "netlink.h"
#include "req.h"
#include "stats.h"

static char *default_engine = RETIRE_DEFAULT_ENGINE;
module_param(default_engine, charp, 0644);
MODULE_PARM_DESC(default_engine,
		 "The engine a new context is bound to, by name; loaded on demand as module alias retire-engine-<name>");

static LIST_HEAD(retire_engines);
static DEFINE_MUTEX(retire_engines_mutex);
/* ids 1 and up; 0 is an engine of the default kind (ABI 1) */
static u32 retire_engine_next_id = 1;

static const struct retire_engine_ops retire_engine_none_ops = {};

/* what a context is bound to when no engine is there: always gone */
static struct retire_engine retire_engine_none = {
	.name	= "none",
	.ops	= &retire_engine_none_ops,
	.id	= U32_MAX,
	.gone	= true,
};

/* may @e take id 0: of the default kind, and no registered engine has it? */
static bool retire_engine_id0_free(const struct retire_engine *e)
{
	struct retire_engine *o;
	bool free;

	lockdep_assert_held(&retire_engines_mutex);
	kernel_param_lock(THIS_MODULE);
	free = default_engine && !strcmp(e->name, default_engine);
	kernel_param_unlock(THIS_MODULE);
	list_for_each_entry(o, &retire_engines, node)
		if (!o->id)
			free = false;
	return free;
}

/**
 * retire_engine_register() - make an engine available to contexts
 * @e: the engine: its name, device, ops, owner and description filled in
 *
 * An engine of the default_engine's kind gets id 0 (the id ABI 1 gives
 * its default engine) while no registered engine has it: the id names
 * "the default kind's engine", reloaded or not. Every other engine gets
 * the next id, never reused while the core is loaded.
 *
 * Return: 0, or -EINVAL for an engine without a name, with neither
 * start() and try_stop() nor run(), with both, with run() and job storage
 * or a queue of its own, or with an ioctl list but no ioctl().
 */
int retire_engine_register(struct retire_engine *e)
{
	const struct retire_engine_ops *ops = e->ops;
	bool bad;

	if (WARN_ON(!e->name || !e->name[0] || !ops ||
		    (ops->ioctls && !ops->ioctl)))
		return -EINVAL;
	/* a device that keeps jobs, or one that finishes inline */
	if (ops->run)
		bad = ops->start || ops->try_stop || ops->job_size ||
		      ops->job_init || ops->queues;
	else
		bad = !ops->start || !ops->try_stop;
	if (WARN_ON(bad))
		return -EINVAL;
	kref_init(&e->ref);
	e->gone = false;
	mutex_lock(&retire_engines_mutex);
	e->id = retire_engine_id0_free(e) ? 0 : retire_engine_next_id++;
	/* the list stays in id order: id 0 first, the rest as they came */
	if (e->id)
		list_add_tail(&e->node, &retire_engines);
	else
		list_add(&e->node, &retire_engines);
	mutex_unlock(&retire_engines_mutex);
	pr_info("engine %u: %s%s%s\n", e->id, e->name, e->device[0] ? " " : "",
		e->device);
	return 0;
}
EXPORT_SYMBOL_GPL(retire_engine_register);

static void retire_engine_release(struct kref *ref)
{
	struct retire_engine *e = container_of(ref, struct retire_engine,
					       ref);

	if (e->ops->release)
		e->ops->release(e);
}

/**
 * retire_engine_unregister() - the engine's device is going
 * @e: a registered engine
 *
 * From here no context can bind to it and none admits more for it; the
 * contexts bound to it keep it (and their references) until they go. The
 * driver must already have ended every job it held, each with a terminal
 * event. Imported dma-bufs attached to its DMA device are unmapped and
 * detached here, before the driver lets the device go. Drops the
 * registry's reference: the engine may be released in this call. May
 * sleep.
 */
void retire_engine_unregister(struct retire_engine *e)
{
	mutex_lock(&retire_engines_mutex);
	WRITE_ONCE(e->gone, true);
	list_del(&e->node);
	mutex_unlock(&retire_engines_mutex);
	/* no mapping may outlive the driver's hold on its device */
	if (e->dma_dev)
		retire_imports_device_gone(e->dma_dev);
	/* the registry's reference holds no module: see retire_engine_hold() */
	kref_put(&e->ref, retire_engine_release);
}
EXPORT_SYMBOL_GPL(retire_engine_unregister);

/*
 * A reference for a context: none while the engine's module is going
 * (its exit will unregister it). Under retire_engines_mutex, so @e is
 * registered and the registry's reference keeps it.
 */
static struct retire_engine *retire_engine_try_hold(struct retire_engine *e)
{
	lockdep_assert_held(&retire_engines_mutex);
	if (!try_module_get(e->owner))
		return NULL;
	kref_get(&e->ref);
	return e;
}

/**
 * retire_engine_get() - the registered engine with this id
 * @id: RETIRE_IOC_CONTEXT's engine
 *
 * Return: the engine with a reference for the caller, or NULL if there is
 * none (never was, or unregistered).
 */
struct retire_engine *retire_engine_get(u32 id)
{
	struct retire_engine *e, *found = NULL;

	mutex_lock(&retire_engines_mutex);
	list_for_each_entry(e, &retire_engines, node)
		if (e->id == id) {
			found = retire_engine_try_hold(e);
			break;
		}
	mutex_unlock(&retire_engines_mutex);
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(retire_engine_get);

/* the registered engine named @name, held; NULL if none */
static struct retire_engine *retire_engine_find(const char *name)
{
	struct retire_engine *e, *found = NULL;

	mutex_lock(&retire_engines_mutex);
	list_for_each_entry(e, &retire_engines, node)
		if (!strcmp(e->name, name)) {
			found = retire_engine_try_hold(e);
			if (found)
				break;
		}
	mutex_unlock(&retire_engines_mutex);
	return found;
}

/**
 * retire_engine_get_default() - the engine a new context is bound to
 *
 * The first registered engine of the default_engine kind; if there is
 * none, its module is asked for (module alias retire-engine-<name>) and
 * looked for again. Without one, the placeholder none.
 *
 * Return: the engine, held; never NULL.
 */
struct retire_engine *retire_engine_get_default(void)
{
	char name[32];
	struct retire_engine *e;

	kernel_param_lock(THIS_MODULE);
	strscpy(name, default_engine ?: "", sizeof(name));
	kernel_param_unlock(THIS_MODULE);
	if (!name[0])
		goto none;
	e = retire_engine_find(name);
	if (e)
		return e;
	if (!request_module("retire-engine-%s", name)) {
		e = retire_engine_find(name);
		if (e)
			return e;
	}
none:
	retire_engine_hold(&retire_engine_none);
	return &retire_engine_none;
}
EXPORT_SYMBOL_IF_KUNIT(retire_engine_get_default);

/**
 * retire_engine_hold() - one more reference to an engine the caller holds
 * @e: the engine
 *
 * A reference other than the registry's also holds the engine's module:
 * ops and release stay callable while a context names the engine.
 */
void retire_engine_hold(struct retire_engine *e)
{
	kref_get(&e->ref);
	__module_get(e->owner);
}

/**
 * retire_engine_put() - drop a reference
 * @e: the engine, or NULL
 *
 * The last one releases the driver's state (ops->release). May sleep.
 */
void retire_engine_put(struct retire_engine *e)
{
	struct module *owner;

	if (!e)
		return;
	/* release may free @e: what it names is read first */
	owner = e->owner;
	kref_put(&e->ref, retire_engine_release);
	module_put(owner);
}
EXPORT_SYMBOL_IF_KUNIT(retire_engine_put);

/**
 * retire_engine_list() - describe the registered engines, by id
 * @out:	room for @nr descriptions, or NULL with @nr 0
 * @nr:		its capacity
 *
 * The number of contexts bound to each is counted from the references:
 * all but the registry's.
 *
 * Return: how many engines there are (may exceed @nr: only @nr written).
 */
int retire_engine_list(struct retire_engine_info *out, u32 nr)
{
	struct retire_engine *e;
	int n = 0;

	mutex_lock(&retire_engines_mutex);
	list_for_each_entry(e, &retire_engines, node) {
		if (n < nr) {
			struct retire_engine_info *i = &out[n];

			memset(i, 0, sizeof(*i));
			i->id = e->id;
			i->flags = (e->ops->nl_fill ? RETIRE_ENGINE_F_KNOBS : 0) |
				   (e->dma_mask ? RETIRE_ENGINE_F_DMA : 0);
			strscpy(i->name, e->name, sizeof(i->name));
			strscpy(i->device, e->device, sizeof(i->device));
			i->dma_mask = e->dma_mask;
			i->max_transfer = e->max_transfer;
			i->contexts = kref_read(&e->ref) - 1;
			i->transfers = atomic64_read(&e->transfers);
			i->bounced = atomic64_read(&e->bounced);
		}
		n++;
	}
	mutex_unlock(&retire_engines_mutex);
	return n;
}

/**
 * retire_engine_features() - what the registered engines add to GET_INFO
 *
 * Return: the union of their RETIRE_FEAT_* bits.
 */
u64 retire_engine_features(void)
{
	struct retire_engine *e;
	u64 features = 0;

	mutex_lock(&retire_engines_mutex);
	list_for_each_entry(e, &retire_engines, node)
		features |= e->features;
	mutex_unlock(&retire_engines_mutex);
	return features;
}

/* does @cmd match one of @list (type, number and direction)? */
static bool retire_engine_serves(const unsigned int *list, unsigned int cmd)
{
	for (; list && *list; list++)
		if (_IOC_TYPE(cmd) == _IOC_TYPE(*list) &&
		    _IOC_NR(cmd) == _IOC_NR(*list) &&
		    _IOC_DIR(cmd) == _IOC_DIR(*list))
			return true;
	return false;
}

/**
 * retire_engine_ioctl() - a command the core does not serve
 * @ctx:	the file's context
 * @cmd:	the command
 * @uarg:	its argument
 *
 * Passed to the first registered engine that lists it (ops->ioctls),
 * held for the call.
 *
 * Return: the engine's answer, or -ENOTTY if no registered engine serves
 * the command (its engine may be one that is not loaded).
 */
long retire_engine_ioctl(struct retire_ctx *ctx, unsigned int cmd,
			 void __user *uarg)
{
	struct retire_engine *e, *found = NULL;
	long ret;

	mutex_lock(&retire_engines_mutex);
	list_for_each_entry(e, &retire_engines, node)
		if (retire_engine_serves(e->ops->ioctls, cmd)) {
			found = retire_engine_try_hold(e);
			if (found)
				break;
		}
	mutex_unlock(&retire_engines_mutex);
	if (!found)
		return -ENOTTY;
	ret = found->ops->ioctl(found, ctx, cmd, uarg);
	retire_engine_put(found);
	return ret;
}

/**
 * retire_engine_with_knobs() - the engine netlink engine-get/set reach
 *
 * Return: the first registered engine with netlink knobs, held, or NULL.
 */
struct retire_engine *retire_engine_with_knobs(void)
{
	struct retire_engine *e, *found = NULL;

	mutex_lock(&retire_engines_mutex);
	list_for_each_entry(e, &retire_engines, node)
		if (e->ops->nl_fill && e->ops->nl_set) {
			found = retire_engine_try_hold(e);
			if (found)
				break;
		}
	mutex_unlock(&retire_engines_mutex);
	return found;
}

/**
 * retire_engine_reset_done() - an engine's reset ended its access
 * @e: the engine; every job it held has reported, with a reset outcome
 *
 * Requests the watchdog quarantined, whose device access the reset
 * proved over, may retire now; the health group hears of it. May sleep.
 */
void retire_engine_reset_done(struct retire_engine *e)
{
	struct retire_nl_health h = { .event = RETIRE_HEALTH_EVENT_RESET };
	struct retire_stats st;

	retire_ctx_walk(retire_ctx_unquarantine);
	retire_stats_module(&st);
	h.quarantined_now = st.quarantined_now;
	retire_netlink_notify_health(&h);
}
EXPORT_SYMBOL_GPL(retire_engine_reset_done);

/* ---- what an engine calls, request by request ---------------------- */

/**
 * retire_engine_begin() - a device that queues its work begins a request
 * @ctx:	the context the device was given
 * @handle:	the request's handle
 *
 * For an engine with ops->queues, before the device first touches the
 * buffer: the request's watchdog starts now, so it measures the device's
 * own time on the request, not the time it waited in the device's queue
 * behind other work. Until then the request is not watched: its device
 * has not touched its buffer, and a cancel takes it out of the queue.
 * Callable from any context, but not under a lock that the engine's
 * start() takes: start() runs under the context lock, taken here.
 */
void retire_engine_begin(struct retire_ctx *ctx, u64 handle)
{
	struct retire_req *req;
	unsigned long flags;

	spin_lock_irqsave(&ctx->lock, flags);
	req = retire_slot_lookup_locked(&ctx->reqs, handle);
	/* an active request not on the watched list has not begun */
	if (!WARN_ON_ONCE(!req || req->state != RETIRE_REQ_ACTIVE) &&
	    list_empty(&req->node))
		retire_watchdog_arm(ctx, req, ktime_get());
	spin_unlock_irqrestore(&ctx->lock, flags);
}
EXPORT_SYMBOL_GPL(retire_engine_begin);

/**
 * retire_engine_moving() - a device is about to move bytes of a request
 * @ctx:	the context the device was given
 * @w:		the work it was given
 * @n:		bytes
 *
 * Counted before they move. A device allowed to write the buffer marks it
 * written here, so user pages are unpinned dirty after what the device
 * did, not after what its terminal event reports (a cancel or reset may
 * report nothing transferred after partial writes). Callable from any
 * context; the device holds the request, so @w->buf is valid.
 */
void retire_engine_moving(struct retire_ctx *ctx,
			  const struct retire_engine_work *w, u64 n)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->lock, flags);
	retire_engine_moving_locked(ctx, w, n);
	spin_unlock_irqrestore(&ctx->lock, flags);
}
EXPORT_SYMBOL_GPL(retire_engine_moving);

/**
 * retire_engine_moving_locked() - retire_engine_moving(), lock held
 * @ctx:	the context; the caller holds its lock (an engine completing
 *		inline, from its start())
 * @w:		the work it was given
 * @n:		bytes
 */
void retire_engine_moving_locked(struct retire_ctx *ctx,
				 const struct retire_engine_work *w, u64 n)
{
	lockdep_assert_held(&ctx->lock);
	retire_stat_add(&ctx->stats, RETIRE_ST_ENGINE_BYTES, n);
	if (w->dev_flags & RETIRE_DEV_WRITE)
		w->buf->dev_wrote = true;
}
EXPORT_SYMBOL_GPL(retire_engine_moving_locked);

/**
 * retire_engine_complete() - a device reports a terminal event
 * @ctx:	the context the device was given
 * @handle:	the request handle the device was given
 * @res:	the result
 *
 * The handle is checked against the live incarnation before the request
 * is touched: a late, duplicate or forged event is counted and dropped.
 * Never sleeps or allocates; callable from any context.
 */
void retire_engine_complete(struct retire_ctx *ctx, u64 handle,
			    const struct retire_engine_result *res)
{
	unsigned long flags;
	bool cookie;

	/* it signals the request's out-fence: the kernel's fence rules hold */
	cookie = retire_signalling_begin();
	spin_lock_irqsave(&ctx->lock, flags);
	retire_engine_complete_locked(ctx, handle, res);
	spin_unlock_irqrestore(&ctx->lock, flags);
	retire_signalling_end(cookie);
}
EXPORT_SYMBOL_GPL(retire_engine_complete);

/**
 * retire_engine_complete_locked() - retire_engine_complete(), lock held
 * @ctx:	the context; the caller holds its lock
 * @handle:	the request handle the device was given
 * @res:	the result
 */
void retire_engine_complete_locked(struct retire_ctx *ctx, u64 handle,
				   const struct retire_engine_result *res)
{
	struct retire_req *req;

	lockdep_assert_held(&ctx->lock);
	req = retire_slot_lookup_locked(&ctx->reqs, handle);
	if (!req || req->state != RETIRE_REQ_ACTIVE)
		retire_ctx_stale_locked(ctx, RETIRE_ST_STALE_ENGINE, &ctx->reqs,
					handle);
	else
		retire_req_terminate_locked(ctx, req, res);
}
EXPORT_SYMBOL_GPL(retire_engine_complete_locked);

/**
 * retire_engine_report_stale() - deliver an event for a request not held
 * @ctx:	the context
 * @handle:	a request handle the engine does not hold
 * @res:	the event
 *
 * For an engine that replays or injects device events: the event goes
 * through retire_engine_complete()'s check and is counted stale, unless
 * @handle names a live request, which only the engine holding it may end.
 * The check and the delivery share one lock hold, so a handle that comes
 * alive in between is never ended under its running job.
 *
 * Return: -ENOENT once delivered (and counted), -EBUSY if @handle is live.
 */
int retire_engine_report_stale(struct retire_ctx *ctx, u64 handle,
			       const struct retire_engine_result *res)
{
	bool live;

	spin_lock_irq(&ctx->lock);
	live = retire_slot_lookup_locked(&ctx->reqs, handle);
	if (!live)
		retire_engine_complete_locked(ctx, handle, res);
	spin_unlock_irq(&ctx->lock);
	return live ? -EBUSY : -ENOENT;
}
EXPORT_SYMBOL_GPL(retire_engine_report_stale);

/**
 * retire_engine_violation() - a device tried an access it may not make
 * @ctx:	the context
 * @handle:	the request it was working on
 * @access:	the RETIRE_DEV_* access outside the request's flags
 *
 * The engine refused it (it must: the core cannot stop a device); the
 * context counts it in access_violations. Callable from any context.
 */
void retire_engine_violation(struct retire_ctx *ctx, u64 handle, u32 access)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->lock, flags);
	retire_stat_inc(&ctx->stats, RETIRE_ST_ACCESS_VIOLATIONS);
	spin_unlock_irqrestore(&ctx->lock, flags);
	pr_warn_ratelimited("refused a device %s outside request %#llx's access flags\n",
			    access == RETIRE_DEV_READ ? "read" : "write", handle);
}
EXPORT_SYMBOL_GPL(retire_engine_violation);

#define RETIRE_FNV_PRIME	0x100000001b3ULL

/**
 * retire_checksum() - FNV-1a-64 over a byte range
 * @hash:	the running hash (start with RETIRE_CHECKSUM_INIT)
 * @p:		bytes
 * @len:	their number
 *
 * What an engine reports as the checksum of the bytes it read, so that
 * userspace can verify any engine's reads the same way.
 *
 * Return: the updated hash.
 */
u64 retire_checksum(u64 hash, const u8 *p, size_t len)
{
	u64 w;
	int i;

	/* the same hash, byte by byte, from one load per eight bytes */
	for (; len >= sizeof(w); len -= sizeof(w), p += sizeof(w)) {
		w = get_unaligned_le64(p);
#pragma GCC unroll 8
		for (i = 0; i < sizeof(w); i++, w >>= 8) {
			hash ^= (u8)w;
			hash *= RETIRE_FNV_PRIME;
		}
	}
	while (len--) {
		hash ^= *p++;
		hash *= RETIRE_FNV_PRIME;
	}
	return hash;
}
EXPORT_SYMBOL_GPL(retire_checksum);

/**
 * retire_engine_init() - set up the registry's placeholder
 *
 * Return: 0.
 */
int retire_engine_init(void)
{
	kref_init(&retire_engine_none.ref);
	return 0;
}
