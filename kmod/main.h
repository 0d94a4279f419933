/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_MAIN_H
#define _RETIRE_MAIN_H

#include <linux/types.h>
#include <linux/retire.h>

/*
 * Features the core offers: reported by GET_INFO, with those of the
 * registered engines.
 */
#define RETIRE_FEATURES		(RETIRE_FEAT_GENL | RETIRE_FEAT_REQUESTS | \
				 RETIRE_FEAT_ADMISSION | \
				 RETIRE_FEAT_ENTER | RETIRE_FEAT_RINGS | \
				 RETIRE_FEAT_ONE_RECORD | RETIRE_FEAT_ENGINES | \
				 RETIRE_FEAT_HISTORY | RETIRE_FEAT_CANCEL_MATCH)

void retire_caps_get(struct retire_limits *caps);
void retire_info_fill(struct retire_info *info);

#endif /* _RETIRE_MAIN_H */
