/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_FENCE_H
#define _RETIRE_FENCE_H

#include <linux/dma-fence.h>
#include <linux/ktime.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct file;
struct retire_ctx;
struct retire_gate;
struct retire_op;
struct retire_req;
struct work_struct;

/**
 * struct retire_fence_prep - a submission's fences, made before the lock
 * @in:		RETIRE_SQE_F_IN_FENCE: the fence to wait for (a reference),
 *		NULL if none or if it had signalled without error already
 * @gate:	for @in: allocated here, armed at admission
 * @out:	RETIRE_SQE_F_OUT_FENCE: the request's out-fence (a reference)
 * @file:	@out's sync_file
 * @fd:		reserved for @file, installed only if the request is admitted
 */
struct retire_fence_prep {
	struct dma_fence *in;
	struct retire_gate *gate;
	struct retire_fence *out;
	struct file *file;
	int fd;
};

/**
 * struct retire_fence - a fence of retire's: a request's out-fence, or a
 *			 revoked import's (fence_core.c)
 * @base:	the dma_fence; first, so that dma_fence_free() frees it all
 * @lock:	its lock
 * @timeline:	what SYNC_IOC_FILE_INFO shows: "ctx<id>/<handle>" for a
 *		request's, "revoke" for an import's
 */
struct retire_fence {
	struct dma_fence base;
	spinlock_t lock;	/* the fence's, for dma_fence_signal() */
	char timeline[32];
};

#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)
struct retire_fence *retire_fence_new(void);
void retire_fence_signal(struct retire_fence *f, int error);
void retire_fence_discard(struct retire_fence *f);
void retire_fence_exit(void);
#if IS_ENABLED(CONFIG_KUNIT)
struct module *retire_fence_owner(void);
#endif
#else
static inline void retire_fence_exit(void) {}
#endif

#if IS_ENABLED(CONFIG_SYNC_FILE)

#define RETIRE_FENCE_FEATURES	RETIRE_FEAT_FENCES

int retire_fence_prepare(const struct retire_op *op,
			 struct retire_fence_prep *p);
int retire_fence_attach_locked(struct retire_ctx *ctx, u32 idx,
			       struct retire_fence_prep *p);
bool retire_fence_gate_locked(struct retire_ctx *ctx, struct retire_req *req,
			      struct retire_fence_prep *p, ktime_t now);
int retire_fence_commit(struct retire_ctx *ctx, struct retire_fence_prep *p,
			u64 handle);
void retire_fence_abandon(struct retire_fence_prep *p);
void retire_fence_signal_locked(struct retire_ctx *ctx,
				struct retire_req *req);
void retire_gate_cancel_locked(struct retire_ctx *ctx, struct retire_req *req);
struct retire_req *retire_gate_first_locked(struct retire_ctx *ctx);
int retire_fence_get(struct retire_ctx *ctx, u64 handle);
void retire_gate_work(struct work_struct *work);
void retire_fences_init(struct retire_ctx *ctx);
void retire_fences_fini(struct retire_ctx *ctx);

/* the device's terminal event signals fences: the kernel's rules hold */
static inline bool retire_signalling_begin(void)
{
	return dma_fence_begin_signalling();
}

static inline void retire_signalling_end(bool cookie)
{
	dma_fence_end_signalling(cookie);
}

#else /* !CONFIG_SYNC_FILE: no fences; the flags are refused */

#define RETIRE_FENCE_FEATURES	0

static inline int retire_fence_prepare(const struct retire_op *op,
				       struct retire_fence_prep *p)
{
	return -EOPNOTSUPP;
}

static inline int retire_fence_attach_locked(struct retire_ctx *ctx, u32 idx,
					     struct retire_fence_prep *p)
{
	return 0;
}

static inline bool retire_fence_gate_locked(struct retire_ctx *ctx,
					    struct retire_req *req,
					    struct retire_fence_prep *p,
					    ktime_t now)
{
	return false;
}

static inline int retire_fence_commit(struct retire_ctx *ctx,
				      struct retire_fence_prep *p, u64 handle)
{
	return 0;
}

static inline void retire_fence_abandon(struct retire_fence_prep *p) {}
static inline void retire_fence_signal_locked(struct retire_ctx *ctx,
					      struct retire_req *req) {}
static inline void retire_gate_cancel_locked(struct retire_ctx *ctx,
					     struct retire_req *req) {}

static inline struct retire_req *retire_gate_first_locked(struct retire_ctx *ctx)
{
	return NULL;
}

static inline int retire_fence_get(struct retire_ctx *ctx, u64 handle)
{
	return -EOPNOTSUPP;
}

static inline void retire_gate_work(struct work_struct *work) {}
static inline void retire_fences_init(struct retire_ctx *ctx) {}
static inline void retire_fences_fini(struct retire_ctx *ctx) {}
static inline bool retire_signalling_begin(void) { return true; }
static inline void retire_signalling_end(bool cookie) {}

#endif /* CONFIG_SYNC_FILE */

#endif /* _RETIRE_FENCE_H */
