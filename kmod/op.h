/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_OP_H
#define _RETIRE_OP_H

#include <linux/ktime.h>
#include <linux/types.h>

struct retire_ctx;
struct retire_enter;
struct retire_op;

int retire_op_run(struct retire_ctx *ctx, struct retire_op *op, ktime_t now);
int retire_op_run_one(struct retire_ctx *ctx, struct retire_op *op);
int retire_enter_arrays(struct retire_ctx *ctx, struct retire_enter *e,
			struct retire_op *ops);
int retire_enter_rings(struct retire_ctx *ctx, struct retire_enter *e);

#endif /* _RETIRE_OP_H */
