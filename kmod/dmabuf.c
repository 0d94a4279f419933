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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <linux/retire.h>
#include <linux/retire_engine.h>

#include "buf.h"
#include "compat.h"
#include "ctx.h"
#include "dmabuf.h"
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
 */
struct retire_export {
	struct retire_ctx *ctx;
	struct retire_buf *buf;
	struct page **pages;
	u32 nr_pages;
	struct mutex lock;	/* protects @maps */
	struct list_head maps;
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

static struct sg_table *retire_export_map(struct dma_buf_attachment *attach,
					  enum dma_data_direction dir)
{
	struct retire_export *x = attach->dmabuf->priv;
	struct retire_export_map *m;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table_from_pages(&m->sgt, x->pages, x->nr_pages, 0,
					(unsigned long)x->nr_pages << PAGE_SHIFT,
					GFP_KERNEL);
	if (ret)
		goto out_free;
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

/* a kernel mapping of the range, for an importer that moves bytes itself */
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
 * struct retire_import - another driver's dma-buf, as a buffer
 * @refs:	the buffers that are this import, in any context (under
 *		retire_imports_lock)
 * @node:	on retire_imports
 * @dmabuf:	the dma-buf (a reference)
 * @attach:	its attachment to @dev: a static importer's, so the exporter
 *		keeps the memory where it is (pinned) while it lives
 * @sgt:	the attachment, mapped once (bidirectional) for all requests
 * @map:	the kernel mapping, for an engine that moves bytes itself
 * @dev:	the device attached (a reference): the engine's DMA device,
 *		or the module's own
 */
struct retire_import {
	unsigned int refs;
	struct list_head node;
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct iosys_map map;
	struct device *dev;
};

/*
 * One import per dma-buf and device, shared by every buffer that is it:
 * a device maps a dma-buf's pages once, as the DMA API wants (two live
 * bidirectional mappings of a page for one device are an error it
 * reports), however many contexts import it.
 */
static LIST_HEAD(retire_imports);
static DEFINE_MUTEX(retire_imports_lock);

/* the shared import of @dmabuf for @dev, a reference taken; or NULL */
static struct retire_import *retire_import_find(struct dma_buf *dmabuf,
						struct device *dev)
{
	struct retire_import *imp;

	lockdep_assert_held(&retire_imports_lock);
	list_for_each_entry(imp, &retire_imports, node)
		if (imp->dmabuf == dmabuf && imp->dev == dev) {
			imp->refs++;
			return imp;
		}
	return NULL;
}

/**
 * retire_import_get() - attach to a dma-buf and map it
 * @fd:		the dma-buf's fd
 * @dev:	the device to attach for
 * @cpu:	the engine moves the bytes with the CPU: map them for it too
 * @out:	the import, for retire_import_put()
 *
 * Return: the dma-buf's size; -EBADF for no open file; -EINVAL for a file
 * that is no dma-buf, or one too large to be a buffer; -EOPNOTSUPP for a
 * CPU engine and a dma-buf with no kernel mapping, or one in I/O memory;
 * the exporter's error from attaching or mapping; -ENOMEM.
 */
s64 retire_import_get(int fd, struct device *dev, bool cpu,
		      struct retire_import **out)
{
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
	imp = kzalloc(sizeof(*imp), GFP_KERNEL_ACCOUNT);
	if (!imp) {
		dma_buf_put(dmabuf);
		return -ENOMEM;
	}
	imp->dmabuf = dmabuf;
	/* the lock is held over the attach: one import is made, not two */
	mutex_lock(&retire_imports_lock);
	found = retire_import_find(dmabuf, dev);
	if (found) {
		mutex_unlock(&retire_imports_lock);
		dma_buf_put(dmabuf);
		kfree(imp);
		*out = found;
		return found->dmabuf->size;
	}
	imp->attach = dma_buf_attach(imp->dmabuf, dev);
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
	dma_buf_put(imp->dmabuf);
	kfree(imp);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_import_get);

/**
 * retire_import_put() - undo retire_import_get()
 * @imp: the import; no request of this buffer uses it any more
 *
 * The last buffer that was @imp takes it off the list, then lets it go.
 */
void retire_import_put(struct retire_import *imp)
{
	mutex_lock(&retire_imports_lock);
	if (--imp->refs) {
		mutex_unlock(&retire_imports_lock);
		return;
	}
	list_del(&imp->node);
	mutex_unlock(&retire_imports_lock);
	if (imp->map.vaddr)
		retire_dma_buf_vunmap(imp->dmabuf, &imp->map);
	dma_buf_unmap_attachment_unlocked(imp->attach, imp->sgt,
					  DMA_BIDIRECTIONAL);
	dma_buf_detach(imp->dmabuf, imp->attach);
	dma_buf_put(imp->dmabuf);
	put_device(imp->dev);
	kfree(imp);
}
EXPORT_SYMBOL_IF_KUNIT(retire_import_put);

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
