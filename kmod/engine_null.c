// SPDX-License-Identifier: GPL-2.0
/*
 * The null engine (retire_null.ko): a device that accesses nothing and
 * completes every request inside run(), in the submitter's context and
 * under its context lock, as null_blk does with irqmode=0. Each request
 * completes with nothing transferred and no checksum: what is left is the
 * lifecycle itself (admission, activation, terminal event, records,
 * retirement), which is what a benchmark of the core measures.
 *
 * It keeps no per-request state and no timers: nothing of a request is
 * left with it after run() returns, so the core takes no job and arms no
 * watchdog for it, a cancel never finds one running and a reset has
 * nothing to end.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/retire.h>
#include <linux/retire_engine.h>

/* nothing to access: the result the core zeroed is the terminal event */
static void retire_null_run(struct retire_engine *e, struct retire_ctx *ctx,
			    const struct retire_engine_work *w,
			    struct retire_engine_result *res)
{
	retire_ctx_assert_held(ctx);
	/* no byte moved, so no retire_engine_moving_locked() either */
}

static const struct retire_engine_ops retire_null_ops = {
	.run		= retire_null_run,
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
