// SPDX-License-Identifier: GPL-2.0
/*
 * retire: provable buffer lifetime for asynchronous device work.
 *
 * Module init and exit, and the module parameters that cap every context's
 * limits. This is the core: engines are modules of their own that
 * register with it (include/linux/retire_engine.h). Registration order:
 * the module's workqueue first, then the netlink family, the character
 * device last, so that nothing can open /dev/retire before every service
 * it may reach is up; exit undoes it in reverse.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/time64.h>

#include <kunit/visibility.h>

#include "main.h"
#include "chardev.h"
#include "ctx.h"
#include "debugfs.h"
#include "dmabuf.h"
#include "engine.h"
#include "fence.h"
#include "netlink.h"
#include "slot.h"

/*
 * Caps on every context's limits. Read-only once loaded: a context's limits
 * are checked against them when set, and lowering a cap under live contexts
 * would leave those contexts above it.
 */
static unsigned int max_unretired = 4096;
module_param(max_unretired, uint, 0444);
MODULE_PARM_DESC(max_unretired, "Cap on unretired requests per context");

static unsigned int max_active = 256;
module_param(max_active, uint, 0444);
MODULE_PARM_DESC(max_active, "Cap on requests active in the engine per context");

static unsigned int max_active_per_key = 64;
module_param(max_active_per_key, uint, 0444);
MODULE_PARM_DESC(max_active_per_key, "Cap on active requests sharing one key");

static unsigned int max_waiting = 4096;
module_param(max_waiting, uint, 0444);
MODULE_PARM_DESC(max_waiting, "Cap on admitted, not yet active requests per context");

static unsigned int max_tokens = 4096;
module_param(max_tokens, uint, 0444);
MODULE_PARM_DESC(max_tokens, "Cap on outstanding borrow tokens per context");

static unsigned int max_buffers = 1024;
module_param(max_buffers, uint, 0444);
MODULE_PARM_DESC(max_buffers, "Cap on registered buffers per context");

static unsigned long long max_reserved_bytes = 256ULL << 20;
module_param(max_reserved_bytes, ullong, 0444);
MODULE_PARM_DESC(max_reserved_bytes, "Cap on bytes reserved by unretired requests per context");

static unsigned long long max_pinned_bytes = 64ULL << 20;
module_param(max_pinned_bytes, ullong, 0444);
MODULE_PARM_DESC(max_pinned_bytes, "Cap on user memory pinned per context, in bytes");

static unsigned long long max_pool_bytes = 64ULL << 20;
module_param(max_pool_bytes, ullong, 0444);
MODULE_PARM_DESC(max_pool_bytes, "Cap on module-allocated buffer bytes per context");

static unsigned int watchdog_ms = 10000;
module_param(watchdog_ms, uint, 0444);
MODULE_PARM_DESC(watchdog_ms, "Longest a device may hold a request before it is quarantined (cap and default)");

/**
 * retire_caps_get() - the module-wide caps on a context's limits
 * @caps: filled with the module parameters
 */
void retire_caps_get(struct retire_limits *caps)
{
	*caps = (struct retire_limits) {
		.max_unretired = max_unretired,
		.max_active = max_active,
		.max_active_per_key = max_active_per_key,
		.max_waiting = max_waiting,
		.max_tokens = max_tokens,
		.max_buffers = max_buffers,
		.max_reserved_bytes = max_reserved_bytes,
		.max_pinned_bytes = max_pinned_bytes,
		.max_pool_bytes = max_pool_bytes,
		.watchdog_ns = (u64)watchdog_ms * NSEC_PER_MSEC,
	};
}
EXPORT_SYMBOL_IF_KUNIT(retire_caps_get);

/**
 * retire_info_fill() - describe the running module
 * @info: filled completely; every field the ABI does not define is zeroed
 *
 * Serves both RETIRE_IOC_GET_INFO and the netlink INFO_GET command, so the
 * two can never disagree.
 */
void retire_info_fill(struct retire_info *info)
{
	memset(info, 0, sizeof(*info));
	info->abi_version = RETIRE_ABI_VERSION;
	/* the core's, and what the registered engines add */
	info->features = RETIRE_FEATURES | RETIRE_FENCE_FEATURES |
			 RETIRE_DMABUF_FEATURES | retire_engine_features();
	retire_caps_get(&info->caps);
}
EXPORT_SYMBOL_IF_KUNIT(retire_info_fill);

static int __init retire_caps_check(void)
{
	struct retire_limits caps;

	retire_caps_get(&caps);
	if (!caps.max_unretired || !caps.max_active ||
	    !caps.max_active_per_key || !caps.max_waiting ||
	    !caps.max_tokens || !caps.max_buffers ||
	    !caps.max_reserved_bytes || !caps.max_pool_bytes ||
	    !caps.watchdog_ns) {
		pr_err("every cap except max_pinned_bytes must be non-zero\n");
		return -EINVAL;
	}
	/* a handoff needs one token slot over the bound */
	if (caps.max_tokens >= RETIRE_SLOT_MAX ||
	    caps.max_buffers > RETIRE_SLOT_MAX) {
		pr_err("max_tokens must be below and max_buffers at most %lu\n",
		       RETIRE_SLOT_MAX);
		return -EINVAL;
	}
	if (caps.max_active_per_key > caps.max_active ||
	    caps.max_active > caps.max_unretired) {
		pr_err("caps must satisfy max_active_per_key <= max_active <= max_unretired\n");
		return -EINVAL;
	}
	return 0;
}

static int __init retire_init(void)
{
	int ret;

	ret = retire_caps_check();
	if (ret)
		return ret;

	ret = retire_engine_init();
	if (ret)
		return ret;
	ret = retire_ctx_init();
	if (ret)
		return ret;
	retire_debugfs_init();

	ret = retire_netlink_register();
	if (ret)
		goto out_ctx;

	ret = retire_chardev_register();
	if (ret)
		goto out_netlink;

	pr_info("abi %u loaded\n", RETIRE_ABI_VERSION);
	return 0;

out_netlink:
	retire_netlink_unregister();
out_ctx:
	retire_debugfs_exit();
	retire_ctx_exit();
	return ret;
}

static void __exit retire_exit(void)
{
	retire_chardev_unregister();
	retire_netlink_unregister();
	/*
	 * Every context is gone (each pinned the module), and so is every
	 * engine: each engine module uses the core's symbols, so it was
	 * unloaded first. Drain the queue: the last contexts leave debugfs.
	 */
	retire_ctx_exit();
	retire_debugfs_exit();
	/* the last fences' frees, each of which held the module, returned */
	retire_fence_exit();
}

module_init(retire_init);
module_exit(retire_exit);

MODULE_DESCRIPTION("retire: provable buffer lifetime for asynchronous device work");
MODULE_AUTHOR("The retire developers");
MODULE_LICENSE("GPL");
