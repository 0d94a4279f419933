// SPDX-License-Identifier: GPL-2.0
/*
 * retire's dma_fence: what a request's out-fence (fence.c) and a revoked
 * import's fence (dmabuf.c) share. Each is its own fence context (they
 * end out of order), names the module as its driver and holds it, since
 * its ops live here. Built wherever the kernel has dma-bufs, which is
 * where dma_fence lives.
 */
#include <linux/dma-fence.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "fence.h"

static const char *retire_fence_driver_name(struct dma_fence *f)
{
	return KBUILD_MODNAME;
}

static const char *retire_fence_timeline_name(struct dma_fence *f)
{
	return container_of(f, struct retire_fence, base)->timeline;
}

/*
 * The fence's ops live in this module: each fence holds it until a grace
 * period after its last reference. An RCU reader that found the fence
 * before then may still call its ops, and a put from the release itself
 * would return into a module that might be gone; retire_fence_exit()
 * waits for the callbacks' own returns.
 */
static void retire_fence_free_rcu(struct rcu_head *rcu)
{
	kfree(container_of(rcu, struct retire_fence, base.rcu));
	module_put(THIS_MODULE);
}

static void retire_fence_release(struct dma_fence *f)
{
	call_rcu(&f->rcu, retire_fence_free_rcu);
}

static const struct dma_fence_ops retire_fence_ops = {
	.get_driver_name = retire_fence_driver_name,
	.get_timeline_name = retire_fence_timeline_name,
	.release = retire_fence_release,
};

/**
 * retire_fence_new() - an unsignalled fence of a context of its own
 *
 * Its timeline is empty until the caller names it.
 *
 * Return: the fence (one reference), or NULL: no memory, or the module
 * going away.
 */
struct retire_fence *retire_fence_new(void)
{
	struct retire_fence *f;

	if (!try_module_get(THIS_MODULE))
		return NULL;
	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f) {
		module_put(THIS_MODULE);
		return NULL;
	}
	spin_lock_init(&f->lock);
	dma_fence_init(&f->base, &retire_fence_ops, &f->lock,
		       dma_fence_context_alloc(1), 1);
	return f;
}
EXPORT_SYMBOL_IF_KUNIT(retire_fence_new);

/**
 * retire_fence_signal() - signal @f with an event's -errno as its error
 * @f:		the fence
 * @error:	0 for success; anything that is no -errno becomes -EIO
 */
void retire_fence_signal(struct retire_fence *f, int error)
{
	if (error)
		dma_fence_set_error(&f->base, error < 0 && error >= -MAX_ERRNO ?
				    error : -EIO);
	dma_fence_signal(&f->base);
}

/**
 * retire_fence_discard() - a fence nobody saw: it signals, so that
 *			    nothing waits on it, and goes
 * @f: the fence, or NULL
 */
void retire_fence_discard(struct retire_fence *f)
{
	if (!f)
		return;
	retire_fence_signal(f, -ECANCELED);
	dma_fence_put(&f->base);
}
EXPORT_SYMBOL_IF_KUNIT(retire_fence_discard);

/**
 * retire_fence_exit() - the module goes: the last fences' frees have run
 *
 * Each fence held the module until its free, which runs from an RCU
 * callback of this module's; this waits for the last one to return.
 */
void retire_fence_exit(void)
{
	rcu_barrier();
}

#if IS_ENABLED(CONFIG_KUNIT)
/* the module a fence of retire's holds, for KUnit to count its references */
struct module *retire_fence_owner(void)
{
	return THIS_MODULE;
}
EXPORT_SYMBOL_IF_KUNIT(retire_fence_owner);
#endif
