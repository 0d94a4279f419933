/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_RECORDS_H
#define _RETIRE_RECORDS_H

#include <linux/ktime.h>
#include <linux/types.h>

struct retire_ctx;
struct retire_cqe;
struct retire_req;

bool retire_records_ready(struct retire_ctx *ctx);
int retire_records_take(struct retire_ctx *ctx, struct retire_cqe __user *u,
			unsigned int nr);
int retire_records_take_kernel(struct retire_ctx *ctx, struct retire_cqe *k,
			       unsigned int nr);
u32 retire_records_post(struct retire_ctx *ctx, struct retire_cqe *cqes,
			u32 mask, u32 *tail, u32 room);
int retire_records_wait(struct retire_ctx *ctx, u32 flags, u64 timeout_ns,
			ktime_t *deadline, const u32 *tail, u32 seen);
void retire_record_direct_locked(struct retire_ctx *ctx,
				 struct retire_req *req,
				 struct retire_cqe *cqe, ktime_t now);
int retire_reap_wait(struct retire_ctx *ctx, struct retire_cqe __user *ucqes,
		     u32 nr, u32 min_complete, u64 timeout_ns, u32 flags,
		     int n, u32 *reaped);

#endif /* _RETIRE_RECORDS_H */
