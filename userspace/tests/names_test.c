// SPDX-License-Identifier: MIT
/*
 * The names libretire 1.6 replaced still work: each old name is the same
 * function as its new one, and retire_prep_retire() prepares the same
 * operation as retire_prep_release(). Built against the uninstalled shared
 * library (make check's host group); the old names are deprecated, so
 * this file silences that warning on purpose. Prints one line per failed
 * check and a summary; exits 1 if any failed.
 */
#include <stdio.h>
#include <string.h>

#include <libretire.h>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int failures, checks;

#define SAME(old, new)							\
	do {								\
		checks++;						\
		if ((void *)(old) != (void *)(new)) {			\
			failures++;					\
			printf("FAIL %s is not %s\n", #old, #new);	\
		}							\
	} while (0)

int main(void)
{
	struct retire_op a, b;

	SAME(retire_retire_request, retire_release_request);
	SAME(retire_get_engine, retire_get_bound_engine);
	SAME(retire_set_engine, retire_bind_engine);
	SAME(retire_query_info, retire_nl_get_info);
	SAME(retire_query_stats, retire_nl_get_stats);
	SAME(retire_dump_stats, retire_nl_dump_stats);
	SAME(retire_query_engine, retire_nl_get_sim_config);
	SAME(retire_configure_engine, retire_nl_set_sim_config);

	memset(&a, 0xa5, sizeof(a));
	memset(&b, 0x5a, sizeof(b));
	retire_prep_retire(&a, 0x0200000100000001ULL);
	retire_prep_release(&b, 0x0200000100000001ULL);
	checks++;
	if (memcmp(&a, &b, sizeof(a))) {
		failures++;
		printf("FAIL retire_prep_retire() differs from retire_prep_release()\n");
	}
	printf("%s: %d checks, %d failed\n", failures ? "FAIL" : "ok", checks,
	       failures);
	return failures ? 1 : 0;
}
