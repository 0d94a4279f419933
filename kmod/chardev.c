// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/retire: file operations. This file only copies and validates
 * arguments and dispatches; the state machines live in their own files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <kunit/visibility.h>
#include "main.h"
#include "chardev.h"
#include "ctx.h"

/* the size of struct retire_info in ABI version 1; it may only grow */
#define RETIRE_INFO_SIZE_VER0	offsetofend(struct retire_info, reserved)

/**
 * retire_arg_copy_in() - copy an ioctl argument that may grow over time
 * @karg:	the kernel's copy, @ksize bytes; zero-filled past what the
 *		caller passed
 * @ksize:	the size of the structure this module knows
 * @minsize:	the size of the structure's first ABI version
 * @cmd:	the ioctl number: its size field is the caller's size
 * @uarg:	the caller's structure
 *
 * Return: 0, -EINVAL if the caller's structure is older than the first
 * version, -E2BIG if it is newer and a byte this module does not know is
 * non-zero, or -EFAULT.
 */
int retire_arg_copy_in(void *karg, size_t ksize, size_t minsize,
		       unsigned int cmd, const void __user *uarg)
{
	size_t usize = _IOC_SIZE(cmd);

	if (usize < minsize)
		return -EINVAL;
	return copy_struct_from_user(karg, ksize, uarg, usize);
}
EXPORT_SYMBOL_IF_KUNIT(retire_arg_copy_in);

/* copy back no more than the caller's structure holds */
static int retire_arg_copy_out(void __user *uarg, unsigned int cmd,
			       const void *karg, size_t ksize)
{
	if (copy_to_user(uarg, karg, min_t(size_t, ksize, _IOC_SIZE(cmd))))
		return -EFAULT;
	return 0;
}

/**
 * retire_info_check() - validate the input side of RETIRE_IOC_GET_INFO
 * @info: the caller's structure
 *
 * Return: 0, or -EINVAL if a flag or a reserved field is non-zero.
 */
int retire_info_check(const struct retire_info *info)
{
	if (info->flags)
		return -EINVAL;
	if (memchr_inv(info->reserved, 0, sizeof(info->reserved)))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(retire_info_check);

static long retire_ioctl_get_info(unsigned int cmd, void __user *uarg)
{
	struct retire_info info;
	int ret;

	ret = retire_arg_copy_in(&info, sizeof(info), RETIRE_INFO_SIZE_VER0,
				 cmd, uarg);
	if (ret)
		return ret;
	ret = retire_info_check(&info);
	if (ret)
		return ret;

	retire_info_fill(&info);
	return retire_arg_copy_out(uarg, cmd, &info, sizeof(info));
}

/*
 * Commands are matched on type, number and direction; the size field is the
 * caller's structure size, which retire_arg_copy_in() negotiates.
 */
static bool retire_cmd_is(unsigned int cmd, unsigned int want)
{
	return _IOC_TYPE(cmd) == _IOC_TYPE(want) &&
	       _IOC_NR(cmd) == _IOC_NR(want) &&
	       _IOC_DIR(cmd) == _IOC_DIR(want);
}

static long retire_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	if (retire_cmd_is(cmd, RETIRE_IOC_GET_INFO))
		return retire_ioctl_get_info(cmd, uarg);
	return -ENOTTY;
}

static int retire_open(struct inode *inode, struct file *file)
{
	struct retire_ctx *ctx;

	ctx = retire_ctx_create();
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	file->private_data = ctx;
	return nonseekable_open(inode, file);
}

static int retire_release(struct inode *inode, struct file *file)
{
	retire_ctx_put(file->private_data);
	return 0;
}

static const struct file_operations retire_fops = {
	.owner		= THIS_MODULE,
	.open		= retire_open,
	.release	= retire_release,
	.unlocked_ioctl	= retire_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice retire_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= RETIRE_DEVICE_NAME,
	.fops	= &retire_fops,
	.mode	= 0600,
};

/**
 * retire_chardev_register() - create /dev/retire
 *
 * Return: 0 or the misc_register() error.
 */
int retire_chardev_register(void)
{
	return misc_register(&retire_misc);
}

/**
 * retire_chardev_unregister() - remove /dev/retire
 *
 * No file can be open here: each open file pins the module.
 */
void retire_chardev_unregister(void)
{
	misc_deregister(&retire_misc);
}
