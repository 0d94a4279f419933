/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libretire: the userspace side of retire.
 *
 * Every function returns 0 (or a non-negative value where documented) on
 * success and a negative errno on failure; none of them sets errno.
 *
 * Structures from <linux/retire.h> are passed at the size this header
 * gives them. When one grows, the function taking it gets a new symbol
 * version (see libretire.map) and the old version keeps the old size, so a
 * program built against an older header keeps working.
 */
#ifndef LIBRETIRE_H
#define LIBRETIRE_H

#include <linux/types.h>
#include <linux/retire.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBRETIRE_DEFAULT_PATH	"/dev/" RETIRE_DEVICE_NAME

/* One open file description of /dev/retire: one context in the module. */
struct retire;

/* A generic netlink socket resolved to the "retire" family. */
struct retire_nl;

int retire_open(struct retire **rp, const char *path, unsigned int flags);
void retire_close(struct retire *r);
int retire_fd(const struct retire *r);
int retire_get_info(struct retire *r, struct retire_info *info);

int retire_nl_open(struct retire_nl **nlp);
void retire_nl_close(struct retire_nl *nl);
int retire_nl_family_id(const struct retire_nl *nl);
int retire_nl_get_info(struct retire_nl *nl, struct retire_info *info);

#ifdef __cplusplus
}
#endif

#endif /* LIBRETIRE_H */
