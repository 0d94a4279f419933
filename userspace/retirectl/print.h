/* SPDX-License-Identifier: MIT */
/*
 * retirectl's output (print.c): the printers of every command, text or
 * JSON, and the names of the fields they print and the command line sets.
 * retirectl links it, and so does userspace/tests/retirectl_json.c, which
 * feeds the printers known values.
 */
#ifndef RETIRECTL_PRINT_H
#define RETIRECTL_PRINT_H

#include <stddef.h>

#include "libretire.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* a field of a uapi structure that retirectl prints, reads or sets */
struct field {
	const char *name;
	size_t offset;
	size_t size;		/* 4 or 8 */
};

/* struct retire_limits's, struct retire_sim_config's (flags first) */
extern const struct field limit_fields[];
extern const size_t nr_limit_fields;
extern const struct field engine_fields[];
extern const size_t nr_engine_fields;
/* the counters of the stats attribute set, in its order */
extern const struct field stat_fields[];
extern const size_t nr_stat_fields;
/* RETIRE_SIM_F_* by bit, as "engine flags=" takes and prints them */
extern const char *const sim_flag_names[];
extern const size_t nr_sim_flag_names;

__u64 field_get(const void *base, const struct field *f);
void field_set(void *base, const struct field *f, __u64 v);

/* a context's counters, as the stats dump gives them */
struct ctx_stats {
	__u64 ctx_id;
	__u32 pid;
	struct retire_stats stats;
};

struct ctx_list {
	struct ctx_stats *v;
	size_t n, cap;
};

/*
 * A context's command name and engine, as far as this caller can see them:
 * the opener's command and the engine from the context's debugfs file
 * (root, debugfs mounted), else the command of the owner's process now
 * from /proc (no engine). Empty strings for what is not known.
 */
struct ctx_desc {
	char comm[17];
	char engine[32];
};

void ctx_describe(__u64 ctx_id, __u32 pid, struct ctx_desc *d);

/* one line of "history" without an id: a context whose history one may read */
struct ctx_history {
	__u64 ctx_id;
	__u32 pid;
	struct ctx_desc desc;
	struct retire_history_info info;
};

/* one read of every counter, and when */
struct top_sample {
	double t;		/* CLOCK_MONOTONIC, seconds */
	struct retire_stats module;
	struct ctx_list ctxs;	/* by id, as the dump gives them */
};

/*
 * each prints one JSON document and a newline with @json, else text.
 * print_info(): @info is NULL when the device could not be opened
 * (@dev_err, a -errno): then what netlink said stands alone, without the
 * per-context caps only the device knows.
 */
void print_info(const char *path, const struct retire_info *info,
		int dev_err, int family, const struct retire_info *nlinfo,
		int json);
void print_stats(const struct retire_stats *module, const struct ctx_list *l,
		 int json);
/* @set: @limits are what a set left, not a new context's defaults */
void print_limits(const struct retire_limits *caps,
		  const struct retire_limits *limits, int set, int json);
void print_engine(const struct retire_sim_config *cfg, int json);
/* "engine reset" done */
void print_engine_reset(int json);
void print_history(const struct retire_history_info *info,
		   const struct retire_history_event *ev, int n, int json);
void print_history_list(const struct ctx_history *h, size_t n, int json);
/*
 * One screen of top: @cur and the rates since @prev. @clear: a terminal,
 * which is cleared first; else screens are separated by a blank line
 * (@first: none before it).
 */
void print_top(const struct top_sample *prev, const struct top_sample *cur,
	       int json, int clear, int first);

#endif /* RETIRECTL_PRINT_H */
