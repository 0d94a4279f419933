// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers: pages the module allocates (charged to the caller's memory
 * cgroup, mappable with mmap) or the caller's memory pinned long-term
 * (charged to RLIMIT_MEMLOCK on the caller's mm, uncharged on the same
 * mm). A buffer leaves its context only while FREE.
 *
 * Locking: pages are allocated, pinned and charged before any lock of
 * the context is taken (pinning takes mmap_lock), and released after. The
 * table changes under ctx->buf_mutex and the context lock; mmap() takes
 * ctx->buf_mutex under mmap_lock, so nothing here takes mmap_lock with
 * buf_mutex held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <linux/retire.h>

#include "compat.h"
#include "buf.h"
#include "ctx.h"
#include "stats.h"

/* mmap offsets: slot index + 1 in the upper 32 bits, page-aligned */
#define RETIRE_MMAP_SHIFT	32

/* a buffer's memory, on its way in or out of the table */
struct retire_buf_mem {
	struct page **pages;
	u32 nr_pages;
	struct mm_struct *mm;
	bool user;
	bool dirty;
};

static void retire_buf_mem_free(struct retire_buf_mem *m)
{
	u32 i;

	if (!m->pages)
		return;
	if (m->user) {
		unpin_user_pages_dirty_lock(m->pages, m->nr_pages, m->dirty);
		account_locked_vm(m->mm, m->nr_pages, false);
		mmdrop(m->mm);
	} else {
		for (i = 0; i < m->nr_pages; i++)
			__free_page(m->pages[i]);
	}
	kvfree(m->pages);
	m->pages = NULL;
}

static int retire_buf_mem_alloc(struct retire_buf_mem *m, u32 nr_pages)
{
	u32 i;

	m->pages = kvcalloc(nr_pages, sizeof(*m->pages), GFP_KERNEL_ACCOUNT);
	if (!m->pages)
		return -ENOMEM;
	m->nr_pages = nr_pages;
	for (i = 0; i < nr_pages; i++) {
		m->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!m->pages[i]) {
			m->nr_pages = i;
			retire_buf_mem_free(m);
			return -ENOMEM;
		}
	}
	return 0;
}

static int retire_buf_mem_pin(struct retire_buf_mem *m, u64 addr,
			      u32 nr_pages)
{
	u32 done = 0;
	int ret;

	m->pages = kvcalloc(nr_pages, sizeof(*m->pages), GFP_KERNEL_ACCOUNT);
	if (!m->pages)
		return -ENOMEM;
	/* RLIMIT_MEMLOCK, unless CAP_IPC_LOCK: -ENOMEM when over it */
	ret = account_locked_vm(current->mm, nr_pages, true);
	if (ret)
		goto out_free;
	/* a short pin is not an error: pin the rest until done or failing */
	while (done < nr_pages) {
		ret = pin_user_pages_fast(addr + ((u64)done << PAGE_SHIFT),
					  nr_pages - done,
					  FOLL_WRITE | FOLL_LONGTERM,
					  m->pages + done);
		if (ret <= 0) {
			ret = ret ?: -EFAULT;
			goto out_unpin;
		}
		done += ret;
	}
	m->nr_pages = nr_pages;
	m->mm = current->mm;
	mmgrab(m->mm);
	return 0;

out_unpin:
	if (done)
		unpin_user_pages(m->pages, done);
	account_locked_vm(current->mm, nr_pages, false);
out_free:
	kvfree(m->pages);
	m->pages = NULL;
	return ret;
}

static int retire_buf_reg_check(const struct retire_buf_reg *reg)
{
	if (reg->flags & ~RETIRE_BUF_F_ALL || reg->evicted ||
	    memchr_inv(reg->reserved, 0, sizeof(reg->reserved)))
		return -EINVAL;
	if (!reg->len || !PAGE_ALIGNED(reg->len) ||
	    reg->len >> PAGE_SHIFT > U32_MAX)
		return -EINVAL;
	if (reg->flags & RETIRE_BUF_F_USER) {
		if (!reg->addr || !PAGE_ALIGNED(reg->addr))
			return -EINVAL;
	} else if (reg->addr) {
		return -EINVAL;
	}
	return 0;
}

/* bytes the pool could give back: every FREE module-allocated buffer */
static u64 retire_pool_reclaimable_locked(struct retire_ctx *ctx)
{
	u64 bytes = 0;
	u32 idx;

	lockdep_assert_held(&ctx->lock);
	for (idx = 0; idx < ctx->bufs.nr; idx++) {
		struct retire_buf *b = retire_slot_get(&ctx->bufs, idx);

		if (b->slot.live && !b->user && b->state == RETIRE_BUF_FREE)
			bytes += b->len;
	}
	return bytes;
}

/* take a FREE buffer out of the table; its memory goes to @m */
static void retire_buf_remove_locked(struct retire_ctx *ctx,
				     struct retire_buf *buf,
				     struct retire_buf_mem *m)
{
	lockdep_assert_held(&ctx->lock);
	*m = (struct retire_buf_mem) {
		.pages = buf->pages,
		.nr_pages = buf->nr_pages,
		.mm = buf->mm,
		.user = buf->user,
		.dirty = buf->dev_wrote,
	};
	retire_stat_add(&ctx->stats, RETIRE_ST_BUFFERS, -1);
	retire_stat_add(&ctx->stats, buf->user ? RETIRE_ST_PINNED_BYTES :
						 RETIRE_ST_POOL_BYTES,
			-(s64)buf->len);
	buf->pages = NULL;
	buf->mm = NULL;
	retire_slot_kill_locked(&ctx->bufs, &buf->slot);
	retire_slot_release_locked(&ctx->bufs, &buf->slot,
				   retire_handle_slot(buf->handle));
}

/*
 * Evict least-recently-used FREE module buffers until @need bytes are
 * back, all or nothing: the reclaimable bytes are counted first, and if
 * they do not suffice nothing is touched. Attached, held (borrowed) and
 * quarantined buffers are never candidates. Their memory lands in @out
 * (room for every buffer), freed by the caller outside the lock.
 */
static int retire_pool_evict_locked(struct retire_ctx *ctx, u64 need,
				    struct retire_buf_mem *out, u32 *nr_out)
{
	u32 idx, n = 0;

	lockdep_assert_held(&ctx->lock);
	if (retire_pool_reclaimable_locked(ctx) < need)
		return -ENOSPC;
	while (need) {
		struct retire_buf *lru = NULL;

		for (idx = 0; idx < ctx->bufs.nr; idx++) {
			struct retire_buf *b = retire_slot_get(&ctx->bufs, idx);

			if (b->slot.live && !b->user &&
			    b->state == RETIRE_BUF_FREE &&
			    (!lru || b->last_used < lru->last_used))
				lru = b;
		}
		if (WARN_ON_ONCE(!lru))
			break;
		need -= min(need, lru->len);
		retire_buf_remove_locked(ctx, lru, &out[n++]);
		retire_stat_inc(&ctx->stats, RETIRE_ST_EVICTED);
	}
	*nr_out = n;
	return 0;
}

/* bytes over the pool's budget if @len more were registered */
static u64 retire_pool_excess_locked(struct retire_ctx *ctx, u64 len)
{
	u64 used = ctx->stats.v[RETIRE_ST_POOL_BYTES] + len;

	lockdep_assert_held(&ctx->lock);
	return used > ctx->limits.max_pool_bytes ?
	       used - ctx->limits.max_pool_bytes : 0;
}

/**
 * retire_buf_register() - register a buffer with a context
 * @ctx:	the context
 * @reg:	the caller's request; @reg->handle, @reg->mmap_offset and
 *		@reg->evicted are filled on success
 *
 * A module-allocated buffer past the pool's budget first evicts least
 * recently used FREE module buffers (see retire_pool_evict_locked()).
 *
 * Return: 0; -EINVAL for a bad argument; -EFAULT if user memory cannot be
 * pinned; -ENOMEM (also over RLIMIT_MEMLOCK); -EDQUOT over the context's
 * pinned-bytes limit; -ENOSPC when even eviction cannot fit it in the
 * pool; -EMFILE when the context holds max_buffers. Each bound refusal is
 * counted and changes nothing else.
 */
int retire_buf_register(struct retire_ctx *ctx, struct retire_buf_reg *reg)
{
	bool user = reg->flags & RETIRE_BUF_F_USER;
	struct retire_buf_mem m = {}, *evict = NULL;
	u32 nr_evict = 0, i, nr_pages;
	struct retire_buf *buf;
	u64 handle;
	int ret;

	ret = retire_buf_reg_check(reg);
	if (ret)
		return ret;
	nr_pages = reg->len >> PAGE_SHIFT;

	if (user) {
		spin_lock_irq(&ctx->lock);
		ret = ctx->stats.v[RETIRE_ST_PINNED_BYTES] + reg->len >
		      ctx->limits.max_pinned_bytes ? -EDQUOT : 0;
		spin_unlock_irq(&ctx->lock);
		if (!ret)
			ret = retire_buf_mem_pin(&m, reg->addr, nr_pages);
	} else {
		ret = retire_buf_mem_alloc(&m, nr_pages);
	}
	if (ret == -EDQUOT) {
		spin_lock_irq(&ctx->lock);
		retire_stat_inc(&ctx->stats, RETIRE_ST_REFUSED_PINNED);
		spin_unlock_irq(&ctx->lock);
	}
	if (ret)
		return ret;

	mutex_lock(&ctx->buf_mutex);
	ret = retire_slot_reserve(&ctx->bufs, &ctx->lock, NULL);
	if (!ret && !user) {
		/* room to hand back every buffer, allocated before the lock */
		evict = kvcalloc(ctx->limits.max_buffers, sizeof(*evict),
				 GFP_KERNEL);
		if (!evict)
			ret = -ENOMEM;
	}
	spin_lock_irq(&ctx->lock);
	if (ret)
		goto out_unlock;
	if (ctx->stats.v[RETIRE_ST_BUFFERS] >= ctx->limits.max_buffers) {
		retire_stat_inc(&ctx->stats, RETIRE_ST_REFUSED_BUFFERS);
		ret = -EMFILE;
		goto out_unlock;
	}
	if (user && ctx->stats.v[RETIRE_ST_PINNED_BYTES] + reg->len >
		    ctx->limits.max_pinned_bytes) {
		retire_stat_inc(&ctx->stats, RETIRE_ST_REFUSED_PINNED);
		ret = -EDQUOT;
		goto out_unlock;
	}
	if (!user && retire_pool_excess_locked(ctx, reg->len)) {
		ret = retire_pool_evict_locked(ctx,
					       retire_pool_excess_locked(ctx, reg->len),
					       evict, &nr_evict);
		if (ret) {
			retire_stat_inc(&ctx->stats, RETIRE_ST_REFUSED_POOL);
			goto out_unlock;
		}
	}
	buf = retire_slot_alloc_locked(&ctx->bufs, &handle);
	if (WARN_ON_ONCE(!buf)) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	buf->handle = handle;
	buf->len = reg->len;
	buf->nr_pages = nr_pages;
	buf->state = RETIRE_BUF_FREE;
	buf->user = user;
	buf->dev_wrote = false;
	buf->pages = m.pages;
	buf->mm = m.mm;
	buf->last_used = ++ctx->lru_tick;
	retire_stat_inc(&ctx->stats, RETIRE_ST_BUFFERS);
	retire_stat_add(&ctx->stats, user ? RETIRE_ST_PINNED_BYTES :
					    RETIRE_ST_POOL_BYTES, reg->len);
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&ctx->buf_mutex);

	for (i = 0; i < nr_evict; i++)
		retire_buf_mem_free(&evict[i]);
	kvfree(evict);
	reg->handle = handle;
	reg->evicted = nr_evict;
	reg->mmap_offset = user ? 0 :
		(u64)(retire_handle_slot(handle) + 1) << RETIRE_MMAP_SHIFT;
	return 0;

out_unlock:
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&ctx->buf_mutex);
	kvfree(evict);
	m.user = user;
	retire_buf_mem_free(&m);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_buf_register);

/**
 * retire_buf_unregister() - take a FREE buffer out of its context
 * @ctx:	the context
 * @handle:	the buffer's handle
 *
 * Return: 0; -ENOENT for a stale or foreign handle (counted); -EBUSY if a
 * request still holds the buffer (nothing changes).
 */
int retire_buf_unregister(struct retire_ctx *ctx, u64 handle)
{
	struct retire_buf_mem m;
	struct retire_buf *buf;
	int ret = 0;

	mutex_lock(&ctx->buf_mutex);
	spin_lock_irq(&ctx->lock);
	buf = retire_slot_lookup_locked(&ctx->bufs, handle);
	if (!buf) {
		retire_ctx_stale_locked(ctx, RETIRE_ST_STALE_USER);
		ret = -ENOENT;
	} else if (buf->state != RETIRE_BUF_FREE) {
		/* attached, held or quarantined: still in someone's hands */
		ret = -EBUSY;
	} else {
		retire_buf_remove_locked(ctx, buf, &m);
	}
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&ctx->buf_mutex);

	/* mappings keep their own page references */
	if (!ret)
		retire_buf_mem_free(&m);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_buf_unregister);

/**
 * retire_buf_mmap() - map a module-allocated buffer
 * @ctx:	the context
 * @vma:	MAP_SHARED, at the buffer's mmap offset, no longer than it
 *
 * Return: 0 or -EINVAL.
 */
int retire_buf_mmap(struct retire_ctx *ctx, struct vm_area_struct *vma)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned long len = vma->vm_end - vma->vm_start;
	u32 idx = (off >> RETIRE_MMAP_SHIFT) - 1;
	struct retire_buf *buf = NULL;
	unsigned long i;
	int ret = 0;

	if (!(vma->vm_flags & VM_SHARED) ||
	    off & (BIT_ULL(RETIRE_MMAP_SHIFT) - 1) || !(off >> RETIRE_MMAP_SHIFT))
		return -EINVAL;

	mutex_lock(&ctx->buf_mutex);
	spin_lock_irq(&ctx->lock);
	if (idx < ctx->bufs.nr) {
		buf = retire_slot_get(&ctx->bufs, idx);
		if (!buf->slot.live || buf->user || len > buf->len)
			buf = NULL;
	}
	spin_unlock_irq(&ctx->lock);
	if (!buf) {
		mutex_unlock(&ctx->buf_mutex);
		return -EINVAL;
	}
	/* buf_mutex keeps the buffer registered while its pages go in */
	retire_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (i = 0; i < len >> PAGE_SHIFT && !ret; i++)
		ret = vm_insert_page(vma, vma->vm_start + (i << PAGE_SHIFT),
				     buf->pages[i]);
	mutex_unlock(&ctx->buf_mutex);
	return ret;
}

/**
 * retire_buf_destroy_all() - release every buffer of a dying context
 * @ctx: the context; nothing else refers to it any more
 */
void retire_buf_destroy_all(struct retire_ctx *ctx)
{
	struct retire_buf_mem m;
	u32 idx;

	for (idx = 0; idx < ctx->bufs.nr; idx++) {
		struct retire_buf *buf = retire_slot_get(&ctx->bufs, idx);

		if (!buf->slot.live)
			continue;
		WARN_ON_ONCE(buf->state != RETIRE_BUF_FREE);
		spin_lock_irq(&ctx->lock);
		retire_buf_remove_locked(ctx, buf, &m);
		spin_unlock_irq(&ctx->lock);
		retire_buf_mem_free(&m);
	}
}
