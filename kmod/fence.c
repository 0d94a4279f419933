// SPDX-License-Identifier: GPL-2.0
/*
 * Fences: a request's end of device access as a dma_fence in a sync_file
 * (its out-fence), and a sync_file a request waits for before it is
 * handed to its device (its in-fence). Documentation/interop.rst.
 *
 * Out-fence. Requests end out of order, so each fence has a context of
 * its own. It signals at the terminal event, inside
 * retire_req_terminate_locked(), with the terminal event's -errno as its
 * error: never at retirement, which waits for borrow tokens userspace
 * returns and would make the fence indefinite. The fence a request has is
 * kept in ctx->fences at its slot index, stored before the slot is taken
 * so that admission allocates nothing under the lock it cannot give back.
 *
 * In-fence. A request that names one is admitted WAITING and "gated":
 * outside the key queues, on ctx->gates, counted among the waiting. The
 * fence's callback runs in whatever context signals it, perhaps under
 * another context's lock (one request's out-fence is the next one's
 * in-fence): it only queues ctx->gate_work, which then lets the request
 * wait its turn like any other, or fails it with the fence's error. A
 * cancel, or the context's close, ends a gated request like any waiting
 * one; the gate goes with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-fence.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/xarray.h>
#include <linux/retire.h>

#include "admit.h"
#include "ctx.h"
#include "engine.h"
#include "fence.h"
#include "history.h"
#include "keys.h"
#include "req.h"

/**
 * struct retire_gate - a gated request's wait for its in-fence
 * @cb:		on @fence's callback list until it signals
 * @fence:	the in-fence (a reference)
 * @ctx:	the context (a reference, until the gate is freed)
 * @handle:	the request: looked up again when the fence has signalled
 * @node:	on ctx->gates while the request is gated
 * @done:	on ctx->gates_done once @fence has signalled
 */
struct retire_gate {
	struct dma_fence_cb cb;
	struct dma_fence *fence;
	struct retire_ctx *ctx;
	u64 handle;
	struct list_head node;
	struct llist_node done;
};

/* the fence says which request it is once admission has named it */
static void retire_fence_name(struct retire_fence *f, struct retire_ctx *ctx,
			      u64 handle)
{
	snprintf(f->timeline, sizeof(f->timeline), "ctx%llu/%llx", ctx->id,
		 handle);
}

/*
 * A sync_file fd is a descriptor of the caller's: EBADF for no open file,
 * EINVAL for a file of another kind (sync_file_get_fence() says NULL for
 * both).
 */
static struct dma_fence *retire_fence_from_fd(int fd, int *err)
{
	struct dma_fence *fence;
	struct file *file;

	file = fd < 0 ? NULL : fget(fd);
	if (!file) {
		*err = -EBADF;
		return NULL;
	}
	fput(file);
	fence = sync_file_get_fence(fd);
	if (!fence)
		*err = -EINVAL;
	return fence;
}

/**
 * retire_fence_prepare() - what a SUBMIT's fence flags need, outside locks
 * @op:	the SUBMIT operation, checked
 * @p:	filled in; retire_fence_commit() or retire_fence_abandon() ends it
 *
 * An in-fence that has signalled without error already is dropped here:
 * the request does not wait.
 *
 * Return: 0; -EBADF or -EINVAL for an in-fence that is no sync_file;
 * -EMFILE; -ENOMEM.
 */
int retire_fence_prepare(const struct retire_op *op,
			 struct retire_fence_prep *p)
{
	struct sync_file *sf;
	int ret;

	p->fd = -1;
	if (op->flags & RETIRE_SQE_F_IN_FENCE) {
		p->in = retire_fence_from_fd(op->in_fence, &ret);
		if (!p->in)
			return ret;
		if (dma_fence_get_status(p->in) > 0) {
			dma_fence_put(p->in);
			p->in = NULL;
		} else {
			p->gate = kzalloc(sizeof(*p->gate), GFP_KERNEL_ACCOUNT);
			if (!p->gate)
				goto nomem;
			INIT_LIST_HEAD(&p->gate->node);
		}
	}
	if (!(op->flags & RETIRE_SQE_F_OUT_FENCE))
		return 0;
	p->out = retire_fence_new();
	if (!p->out)
		goto nomem;
	sf = sync_file_create(&p->out->base);
	if (!sf)
		goto nomem;
	p->file = sf->file;
	p->fd = get_unused_fd_flags(O_CLOEXEC);
	if (p->fd < 0) {
		ret = p->fd;
		retire_fence_abandon(p);
		return ret;
	}
	return 0;

nomem:
	retire_fence_abandon(p);
	return -ENOMEM;
}

/**
 * retire_fence_abandon() - the submission was refused: undo the preparation
 * @p: as retire_fence_prepare() left it
 *
 * The out-fence was never seen: it signals cancelled, so that nothing it
 * was handed to waits, and goes with its file.
 */
void retire_fence_abandon(struct retire_fence_prep *p)
{
	if (p->fd >= 0)
		put_unused_fd(p->fd);
	if (p->out)
		retire_fence_discard(p->out);
	if (p->file)
		fput(p->file);
	if (p->in)
		dma_fence_put(p->in);
	kfree(p->gate);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}

/**
 * retire_fence_attach_locked() - keep the out-fence where the terminal
 *				  event finds it
 * @ctx:	the context
 * @idx:	the slot the request is about to take
 * @p:		the preparation
 *
 * Return: 0, or -ENOMEM: the entry is refused, nothing taken.
 */
int retire_fence_attach_locked(struct retire_ctx *ctx, u32 idx,
			       struct retire_fence_prep *p)
{
	lockdep_assert_held(&ctx->lock);
	if (!p->out)
		return 0;
	/* the xarray's lock nests in ctx->lock, with interrupts off */
	if (xa_is_err(xa_store(&ctx->fences, idx, p->out,
			       GFP_ATOMIC | __GFP_NOWARN)))
		return -ENOMEM;
	/* the table's reference: the terminal event drops it */
	dma_fence_get(&p->out->base);
	return 0;
}

/* a signalled fence's error, 0 if none */
static int retire_fence_error(struct dma_fence *fence)
{
	return min(dma_fence_get_status(fence), 0);
}

static void retire_gate_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct retire_gate *g = container_of(cb, struct retire_gate, cb);

	if (llist_add(&g->done, &g->ctx->gates_done))
		queue_work(retire_wq, &g->ctx->gate_work);
}

static void retire_gate_free(struct retire_gate *g)
{
	dma_fence_put(g->fence);
	retire_ctx_put(g->ctx);
	kfree(g);
}

/* its in-fence has signalled: the request waits its turn, or fails */
static void retire_gate_open_locked(struct retire_ctx *ctx,
				    struct retire_req *req, int error,
				    ktime_t now)
{
	struct retire_engine_result failed = { .error = error };

	lockdep_assert_held(&ctx->lock);
	retire_event_at_locked(ctx, RETIRE_EV_GATE, req->handle, error, 0, now);
	if (error) {
		/* no device has seen it: it ends as a waiting one does */
		retire_req_terminate_locked(ctx, req, &failed);
		return;
	}
	req->gated = false;
	retire_keys_wait_locked(ctx, req);
	retire_activate_waiting_locked(ctx, now);
}

/**
 * retire_fence_gate_locked() - hold a new request for its in-fence
 * @ctx:	the context
 * @req:	just admitted, in no queue yet
 * @p:		the preparation; the gate and the fence pass to the request
 * @now:	its admission time
 *
 * Return: true if the request is held (WAITING, gated), or ended already
 * because the fence had signalled an error; false if it has no in-fence
 * to wait for and goes on as any other.
 */
bool retire_fence_gate_locked(struct retire_ctx *ctx, struct retire_req *req,
			      struct retire_fence_prep *p, ktime_t now)
{
	struct retire_gate *g = p->gate;
	int ret;

	lockdep_assert_held(&ctx->lock);
	if (p->out)
		retire_fence_name(p->out, ctx, req->handle);
	if (!g)
		return false;
	p->gate = NULL;
	g->fence = p->in;
	p->in = NULL;
	g->ctx = ctx;
	g->handle = req->handle;
	retire_ctx_get(ctx);
	req->state = RETIRE_REQ_WAITING;
	req->gated = true;
	req->gate = g;
	ctx->waiting_nr++;
	list_add_tail(&g->node, &ctx->gates);
	ret = dma_fence_add_callback(g->fence, &g->cb, retire_gate_cb);
	if (ret) {
		/* signalled meanwhile: the callback will not run */
		list_del_init(&g->node);
		req->gate = NULL;
		retire_gate_open_locked(ctx, req, retire_fence_error(g->fence),
					now);
		retire_gate_free(g);
	}
	return true;
}

/**
 * retire_gate_cancel_locked() - a gated request ends before its fence
 * @ctx:	the context
 * @req:	WAITING, gated: cancelled, failed by its fence, or closed
 *
 * If the fence's callback has run or is running, the work item frees the
 * gate; otherwise it is freed here.
 */
void retire_gate_cancel_locked(struct retire_ctx *ctx, struct retire_req *req)
{
	struct retire_gate *g = req->gate;

	lockdep_assert_held(&ctx->lock);
	req->gated = false;
	req->gate = NULL;
	if (!g)
		return;
	list_del_init(&g->node);
	if (dma_fence_remove_callback(g->fence, &g->cb))
		retire_gate_free(g);
}

/**
 * retire_gate_first_locked() - a gated request, for the context's close
 * @ctx: the context
 *
 * Return: the oldest gated request, or NULL.
 */
struct retire_req *retire_gate_first_locked(struct retire_ctx *ctx)
{
	struct retire_gate *g;

	lockdep_assert_held(&ctx->lock);
	g = list_first_entry_or_null(&ctx->gates, struct retire_gate, node);
	return g ? retire_slot_lookup_locked(&ctx->reqs, g->handle) : NULL;
}

/**
 * retire_gate_work() - requests whose in-fence has signalled go on
 * @work: the context's gate_work
 *
 * Under ctx->mutex, which a new key entry needs (retire_keys_reserve()),
 * and which keeps the close from running meanwhile.
 */
void retire_gate_work(struct work_struct *work)
{
	struct retire_ctx *ctx = container_of(work, struct retire_ctx,
					      gate_work);
	struct retire_gate *g, *tmp;
	struct llist_node *done;
	struct retire_req *req;
	bool cookie;
	int error;

	done = llist_del_all(&ctx->gates_done);
	mutex_lock(&ctx->mutex);
	llist_for_each_entry(g, done, done) {
		/* a key entry for the request that may join its key's queue */
		if (!ctx->keys.nr_free && retire_keys_reserve(ctx))
			error = -ENOMEM;
		else
			error = retire_fence_error(g->fence);
		cookie = retire_signalling_begin();
		spin_lock_irq(&ctx->lock);
		req = retire_slot_lookup_locked(&ctx->reqs, g->handle);
		if (req && req->state == RETIRE_REQ_WAITING && req->gated &&
		    req->gate == g) {
			list_del_init(&g->node);
			retire_gate_open_locked(ctx, req, error, ktime_get());
		}
		spin_unlock_irq(&ctx->lock);
		retire_signalling_end(cookie);
	}
	mutex_unlock(&ctx->mutex);
	/* the last reference may go here: the free waits for this work */
	llist_for_each_entry_safe(g, tmp, done, done)
		retire_gate_free(g);
}

/**
 * retire_fence_commit() - the request was admitted: hand its fd over
 * @ctx:	the context
 * @p:		the preparation
 * @handle:	the request
 *
 * Return: the out-fence's fd, or 0 without one.
 */
int retire_fence_commit(struct retire_ctx *ctx, struct retire_fence_prep *p,
			u64 handle)
{
	int fd = p->fd;

	if (p->in)	/* signalled before admission: nothing to wait for */
		dma_fence_put(p->in);
	kfree(p->gate);
	if (!p->out)
		return 0;
	dma_fence_put(&p->out->base);
	fd_install(fd, p->file);
	return fd;
}

/**
 * retire_fence_signal_locked() - the terminal event signals the out-fence
 * @ctx:	the context
 * @req:	just TERMINATED, with an out-fence
 */
void retire_fence_signal_locked(struct retire_ctx *ctx, struct retire_req *req)
{
	struct retire_fence *f;

	lockdep_assert_held(&ctx->lock);
	f = xa_erase(&ctx->fences, retire_req_idx(req));
	req->fenced = false;
	if (WARN_ON_ONCE(!f))
		return;
	retire_fence_signal(f, req->error);
	retire_event_locked(ctx, RETIRE_EV_FENCE, req->handle, req->error, 0);
	dma_fence_put(&f->base);
}

/**
 * retire_fence_get() - RETIRE_OP_FENCE: a sync_file for a request's end
 * @ctx:	the context; the caller holds its mutex
 * @handle:	the request
 *
 * A request that has terminated gets a fence signalled already, with its
 * terminal event's error; one in flight shares the fence it has, or gets
 * one.
 *
 * Return: the fd; -ENOENT for a stale handle (counted); -EMFILE; -ENOMEM.
 */
int retire_fence_get(struct retire_ctx *ctx, u64 handle)
{
	struct retire_fence *f, *old = NULL;
	struct retire_req *req;
	struct sync_file *sf;
	int fd, ret = 0;

	lockdep_assert_held(&ctx->mutex);
	f = retire_fence_new();
	if (!f)
		return -ENOMEM;
	spin_lock_irq(&ctx->lock);
	req = retire_ctx_lookup_locked(ctx, &ctx->reqs, handle,
				       RETIRE_ST_STALE_USER);
	if (!req) {
		ret = -ENOENT;
	} else if (req->state >= RETIRE_REQ_TERMINATED) {
		retire_fence_name(f, ctx, handle);
		retire_fence_signal(f, req->error);
	} else {
		if (req->fenced)
			old = xa_load(&ctx->fences, retire_req_idx(req));
		if (old) {
			dma_fence_get(&old->base);
		} else {
			retire_fence_name(f, ctx, handle);
			if (xa_is_err(xa_store(&ctx->fences,
					       retire_req_idx(req), f,
					       GFP_ATOMIC | __GFP_NOWARN)))
				ret = -ENOMEM;
			else
				req->fenced = true;
			if (req->fenced)	/* the table's reference */
				dma_fence_get(&f->base);
		}
	}
	spin_unlock_irq(&ctx->lock);
	if (ret || old) {
		retire_fence_discard(f);
		if (ret)
			return ret;
		f = old;
	}
	/* the table holds the reference it was given; this one is ours */
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		dma_fence_put(&f->base);
		return fd;
	}
	sf = sync_file_create(&f->base);
	dma_fence_put(&f->base);
	if (!sf) {
		put_unused_fd(fd);
		return -ENOMEM;
	}
	fd_install(fd, sf->file);
	return fd;
}

/**
 * retire_fences_init() - a new context has no fences
 * @ctx: the context
 */
void retire_fences_init(struct retire_ctx *ctx)
{
	xa_init(&ctx->fences);
	INIT_LIST_HEAD(&ctx->gates);
	init_llist_head(&ctx->gates_done);
	INIT_WORK(&ctx->gate_work, retire_gate_work);
}

/**
 * retire_fences_fini() - the context is freed
 * @ctx: the context, every request retired
 *
 * Every out-fence signalled at its request's terminal event, and every
 * gate went with its request: the table is empty.
 */
void retire_fences_fini(struct retire_ctx *ctx)
{
	struct retire_fence *f;
	unsigned long idx;

	cancel_work_sync(&ctx->gate_work);
	xa_for_each(&ctx->fences, idx, f) {
		WARN_ONCE(1, "retire: an out-fence outlived its request\n");
		retire_fence_signal(f, -ECANCELED);
		dma_fence_put(&f->base);
	}
	xa_destroy(&ctx->fences);
}
