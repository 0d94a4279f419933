/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_KEYS_H
#define _RETIRE_KEYS_H

#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/siphash.h>
#include <linux/types.h>

struct retire_ctx;
struct retire_limits;
struct retire_req;

/**
 * struct retire_key - what one key of a context has in flight
 * @hash:	in retire_keys.hash while the key has a request active or
 *		waiting; on retire_keys.free while spare
 * @parked:	its waiting requests held back by max_active_per_key, FIFO
 * @parked_node: on retire_keys.parked (or .raised) while @parked is not
 *		empty
 * @active_node: on retire_keys.active while @active is not 0
 * @key:	the key
 * @h:		its keyed hash: the bucket, in a table of any size
 * @active:	its requests the engine holds
 * @ready:	its waiting requests on retire_keys.ready
 */
struct retire_key {
	struct hlist_node hash;
	struct list_head parked;
	struct list_head parked_node;
	struct list_head active_node;
	u64 key;
	u32 h;
	u32 active;
	u32 ready;
};

/**
 * struct retire_keys - which waiting request of a context starts next
 * @hash:	the keys with requests active or waiting, by a keyed hash
 * @old:	while @hash grows: the table before it, whose buckets from
 *		@moved on still hold their keys (a few move at each change)
 * @spent:	a table emptied by growth, freed outside the lock
 * @seed:	the hash's key, random per context: no caller can choose
 *		keys that share a bucket
 * @bits:	log2 of the buckets in @hash
 * @moved:	buckets of @old already moved into @hash
 * @nr:		keys in the tables
 * @last_key:	the key hashed last: admission looks a key up twice, and a
 *		run of requests often shares one
 * @last_h:	its hash
 * @nr_free:	entries on @free
 * @free:	spare entries: admission takes one for a new key without
 *		allocating under the context lock (retire_keys_reserve())
 * @parked:	keys with parked requests
 * @raised:	keys with parked requests that a raised max_active_per_key
 *		may let go: the activation pass moves them, a bounded number
 *		to a hold of the lock
 * @active:	keys with active requests (at most max_active of them)
 * @ready:	the waiting requests whose key has room, oldest first
 * @seq:	admission order of waiting requests (req->seq)
 *
 * All protected by the context's lock.
 */
struct retire_keys {
	struct hlist_head *hash;
	struct hlist_head *old;
	struct hlist_head *spent;
	siphash_key_t seed;
	u8 bits;
	u32 moved;
	u32 nr;
	u32 last_h;
	u64 last_key;
	u32 nr_free;
	struct hlist_head free;
	struct list_head parked;
	struct list_head raised;
	struct list_head active;
	struct rb_root_cached ready;
	u32 seq;
};

int retire_keys_init(struct retire_keys *keys, const struct retire_limits *caps);
void retire_keys_destroy(struct retire_keys *keys);
bool retire_keys_need_room_locked(struct retire_keys *keys);
int retire_keys_reserve(struct retire_ctx *ctx);
bool retire_keys_may_start_locked(struct retire_ctx *ctx, u64 key);
void retire_keys_start_locked(struct retire_ctx *ctx, struct retire_req *req);
void retire_keys_wait_locked(struct retire_ctx *ctx, struct retire_req *req);
void retire_keys_unwait_locked(struct retire_ctx *ctx, struct retire_req *req);
void retire_keys_end_locked(struct retire_ctx *ctx, struct retire_req *req);
struct retire_req *retire_keys_next_locked(struct retire_ctx *ctx,
					   bool *stepped);
struct retire_req *retire_keys_any_waiting_locked(struct retire_ctx *ctx);
void retire_keys_raised_locked(struct retire_ctx *ctx);
u32 retire_keys_active_max_locked(struct retire_ctx *ctx);

#endif /* _RETIRE_KEYS_H */
