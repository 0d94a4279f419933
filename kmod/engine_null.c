// SPDX-License-Identifier: GPL-2.0
/*
 * The null engine (retire_null.ko): a device that accesses nothing and
 * completes every request inside start(), in the submitter's context and
 * under its context lock, as null_blk does with irqmode=0. Each request
 * completes with nothing transferred and no checksum: what is left is the
 * lifecycle itself (admission, activation, terminal event, records,
 * retirement), which is what a benchmark of the core measures.
 *
 * It keeps no per-request state (job_size 0) and no timers: nothing of a
 * request is left with it after start() returns, so a cancel never finds
 * one running and a reset has nothing to end.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/retire.h>
#include <linux/retire_engine.h>

static void retire_null_start(struct retire_engine *e, struct retire_ctx *ctx,
			      void *job, const struct retire_engine_work *w)
{
	static const struct retire_engine_result done = {};

	retire_ctx_assert_held(ctx);
	/* no byte moved, so no retire_engine_moving_locked() either */
	retire_engine_complete_locked(ctx, w->handle, &done);
}

/* every request it was given has reported: none is running */
static bool retire_null_try_stop(struct retire_engine *e,
				 struct retire_ctx *ctx, void *job)
{
	return false;
}

static const struct retire_engine_ops retire_null_ops = {
	.start		= retire_null_start,
	.try_stop	= retire_null_try_stop,
};

static struct retire_engine retire_null_engine = {
	.name	= "null",
	.ops	= &retire_null_ops,
	.owner	= THIS_MODULE,
	.imports = true,	/* it touches no byte of any buffer */
};

static int __init retire_null_init(void)
{
	return retire_engine_register(&retire_null_engine);
}

static void __exit retire_null_exit(void)
{
	retire_engine_unregister(&retire_null_engine);
}

module_init(retire_null_init);
module_exit(retire_null_exit);

MODULE_DESCRIPTION("retire: the null engine, completing inline with no access");
MODULE_AUTHOR("The retire developers");
MODULE_LICENSE("GPL");
MODULE_ALIAS("retire-engine-null");
