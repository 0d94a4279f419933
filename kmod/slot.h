/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_SLOT_H
#define _RETIRE_SLOT_H

#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/limits.h>
#include <linux/lockdep.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>
#include <linux/retire.h>

/*
 * A handle is kind (8 bits) | slot index (24) | generation (32). It names
 * one incarnation of one slot; lookups compare all three under the
 * context lock before anything else of the object is read.
 */
#define RETIRE_HANDLE_KIND_SHIFT	56
#define RETIRE_HANDLE_SLOT_SHIFT	32
#define RETIRE_SLOT_MAX			BIT(24)

#define RETIRE_SLOT_CHUNK_SHIFT		6
#define RETIRE_SLOT_CHUNK		BIT(RETIRE_SLOT_CHUNK_SHIFT)

#define RETIRE_SLOT_NONE		U32_MAX

/**
 * struct retire_slot - the header of every object that lives in a slot
 * @gen:	the generation of the current incarnation, or of the next one
 *		once the current has ended (1 for the first)
 * @next_free:	free-list link (a slot index), valid while on the free list
 * @live:	the incarnation @gen is live: its handle resolves
 * @busy:	the slot is in use (live, or ended with a record still owed)
 * @exhausted:	@gen reached its table's @gen_max: the slot is never used
 *		again, so no generation ever repeats within the table's
 *		lifetime
 */
struct retire_slot {
	u32 gen;
	u32 next_free;
	u8 live;
	u8 busy;
	u8 exhausted;
};

/**
 * struct retire_slot_table - slots of one kind, grown in chunks
 * @kind:	RETIRE_KIND_* of every handle this table issues
 * @obj_size:	size of one object (struct retire_slot first)
 * @nr:		slots created so far
 * @max:	slots that may ever be created
 * @used:	busy slots
 * @nfree:	slots on the free list
 * @free_head:	first free slot, RETIRE_SLOT_NONE if none
 * @gen_max:	the last generation a slot may have (U32_MAX unless a kind
 *		encodes fewer bits of it elsewhere, as mmap offsets do). A
 *		table of kind 0 issues no handles: its slots never exhaust.
 * @chunks:	@max / RETIRE_SLOT_CHUNK chunk pointers, filled as it grows
 * @init:	one-time set-up of a new object (timers, work items)
 * @fini:	undo @init before the chunk is freed (may sleep)
 * @arg:	passed to @init with each new object
 * @charged:	per chunk, the user its pages are charged to (NULL: none):
 *		a chunk that retire_slot_reserve() adds is charged to the
 *		locked memory of the user whose call grows the table
 * @lock:	the lock that protects it (the owning context's): every
 *		*_locked() function asserts it is held
 *
 * All fields are protected by @lock; growing also needs the context's
 * mutex, so a chunk is allocated outside the lock.
 */
struct retire_slot_table {
	u8 kind;
	u32 obj_size;
	u32 nr;
	u32 max;
	u32 used;
	u32 nfree;
	u32 free_head;
	u32 gen_max;
	void **chunks;
	void (*init)(void *obj, void *arg);
	void (*fini)(void *obj, void *arg);
	void *arg;
	struct user_struct **charged;
	spinlock_t *lock;	/* not its own: the owning context's */
};

/* the uapi's decoders read handles as this file makes them */
static_assert(RETIRE_HANDLE_KIND(0x0203040506070809ULL) == 0x02);
static_assert(RETIRE_HANDLE_SLOT(0x0203040506070809ULL) == 0x030405);
static_assert(RETIRE_HANDLE_GEN(0x0203040506070809ULL) == 0x06070809);

static inline u64 retire_handle_make(u8 kind, u32 idx, u32 gen)
{
	return (u64)kind << RETIRE_HANDLE_KIND_SHIFT |
	       (u64)idx << RETIRE_HANDLE_SLOT_SHIFT | gen;
}

static inline u8 retire_handle_kind(u64 h)
{
	return h >> RETIRE_HANDLE_KIND_SHIFT;
}

static inline u32 retire_handle_slot(u64 h)
{
	return (h >> RETIRE_HANDLE_SLOT_SHIFT) & (RETIRE_SLOT_MAX - 1);
}

static inline u32 retire_handle_gen(u64 h)
{
	return (u32)h;
}

int retire_slot_table_init(struct retire_slot_table *t, u8 kind,
			   u32 obj_size, u32 max,
			   void (*init)(void *obj, void *arg),
			   void (*fini)(void *obj, void *arg),
			   void *arg, spinlock_t *lock);
void retire_slot_table_destroy(struct retire_slot_table *t);
void *retire_slot_chunk_alloc(struct retire_slot_table *t);
void retire_slot_chunk_free(struct retire_slot_table *t, void *chunk);
void retire_slot_chunk_add_locked(struct retire_slot_table *t, void *chunk);
int retire_slot_reserve(struct retire_slot_table *t, u32 want);

/*
 * The hot half of the table, inline: every request, token and job takes
 * and gives back a slot, and every event looks one up.
 */

/**
 * retire_slot_get() - the object in slot @idx, whatever its state
 * @t:		the table
 * @idx:	below @t->nr
 *
 * Return: the object. For walks and the record path, which hold the slot.
 */
static inline void *retire_slot_get(const struct retire_slot_table *t,
				    u32 idx)
{
	return t->chunks[idx >> RETIRE_SLOT_CHUNK_SHIFT] +
	       (idx & (RETIRE_SLOT_CHUNK - 1)) * t->obj_size;
}

/**
 * retire_slot_alloc_locked() - start a new incarnation in a free slot
 * @t:		the table
 * @handle:	its handle
 *
 * Return: the object, or NULL if no slot is free.
 */
static inline void *retire_slot_alloc_locked(struct retire_slot_table *t,
					     u64 *handle)
{
	struct retire_slot *s;
	u32 idx = t->free_head;

	lockdep_assert_held(t->lock);
	if (idx == RETIRE_SLOT_NONE)
		return NULL;
	s = retire_slot_get(t, idx);
	t->free_head = s->next_free;
	s->next_free = RETIRE_SLOT_NONE;
	s->live = 1;
	s->busy = 1;
	t->used++;
	t->nfree--;
	*handle = retire_handle_make(t->kind, idx, s->gen);
	return s;
}

/**
 * retire_slot_lookup_locked() - resolve a handle to its live object
 * @t:		the table
 * @handle:	from userspace, an engine, a timer: anything
 *
 * Only the table's own fields and the slot header are read before the
 * handle is known to match.
 *
 * Return: the object, or NULL for a wrong kind, an index never issued, or
 * an incarnation that has ended (a stale handle).
 */
static inline void *
retire_slot_lookup_locked(const struct retire_slot_table *t, u64 handle)
{
	u32 idx = retire_handle_slot(handle);
	struct retire_slot *s;

	lockdep_assert_held(t->lock);
	if (retire_handle_kind(handle) != t->kind || idx >= t->nr)
		return NULL;
	s = retire_slot_get(t, idx);
	if (!s->live || s->gen != retire_handle_gen(handle))
		return NULL;
	return s;
}

/**
 * retire_slot_gen_locked() - the generation a handle's slot has now
 * @t:		the table
 * @handle:	any handle (a stale one, to say what it met)
 *
 * Return: the slot's generation (its live incarnation's, or the next
 * one's), or 0 for a wrong kind or an index never issued.
 */
static inline u32 retire_slot_gen_locked(const struct retire_slot_table *t,
					 u64 handle)
{
	u32 idx = retire_handle_slot(handle);
	const struct retire_slot *s;

	lockdep_assert_held(t->lock);
	if (retire_handle_kind(handle) != t->kind || idx >= t->nr)
		return 0;
	s = retire_slot_get(t, idx);
	return s->gen;
}

/**
 * retire_slot_kill_locked() - end the current incarnation
 * @t:	the table
 * @s:	a live slot
 *
 * Its handle stops resolving at once and the generation moves on; the slot
 * stays busy until retire_slot_release_locked(), for a record that still
 * names the ended incarnation.
 */
static inline void retire_slot_kill_locked(struct retire_slot_table *t,
					   struct retire_slot *s)
{
	lockdep_assert_held(t->lock);
	if (WARN_ON_ONCE(!s->live))
		return;
	s->live = 0;
	if (!t->kind)
		return;
	if (s->gen >= t->gen_max)
		s->exhausted = 1;
	else
		s->gen++;
}

/**
 * retire_slot_release_locked() - return a killed slot to the free list
 * @t:		the table
 * @s:		a busy, killed slot
 * @idx:	its index
 *
 * The caller has made sure nothing (timer, work item) still runs for the
 * ended incarnation. An exhausted slot is never reused.
 */
static inline void retire_slot_release_locked(struct retire_slot_table *t,
					      struct retire_slot *s, u32 idx)
{
	lockdep_assert_held(t->lock);
	if (WARN_ON_ONCE(s->live || !s->busy))
		return;
	s->busy = 0;
	t->used--;
	if (s->exhausted)
		return;
	s->next_free = t->free_head;
	t->free_head = idx;
	t->nfree++;
}

#endif /* _RETIRE_SLOT_H */
