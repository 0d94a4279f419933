/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_STATS_H
#define _RETIRE_STATS_H

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/types.h>
#include <linux/retire.h>

#include "names.h"

/*
 * The module's counters kept as they move (CONTEXTS and OWNED_HWM); the
 * rest are folded
 */
extern atomic64_t retire_mod_v[RETIRE_ST_NR];

/*
 * Module-wide, owned bytes are charged in steps, as a memory cgroup
 * charges pages: a context keeps from 0 to 2 * RETIRE_OWNED_BATCH bytes
 * charged beyond what its requests own, so that most admissions and
 * retirements touch no cache line that another context's do. The module's
 * high-water follows the charged bytes; its owned bytes are summed from
 * the contexts, exactly, as the other counters are.
 */
#define RETIRE_OWNED_BATCH	(64 * 1024)

enum retire_hist {
	RETIRE_HIST_LOGICAL,
	RETIRE_HIST_CQ_WAIT,
	RETIRE_HIST_PHYSICAL,
	RETIRE_HIST_NR
};

/**
 * struct retire_ctx_stats - one context's counters
 * @v:		by enum retire_stat
 * @hist:	latency histograms, RETIRE_HIST_BUCKETS log2 buckets of us
 * @owned_stock: bytes charged to the module beyond what the context owns,
 *		0 to 2 * RETIRE_OWNED_BATCH (retire_stat_owned())
 * @folded:	the context left the module's list: its counters were added
 *		to the module's, and its updates from here go there too
 *
 * Protected by the context's lock. The module's counters are the sum of
 * every listed context's and of those folded in (retire_stats_module()),
 * so an update touches only this cache line; owned bytes and their
 * high-water are the exception, kept module-wide as they move.
 */
struct retire_ctx_stats {
	u64 v[RETIRE_ST_NR];
	u64 hist[RETIRE_HIST_NR][RETIRE_HIST_BUCKETS];
	s64 owned_stock;
	bool folded;
};

void __retire_stat_module_add(enum retire_stat i, s64 d);
void __retire_stat_hist_module(enum retire_hist h, unsigned int b);
void __retire_stat_owned_charge(struct retire_ctx_stats *st, s64 d);
void retire_stats_export(const struct retire_ctx_stats *st,
			 struct retire_stats *out);
void retire_stats_module_base(struct retire_stats *out);
void retire_stats_module(struct retire_stats *out);
void retire_stats_add_ctx(const struct retire_ctx_stats *st,
			  struct retire_stats *out);
void retire_stats_fold(struct retire_ctx_stats *st);

/* counted module-wide as they move, not summed from the contexts */
static inline bool retire_stat_module_wide(enum retire_stat i)
{
	return i == RETIRE_ST_CONTEXTS || i == RETIRE_ST_OWNED_HWM;
}

/**
 * retire_stat_add() - add @d to counter @i of a context and of the module
 * @st:	the context's counters (the caller holds its lock), or NULL for the
 *	module's alone
 * @i:	which
 * @d:	by how much (negative for gauges going down)
 *
 * Inline: the common case is one add to the context's own line.
 */
static inline void retire_stat_add(struct retire_ctx_stats *st,
				   enum retire_stat i, s64 d)
{
	if (st)
		st->v[i] += d;
	if (!st || unlikely(st->folded) || retire_stat_module_wide(i))
		__retire_stat_module_add(i, d);
}

static inline void retire_stat_inc(struct retire_ctx_stats *st,
				   enum retire_stat i)
{
	retire_stat_add(st, i, 1);
}

/**
 * retire_stat_owned() - move owned bytes, keeping both high-waters
 * @st:	the context's counters
 * @d:	bytes (negative when released)
 *
 * The context's high-water follows every admission. The module's moves
 * only when the context's charge does (RETIRE_OWNED_BATCH): while its
 * stock covers @d, nothing module-wide is touched.
 */
static inline void retire_stat_owned(struct retire_ctx_stats *st, s64 d)
{
	if (!d)
		return;
	st->v[RETIRE_ST_OWNED_BYTES] += d;
	if (d > 0 &&
	    st->v[RETIRE_ST_OWNED_BYTES] > st->v[RETIRE_ST_OWNED_HWM])
		st->v[RETIRE_ST_OWNED_HWM] = st->v[RETIRE_ST_OWNED_BYTES];
	st->owned_stock -= d;
	/* below 0 or above twice the batch, in one comparison */
	if ((u64)st->owned_stock > 2 * RETIRE_OWNED_BATCH ||
	    unlikely(st->folded))
		__retire_stat_owned_charge(st, d);
}

/**
 * retire_hist_bucket() - the log2 bucket of a latency
 * @ns: nanoseconds
 *
 * Return: i such that the latency lies in [2^i, 2^(i+1)) microseconds;
 * 0 under 2 us, RETIRE_HIST_BUCKETS - 1 for everything above the range.
 */
static inline unsigned int retire_hist_bucket(u64 ns)
{
	u64 us = div_u64(ns, NSEC_PER_USEC);

	if (!us)
		return 0;
	return min_t(unsigned int, ilog2(us), RETIRE_HIST_BUCKETS - 1);
}

/**
 * retire_stat_hist() - record one latency observation
 * @st:		the context's counters (the caller holds its lock)
 * @h:		which histogram
 * @from:	start of the interval
 * @to:		end of the interval
 *
 * Inline, as retire_stat_add(): a request makes three observations.
 */
static inline void retire_stat_hist(struct retire_ctx_stats *st,
				    enum retire_hist h, ktime_t from,
				    ktime_t to)
{
	unsigned int b = retire_hist_bucket(ktime_to_ns(ktime_sub(to, from)));

	st->hist[h][b]++;
	if (unlikely(st->folded))
		__retire_stat_hist_module(h, b);
}

#endif /* _RETIRE_STATS_H */
