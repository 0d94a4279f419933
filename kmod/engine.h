/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_ENGINE_H
#define _RETIRE_ENGINE_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>

struct retire_ctx;
struct retire_buf;
struct retire_engine;
struct retire_engine_info;
struct retire_sim_config;

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
 * @queues:	the device serves its jobs from a queue of its own, one or a
 *		few at a time, not all as they start: a request's watchdog
 *		then starts when the engine calls retire_engine_begin() (the
 *		device begins it), so that it measures the device's own time
 *		on the request and not the time it waited behind others
 * @fail_submit: (optional) refuse this submission attempt (-EIO): an
 *		injected failure; called for every attempt, outside any lock
 * @knobs_get:	(optional) the engine's knobs, in the sim's ABI
 *		(RETIRE_IOC_SIM_CONFIG, netlink engine-get)
 * @knobs_set:	(optional) set them (the caller checked privilege)
 * @reset:	(optional) stop every job: returns once none will touch a
 *		buffer again (RETIRE_IOC_SIM_RESET)
 * @release:	(optional) free the driver's state after the last reference
 *
 * Only an engine that has knobs and a reset answers the sim's commands;
 * the core asks the registry which one does.
 */
struct retire_engine_ops {
	void (*start)(struct retire_ctx *ctx, void *job,
		      const struct retire_engine_work *w);
	bool (*try_stop)(struct retire_ctx *ctx, void *job);
	size_t job_size;
	void (*job_init)(void *job, void *ctx);
	void (*job_fini)(void *job);
	bool queues;
	bool (*fail_submit)(struct retire_engine *e);
	int (*knobs_get)(struct retire_sim_config *cfg);
	int (*knobs_set)(const struct retire_sim_config *cfg);
	void (*reset)(void);
	void (*release)(struct retire_engine *e);
};

/**
 * struct retire_flow - a context's turn at a device that serves contexts
 *			in turn
 * @jobs:	its jobs the device has not begun, FIFO (the engine's nodes)
 * @node:	on the device's round robin while @jobs is not empty
 *
 * Each context has one; the engine it is bound to keeps it under the
 * engine's own lock. The core only initialises it: it is empty whenever
 * the context is bound to another engine (no job is out then).
 */
struct retire_flow {
	struct list_head jobs;
	struct list_head node;
};

/**
 * struct retire_engine - one device the core can hand requests to
 * @name:	its kind, "sim" or "edu": what RETIRE_IOC_ENGINES lists
 * @device:	the device it drives ("" for the sim), e.g. a PCI address
 * @ops:	how the core talks to it
 * @id:		its number, given at registration and never reused while the
 *		module is loaded; the sim, registered first, is 0
 * @ref:	the registry holds one reference while it is registered, and
 *		each context bound to it one, so it outlives its device for as
 *		long as a context names it
 * @node:	on the registry's list while registered
 * @gone:	unregistered (its device was removed): no context may bind to
 *		it, and its start() must end every request at once
 * @dma_mask:	the addresses its DMA reaches (0: no DMA)
 * @max_transfer: the most bytes one transfer moves (0: no limit)
 * @transfers:	transfers it made, for RETIRE_IOC_ENGINES
 * @bounced:	of those, buffer transfers the DMA API bounced
 *
 * A driver fills @name, @device, @ops and the description, then calls
 * retire_engine_register(); @ops->release is called after the last
 * reference is dropped, to free the driver's own state.
 */
struct retire_engine {
	const char *name;
	char device[32];
	const struct retire_engine_ops *ops;
	u32 id;
	struct kref ref;
	struct list_head node;
	bool gone;
	u64 dma_mask;
	u32 max_transfer;
	atomic64_t transfers;
	atomic64_t bounced;
};

int retire_engine_register(struct retire_engine *e);
void retire_engine_unregister(struct retire_engine *e);
struct retire_engine *retire_engine_get(u32 id);
void retire_engine_hold(struct retire_engine *e);
void retire_engine_put(struct retire_engine *e);
int retire_engine_list(struct retire_engine_info *out, u32 nr);
bool retire_engine_present(const char *name);
int retire_engine_knobs_get(struct retire_sim_config *cfg);
int retire_engine_knobs_set(const struct retire_sim_config *cfg);
int retire_engine_reset(void);

void retire_engine_begin(struct retire_ctx *ctx, u64 handle);
void retire_engine_complete(struct retire_ctx *ctx, u64 handle,
			    const struct retire_engine_result *res);
void retire_engine_moving(struct retire_ctx *ctx,
			  const struct retire_engine_work *w, u64 n);
void retire_engine_moving_locked(struct retire_ctx *ctx,
				 const struct retire_engine_work *w, u64 n);
void retire_engine_complete_locked(struct retire_ctx *ctx, u64 handle,
				   const struct retire_engine_result *res);

#endif /* _RETIRE_ENGINE_H */
