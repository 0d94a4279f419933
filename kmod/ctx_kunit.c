// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: contexts and the engines they bind to (ctx.c, engine.c).
 */
#include <linux/completion.h>
#include <linux/kthread.h>

#include "kunit_fixture.h"

/* ---- retire_ctx: one context per open file description ---------------- */

static void retire_ctx_starts_at_module_caps(struct kunit *test)
{
	struct retire_limits caps;
	struct retire_ctx *ctx;

	retire_caps_get(&caps);
	ctx = retire_ctx_create(&retire_test_engine);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);

	KUNIT_EXPECT_MEMEQ(test, &ctx->limits, &caps, sizeof(caps));
	KUNIT_EXPECT_EQ(test, kref_read(&ctx->ref), 1U);
	retire_ctx_release(ctx);
}

static void retire_ctx_each_create_is_distinct(struct kunit *test)
{
	struct retire_ctx *a, *b;

	a = retire_ctx_create(&retire_test_engine);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	b = retire_ctx_create(&retire_test_engine);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);

	KUNIT_EXPECT_PTR_NE(test, a, b);
	retire_ctx_release(b);
	retire_ctx_release(a);
}

#define RETIRE_CREATORS		2
#define RETIRE_CREATES		32

struct retire_creator {
	struct retire_ctx *ctx[RETIRE_CREATES];
	struct completion done;
};

static int retire_creator_fn(void *arg)
{
	struct retire_creator *c = arg;
	int i;

	for (i = 0; i < RETIRE_CREATES; i++) {
		c->ctx[i] = retire_ctx_create(&retire_test_engine);
		if (IS_ERR(c->ctx[i]))
			c->ctx[i] = NULL;
	}
	complete(&c->done);
	return 0;
}

struct retire_id_order {
	u64 last;
	unsigned int seen, backwards;
};

static int retire_id_order_visit(struct retire_ctx *ctx, void *arg)
{
	struct retire_id_order *o = arg;

	o->backwards += ctx->id <= o->last;
	o->last = ctx->id;
	o->seen++;
	return 0;
}

/*
 * Contexts created at once on two CPUs join the module's list in the
 * order of their ids: the resumable netlink dumps and the history's
 * lookup by id walk it in that order and stop past an id. An id taken
 * before the create's allocations (which sleep, and under KASAN take
 * long) let a later id join first: a dump resumed after it skipped the
 * earlier context, and the history of a live one answered -ENOENT.
 */
static void retire_ctx_ids_grow_along_the_list(struct kunit *test)
{
	struct retire_creator *c;
	struct retire_id_order o = {};
	struct task_struct *t[RETIRE_CREATORS];
	int i, j, made = 0;

	c = kunit_kcalloc(test, RETIRE_CREATORS, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < RETIRE_CREATORS; i++) {
		init_completion(&c[i].done);
		t[i] = kthread_run_on_cpu(retire_creator_fn, &c[i],
					  i % num_online_cpus(), "retire_create/%u");
		KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));
	}
	for (i = 0; i < RETIRE_CREATORS; i++)
		wait_for_completion(&c[i].done);

	retire_ctx_walk_after(0, retire_id_order_visit, &o);
	for (i = 0; i < RETIRE_CREATORS; i++)
		for (j = 0; j < RETIRE_CREATES; j++)
			made += !!c[i].ctx[j];
	KUNIT_EXPECT_EQ(test, made, RETIRE_CREATORS * RETIRE_CREATES);
	KUNIT_EXPECT_GE(test, o.seen, (unsigned int)made);
	KUNIT_EXPECT_EQ(test, o.backwards, 0U);

	for (i = 0; i < RETIRE_CREATORS; i++)
		for (j = 0; j < RETIRE_CREATES; j++)
			if (c[i].ctx[j])
				retire_ctx_release(c[i].ctx[j]);
}

static void retire_test_engine_release(struct retire_engine *e)
{
	kfree(e);
}

/* the test engine's ops, for engines that register and are freed */
static const struct retire_engine_ops retire_test_reg_ops = {
	.start		= retire_test_start,
	.try_stop	= retire_test_try_stop,
	.job_size	= sizeof(struct retire_test_job),
	.release	= retire_test_engine_release,
};

/*
 * An unregistered engine (a removed device) is gone: no context binds to
 * it, its id is never given again, and it lives until the last context
 * bound to it lets go.
 */
static void retire_engine_gone_is_never_bound_nor_its_id_reused(struct kunit *test)
{
	struct retire_engine *a, *b, *got;
	struct retire_ctx *ctx;
	u32 id;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	a->name = "test-a";
	a->ops = &retire_test_reg_ops;
	b->name = "test-b";
	b->ops = &retire_test_reg_ops;
	KUNIT_ASSERT_EQ(test, retire_engine_register(a), 0);
	id = a->id;
	KUNIT_EXPECT_NE(test, id, (u32)RETIRE_ENGINE_SIM);
	got = retire_engine_get(id);
	KUNIT_EXPECT_PTR_EQ(test, got, a);
	retire_engine_put(got);

	ctx = retire_ctx_create(&retire_test_engine);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	KUNIT_ASSERT_EQ(test, retire_ctx_set_engine(ctx, id), 0);
	KUNIT_EXPECT_PTR_EQ(test, ctx->engine, a);
	KUNIT_EXPECT_EQ(test, kref_read(&a->ref), 2U);

	retire_engine_unregister(a);
	/* the context's reference keeps it */
	KUNIT_EXPECT_TRUE(test, READ_ONCE(a->gone));
	KUNIT_EXPECT_EQ(test, kref_read(&a->ref), 1U);
	KUNIT_EXPECT_NULL(test, retire_engine_get(id));
	KUNIT_EXPECT_EQ(test, retire_ctx_set_engine(ctx, id), -ENOENT);
	KUNIT_EXPECT_PTR_EQ(test, ctx->engine, a);

	KUNIT_ASSERT_EQ(test, retire_engine_register(b), 0);
	KUNIT_EXPECT_GT(test, b->id, id);
	retire_engine_unregister(b);		/* freed here */
	retire_ctx_release(ctx);		/* and a here */
}

static struct kunit_case retire_ctx_cases[] = {
	KUNIT_CASE(retire_ctx_starts_at_module_caps),
	KUNIT_CASE(retire_ctx_each_create_is_distinct),
	KUNIT_CASE(retire_ctx_ids_grow_along_the_list),
	KUNIT_CASE(retire_engine_gone_is_never_bound_nor_its_id_reused),
	{}
};

static struct kunit_suite retire_ctx_suite = {
	.name = "retire_ctx",
	.test_cases = retire_ctx_cases,
};

kunit_test_suites(&retire_ctx_suite);
