// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for retire's internals, one file per concept beside what it
 * tests (*_kunit.c), all in retire_kunit.ko: built against a kernel with
 * KUnit, the suites run when it is loaded, after retire.ko. This file holds
 * what they share: a manual device and a context fixture.
 */
#include "kunit_fixture.h"

/*
 * ---- a manual device ---------------------------------------------------
 *
 * The state-machine suites need to decide when the device reports. This
 * engine implements the device interface and does nothing on its own: a
 * test reports the terminal event through retire_engine_complete(), as any
 * device does. retire_test_stop_ok says whether a cancel can stop a job.
 */
bool retire_test_stop_ok;
bool retire_test_inline;

void retire_test_start(struct retire_engine *e, struct retire_ctx *ctx,
		       void *j, const struct retire_engine_work *w)
{
	struct retire_test_job *job = j;
	struct retire_engine_result res = { .transferred = w->len };

	job->started = true;
	job->handle = w->handle;
	if (retire_test_inline)
		retire_engine_complete_locked(ctx, w->handle, &res);
}

bool retire_test_try_stop(struct retire_engine *e, struct retire_ctx *ctx,
			  void *j)
{
	struct retire_test_job *job = j;

	if (retire_test_stop_ok)
		job->started = false;
	return retire_test_stop_ok;
}

/* the sim's injected refusals: the core counts them, whatever the engine */
static bool retire_test_fail_submit(struct retire_engine *e)
{
	return retire_sim_fail_submit();
}

static const struct retire_engine_ops retire_test_ops = {
	.start		= retire_test_start,
	.try_stop	= retire_test_try_stop,
	.job_size	= sizeof(struct retire_test_job),
	.fail_submit	= retire_test_fail_submit,
};

/* never registered: only the suites' contexts hold it */
struct retire_engine retire_test_engine = {
	.name	= "test",
	.ops	= &retire_test_ops,
	.owner	= THIS_MODULE,
	.ref	= KREF_INIT(1),
};

static const struct retire_engine_ops retire_test_queue_ops = {
	.start		= retire_test_start,
	.try_stop	= retire_test_try_stop,
	.job_size	= sizeof(struct retire_test_job),
	.queues		= true,
};

/* the same device with a queue of its own: it says when it begins a job */
struct retire_engine retire_test_queue_engine = {
	.name	= "test-queue",
	.ops	= &retire_test_queue_ops,
	.owner	= THIS_MODULE,
	.ref	= KREF_INIT(1),
};

/* the device finishing inline: moves @w->len bytes, as the manual one */
static void retire_test_run(struct retire_engine *e, struct retire_ctx *ctx,
			    const struct retire_engine_work *w,
			    struct retire_engine_result *res)
{
	retire_ctx_assert_held(ctx);
	retire_engine_moving_locked(ctx, w, w->len);
	res->transferred = w->len;
	res->checksum = w->handle;
}

static const struct retire_engine_ops retire_test_run_ops = {
	.run		= retire_test_run,
};

/* an engine that runs inline: no job, no watchdog, the fast lane */
struct retire_engine retire_test_run_engine = {
	.name	= "test-run",
	.ops	= &retire_test_run_ops,
	.owner	= THIS_MODULE,
	.ref	= KREF_INIT(1),
};

void retire_fix_exit(struct kunit *test)
{
	struct retire_fix *f = test->priv;

	if (f && f->ctx)
		retire_ctx_release(f->ctx);
}

int retire_fix_init(struct kunit *test)
{
	struct retire_buf_reg reg = { .len = PAGE_SIZE };
	struct retire_fix *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	test->priv = f;
	retire_test_stop_ok = false;
	retire_test_inline = false;
	f->ctx = retire_ctx_create(&retire_test_engine);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->ctx);
	KUNIT_ASSERT_EQ(test, retire_buf_register(f->ctx, &reg), 0);
	f->buf = reg.handle;
	return 0;
}

u64 retire_fix_submit(struct kunit *test, u64 buf)
{
	struct retire_fix *f = test->priv;
	struct retire_op op = {
		.opcode = RETIRE_OP_SUBMIT,
		.buf = buf,
		.len = 512,
		.dev_flags = RETIRE_DEV_WRITE,
		.user_data = 0x1234,
	};
	int ret;

	mutex_lock(&f->ctx->mutex);
	ret = retire_submit_one(f->ctx, &op, ktime_get());
	mutex_unlock(&f->ctx->mutex);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return op.handle;
}

void retire_fix_complete(struct retire_fix *f, u64 handle)
{
	struct retire_engine_result res = { .transferred = 512 };

	retire_engine_complete(f->ctx, handle, &res);
}

/* read every ready record; return how many were of @type */
unsigned int retire_fix_read(struct retire_fix *f, u32 type)
{
	struct retire_cqe cqe[8];
	unsigned int n = 0;
	int got, i;

	mutex_lock(&f->ctx->mutex);
	while ((got = retire_records_take_kernel(f->ctx, cqe,
						 ARRAY_SIZE(cqe))) > 0)
		for (i = 0; i < got; i++) {
			if (cqe[i].type < ARRAY_SIZE(f->seen))
				f->seen[cqe[i].type]++;
			n += cqe[i].type == type;
		}
	mutex_unlock(&f->ctx->mutex);
	return n;
}

u64 retire_fix_stat(struct retire_fix *f, enum retire_stat i)
{
	u64 v;

	spin_lock_irq(&f->ctx->lock);
	v = f->ctx->stats.v[i];
	spin_unlock_irq(&f->ctx->lock);
	return v;
}

int retire_fix_borrow(struct retire_fix *f, u64 req, u64 *tok)
{
	int ret;

	mutex_lock(&f->ctx->mutex);
	ret = retire_token_borrow(f->ctx, req, tok);
	mutex_unlock(&f->ctx->mutex);
	return ret;
}

int retire_fix_handoff(struct retire_fix *f, u64 tok, u64 *new_tok)
{
	int ret;

	mutex_lock(&f->ctx->mutex);
	ret = retire_token_handoff(f->ctx, tok, new_tok);
	mutex_unlock(&f->ctx->mutex);
	return ret;
}

/* the record of request @h, whatever its state */
struct retire_req *retire_fix_req(struct retire_fix *f, u64 h)
{
	return retire_slot_get(&f->ctx->reqs, retire_handle_slot(h));
}

int retire_fix_set(struct retire_fix *f,
		   void (*edit)(struct retire_limits *l))
{
	struct retire_limits l = f->ctx->limits;

	edit(&l);
	return retire_ctx_set_limits(f->ctx, &l);
}

void retire_fix_add_bufs(struct kunit *test, u64 *bufs, unsigned int n)
{
	struct retire_fix *f = test->priv;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct retire_buf_reg reg = { .len = PAGE_SIZE };

		KUNIT_ASSERT_EQ(test, retire_buf_register(f->ctx, &reg), 0);
		bufs[i] = reg.handle;
	}
}

int retire_fix_try_submit(struct retire_fix *f, u64 buf, u64 len, u64 key,
			  u64 *handle)
{
	struct retire_op op = {
		.opcode = RETIRE_OP_SUBMIT,
		.buf = buf, .len = len, .key = key,
		.dev_flags = RETIRE_DEV_WRITE,
	};
	int ret;

	mutex_lock(&f->ctx->mutex);
	ret = retire_submit_one(f->ctx, &op, ktime_get());
	mutex_unlock(&f->ctx->mutex);
	*handle = op.handle;
	return ret;
}

/* limits for one active request and two waiting behind it */
void retire_edit_waiting(struct retire_limits *l)
{
	l->max_active = 1;
	l->max_active_per_key = 1;
	l->max_waiting = 2;
}

/* a pool of two pages */
void retire_edit_pool(struct retire_limits *l)
{
	l->max_pool_bytes = 2 * PAGE_SIZE;
}

MODULE_DESCRIPTION("KUnit suites for retire");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
