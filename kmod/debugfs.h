/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_DEBUGFS_H
#define _RETIRE_DEBUGFS_H

struct retire_ctx;

void retire_debugfs_init(void);
void retire_debugfs_exit(void);
void retire_debugfs_ctx_add(struct retire_ctx *ctx);
void retire_debugfs_ctx_remove(struct retire_ctx *ctx);

#endif /* _RETIRE_DEBUGFS_H */
