/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
#ifndef LIBRETIRE_INTERNAL_H
#define LIBRETIRE_INTERNAL_H

#include "libretire.h"

int __retire_ioctl(int fd, unsigned long cmd, void *arg);
void __retire_latency_feed(struct retire_latency *l,
			   const struct retire_cqe *cqes, unsigned int nr);

#endif /* LIBRETIRE_INTERNAL_H */
