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

/*
 * A context with @waiting requests queued behind @active ones of the same
 * key, all held by the device (the manual engine): the per-key bound is
 * what holds the waiters back, so nothing starts when one goes.
 */
static struct retire_ctx *retire_ctx_backlog(struct kunit *test, u32 active,
					     u32 waiting, u64 *h)
{
	struct retire_limits l;
	struct retire_ctx *ctx;
	u32 i;

	ctx = retire_ctx_create(&retire_test_engine);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	l = ctx->limits;
	l.max_active = 2 * active;
	l.max_active_per_key = active;
	l.max_waiting = waiting;
	KUNIT_ASSERT_EQ(test, retire_ctx_set_limits(ctx, &l), 0);
	for (i = 0; i < active + waiting; i++) {
		struct retire_buf_reg reg = { .len = PAGE_SIZE };
		struct retire_op op = {
			.opcode = RETIRE_OP_SUBMIT,
			.len = 64,
			.dev_flags = RETIRE_DEV_WRITE,
			.key = 7,
		};

		KUNIT_ASSERT_EQ(test, retire_buf_register(ctx, &reg), 0);
		op.buf = reg.handle;
		mutex_lock(&ctx->mutex);
		KUNIT_ASSERT_EQ(test, retire_submit_one(ctx, &op, ktime_get()), 0);
		mutex_unlock(&ctx->mutex);
		if (i < active)
			h[i] = op.handle;
	}
	KUNIT_ASSERT_EQ(test, ctx->active, active);
	KUNIT_ASSERT_EQ(test, ctx->waiting_nr, waiting);
	return ctx;
}

/* the time retire_ctx_release() takes with @waiting waiters, in ns */
static u64 retire_ctx_release_ns(struct kunit *test, u32 waiting)
{
	struct retire_engine_result res = { .transferred = 64 };
	const u32 active = 32;
	struct retire_ctx *ctx;
	u64 *h, t0, t1;
	u32 i;

	h = kunit_kcalloc(test, active, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	ctx = retire_ctx_backlog(test, active, waiting, h);
	t0 = ktime_get_ns();
	retire_ctx_release(ctx);
	t1 = ktime_get_ns();
	/* the device finishes: the reaper retires everything and frees it */
	for (i = 0; i < active; i++)
		retire_engine_complete(ctx, h[i], &res);
	return t1 - t0;
}

/*
 * Closing a context cancels its waiting requests. Each cancel used to
 * start the activation walk over the waiters left, and each waiter's
 * check walk the active requests: O(waiting^2 x active) under the
 * context lock with interrupts off. Closed, the context starts nothing:
 * eight times the waiters must not take much more than eight times as
 * long (the quadratic took 64 times).
 */
static void retire_ctx_close_is_linear_in_its_waiters(struct kunit *test)
{
	u64 small, large;

	retire_ctx_release_ns(test, 96);	/* warm: slabs, the reaper */
	small = retire_ctx_release_ns(test, 96);
	large = retire_ctx_release_ns(test, 768);
	kunit_info(test, "close: 96 waiters %llu us, 768 waiters %llu us\n",
		   small / 1000, large / 1000);
	KUNIT_EXPECT_LT(test, large, 24 * small);
}

/*
 * The time the device's terminal events for @active requests take, each
 * letting one of @waiting parked requests of the same key start: the
 * least of three rounds, in ns.
 */
static u64 retire_ctx_terminals_ns(struct kunit *test, u32 waiting)
{
	struct retire_engine_result res = { .transferred = 64 };
	const u32 active = 32;
	struct retire_ctx *ctx;
	struct retire_req *req;
	u64 *h, t0, best = U64_MAX;
	u32 i, round;

	h = kunit_kcalloc(test, active, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	ctx = retire_ctx_backlog(test, active, waiting, h);
	for (round = 0; round < 3; round++) {
		t0 = ktime_get_ns();
		for (i = 0; i < active; i++)
			retire_engine_complete(ctx, h[i], &res);
		best = min(best, ktime_get_ns() - t0);
		/* the requests that started in their place */
		i = 0;
		spin_lock_irq(&ctx->lock);
		list_for_each_entry(req, &ctx->active_list, node)
			h[i++] = req->handle;
		spin_unlock_irq(&ctx->lock);
		KUNIT_ASSERT_EQ(test, i, active);
	}
	KUNIT_EXPECT_EQ(test, ctx->waiting_nr, waiting - 3 * active);
	retire_ctx_release(ctx);
	for (i = 0; i < active; i++)
		retire_engine_complete(ctx, h[i], &res);
	return best;
}

/*
 * Each terminal event used to walk every waiting request, and each of
 * those the active ones, to find the one that may start: O(waiting x
 * active) with interrupts off. A key's count and its parked list make it
 * O(1): eight times the waiters must not make a terminal event much
 * slower (the walk made it eight times slower).
 */
static void retire_ctx_terminal_is_flat_in_its_waiters(struct kunit *test)
{
	u64 small, large;

	retire_ctx_terminals_ns(test, 96);	/* warm */
	small = retire_ctx_terminals_ns(test, 96);
	large = retire_ctx_terminals_ns(test, 768);
	kunit_info(test, "32 terminal events: 96 waiting %llu us, 768 waiting %llu us\n",
		   small / 1000, large / 1000);
	KUNIT_EXPECT_LT(test, large, 3 * small);
}

/*
 * An engine that runs requests inline does their work in the activation
 * pass, with interrupts off: the sim's null device moves up to 64 KiB a
 * request, and a pass used to run every waiting request, however many.
 * Now one hold of the lock runs at most RETIRE_CTX_BATCH of them; a work
 * item starts the rest. Seen from inside the hold: the waiters left.
 */
static void retire_ctx_inline_work_is_batched_per_hold(struct kunit *test)
{
	const u32 waiting = 3 * RETIRE_CTX_BATCH + 5;
	struct retire_engine_result res = { .transferred = 64 };
	struct retire_limits l;
	struct retire_ctx *ctx;
	u32 left, i;
	u64 h;

	ctx = retire_ctx_backlog(test, 1, waiting, &h);
	retire_test_inline = true;
	l = ctx->limits;
	l.max_active_per_key = 2;
	spin_lock_irq(&ctx->lock);
	/* the raise starts waiters: each completes inline, one slot is free */
	retire_ctx_limits_changed_locked(ctx, &l);
	left = ctx->waiting_nr;
	spin_unlock_irq(&ctx->lock);
	/* a step or two of the batch apply the raised bound */
	KUNIT_EXPECT_GE(test, left, waiting - RETIRE_CTX_BATCH);
	KUNIT_EXPECT_LE(test, left, waiting - RETIRE_CTX_BATCH + 2);
	/* the work item runs the rest, a batch at a time */
	for (i = 0; i < 500 && READ_ONCE(ctx->waiting_nr); i++) {
		flush_work(&ctx->activate_work);
		usleep_range(10000, 20000);
	}
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->waiting_nr), 0U);
	retire_test_inline = false;
	retire_engine_complete(ctx, h, &res);
	retire_ctx_release(ctx);
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

/* an engine to register, freed by its ops' release after the last put */
static struct retire_engine *
retire_test_engine_new(struct kunit *test, const char *name,
		       const struct retire_engine_ops *ops)
{
	struct retire_engine *e = kzalloc(sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->name = name;
	e->ops = ops;
	e->owner = THIS_MODULE;
	return e;
}

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

	a = retire_test_engine_new(test, "test-a", &retire_test_reg_ops);
	b = retire_test_engine_new(test, "test-b", &retire_test_reg_ops);
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

static int retire_test_attach_ret;
static int retire_test_attached;

static int retire_test_attach(struct retire_engine *e, struct retire_ctx *ctx)
{
	if (retire_test_attach_ret)
		return retire_test_attach_ret;
	retire_test_attached++;
	return 0;
}

static void retire_test_detach(struct retire_engine *e, struct retire_ctx *ctx)
{
	retire_test_attached--;
}

static const struct retire_engine_ops retire_test_attach_ops = {
	.start		= retire_test_start,
	.try_stop	= retire_test_try_stop,
	.job_size	= sizeof(struct retire_test_job),
	.attach		= retire_test_attach,
	.detach		= retire_test_detach,
	.release	= retire_test_engine_release,
};

/*
 * An engine's attach() may refuse a context: the binding fails with its
 * errno and the context stays where it was. Each binding it accepts is
 * undone by exactly one detach(), when the context binds elsewhere.
 */
static void retire_engine_attach_refusal_leaves_the_binding(struct kunit *test)
{
	struct retire_engine *a, *b;
	struct retire_ctx *ctx;

	a = retire_test_engine_new(test, "test-attach-a",
				   &retire_test_attach_ops);
	b = retire_test_engine_new(test, "test-attach-b", &retire_test_reg_ops);
	KUNIT_ASSERT_EQ(test, retire_engine_register(a), 0);
	KUNIT_ASSERT_EQ(test, retire_engine_register(b), 0);
	ctx = retire_ctx_create(&retire_test_engine);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);

	retire_test_attached = 0;
	retire_test_attach_ret = -ENOSPC;
	KUNIT_EXPECT_EQ(test, retire_ctx_set_engine(ctx, a->id), -ENOSPC);
	KUNIT_EXPECT_PTR_EQ(test, ctx->engine, &retire_test_engine);
	KUNIT_EXPECT_EQ(test, kref_read(&a->ref), 1U);

	retire_test_attach_ret = 0;
	KUNIT_EXPECT_EQ(test, retire_ctx_set_engine(ctx, a->id), 0);
	KUNIT_EXPECT_PTR_EQ(test, ctx->engine, a);
	KUNIT_EXPECT_EQ(test, retire_test_attached, 1);
	/* binding to a again attaches anew, then detaches the old binding */
	KUNIT_EXPECT_EQ(test, retire_ctx_set_engine(ctx, a->id), 0);
	KUNIT_EXPECT_EQ(test, retire_test_attached, 1);
	KUNIT_EXPECT_EQ(test, retire_ctx_set_engine(ctx, b->id), 0);
	KUNIT_EXPECT_EQ(test, retire_test_attached, 0);

	retire_engine_unregister(a);		/* freed here */
	retire_engine_unregister(b);
	retire_ctx_release(ctx);		/* and b here */
}

static struct kunit_case retire_ctx_cases[] = {
	KUNIT_CASE(retire_ctx_starts_at_module_caps),
	KUNIT_CASE(retire_ctx_each_create_is_distinct),
	KUNIT_CASE(retire_ctx_ids_grow_along_the_list),
	KUNIT_CASE(retire_ctx_close_is_linear_in_its_waiters),
	KUNIT_CASE(retire_ctx_terminal_is_flat_in_its_waiters),
	KUNIT_CASE(retire_ctx_inline_work_is_batched_per_hold),
	KUNIT_CASE(retire_engine_gone_is_never_bound_nor_its_id_reused),
	KUNIT_CASE(retire_engine_attach_refusal_leaves_the_binding),
	{}
};

static struct kunit_suite retire_ctx_suite = {
	.name = "retire_ctx",
	.test_cases = retire_ctx_cases,
};

kunit_test_suites(&retire_ctx_suite);
