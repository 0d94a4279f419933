// SPDX-License-Identifier: GPL-2.0
/*
 * Rings shared with the caller: a submission ring of operations and a
 * completion ring of records, as io_uring's and AF_XDP's, in memory the
 * caller maps at RETIRE_RING_OFFSET.
 *
 * One RETIRE_IOC_ENTER with RETIRE_ENTER_F_RINGS runs the operations the
 * caller queued and moves the records that are ready into the completion
 * ring. Nothing crosses the user boundary by copy: the module reads each
 * operation from the ring once, into a private copy it checks, writes its
 * result back in place, and writes records straight into the ring under
 * the context lock, where nothing can fault. Records the ring has no room
 * for wait on the context's ready list, in order, as every record waits
 * today: none is ever lost, and the next call moves them.
 *
 * The caller owns sq_tail and cq_head, the module sq_head and cq_tail.
 * The module keeps its own copies of the indices it owns and bounds the
 * caller's against them before anything runs: a sq_tail more than the
 * ring ahead, or a cq_head ahead of cq_tail or more than the ring behind
 * it, fails the call with -EINVAL and changes nothing.
 *
 * Layout of the mapping (struct retire_ring_offsets tells the caller):
 *   0      sq_head          (its own cache line: the module writes it)
 *   64     sq_tail          (the caller writes it)
 *   128    cq_head          (the caller writes it)
 *   192    cq_tail, cq_flags (the module writes them)
 *   256    sq_mask, sq_entries, cq_mask, cq_entries (read-only)
 *   320    sqes[sq_entries], then cqes[cq_entries] on a cache line
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <linux/retire.h>

#include "buf.h"
#include "compat.h"
#include "ctx.h"
#include "engine.h"
#include "op.h"
#include "records.h"
#include "req.h"
#include "ring.h"

#define RETIRE_RING_SQ_HEAD	0
#define RETIRE_RING_SQ_TAIL	64
#define RETIRE_RING_CQ_HEAD	128
#define RETIRE_RING_CQ_TAIL	192
#define RETIRE_RING_CQ_FLAGS	196
#define RETIRE_RING_SQ_MASK	256
#define RETIRE_RING_SQ_ENTRIES	260
#define RETIRE_RING_CQ_MASK	264
#define RETIRE_RING_CQ_ENTRIES	268
#define RETIRE_RING_SQES	320

static u32 *retire_ring_u32(struct retire_ring *ring, u32 off)
{
	return ring->mem + off;
}

/* what the caller needs to map @ring */
static void retire_ring_describe(const struct retire_ring *ring,
				 struct retire_ring_setup *s)
{
	s->size = ring->size;
	s->off = (struct retire_ring_offsets) {
		.sq_head = RETIRE_RING_SQ_HEAD,
		.sq_tail = RETIRE_RING_SQ_TAIL,
		.sq_mask = RETIRE_RING_SQ_MASK,
		.sq_entries = RETIRE_RING_SQ_ENTRIES,
		.sqes = RETIRE_RING_SQES,
		.cq_head = RETIRE_RING_CQ_HEAD,
		.cq_tail = RETIRE_RING_CQ_TAIL,
		.cq_mask = RETIRE_RING_CQ_MASK,
		.cq_entries = RETIRE_RING_CQ_ENTRIES,
		.cq_flags = RETIRE_RING_CQ_FLAGS,
		.cqes = (void *)ring->cqes - ring->mem,
	};
}

/* the rings the context has: their layout, if they are the size asked for */
static int retire_ring_again(struct retire_ring *ring,
			     struct retire_ring_setup *s)
{
	if (ring->sq_entries != s->sq_entries ||
	    ring->cq_entries != s->cq_entries)
		return -EBUSY;
	retire_ring_describe(ring, s);
	return 0;
}

static void retire_ring_release_mem(struct retire_ring *ring)
{
	u32 i;

	if (ring->mem)
		vunmap(ring->mem);
	/* a failed setup may have no page array yet */
	for (i = 0; ring->pages && i < ring->nr_pages; i++)
		if (ring->pages[i])
			__free_page(ring->pages[i]);
	kvfree(ring->pages);
	retire_memlock_uncharge(ring->charged, ring->nr_pages);
	kfree(ring);
}

/**
 * retire_ring_setup() - give a context its rings
 * @ctx:	the context
 * @s:		what the caller asked for; filled with the mapping's size and
 *		layout on success
 *
 * A context has one pair of rings for its lifetime. Asked again for the
 * sizes it has, it describes them again, so a caller can map them anew
 * (their indices say where they stand); asked for other sizes, -EBUSY.
 *
 * The rings' pages are charged to the caller's user against
 * RLIMIT_MEMLOCK (retire_memlock_charge()).
 *
 * Return: 0; -EINVAL for a size that is not a power of two from 1 to
 * RETIRE_RING_MAX_ENTRIES, or a non-zero flag or reserved field; -EBUSY
 * if the context has rings of other sizes; -ENOMEM (also past
 * RLIMIT_MEMLOCK).
 */
int retire_ring_setup(struct retire_ctx *ctx, struct retire_ring_setup *s)
{
	struct retire_ring *ring;
	u32 cqes, size, i;
	int ret;

	if (s->flags || memchr_inv(s->reserved, 0, sizeof(s->reserved)) ||
	    !s->sq_entries || !is_power_of_2(s->sq_entries) ||
	    s->sq_entries > RETIRE_RING_MAX_ENTRIES ||
	    !s->cq_entries || !is_power_of_2(s->cq_entries) ||
	    s->cq_entries > RETIRE_RING_MAX_ENTRIES)
		return -EINVAL;
	mutex_lock(&ctx->mutex);
	ring = ctx->ring;
	ret = ring ? retire_ring_again(ring, s) : -ENOENT;
	mutex_unlock(&ctx->mutex);
	if (ret != -ENOENT)
		return ret;

	cqes = ALIGN(RETIRE_RING_SQES + s->sq_entries * sizeof(struct retire_op),
		     SMP_CACHE_BYTES);
	size = PAGE_ALIGN(cqes + s->cq_entries * sizeof(struct retire_cqe));

	ret = -ENOMEM;
	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		return -ENOMEM;
	/* its pages are the opener's to lock, as a buffer's (buf.c) */
	ring->charged = retire_memlock_charge(size >> PAGE_SHIFT);
	if (IS_ERR(ring->charged)) {
		kfree(ring);
		return -ENOMEM;
	}
	ring->nr_pages = size >> PAGE_SHIFT;
	ring->pages = kvcalloc(ring->nr_pages, sizeof(*ring->pages),
			       GFP_KERNEL_ACCOUNT);
	if (!ring->pages)
		goto out_free;
	for (i = 0; i < ring->nr_pages; i++) {
		ring->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!ring->pages[i])
			goto out_free;
	}
	ring->mem = vmap(ring->pages, ring->nr_pages, VM_MAP, PAGE_KERNEL);
	if (!ring->mem)
		goto out_free;

	ring->size = size;
	ring->sq_entries = s->sq_entries;
	ring->cq_entries = s->cq_entries;
	ring->u_sq_head = retire_ring_u32(ring, RETIRE_RING_SQ_HEAD);
	ring->u_sq_tail = retire_ring_u32(ring, RETIRE_RING_SQ_TAIL);
	ring->u_cq_head = retire_ring_u32(ring, RETIRE_RING_CQ_HEAD);
	ring->u_cq_tail = retire_ring_u32(ring, RETIRE_RING_CQ_TAIL);
	ring->u_cq_flags = retire_ring_u32(ring, RETIRE_RING_CQ_FLAGS);
	ring->sqes = ring->mem + RETIRE_RING_SQES;
	ring->cqes = ring->mem + cqes;
	*retire_ring_u32(ring, RETIRE_RING_SQ_MASK) = s->sq_entries - 1;
	*retire_ring_u32(ring, RETIRE_RING_SQ_ENTRIES) = s->sq_entries;
	*retire_ring_u32(ring, RETIRE_RING_CQ_MASK) = s->cq_entries - 1;
	*retire_ring_u32(ring, RETIRE_RING_CQ_ENTRIES) = s->cq_entries;

	mutex_lock(&ctx->mutex);
	if (ctx->ring) {
		/* another thread set them up meanwhile */
		ret = retire_ring_again(ctx->ring, s);
		mutex_unlock(&ctx->mutex);
		goto out_free;
	}
	/* mmap() and poll() look without the mutex: publish it whole */
	smp_store_release(&ctx->ring, ring);
	retire_ring_describe(ring, s);
	mutex_unlock(&ctx->mutex);
	return 0;

out_free:
	retire_ring_release_mem(ring);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_ring_setup);

/**
 * retire_ring_mmap() - map a context's rings
 * @ctx:	the context
 * @vma:	a shared mapping at RETIRE_RING_OFFSET, at most the rings' size
 *
 * Return: 0; -EINVAL without rings, for a private mapping, or one larger
 * than the rings; or vm_insert_page()'s error.
 */
int retire_ring_mmap(struct retire_ctx *ctx, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	struct retire_ring *ring;
	unsigned long i;
	int ret = 0;

	/* pairs with the release in retire_ring_setup(): a whole ring */
	ring = smp_load_acquire(&ctx->ring);
	if (!ring || !(vma->vm_flags & VM_SHARED) || len > ring->size)
		return -EINVAL;
	/* the pages stay until the context goes, after every mapping */
	retire_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (i = 0; i < len >> PAGE_SHIFT && !ret; i++)
		ret = vm_insert_page(vma, vma->vm_start + (i << PAGE_SHIFT),
				     ring->pages[i]);
	return ret;
}

/**
 * retire_ring_free() - free a context's rings with the context
 * @ctx: a context being freed: no file, so no mapping, is left
 */
void retire_ring_free(struct retire_ctx *ctx)
{
	if (ctx->ring)
		retire_ring_release_mem(ctx->ring);
	ctx->ring = NULL;
}

/* the caller's indices, bounded by the module's own: 0 or -EINVAL */
static int retire_ring_check(struct retire_ring *ring, u32 *queued,
			     u32 *unread)
{
	/* the caller's entries are written before it moved its tail */
	*queued = smp_load_acquire(ring->u_sq_tail) - ring->sq_head;
	/* and it read its records before it moved its head */
	*unread = ring->cq_tail - smp_load_acquire(ring->u_cq_head);
	if (*queued > ring->sq_entries || *unread > ring->cq_entries)
		return -EINVAL;
	return 0;
}

/*
 * Might the fast lane take @op (retire_submit_inline_locked() decides)? A
 * look without the lock, so that other operations never take it for this.
 */
static bool retire_ring_lane(struct retire_ctx *ctx, const struct retire_op *op)
{
	return op->opcode == RETIRE_OP_SUBMIT &&
	       op->flags == RETIRE_SQE_F_INLINE_LANE &&
	       retire_engine_runs_inline(ctx->engine);
}

/* hand @op's result back in @slot and move past it */
static void retire_ring_op_done(struct retire_ring *ring,
				struct retire_op *slot,
				const struct retire_op *op, int result)
{
	WRITE_ONCE(slot->handle, op->handle);
	WRITE_ONCE(slot->result, result);
	ring->sq_head++;
}

/* the submission ring's entry at its head */
static struct retire_op *retire_ring_sqe(struct retire_ring *ring)
{
	return &ring->sqes[ring->sq_head & (ring->sq_entries - 1)];
}

/*
 * The fast lane: @op (copied from the head entry) and the fast-lane
 * operations after it, at most @nr, under one hold of the context lock,
 * each record straight into the completion ring while it has *@room.
 * Returns how many ran; *@left says @op then holds a copy of the next
 * entry, which the fast lane left to retire_op_run().
 */
static u32 retire_ring_lane_run(struct retire_ctx *ctx, struct retire_op *op,
				u32 nr, ktime_t now, u32 *room, u32 *posted,
				bool *left)
{
	struct retire_ring *ring = ctx->ring;
	u32 n = 0;
	int ret;

	*left = false;
	spin_lock_irq(&ctx->lock);
	for (;;) {
		ret = retire_submit_inline_locked(ctx, op, now,
						  &ring->cqes[ring->cq_tail &
							      (ring->cq_entries - 1)]);
		if (ret > 0) {
			*left = true;
			break;
		}
		if (!ret) {
			/* read without the mutex by a waiter */
			WRITE_ONCE(ring->cq_tail, ring->cq_tail + 1);
			(*room)--;
			(*posted)++;
		}
		retire_ring_op_done(ring, retire_ring_sqe(ring), op, ret);
		/* interrupts come in between batches */
		if (++n == nr || n == RETIRE_CTX_BATCH || !*room)
			break;
		memcpy(op, retire_ring_sqe(ring), sizeof(*op));
		if (!retire_ring_lane(ctx, op)) {
			*left = true;
			break;
		}
	}
	spin_unlock_irq(&ctx->lock);
	return n;
}

/**
 * retire_ring_take_ops() - run operations queued in the submission ring
 * @ctx:	the context; the caller holds ctx->mutex
 * @nr:		the most to run
 * @min_complete: the records the caller will wait for
 * @done:	how many ran
 * @posted:	how many records the fast lane wrote into the completion ring
 *
 * The indices of both rings and @min_complete are checked first: nothing
 * runs if an index is out of bounds or the completion ring could never
 * hold @min_complete records. Each operation runs as RETIRE_IOC_ENTER runs it
 * (retire_op_run()), at the batch's time. A request the fast lane takes
 * (an engine that runs inline, one record) is admitted, run and retired
 * in one step, its record written straight into the completion ring while
 * it has room: consecutive ones share one hold of the context lock, up to
 * RETIRE_CTX_BATCH of them.
 *
 * Return: 0, or -EINVAL without rings, for a bad index or @min_complete.
 */
int retire_ring_take_ops(struct retire_ctx *ctx, u32 nr, u32 min_complete,
			 u32 *done, u32 *posted)
{
	struct retire_ring *ring = ctx->ring;
	u32 queued, unread, room, i;
	struct retire_op op;
	bool left = false;
	ktime_t now;

	lockdep_assert_held(&ctx->mutex);
	*done = 0;
	*posted = 0;
	if (!ring || min_complete > ring->cq_entries ||
	    retire_ring_check(ring, &queued, &unread))
		return -EINVAL;
	nr = min(nr, queued);
	/* the batch is handed over at once: one admission time for all */
	now = nr ? ktime_get() : 0;
	/* the caller only ever makes more room meanwhile */
	room = ring->cq_entries - unread;
	for (i = 0; i < nr; ) {
		/* one read of what the caller may still be writing */
		if (!left)
			memcpy(&op, retire_ring_sqe(ring), sizeof(op));
		if (!left && room && retire_ring_lane(ctx, &op)) {
			i += retire_ring_lane_run(ctx, &op, nr - i, now, &room,
						  posted, &left);
			continue;
		}
		left = false;
		retire_ring_op_done(ring, retire_ring_sqe(ring), &op,
				    retire_op_run(ctx, &op, now));
		i++;
	}
	/* the results are in place before the caller sees the head move */
	smp_store_release(ring->u_sq_head, ring->sq_head);
	if (*posted) {
		/* and the records before the tail */
		smp_store_release(ring->u_cq_tail, ring->cq_tail);
		/* another caller may wait for them, or poll() */
		if (wq_has_sleeper(&ctx->waitq))
			wake_up_interruptible(&ctx->waitq);
	}
	*done = nr;
	return 0;
}

/**
 * retire_ring_post() - move ready records into the completion ring
 * @ctx:	the context; the caller holds ctx->mutex
 * @avail:	set to the records the ring holds unread afterwards
 *
 * The caller's min_complete was checked against the ring's size before
 * anything ran (retire_ring_take_ops()); cq_head is checked again here,
 * as the caller may have moved it since.
 *
 * Return: records moved, or -EINVAL without rings or for a bad cq_head.
 */
int retire_ring_post(struct retire_ctx *ctx, u32 *avail)
{
	struct retire_ring *ring = ctx->ring;
	u32 queued, unread;
	int n;

	lockdep_assert_held(&ctx->mutex);
	if (!ring || retire_ring_check(ring, &queued, &unread))
		return -EINVAL;
	n = retire_records_post(ctx, ring->cqes, ring->cq_entries - 1,
				&ring->cq_tail, ring->cq_entries - unread);
	/* the records are in place before the caller sees the tail move */
	smp_store_release(ring->u_cq_tail, ring->cq_tail);
	WRITE_ONCE(*ring->u_cq_flags,
		   retire_records_ready(ctx) ? RETIRE_CQ_F_OVERFLOW : 0);
	*avail = unread + n;
	return n;
}

/**
 * retire_ring_unread() - does the completion ring hold unread records?
 * @ctx: the context
 *
 * Return: true if so. Lockless, for poll().
 */
bool retire_ring_unread(struct retire_ctx *ctx)
{
	/* pairs with the release in retire_ring_setup(): a whole ring */
	struct retire_ring *ring = smp_load_acquire(&ctx->ring);

	return ring && READ_ONCE(*ring->u_cq_tail) !=
		       READ_ONCE(*ring->u_cq_head);
}
