/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_NETLINK_H
#define _RETIRE_NETLINK_H

#include <linux/types.h>

struct genl_ops;

/* a context's cumulative stale-notification counters */
struct retire_nl_stale {
	u64 ctx_id;
	u32 pid;
	u64 engine;
	u64 cancel;
	u64 token;
	u64 user;
	u64 published;
};

/* a health event: RETIRE_HEALTH_EVENT_* */
struct retire_nl_health {
	u32 event;
	u64 ctx_id;
	u32 pid;
	u64 quarantined_now;
};

int retire_netlink_register(void);
void retire_netlink_unregister(void);
void retire_netlink_notify_stale(const struct retire_nl_stale *s);
void retire_netlink_notify_health(const struct retire_nl_health *h);
unsigned long retire_netlink_stale_delay(void);
const struct genl_ops *retire_netlink_op(u8 cmd);

#endif /* _RETIRE_NETLINK_H */
