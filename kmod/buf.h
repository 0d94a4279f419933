/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_BUF_H
#define _RETIRE_BUF_H

#include <linux/types.h>

#include "ctx.h"
#include "slot.h"

struct mm_struct;
struct user_struct;
struct page;
struct vm_area_struct;
struct retire_ctx;
struct retire_buf_reg;
struct retire_buf_import;
struct retire_engine;
struct retire_import;

/* where a buffer is in its pool's life */
enum retire_buf_state {
	RETIRE_BUF_FREE,	/* in the pool: may be attached or unregistered */
	RETIRE_BUF_ATTACHED,	/* a request's device may still access it */
	RETIRE_BUF_HELD,	/* device done; record or borrows outstanding */
	RETIRE_BUF_QUARANTINED,	/* the device may still touch it: until reset */
};

struct retire_buf_vm;

/**
 * struct retire_buf - a registered buffer
 * @slot:	slot header (RETIRE_KIND_BUF)
 * @handle:	its handle
 * @len:	bytes
 * @nr_pages:	pages in @pages
 * @state:	enum retire_buf_state, protected by the context lock
 * @user:	pinned user memory rather than module pages
 * @dev_wrote:	a device wrote it (set before the bytes move, whatever the
 *		device reports later): user pages are dirtied on unpin
 * @pages:	the pages; valid while the buffer is registered
 * @mm:		user memory: the mm whose VmPin shows it
 * @charged:	the user charged for it against RLIMIT_MEMLOCK (NULL with
 *		CAP_IPC_LOCK): pinned or module memory alike
 * @import:	an imported dma-buf (dmabuf.c), @pages NULL; it counts as
 *		pinned memory (@user is set) and is dropped with the buffer
 * @vm:		a module buffer mapped by mmap() at least once: its memory
 *		(@pages and @charged), shared with the mappings, which keep
 *		it after the buffer is gone (buf.c)
 * @exports:	live dma-bufs of it (dmabuf.c): while non-zero it is neither
 *		unregistered nor evicted, so off the LRU even when FREE
 * @dev_maps:	importers' mappings of its pages, under the context lock:
 *		at most one, and none while a request of it is on an engine
 *		that maps pages (dmabuf.c)
 * @lru:	a FREE module buffer, not exported: on the context's pool_lru,
 *		in the order the buffers came back to the pool (registered,
 *		their request retired or their last export dropped); else empty
 */
struct retire_buf {
	struct retire_slot slot;
	u64 handle;
	u64 len;
	u32 nr_pages;
	u8 state;
	bool user;
	bool dev_wrote;
	struct page **pages;
	struct mm_struct *mm;
	struct user_struct *charged;
	struct retire_import *import;
	struct retire_buf_vm *vm;
	u32 exports;
	u32 dev_maps;
	struct list_head lru;
};

struct user_struct *retire_memlock_charge(unsigned long nr);
void retire_memlock_uncharge(struct user_struct *user, unsigned long nr);
int retire_buf_table_init(struct retire_ctx *ctx);
int retire_buf_register(struct retire_ctx *ctx, struct retire_buf_reg *reg);
int retire_buf_import(struct retire_ctx *ctx, struct retire_buf_import *a);
int __retire_buf_engine_check(const struct retire_buf *buf,
			      const struct retire_engine *e);
void retire_buf_drop_imports(struct retire_ctx *ctx);
int retire_buf_unregister(struct retire_ctx *ctx, u64 handle);
int retire_buf_mmap(struct retire_ctx *ctx, struct vm_area_struct *vma);
void retire_buf_destroy_all(struct retire_ctx *ctx);

/**
 * retire_buf_engine_check() - may a request on @buf go to engine @e?
 * @buf:	the buffer
 * @e:		the context's engine
 *
 * Under the context's lock: after a revocation's walk has taken it, the
 * import says it is revoked; an attachment's mapping of the buffer's own
 * pages is counted under it too.
 *
 * Return: 0 for a buffer that is not imported, or one attached for @e's
 * device, if @e serves imports; -EBUSY for a buffer of this context whose
 * pages a dma-buf's attachment has mapped, on an engine that would map
 * them again (a page has one DMA mapping at a time: see dmabuf.c);
 * -ENODEV for an import whose exporter moved or revoked it, or whose
 * device went; -EOPNOTSUPP if @e does not serve imports; -EXDEV for one
 * attached for another engine's device (the context was bound to another
 * engine since).
 *
 * Inline for the buffer that is neither, which every request checks.
 */
static inline int retire_buf_engine_check(const struct retire_buf *buf,
					  const struct retire_engine *e)
{
	if (likely(!buf->import && !buf->dev_maps))
		return 0;
	return __retire_buf_engine_check(buf, e);
}

/**
 * retire_buf_pool_put_locked() - a buffer comes back to its pool, FREE
 * @ctx:	its context
 * @buf:	the buffer, registered now or its request retired
 *
 * A module buffer goes to the tail of the pool's LRU: the last to be
 * evicted. Inline, as is the take: every request does both.
 */
static inline void retire_buf_pool_put_locked(struct retire_ctx *ctx,
					      struct retire_buf *buf)
{
	lockdep_assert_held(&ctx->lock);
	buf->state = RETIRE_BUF_FREE;
	if (!buf->user && !buf->exports) {
		list_add_tail(&buf->lru, &ctx->pool_lru);
		ctx->pool_free_bytes += buf->len;
	}
}

/**
 * retire_buf_pool_take_locked() - a FREE buffer leaves its pool
 * @ctx:	its context
 * @buf:	the buffer
 * @state:	its new state (a request attached it)
 */
static inline void retire_buf_pool_take_locked(struct retire_ctx *ctx,
					       struct retire_buf *buf, u8 state)
{
	lockdep_assert_held(&ctx->lock);
	if (buf->state == RETIRE_BUF_FREE && !buf->user && !buf->exports) {
		list_del_init(&buf->lru);
		ctx->pool_free_bytes -= buf->len;
	}
	buf->state = state;
}

#endif /* _RETIRE_BUF_H */
