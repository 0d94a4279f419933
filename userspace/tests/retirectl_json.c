// SPDX-License-Identifier: MIT
/*
 * retirectl's printers (retirectl/print.c), fed known values, without the
 * module: make -C userspace builds this against print.o, and
 * userspace/tests/retirectl_json.py runs it and checks every line against
 * the keys of the spec. One JSON document per line:
 *
 *	1..N	json_string() of each of strings[] (below), as {"s": ...}
 *	then	info, limits (defaults), limits (set), engine, stats,
 *		history, the history list, top
 *
 * With the argument "text" it prints history and top as text instead
 * (top as into a pipe: no terminal control), for the same script.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "print.h"
#include "retirectl.h"

/* the same list, as bytes, is in retirectl_json.py */
static const char *const strings[] = {
	"/dev/retire",
	"",
	"quote\" backslash\\ slash/",
	"\b\f\n\r\t\x01\x1f\x7f",
	"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",	/* é € 😀 */
	"bad \xff \xc0\xaf \xe2\x82 \xed\xa0\x80 \xf4\x90\x80\x80 end",
	"cut at the end \xe2\x82",
	"lone continuation \x80\xbf",
};

#define H(kind, slot, gen)						\
	(((__u64)(kind) << 56) | ((__u64)(slot) << 32) | (gen))

/*
 * one event of each type, in the order of a request's life, then a type
 * the printer does not know; times 1.000000001 s, 2.000000002 s, ...
 */
static const struct retire_history_event events[] = {
	{ 0, H(RETIRE_KIND_REQ, 3, 1), 4096, RETIRE_EV_SUBMIT,
	  RETIRE_DEV_READ | RETIRE_DEV_WRITE },
	{ 0, H(RETIRE_KIND_REQ, 3, 1), 0, RETIRE_EV_ACTIVATE, 0 },
	{ 0, H(RETIRE_KIND_REQ, 3, 1), 0, RETIRE_EV_TIMEOUT, 0 },
	{ 0, H(RETIRE_KIND_REQ, 3, 1), 0, RETIRE_EV_CANCEL, -EALREADY },
	{ 0, H(RETIRE_KIND_REQ, 3, 1), RETIRE_OUTCOME_FAILED,
	  RETIRE_EV_TERMINAL, -EIO },
	{ 0, H(RETIRE_KIND_REQ, 3, 1), H(RETIRE_KIND_TOKEN, 0, 1),
	  RETIRE_EV_BORROW, 0 },
	{ 0, H(RETIRE_KIND_REQ, 3, 1), H(RETIRE_KIND_TOKEN, 1, 1),
	  RETIRE_EV_HANDOFF, 0 },
	{ 0, H(RETIRE_KIND_REQ, 3, 1), H(RETIRE_KIND_TOKEN, 1, 1),
	  RETIRE_EV_RETURN, -EPIPE },
	{ 0, H(RETIRE_KIND_REQ, 3, 1), 0, RETIRE_EV_RETIRE, 0 },
	{ 0, H(RETIRE_KIND_REQ, 3, 1), 2, RETIRE_EV_STALE,
	  RETIRE_STALE_CANCEL },
	{ 0, H(RETIRE_KIND_REQ, 4, 7), 0, RETIRE_EV_QUARANTINE, 0 },
	{ 0, H(RETIRE_KIND_REQ, 4, 7), 0, RETIRE_EV_RESET, 0 },
	{ 0, H(RETIRE_KIND_REQ, 4, 7), 0, RETIRE_EV_FENCE, -ECANCELED },
	{ 0, H(RETIRE_KIND_REQ, 4, 7), 0, RETIRE_EV_GATE, 0 },
	{ 0, H(RETIRE_KIND_BUF, 2, 1), 8192, RETIRE_EV_EXPORT, 1 },
	{ 0, H(RETIRE_KIND_BUF, 3, 1), 4096, RETIRE_EV_IMPORT, 0 },
	{ 0, H(RETIRE_KIND_BUF, 2, 1), 8192, RETIRE_EV_REVOKE, 1 },
	{ 0, H(RETIRE_KIND_REQ, 4, 7), RETIRE_OUTCOME_COMPLETED,
	  RETIRE_EV_TERMINAL, 0 },
	{ 0, H(RETIRE_KIND_REQ, 4, 7), 0, RETIRE_EV_CANCEL, 0 },
	{ 0, H(RETIRE_KIND_REQ, 4, 7), H(RETIRE_KIND_TOKEN, 9, 2),
	  RETIRE_EV_RETURN, 0 },
	{ 0, H(RETIRE_KIND_BUF, 5, 3), 0, RETIRE_EV_STALE, 99 },
	{ 0, H(77, 1, 1), UINT64_MAX, 200, INT32_MIN },
};

static void print_history_cases(int json)
{
	struct retire_history_event ev[ARRAY_SIZE(events)];
	struct retire_history_info info = {
		.ctx_id = UINT64_MAX,
		.recorded = 300,
		.dropped = 44,
	};
	struct ctx_history h[2];
	size_t i;

	memcpy(ev, events, sizeof(ev));
	for (i = 0; i < ARRAY_SIZE(ev); i++)
		ev[i].time_ns = (i + 1) * 1000000001ULL;
	print_history(&info, ev, ARRAY_SIZE(ev), json);
	if (!json)
		return;
	memset(h, 0, sizeof(h));
	h[0].ctx_id = 7;
	h[0].pid = 4242;
	strcpy(h[0].desc.comm, "a \"comm\"");
	h[0].info.recorded = 3;
	h[1].ctx_id = UINT64_MAX;
	h[1].pid = UINT32_MAX;
	h[1].info.recorded = UINT64_MAX;
	h[1].info.dropped = UINT64_MAX - 256;
	print_history_list(h, 2, json);
}

/*
 * top over 2.5 s: the module admitted 1000 more and retired 500 more, and
 * counted 5 stale handles, one of each kind; context 1 was there before
 * (admitted 10 -> 260), context 3 opened in the interval (admitted 50),
 * context 2 closed in it. No process has their pids (above any pid_max):
 * no comm is found for them.
 */
static void print_top_case(int json)
{
	struct ctx_stats before[2], after[2];
	struct top_sample prev, cur;

	memset(&prev, 0, sizeof(prev));
	memset(&cur, 0, sizeof(cur));
	memset(before, 0, sizeof(before));
	memset(after, 0, sizeof(after));
	prev.t = 100;
	cur.t = 102.5;
	prev.module.admitted = 5000;
	prev.module.retired = 4000;
	prev.module.contexts = 2;
	cur.module = prev.module;
	cur.module.admitted += 1000;
	cur.module.retired += 500;
	cur.module.stale_engine = cur.module.stale_cancel = 1;
	cur.module.stale_token = cur.module.stale_user = 1;
	cur.module.stale_published = 1;
	cur.module.physical_outstanding = 500;
	before[0].ctx_id = 1;
	before[0].pid = 4194304 + 11;
	before[0].stats.admitted = 10;
	before[1].ctx_id = 2;
	before[1].stats.admitted = 99;
	after[0] = before[0];
	after[0].stats.admitted = 260;
	after[0].stats.physical_outstanding = 17;
	after[1].ctx_id = 3;
	after[1].pid = 4194304 + 33;
	after[1].stats.admitted = 50;
	after[1].stats.retired = 25;
	after[1].stats.stale_user = 5;
	prev.ctxs.v = before;
	prev.ctxs.n = 2;
	cur.ctxs.v = after;
	cur.ctxs.n = 2;
	print_top(&prev, &cur, json, 0, 1);
	if (!json)
		print_top(&prev, &cur, json, 0, 0);
}

int main(int argc, char **argv)
{
	struct retire_info info, nlinfo;
	struct retire_limits limits;
	struct retire_sim_config cfg;
	struct ctx_stats ctx[2];
	struct ctx_list l = { .v = ctx, .n = 2, .cap = 2 };
	struct retire_stats module;
	size_t i;

	if (argc == 2 && !strcmp(argv[1], "text")) {
		print_history_cases(0);
		print_top_case(0);
		return fflush(stdout) ? 1 : 0;
	}

	for (i = 0; i < ARRAY_SIZE(strings); i++) {
		printf("{\"s\":");
		json_string(strings[i]);
		printf("}\n");
	}

	/* every field its own value: caps i + 1, limits 100 + i */
	memset(&info, 0, sizeof(info));
	info.abi_version = RETIRE_ABI_VERSION;
	info.features = RETIRE_FEAT_ALL | (1ULL << 40);
	for (i = 0; i < nr_limit_fields; i++)
		field_set(&info.caps, &limit_fields[i], i + 1);
	nlinfo = info;
	print_info("/dev/\"odd\\path\n\xff", &info, 0, 27, &nlinfo, 1);
	print_info("/dev/retire", NULL, -EACCES, 27, &nlinfo, 1);

	memset(&limits, 0, sizeof(limits));
	for (i = 0; i < nr_limit_fields; i++)
		field_set(&limits, &limit_fields[i], 100 + i);
	field_set(&limits, &limit_fields[nr_limit_fields - 1],
		  UINT64_MAX);
	print_limits(&info.caps, &limits, 0, 1);
	print_limits(&info.caps, &limits, 1, 1);

	/* engine: flags blocked|hang|violate and an unknown bit */
	memset(&cfg, 0, sizeof(cfg));
	for (i = 1; i < nr_engine_fields; i++)
		field_set(&cfg, &engine_fields[i], 1000 + i);
	cfg.flags = RETIRE_SIM_F_BLOCKED | RETIRE_SIM_F_HANG |
		    RETIRE_SIM_F_VIOLATE | (1U << 31);
	print_engine(&cfg, 1);

	/* stats: counter i is i + 1 in the module, ctx * 1000 + i in each */
	memset(&module, 0, sizeof(module));
	memset(ctx, 0, sizeof(ctx));
	for (i = 0; i < nr_stat_fields; i++) {
		field_set(&module, &stat_fields[i], i + 1);
		field_set(&ctx[0].stats, &stat_fields[i], 1000 + i);
		field_set(&ctx[1].stats, &stat_fields[i], 2000 + i);
	}
	ctx[0].ctx_id = 1;
	ctx[0].pid = 4242;
	ctx[1].ctx_id = UINT64_MAX;
	ctx[1].pid = UINT32_MAX;
	print_stats(&module, &l, 1);

	print_history_cases(1);
	print_top_case(1);
	return fflush(stdout) ? 1 : 0;
}
