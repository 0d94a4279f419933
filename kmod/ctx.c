// SPDX-License-Identifier: GPL-2.0
/*
 * The context: everything one open file description of /dev/retire owns.
 * Its lifetime is a kref, not the file's: the file is only the first owner.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include <kunit/visibility.h>
#include "main.h"
#include "ctx.h"

/**
 * retire_ctx_create() - a new context with limits equal to the module caps
 *
 * Return: the context, holding one reference for the caller, or
 * ERR_PTR(-ENOMEM). Its memory is charged to the caller's memory cgroup.
 */
struct retire_ctx *retire_ctx_create(void)
{
	struct retire_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return ERR_PTR(-ENOMEM);

	kref_init(&ctx->ref);
	spin_lock_init(&ctx->lock);
	retire_caps_get(&ctx->limits);
	return ctx;
}
EXPORT_SYMBOL_IF_KUNIT(retire_ctx_create);

static void retire_ctx_free(struct kref *ref)
{
	struct retire_ctx *ctx = container_of(ref, struct retire_ctx, ref);

	kfree(ctx);
}

/**
 * retire_ctx_put() - drop a reference; the last one frees the context
 * @ctx: the context
 */
void retire_ctx_put(struct retire_ctx *ctx)
{
	kref_put(&ctx->ref, retire_ctx_free);
}
EXPORT_SYMBOL_IF_KUNIT(retire_ctx_put);
