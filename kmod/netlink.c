// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "retire". Documentation/netlink/specs/retire.yaml
 * is the contract: uapi/linux/retire_netlink.h is generated from it and the
 * policies and the op table below follow it (KUnit checks their sizes).
 *
 * Notifications never allocate where the events happen: a stale event only
 * marks its context dirty and queues a delayed work item, so a context sends
 * at most one "stale" message per stale_ntf_ms, carrying cumulative
 * counters, however fast stale events arrive; nothing is lost, because the
 * last message always carries the totals. Health events are sent from
 * process context the same way.
 *
 * Privilege, one rule for the ioctls and the family alike: the module-wide
 * view (info-get, stats-get do, engine-get) is open to everyone; what
 * names other users' contexts (the stats-get dump's rows, the stale and
 * health groups) and what changes the engine (engine-set) needs
 * CAP_SYS_ADMIN, as the engines' knob ioctls do. Without it a dump lists
 * only the caller's own contexts, with pids as the caller's pid namespace
 * sees them. Contexts belong to the machine, not to a network namespace:
 * the family exists in the initial one only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/cred.h>
#include <linux/pid_namespace.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <kunit/visibility.h>
#include <linux/retire.h>
#include <linux/retire_netlink.h>

#include "compat.h"
#include "ctx.h"
#include "engine.h"
#include "main.h"
#include "netlink.h"
#include "stats.h"

static unsigned int stale_ntf_ms = 100;
module_param(stale_ntf_ms, uint, 0644);
MODULE_PARM_DESC(stale_ntf_ms, "Least interval between two stale notifications of one context");

/* the stats attribute set is struct retire_stats's counters, in order */
static_assert(RETIRE_A_STATS_DEVICE_OUTSTANDING - RETIRE_A_STATS_ADMITTED ==
	      RETIRE_ST_NR - 1);

/*
 * Requests that take no attributes: strict validation refuses every
 * NLA_UNSPEC entry of these zeroed policies, and every type past them.
 */
static const struct nla_policy retire_info_get_nl_policy[RETIRE_A_INFO_MAX + 1];
static const struct nla_policy retire_stats_get_nl_policy[RETIRE_A_STATS_MAX + 1];
static const struct nla_policy retire_engine_get_nl_policy[RETIRE_A_ENGINE_MAX + 1];

static const struct nla_policy retire_engine_set_nl_policy[RETIRE_A_ENGINE_MAX + 1] = {
	[RETIRE_A_ENGINE_PAD]			= { .type = NLA_REJECT },
	[RETIRE_A_ENGINE_FLAGS]			= { .type = NLA_U32 },
	[RETIRE_A_ENGINE_LATENCY_NS]		= { .type = NLA_U64 },
	[RETIRE_A_ENGINE_TICK_NS]		= { .type = NLA_U64 },
	[RETIRE_A_ENGINE_BYTES_PER_TICK]	= { .type = NLA_U64 },
	[RETIRE_A_ENGINE_FAIL_EVERY]		= { .type = NLA_U32 },
	[RETIRE_A_ENGINE_FAIL_SUBMIT_EVERY]	= { .type = NLA_U32 },
	[RETIRE_A_ENGINE_SEED]			= { .type = NLA_U64 },
	[RETIRE_A_ENGINE_RATE_BPS]		= { .type = NLA_U64 },
	[RETIRE_A_ENGINE_BURST_BYTES]		= { .type = NLA_U64 },
	[RETIRE_A_ENGINE_FINISH_NS]		= { .type = NLA_U64 },
};

enum retire_nl_mcgrp {
	RETIRE_NLGRP_STALE,
	RETIRE_NLGRP_HEALTH,
};

static struct genl_family retire_genl_family;

/* a counter: a 64-bit "uint" (4 or 8 bytes on the wire; always 8 here) */
static int retire_nla_put_uint(struct sk_buff *skb, int type, u64 v,
			       int pad)
{
	return nla_put_64bit(skb, type, sizeof(v), &v, pad);
}

/* a reply to @info: @fill puts the attributes */
static int retire_nl_reply(struct genl_info *info, u8 cmd,
			   int (*fill)(struct sk_buff *msg, const void *arg),
			   const void *arg)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &retire_genl_family, 0, cmd);
	if (!hdr || fill(msg, arg)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* what info-get says: GET_INFO's fields and the engines */
struct retire_nl_info {
	struct retire_info ri;
	struct retire_engine_info *engines;
	int nr;
};

static int retire_nl_put_engine(struct sk_buff *msg,
				const struct retire_engine_info *e)
{
	struct nlattr *nest = nla_nest_start(msg, RETIRE_A_INFO_ENGINE);

	if (!nest ||
	    nla_put_u32(msg, RETIRE_A_ENGINE_INFO_ID, e->id) ||
	    nla_put_u32(msg, RETIRE_A_ENGINE_INFO_FLAGS, e->flags) ||
	    nla_put_string(msg, RETIRE_A_ENGINE_INFO_NAME, e->name) ||
	    nla_put_string(msg, RETIRE_A_ENGINE_INFO_DEVICE, e->device) ||
	    nla_put_u64_64bit(msg, RETIRE_A_ENGINE_INFO_DMA_MASK, e->dma_mask,
			      RETIRE_A_ENGINE_INFO_PAD) ||
	    nla_put_u32(msg, RETIRE_A_ENGINE_INFO_MAX_TRANSFER,
			e->max_transfer) ||
	    nla_put_u32(msg, RETIRE_A_ENGINE_INFO_CONTEXTS, e->contexts) ||
	    retire_nla_put_uint(msg, RETIRE_A_ENGINE_INFO_TRANSFERS,
				e->transfers, RETIRE_A_ENGINE_INFO_PAD) ||
	    retire_nla_put_uint(msg, RETIRE_A_ENGINE_INFO_BOUNCED,
				e->bounced, RETIRE_A_ENGINE_INFO_PAD))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int retire_nl_fill_info(struct sk_buff *msg, const void *arg)
{
	const struct retire_nl_info *in = arg;
	int i;

	if (nla_put_u32(msg, RETIRE_A_INFO_ABI_VERSION, in->ri.abi_version) ||
	    nla_put_u64_64bit(msg, RETIRE_A_INFO_FEATURES, in->ri.features,
			      RETIRE_A_INFO_PAD))
		return -EMSGSIZE;
	for (i = 0; i < in->nr; i++)
		if (retire_nl_put_engine(msg, &in->engines[i]))
			return -EMSGSIZE;
	return 0;
}

static int retire_nl_info_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct retire_nl_info in = {};
	int n, ret;

	retire_info_fill(&in.ri);
	/* an engine may come or go between the count and the list */
	n = retire_engine_list(NULL, 0);
	in.engines = kcalloc(n + 4, sizeof(*in.engines), GFP_KERNEL);
	if (!in.engines)
		return -ENOMEM;
	in.nr = min(retire_engine_list(in.engines, n + 4), n + 4);
	ret = retire_nl_reply(info, RETIRE_CMD_INFO_GET, retire_nl_fill_info,
			      &in);
	kfree(in.engines);
	return ret;
}

/* @st's counters; @ctx_id 0 for the module's */
static int retire_nl_put_stats(struct sk_buff *msg, const struct retire_stats *st,
			       u64 ctx_id, u32 pid)
{
	const u64 *v = (const u64 *)st;
	unsigned int i;

	if (ctx_id &&
	    (retire_nla_put_uint(msg, RETIRE_A_STATS_CTX_ID, ctx_id,
				 RETIRE_A_STATS_PAD) ||
	     nla_put_u32(msg, RETIRE_A_STATS_PID, pid)))
		return -EMSGSIZE;
	for (i = 0; i < RETIRE_ST_NR; i++)
		if (retire_nla_put_uint(msg, RETIRE_A_STATS_ADMITTED + i, v[i],
					RETIRE_A_STATS_PAD))
			return -EMSGSIZE;
	return 0;
}

static int retire_nl_fill_module_stats(struct sk_buff *msg, const void *arg)
{
	return retire_nl_put_stats(msg, arg, 0, 0);
}

static int retire_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct retire_stats *st;
	int ret;

	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	retire_stats_module(st);
	ret = retire_nl_reply(info, RETIRE_CMD_STATS_GET,
			      retire_nl_fill_module_stats, st);
	kfree(st);
	return ret;
}

struct retire_nl_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	bool all;
	kuid_t uid;
	struct pid_namespace *ns;
	struct retire_stats st;
};

/* one context's message; non-zero when the skb is full */
static int retire_nl_dump_one(struct retire_ctx *ctx, void *arg)
{
	struct retire_nl_dump *d = arg;
	void *hdr;

	/* another user's context: not this caller's to see */
	if (!d->all && !uid_eq(ctx->uid, d->uid)) {
		d->cb->args[0] = ctx->id;
		return 0;
	}
	spin_lock_irq(&ctx->lock);
	retire_stats_export(&ctx->stats, &d->st);
	spin_unlock_irq(&ctx->lock);

	hdr = genlmsg_put(d->skb, NETLINK_CB(d->cb->skb).portid,
			  d->cb->nlh->nlmsg_seq, &retire_genl_family,
			  NLM_F_MULTI, RETIRE_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (retire_nl_put_stats(d->skb, &d->st, ctx->id,
				pid_nr_ns(ctx->owner, d->ns))) {
		genlmsg_cancel(d->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(d->skb, hdr);
	d->cb->args[0] = ctx->id;
	return 0;
}

static int retire_nl_stats_get_dumpit(struct sk_buff *skb,
				      struct netlink_callback *cb)
{
	struct retire_nl_dump *d;
	int ret;

	d = kmalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->skb = skb;
	d->cb = cb;
	/* a dump runs in the requester's context: these are its own */
	d->all = netlink_capable(cb->skb, CAP_SYS_ADMIN);
	d->uid = current_euid();
	d->ns = task_active_pid_ns(current);
	/* contexts come in id order: resume after the last one sent */
	ret = retire_ctx_walk_after(cb->args[0], retire_nl_dump_one, d);
	kfree(d);
	if (ret == -EMSGSIZE)
		return skb->len;	/* more to come */
	return ret ?: skb->len;
}

static int retire_nl_fill_engine(struct sk_buff *msg, const void *arg)
{
	struct retire_engine *e = (struct retire_engine *)arg;

	return e->ops->nl_fill(e, msg);
}

/*
 * engine-get and engine-set reach the first engine with knobs; the
 * attributes are the family's, what they mean and which values are valid
 * is the engine's (ops->nl_fill, ops->nl_set).
 */
static int retire_nl_engine_get_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	struct retire_engine *e = retire_engine_with_knobs();
	int ret;

	if (!e) {
		NL_SET_ERR_MSG(info->extack, "no engine with knobs is loaded");
		return -ENODEV;
	}
	ret = retire_nl_reply(info, RETIRE_CMD_ENGINE_GET,
			      retire_nl_fill_engine, e);
	retire_engine_put(e);
	return ret;
}

static int retire_nl_engine_set_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	struct retire_engine *e;
	int ret;

	/* the capability of the engine's own knob ioctl, not CAP_NET_ADMIN */
	if (!netlink_capable(skb, CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG(info->extack, "engine-set needs CAP_SYS_ADMIN");
		return -EPERM;
	}
	e = retire_engine_with_knobs();
	if (!e) {
		NL_SET_ERR_MSG(info->extack, "no engine with knobs is loaded");
		return -ENODEV;
	}
	ret = e->ops->nl_set(e, info->attrs, info->extack);
	retire_engine_put(e);
	return ret;
}

static const struct genl_ops retire_nl_ops[] = {
	{
		.cmd		= RETIRE_CMD_INFO_GET,
		.doit		= retire_nl_info_get_doit,
		.policy		= retire_info_get_nl_policy,
		.maxattr	= RETIRE_A_INFO_MAX,
	},
	{
		.cmd		= RETIRE_CMD_STATS_GET,
		.doit		= retire_nl_stats_get_doit,
		.dumpit		= retire_nl_stats_get_dumpit,
		.policy		= retire_stats_get_nl_policy,
		.maxattr	= RETIRE_A_STATS_MAX,
	},
	{
		.cmd		= RETIRE_CMD_ENGINE_GET,
		.doit		= retire_nl_engine_get_doit,
		.policy		= retire_engine_get_nl_policy,
		.maxattr	= RETIRE_A_ENGINE_MAX,
	},
	{
		.cmd		= RETIRE_CMD_ENGINE_SET,
		.doit		= retire_nl_engine_set_doit,
		.policy		= retire_engine_set_nl_policy,
		.maxattr	= RETIRE_A_ENGINE_MAX,
	},
};

/* they name every user's contexts: CAP_SYS_ADMIN to join */
static const struct genl_multicast_group retire_nl_mcgrps[] = {
	[RETIRE_NLGRP_STALE] = {
		.name = RETIRE_MCGRP_STALE,
		RETIRE_MCGRP_CAP_SYS_ADMIN
	},
	[RETIRE_NLGRP_HEALTH] = {
		.name = RETIRE_MCGRP_HEALTH,
		RETIRE_MCGRP_CAP_SYS_ADMIN
	},
};

static struct genl_family retire_genl_family __ro_after_init = {
	.name		= RETIRE_FAMILY_NAME,
	.version	= RETIRE_FAMILY_VERSION,
	/* contexts are the machine's: the initial namespace only */
	.netnsok	= false,
	.module		= THIS_MODULE,
	.ops		= retire_nl_ops,
	.n_ops		= ARRAY_SIZE(retire_nl_ops),
	.mcgrps		= retire_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(retire_nl_mcgrps),
	/* strict validation of reserved header fields for every op */
	.resv_start_op	= RETIRE_CMD_INFO_GET,
};

/* resolving the family by name loads the module */
MODULE_ALIAS_GENL_FAMILY(RETIRE_FAMILY_NAME);

/* a notification to @group, if anyone listens */
static void retire_nl_notify(unsigned int group, u8 cmd,
			     int (*fill)(struct sk_buff *msg, const void *arg),
			     const void *arg)
{
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&retire_genl_family, &init_net, group))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &retire_genl_family, 0, cmd);
	if (!hdr || fill(msg, arg)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&retire_genl_family, msg, 0, group, GFP_KERNEL);
}

static int retire_nl_fill_stale(struct sk_buff *msg, const void *arg)
{
	const struct retire_nl_stale *s = arg;
	const int pad = RETIRE_A_STALE_PAD;

	if (retire_nla_put_uint(msg, RETIRE_A_STALE_CTX_ID, s->ctx_id, pad) ||
	    nla_put_u32(msg, RETIRE_A_STALE_PID, s->pid) ||
	    retire_nla_put_uint(msg, RETIRE_A_STALE_ENGINE, s->engine, pad) ||
	    retire_nla_put_uint(msg, RETIRE_A_STALE_CANCEL, s->cancel, pad) ||
	    retire_nla_put_uint(msg, RETIRE_A_STALE_TOKEN, s->token, pad) ||
	    retire_nla_put_uint(msg, RETIRE_A_STALE_USER, s->user, pad) ||
	    retire_nla_put_uint(msg, RETIRE_A_STALE_PUBLISHED, s->published,
				pad))
		return -EMSGSIZE;
	return 0;
}

/**
 * retire_netlink_notify_stale() - multicast a context's stale counters
 * @s: the cumulative counters; may sleep
 */
void retire_netlink_notify_stale(const struct retire_nl_stale *s)
{
	retire_nl_notify(RETIRE_NLGRP_STALE, RETIRE_CMD_STALE_NTF,
			 retire_nl_fill_stale, s);
}

static int retire_nl_fill_health(struct sk_buff *msg, const void *arg)
{
	const struct retire_nl_health *h = arg;
	const int pad = RETIRE_A_HEALTH_PAD;

	if (nla_put_u32(msg, RETIRE_A_HEALTH_EVENT, h->event) ||
	    retire_nla_put_uint(msg, RETIRE_A_HEALTH_CTX_ID, h->ctx_id, pad) ||
	    nla_put_u32(msg, RETIRE_A_HEALTH_PID, h->pid) ||
	    retire_nla_put_uint(msg, RETIRE_A_HEALTH_QUARANTINED_NOW,
				h->quarantined_now, pad))
		return -EMSGSIZE;
	return 0;
}

/**
 * retire_netlink_notify_health() - multicast a health event
 * @h: the event; may sleep
 */
void retire_netlink_notify_health(const struct retire_nl_health *h)
{
	retire_nl_notify(RETIRE_NLGRP_HEALTH, RETIRE_CMD_HEALTH_NTF,
			 retire_nl_fill_health, h);
}

/**
 * retire_netlink_stale_delay() - the coalescing interval of stale messages
 *
 * Return: stale_ntf_ms, in jiffies.
 */
unsigned long retire_netlink_stale_delay(void)
{
	return msecs_to_jiffies(READ_ONCE(stale_ntf_ms));
}

/**
 * retire_netlink_op() - the op of a command
 * @cmd: RETIRE_CMD_*
 *
 * Return: the op, or NULL for a command without one (a notification). For
 * the KUnit check that the op table follows the spec.
 */
const struct genl_ops *retire_netlink_op(u8 cmd)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(retire_nl_ops); i++)
		if (retire_nl_ops[i].cmd == cmd)
			return &retire_nl_ops[i];
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(retire_netlink_op);

/**
 * retire_netlink_register() - register the generic netlink family
 *
 * Return: 0 or the genl_register_family() error.
 */
int retire_netlink_register(void)
{
	return genl_register_family(&retire_genl_family);
}

/**
 * retire_netlink_unregister() - unregister the generic netlink family
 */
void retire_netlink_unregister(void)
{
	genl_unregister_family(&retire_genl_family);
}
