// SPDX-License-Identifier: GPL-2.0
/*
 * The slot table: fixed-size objects named by (kind, slot, generation)
 * handles. Lookup is an index and a compare; nothing is allocated under
 * the lock: a table grows by whole chunks allocated before the lock is
 * taken.
 *
 * Generation wrap: a slot's generation starts at 1 and moves on when an
 * incarnation ends.
 * When it would move past U32_MAX the slot is marked exhausted and never
 * put back on the free list, so within a table's lifetime no (slot,
 * generation) pair is ever issued twice and no old handle can match again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <linux/retire.h>

#include "buf.h"
#include "slot.h"

/**
 * retire_slot_table_init() - set up an empty table
 * @t:		the table
 * @kind:	RETIRE_KIND_* of its handles
 * @obj_size:	size of one object, struct retire_slot first
 * @max:	the most slots it may ever hold (at most RETIRE_SLOT_MAX)
 * @init:	one-time set-up of each new object, or NULL
 * @fini:	undo of @init before a chunk is freed, or NULL
 * @arg:	passed to @init and @fini
 * @lock:	the lock that will protect it
 *
 * Return: 0 or -ENOMEM.
 */
int retire_slot_table_init(struct retire_slot_table *t, u8 kind,
			   u32 obj_size, u32 max,
			   void (*init)(void *obj, void *arg),
			   void (*fini)(void *obj, void *arg),
			   void *arg, spinlock_t *lock)
{
	u32 nchunks;

	if (WARN_ON_ONCE(!max || max > RETIRE_SLOT_MAX))
		return -EINVAL;
	nchunks = DIV_ROUND_UP(max, RETIRE_SLOT_CHUNK);
	*t = (struct retire_slot_table) {
		.kind = kind,
		.obj_size = obj_size,
		.max = max,
		.free_head = RETIRE_SLOT_NONE,
		.gen_max = U32_MAX,
		.init = init,
		.fini = fini,
		.arg = arg,
		.lock = lock,
	};
	t->chunks = kvcalloc(nchunks, sizeof(*t->chunks), GFP_KERNEL_ACCOUNT);
	t->charged = kvcalloc(nchunks, sizeof(*t->charged), GFP_KERNEL_ACCOUNT);
	if (!t->chunks || !t->charged) {
		kvfree(t->chunks);
		kvfree(t->charged);
		t->chunks = NULL;
		t->charged = NULL;
		return -ENOMEM;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(retire_slot_table_init);

/* the pages a chunk is charged for */
static unsigned long retire_slot_chunk_pages(struct retire_slot_table *t)
{
	return DIV_ROUND_UP(array_size(RETIRE_SLOT_CHUNK, t->obj_size),
			    PAGE_SIZE);
}

/**
 * retire_slot_table_destroy() - free every chunk; no slot may be busy
 * @t: the table
 *
 * May sleep: @fini may wait for timers and work items.
 */
void retire_slot_table_destroy(struct retire_slot_table *t)
{
	u32 c, i;

	if (!t->chunks)
		return;
	WARN_ON_ONCE(t->used);
	for (c = 0; c < DIV_ROUND_UP(t->nr, RETIRE_SLOT_CHUNK); c++) {
		if (t->fini)
			for (i = 0; i < RETIRE_SLOT_CHUNK; i++)
				t->fini(t->chunks[c] + i * t->obj_size, t->arg);
		kvfree(t->chunks[c]);
		retire_memlock_uncharge(t->charged[c],
					retire_slot_chunk_pages(t));
	}
	kvfree(t->charged);
	t->charged = NULL;
	kvfree(t->chunks);
	t->chunks = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(retire_slot_table_destroy);

/**
 * retire_slot_chunk_alloc() - allocate and set up the next chunk
 * @t: the table; the caller holds the context mutex, not its lock
 *
 * Return: the chunk, to be passed to retire_slot_chunk_add_locked(), or
 * NULL. The chunk is charged to the caller's memory cgroup.
 */
void *retire_slot_chunk_alloc(struct retire_slot_table *t)
{
	size_t size = array_size(RETIRE_SLOT_CHUNK, t->obj_size);
	void *chunk;
	u32 i;

	/*
	 * Sized to the allocator: kmalloc rounds a large chunk up to a power
	 * of two, vmalloc to a page. A power of two (64 requests of 128
	 * bytes) fits kmalloc exactly and falls back to vmalloc when memory
	 * is fragmented; anything else above a page comes from vmalloc. A
	 * failure is the caller's -ENOMEM: no warning.
	 */
	if (size > PAGE_SIZE && !is_power_of_2(size))
		chunk = __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				  __GFP_NOWARN);
	else
		chunk = kvzalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!chunk)
		return NULL;
	if (t->init)
		for (i = 0; i < RETIRE_SLOT_CHUNK; i++)
			t->init(chunk + i * t->obj_size, t->arg);
	return chunk;
}
EXPORT_SYMBOL_IF_KUNIT(retire_slot_chunk_alloc);

/**
 * retire_slot_chunk_free() - free a chunk that was never added
 * @t:		the table
 * @chunk:	from retire_slot_chunk_alloc()
 */
void retire_slot_chunk_free(struct retire_slot_table *t, void *chunk)
{
	u32 i;

	if (t->fini)
		for (i = 0; i < RETIRE_SLOT_CHUNK; i++)
			t->fini(chunk + i * t->obj_size, t->arg);
	kvfree(chunk);
}

/**
 * retire_slot_chunk_add_locked() - add a chunk's slots to the free list
 * @t:		the table
 * @chunk:	from retire_slot_chunk_alloc()
 */
void retire_slot_chunk_add_locked(struct retire_slot_table *t, void *chunk)
{
	u32 base = t->nr, i, n;

	lockdep_assert_held(t->lock);
	n = min(RETIRE_SLOT_CHUNK, t->max - base);
	t->chunks[base >> RETIRE_SLOT_CHUNK_SHIFT] = chunk;
	t->nr += RETIRE_SLOT_CHUNK;
	if (t->nr > t->max)
		t->nr = t->max;
	t->nfree += n;
	/* link in index order, so the lowest free slot is used first */
	for (i = n; i-- > 0;) {
		struct retire_slot *s = chunk + i * t->obj_size;

		s->gen = 1;	/* the first incarnation */
		s->next_free = t->free_head;
		t->free_head = base + i;
	}
}
EXPORT_SYMBOL_IF_KUNIT(retire_slot_chunk_add_locked);

/**
 * retire_slot_reserve() - make sure slots can be had without allocating
 * @t:		the table; its lock is not held, the caller holds the mutex
 *		that serializes growth
 * @want:	free slots wanted
 *
 * Allocates chunks outside the lock until @want slots are free or the table
 * is at its maximum (an allocation then fails and says which bound). Each
 * chunk's pages are charged to the caller's user against RLIMIT_MEMLOCK,
 * as the buffers and rings are (retire_memlock_charge()), until the table
 * is destroyed: a user cannot make the module hold more request, token,
 * job or buffer slots than it may lock.
 *
 * Return: 0; -ENOMEM when memory or the caller's RLIMIT_MEMLOCK runs out.
 */
int retire_slot_reserve(struct retire_slot_table *t, u32 want)
{
	struct user_struct *user = NULL;
	spinlock_t *lock = t->lock;
	void *chunk;

	for (;;) {
		spin_lock_irq(lock);
		if (t->nfree >= want || t->nr >= t->max) {
			spin_unlock_irq(lock);
			return 0;
		}
		spin_unlock_irq(lock);
		/* the caller's user holds the chunk's pages (buf.c) */
		user = retire_memlock_charge(retire_slot_chunk_pages(t));
		if (IS_ERR(user))
			return PTR_ERR(user);
		chunk = retire_slot_chunk_alloc(t);
		if (!chunk) {
			retire_memlock_uncharge(user, retire_slot_chunk_pages(t));
			return -ENOMEM;
		}
		spin_lock_irq(lock);
		/* growth is serialized: the table cannot have filled meanwhile */
		if (WARN_ON_ONCE(t->nr >= t->max)) {
			spin_unlock_irq(lock);
			retire_slot_chunk_free(t, chunk);
			retire_memlock_uncharge(user, retire_slot_chunk_pages(t));
			return 0;
		}
		t->charged[t->nr >> RETIRE_SLOT_CHUNK_SHIFT] = user;
		retire_slot_chunk_add_locked(t, chunk);
		spin_unlock_irq(lock);
	}
}
EXPORT_SYMBOL_IF_KUNIT(retire_slot_reserve);
