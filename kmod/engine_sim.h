/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_ENGINE_SIM_H
#define _RETIRE_ENGINE_SIM_H

#include <linux/types.h>

struct retire_sim_config;

int retire_sim_get_config(struct retire_sim_config *cfg);
int retire_sim_set_config(const struct retire_sim_config *cfg);
void retire_sim_reset(void);
u64 retire_sim_fnv1a(u64 hash, const u8 *p, size_t len);
void retire_sim_init(void);

#endif /* _RETIRE_ENGINE_SIM_H */
