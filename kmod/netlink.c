// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "retire". Documentation/netlink/specs/retire.yaml
 * is the contract: uapi/linux/retire_netlink.h is generated from it and the
 * policies and the op table below follow it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/genetlink.h>
#include <linux/retire.h>
#include <linux/retire_netlink.h>

#include "main.h"
#include "netlink.h"

/* INFO_GET takes no attributes: a zeroed strict policy rejects them all */
static const struct nla_policy retire_info_get_nl_policy[RETIRE_A_INFO_MAX + 1] = {
	[RETIRE_A_INFO_PAD]		= { .type = NLA_REJECT },
	[RETIRE_A_INFO_ABI_VERSION]	= { .type = NLA_REJECT },
	[RETIRE_A_INFO_FEATURES]	= { .type = NLA_REJECT },
};

static struct genl_family retire_genl_family;

static int retire_nl_info_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct retire_info ri;
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(nla_total_size(sizeof(u32)) +
			  nla_total_size_64bit(sizeof(u64)), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	hdr = genlmsg_put_reply(msg, info, &retire_genl_family, 0,
				RETIRE_CMD_INFO_GET);
	if (!hdr)
		goto err_free_msg;

	retire_info_fill(&ri);
	if (nla_put_u32(msg, RETIRE_A_INFO_ABI_VERSION, ri.abi_version) ||
	    nla_put_u64_64bit(msg, RETIRE_A_INFO_FEATURES, ri.features,
			      RETIRE_A_INFO_PAD))
		goto err_free_msg;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static const struct genl_ops retire_nl_ops[] = {
	{
		.cmd		= RETIRE_CMD_INFO_GET,
		.doit		= retire_nl_info_get_doit,
		.policy		= retire_info_get_nl_policy,
		.maxattr	= RETIRE_A_INFO_MAX,
	},
};

static struct genl_family retire_genl_family __ro_after_init = {
	.name		= RETIRE_FAMILY_NAME,
	.version	= RETIRE_FAMILY_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= retire_nl_ops,
	.n_ops		= ARRAY_SIZE(retire_nl_ops),
	/* strict validation of reserved header fields for every op */
	.resv_start_op	= RETIRE_CMD_INFO_GET,
};

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
