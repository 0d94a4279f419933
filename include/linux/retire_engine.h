/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The retire engine API: what a driver includes to let retire.ko hand its
 * device requests, and everything it may use of the core. An engine module
 * needs nothing else of retire (Documentation/engines.rst walks through
 * samples/retire_sample.c, written against this header alone).
 *
 * The core owns requests, buffers, borrow tokens and retirement; the engine
 * owns the device. The one promise an engine makes: it reports exactly one
 * terminal event per request it was started with, and only once the device
 * will not access the request's buffer again (its last DMA unmapped, its
 * last CPU access done). Retirement waits for that report; nothing else.
 */
#ifndef _LINUX_RETIRE_ENGINE_H
#define _LINUX_RETIRE_ENGINE_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>

struct device;
struct module;
struct page;
struct sg_table;
struct nlattr;
struct sk_buff;
struct netlink_ext_ack;
struct retire_ctx;
struct retire_buf;
struct retire_engine;

/**
 * struct retire_engine_work - what a device is asked to do
 * @handle:	the request's handle: the only name the device reports by
 * @pages:	the buffer's pages, the first holding the buffer's byte 0;
 *		valid until the device's terminal event, because retirement
 *		needs that event first. NULL for an imported dma-buf, whose
 *		pages are its exporter's: then @sgt or @vaddr
 * @sgt:	an imported dma-buf's attachment, mapped for the engine's
 *		&retire_engine.dma_dev: use its DMA addresses (nothing is
 *		mapped again), never its pages; NULL otherwise
 * @vaddr:	an imported dma-buf's kernel mapping (its byte 0), for an
 *		engine without &retire_engine.dma_dev; NULL otherwise
 * @offset:	start of the range in the buffer
 * @len:	bytes
 * @dev_flags:	RETIRE_DEV_*: the only accesses the device may make
 * @user_data:	the request's user_data (a pattern source for writes)
 *
 * The engine keeps a copy for as long as it works on the request and
 * calls retire_engine_moving() with it before each transfer.
 */
struct retire_engine_work {
	u64 handle;
	struct page **pages;
	struct sg_table *sgt;
	void *vaddr;
	u64 offset;
	u64 len;
	u32 dev_flags;
	u64 user_data;
	/* private: the core's buffer, never dereferenced by the engine */
	struct retire_buf *buf;
};

/**
 * struct retire_engine_result - a device's terminal event
 * @error:	0 for success, else the device's -errno (-ECANCELED when it
 *		stopped on a cancel or a reset)
 * @cancelled:	the device stopped because a cancel asked it to
 * @reset:	a reset or the device's removal ended it: no access follows,
 *		so even a quarantined request may retire
 * @transferred: bytes moved
 * @checksum:	retire_checksum() of what it read (RETIRE_DEV_READ)
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
 * @start:	begin work on @w with @job, the engine's per-request storage
 *		(@job_size bytes) the core took for this activation: it lives
 *		with the engine only while the engine works. Called under the
 *		context lock, in process context: must not sleep or allocate.
 *		The device reports exactly one terminal event for it through
 *		retire_engine_complete(), or, completing inline before @start
 *		returns, through retire_engine_complete_locked(). The report
 *		gives @job back: the core may hand it to another @start at
 *		once, even before the call that reported returns, so the device
 *		touches nothing of @job after reporting, and its timers and
 *		work items must bear being armed again while their last run is
 *		still returning (hrtimers and work items do).
 * @run:	instead of @start and @try_stop, for a device that finishes
 *		every request before returning (a null device, a copy by the
 *		CPU): do the work of @w and fill @res with its terminal event.
 *		Called under the context lock with interrupts off: must not
 *		sleep or allocate, and reports nothing through
 *		retire_engine_complete(). The core keeps no job and no watchdog
 *		for such an engine (nothing of a request is left with it), and
 *		may run a batch of requests under one hold of the lock, writing
 *		their records straight into the completion ring.
 * @try_stop:	a cancel asks to stop @job. Called under the context lock.
 *		Return true if the device stopped it before touching anything
 *		more and will report nothing (the core ends the request as
 *		cancelled); false if it runs on: it may still stop early,
 *		reporting a cancelled terminal event itself.
 * @job_size:	bytes of the engine's per-request storage. The core keeps one
 *		per request that may be active, not one per request.
 * @job_init:	(optional) one-time set-up of a new job (may sleep)
 * @job_fini:	(optional) undo @job_init (may sleep): wait for any timer or
 *		work item of the job's last run
 * @queues:	the device serves its jobs from a queue of its own, one or a
 *		few at a time: a request's watchdog then starts when the engine
 *		calls retire_engine_begin(), so that it measures the device's
 *		own time on the request and not its wait behind others
 * @attach:	(optional) a context binds to the engine (may sleep); an
 *		error refuses the binding
 * @detach:	(optional) it unbinds, with none of its jobs outstanding
 * @fail_submit: (optional) refuse this submission attempt (-EIO): an
 *		injected failure; called for every attempt, outside any lock
 * @reset:	(optional) stop every job: returns once none will touch a
 *		buffer again, every one of them reported with @reset set
 * @ioctls:	(optional) 0-terminated list of /dev/retire commands the
 *		engine serves through @ioctl (its own knobs); a command the core
 *		serves is never passed on
 * @ioctl:	serve one of @ioctls for a file bound to any engine; checks
 *		its own privileges (from a process context, may sleep)
 * @nl_fill:	(optional) netlink engine-get: put the engine's knobs as
 *		attributes of the retire family's engine-get reply
 * @nl_set:	(optional) netlink engine-set: validate and apply them from
 *		@tb, indexed by attribute (the caller checked CAP_SYS_ADMIN);
 *		an error changes nothing and says why in @extack
 * @release:	(optional) free the driver's state after the last reference
 */
struct retire_engine_ops {
	void (*start)(struct retire_engine *e, struct retire_ctx *ctx,
		      void *job, const struct retire_engine_work *w);
	void (*run)(struct retire_engine *e, struct retire_ctx *ctx,
		    const struct retire_engine_work *w,
		    struct retire_engine_result *res);
	bool (*try_stop)(struct retire_engine *e, struct retire_ctx *ctx,
			 void *job);
	size_t job_size;
	void (*job_init)(struct retire_engine *e, void *job);
	void (*job_fini)(struct retire_engine *e, void *job);
	bool queues;
	int (*attach)(struct retire_engine *e, struct retire_ctx *ctx);
	void (*detach)(struct retire_engine *e, struct retire_ctx *ctx);
	bool (*fail_submit)(struct retire_engine *e);
	void (*reset)(struct retire_engine *e);
	const unsigned int *ioctls;
	long (*ioctl)(struct retire_engine *e, struct retire_ctx *ctx,
		      unsigned int cmd, void __user *arg);
	int (*nl_fill)(struct retire_engine *e, struct sk_buff *msg);
	int (*nl_set)(struct retire_engine *e, struct nlattr **tb,
		      struct netlink_ext_ack *extack);
	void (*release)(struct retire_engine *e);
};

/**
 * struct retire_flow - a context's turn at a device that serves contexts
 *			in turn
 * @jobs:	its jobs the device has not begun, FIFO (the engine's nodes)
 * @node:	on the device's round robin while @jobs is not empty
 *
 * Each context has one (retire_ctx_flow()); the engine it is bound to
 * keeps it under the engine's own lock. The core only initialises it: it
 * is empty whenever the context is bound to another engine.
 */
struct retire_flow {
	struct list_head jobs;
	struct list_head node;
};

/**
 * struct retire_engine - one device the core can hand requests to
 * @name:	its kind, e.g. "sim": what RETIRE_IOC_ENGINES lists and what
 *		the default_engine parameter and request_module() name
 * @device:	the device it drives ("" for none), e.g. a PCI address
 * @ops:	how the core talks to it
 * @owner:	the module that provides @ops (THIS_MODULE): a bound context
 *		holds it, so the module cannot go while a context names it
 * @features:	RETIRE_FEAT_* bits GET_INFO reports while it is registered
 * @dma_mask:	the addresses its DMA reaches (0: no DMA)
 * @max_transfer: the most bytes one transfer moves (0: no limit)
 * @admin:	binding a context to it needs CAP_SYS_ADMIN
 * @dma_dev:	the device its DMA goes through (NULL: it moves bytes with
 *		the CPU): a context bound to it attaches imported dma-bufs
 *		to this device
 * @imports:	it serves requests on imported dma-bufs, through
 *		&retire_engine_work.sgt (with @dma_dev) or .vaddr (without);
 *		without it the core refuses them (-EOPNOTSUPP)
 * @transfers:	transfers it made, for RETIRE_IOC_ENGINES
 * @bounced:	of those, buffer transfers the DMA API bounced
 *
 * The rest is the core's: @id, its number (RETIRE_IOC_ENGINES), given at
 * registration; @ref, the registry's and each bound context's
 * references; @node, on the registry while registered; @gone, set at
 * unregistration: no context may bind to it, nothing more is admitted.
 * An engine may read @id and @gone, never write them.
 *
 * A driver fills the fields above @transfers, then calls
 * retire_engine_register(); @ops->release is called after the last
 * reference is dropped, to free the driver's own state.
 */
struct retire_engine {
	const char *name;
	char device[32];
	const struct retire_engine_ops *ops;
	struct module *owner;
	u64 features;
	u64 dma_mask;
	u32 max_transfer;
	bool admin;
	struct device *dma_dev;
	bool imports;
	atomic64_t transfers;
	atomic64_t bounced;
	/* private: the core's; see above */
	u32 id;
	struct kref ref;
	struct list_head node;
	bool gone;
};

/* FNV-1a-64: what an engine reports as the checksum of what it read */
#define RETIRE_CHECKSUM_INIT	0xcbf29ce484222325ULL

int retire_engine_register(struct retire_engine *e);
void retire_engine_unregister(struct retire_engine *e);

void retire_engine_begin(struct retire_ctx *ctx, u64 handle);
void retire_engine_moving(struct retire_ctx *ctx,
			  const struct retire_engine_work *w, u64 n);
void retire_engine_moving_locked(struct retire_ctx *ctx,
				 const struct retire_engine_work *w, u64 n);
void retire_engine_complete(struct retire_ctx *ctx, u64 handle,
			    const struct retire_engine_result *res);
void retire_engine_complete_locked(struct retire_ctx *ctx, u64 handle,
				   const struct retire_engine_result *res);
int retire_engine_report_stale(struct retire_ctx *ctx, u64 handle,
			       const struct retire_engine_result *res);
void retire_engine_violation(struct retire_ctx *ctx, u64 handle, u32 access);
void retire_engine_reset_done(struct retire_engine *e);

struct retire_flow *retire_ctx_flow(struct retire_ctx *ctx);
#ifdef CONFIG_LOCKDEP
void retire_ctx_assert_held(struct retire_ctx *ctx);
#else
static inline void retire_ctx_assert_held(struct retire_ctx *ctx) { }
#endif

u64 retire_checksum(u64 hash, const u8 *p, size_t len);
int retire_arg_copy_in(void *dst, size_t ksize, size_t min, unsigned int cmd,
		       const void __user *uarg);
int retire_arg_copy_out(void __user *uarg, unsigned int cmd, const void *src,
			size_t ksize);

#endif /* _LINUX_RETIRE_ENGINE_H */
