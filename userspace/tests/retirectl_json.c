// SPDX-License-Identifier: MIT
/*
 * retirectl's JSON printers, fed known values, without the module:
 * userspace/tests/retirectl_json.py builds this (retirectl.c with its main
 * renamed, demo.c, libretire), runs it and checks every line against the
 * keys of the spec. One JSON document per line:
 *
 *	1..N	json_string() of each of strings[] (below), as {"s": ...}
 *	then	info, limits (defaults), limits (set), engine, stats
 */
#define main retirectl_main
int retirectl_main(int argc, char **argv);
#include "../retirectl/retirectl.c"
#undef main

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

int main(void)
{
	struct retire_info info, nlinfo;
	struct retire_limits limits;
	struct retire_sim_config cfg;
	struct ctx_stats ctx[2];
	struct ctx_list l = { .v = ctx, .n = 2, .cap = 2 };
	struct retire_stats module;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(strings); i++) {
		printf("{\"s\":");
		json_string(strings[i]);
		printf("}\n");
	}

	/* every field its own value: caps i + 1, limits 100 + i */
	memset(&info, 0, sizeof(info));
	info.abi_version = RETIRE_ABI_VERSION;
	info.features = RETIRE_FEAT_ALL | (1ULL << 40);
	for (i = 0; i < ARRAY_SIZE(limit_fields); i++)
		field_set(&info.caps, &limit_fields[i], i + 1);
	nlinfo = info;
	print_info("/dev/\"odd\\path\n\xff", &info, 27, &nlinfo, 1);

	memset(&limits, 0, sizeof(limits));
	for (i = 0; i < ARRAY_SIZE(limit_fields); i++)
		field_set(&limits, &limit_fields[i], 100 + i);
	field_set(&limits, &limit_fields[ARRAY_SIZE(limit_fields) - 1],
		  UINT64_MAX);
	print_limits(&info.caps, &limits, 0, 1);
	print_limits(&info.caps, &limits, 1, 1);

	/* engine: flags blocked|hang|violate and an unknown bit */
	memset(&cfg, 0, sizeof(cfg));
	for (i = 1; i < ARRAY_SIZE(engine_fields); i++)
		field_set(&cfg, &engine_fields[i], 1000 + i);
	cfg.flags = RETIRE_SIM_F_BLOCKED | RETIRE_SIM_F_HANG |
		    RETIRE_SIM_F_VIOLATE | (1U << 31);
	print_engine(&cfg, 1);

	/* stats: counter i is i + 1 in the module, ctx * 1000 + i in each */
	memset(&module, 0, sizeof(module));
	memset(ctx, 0, sizeof(ctx));
	for (i = 0; i < NSTATS; i++) {
		__u64 v = i + 1;

		memcpy((char *)&module + stat_fields[i].offset, &v, sizeof(v));
		v = 1000 + i;
		memcpy((char *)&ctx[0].stats + stat_fields[i].offset, &v,
		       sizeof(v));
		v = 2000 + i;
		memcpy((char *)&ctx[1].stats + stat_fields[i].offset, &v,
		       sizeof(v));
	}
	ctx[0].ctx_id = 1;
	ctx[0].pid = 4242;
	ctx[1].ctx_id = UINT64_MAX;
	ctx[1].pid = UINT32_MAX;
	print_stats(&module, &l, 1);
	return fflush(stdout) ? 1 : 0;
}
