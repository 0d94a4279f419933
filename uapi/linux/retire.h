/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * retire: provable buffer lifetime for asynchronous device work.
 *
 * The ioctl ABI of /dev/retire. Every structure is built from fixed-size
 * fields, naturally aligned, with explicit padding; pointers travel as __u64.
 * Every "reserved" or "pad" field and every undefined flag bit must be zero
 * on input, or the ioctl fails with -EINVAL and changes nothing.
 *
 * Structures may grow at their end in later ABI versions. The kernel takes
 * the size from the ioctl number (_IOC_SIZE): a caller built against an
 * older header passes a shorter structure and gets the old behaviour; a
 * caller built against a newer header passes a longer one, which is accepted
 * only if every byte the kernel does not know is zero (-E2BIG otherwise).
 */
#ifndef _UAPI_LINUX_RETIRE_H
#define _UAPI_LINUX_RETIRE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define RETIRE_DEVICE_NAME	"retire"

/* Bumped only for incompatible changes; additions are feature bits. */
#define RETIRE_ABI_VERSION	1

/*
 * Feature bits reported by RETIRE_IOC_GET_INFO.
 * Every feature must be listed in RETIRE_FEAT_ALL.
 */
/* the generic netlink family "retire" is registered */
#define RETIRE_FEAT_GENL	(1ULL << 0)

#define RETIRE_FEAT_ALL		(RETIRE_FEAT_GENL)

/*
 * struct retire_limits - per-context bounds.
 *
 * In RETIRE_IOC_GET_INFO these are the module-wide caps (module parameters)
 * that no context may exceed.
 */
struct retire_limits {
	/* unretired requests (Q): timed-out and cancelled-but-unretired count */
	__u32 max_unretired;
	/* requests the engine may be working on at once */
	__u32 max_active;
	/* active requests sharing one key */
	__u32 max_active_per_key;
	/* admitted requests not yet activated */
	__u32 max_waiting;
	/* borrow tokens outstanding */
	__u32 max_tokens;
	/* registered buffers */
	__u32 max_buffers;
	/* bytes reserved by admitted, unretired requests */
	__u64 max_reserved_bytes;
	/* bytes of user memory pinned for buffers */
	__u64 max_pinned_bytes;
};

/*
 * struct retire_info - argument of RETIRE_IOC_GET_INFO.
 * @flags:	in: must be 0.
 * @abi_version: out: RETIRE_ABI_VERSION of the running module.
 * @features:	out: RETIRE_FEAT_* the running module supports.
 * @caps:	out: the module-wide caps on every context's limits.
 * @reserved:	in: must be 0; out: 0.
 */
struct retire_info {
	__u32 flags;
	__u32 abi_version;
	__u64 features;
	struct retire_limits caps;
	__u64 reserved[4];
};

/* 0xB9 is unused in Documentation/userspace-api/ioctl/ioctl-number.rst */
#define RETIRE_IOC_MAGIC	0xB9

#define RETIRE_IOC_GET_INFO	_IOWR(RETIRE_IOC_MAGIC, 0x00, struct retire_info)

#endif /* _UAPI_LINUX_RETIRE_H */
