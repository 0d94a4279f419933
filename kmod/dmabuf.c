// SPDX-License-Identifier: GPL-2.0
/*
 * dma-buf export: a range of a module-allocated buffer as a dma-buf, so
 * that another driver can attach to the pages a retire request uses
 * (Documentation/interop.rst). The dma-buf holds its context and the
 * module; the buffer counts its live exports and, while it has any, is
 * neither unregistered nor evicted (off the pool's LRU), though requests
 * may still use it. Importers map it through the DMA API; the CPU reaches
 * it through mmap() of the dma-buf, bracketed by DMA_BUF_IOCTL_SYNC.
 *
 * dma-buf import: another driver's dma-buf as a buffer (struct
 * retire_import), attached to the device of the context's engine and
 * mapped once; engines use the attachment's DMA addresses, or, moving
 * bytes with the CPU, the dma-buf's kernel mapping.
 *
 * Revocation. retire attaches as a dynamic importer: the exporter's
 * move_notify (a move or a revoke: retire maps once, so both end the
 * import) stops admission on the import, cancels its waiting requests in
 * every context and puts one fence into the dma-buf's reservation object
 * that signals when the last request on the device ends. As an exporter,
 * RETIRE_IOC_BUF_REVOKE tells its importers so and waits for their fences.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <kunit/visibility.h>
#include <linux/retire.h>
#include <linux/retire_engine.h>

#include "buf.h"
#include "cancel.h"
#include "compat.h"
#include "ctx.h"
#include "dmabuf.h"
#include "fence.h"
#include "history.h"

MODULE_IMPORT_NS(DMA_BUF);

/**
 * struct retire_export - what a dma-buf of retire's knows
 * @ctx:	the buffer's context (a reference)
 * @buf:	the buffer: registered while @buf->exports counts this
 * @pages:	the range's first page in @buf->pages
 * @nr_pages:	pages in the range
 * @lock:	protects @maps
 * @maps:	attachments mapped now (struct retire_export_map): what a
 *		CPU access syncs
 * @revoked:	RETIRE_IOC_BUF_REVOKE took device access back: nothing is
 *		attached or mapped for a device again (set under the
 *		reservation lock)
 */
struct retire_export {
	struct retire_ctx *ctx;
	struct retire_buf *buf;
	struct page **pages;
	u32 nr_pages;
	struct mutex lock;	/* protects @maps */
	struct list_head maps;
	bool revoked;
};

/*
 * An attachment's mapping. @sgt is what was mapped, kept for the CPU
 * access ioctls' syncs and the unmap; the importer gets @out, a copy of
 * its entries, which the dma-buf core may scramble (CONFIG_DMABUF_DEBUG
 * hides the pages from importers) and restores before the unmap.
 */
struct retire_export_map {
	struct list_head node;
	struct dma_buf_attachment *attach;
	struct sg_table sgt;
	struct sg_table out;
	enum dma_data_direction dir;
};

/* @out takes @sgt's entries, pages and DMA addresses alike */
static int retire_export_copy(struct retire_export_map *m)
{
	struct scatterlist *src, *dst;
	unsigned int i;
	int ret;

	ret = sg_alloc_table(&m->out, m->sgt.orig_nents, GFP_KERNEL);
	if (ret)
		return ret;
	dst = m->out.sgl;
	for_each_sgtable_sg(&m->sgt, src, i) {
		sg_set_page(dst, sg_page(src), src->length, src->offset);
		sg_dma_address(dst) = sg_dma_address(src);
		sg_dma_len(dst) = sg_dma_len(src);
		retire_sg_copy_dma_flags(dst, src);
		dst = sg_next(dst);
	}
	m->out.nents = m->sgt.nents;
	return 0;
}

/*
 * A buffer's pages have one DMA mapping at a time. Two mappings of a page
 * each sync on their own terms: where one is bounced (a device with a
 * narrow DMA mask), its copy is written back over what the other's device
 * wrote, and the DMA API's debug code reports the overlap. So an
 * attachment maps the buffer only while no other attachment of any of its
 * exports has it mapped and no request of its own is on an engine with a
 * DMA device (an engine without one moves bytes with the CPU); while one
 * has it mapped, such a request is refused (retire_buf_engine_check()). An
 * importer that wants the buffer twice imports one dma-buf twice: that is
 * one attachment, shared.
 */
static int retire_export_map_claim(struct retire_export *x)
{
	struct retire_ctx *ctx = x->ctx;
	struct retire_buf *buf = x->buf;
	bool dma_req;
	int ret = 0;

	spin_lock_irq(&ctx->lock);
	/* a request out holds the context's engine: it cannot change */
	dma_req = (buf->state == RETIRE_BUF_ATTACHED ||
		   buf->state == RETIRE_BUF_QUARANTINED) &&
		  ctx->engine->dma_dev;
	if (buf->dev_maps || dma_req)
		ret = -EBUSY;
	else
		buf->dev_maps++;
	spin_unlock_irq(&ctx->lock);
	return ret;
}

static void retire_export_map_release(struct retire_export *x)
{
	spin_lock_irq(&x->ctx->lock);
	x->buf->dev_maps--;
	spin_unlock_irq(&x->ctx->lock);
}

static struct sg_table *retire_export_map(struct dma_buf_attachment *attach,
					  enum dma_data_direction dir)
{
	struct retire_export *x = attach->dmabuf->priv;
	struct retire_export_map *m;
	int ret;

	if (READ_ONCE(x->revoked))
		return ERR_PTR(-ENODEV);
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return ERR_PTR(-ENOMEM);
	ret = retire_export_map_claim(x);
	if (ret)
		goto out_free;
	ret = sg_alloc_table_from_pages(&m->sgt, x->pages, x->nr_pages, 0,
					(unsigned long)x->nr_pages << PAGE_SHIFT,
					GFP_KERNEL);
	if (ret)
		goto out_release;
	ret = dma_map_sgtable(attach->dev, &m->sgt, dir, 0);
	if (ret)
		goto out_table;
	ret = retire_export_copy(m);
	if (ret)
		goto out_unmap;
	m->attach = attach;
	m->dir = dir;
	mutex_lock(&x->lock);
	list_add(&m->node, &x->maps);
	mutex_unlock(&x->lock);
	return &m->out;

out_unmap:
	dma_unmap_sgtable(attach->dev, &m->sgt, dir, 0);
out_table:
	sg_free_table(&m->sgt);
out_release:
	retire_export_map_release(x);
out_free:
	kfree(m);
	return ERR_PTR(ret);
}

static void retire_export_unmap(struct dma_buf_attachment *attach,
				struct sg_table *sgt,
				enum dma_data_direction dir)
{
	struct retire_export *x = attach->dmabuf->priv;
	struct retire_export_map *m = container_of(sgt, struct retire_export_map,
						   out);

	mutex_lock(&x->lock);
	list_del(&m->node);
	mutex_unlock(&x->lock);
	dma_unmap_sgtable(attach->dev, &m->sgt, dir, 0);
	sg_free_table(&m->out);
	sg_free_table(&m->sgt);
	kfree(m);
	retire_export_map_release(x);
}

/* every device mapping hands the bytes to the CPU, or back */
static void retire_export_sync(struct dma_buf *dmabuf, bool for_cpu)
{
	struct retire_export *x = dmabuf->priv;
	struct retire_export_map *m;

	mutex_lock(&x->lock);
	list_for_each_entry(m, &x->maps, node) {
		if (for_cpu)
			dma_sync_sgtable_for_cpu(m->attach->dev, &m->sgt,
						 m->dir);
		else
			dma_sync_sgtable_for_device(m->attach->dev, &m->sgt,
						    m->dir);
	}
	mutex_unlock(&x->lock);
}

static int retire_export_begin_cpu(struct dma_buf *dmabuf,
				   enum dma_data_direction dir)
{
	retire_export_sync(dmabuf, true);
	return 0;
}

static int retire_export_end_cpu(struct dma_buf *dmabuf,
				 enum dma_data_direction dir)
{
	retire_export_sync(dmabuf, false);
	return 0;
}

/* the range's pages, as retire_buf_mmap() maps a whole buffer */
static int retire_export_mmap(struct dma_buf *dmabuf,
			      struct vm_area_struct *vma)
{
	struct retire_export *x = dmabuf->priv;
	unsigned long n = vma_pages(vma), i;
	int ret = 0;

	/* dma_buf_mmap_internal() checked the range against the size */
	if (vma->vm_pgoff + n > x->nr_pages)
		return -EINVAL;
	retire_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (i = 0; i < n && !ret; i++)
		ret = vm_insert_page(vma, vma->vm_start + (i << PAGE_SHIFT),
				     x->pages[vma->vm_pgoff + i]);
	return ret;
}

/* a revoked dma-buf is attached to nothing new */
static int retire_export_attach(struct dma_buf *dmabuf,
				struct dma_buf_attachment *attach)
{
	struct retire_export *x = dmabuf->priv;

	return READ_ONCE(x->revoked) ? -ENODEV : 0;
}

/*
 * A kernel mapping of the range, for an importer that moves bytes itself.
 * CPU access, like mmap(): a revocation (of device access) leaves it be,
 * and the dma-buf core takes a failure here for a bug.
 */
static int retire_export_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct retire_export *x = dmabuf->priv;
	void *vaddr = vmap(x->pages, x->nr_pages, VM_MAP, PAGE_KERNEL);

	if (!vaddr)
		return -ENOMEM;
	iosys_map_set_vaddr(map, vaddr);
	return 0;
}

static void retire_export_vunmap(struct dma_buf *dmabuf,
				 struct iosys_map *map)
{
	vunmap(map->vaddr);
}

/* the last reference: the buffer may go back to its pool's LRU */
static void retire_export_release(struct dma_buf *dmabuf)
{
	struct retire_export *x = dmabuf->priv;
	struct retire_ctx *ctx = x->ctx;
	struct retire_buf *buf = x->buf;

	WARN_ON_ONCE(!list_empty(&x->maps));
	spin_lock_irq(&ctx->lock);
	if (!--buf->exports && buf->state == RETIRE_BUF_FREE)
		retire_buf_pool_put_locked(ctx, buf);
	retire_event_locked(ctx, RETIRE_EV_EXPORT, buf->handle, buf->exports,
			    dmabuf->size);
	spin_unlock_irq(&ctx->lock);
	mutex_destroy(&x->lock);
	kfree(x);
	retire_ctx_put(ctx);
}

static const struct dma_buf_ops retire_export_ops = {
	.attach = retire_export_attach,
	.map_dma_buf = retire_export_map,
	.unmap_dma_buf = retire_export_unmap,
	.begin_cpu_access = retire_export_begin_cpu,
	.end_cpu_access = retire_export_end_cpu,
	.mmap = retire_export_mmap,
	.vmap = retire_export_vmap,
	.vunmap = retire_export_vunmap,
	.release = retire_export_release,
};

/**
 * retire_buf_export() - RETIRE_IOC_BUF_EXPORT: a buffer range as a dma-buf
 * @ctx:	the context
 * @e:		the checked argument
 * @out:	the dma-buf, its fd not installed yet
 *
 * Return: 0; -EINVAL for a pinned buffer or a range outside the buffer;
 * -ENOENT for a stale handle (counted); -ENOMEM.
 */
int retire_buf_export(struct retire_ctx *ctx,
		      const struct retire_buf_export *e, struct dma_buf **out)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct retire_export *x;
	struct retire_buf *buf;
	struct dma_buf *dmabuf;
	u64 end;
	int ret = 0;

	if (!e->len || !PAGE_ALIGNED(e->offset) || !PAGE_ALIGNED(e->len) ||
	    check_add_overflow(e->offset, e->len, &end))
		return -EINVAL;
	x = kzalloc(sizeof(*x), GFP_KERNEL_ACCOUNT);
	if (!x)
		return -ENOMEM;
	mutex_init(&x->lock);
	INIT_LIST_HEAD(&x->maps);

	/* buf_mutex: the buffer stays registered until it counts the export */
	mutex_lock(&ctx->buf_mutex);
	spin_lock_irq(&ctx->lock);
	buf = retire_ctx_lookup_locked(ctx, &ctx->bufs, e->buf,
				       RETIRE_ST_STALE_USER);
	if (!buf)
		ret = -ENOENT;
	else if (buf->user || end > buf->len)
		ret = -EINVAL;
	spin_unlock_irq(&ctx->lock);
	if (ret)
		goto out_unlock;

	x->ctx = ctx;
	x->buf = buf;
	x->pages = buf->pages + (e->offset >> PAGE_SHIFT);
	x->nr_pages = e->len >> PAGE_SHIFT;
	info.ops = &retire_export_ops;
	info.size = e->len;
	info.flags = O_RDWR | O_CLOEXEC;
	info.priv = x;
	/* the dma-buf holds the module (info.owner) and the context */
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto out_unlock;
	}
	retire_ctx_get(ctx);
	spin_lock_irq(&ctx->lock);
	/* off the LRU: an exported buffer is never evicted */
	if (buf->state == RETIRE_BUF_FREE)
		retire_buf_pool_take_locked(ctx, buf, RETIRE_BUF_FREE);
	buf->exports++;
	retire_event_locked(ctx, RETIRE_EV_EXPORT, buf->handle, buf->exports,
			    e->len);
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&ctx->buf_mutex);
	*out = dmabuf;
	return 0;

out_unlock:
	mutex_unlock(&ctx->buf_mutex);
	mutex_destroy(&x->lock);
	kfree(x);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_buf_export);

/**
 * retire_dmabuf_revoke() - take device access to a dma-buf back
 * @ctx:	the context that exported it
 * @dmabuf:	the dma-buf
 * @timeout_ns:	the most to wait for the importers' fences; 0 waits
 *		without bound
 * @importers:	set to the dynamic importers told
 *
 * Under the reservation lock, so that no attachment comes or maps
 * meanwhile: a static importer, which cannot be told, refuses the whole
 * call; otherwise the dma-buf is marked revoked and every importer told.
 * The wait for their fences is outside the lock, and a repeated call
 * waits again.
 *
 * Return: 0 once every fence signalled; -EINVAL for a dma-buf this
 * context did not export; -EBUSY for a static importer; -ETIME when
 * @timeout_ns passed first; -ERESTARTSYS or -EINTR on a signal (the
 * revocation stays).
 */
int retire_dmabuf_revoke(struct retire_ctx *ctx, struct dma_buf *dmabuf,
			 u64 timeout_ns, u32 *importers)
{
	struct retire_export *x = dmabuf->priv;
	unsigned long timeout = MAX_SCHEDULE_TIMEOUT;
	struct dma_buf_attachment *attach;
	u32 told = 0;
	long left;
	int ret;

	if (dmabuf->ops != &retire_export_ops || x->ctx != ctx)
		return -EINVAL;
	ret = dma_resv_lock_interruptible(dmabuf->resv, NULL);
	if (ret)
		return ret;
	list_for_each_entry(attach, &dmabuf->attachments, node) {
		if (!attach->importer_ops) {
			dma_resv_unlock(dmabuf->resv);
			return -EBUSY;
		}
		told++;
	}
	WRITE_ONCE(x->revoked, true);
	dma_buf_move_notify(dmabuf);
	dma_resv_unlock(dmabuf->resv);

	spin_lock_irq(&ctx->lock);
	retire_event_locked(ctx, RETIRE_EV_REVOKE, x->buf->handle, told,
			    dmabuf->size);
	spin_unlock_irq(&ctx->lock);

	if (timeout_ns)
		timeout = clamp_t(u64, nsecs_to_jiffies64(timeout_ns), 1,
				  MAX_SCHEDULE_TIMEOUT - 1);
	left = dma_resv_wait_timeout(dmabuf->resv, DMA_RESV_USAGE_BOOKKEEP,
				     true, timeout);
	if (left < 0)
		return left;
	if (!left)
		return -ETIME;
	*importers = told;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(retire_dmabuf_revoke);

/**
 * retire_buf_revoke() - RETIRE_IOC_BUF_REVOKE: retire_dmabuf_revoke() by fd
 * @ctx:	the context
 * @a:		the checked argument; @a->importers is filled on success
 *
 * Return: as retire_dmabuf_revoke(); -EBADF for no open file; -EINVAL
 * for a file that is no dma-buf.
 */
int retire_buf_revoke(struct retire_ctx *ctx, struct retire_buf_revoke *a)
{
	struct dma_buf *dmabuf = dma_buf_get(a->fd);
	int ret;

	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	ret = retire_dmabuf_revoke(ctx, dmabuf, a->timeout_ns, &a->importers);
	dma_buf_put(dmabuf);
	return ret;
}

/**
 * struct retire_import - another driver's dma-buf, as a buffer
 * @refs:	the buffers that are this import, in any context (under
 *		retire_imports_lock)
 * @node:	on retire_imports
 * @dmabuf:	the dma-buf (a reference)
 * @attach:	its attachment to @dev: a dynamic importer's, so that the
 *		exporter can tell it the buffer moves or is revoked
 * @sgt:	the attachment, mapped once (bidirectional) for all requests;
 *		@attach and @sgt are NULL once @dev's removal detached it
 * @map:	the kernel mapping, for an engine that moves bytes itself
 * @dev:	the device attached (a reference): the engine's DMA device,
 *		or the module's own
 * @lock:	protects @revoked, @active, @fence and @spare; taken under a
 *		context's lock
 * @revoked:	the exporter moved or revoked the dma-buf: no request on it
 *		is admitted again
 * @active:	its requests on a device now, in every context
 * @fence:	after the revocation, while @active: the fence the exporter
 *		waits for (a reference)
 * @spare:	that fence (timeline "revoke"), made with the import so that
 *		move_notify, which cannot fail, need not allocate it
 * @idle:	woken when @active drops to 0
 * @users_lock:	protects @users; taken under the reservation lock, and
 *		takes nothing but a context's lock
 * @users:	the contexts with a buffer that is this import (struct
 *		retire_import_user): what a revocation walks
 */
struct retire_import {
	unsigned int refs;
	struct list_head node;
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct iosys_map map;
	struct device *dev;
	spinlock_t lock;	/* see above */
	bool revoked;
	u32 active;
	struct retire_fence *fence;
	struct retire_fence *spare;
	wait_queue_head_t idle;
	struct mutex users_lock;	/* see above */
	struct list_head users;
};

/* a context with @bufs buffers that are an import */
struct retire_import_user {
	struct list_head node;
	struct retire_ctx *ctx;
	unsigned int bufs;
};

/* @ctx has one more buffer that is @imp; @u is spare room for it */
static void retire_import_user_add(struct retire_import *imp,
				   struct retire_ctx *ctx,
				   struct retire_import_user **u)
{
	struct retire_import_user *it;

	mutex_lock(&imp->users_lock);
	list_for_each_entry(it, &imp->users, node)
		if (it->ctx == ctx) {
			it->bufs++;
			goto out;
		}
	(*u)->ctx = ctx;
	(*u)->bufs = 1;
	list_add(&(*u)->node, &imp->users);
	*u = NULL;
out:
	mutex_unlock(&imp->users_lock);
}

/* @ctx has one buffer less that is @imp */
static void retire_import_user_del(struct retire_import *imp,
				   struct retire_ctx *ctx)
{
	struct retire_import_user *it;

	mutex_lock(&imp->users_lock);
	list_for_each_entry(it, &imp->users, node)
		if (it->ctx == ctx) {
			if (!--it->bufs) {
				list_del(&it->node);
				kfree(it);
			}
			break;
		}
	mutex_unlock(&imp->users_lock);
}

/*
 * One import per dma-buf and device, shared by every buffer that is it:
 * a device maps a dma-buf's pages once, as the DMA API wants (two live
 * bidirectional mappings of a page for one device are an error it
 * reports), however many contexts import it.
 */
static LIST_HEAD(retire_imports);
static DEFINE_MUTEX(retire_imports_lock);

/*
 * The shared import of @dmabuf for @dev, a reference taken; or NULL. A
 * revoked one is not shared: a new import attaches anew, if the exporter
 * lets it.
 */
static struct retire_import *retire_import_find(struct dma_buf *dmabuf,
						struct device *dev)
{
	struct retire_import *imp;

	lockdep_assert_held(&retire_imports_lock);
	list_for_each_entry(imp, &retire_imports, node)
		if (imp->dmabuf == dmabuf && imp->dev == dev &&
		    !READ_ONCE(imp->revoked)) {
			imp->refs++;
			return imp;
		}
	return NULL;
}

/*
 * The exporter moves or revokes the dma-buf (its reservation lock held).
 * retire mapped it once and does not map it again: either ends the
 * import. In order: no request is admitted on it any more (admission
 * reads @revoked under the context's lock, which each walk takes after it
 * is set); the waiting ones are cancelled in every context that has it;
 * then what is still on the device, including a request that started
 * while the walk ran, is covered by the fence, which the exporter waits
 * for.
 */
static void retire_import_move_notify(struct dma_buf_attachment *attach)
{
	struct retire_import *imp = attach->importer_priv;
	struct dma_resv *resv = attach->dmabuf->resv;
	struct retire_import_user *u;
	struct dma_fence *f = NULL;
	u32 cancelled = 0;
	bool first;

	dma_resv_assert_held(resv);
	spin_lock_irq(&imp->lock);
	first = !imp->revoked;
	imp->revoked = true;
	spin_unlock_irq(&imp->lock);
	if (first) {
		mutex_lock(&imp->users_lock);
		list_for_each_entry(u, &imp->users, node)
			cancelled += retire_req_cancel_import(u->ctx, imp);
		mutex_unlock(&imp->users_lock);
	}

	spin_lock_irq(&imp->lock);
	if (imp->active && !imp->fence) {
		imp->fence = imp->spare;
		imp->spare = NULL;
	}
	if (imp->fence)
		f = dma_fence_get(&imp->fence->base);
	trace_move_notify(attach->dmabuf->size, cancelled, imp->active);
	spin_unlock_irq(&imp->lock);
	if (f && !dma_resv_reserve_fences(resv, 1)) {
		dma_resv_add_fence(resv, f, DMA_RESV_USAGE_WRITE);
		dma_fence_put(f);
		return;
	}
	if (f)
		dma_fence_put(f);
	/* no room for a fence: the exporter waits here instead */
	wait_event(imp->idle, !READ_ONCE(imp->active));
}

static const struct dma_buf_attach_ops retire_import_attach_ops = {
	.allow_peer2peer = false,
	.move_notify = retire_import_move_notify,
};

/**
 * retire_import_get() - attach to a dma-buf and map it
 * @fd:		the dma-buf's fd
 * @e:		the context's engine (a reference held): one without a DMA
 *		device moves the bytes with the CPU, so they are mapped for
 *		it too
 * @dev:	the device to attach for
 * @ctx:	the context whose buffer it becomes
 * @out:	the import, for retire_import_put()
 *
 * Return: the dma-buf's size; -EBADF for no open file; -EINVAL for a file
 * that is no dma-buf, or one too large to be a buffer; -EOPNOTSUPP for a
 * CPU engine and a dma-buf with no kernel mapping, or one in I/O memory;
 * -ENODEV for an engine that went (its device's imports are detached);
 * the exporter's error from attaching or mapping (-EBUSY from retire's
 * own export: the buffer is mapped already); -ENOMEM.
 */
s64 retire_import_get(int fd, const struct retire_engine *e,
		      struct device *dev, struct retire_ctx *ctx,
		      struct retire_import **out)
{
	bool cpu = !e->dma_dev;
	struct retire_import_user *u;
	struct retire_import *imp, *found;
	struct sg_table *sgt;
	struct dma_buf *dmabuf;
	int ret;

	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	if (!dmabuf->size || !PAGE_ALIGNED(dmabuf->size) ||
	    dmabuf->size >> PAGE_SHIFT > U32_MAX) {
		dma_buf_put(dmabuf);
		return -EINVAL;
	}
	u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
	imp = kzalloc(sizeof(*imp), GFP_KERNEL_ACCOUNT);
	if (imp)
		imp->spare = retire_fence_new();
	if (!u || !imp || !imp->spare) {
		kfree(imp);
		kfree(u);
		dma_buf_put(dmabuf);
		return -ENOMEM;
	}
	strscpy(imp->spare->timeline, "revoke", sizeof(imp->spare->timeline));
	imp->dmabuf = dmabuf;
	spin_lock_init(&imp->lock);
	init_waitqueue_head(&imp->idle);
	mutex_init(&imp->users_lock);
	INIT_LIST_HEAD(&imp->users);
	/*
	 * The lock is held over the attach: one import is made, not two, and
	 * none after retire_imports_device_gone() has walked the list.
	 */
	mutex_lock(&retire_imports_lock);
	if (READ_ONCE(e->gone)) {
		ret = -ENODEV;
		goto out_put;
	}
	found = retire_import_find(dmabuf, dev);
	if (found) {
		mutex_unlock(&retire_imports_lock);
		retire_fence_discard(imp->spare);
		mutex_destroy(&imp->users_lock);
		dma_buf_put(dmabuf);
		kfree(imp);
		retire_import_user_add(found, ctx, &u);
		kfree(u);
		*out = found;
		return found->dmabuf->size;
	}
	imp->attach = dma_buf_dynamic_attach(imp->dmabuf, dev,
					     &retire_import_attach_ops, imp);
	if (IS_ERR(imp->attach)) {
		ret = PTR_ERR(imp->attach);
		goto out_put;
	}
	sgt = dma_buf_map_attachment_unlocked(imp->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto out_detach;
	}
	imp->sgt = sgt;
	if (cpu) {
		/* an exporter without a kernel mapping: -EINVAL, say why */
		ret = retire_dma_buf_vmap(imp->dmabuf, &imp->map);
		if (ret == -EINVAL)
			ret = -EOPNOTSUPP;
		if (ret)
			goto out_unmap;
		if (imp->map.is_iomem) {
			ret = -EOPNOTSUPP;
			goto out_vunmap;
		}
	}
	imp->dev = get_device(dev);
	imp->refs = 1;
	retire_import_user_add(imp, ctx, &u);
	list_add(&imp->node, &retire_imports);
	mutex_unlock(&retire_imports_lock);
	*out = imp;
	return imp->dmabuf->size;

out_vunmap:
	retire_dma_buf_vunmap(imp->dmabuf, &imp->map);
out_unmap:
	dma_buf_unmap_attachment_unlocked(imp->attach, sgt, DMA_BIDIRECTIONAL);
out_detach:
	dma_buf_detach(imp->dmabuf, imp->attach);
out_put:
	mutex_unlock(&retire_imports_lock);
	retire_fence_discard(imp->spare);
	mutex_destroy(&imp->users_lock);
	dma_buf_put(imp->dmabuf);
	kfree(imp);
	kfree(u);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_import_get);

/* unmap and detach @imp, if its device's removal has not done so */
static void retire_import_detach(struct retire_import *imp)
{
	if (!imp->attach)
		return;
	if (imp->map.vaddr)
		retire_dma_buf_vunmap(imp->dmabuf, &imp->map);
	dma_buf_unmap_attachment_unlocked(imp->attach, imp->sgt,
					  DMA_BIDIRECTIONAL);
	dma_buf_detach(imp->dmabuf, imp->attach);
	imp->attach = NULL;
	imp->sgt = NULL;
}

/**
 * retire_imports_device_gone() - an engine's DMA device is going
 * @dev: the device, its engine unregistered (no job of it left)
 *
 * Its driver may not let the device go with a mapping left behind (the
 * DMA API's debug code reports one), and the exporter should not keep
 * an attachment nobody can use: every import attached to @dev is marked
 * revoked, so no request takes it again (-ENODEV), and unmapped and
 * detached now. Its buffers stay registered until unregistered. Being
 * revoked, it is never shared again: a new import of the dma-buf, for a
 * device probed later (even one at the same address), attaches anew.
 */
void retire_imports_device_gone(struct device *dev)
{
	struct retire_import *imp;

	mutex_lock(&retire_imports_lock);
	list_for_each_entry(imp, &retire_imports, node) {
		if (imp->dev != dev || !imp->attach)
			continue;
		spin_lock_irq(&imp->lock);
		imp->revoked = true;
		spin_unlock_irq(&imp->lock);
		/*
		 * The driver ended every job; a request activated as the
		 * engine went is ended by its start() at once, and may still
		 * be counted for an instant.
		 */
		wait_event(imp->idle, !READ_ONCE(imp->active));
		retire_import_detach(imp);
	}
	mutex_unlock(&retire_imports_lock);
}

/**
 * retire_import_put() - undo retire_import_get()
 * @imp: the import; no request of this buffer uses it any more
 * @ctx: the buffer's context
 *
 * The last buffer that was @imp takes it off the list, then lets it go.
 */
void retire_import_put(struct retire_import *imp, struct retire_ctx *ctx)
{
	retire_import_user_del(imp, ctx);
	mutex_lock(&retire_imports_lock);
	if (--imp->refs) {
		mutex_unlock(&retire_imports_lock);
		return;
	}
	list_del(&imp->node);
	mutex_unlock(&retire_imports_lock);
	/* every request retired: no fence is owed, none pending */
	WARN_ON_ONCE(imp->active || imp->fence || !list_empty(&imp->users));
	retire_fence_discard(imp->spare);
	mutex_destroy(&imp->users_lock);
	retire_import_detach(imp);
	dma_buf_put(imp->dmabuf);
	put_device(imp->dev);
	kfree(imp);
}
EXPORT_SYMBOL_IF_KUNIT(retire_import_put);

/**
 * retire_import_start() - one of the import's requests goes to a device
 * @imp: the import
 *
 * Under the request's context lock.
 */
void retire_import_start(struct retire_import *imp)
{
	spin_lock(&imp->lock);
	imp->active++;
	spin_unlock(&imp->lock);
}

/**
 * retire_import_end() - its terminal event: the device is done with it
 * @imp: the import
 *
 * Under the request's context lock. The last one after a revocation
 * signals the fence the exporter waits for.
 */
void retire_import_end(struct retire_import *imp)
{
	struct retire_fence *f = NULL;

	spin_lock(&imp->lock);
	if (!WARN_ON_ONCE(!imp->active) && !--imp->active) {
		f = imp->fence;
		imp->fence = NULL;
		wake_up_all(&imp->idle);
	}
	spin_unlock(&imp->lock);
	if (f) {
		retire_fence_signal(f, 0);
		dma_fence_put(&f->base);
	}
}

/* the exporter moved or revoked it: it takes no request any more */
bool retire_import_revoked(const struct retire_import *imp)
{
	return READ_ONCE(imp->revoked);
}

/* what an engine gets of an import: its DMA addresses or its mapping */
void retire_import_work(const struct retire_import *imp,
			struct retire_engine_work *w)
{
	if (imp->map.vaddr)
		w->vaddr = imp->map.vaddr;
	else
		w->sgt = imp->sgt;
}

/* the device an import was attached to */
struct device *retire_import_dev(const struct retire_import *imp)
{
	return imp->dev;
}
