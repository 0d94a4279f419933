/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
#ifndef LIBRETIRE_INTERNAL_H
#define LIBRETIRE_INTERNAL_H

#include "libretire.h"

int __retire_ioctl(int fd, unsigned long cmd, void *arg);
void __retire_latency_feed(struct retire_latency *l,
			   const struct retire_cqe *cqes, unsigned int nr);
/* the latency set of @r, if one is attached, takes these records */
void __retire_feed(struct retire *r, const struct retire_cqe *cqes,
		   unsigned int nr);
/* one queue at a time drives a context's rings: 1 if it is this one */
int __retire_rings_take(struct retire *r);
void __retire_rings_give(struct retire *r);

/*
 * @old, a name libretire 1.6 replaced, as another symbol for @new: the
 * same function, exported at the version @old always had
 */
#define RETIRE_OLD_NAME(old, new)					\
	extern __typeof__(new) old __attribute__((alias(#new)))

#endif /* LIBRETIRE_INTERNAL_H */
