/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's tables, built from the lists of <linux/retire_names.h>.
 *
 * The X-macro glue lives here alone: checkpatch reads a table row's
 * macro as a complex value, a trailing semicolon or an unused argument,
 * and scripts/lint.sh lets this file, and only this one, have them.
 */
#ifndef _RETIRE_NAMES_H
#define _RETIRE_NAMES_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <linux/retire.h>
#include <linux/retire_names.h>

/*
 * Counters, in the order of the leading __u64 fields of struct
 * retire_stats: counters, then gauges from TOKENS_OUT to CONTEXTS, and
 * more of each after them.
 */
#define RETIRE_ST_ENUM(NAME, name)	RETIRE_ST_##NAME,
enum retire_stat {
	RETIRE_STAT_NAMES(RETIRE_ST_ENUM, RETIRE_ST_ENUM)
	RETIRE_ST_NR
};

#undef RETIRE_ST_ENUM

/* each indexes its field of struct retire_stats, and none is left over */
#define RETIRE_ST_AT(NAME, name)					\
	static_assert(offsetof(struct retire_stats, name) ==		\
		      RETIRE_ST_##NAME * sizeof(__u64));
RETIRE_STAT_NAMES(RETIRE_ST_AT, RETIRE_ST_AT)
#undef RETIRE_ST_AT
static_assert(offsetof(struct retire_stats, lat_logical) ==
	      RETIRE_ST_NR * sizeof(__u64));

/* the history's event names, indexed by RETIRE_EV_* */
#define RETIRE_EV_NAME(NAME, name)					\
	[RETIRE_EV_##NAME] = #name,
#define RETIRE_EVENT_NAME_TABLE						\
	{ RETIRE_EVENT_NAMES(RETIRE_EV_NAME, RETIRE_EV_NAME) }

/* __print_symbolic()'s lists, for the tracepoints */
#define RETIRE_TP_OUTCOME(NAME, name)	{ RETIRE_OUTCOME_##NAME, #name },
#define RETIRE_TP_OUTCOME_LAST(NAME, name) { RETIRE_OUTCOME_##NAME, #name }
#define RETIRE_TP_OUTCOMES						\
	RETIRE_OUTCOME_NAMES(RETIRE_TP_OUTCOME, RETIRE_TP_OUTCOME_LAST)

#define RETIRE_TP_STALE(NAME, name)	{ RETIRE_STALE_##NAME, #name },
#define RETIRE_TP_STALE_LAST(NAME, name) { RETIRE_STALE_##NAME, #name }
#define RETIRE_TP_STALES						\
	RETIRE_STALE_NAMES(RETIRE_TP_STALE, RETIRE_TP_STALE_LAST)

#endif /* _RETIRE_NAMES_H */
