/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_ENGINE_H
#define _RETIRE_ENGINE_H

#include <linux/types.h>

struct retire_ctx;
struct retire_buf;

/**
 * struct retire_engine_work - what a device is asked to do
 * @handle:	the request's handle: the only name the device reports by
 * @buf:	the buffer; its pages stay valid until the device's terminal
 *		event, because retirement needs that event first
 * @offset:	start of the range in @buf
 * @len:	bytes
 * @dev_flags:	RETIRE_DEV_*: the only accesses the device may make
 * @user_data:	the request's user_data (the sim engine's write pattern)
 *
 * A device calls retire_engine_moving() before each transfer.
 */
struct retire_engine_work {
	u64 handle;
	struct retire_buf *buf;
	u64 offset;
	u64 len;
	u32 dev_flags;
	u64 user_data;
};

/**
 * struct retire_engine_result - a device's terminal event
 * @error:	0 for success, else the device's -errno (-ECANCELED when it
 *		stopped on a cancel: the outcome is then "cancelled")
 * @cancelled:	the device stopped because it was asked to
 * @reset:	an engine reset ended it: no access follows, so even a
 *		quarantined request may retire
 * @transferred: bytes moved
 * @checksum:	FNV-1a-64 of what it read (RETIRE_DEV_READ)
 */
struct retire_engine_result {
	int error;
	bool cancelled;
	bool reset;
	u64 transferred;
	u64 checksum;
};

/**
 * struct retire_engine_ops - the device interface
 * @start:	begin work on @w with @job, a job the core took from the
 *		context's job table for this activation: it lives with the
 *		engine only while the engine works. Called under the context
 *		lock: must not sleep or allocate. The device reports exactly
 *		one terminal event for it through retire_engine_complete(), or,
 *		completing inline before @start returns, through
 *		retire_engine_complete_locked(). The report gives @job back:
 *		the core may hand it to another start() at once, even before
 *		the call that reported returns, so the device touches nothing
 *		of @job after reporting, and its timers and work items must
 *		bear being armed again while their last run is still returning
 *		(hrtimers and work items do).
 * @try_stop:	a cancel asks to stop @job. Called under the context lock.
 *		Return true if the device stopped it before touching anything
 *		more and will report nothing (the caller then ends the request
 *		as cancelled); false if it is running: it may still stop
 *		early, reporting a cancelled terminal event itself.
 * @job_size:	bytes of a job, struct retire_slot first. The job table
 *		holds one per request that may be active, not one per request.
 * @job_init:	one-time set-up of a new job
 * @job_fini:	undo @job_init (may sleep): waits for any timer or work item
 *		of the job's last run
 */
struct retire_engine_ops {
	void (*start)(struct retire_ctx *ctx, void *job,
		      const struct retire_engine_work *w);
	bool (*try_stop)(struct retire_ctx *ctx, void *job);
	size_t job_size;
	void (*job_init)(void *job, void *ctx);
	void (*job_fini)(void *job);
};

extern const struct retire_engine_ops retire_sim_ops;

void retire_engine_complete(struct retire_ctx *ctx, u64 handle,
			    const struct retire_engine_result *res);
void retire_engine_moving(struct retire_ctx *ctx,
			  const struct retire_engine_work *w, u64 n);
void retire_engine_moving_locked(struct retire_ctx *ctx,
				 const struct retire_engine_work *w, u64 n);
void retire_engine_complete_locked(struct retire_ctx *ctx, u64 handle,
				   const struct retire_engine_result *res);

#endif /* _RETIRE_ENGINE_H */
