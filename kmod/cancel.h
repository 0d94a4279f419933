/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_CANCEL_H
#define _RETIRE_CANCEL_H

#include <linux/types.h>

struct retire_ctx;
struct retire_req;

void retire_deadline_init(struct retire_req *req);
void retire_deadline_arm(struct retire_req *req);
void retire_watchdog_arm(struct retire_req *req);
void retire_watchdog_init(struct retire_ctx *ctx);
int retire_req_cancel(struct retire_ctx *ctx, u64 handle);

#endif /* _RETIRE_CANCEL_H */
