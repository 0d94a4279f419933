// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers: pages the module allocates (charged to the caller's memory
 * cgroup, mappable with mmap) or the caller's memory pinned long-term. As
 * io_uring does, both are charged to the registering *user*
 * (user->locked_vm against RLIMIT_MEMLOCK, unless CAP_IPC_LOCK), not to
 * one mm or one context: a fork, an exec or another context starts no
 * fresh allowance, and the charge lives exactly as long as the memory,
 * through a context's drain after close() too. The registering mm's
 * pinned_vm (VmPin) shows pinned pages too. A buffer leaves its context
 * only while FREE.
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
#include <linux/refcount.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <linux/retire.h>
#include <linux/retire_engine.h>

#include "compat.h"
#include "buf.h"
#include "chardev.h"
#include "ctx.h"
#include "dmabuf.h"
#include "history.h"
#include "stats.h"

/*
 * mmap offsets name one incarnation of a buffer: the slot index + 1 above
 * the low RETIRE_MMAP_GEN_BITS bits of its generation, page-aligned. Buffer
 * slots are exhausted when their generation reaches RETIRE_MMAP_GEN_MAX,
 * so an offset, like a handle, never names a later buffer. The largest
 * offset stays below 2^62, within a character device's MAX_LFS_FILESIZE.
 */
#define RETIRE_MMAP_GEN_BITS	25
#define RETIRE_MMAP_GEN_MAX	((u32)BIT(RETIRE_MMAP_GEN_BITS) - 1)
#define RETIRE_MMAP_SLOT_SHIFT	(PAGE_SHIFT + RETIRE_MMAP_GEN_BITS)

static_assert(RETIRE_MMAP_SLOT_SHIFT + 25 <= 62);

static u64 retire_buf_mmap_offset(u64 handle)
{
	return (u64)(retire_handle_slot(handle) + 1) << RETIRE_MMAP_SLOT_SHIFT |
	       (u64)retire_handle_gen(handle) << PAGE_SHIFT;
}

/* the buffer handle an mmap offset names, or 0 if it names none */
static u64 retire_buf_mmap_handle(u64 off)
{
	u64 slot = off >> RETIRE_MMAP_SLOT_SHIFT;

	if (!slot || slot > RETIRE_SLOT_MAX || !PAGE_ALIGNED(off))
		return 0;
	return retire_handle_make(RETIRE_KIND_BUF, slot - 1,
				  (off >> PAGE_SHIFT) & RETIRE_MMAP_GEN_MAX);
}

/* a buffer's memory, on its way in or out of the table */
struct retire_buf_mem {
	struct page **pages;
	u32 nr_pages;
	struct mm_struct *mm;
	struct user_struct *charged;
	struct retire_import *import;
	struct retire_buf_vm *vm;
	struct retire_ctx *ctx;
	bool user;
	bool dirty;
};

/**
 * retire_memlock_charge() - charge memory the caller makes the module hold
 * @nr:	pages: of a module buffer, pinned user memory, or rings
 *
 * Every page of buffer and ring memory a user makes the module hold is
 * charged to that user's locked_vm against RLIMIT_MEMLOCK, across all of
 * its contexts and processes, as io_uring charges its rings and registered
 * buffers: a user cannot make the module hold more than it may lock.
 * CAP_IPC_LOCK is exempt, and then nobody is charged.
 *
 * Return: the user charged (a reference, for retire_memlock_uncharge()),
 * NULL for an exempt caller, or ERR_PTR(-ENOMEM) past the limit (nothing
 * charged).
 */
struct user_struct *retire_memlock_charge(unsigned long nr)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct user_struct *user;
	unsigned long cur, next;

	if (capable(CAP_IPC_LOCK))
		return NULL;
	user = get_uid(current_user());
	cur = atomic_long_read(&user->locked_vm);
	do {
		if (check_add_overflow(cur, nr, &next) || next > limit) {
			free_uid(user);
			return ERR_PTR(-ENOMEM);
		}
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, next));
	return user;
}

/**
 * retire_memlock_uncharge() - undo retire_memlock_charge()
 * @user:	what it returned (NULL: nothing to undo)
 * @nr:		the pages it charged
 */
void retire_memlock_uncharge(struct user_struct *user, unsigned long nr)
{
	if (!user)
		return;
	atomic_long_sub(nr, &user->locked_vm);
	free_uid(user);
}

/*
 * Charge @nr pinned pages to the caller's user (retire_memlock_charge()),
 * and show them in the caller's VmPin.
 */
static int retire_buf_charge(struct retire_buf_mem *m, u32 nr)
{
	struct user_struct *user = retire_memlock_charge(nr);

	if (IS_ERR(user))
		return PTR_ERR(user);
	m->charged = user;
	m->mm = current->mm;
	mmgrab(m->mm);
	atomic64_add(nr, &m->mm->pinned_vm);
	return 0;
}

static void retire_buf_uncharge(struct retire_buf_mem *m, u32 nr)
{
	atomic64_sub(nr, &m->mm->pinned_vm);
	mmdrop(m->mm);
	m->mm = NULL;
	retire_memlock_uncharge(m->charged, nr);
	m->charged = NULL;
}

/*
 * struct retire_buf_vm - a mapped module buffer's memory
 * @ref:	the buffer's reference, until it leaves its context, and
 *		one for each VMA that maps it
 * @pages:	the pages, and the array of them
 * @nr_pages:	how many
 * @charged:	the user they are charged to (NULL: nobody)
 *
 * A mapping holds the pages it maps, so it holds them past the buffer's
 * unregistration or eviction: their charge against RLIMIT_MEMLOCK must
 * last as long, or a user could keep any amount of unswappable memory by
 * mapping buffers and letting them go. So a buffer's first mmap() hands
 * its memory to this object, and the last of the buffer and its VMAs
 * frees the pages and uncharges them.
 */
struct retire_buf_vm {
	refcount_t ref;
	struct page **pages;
	u32 nr_pages;
	struct user_struct *charged;
};

static void retire_buf_vm_put(struct retire_buf_vm *vm)
{
	u32 i;

	if (!refcount_dec_and_test(&vm->ref))
		return;
	for (i = 0; i < vm->nr_pages; i++)
		__free_page(vm->pages[i]);
	retire_memlock_uncharge(vm->charged, vm->nr_pages);
	kvfree(vm->pages);
	kfree(vm);
}

static void retire_buf_vm_open(struct vm_area_struct *vma)
{
	struct retire_buf_vm *vm = vma->vm_private_data;

	refcount_inc(&vm->ref);
}

static void retire_buf_vm_close(struct vm_area_struct *vma)
{
	retire_buf_vm_put(vma->vm_private_data);
}

/* a fork, a split or a move of a mapping holds the memory once more */
static const struct vm_operations_struct retire_buf_vm_ops = {
	.open	= retire_buf_vm_open,
	.close	= retire_buf_vm_close,
};

static void retire_buf_mem_free(struct retire_buf_mem *m)
{
	u32 i;

	if (m->vm) {
		/* the pages are the mappings' too: the last one frees them */
		retire_buf_vm_put(m->vm);
		m->vm = NULL;
		m->pages = NULL;
		m->charged = NULL;
		return;
	}
	if (m->import) {
		retire_import_put(m->import, m->ctx);
		m->import = NULL;
		retire_buf_uncharge(m, m->nr_pages);
		return;
	}
	if (!m->pages)
		return;
	if (m->user) {
		unpin_user_pages_dirty_lock(m->pages, m->nr_pages, m->dirty);
		retire_buf_uncharge(m, m->nr_pages);
	} else {
		for (i = 0; i < m->nr_pages; i++)
			__free_page(m->pages[i]);
		retire_memlock_uncharge(m->charged, m->nr_pages);
		m->charged = NULL;
	}
	kvfree(m->pages);
	m->pages = NULL;
}

/*
 * The page array of a buffer whose length was checked against its budget
 * (so it is small); no warning for a size the checks should have refused.
 */
static int retire_buf_mem_pages(struct retire_buf_mem *m, u32 nr_pages)
{
	m->pages = kvcalloc(nr_pages, sizeof(*m->pages),
			    GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	return m->pages ? 0 : -ENOMEM;
}

/*
 * pages of a module buffer, charged to the caller's RLIMIT_MEMLOCK first
 * (-ENOMEM past it, nothing allocated); a fatal signal ends the
 * allocation early
 */
static int retire_buf_mem_alloc(struct retire_buf_mem *m, u32 nr_pages)
{
	struct user_struct *user;
	u32 i;
	int ret;

	user = retire_memlock_charge(nr_pages);
	if (IS_ERR(user))
		return PTR_ERR(user);
	ret = retire_buf_mem_pages(m, nr_pages);
	if (ret) {
		retire_memlock_uncharge(user, nr_pages);
		return ret;
	}
	m->charged = user;
	m->nr_pages = nr_pages;
	for (i = 0; i < nr_pages; i++) {
		m->pages[i] = NULL;
		if (fatal_signal_pending(current))
			ret = -EINTR;
		else
			m->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!ret && !m->pages[i])
			ret = -ENOMEM;
		if (ret) {
			/* the charge was for all of them: undone whole */
			m->charged = NULL;
			m->nr_pages = i;
			retire_buf_mem_free(m);
			retire_memlock_uncharge(user, nr_pages);
			return ret;
		}
		cond_resched();
	}
	return 0;
}

static int retire_buf_mem_pin(struct retire_buf_mem *m, u64 addr,
			      u32 nr_pages)
{
	u32 done = 0;
	int ret;

	ret = retire_buf_mem_pages(m, nr_pages);
	if (ret)
		return ret;
	/* over RLIMIT_MEMLOCK: -ENOMEM, as mlock() says it */
	ret = retire_buf_charge(m, nr_pages);
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
		if (done < nr_pages && fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out_unpin;
		}
	}
	m->nr_pages = nr_pages;
	return 0;

out_unpin:
	if (done)
		unpin_user_pages(m->pages, done);
	retire_buf_uncharge(m, nr_pages);
out_free:
	kvfree(m->pages);
	m->pages = NULL;
	return ret;
}

/**
 * retire_buf_table_init() - the buffer slots of a new context
 * @ctx: the context; its limits are set
 *
 * Return: 0 or -ENOMEM.
 */
int retire_buf_table_init(struct retire_ctx *ctx)
{
	int ret;

	ret = retire_slot_table_init(&ctx->bufs, RETIRE_KIND_BUF,
				     sizeof(struct retire_buf),
				     ctx->limits.max_buffers, NULL, NULL, NULL,
				     &ctx->lock);
	/* mmap offsets carry RETIRE_MMAP_GEN_BITS of the generation */
	ctx->bufs.gen_max = RETIRE_MMAP_GEN_MAX;
	return ret;
}

/* the argument alone, before any bound is asked: nothing is counted */
static int retire_buf_reg_check(const struct retire_buf_reg *reg)
{
	u64 end;

	if (reg->flags & ~RETIRE_BUF_F_ALL ||
	    memchr_inv(reg->reserved, 0, sizeof(reg->reserved)))
		return -EINVAL;
	if (!reg->len || !PAGE_ALIGNED(reg->len) ||
	    reg->len >> PAGE_SHIFT > U32_MAX)
		return -EINVAL;
	if (reg->flags & RETIRE_BUF_F_USER) {
		/*
		 * A range that wraps past the top of the address space is
		 * no range; gup would refuse it too late, after the bound
		 * was asked, and with an errno that differs by kernel.
		 */
		if (!reg->addr || !PAGE_ALIGNED(reg->addr) ||
		    check_add_overflow(reg->addr, reg->len, &end))
			return -EINVAL;
	} else if (reg->addr) {
		return -EINVAL;
	}
	return 0;
}

/* bytes the pool could give back: every FREE module-allocated buffer */
static u64 retire_pool_reclaimable_locked(struct retire_ctx *ctx)
{
	lockdep_assert_held(&ctx->lock);
	return ctx->pool_free_bytes;
}

/* take a FREE buffer out of the table; its memory goes to @m */
static void retire_buf_remove_locked(struct retire_ctx *ctx,
				     struct retire_buf *buf,
				     struct retire_buf_mem *m)
{
	lockdep_assert_held(&ctx->lock);
	retire_buf_pool_take_locked(ctx, buf, RETIRE_BUF_FREE);
	*m = (struct retire_buf_mem) {
		.pages = buf->pages,
		.nr_pages = buf->nr_pages,
		.mm = buf->mm,
		.charged = buf->charged,
		.import = buf->import,
		.vm = buf->vm,
		.ctx = ctx,
		.user = buf->user,
		.dirty = buf->dev_wrote,
	};
	retire_stat_add(&ctx->stats, RETIRE_ST_BUFFERS, -1);
	retire_stat_add(&ctx->stats, buf->user ? RETIRE_ST_PINNED_BYTES :
						 RETIRE_ST_POOL_BYTES,
			-(s64)buf->len);
	buf->pages = NULL;
	buf->mm = NULL;
	buf->charged = NULL;
	buf->import = NULL;
	buf->vm = NULL;
	retire_slot_kill_locked(&ctx->bufs, &buf->slot);
	retire_slot_release_locked(&ctx->bufs, &buf->slot,
				   retire_handle_slot(buf->handle));
}

/* how many buffers from the head of the pool's LRU give back @need bytes */
static u32 retire_pool_evict_count_locked(struct retire_ctx *ctx, u64 need)
{
	struct retire_buf *b;
	u32 n = 0;

	lockdep_assert_held(&ctx->lock);
	list_for_each_entry(b, &ctx->pool_lru, lru) {
		if (!need)
			break;
		need -= min(need, b->len);
		n++;
	}
	return n;
}

/*
 * Evict least-recently-used FREE module buffers until @need bytes are
 * back, all or nothing: the reclaimable bytes are counted first, and if
 * they do not suffice nothing is touched. Attached, held (borrowed) and
 * quarantined buffers are never candidates: they are not on the LRU. Their
 * memory lands in @out, room for retire_pool_evict_count_locked() of
 * them, freed by the caller outside the lock. Each eviction is O(1).
 */
static int retire_pool_evict_locked(struct retire_ctx *ctx, u64 need,
				    struct retire_buf_mem *out, u32 *nr_out)
{
	struct retire_buf *lru;
	u32 n = 0;

	lockdep_assert_held(&ctx->lock);
	if (retire_pool_reclaimable_locked(ctx) < need)
		return -ENOSPC;
	while (need) {
		lru = list_first_entry_or_null(&ctx->pool_lru,
					       struct retire_buf, lru);
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

/*
 * May a buffer of @len bytes join the context? Every bound that refuses is
 * counted; for the pool, what eviction could give back counts as room.
 */
static int retire_buf_bounds_locked(struct retire_ctx *ctx, bool user,
				    u64 len)
{
	const u64 *v = ctx->stats.v;
	u64 excess;

	lockdep_assert_held(&ctx->lock);
	if (v[RETIRE_ST_BUFFERS] >= ctx->limits.max_buffers) {
		retire_stat_inc(&ctx->stats, RETIRE_ST_REFUSED_BUFFERS);
		return -EMFILE;
	}
	if (user) {
		if (len > ctx->limits.max_pinned_bytes ||
		    v[RETIRE_ST_PINNED_BYTES] + len >
		    ctx->limits.max_pinned_bytes) {
			retire_stat_inc(&ctx->stats, RETIRE_ST_REFUSED_PINNED);
			return -EDQUOT;
		}
		return 0;
	}
	excess = len > ctx->limits.max_pool_bytes ? U64_MAX :
		 retire_pool_excess_locked(ctx, len);
	if (excess && retire_pool_reclaimable_locked(ctx) < excess) {
		retire_stat_inc(&ctx->stats, RETIRE_ST_REFUSED_POOL);
		return -ENOSPC;
	}
	return 0;
}

/*
 * Put @m, @len bytes of memory allocated, pinned or imported and charged,
 * in the context as a FREE buffer, once the bounds hold again: the
 * context may have changed while the memory came in. A module buffer past
 * the pool's budget first evicts least recently used FREE module buffers
 * (retire_pool_evict_locked()). On failure @m is freed.
 */
static int retire_buf_add(struct retire_ctx *ctx, struct retire_buf_mem *m,
			  u64 len, u64 *handle, u32 *evicted)
{
	struct retire_buf_mem *evict = NULL;
	u32 nr_evict = 0, room = 0, nr, i;
	bool user = m->user;
	struct retire_buf *buf;
	u64 excess;
	int ret;

	mutex_lock(&ctx->buf_mutex);
	ret = retire_slot_reserve(&ctx->bufs, 1);
	for (;;) {
		spin_lock_irq(&ctx->lock);
		if (ret)
			goto out_unlock;
		ret = retire_buf_bounds_locked(ctx, user, len);
		if (ret)
			goto out_unlock;
		excess = user ? 0 : retire_pool_excess_locked(ctx, len);
		if (!excess)
			break;
		/*
		 * Room for the memory of what is evicted, allocated outside
		 * the lock: as many as the eviction takes, not as many as the
		 * context may hold. A buffer that came back to the pool
		 * meanwhile may change the count: then once more.
		 */
		nr = retire_pool_evict_count_locked(ctx, excess);
		if (nr <= room) {
			ret = retire_pool_evict_locked(ctx, excess, evict,
						       &nr_evict);
			if (WARN_ON_ONCE(ret))
				goto out_unlock;
			break;
		}
		spin_unlock_irq(&ctx->lock);
		kvfree(evict);
		evict = kvcalloc(nr, sizeof(*evict), GFP_KERNEL);
		room = evict ? nr : 0;
		ret = evict ? 0 : -ENOMEM;
	}
	buf = retire_slot_alloc_locked(&ctx->bufs, handle);
	if (WARN_ON_ONCE(!buf)) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	buf->handle = *handle;
	buf->len = len;
	buf->nr_pages = m->nr_pages;
	buf->user = user;
	buf->dev_wrote = false;
	buf->exports = 0;
	buf->dev_maps = 0;
	buf->pages = m->pages;
	buf->mm = m->mm;
	buf->charged = m->charged;
	buf->import = m->import;
	buf->vm = NULL;
	retire_buf_pool_put_locked(ctx, buf);
	retire_stat_inc(&ctx->stats, RETIRE_ST_BUFFERS);
	retire_stat_add(&ctx->stats, user ? RETIRE_ST_PINNED_BYTES :
					    RETIRE_ST_POOL_BYTES, len);
	if (m->import)
		retire_event_locked(ctx, RETIRE_EV_IMPORT, *handle, 0, len);
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&ctx->buf_mutex);

	for (i = 0; i < nr_evict; i++)
		retire_buf_mem_free(&evict[i]);
	kvfree(evict);
	*evicted = nr_evict;
	return 0;

out_unlock:
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&ctx->buf_mutex);
	kvfree(evict);
	retire_buf_mem_free(m);
	return ret;
}

/**
 * retire_buf_register() - register a buffer with a context
 * @ctx:	the context
 * @reg:	the caller's request; @reg->handle, @reg->mmap_offset and
 *		@reg->evicted are filled on success
 *
 * A module-allocated buffer past the pool's budget first evicts least
 * recently used FREE module buffers (see retire_pool_evict_locked()).
 * Every bound is checked before any memory is allocated or pinned, and
 * again once it is; a fatal signal stops the allocation.
 *
 * Return: 0; -EINVAL for a bad argument; -EFAULT if user memory cannot be
 * pinned; -ENOMEM (also over RLIMIT_MEMLOCK, charged to the caller's
 * user); -EINTR on a fatal signal; -EDQUOT over the context's
 * pinned-bytes limit; -ENOSPC when even eviction cannot fit it in the
 * pool; -EMFILE when the context holds max_buffers. Each bound refusal is
 * counted and changes nothing else.
 */
int retire_buf_register(struct retire_ctx *ctx, struct retire_buf_reg *reg)
{
	bool user = reg->flags & RETIRE_BUF_F_USER;
	struct retire_buf_mem m = {};
	u32 nr_pages;
	u64 handle;
	int ret;

	ret = retire_buf_reg_check(reg);
	if (ret)
		return ret;
	nr_pages = reg->len >> PAGE_SHIFT;

	/* the bounds first: nothing is allocated or pinned for a refusal */
	spin_lock_irq(&ctx->lock);
	ret = retire_buf_bounds_locked(ctx, user, reg->len);
	spin_unlock_irq(&ctx->lock);
	if (ret)
		return ret;

	if (user)
		ret = retire_buf_mem_pin(&m, reg->addr, nr_pages);
	else
		ret = retire_buf_mem_alloc(&m, nr_pages);
	if (ret)
		return ret;
	m.user = user;
	ret = retire_buf_add(ctx, &m, reg->len, &handle, &reg->evicted);
	if (ret)
		return ret;
	reg->handle = handle;
	reg->mmap_offset = user ? 0 : retire_buf_mmap_offset(handle);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(retire_buf_register);

/* the device a context bound to @e attaches imports to */
static struct device *retire_import_dev_for(const struct retire_engine *e)
{
	return e->dma_dev ?: retire_chardev_device();
}

/**
 * retire_buf_import() - RETIRE_IOC_BUF_IMPORT: a dma-buf as a buffer
 * @ctx:	the context
 * @a:		the checked argument; @a->handle and @a->len are filled on
 *		success
 *
 * The dma-buf is attached for the device of the context's engine now
 * (retire_buf_engine_check() holds requests to it) and counts as pinned
 * memory: charged to the caller's RLIMIT_MEMLOCK and VmPin, bounded by
 * max_pinned_bytes and max_buffers.
 *
 * Return: 0; -EBADF, -EINVAL, -EOPNOTSUPP or -ENODEV from
 * retire_import_get();
 * -EDQUOT, -EMFILE (counted) or -ENOMEM as for a pinned buffer; the
 * exporter's error. A refusal changes nothing.
 */
int retire_buf_import(struct retire_ctx *ctx, struct retire_buf_import *a)
{
	struct retire_buf_mem m = { .user = true, .ctx = ctx };
	struct retire_engine *e;
	u32 evicted;
	s64 len;
	int ret;

	/* the context may rebind meanwhile: the engine it had stays */
	mutex_lock(&ctx->mutex);
	e = ctx->engine;
	retire_engine_hold(e);
	mutex_unlock(&ctx->mutex);
	len = retire_import_get(a->fd, e, retire_import_dev_for(e), ctx,
				&m.import);
	retire_engine_put(e);
	if (len < 0)
		return len;
	m.nr_pages = len >> PAGE_SHIFT;
	ret = retire_buf_charge(&m, m.nr_pages);
	if (ret) {
		retire_import_put(m.import, ctx);
		return ret;
	}
	ret = retire_buf_add(ctx, &m, len, &a->handle, &evicted);
	if (ret)
		return ret;
	a->len = len;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(retire_buf_import);

/* retire_buf_engine_check() for an imported or mapped buffer */
int __retire_buf_engine_check(const struct retire_buf *buf,
			      const struct retire_engine *e)
{
	if (!buf->import)
		return buf->dev_maps && e->dma_dev ? -EBUSY : 0;
	if (retire_import_revoked(buf->import))
		return -ENODEV;
	if (!e->imports)
		return -EOPNOTSUPP;
	if (retire_import_dev(buf->import) != retire_import_dev_for(e))
		return -EXDEV;
	return 0;
}

/**
 * retire_buf_drop_imports() - a closed context lets its imports go
 * @ctx: the context, closed, with no request unretired
 *
 * A dma-buf of one context imported by another (or by itself) holds the
 * exporting context: dropped at the context's free, two contexts that
 * import each other's exports would hold each other forever. So they go
 * once the owner closed the context and its requests are retired.
 */
void retire_buf_drop_imports(struct retire_ctx *ctx)
{
	struct retire_buf_mem m;
	struct retire_buf *buf;
	u32 idx;

	mutex_lock(&ctx->buf_mutex);
	for (idx = 0; idx < ctx->bufs.nr; idx++) {
		buf = retire_slot_get(&ctx->bufs, idx);
		spin_lock_irq(&ctx->lock);
		if (!buf->slot.live || !buf->import ||
		    WARN_ON_ONCE(buf->state != RETIRE_BUF_FREE)) {
			spin_unlock_irq(&ctx->lock);
			continue;
		}
		retire_buf_remove_locked(ctx, buf, &m);
		spin_unlock_irq(&ctx->lock);
		retire_buf_mem_free(&m);
	}
	mutex_unlock(&ctx->buf_mutex);
}

/**
 * retire_buf_unregister() - take a FREE buffer out of its context
 * @ctx:	the context
 * @handle:	the buffer's handle
 *
 * Return: 0; -ENOENT for a stale or foreign handle (counted); -EBUSY if a
 * request still holds the buffer or a dma-buf of it lives (nothing
 * changes).
 */
int retire_buf_unregister(struct retire_ctx *ctx, u64 handle)
{
	struct retire_buf_mem m;
	struct retire_buf *buf;
	int ret = 0;

	mutex_lock(&ctx->buf_mutex);
	spin_lock_irq(&ctx->lock);
	buf = retire_ctx_lookup_locked(ctx, &ctx->bufs, handle,
				       RETIRE_ST_STALE_USER);
	if (!buf) {
		ret = -ENOENT;
	} else if (buf->state != RETIRE_BUF_FREE || buf->exports) {
		/* attached, held, quarantined or exported: in someone's hands */
		ret = -EBUSY;
	} else {
		retire_buf_remove_locked(ctx, buf, &m);
	}
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&ctx->buf_mutex);

	/* mappings keep the memory they map, and its charge (buf->vm) */
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
 * Return: 0; -EINVAL for a private mapping, an offset that is no buffer's,
 * a pinned buffer or a mapping longer than the buffer; -ENOENT for the
 * offset of a buffer that is gone (a stale handle, counted as one).
 */
int retire_buf_mmap(struct retire_ctx *ctx, struct vm_area_struct *vma)
{
	u64 handle = retire_buf_mmap_handle((u64)vma->vm_pgoff << PAGE_SHIFT);
	unsigned long len = vma->vm_end - vma->vm_start;
	struct retire_buf_vm *vm;
	struct retire_buf *buf;
	unsigned long i;
	int ret = 0;

	if (!(vma->vm_flags & VM_SHARED) || !handle)
		return -EINVAL;

	mutex_lock(&ctx->buf_mutex);
	spin_lock_irq(&ctx->lock);
	/* no buffer: an offset of one since unregistered or evicted */
	buf = retire_ctx_lookup_locked(ctx, &ctx->bufs, handle,
				       RETIRE_ST_STALE_USER);
	if (!buf)
		ret = -ENOENT;
	else if (buf->user || len > buf->len)
		ret = -EINVAL;
	spin_unlock_irq(&ctx->lock);
	if (ret) {
		mutex_unlock(&ctx->buf_mutex);
		return ret;
	}
	/* buf_mutex keeps the buffer registered while its pages go in */
	if (!buf->vm) {
		vm = kmalloc(sizeof(*vm), GFP_KERNEL_ACCOUNT);
		if (!vm) {
			mutex_unlock(&ctx->buf_mutex);
			return -ENOMEM;
		}
		refcount_set(&vm->ref, 1);	/* the buffer's */
		vm->pages = buf->pages;
		vm->nr_pages = buf->nr_pages;
		vm->charged = buf->charged;
		spin_lock_irq(&ctx->lock);
		buf->vm = vm;
		spin_unlock_irq(&ctx->lock);
	}
	retire_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (i = 0; i < len >> PAGE_SHIFT && !ret; i++)
		ret = vm_insert_page(vma, vma->vm_start + (i << PAGE_SHIFT),
				     buf->pages[i]);
	/* only a mapping that succeeded holds the memory, and is closed */
	if (!ret) {
		refcount_inc(&buf->vm->ref);
		vma->vm_private_data = buf->vm;
		vma->vm_ops = &retire_buf_vm_ops;
	}
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
		/* an export holds the context: none is left at its free */
		WARN_ON_ONCE(buf->state != RETIRE_BUF_FREE || buf->exports);
		spin_lock_irq(&ctx->lock);
		retire_buf_remove_locked(ctx, buf, &m);
		spin_unlock_irq(&ctx->lock);
		retire_buf_mem_free(&m);
	}
}
