// SPDX-License-Identifier: GPL-2.0
/*
 * Counters, per context and module-wide. A context's counters live under
 * its lock, which every update already holds. The module-wide view is
 * summed when read: every listed context's counters, plus those of the
 * contexts that left the list (folded into atomics as they left). Only
 * the context count and owned bytes with their high-water (which must
 * follow every admission, not a sum of samples) are atomics updated as
 * they move.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "stats.h"

/* CONTEXTS, OWNED_BYTES and OWNED_HWM as they move; the rest folded */
atomic64_t retire_mod_v[RETIRE_ST_NR];
static atomic64_t retire_mod_hist[RETIRE_HIST_NR][RETIRE_HIST_BUCKETS];

/**
 * __retire_stat_module_add() - add @d to the module's counter @i
 * @i:	which
 * @d:	by how much
 *
 * For the counters kept module-wide as they move, and for the updates of
 * a context that was folded in (retire_stat_add()).
 */
void __retire_stat_module_add(enum retire_stat i, s64 d)
{
	atomic64_add(d, &retire_mod_v[i]);
}

/**
 * __retire_stat_owned_hwm() - the module's owned bytes reached @now
 * @now: owned bytes, module-wide, after an admission
 *
 * Raises the module's high-water to @now unless another CPU raised it past.
 */
void __retire_stat_owned_hwm(s64 now)
{
	s64 hwm = atomic64_read(&retire_mod_v[RETIRE_ST_OWNED_HWM]);

	while (now > hwm &&
	       !atomic64_try_cmpxchg(&retire_mod_v[RETIRE_ST_OWNED_HWM],
				     &hwm, now))
		;
}

/**
 * __retire_stat_hist_module() - one observation of a folded context
 * @h:	which histogram
 * @b:	its bucket
 */
void __retire_stat_hist_module(enum retire_hist h, unsigned int b)
{
	atomic64_inc(&retire_mod_hist[h][b]);
}

/**
 * retire_stats_export() - a context's counters in the uapi layout
 * @st:		the context's counters (the caller holds its lock)
 * @out:	filled completely
 */
void retire_stats_export(const struct retire_ctx_stats *st,
			 struct retire_stats *out)
{
	u64 *v = (u64 *)out;

	memset(out, 0, sizeof(*out));
	memcpy(v, st->v, sizeof(st->v));
	v[RETIRE_ST_CONTEXTS] = 0;
	memcpy(out->lat_logical, st->hist[RETIRE_HIST_LOGICAL],
	       sizeof(out->lat_logical));
	memcpy(out->lat_cq_wait, st->hist[RETIRE_HIST_CQ_WAIT],
	       sizeof(out->lat_cq_wait));
	memcpy(out->lat_physical, st->hist[RETIRE_HIST_PHYSICAL],
	       sizeof(out->lat_physical));
}
EXPORT_SYMBOL_IF_KUNIT(retire_stats_export);

/**
 * retire_stats_add_ctx() - add a listed context's counters to a module sum
 * @st:		the context's counters (the caller holds its lock)
 * @out:	the sum retire_stats_module() is building
 */
void retire_stats_add_ctx(const struct retire_ctx_stats *st,
			  struct retire_stats *out)
{
	u64 *v = (u64 *)out;
	unsigned int i, b;

	for (i = 0; i < RETIRE_ST_NR; i++)
		if (!retire_stat_module_wide(i))
			v[i] += st->v[i];
	for (b = 0; b < RETIRE_HIST_BUCKETS; b++) {
		out->lat_logical[b] += st->hist[RETIRE_HIST_LOGICAL][b];
		out->lat_cq_wait[b] += st->hist[RETIRE_HIST_CQ_WAIT][b];
		out->lat_physical[b] += st->hist[RETIRE_HIST_PHYSICAL][b];
	}
}

/**
 * retire_stats_fold() - a context leaves the list: its counters stay
 * @st: its counters (the caller holds its lock and the list's mutex)
 *
 * From here its updates go to the module's atomics as well.
 */
void retire_stats_fold(struct retire_ctx_stats *st)
{
	unsigned int i, h, b;

	for (i = 0; i < RETIRE_ST_NR; i++)
		if (!retire_stat_module_wide(i))
			atomic64_add(st->v[i], &retire_mod_v[i]);
	for (h = 0; h < RETIRE_HIST_NR; h++)
		for (b = 0; b < RETIRE_HIST_BUCKETS; b++)
			atomic64_add(st->hist[h][b], &retire_mod_hist[h][b]);
	st->folded = true;
}

/**
 * retire_stats_module_base() - the module's atomics in the uapi layout:
 * the module-wide counters and what contexts that left the list folded in
 * @out: filled completely; retire_stats_module() adds the listed contexts
 */
void retire_stats_module_base(struct retire_stats *out)
{
	u64 *v = (u64 *)out;
	unsigned int i, b;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < RETIRE_ST_NR; i++)
		v[i] = atomic64_read(&retire_mod_v[i]);
	for (b = 0; b < RETIRE_HIST_BUCKETS; b++) {
		out->lat_logical[b] =
			atomic64_read(&retire_mod_hist[RETIRE_HIST_LOGICAL][b]);
		out->lat_cq_wait[b] =
			atomic64_read(&retire_mod_hist[RETIRE_HIST_CQ_WAIT][b]);
		out->lat_physical[b] =
			atomic64_read(&retire_mod_hist[RETIRE_HIST_PHYSICAL][b]);
	}
}
