// SPDX-License-Identifier: GPL-2.0
/*
 * Counters, per context and module-wide. A context's counters live under
 * its lock, which every update already holds. The module-wide view is
 * summed when read: every listed context's counters, plus those of the
 * contexts that left the list (folded into atomics as they left). Only
 * the context count and the high-water of owned bytes are atomics updated
 * as they move; the high-water follows the bytes the contexts charged,
 * each in steps of RETIRE_OWNED_BATCH (retire_stat_owned()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "stats.h"

/* CONTEXTS and OWNED_HWM as they move; the rest folded */
atomic64_t retire_mod_v[RETIRE_ST_NR];
EXPORT_SYMBOL_IF_KUNIT(retire_mod_v);
/* owned bytes and each listed context's stock: what OWNED_HWM follows */
static atomic64_t retire_owned_charged;
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
 * __retire_stat_owned_charge() - a context's owned bytes moved by @d past
 *				  its stock: charge the module anew
 * @st:	the context's counters (the caller holds its lock), @d already
 *	taken from its stock
 * @d:	bytes (negative when released)
 *
 * A listed context's stock goes back to RETIRE_OWNED_BATCH, charged or
 * given back in one step, and the module's high-water follows the charge;
 * a folded context has none, and its bytes count exactly.
 */
void __retire_stat_owned_charge(struct retire_ctx_stats *st, s64 d)
{
	s64 charge, now, hwm;

	if (st->folded) {
		atomic64_add(d, &retire_mod_v[RETIRE_ST_OWNED_BYTES]);
		charge = d;
		st->owned_stock = 0;
	} else {
		charge = RETIRE_OWNED_BATCH - st->owned_stock;
		st->owned_stock = RETIRE_OWNED_BATCH;
	}
	now = atomic64_add_return(charge, &retire_owned_charged);
	if (charge <= 0)
		return;
	hwm = atomic64_read(&retire_mod_v[RETIRE_ST_OWNED_HWM]);
	while (now > hwm &&
	       !atomic64_try_cmpxchg(&retire_mod_v[RETIRE_ST_OWNED_HWM],
				     &hwm, now))
		;
}
EXPORT_SYMBOL_IF_KUNIT(__retire_stat_owned_charge);

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
	/* its bytes still owned stay charged, exactly, until they go */
	atomic64_sub(st->owned_stock, &retire_owned_charged);
	st->owned_stock = 0;
	for (h = 0; h < RETIRE_HIST_NR; h++)
		for (b = 0; b < RETIRE_HIST_BUCKETS; b++)
			atomic64_add(st->hist[h][b], &retire_mod_hist[h][b]);
	st->folded = true;
}
EXPORT_SYMBOL_IF_KUNIT(retire_stats_fold);

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
