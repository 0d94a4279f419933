/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_CHARDEV_H
#define _RETIRE_CHARDEV_H

#include <linux/types.h>
#include <linux/retire_engine.h>

struct device;
struct retire_info;

int retire_chardev_register(void);
void retire_chardev_unregister(void);
struct device *retire_chardev_device(void);

int retire_info_check(const struct retire_info *info);

#endif /* _RETIRE_CHARDEV_H */
