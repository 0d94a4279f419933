/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_ADMIT_H
#define _RETIRE_ADMIT_H

#include <linux/ktime.h>
#include <linux/types.h>

struct retire_ctx;
struct retire_engine_result;
struct retire_limits;
struct retire_req;
struct work_struct;

void retire_req_activate_locked(struct retire_ctx *ctx,
				struct retire_req *req, ktime_t now);
void retire_req_run_locked(struct retire_ctx *ctx, struct retire_req *req,
			   ktime_t now, bool keyed,
			   struct retire_engine_result *res);
bool retire_may_activate_locked(struct retire_ctx *ctx, u64 key);
void retire_activate_waiting_locked(struct retire_ctx *ctx, ktime_t now);
void retire_ctx_activate_work(struct work_struct *work);
u32 retire_jobs_wanted_locked(struct retire_ctx *ctx, u32 max_active,
			      u32 extra);
int retire_jobs_reserve(struct retire_ctx *ctx, u32 max_active, u32 extra);
void retire_ctx_limits_changed_locked(struct retire_ctx *ctx,
				      const struct retire_limits *l);

#endif /* _RETIRE_ADMIT_H */
