// SPDX-License-Identifier: GPL-2.0
/*
 * Which waiting request of a context starts next, at O(1) a decision.
 *
 * A context bounds the requests the engine holds at once (max_active) and
 * those of one key (max_active_per_key). Requests start oldest first; one
 * whose key is at its bound is passed over, so it never holds back the
 * keys behind it. Each key counts what it has in flight, so no decision
 * walks the active requests, and a waiting request is in one of two
 * places, so no walk visits one that cannot start:
 *
 * - ready: its key has room. The ready requests of every key form one
 *   tree in admission order; the oldest starts when max_active allows.
 * - parked: its key's active and ready requests fill its bound. Parked
 *   requests wait on their key, FIFO; each time one of the key's requests
 *   ends (or a ready one is cancelled), the oldest parked one becomes
 *   ready.
 *
 * So a key's ready requests are always its oldest waiting ones, and a key
 * with parked requests has active + ready >= max_active_per_key, except
 * for the keys on @raised, whose bound was just raised. A lowered bound
 * needs no pass of its own: a ready request whose key has reached the new
 * bound is parked again, in admission order, when it comes up.
 *
 * Everything here runs under the context's lock with interrupts off, and
 * allocates nothing: admission reserves a spare key entry beforehand, and
 * a bigger table when the keys outgrow this one (two per bucket). The
 * keys then move a few buckets at a time, at each key added or removed, so
 * no hold of the lock rehashes a million of them: until the last bucket
 * has moved, a key's bucket is in the old table if its old bucket has not
 * moved yet, in the new one if it has.
 */

#include <linux/log2.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include <linux/retire.h>

#include "ctx.h"
#include "keys.h"
#include "req.h"

/**
 * retire_keys_init() - an empty table sized for the module caps
 * @keys:	the context's
 * @caps:	the module caps
 *
 * One bucket for every eight requests that may be in flight at the caps
 * (16 to 1,024 buckets): lookups stay short at the caps, and a small
 * context does not pay for a large table.
 *
 * Return: 0 or -ENOMEM.
 */
int retire_keys_init(struct retire_keys *keys, const struct retire_limits *caps)
{
	u64 n = ((u64)caps->max_active + caps->max_waiting) / 8;

	keys->bits = clamp_t(u32, order_base_2(max_t(u64, n, 1)), 4, 10);
	keys->old = NULL;
	keys->spent = NULL;
	keys->moved = 0;
	keys->nr = 0;
	keys->hash = kvcalloc(1U << keys->bits, sizeof(*keys->hash),
			      GFP_KERNEL_ACCOUNT);
	if (!keys->hash)
		return -ENOMEM;
	get_random_bytes(&keys->seed, sizeof(keys->seed));
	/* the hash of key 0, the key of a request that names none */
	keys->last_key = 0;
	keys->last_h = siphash_1u64(0, &keys->seed) >> 32;
	INIT_HLIST_HEAD(&keys->free);
	INIT_LIST_HEAD(&keys->parked);
	INIT_LIST_HEAD(&keys->raised);
	INIT_LIST_HEAD(&keys->active);
	keys->ready = RB_ROOT_CACHED;
	return 0;
}

/**
 * retire_keys_destroy() - free the table and the spare entries
 * @keys:	the keys of a context with nothing in flight
 */
void retire_keys_destroy(struct retire_keys *keys)
{
	struct retire_key *k;
	struct hlist_node *tmp;
	u32 b;

	if (!keys->hash)
		return;
	for (b = 0; b < (1U << keys->bits); b++)
		WARN_ON_ONCE(!hlist_empty(&keys->hash[b]));
	for (b = 0; keys->old && b < (1U << (keys->bits - 1)); b++)
		WARN_ON_ONCE(!hlist_empty(&keys->old[b]));
	hlist_for_each_entry_safe(k, tmp, &keys->free, hash)
		kfree(k);
	kvfree(keys->old);
	kvfree(keys->spent);
	kvfree(keys->hash);
	keys->hash = NULL;
}

/* the most buckets a table grows to: 2^20 (8 MiB), two million keys */
#define RETIRE_KEYS_MAX_BITS	20
/* buckets moved from the old table at each key added or removed */
#define RETIRE_KEYS_MOVE	4

/* the table's next size if it is due to grow, else 0 */
static u8 retire_keys_grow_bits_locked(const struct retire_keys *keys)
{
	if (keys->old || keys->bits >= RETIRE_KEYS_MAX_BITS ||
	    keys->nr < (2U << keys->bits))
		return 0;
	return keys->bits + 1;
}

/**
 * retire_keys_need_room_locked() - must admission call retire_keys_reserve()?
 * @keys:	the context's, under its lock
 *
 * Return: true without a spare entry for a new key, when the table is due
 * to grow, or when a table emptied by growth waits to be freed.
 */
bool retire_keys_need_room_locked(struct retire_keys *keys)
{
	return !keys->nr_free || keys->spent ||
	       retire_keys_grow_bits_locked(keys);
}
EXPORT_SYMBOL_IF_KUNIT(retire_keys_need_room_locked);

/**
 * retire_keys_reserve() - room for the next admission's key
 * @ctx:	the context; the caller holds its mutex, not its lock
 *
 * A spare entry if there is none; a table twice the size if the keys
 * outgrew this one (without it lookups are longer, nothing fails); and
 * the table that growth emptied, freed.
 *
 * Return: 0 or -ENOMEM (no spare entry).
 */
int retire_keys_reserve(struct retire_ctx *ctx)
{
	struct retire_keys *keys = &ctx->keys;
	struct hlist_head *grown = NULL, *spent;
	struct retire_key *k = NULL;
	bool spare;
	u8 bits;

	spin_lock_irq(&ctx->lock);
	spent = keys->spent;
	keys->spent = NULL;
	spare = !keys->nr_free;
	bits = retire_keys_grow_bits_locked(keys);
	spin_unlock_irq(&ctx->lock);

	kvfree(spent);
	if (spare) {
		k = kzalloc(sizeof(*k), GFP_KERNEL_ACCOUNT);
		if (!k)
			return -ENOMEM;
	}
	/* a table that cannot grow is only slower: no warning for it */
	if (bits)
		grown = kvcalloc(1U << bits, sizeof(*grown),
				 GFP_KERNEL_ACCOUNT | __GFP_NOWARN);

	spin_lock_irq(&ctx->lock);
	if (k) {
		hlist_add_head(&k->hash, &keys->free);
		keys->nr_free++;
	}
	/* another caller may have grown it meanwhile */
	if (grown && retire_keys_grow_bits_locked(keys) == bits) {
		keys->old = keys->hash;
		keys->hash = grown;
		keys->bits = bits;
		keys->moved = 0;
		grown = NULL;
	}
	spin_unlock_irq(&ctx->lock);
	kvfree(grown);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(retire_keys_reserve);

/*
 * @key's keyed hash, 32 bits of it (the table has at most 2^20 buckets):
 * what the caller cannot choose. The last one is kept.
 */
static u32 retire_key_hash(struct retire_keys *keys, u64 key)
{
	if (key != keys->last_key) {
		keys->last_key = key;
		keys->last_h = siphash_1u64(key, &keys->seed) >> 32;
	}
	return keys->last_h;
}

/* the bucket of the key whose hash is @h, in whichever table holds it */
static struct hlist_head *retire_key_bucket(struct retire_keys *keys, u32 h)
{
	u32 b;

	if (unlikely(keys->old)) {
		b = h >> (32 - (keys->bits - 1));
		if (b >= keys->moved)
			return &keys->old[b];
	}
	return &keys->hash[h >> (32 - keys->bits)];
}

/* move a few more buckets of the old table into the new one */
static void retire_keys_move_locked(struct retire_keys *keys)
{
	struct hlist_node *tmp;
	struct retire_key *k;
	u32 i;

	for (i = 0; keys->old && i < RETIRE_KEYS_MOVE; i++) {
		hlist_for_each_entry_safe(k, tmp, &keys->old[keys->moved],
					  hash) {
			hlist_del(&k->hash);
			hlist_add_head(&k->hash,
				       &keys->hash[k->h >> (32 - keys->bits)]);
		}
		if (++keys->moved == 1U << (keys->bits - 1)) {
			/* freed outside the lock, at the next reserve */
			keys->spent = keys->old;
			keys->old = NULL;
		}
	}
}

/* the entry of @key, whose hash is @h */
static struct retire_key *retire_key_find_locked(struct retire_keys *keys,
						 u64 key, u32 h)
{
	struct retire_key *k;

	hlist_for_each_entry(k, retire_key_bucket(keys, h), hash)
		if (k->key == key)
			return k;
	return NULL;
}

/* the entry of @req's key: it has one while the request waits or is active */
static struct retire_key *retire_key_of_locked(struct retire_keys *keys,
					       const struct retire_req *req)
{
	return retire_key_find_locked(keys, req->key, req->kh);
}

/* @req's key's entry, a spare one if it has none: admission reserved it */
static struct retire_key *retire_key_get_locked(struct retire_keys *keys,
						struct retire_req *req)
{
	struct retire_key *k;
	u64 key = req->key;

	req->kh = retire_key_hash(keys, key);
	k = retire_key_find_locked(keys, key, req->kh);
	if (k)
		return k;
	k = hlist_entry_safe(keys->free.first, struct retire_key, hash);
	if (WARN_ON_ONCE(!k))
		return NULL;
	hlist_del(&k->hash);
	keys->nr_free--;
	k->key = key;
	k->h = req->kh;
	k->active = 0;
	k->ready = 0;
	INIT_LIST_HEAD(&k->parked);
	INIT_LIST_HEAD(&k->parked_node);
	retire_keys_move_locked(keys);
	hlist_add_head(&k->hash, retire_key_bucket(keys, k->h));
	keys->nr++;
	return k;
}

/* a key with nothing in flight gives its entry back */
static void retire_key_put_locked(struct retire_keys *keys,
				  struct retire_key *k)
{
	if (k->active || k->ready || !list_empty(&k->parked))
		return;
	hlist_del(&k->hash);
	keys->nr--;
	retire_keys_move_locked(keys);
	/* a few spares kept, the rest freed: kfree() may run with IRQs off */
	if (keys->nr_free >= RETIRE_CTX_BATCH) {
		kfree(k);
		return;
	}
	hlist_add_head(&k->hash, &keys->free);
	keys->nr_free++;
}

static bool retire_key_has_room(const struct retire_ctx *ctx,
				const struct retire_key *k)
{
	return k->active + k->ready < ctx->limits.max_active_per_key;
}

/* is @a admitted before @b? (seq wraps; t_admit never goes back) */
static bool retire_req_before(const struct retire_req *a,
			      const struct retire_req *b)
{
	if (a->t_admit != b->t_admit)
		return a->t_admit < b->t_admit;
	return (s32)(a->seq - b->seq) < 0;
}

static bool retire_ready_less(struct rb_node *a, const struct rb_node *b)
{
	return retire_req_before(rb_entry(a, struct retire_req, rb),
				 rb_entry(b, struct retire_req, rb));
}

static void retire_keys_ready_add(struct retire_ctx *ctx, struct retire_key *k,
				  struct retire_req *req)
{
	req->parked = false;
	k->ready++;
	rb_add_cached(&req->rb, &ctx->keys.ready, retire_ready_less);
}

static void retire_keys_park_tail(struct retire_ctx *ctx, struct retire_key *k,
				  struct retire_req *req)
{
	if (list_empty(&k->parked))
		list_add_tail(&k->parked_node, &ctx->keys.parked);
	req->parked = true;
	list_add_tail(&req->node, &k->parked);
}

/* the oldest parked request of @k becomes ready */
static void retire_key_unpark_locked(struct retire_ctx *ctx,
				     struct retire_key *k)
{
	struct retire_req *req = list_first_entry(&k->parked, struct retire_req,
						  node);

	list_del(&req->node);
	if (list_empty(&k->parked))
		list_del_init(&k->parked_node);
	retire_keys_ready_add(ctx, k, req);
}

/* one request of @k left the key's bound: its oldest parked one may go */
static void retire_key_room_locked(struct retire_ctx *ctx,
				   struct retire_key *k)
{
	if (!list_empty(&k->parked) && retire_key_has_room(ctx, k))
		retire_key_unpark_locked(ctx, k);
}

/**
 * retire_keys_may_start_locked() - may a request with @key start at once?
 * @ctx:	the context
 * @key:	the new request's key
 *
 * Only when nothing waits ahead of it: no ready request, no raised bound
 * still being applied, its key below its bound with nothing parked.
 *
 * Return: true if it starts at admission.
 */
bool retire_keys_may_start_locked(struct retire_ctx *ctx, u64 key)
{
	struct retire_key *k;

	lockdep_assert_held(&ctx->lock);
	if (ctx->active >= ctx->limits.max_active ||
	    !RB_EMPTY_ROOT(&ctx->keys.ready.rb_root) ||
	    !list_empty(&ctx->keys.raised))
		return false;
	k = retire_key_find_locked(&ctx->keys, key,
				   retire_key_hash(&ctx->keys, key));
	return !k || (retire_key_has_room(ctx, k) && list_empty(&k->parked));
}

/**
 * retire_keys_start_locked() - @req is handed to the engine
 * @ctx:	the context
 * @req:	a new request that may start, or one retire_keys_next_locked()
 *		gave
 */
void retire_keys_start_locked(struct retire_ctx *ctx, struct retire_req *req)
{
	struct retire_key *k = retire_key_get_locked(&ctx->keys, req);

	lockdep_assert_held(&ctx->lock);
	if (k && !k->active++)
		list_add_tail(&k->active_node, &ctx->keys.active);
}

/**
 * retire_keys_wait_locked() - a new request waits
 * @ctx:	the context
 * @req:	admitted, not started
 */
void retire_keys_wait_locked(struct retire_ctx *ctx, struct retire_req *req)
{
	struct retire_key *k = retire_key_get_locked(&ctx->keys, req);

	lockdep_assert_held(&ctx->lock);
	if (WARN_ON_ONCE(!k))
		return;
	req->seq = ctx->keys.seq++;
	if (retire_key_has_room(ctx, k) && list_empty(&k->parked))
		retire_keys_ready_add(ctx, k, req);
	else
		retire_keys_park_tail(ctx, k, req);
}
EXPORT_SYMBOL_IF_KUNIT(retire_keys_wait_locked);

/**
 * retire_keys_unwait_locked() - a waiting request is cancelled
 * @ctx:	the context
 * @req:	WAITING
 */
void retire_keys_unwait_locked(struct retire_ctx *ctx, struct retire_req *req)
{
	struct retire_key *k = retire_key_of_locked(&ctx->keys, req);

	lockdep_assert_held(&ctx->lock);
	if (WARN_ON_ONCE(!k))
		return;
	if (req->parked) {
		list_del(&req->node);
		if (list_empty(&k->parked))
			list_del_init(&k->parked_node);
	} else {
		rb_erase_cached(&req->rb, &ctx->keys.ready);
		k->ready--;
		retire_key_room_locked(ctx, k);
	}
	retire_key_put_locked(&ctx->keys, k);
}
EXPORT_SYMBOL_IF_KUNIT(retire_keys_unwait_locked);

/**
 * retire_keys_end_locked() - an active request's terminal event
 * @ctx:	the context
 * @req:	was ACTIVE
 */
void retire_keys_end_locked(struct retire_ctx *ctx, struct retire_req *req)
{
	struct retire_key *k = retire_key_of_locked(&ctx->keys, req);

	lockdep_assert_held(&ctx->lock);
	if (WARN_ON_ONCE(!k))
		return;
	if (!--k->active)
		list_del(&k->active_node);
	retire_key_room_locked(ctx, k);
	retire_key_put_locked(&ctx->keys, k);
}

/* put @req back among its key's parked requests, in admission order */
static void retire_keys_repark(struct retire_ctx *ctx, struct retire_key *k,
			       struct retire_req *req)
{
	struct retire_req *pos;
	struct list_head *at = &k->parked;

	/* the ones parked again before it are at the head: a short walk */
	list_for_each_entry(pos, &k->parked, node) {
		if (retire_req_before(req, pos)) {
			at = &pos->node;
			break;
		}
	}
	if (list_empty(&k->parked))
		list_add_tail(&k->parked_node, &ctx->keys.parked);
	req->parked = true;
	list_add_tail(&req->node, at);
}

/**
 * retire_keys_next_locked() - one step of an activation pass
 * @ctx:	the context, with room for one more active request
 * @again:	set when the step did work without giving a request (a
 *		raised bound applied to one key, or a request that a lowered
 *		bound holds back parked again): the pass should step again
 *
 * Return: the oldest ready request, taken off the tree, for the caller to
 * start; NULL if there is none (or the step did other work).
 */
struct retire_req *retire_keys_next_locked(struct retire_ctx *ctx, bool *again)
{
	struct retire_keys *keys = &ctx->keys;
	struct retire_req *req;
	struct retire_key *k;
	struct rb_node *n;

	lockdep_assert_held(&ctx->lock);
	*again = false;
	k = list_first_entry_or_null(&keys->raised, struct retire_key,
				     parked_node);
	if (k) {
		/* one request a step: the pass bounds its own length */
		if (retire_key_has_room(ctx, k)) {
			retire_key_unpark_locked(ctx, k);
			if (list_empty(&k->parked))
				goto stepped;
			if (retire_key_has_room(ctx, k))
				goto stepped;
		}
		list_move_tail(&k->parked_node, &keys->parked);
		goto stepped;
	}
	n = rb_first_cached(&keys->ready);
	if (!n)
		return NULL;
	req = rb_entry(n, struct retire_req, rb);
	rb_erase_cached(n, &keys->ready);
	k = retire_key_of_locked(keys, req);
	if (WARN_ON_ONCE(!k))
		return req;
	k->ready--;
	if (k->active >= ctx->limits.max_active_per_key) {
		/* a lowered bound: it waits for one of its key to end */
		retire_keys_repark(ctx, k, req);
		goto stepped;
	}
	return req;
stepped:
	*again = true;
	return NULL;
}

/**
 * retire_keys_any_waiting_locked() - a waiting request, if there is one
 * @ctx:	the context
 *
 * Return: the oldest ready request, else the oldest parked one of some
 * key, else NULL; it stays where it is.
 */
struct retire_req *retire_keys_any_waiting_locked(struct retire_ctx *ctx)
{
	struct retire_keys *keys = &ctx->keys;
	struct retire_key *k;
	struct rb_node *n;

	lockdep_assert_held(&ctx->lock);
	n = rb_first_cached(&keys->ready);
	if (n)
		return rb_entry(n, struct retire_req, rb);
	k = list_first_entry_or_null(&keys->parked, struct retire_key,
				     parked_node);
	if (!k)
		k = list_first_entry_or_null(&keys->raised, struct retire_key,
					     parked_node);
	return k ? list_first_entry(&k->parked, struct retire_req, node) : NULL;
}

/**
 * retire_keys_raised_locked() - max_active_per_key was raised
 * @ctx:	the context, its new limits in force
 *
 * Every key with parked requests may now let some go: the activation
 * passes that follow move them, a bounded number to a hold of the lock.
 */
void retire_keys_raised_locked(struct retire_ctx *ctx)
{
	lockdep_assert_held(&ctx->lock);
	list_splice_tail_init(&ctx->keys.parked, &ctx->keys.raised);
}

/**
 * retire_keys_active_max_locked() - the most active requests of one key
 * @ctx:	the context
 *
 * A walk of the keys with active requests: at most max_active of them,
 * however many wait. For LIMITS SET only.
 *
 * Return: the largest number of active requests sharing a key.
 */
u32 retire_keys_active_max_locked(struct retire_ctx *ctx)
{
	struct retire_key *k;
	u32 most = 0;

	lockdep_assert_held(&ctx->lock);
	list_for_each_entry(k, &ctx->keys.active, active_node)
		most = max(most, k->active);
	return most;
}
