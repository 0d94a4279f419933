/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_REQ_H
#define _RETIRE_REQ_H

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/types.h>

#include "slot.h"

struct retire_ctx;
struct retire_buf;
struct retire_sqe;
struct retire_cqe;
struct retire_engine_result;
struct retire_limits;

/*
 * A request's states. d (device access) is 1 in WAITING (once admitted it
 * may start at any time) and ACTIVE, and only the device's terminal event
 * clears it.
 */
enum retire_req_state {
	RETIRE_REQ_FREE,
	RETIRE_REQ_WAITING,	/* admitted, not yet handed to the device */
	RETIRE_REQ_ACTIVE,	/* the device owns the buffer range */
	RETIRE_REQ_TERMINATED,	/* device done: d = 0 */
	RETIRE_REQ_RETIRED,	/* buffer back in its pool; RETIRED record owed */
};

/* records owed to the reader, delivered in this order */
#define RETIRE_PEND_TIMEOUT	BIT(0)
#define RETIRE_PEND_CANCEL_ACK	BIT(1)
#define RETIRE_PEND_QUARANTINE	BIT(2)
#define RETIRE_PEND_TERMINAL	BIT(3)
#define RETIRE_PEND_RETIRED	BIT(4)

/**
 * struct retire_req - one asynchronous device operation
 * @slot:	slot header (RETIRE_KIND_REQ)
 * @ctx:	the owning context, fixed when the slot is created
 * @handle:	this incarnation's handle (kept for the RETIRED record)
 * @user_data:	from the submitter
 * @key:	from the submitter
 * @offset:	range start in @buf
 * @len:	range length, reserved from admission to retirement
 * @dev_flags:	RETIRE_DEV_*
 * @buf:	the attached buffer, until retirement
 * @state:	enum retire_req_state
 * @pending:	RETIRE_PEND_* records not yet read
 * @timed_out:	the deadline expired before the terminal event
 * @cancel_requested: a cancel named it
 * @logical_done: logically outstanding ended (first of terminal, timeout,
 *		cancel)
 * @terminal_read: the reader has the TERMINAL record: the owner may retire
 * @consumed:	the owner retired it (or the reaper did, after close)
 * @auto_retire: RETIRE_SQE_F_AUTO_RETIRE: reading TERMINAL consumes it
 * @tokens:	borrow tokens out
 * @outcome:	RETIRE_OUTCOME_* of the terminal event
 * @error:	its -errno
 * @result_len:	bytes moved (completed only)
 * @checksum:	the device's checksum (completed DEV_READ only)
 * @ack_error:	the cancel result the CANCEL_ACK record carries
 * @ack_flags:	RETIRE_CQE_F_* at the time of the ack
 * @t_admit:	admission time
 * @t_terminal:	terminal event time
 * @ready_node:	on ctx->ready while @pending is non-zero
 * @wait_node:	on ctx->waiting while WAITING
 * @deadline:	the deadline timer (cancel.c)
 * @deadline_ns: relative deadline from the submitter, 0 for none
 * @watch_at:	when the device will have held it too long: the context's
 *		watchdog then quarantines it
 * @active_node: on ctx->active_list while ACTIVE, ordered by @watch_at
 * @quarantined: the watchdog fired: the buffer stays until an engine reset
 * @epoch:	its key's epoch at admission
 * @authority:	the context's authority at admission
 *
 * Everything is protected by the context lock.
 */
struct retire_req {
	struct retire_slot slot;
	struct retire_ctx *ctx;
	u64 handle;
	u64 user_data;
	u64 key;
	u64 offset;
	u64 len;
	u32 dev_flags;
	struct retire_buf *buf;
	u8 state;
	u8 pending;
	bool timed_out;
	bool cancel_requested;
	bool logical_done;
	bool terminal_read;
	bool consumed;
	bool auto_retire;
	u32 tokens;
	u32 outcome;
	s32 error;
	u64 result_len;
	u64 checksum;
	s32 ack_error;
	u32 ack_flags;
	ktime_t t_admit;
	ktime_t t_terminal;
	struct list_head ready_node;
	struct list_head wait_node;
	struct hrtimer deadline;
	u64 deadline_ns;
	ktime_t watch_at;
	struct list_head active_node;
	bool quarantined;
	u64 epoch;
	u64 authority;
};

void retire_req_slot_init(void *obj, void *ctx);
void retire_req_slot_fini(void *obj);
int retire_submit_one(struct retire_ctx *ctx, struct retire_sqe *sqe);
int retire_req_retire(struct retire_ctx *ctx, u64 handle);
void retire_req_queue_locked(struct retire_ctx *ctx, struct retire_req *req,
			     u8 pend);
void retire_req_end_logical_locked(struct retire_ctx *ctx,
				   struct retire_req *req, ktime_t now);
void retire_req_terminate_locked(struct retire_ctx *ctx,
				 struct retire_req *req,
				 const struct retire_engine_result *res);
void retire_req_try_retire_locked(struct retire_ctx *ctx,
				  struct retire_req *req);
int retire_records_take(struct retire_ctx *ctx, struct retire_cqe __user *u,
			unsigned int nr);
int retire_records_take_kernel(struct retire_ctx *ctx, struct retire_cqe *k,
			       unsigned int nr);
bool retire_records_ready(struct retire_ctx *ctx);
u32 retire_req_cqe_flags(const struct retire_req *req);
void retire_req_quarantine_locked(struct retire_ctx *ctx,
				  struct retire_req *req);
void retire_ctx_unquarantine(struct retire_ctx *ctx);
u32 retire_active_per_key_max_locked(struct retire_ctx *ctx);
void retire_ctx_limits_changed_locked(struct retire_ctx *ctx,
				      const struct retire_limits *l);
u64 retire_epoch_of_locked(const struct retire_ctx *ctx, u64 key);
bool retire_req_publishable_locked(const struct retire_ctx *ctx,
				   const struct retire_req *req);

#endif /* _RETIRE_REQ_H */
