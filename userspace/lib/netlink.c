// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libretire: the generic netlink side, over libnl-genl.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <linux/retire_netlink.h>

#include "libretire.h"

struct retire_nl {
	struct nl_sock *sk;
	int family;
};

/* libnl reports its own error codes; map the ones that name a cause */
static int retire_nl_errno(int nlerr)
{
	switch (-nlerr) {
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_OBJ_NOTFOUND:
	case NLE_NOADDR:
		return -ENOENT;
	case NLE_INVAL:
	case NLE_MSG_TOOSHORT:
	case NLE_MSG_TRUNC:
		return -EINVAL;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_BUSY:
		return -EBUSY;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_RANGE:
		return -ERANGE;
	default:
		return -EIO;
	}
}

int retire_nl_open(struct retire_nl **nlp)
{
	struct retire_nl *nl;
	int ret;

	if (!nlp)
		return -EINVAL;
	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		ret = retire_nl_errno(ret);
		goto out_sock;
	}
	nl->family = genl_ctrl_resolve(nl->sk, RETIRE_FAMILY_NAME);
	if (nl->family < 0) {
		/* the module is not loaded: the family does not exist */
		ret = retire_nl_errno(nl->family);
		goto out_sock;
	}
	*nlp = nl;
	return 0;

out_sock:
	nl_socket_free(nl->sk);
out_free:
	free(nl);
	return ret;
}

void retire_nl_close(struct retire_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	free(nl);
}

int retire_nl_family_id(const struct retire_nl *nl)
{
	return nl ? nl->family : -EINVAL;
}

struct retire_nl_info_arg {
	struct retire_info *info;
	int seen;
};

static int retire_nl_info_cb(struct nl_msg *msg, void *data)
{
	static struct nla_policy policy[RETIRE_A_INFO_MAX + 1] = {
		[RETIRE_A_INFO_ABI_VERSION] = { .type = NLA_U32 },
		[RETIRE_A_INFO_FEATURES] = { .type = NLA_U64 },
	};
	struct retire_nl_info_arg *arg = data;
	struct nlattr *tb[RETIRE_A_INFO_MAX + 1];
	int ret;

	ret = genlmsg_parse(nlmsg_hdr(msg), 0, tb, RETIRE_A_INFO_MAX, policy);
	if (ret < 0)
		return NL_SKIP;
	if (!tb[RETIRE_A_INFO_ABI_VERSION] || !tb[RETIRE_A_INFO_FEATURES])
		return NL_SKIP;
	arg->info->abi_version = nla_get_u32(tb[RETIRE_A_INFO_ABI_VERSION]);
	arg->info->features = nla_get_u64(tb[RETIRE_A_INFO_FEATURES]);
	arg->seen = 1;
	return NL_OK;
}

int retire_nl_get_info(struct retire_nl *nl, struct retire_info *info)
{
	struct retire_nl_info_arg arg = { .info = info };
	struct nl_msg *msg;
	int ret;

	if (!nl || !info)
		return -EINVAL;
	memset(info, 0, sizeof(*info));

	msg = nlmsg_alloc();
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, 0,
			 RETIRE_CMD_INFO_GET, RETIRE_FAMILY_VERSION)) {
		ret = -EMSGSIZE;
		goto out_msg;
	}
	ret = nl_socket_modify_cb(nl->sk, NL_CB_VALID, NL_CB_CUSTOM,
				  retire_nl_info_cb, &arg);
	if (ret < 0) {
		ret = retire_nl_errno(ret);
		goto out_msg;
	}
	ret = nl_send_auto(nl->sk, msg);
	if (ret < 0) {
		ret = retire_nl_errno(ret);
		goto out_msg;
	}
	/* the reply reaches retire_nl_info_cb() before the ack ends the wait */
	ret = nl_wait_for_ack(nl->sk);
	if (ret < 0)
		ret = retire_nl_errno(ret);
	else
		ret = arg.seen ? 0 : -EPROTO;
out_msg:
	nlmsg_free(msg);
	return ret;
}
