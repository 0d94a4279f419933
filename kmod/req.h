/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_REQ_H
#define _RETIRE_REQ_H

#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include "slot.h"

struct retire_ctx;
struct retire_buf;
struct retire_op;
struct retire_cqe;
struct retire_engine_result;
struct retire_limits;

/*
 * A request's states. The device may access the buffer in WAITING (once
 * admitted it may start at any time) and ACTIVE; only the device's
 * terminal event ends that access.
 */
enum retire_req_state {
	RETIRE_REQ_FREE,
	RETIRE_REQ_WAITING,	/* admitted, not yet handed to the device */
	RETIRE_REQ_ACTIVE,	/* the device owns the buffer range */
	RETIRE_REQ_TERMINATED,	/* device done: its access has ended */
	RETIRE_REQ_RETIRED,	/* buffer back in its pool; RETIRED record owed */
};

/* records owed to the reader, delivered in this order */
#define RETIRE_PEND_TIMEOUT	BIT(0)
#define RETIRE_PEND_CANCEL_ACK	BIT(1)
#define RETIRE_PEND_QUARANTINE	BIT(2)
#define RETIRE_PEND_TERMINAL	BIT(3)
#define RETIRE_PEND_RETIRED	BIT(4)

struct retire_deadline;
struct retire_gate;

/**
 * struct retire_req - one asynchronous device operation
 * @slot:	slot header (RETIRE_KIND_REQ)
 * @state:	enum retire_req_state
 * @pending:	RETIRE_PEND_* records not yet read
 * @outcome:	RETIRE_OUTCOME_* of the terminal event
 * @dev_flags:	RETIRE_DEV_*
 * @timed_out:	the deadline expired before the terminal event
 * @cancel_requested: a cancel named it
 * @logical_done: logically outstanding ended (first of terminal, timeout,
 *		cancel)
 * @terminal_read: the reader has the TERMINAL record: the owner may retire
 * @consumed:	the owner retired it (or the reaper did, after close)
 * @auto_retire: RETIRE_SQE_F_AUTO_RETIRE: reading TERMINAL consumes it
 * @one_record:	RETIRE_SQE_F_ONE_RECORD: retiring as TERMINAL is read, it
 *		says so in that record and owes no RETIRED record
 * @quarantined: the watchdog fired: the buffer stays until an engine reset
 *		or the device's own terminal event
 * @ack_already: the first cancel found it running (its CANCEL_ACK carries
 *		-EALREADY and OUTSTANDING)
 * @ack_timed_out: its deadline had expired when the first cancel came
 * @on_ready:	on the context's ready list
 * @parked:	WAITING: parked on its key, not in the ready tree (keys.c)
 * @fenced:	it has an out-fence, in ctx->fences at its slot (fence.c)
 * @gated:	WAITING for its in-fence: in no key queue (fence.c)
 * @job:	the engine's job slot while ACTIVE
 * @seq:	WAITING: its admission order among waiting requests
 * @ready_next:	the next request on the ready list (a slot index)
 * @kh:		its key's hash (keys.c), so that no later step hashes it
 * @handle:	this incarnation's handle (kept for the RETIRED record)
 * @user_data:	from the submitter
 * @key:	from the submitter
 * @offset:	range start in @buf
 * @len:	range length, reserved from admission to retirement
 * @buf:	the attached buffer, until retirement
 * @t_admit:	admission time
 * @intent:	the context's intent sequence at admission (the publication
 *		predicate: ctx.c)
 * @node:	WAITING and @parked: on its key's parked list; ACTIVE: on
 *		ctx->active_list, ordered by @watch_at
 * @rb:		WAITING, neither @parked nor @gated: in the context's
 *		ready tree
 * @watch_at:	ACTIVE: when the device will have held it too long: the
 *		context's timer then quarantines it
 * @gate:	WAITING and @gated: its wait for its in-fence (fence.c)
 * @dl:		WAITING, ACTIVE: its deadline, NULL for none (cancel.c)
 * @t_terminal:	TERMINATED on: terminal event time
 * @result_len:	bytes moved (completed only)
 * @checksum:	the device's checksum (completed DEV_READ only)
 * @error:	-errno of the terminal event
 * @tokens:	borrow tokens out (only a TERMINATED request has any)
 *
 * Admission clears the group @admission (from @pending to @intent) with
 * one memset before it fills in the new request. Outside it, what must
 * survive reuse or is set by the step that gives it meaning: @slot (the
 * generation and free-list link the slot table keeps across
 * incarnations, already set for the new one), @state (FREE until
 * admission moves it on), and the union after @intent, whose halves are
 * each written whole when they begin (@node by list_add(), @watch_at at
 * activation, @dl by the deadline; the terminal half at the terminal
 * event).
 *
 * Everything is protected by the context lock. What a request needs only
 * until its terminal event and what it needs only after share memory:
 * 128 bytes, 64 requests to an 8 KiB chunk. Requests with no deadline
 * carry no timer; engine state lives in the engine's job only while it
 * works.
 */
struct retire_req {
	struct retire_slot slot;
	u8 state;

	struct_group(admission,	/* cleared at admission */
		u8 pending;
		u8 outcome;
		u32 dev_flags:2;
		u32 timed_out:1;
		u32 cancel_requested:1;
		u32 logical_done:1;
		u32 terminal_read:1;
		u32 consumed:1;
		u32 auto_retire:1;
		u32 one_record:1;
		u32 quarantined:1;
		u32 ack_already:1;
		u32 ack_timed_out:1;
		u32 on_ready:1;
		u32 parked:1;
		u32 fenced:1;
		u32 gated:1;
		union {
			u32 job;
			u32 seq;
		};
		u32 ready_next;
		u32 kh;
		u64 handle;
		u64 user_data;
		u64 key;
		u64 offset;
		u64 len;
		struct retire_buf *buf;
		ktime_t t_admit;
		u64 intent;
	);
	union {
		struct {
			union {
				struct {
					struct list_head node;
					union {
						ktime_t watch_at;
						struct retire_gate *gate;
					};
				};
				struct rb_node rb;
			};
			struct retire_deadline *dl;
		};
		struct {
			ktime_t t_terminal;
			u64 result_len;
			u64 checksum;
			s32 error;
			u32 tokens;
		};
	};
};

/*
 * Not an ABI flag: RETIRE_IOC_SUBMIT marks an entry whose own pad or
 * reserved field is not zero, so that admission refuses it (-EINVAL).
 */
#define RETIRE_SQE_F_MALFORMED	BIT(31)
static_assert(!(RETIRE_SQE_F_ALL & RETIRE_SQE_F_MALFORMED));

int retire_submit_one(struct retire_ctx *ctx, struct retire_op *op,
		      ktime_t now);
/* the only SUBMIT the fast lane takes: one record, retired as it is read */
#define RETIRE_SQE_F_INLINE_LANE	(RETIRE_SQE_F_AUTO_RETIRE | \
					 RETIRE_SQE_F_ONE_RECORD)

int retire_submit_inline_locked(struct retire_ctx *ctx, struct retire_op *op,
				ktime_t now, struct retire_cqe *cqe);
int retire_req_retire(struct retire_ctx *ctx, u64 handle);
void retire_req_queue_locked(struct retire_ctx *ctx, struct retire_req *req,
			     u8 pend);
void retire_req_end_logical_locked(struct retire_ctx *ctx,
				   struct retire_req *req, ktime_t now);
void retire_req_terminate_locked(struct retire_ctx *ctx,
				 struct retire_req *req,
				 const struct retire_engine_result *res);
void retire_req_terminate_at_locked(struct retire_ctx *ctx,
				    struct retire_req *req,
				    const struct retire_engine_result *res,
				    ktime_t now, bool keyed);
void retire_req_terminated_locked(struct retire_ctx *ctx,
				  struct retire_req *req, ktime_t now);
void retire_req_try_retire_locked(struct retire_ctx *ctx,
				  struct retire_req *req);
u32 retire_req_cqe_flags(const struct retire_req *req);
void retire_req_retire_locked(struct retire_ctx *ctx, struct retire_req *req,
			      ktime_t now, bool record);

/* the ready list threads through the requests by slot index */
static inline u32 retire_req_idx(const struct retire_req *req)
{
	return retire_handle_slot(req->handle);
}

static inline struct retire_req *retire_req_at(struct retire_ctx *ctx, u32 idx)
{
	return retire_slot_get(&ctx->reqs, idx);
}

bool retire_req_publishable_locked(const struct retire_ctx *ctx,
				   const struct retire_req *req);

/*
 * the device's access ended, the terminal record consumed, no borrow token
 * out, not quarantined
 */
static inline bool retire_req_may_retire(const struct retire_req *req)
{
	return req->state == RETIRE_REQ_TERMINATED && req->consumed &&
	       !req->tokens && !req->quarantined;
}

#endif /* _RETIRE_REQ_H */
