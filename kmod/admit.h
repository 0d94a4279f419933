/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_ADMIT_H
#define _RETIRE_ADMIT_H

#include <linux/ktime.h>
#include <linux/types.h>

#include "buf.h"
#include "ctx.h"
#include "dmabuf.h"
#include "history.h"
#include "keys.h"
#include "req.h"

struct retire_limits;
struct work_struct;

void retire_req_activate_locked(struct retire_ctx *ctx,
				struct retire_req *req, ktime_t now);
bool retire_may_activate_locked(struct retire_ctx *ctx, u64 key);
void retire_activate_waiting_locked(struct retire_ctx *ctx, ktime_t now);
void retire_ctx_activate_work(struct work_struct *work);
u32 retire_jobs_wanted_locked(struct retire_ctx *ctx, u32 max_active,
			      u32 extra);
int retire_jobs_reserve(struct retire_ctx *ctx, u32 max_active, u32 extra);
void retire_ctx_limits_changed_locked(struct retire_ctx *ctx,
				      const struct retire_limits *l);

/* what the device is asked to do for @req, which becomes ACTIVE */
static __always_inline void
retire_req_work_locked(struct retire_ctx *ctx, struct retire_req *req,
		       struct retire_engine_work *w)
{
	lockdep_assert_held(&ctx->lock);
	*w = (struct retire_engine_work) {
		.handle = req->handle,
		.pages = req->buf->pages,
		.buf = req->buf,
		.offset = req->offset,
		.len = req->len,
		.dev_flags = req->dev_flags,
		.user_data = req->user_data,
	};
	/* admission held it to the engine it was attached for */
	if (req->buf->import) {
		retire_import_work(req->buf->import, w);
		retire_import_start(req->buf->import);
	}
	req->state = RETIRE_REQ_ACTIVE;
	ctx->active++;
}

/**
 * retire_req_run_locked() - an engine that runs inline does @req's work
 * @ctx:	the context; its engine has ops->run
 * @req:	an admitted request, which is ACTIVE for the call
 * @now:	its activation time
 * @keyed:	its key counts it while it is active (all but the fast
 *		lane's, which no other request sees active)
 * @res:	the device's terminal event, for retire_req_terminate_at_locked()
 *
 * No job, no watchdog entry: nothing of the request is left with the
 * device when run() returns, under the lock it was called with. Inline:
 * the fast lane runs it for every request.
 */
static __always_inline void
retire_req_run_locked(struct retire_ctx *ctx, struct retire_req *req,
		      ktime_t now, bool keyed, struct retire_engine_result *res)
{
	struct retire_engine_work w;

	retire_req_work_locked(ctx, req, &w);
	if (keyed)
		retire_keys_start_locked(ctx, req);
	retire_event_at_locked(ctx, RETIRE_EV_ACTIVATE, req->handle, 0, 0, now);
	*res = (struct retire_engine_result) {};
	ctx->engine->ops->run(ctx->engine, ctx, &w, res);
}

#endif /* _RETIRE_ADMIT_H */
