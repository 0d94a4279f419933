// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the counters (stats.c): every admission is matched.
 */
#include "kunit_fixture.h"

/* ---- retire_counters: every admission is matched ----------------------- */

static void retire_counters_balance_after_mixed_outcomes(struct kunit *test)
{
	struct retire_engine_result failed = { .error = -EIO };
	struct retire_fix *f = test->priv;
	struct retire_buf_reg reg = { .len = PAGE_SIZE };
	u64 a, b, c, tok;

	KUNIT_ASSERT_EQ(test, retire_buf_register(f->ctx, &reg), 0);
	a = retire_fix_submit(test, f->buf);
	b = retire_fix_submit(test, reg.handle);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_OWNED_BYTES), 1024ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_LOGICAL), 2ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_DEVICE), 2ULL);

	retire_fix_complete(f, a);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_DEVICE), 1ULL);
	retire_engine_complete(f->ctx, b, &failed);
	/* d is the device's: it drops at the terminal event, not at retire */
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_DEVICE), 0ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_PHYSICAL), 2ULL);
	KUNIT_ASSERT_EQ(test, retire_fix_borrow(f, a, &tok), 0);
	retire_fix_read(f, RETIRE_REC_TERMINAL);
	KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, a), 0);
	KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, b), 0);
	KUNIT_EXPECT_EQ(test, retire_token_return(f->ctx, tok, 0), 0);
	retire_fix_read(f, RETIRE_REC_RETIRED);
	/* the first buffer is FREE again: a third request, cancelled queued */
	retire_test_stop_ok = true;
	c = retire_fix_submit(test, f->buf);
	KUNIT_EXPECT_EQ(test, retire_req_cancel(f->ctx, c), 0);
	retire_fix_read(f, RETIRE_REC_TERMINAL);
	KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, c), 0);
	retire_fix_read(f, RETIRE_REC_RETIRED);

	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_ADMITTED), 3ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_RETIRED), 3ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_COMPLETED) +
			      retire_fix_stat(f, RETIRE_ST_FAILED) +
			      retire_fix_stat(f, RETIRE_ST_CANCELLED), 3ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_OWNED_BYTES), 0ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_OWNED_HWM), 1024ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_LOGICAL), 0ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_PHYSICAL), 0ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_TOKENS_OUT), 0ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_DEVICE), 0ULL);
	KUNIT_EXPECT_EQ(test, f->ctx->unretired, 0U);
	KUNIT_EXPECT_EQ(test, f->ctx->reserved_bytes, 0ULL);
}

static void retire_counters_hist_bucket_is_log2_us(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, retire_hist_bucket(0), 0U);
	KUNIT_EXPECT_EQ(test, retire_hist_bucket(1999), 0U);
	KUNIT_EXPECT_EQ(test, retire_hist_bucket(2000), 1U);
	KUNIT_EXPECT_EQ(test, retire_hist_bucket(1024 * NSEC_PER_USEC), 10U);
	KUNIT_EXPECT_EQ(test, retire_hist_bucket(U64_MAX),
			RETIRE_HIST_BUCKETS - 1);
}

/*
 * Owned bytes are charged to the module in steps: while a context's stock
 * covers what moves, nothing module-wide moves; past it, the stock is
 * charged or given back to RETIRE_OWNED_BATCH in one step, a request of
 * any size included, and the module's high-water follows the charge.
 */
static void retire_counters_charge_owned_bytes_in_steps(struct kunit *test)
{
	const s64 b = RETIRE_OWNED_BATCH;
	struct retire_ctx_stats *st;
	s64 moved;
	int i;

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	retire_stat_owned(st, 512);
	KUNIT_EXPECT_EQ(test, st->owned_stock, b);
	/* a charge would leave the stock at b again: it stays below */
	for (i = 0; i < 100; i++) {
		retire_stat_owned(st, 512);
		KUNIT_EXPECT_EQ(test, st->owned_stock, b - 512);
		retire_stat_owned(st, -512);
	}
	/* the stock is spent at b bytes more, and charged afresh past it */
	for (moved = 0; moved < b; moved += 4096)
		retire_stat_owned(st, 4096);
	KUNIT_EXPECT_EQ(test, st->owned_stock, 0);
	retire_stat_owned(st, 4096);
	KUNIT_EXPECT_EQ(test, st->owned_stock, b);
	KUNIT_EXPECT_EQ(test, st->v[RETIRE_ST_OWNED_BYTES], 512 + b + 4096);
	/* one request of three batches: charged in one step */
	retire_stat_owned(st, 3 * b);
	KUNIT_EXPECT_EQ(test, st->owned_stock, b);
	KUNIT_EXPECT_GE(test, atomic64_read(&retire_mod_v[RETIRE_ST_OWNED_HWM]),
			st->v[RETIRE_ST_OWNED_BYTES] + b);
	/* and given back in one */
	retire_stat_owned(st, -3 * b);
	KUNIT_EXPECT_EQ(test, st->owned_stock, b);
	retire_stat_owned(st, -(512 + b + 4096));
	KUNIT_EXPECT_EQ(test, st->v[RETIRE_ST_OWNED_BYTES], 0);
	KUNIT_EXPECT_EQ(test, st->v[RETIRE_ST_OWNED_HWM], 512 + 4 * b + 4096);
	KUNIT_EXPECT_LE(test, st->owned_stock, 2 * b);
	/* folded, it holds no stock, and its bytes count exactly */
	retire_stats_fold(st);
	KUNIT_EXPECT_EQ(test, st->owned_stock, 0);
}

static struct kunit_case retire_counters_cases[] = {
	KUNIT_CASE(retire_counters_balance_after_mixed_outcomes),
	KUNIT_CASE(retire_counters_hist_bucket_is_log2_us),
	KUNIT_CASE(retire_counters_charge_owned_bytes_in_steps),
	{}
};

static struct kunit_suite retire_counters_suite = {
	.name = "retire_counters",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_counters_cases,
};

kunit_test_suites(&retire_counters_suite);
