/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_CANCEL_H
#define _RETIRE_CANCEL_H

#include <linux/ktime.h>
#include <linux/types.h>

struct retire_ctx;
struct retire_req;
struct retire_deadline;
struct retire_import;

void retire_ctx_timer_init(struct retire_ctx *ctx);
void retire_ctx_timer_fini(struct retire_ctx *ctx);
void retire_watchdog_arm(struct retire_ctx *ctx, struct retire_req *req,
			 ktime_t now);
int retire_deadline_new(u64 deadline_ns, struct retire_deadline **dl);
void retire_deadline_free(struct retire_deadline *dl);
void retire_deadline_arm(struct retire_ctx *ctx, struct retire_req *req,
			 struct retire_deadline *dl, u64 deadline_ns);
void retire_deadline_disarm(struct retire_ctx *ctx, struct retire_req *req);
ktime_t retire_deadline_expires(const struct retire_req *req);
int retire_req_cancel(struct retire_ctx *ctx, u64 handle);
u32 retire_req_cancel_match(struct retire_ctx *ctx, u32 flags, u64 key,
			    u32 *kept);
u32 retire_req_cancel_import(struct retire_ctx *ctx,
			     const struct retire_import *import);
int retire_req_cancel_wait(struct retire_ctx *ctx, u32 flags, u64 key,
			   u64 timeout_ns, u32 *pending);
void retire_req_quarantine_locked(struct retire_ctx *ctx,
				  struct retire_req *req);
void retire_req_unquarantine_locked(struct retire_ctx *ctx,
				    struct retire_req *req);
void retire_ctx_unquarantine(struct retire_ctx *ctx);
int retire_deadline_cache_init(void);
void retire_deadline_cache_exit(void);

#endif /* _RETIRE_CANCEL_H */
