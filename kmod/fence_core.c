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
#include <linux/slab.h>

#include "fence.h"

static const char *retire_fence_driver_name(struct dma_fence *f)
{
	return KBUILD_MODNAME;
}

static const char *retire_fence_timeline_name(struct dma_fence *f)
{
	return container_of(f, struct retire_fence, base)->timeline;
}

/* the fence's ops live in this module: each fence holds it */
static void retire_fence_release(struct dma_fence *f)
{
	dma_fence_free(f);
	module_put(THIS_MODULE);
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
