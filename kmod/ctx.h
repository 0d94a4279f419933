/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_CTX_H
#define _RETIRE_CTX_H

#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/timerqueue.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/retire.h>

#include "engine.h"
#include "keys.h"
#include "slot.h"
#include "stats.h"

struct dentry;
struct retire_engine;
struct retire_history;
struct retire_ring;

/**
 * struct retire_ctx - one open file description of /dev/retire
 * @ref:	the open file's reference (and any retire_ctx_get() took);
 *		requests hold none.
 *		release() hands it to the reaper, which drops it once no
 *		request is unretired and no record is owed, so a context
 *		outlives its file for as long as any device work names it.
 *		The last put frees it from a work item.
 * @lock:	IRQ-safe: terminal events arrive from hrtimers and work items.
 *		Nothing sleeps or allocates under it.
 * @mutex:	serializes the owner's commands that may grow a table
 *		(SUBMIT, BORROW, HANDOFF), record delivery and the reaper;
 *		request and token chunks are allocated under it, outside
 *		@lock. User memory may be touched under it, so CANCEL, RETIRE
 *		and RETURN never take it (op.c).
 * @buf_mutex:	serializes buffer registration, unregistration and mmap();
 *		taken under mmap_lock, so never held around user copies.
 * @limits:	this context's bounds, never above the module caps.
 * @bufs:	buffer slots (RETIRE_KIND_BUF).
 * @reqs:	request slots (RETIRE_KIND_REQ).
 * @jobs:	the engine's jobs: one per request that may be active (at
 *		most max_active), given to a request when it starts and back
 *		at its terminal event.
 * @tokens:	borrow-token slots (RETIRE_KIND_TOKEN).
 * @ready_head:	the first request with records to deliver (a slot index,
 *		RETIRE_SLOT_NONE if none); requests join in the order they
 *		became ready. The list threads through the requests, so
 *		delivery never allocates and a slow reader loses nothing.
 * @ready_tail:	the last of them.
 * @flow:	its turn at a device that serves contexts in turn: the
 *		engine's, under the engine's lock (engine.h)
 * @keys:	admitted requests not yet handed to the engine, and what each
 *		key has in flight: which waiting request starts next (keys.c).
 * @active_list: requests the device holds, in the order their watchdogs
 *		expire.
 * @deadlines:	the deadlines of requests that have one, by expiry.
 * @timer:	one timer for every watchdog and deadline: armed for the
 *		first expiry it knows of, it acts on what has expired and
 *		re-arms for the next (cancel.c).
 * @activating: an activation pass is under way: an activation inside it
 *		(an engine completing inline) leaves the work to it.
 * @stage:	records being handed to the reader, RETIRE_SUBMIT_MAX of
 *		them, allocated at the first read that wants more than one;
 *		protected by @mutex.
 * @waiting_nr:	requests admitted and not yet started.
 * @active:	requests the engine holds.
 * @quarantined: requests in quarantine: admission stops while non-zero.
 * @epochs:	per-key intent generations (the publication predicate),
 *		each with the @intent its last bump took.
 * @nr_epochs:	keys in @epochs.
 * @authority:	the authority generation; revoking moves it on.
 * @revoked_at:	the @intent the last revocation took.
 * @intent:	moves on at every bump and revocation: a request admitted
 *		at the current value has seen no change of intent since.
 * @pool_lru:	the FREE module buffers, least recently back in the pool
 *		first (struct retire_buf.lru): eviction takes from the head.
 * @pool_free_bytes: their bytes: what eviction could give back.
 * @node:	on the module's list of contexts (engine resets walk it).
 * @id:		the context's number in netlink messages, never reused.
 * @owner:	the thread group that opened it.
 * @uid:	the effective user that opened it (whose netlink dumps show it).
 * @stale_dirty: stale counters changed since the last notification.
 * @health_dirty: the quarantine count changed since the last notification.
 * @ntf_work:	sends the coalesced stale notification.
 * @health_work: sends the health notification.
 * @unretired:	admitted requests not yet retired.
 * @reserved_bytes: bytes reserved by unretired requests.
 * @closed:	the file is gone: the reaper consumes every record.
 * @waitq:	readers waiting for records, and cancels waiting for
 *		terminal events (every terminal event owes a record).
 * @terminals:	terminal events so far, wrapping: what a cancel's wait
 *		compares, without the lock, to know one came.
 * @activate_work: starts the waiting requests an activation pass left
 *		behind after RETIRE_CTX_BATCH that an engine ran inline.
 * @reap_work:	the reaper, run on the module's workqueue.
 * @free_work:	frees the context after its last reference.
 * @fences:	the out-fences of requests in flight, by slot index.
 * @gates:	the gated requests' waits for their in-fences.
 * @gates_done:	the waits whose fence has signalled, for @gate_work.
 * @gate_work:	lets the requests of @gates_done go on (fence.c).
 * @reaped:	bit 0: the reaper dropped the reference release() gave it.
 * @engine:	the device behind this context, held; changed only under
 *		@mutex and @lock while no request is unretired.
 * @ring:	the rings shared with the caller, once set up; set once under
 *		@mutex and kept until the context is freed.
 * @stats:	counters.
 * @history:	the last RETIRE_HISTORY_LEN events (history.h).
 * @comm:	the opener's command name, for debugfs.
 * @debugfs:	its directory in debugfs, NULL without one.
 */
struct retire_ctx {
	struct kref ref;
	spinlock_t lock;		/* IRQ-safe: see above */
	struct mutex mutex;		/* requests, records, reaper */
	struct mutex buf_mutex;		/* buffers */
	struct retire_limits limits;	/* protected by @lock */
	struct retire_slot_table bufs;	/* protected by @lock */
	struct retire_slot_table reqs;	/* protected by @lock */
	struct retire_slot_table jobs;	/* protected by @lock */
	struct retire_slot_table tokens;	/* protected by @lock */
	u32 ready_head;			/* protected by @lock */
	u32 ready_tail;			/* protected by @lock */
	struct retire_flow flow;
	struct retire_keys keys;	/* protected by @lock */
	struct list_head active_list;	/* protected by @lock */
	struct timerqueue_head deadlines;	/* protected by @lock */
	struct hrtimer timer;
	bool activating;		/* protected by @lock */
	struct retire_cqe *stage;	/* protected by @mutex */
	u32 waiting_nr;			/* protected by @lock */
	u32 active;			/* protected by @lock */
	u32 quarantined;		/* protected by @lock */
	struct {
		u64 key;
		u64 epoch;
		u64 bumped_at;
	} epochs[RETIRE_EPOCH_KEYS];	/* protected by @lock */
	u32 nr_epochs;			/* protected by @lock */
	u64 authority;			/* protected by @lock */
	u64 revoked_at;			/* protected by @lock */
	u64 intent;			/* protected by @lock */
	struct list_head pool_lru;	/* protected by @lock */
	u64 pool_free_bytes;		/* protected by @lock */
	struct list_head node;		/* protected by retire_ctx_list_mutex */
	u64 id;
	struct pid *owner;
	kuid_t uid;
	bool stale_dirty;		/* protected by @lock */
	bool health_dirty;		/* protected by @lock */
	struct delayed_work ntf_work;
	struct work_struct health_work;
	u32 unretired;			/* protected by @lock */
	u64 reserved_bytes;		/* protected by @lock */
	bool closed;			/* protected by @lock */
	wait_queue_head_t waitq;
	u32 terminals;			/* written under @lock */
	struct work_struct activate_work;
	struct work_struct reap_work;
	struct work_struct free_work;
	struct xarray fences;		/* written under @lock */
	struct list_head gates;		/* protected by @lock */
	struct llist_head gates_done;
	struct work_struct gate_work;
	unsigned long reaped;
	struct retire_engine *engine;
	struct retire_ring *ring;
	struct retire_ctx_stats stats;	/* protected by @lock */
	struct retire_history *history;	/* protected by @lock */
	char comm[TASK_COMM_LEN];
	struct dentry *debugfs;
};

struct retire_ctx *retire_ctx_create(struct retire_engine *engine);
int retire_ctx_set_engine(struct retire_ctx *ctx, u32 id);
void retire_ctx_get(struct retire_ctx *ctx);
void retire_ctx_put(struct retire_ctx *ctx);
void retire_ctx_release(struct retire_ctx *ctx);
void retire_ctx_kick_reaper(struct retire_ctx *ctx);
void retire_ctx_walk(void (*fn)(struct retire_ctx *ctx));
/*
 * The most slots or requests a walk looks at in one hold of a context's
 * lock (interrupts off): a longer walk drops the lock between batches.
 */
#define RETIRE_CTX_BATCH	64

/* a visit of retire_ctx_walk_after(): non-zero stops the walk */
typedef int (*retire_ctx_visit_t)(struct retire_ctx *ctx, void *arg);

int retire_ctx_walk_after(u64 id, retire_ctx_visit_t fn, void *arg);
void retire_ctx_stale_locked(struct retire_ctx *ctx, enum retire_stat kind,
			     const struct retire_slot_table *t, u64 handle);

/**
 * retire_ctx_lookup_locked() - the live object a handle names, or a stale
 *				notification
 * @ctx:	the context
 * @t:		the table of the handle's kind
 * @handle:	what the caller named
 * @kind:	RETIRE_ST_STALE_* to count if it names nothing live
 *
 * Every path that takes a handle from outside looks it up here: a handle
 * of another kind, a freed slot or an older generation is counted and
 * told, never dereferenced. Inline: every request's admission looks its
 * buffer up.
 *
 * Return: the object, or NULL (counted).
 */
static inline void *retire_ctx_lookup_locked(struct retire_ctx *ctx,
					     const struct retire_slot_table *t,
					     u64 handle, enum retire_stat kind)
{
	void *obj = retire_slot_lookup_locked(t, handle);

	if (unlikely(!obj))
		retire_ctx_stale_locked(ctx, kind, t, handle);
	return obj;
}

void retire_ctx_health_locked(struct retire_ctx *ctx);
int retire_ctx_set_limits(struct retire_ctx *ctx,
			  const struct retire_limits *l);
int retire_ctx_epoch(struct retire_ctx *ctx, u32 op, u64 key, u64 *epoch,
		     u64 *authority);
int retire_ctx_init(void);
void retire_ctx_exit(void);

extern struct workqueue_struct *retire_wq;

#endif /* _RETIRE_CTX_H */
