/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_NETLINK_H
#define _RETIRE_NETLINK_H

int retire_netlink_register(void);
void retire_netlink_unregister(void);

#endif /* _RETIRE_NETLINK_H */
