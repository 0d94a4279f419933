// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: buffers (buf.c): the pool's leases and the pages a device wrote.
 */
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sizes.h>

#include "kunit_fixture.h"

/* ---- retire_pool: leases, least recently used first --------------------- */

static bool retire_fix_buf_live(struct retire_fix *f, u64 handle)
{
	bool live;

	spin_lock_irq(&f->ctx->lock);
	live = retire_slot_lookup_locked(&f->ctx->bufs, handle);
	spin_unlock_irq(&f->ctx->lock);
	return live;
}

static void retire_pool_refuses_without_evicting_then_evicts_unborrowed(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	struct retire_buf_reg reg = { .len = 2 * PAGE_SIZE };
	u64 b0, h, tok;

	/* budget two pages: the fixture's buffer and b0, both one page */
	KUNIT_ASSERT_EQ(test, retire_fix_set(f, retire_edit_pool), 0);
	retire_fix_add_bufs(test, &b0, 1);
	/* the fixture's buffer is used and borrowed: more recent than b0 */
	h = retire_fix_submit(test, f->buf);
	retire_fix_complete(f, h);
	KUNIT_ASSERT_EQ(test, retire_fix_borrow(f, h, &tok), 0);

	/* two pages wanted, only b0's one reclaimable: refused, untouched */
	KUNIT_EXPECT_EQ(test, retire_buf_register(f->ctx, &reg), -ENOSPC);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_EVICTED], 0ULL);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_REFUSED_POOL], 1ULL);
	KUNIT_EXPECT_TRUE(test, retire_fix_buf_live(f, b0));
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_POOL_BYTES],
			2ULL * PAGE_SIZE);

	/* the borrow returns and it retires: now one page fits, by evicting
	 * the least recently used FREE buffer, b0, and only it
	 */
	retire_fix_read(f, RETIRE_REC_TERMINAL);
	KUNIT_ASSERT_EQ(test, retire_req_retire(f->ctx, h), 0);
	KUNIT_ASSERT_EQ(test, retire_token_return(f->ctx, tok, 0), 0);
	reg.len = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, retire_buf_register(f->ctx, &reg), 0);
	KUNIT_EXPECT_EQ(test, reg.evicted, 1U);
	KUNIT_EXPECT_FALSE(test, retire_fix_buf_live(f, b0));
	KUNIT_EXPECT_TRUE(test, retire_fix_buf_live(f, f->buf));
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_EVICTED], 1ULL);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_POOL_BYTES],
			2ULL * PAGE_SIZE);
}

struct retire_free_watch {
	unsigned long min_free;	/* pages, the least seen */
};

static int retire_free_watch_fn(void *arg)
{
	struct retire_free_watch *w = arg;
	struct sysinfo si;

	while (!kthread_should_stop()) {
		si_meminfo(&si);
		w->min_free = min(w->min_free, si.freeram);
		usleep_range(200, 500);
	}
	return 0;
}

/*
 * A registration takes memory for what it may evict, not for the cap: at
 * the largest max_buffers the caps allow (RETIRE_SLOT_MAX), a one-page
 * module buffer in an empty pool must not take more than a little
 * memory meanwhile. The room for evicted buffers was sized by
 * max_buffers, 40 bytes each: 671 MB for every registration at that cap.
 */
static void retire_pool_registration_memory_does_not_grow_with_the_cap(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	struct retire_buf_reg reg = { .len = PAGE_SIZE };
	struct retire_free_watch w = { .min_free = ULONG_MAX };
	struct task_struct *t;
	struct sysinfo si;
	unsigned long before;
	int ret;

	spin_lock_irq(&f->ctx->lock);
	f->ctx->limits.max_buffers = RETIRE_SLOT_MAX;
	spin_unlock_irq(&f->ctx->lock);
	si_meminfo(&si);
	before = si.freeram;
	t = kthread_run(retire_free_watch_fn, &w, "retire_free_watch");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/* it has looked once before the registration begins */
	while (READ_ONCE(w.min_free) == ULONG_MAX)
		usleep_range(200, 500);
	ret = retire_buf_register(f->ctx, &reg);
	kthread_stop(t);

	KUNIT_EXPECT_EQ(test, ret, 0);
	/* far less than the 64 MiB slack allowed for whatever else runs */
	KUNIT_EXPECT_LT(test, before > w.min_free ? before - w.min_free : 0,
			(unsigned long)(SZ_64M >> PAGE_SHIFT));
}

static struct kunit_case retire_pool_cases[] = {
	KUNIT_CASE(retire_pool_refuses_without_evicting_then_evicts_unborrowed),
	KUNIT_CASE(retire_pool_registration_memory_does_not_grow_with_the_cap),
	{}
};

static struct kunit_suite retire_pool_suite = {
	.name = "retire_pool",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_pool_cases,
};

/* ---- retire_dirty: written pages follow what the device did ------------ */

/*
 * The sim engine writes a 16 KiB range 4 KiB per 20 ms tick; after the
 * first write it is stopped between two ticks, by a reset or by a cancel
 * that may stop running work. Either terminal event reports nothing
 * transferred, yet the device wrote: the buffer must be marked written, so
 * user pages would be unpinned dirty.
 */
struct retire_dirty_case {
	const char *name;
	bool reset;
};

static const struct retire_dirty_case retire_dirty_cases[] = {
	{ "stopped_by_reset", true },
	{ "stopped_by_cancel_while_running", false },
};

static void retire_dirty_case_desc(const struct retire_dirty_case *c,
				   char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(retire_dirty, retire_dirty_cases, retire_dirty_case_desc);

static bool retire_dirty_wait(struct retire_ctx *ctx, enum retire_stat i,
			      u64 want)
{
	int n;

	for (n = 0; n < 2000; n++) {
		if (READ_ONCE(ctx->stats.v[i]) >= want)
			return true;
		usleep_range(1000, 2000);
	}
	return false;
}

static void retire_dirty_follows_partial_writes(struct kunit *test)
{
	const struct retire_dirty_case *c = test->param_value;
	struct retire_sim_config cfg = {
		.tick_ns = 20 * NSEC_PER_MSEC,
		.bytes_per_tick = PAGE_SIZE,
		.flags = c->reset ? 0 : RETIRE_SIM_F_CANCEL_RUNNING,
	};
	struct retire_buf_reg reg = { .len = 4 * PAGE_SIZE };
	struct retire_op op = { .opcode = RETIRE_OP_SUBMIT,
				.len = 4 * PAGE_SIZE,
				.dev_flags = RETIRE_DEV_WRITE };
	struct retire_cqe cqe[8];
	struct retire_engine *sim;
	struct retire_ctx *ctx;
	struct retire_buf *buf;
	bool wrote = false;
	int ret;

	KUNIT_ASSERT_EQ(test, retire_sim_set_config(&cfg), 0);
	sim = retire_engine_get(RETIRE_ENGINE_SIM);
	KUNIT_ASSERT_NOT_NULL(test, sim);
	ctx = retire_ctx_create(sim);
	retire_engine_put(sim);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	KUNIT_ASSERT_EQ(test, retire_buf_register(ctx, &reg), 0);
	op.buf = reg.handle;
	mutex_lock(&ctx->mutex);
	ret = retire_submit_one(ctx, &op, ktime_get());
	mutex_unlock(&ctx->mutex);
	KUNIT_ASSERT_EQ(test, ret, 0);

	KUNIT_EXPECT_TRUE(test, retire_dirty_wait(ctx, RETIRE_ST_ENGINE_BYTES,
						  PAGE_SIZE));
	if (c->reset)
		retire_sim_reset();
	else
		KUNIT_EXPECT_GE(test, retire_req_cancel(ctx, op.handle),
				-EALREADY);
	KUNIT_EXPECT_TRUE(test, retire_dirty_wait(ctx, c->reset ?
						  RETIRE_ST_FAILED :
						  RETIRE_ST_CANCELLED, 1));
	KUNIT_EXPECT_LT(test, ctx->stats.v[RETIRE_ST_ENGINE_BYTES],
			4 * PAGE_SIZE);

	spin_lock_irq(&ctx->lock);
	buf = retire_slot_lookup_locked(&ctx->bufs, reg.handle);
	if (buf)
		wrote = buf->dev_wrote;
	spin_unlock_irq(&ctx->lock);
	KUNIT_EXPECT_TRUE(test, wrote);

	mutex_lock(&ctx->mutex);
	retire_records_take_kernel(ctx, cqe, ARRAY_SIZE(cqe));
	mutex_unlock(&ctx->mutex);
	retire_ctx_release(ctx);
	cfg = (struct retire_sim_config) {};
	retire_sim_set_config(&cfg);
}

static struct kunit_case retire_dirty_test_cases[] = {
	KUNIT_CASE_PARAM(retire_dirty_follows_partial_writes,
			 retire_dirty_gen_params),
	{}
};

static struct kunit_suite retire_dirty_suite = {
	.name = "retire_dirty",
	.test_cases = retire_dirty_test_cases,
};

kunit_test_suites(&retire_pool_suite, &retire_dirty_suite);
