/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
#ifndef LIBRETIRE_INTERNAL_H
#define LIBRETIRE_INTERNAL_H

int __retire_ioctl(int fd, unsigned long cmd, void *arg);

#endif /* LIBRETIRE_INTERNAL_H */
