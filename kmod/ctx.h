/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_CTX_H
#define _RETIRE_CTX_H

#include <linux/kref.h>
#include <linux/spinlock.h>
#include <linux/retire.h>

/**
 * struct retire_ctx - one open file description of /dev/retire
 * @ref:	the open file holds one reference; later, every unretired
 *		request and the reaper hold one each, so a context outlives
 *		its file for as long as any device work names it.
 * @lock:	IRQ-safe: terminal events may arrive from hrtimers or IRQs.
 * @limits:	this context's bounds, never above the module caps.
 */
struct retire_ctx {
	struct kref ref;
	spinlock_t lock;		/* IRQ-safe; see @lock above */
	struct retire_limits limits;	/* protected by @lock */
};

struct retire_ctx *retire_ctx_create(void);
void retire_ctx_put(struct retire_ctx *ctx);

#endif /* _RETIRE_CTX_H */
