/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_ENGINE_SIM_H
#define _RETIRE_ENGINE_SIM_H

#include <linux/ktime.h>
#include <linux/types.h>

struct retire_sim_config;

/**
 * struct retire_bucket - a token bucket with exact fractional credit
 * @rate:	bytes per second; 0 for unlimited
 * @cap:	the burst, in byte-nanoseconds
 * @credit:	what may be taken now, in byte-nanoseconds
 * @refilled:	when @credit was last brought up to date
 */
struct retire_bucket {
	u64 rate;
	u64 cap;
	u64 credit;
	ktime_t refilled;
};

void retire_bucket_init(struct retire_bucket *b, u64 rate, u64 burst,
			ktime_t now);
u64 retire_bucket_take(struct retire_bucket *b, u64 n, ktime_t now);

int retire_sim_get_config(struct retire_sim_config *cfg);
int retire_sim_set_config(const struct retire_sim_config *cfg);
void retire_sim_reset(void);
bool retire_sim_fail_submit(void);

#endif /* _RETIRE_ENGINE_SIM_H */
