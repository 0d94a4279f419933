// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the sim engine (engine_sim.c): its rate bucket and injected refusals.
 */
#include "kunit_fixture.h"

/* ---- retire_bucket: bytes taken <= B + R * t after every step ----------- */

static void retire_bucket_bound_holds_blocked_then_unblocked(struct kunit *test)
{
	const u64 rate = 1000, burst = 512, chunk = 100;
	struct retire_bucket b;
	u64 taken = 0, wait, t;
	ktime_t t0 = ns_to_ktime(1000), now = t0;
	unsigned int step;

	retire_bucket_init(&b, rate, burst, t0);
	for (step = 0; step < 200; step++) {
		/* steps 50..99: the destination is blocked, nothing asks */
		if (step >= 50 && step < 100) {
			now = ktime_add_ns(now, 7 * NSEC_PER_MSEC);
			continue;
		}
		wait = retire_bucket_take(&b, chunk, now);
		if (!wait) {
			taken += chunk;
		} else {
			/* after exactly the wait it says, the chunk goes */
			now = ktime_add_ns(now, wait);
			KUNIT_ASSERT_EQ(test, retire_bucket_take(&b, chunk, now), 0ULL);
			taken += chunk;
		}
		t = ktime_to_ns(ktime_sub(now, t0));
		/* bytes <= B + R * t, in byte-nanoseconds to stay exact */
		KUNIT_ASSERT_LE_MSG(test, taken * NSEC_PER_SEC,
				    burst * NSEC_PER_SEC + rate * t,
				    "step %u", step);
	}
	/* the blocked stretch refilled no more than the burst */
	KUNIT_EXPECT_LE(test, b.credit, burst * NSEC_PER_SEC);
}

static void retire_bucket_unlimited_never_waits(struct kunit *test)
{
	struct retire_bucket b;

	retire_bucket_init(&b, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, retire_bucket_take(&b, U32_MAX, 0), 0ULL);
}

static struct kunit_case retire_bucket_cases[] = {
	KUNIT_CASE(retire_bucket_bound_holds_blocked_then_unblocked),
	KUNIT_CASE(retire_bucket_unlimited_never_waits),
	{}
};

static struct kunit_suite retire_bucket_suite = {
	.name = "retire_bucket",
	.test_cases = retire_bucket_cases,
};

/* ---- retire_ordinal: every Nth attempt fails, refused ones counted ------ */

static void retire_ordinal_counts_refused_attempts(struct kunit *test)
{
	struct retire_sim_config cfg = { .fail_submit_every = 3 };
	struct retire_fix *f = test->priv;
	struct retire_op bad = { .opcode = RETIRE_OP_SUBMIT, .len = 0 };
	u64 b[2], h0, h;
	int ret;

	retire_fix_add_bufs(test, b, 2);
	KUNIT_ASSERT_EQ(test, retire_sim_set_config(&cfg), 0);
	/* attempt 1: admitted; 2: refused as bad; 3: the injected failure */
	ret = retire_fix_try_submit(f, b[0], 512, 0, &h0);
	mutex_lock(&f->ctx->mutex);
	KUNIT_EXPECT_EQ(test, retire_submit_one(f->ctx, &bad, ktime_get()), -EINVAL);
	mutex_unlock(&f->ctx->mutex);
	KUNIT_EXPECT_EQ(test, retire_fix_try_submit(f, b[1], 512, 0, &h), -EIO);
	cfg.fail_submit_every = 0;
	retire_sim_set_config(&cfg);

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_REFUSED_INJECTED], 1ULL);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_REFUSED], 2ULL);
	retire_fix_complete(f, h0);
}

static struct kunit_case retire_ordinal_cases[] = {
	KUNIT_CASE(retire_ordinal_counts_refused_attempts),
	{}
};

static struct kunit_suite retire_ordinal_suite = {
	.name = "retire_ordinal",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_ordinal_cases,
};

kunit_test_suites(&retire_bucket_suite, &retire_ordinal_suite);
