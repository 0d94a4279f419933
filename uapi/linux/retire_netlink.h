/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/retire.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_RETIRE_NETLINK_H
#define _UAPI_LINUX_RETIRE_NETLINK_H

#define RETIRE_FAMILY_NAME	"retire"
#define RETIRE_FAMILY_VERSION	1

enum {
	RETIRE_A_INFO_PAD = 1,
	RETIRE_A_INFO_ABI_VERSION,
	RETIRE_A_INFO_FEATURES,

	__RETIRE_A_INFO_MAX,
	RETIRE_A_INFO_MAX = (__RETIRE_A_INFO_MAX - 1)
};

enum {
	RETIRE_CMD_INFO_GET = 1,

	__RETIRE_CMD_MAX,
	RETIRE_CMD_MAX = (__RETIRE_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_RETIRE_NETLINK_H */
