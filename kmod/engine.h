/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_ENGINE_H
#define _RETIRE_ENGINE_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>

#include <linux/retire_engine.h>

#include "slot.h"

struct retire_engine_info;

/**
 * struct retire_job - the core's header of an engine's per-request storage
 * @slot:	its place in the context's job table
 * @pdu:	the engine's ops->job_size bytes: what its ops are given
 */
struct retire_job {
	struct retire_slot slot;
	u64 pdu[];
};

static inline void *retire_job_pdu(struct retire_job *job)
{
	return job->pdu;
}

static inline u32 retire_job_size(const struct retire_engine *e)
{
	return offsetof(struct retire_job, pdu) +
	       ALIGN(e->ops->job_size, sizeof(u64));
}

/*
 * Does @e finish every request inside ops->run()? Then none of its
 * requests is ever active outside a hold of its context's lock: it needs no
 * job and no watchdog.
 */
static inline bool retire_engine_runs_inline(const struct retire_engine *e)
{
	return e->ops->run;
}

struct retire_engine *retire_engine_get(u32 id);
struct retire_engine *retire_engine_get_default(void);
void retire_engine_hold(struct retire_engine *e);
void retire_engine_put(struct retire_engine *e);
int retire_engine_list(struct retire_engine_info *out, u32 nr);
u64 retire_engine_features(void);
long retire_engine_ioctl(struct retire_ctx *ctx, unsigned int cmd,
			 void __user *uarg);
struct retire_engine *retire_engine_with_knobs(void);
int retire_engine_init(void);

#endif /* _RETIRE_ENGINE_H */
