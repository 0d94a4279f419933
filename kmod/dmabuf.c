// SPDX-License-Identifier: GPL-2.0
/*
 * dma-buf export: a range of a module-allocated buffer as a dma-buf, so
 * that another driver can attach to the pages a retire request uses
 * (Documentation/interop.rst). The dma-buf holds its context and the
 * module; the buffer counts its live exports and, while it has any, is
 * neither unregistered nor evicted (off the pool's LRU), though requests
 * may still use it. Importers map it through the DMA API; the CPU reaches
 * it through mmap() of the dma-buf, bracketed by DMA_BUF_IOCTL_SYNC.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include <linux/retire.h>

#include "buf.h"
#include "compat.h"
#include "ctx.h"
#include "dmabuf.h"

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
