// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for retire's internals. Built as retire_kunit.ko against a
 * kernel with KUnit; the suites run when it is loaded, after retire.ko.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/delay.h>
#include <linux/mman.h>
#include <linux/uaccess.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <linux/retire_netlink.h>

#include "main.h"
#include "buf.h"
#include "cancel.h"
#include "chardev.h"
#include "ctx.h"
#include "engine.h"
#include "engine_sim.h"
#include "netlink.h"
#include "req.h"
#include "slot.h"
#include "stats.h"
#include "token.h"

/* ---- retire_info: what GET_INFO and netlink INFO_GET report ---------- */

static void retire_info_reports_abi_version(struct kunit *test)
{
	struct retire_info info;

	memset(&info, 0xa5, sizeof(info));
	retire_info_fill(&info);

	KUNIT_EXPECT_EQ(test, info.abi_version, RETIRE_ABI_VERSION);
}

static void retire_info_reports_only_known_features(struct kunit *test)
{
	struct retire_info info;

	retire_info_fill(&info);

	KUNIT_EXPECT_EQ(test, info.features & ~RETIRE_FEAT_ALL, 0ULL);
	KUNIT_EXPECT_TRUE(test, info.features & RETIRE_FEAT_GENL);
}

static void retire_info_reports_module_caps(struct kunit *test)
{
	struct retire_limits caps;
	struct retire_info info;

	retire_caps_get(&caps);
	retire_info_fill(&info);

	KUNIT_EXPECT_MEMEQ(test, &info.caps, &caps, sizeof(caps));
	KUNIT_EXPECT_GT(test, info.caps.max_unretired, 0U);
	KUNIT_EXPECT_LE(test, info.caps.max_active, info.caps.max_unretired);
}

static void retire_info_zeroes_unknown_fields(struct kunit *test)
{
	struct retire_info info;

	memset(&info, 0xa5, sizeof(info));
	retire_info_fill(&info);

	KUNIT_EXPECT_EQ(test, info.flags, 0U);
	KUNIT_EXPECT_NULL(test, memchr_inv(info.reserved, 0,
					   sizeof(info.reserved)));
}

static void retire_info_check_accepts_zeroed_input(struct kunit *test)
{
	struct retire_info info = {};

	KUNIT_EXPECT_EQ(test, retire_info_check(&info), 0);
}

static void retire_info_check_rejects_flags(struct kunit *test)
{
	struct retire_info info = { .flags = 1 };

	KUNIT_EXPECT_EQ(test, retire_info_check(&info), -EINVAL);
}

/* one case per reserved word: a bit in any of them must be refused */
struct retire_reserved_case {
	unsigned int word;
	u64 value;
	const char *name;
};

static const struct retire_reserved_case retire_reserved_cases[] = {
	{ 0, 1, "word0_low_bit" },
	{ 1, 1ULL << 63, "word1_high_bit" },
	{ 2, 0x100, "word2_middle_bit" },
	{ 3, ~0ULL, "word3_all_bits" },
};

static void retire_reserved_case_desc(const struct retire_reserved_case *c,
				      char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(retire_reserved, retire_reserved_cases,
		  retire_reserved_case_desc);

static void retire_info_check_rejects_reserved(struct kunit *test)
{
	const struct retire_reserved_case *c = test->param_value;
	struct retire_info info = {};

	KUNIT_ASSERT_LT(test, c->word, ARRAY_SIZE(info.reserved));
	info.reserved[c->word] = c->value;

	KUNIT_EXPECT_EQ(test, retire_info_check(&info), -EINVAL);
}

static struct kunit_case retire_info_cases[] = {
	KUNIT_CASE(retire_info_reports_abi_version),
	KUNIT_CASE(retire_info_reports_only_known_features),
	KUNIT_CASE(retire_info_reports_module_caps),
	KUNIT_CASE(retire_info_zeroes_unknown_fields),
	KUNIT_CASE(retire_info_check_accepts_zeroed_input),
	KUNIT_CASE(retire_info_check_rejects_flags),
	KUNIT_CASE_PARAM(retire_info_check_rejects_reserved,
			 retire_reserved_gen_params),
	{}
};

static struct kunit_suite retire_info_suite = {
	.name = "retire_info",
	.test_cases = retire_info_cases,
};

/* ---- retire_arg: growable ioctl arguments ----------------------------- */

struct retire_arg_fixture {
	void __user *uptr;	/* one user page, for copy_struct_from_user */
};

static int retire_arg_init(struct kunit *test)
{
	struct retire_arg_fixture *f;
	unsigned long addr;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE,
			     PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE,
			     0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0UL, "no user page");
	f->uptr = (void __user *)addr;
	test->priv = f;
	return 0;
}

/* the caller's structure, @usize bytes: info zeroed, then @tail at the end */
static void retire_arg_put_user(struct kunit *test, size_t usize, u8 tail)
{
	struct retire_arg_fixture *f = test->priv;
	u8 buf[sizeof(struct retire_info) + 16] = {};

	KUNIT_ASSERT_LE(test, usize, sizeof(buf));
	if (usize > sizeof(struct retire_info))
		buf[usize - 1] = tail;
	KUNIT_ASSERT_EQ(test, copy_to_user(f->uptr, buf, usize), 0UL);
}

static void retire_arg_accepts_exact_size(struct kunit *test)
{
	struct retire_arg_fixture *f = test->priv;
	struct retire_info info;
	size_t sz = sizeof(info);

	retire_arg_put_user(test, sz, 0);

	KUNIT_EXPECT_EQ(test, retire_arg_copy_in(&info, sz, sz,
						 _IOC(_IOC_READ | _IOC_WRITE,
						      RETIRE_IOC_MAGIC, 0, sz),
						 f->uptr), 0);
}

static void retire_arg_rejects_short_struct(struct kunit *test)
{
	struct retire_arg_fixture *f = test->priv;
	struct retire_info info;
	size_t sz = sizeof(info);

	retire_arg_put_user(test, sz - 8, 0);

	KUNIT_EXPECT_EQ(test, retire_arg_copy_in(&info, sz, sz,
						 _IOC(_IOC_READ | _IOC_WRITE,
						      RETIRE_IOC_MAGIC, 0,
						      sz - 8),
						 f->uptr), -EINVAL);
}

static void retire_arg_accepts_longer_zero_tail(struct kunit *test)
{
	struct retire_arg_fixture *f = test->priv;
	struct retire_info info;
	size_t sz = sizeof(info);

	retire_arg_put_user(test, sz + 16, 0);

	KUNIT_EXPECT_EQ(test, retire_arg_copy_in(&info, sz, sz,
						 _IOC(_IOC_READ | _IOC_WRITE,
						      RETIRE_IOC_MAGIC, 0,
						      sz + 16),
						 f->uptr), 0);
}

static void retire_arg_rejects_longer_nonzero_tail(struct kunit *test)
{
	struct retire_arg_fixture *f = test->priv;
	struct retire_info info;
	size_t sz = sizeof(info);

	retire_arg_put_user(test, sz + 16, 0x01);

	KUNIT_EXPECT_EQ(test, retire_arg_copy_in(&info, sz, sz,
						 _IOC(_IOC_READ | _IOC_WRITE,
						      RETIRE_IOC_MAGIC, 0,
						      sz + 16),
						 f->uptr), -E2BIG);
}

static struct kunit_case retire_arg_cases[] = {
	KUNIT_CASE(retire_arg_accepts_exact_size),
	KUNIT_CASE(retire_arg_rejects_short_struct),
	KUNIT_CASE(retire_arg_accepts_longer_zero_tail),
	KUNIT_CASE(retire_arg_rejects_longer_nonzero_tail),
	{}
};

static struct kunit_suite retire_arg_suite = {
	.name = "retire_arg",
	.init = retire_arg_init,
	.test_cases = retire_arg_cases,
};

/*
 * ---- a manual device ---------------------------------------------------
 *
 * The state-machine suites need to decide when the device reports. This
 * engine implements the device interface and does nothing on its own: a
 * test reports the terminal event through retire_engine_complete(), as any
 * device does. retire_test_stop_ok says whether a cancel can stop a job.
 */
struct retire_test_job {
	struct retire_slot slot;
	bool started;
	u64 handle;
};

static bool retire_test_stop_ok;

static void retire_test_start(struct retire_ctx *ctx, void *j,
			      const struct retire_engine_work *w)
{
	struct retire_test_job *job = j;

	job->started = true;
	job->handle = w->handle;
}

static bool retire_test_try_stop(struct retire_ctx *ctx, void *j)
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
static struct retire_engine retire_test_engine = {
	.name	= "test",
	.ops	= &retire_test_ops,
	.ref	= KREF_INIT(1),
};

/* a context with one module-allocated page, released at test exit */
struct retire_fix {
	struct retire_ctx *ctx;
	u64 buf;
	unsigned int seen[RETIRE_REC_RETIRED + 1];	/* records read, by type */
};

static void retire_fix_exit(struct kunit *test)
{
	struct retire_fix *f = test->priv;

	if (f && f->ctx)
		retire_ctx_release(f->ctx);
}

static int retire_fix_init(struct kunit *test)
{
	struct retire_buf_reg reg = { .len = PAGE_SIZE };
	struct retire_fix *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	test->priv = f;
	retire_test_stop_ok = false;
	f->ctx = retire_ctx_create(&retire_test_engine);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->ctx);
	KUNIT_ASSERT_EQ(test, retire_buf_register(f->ctx, &reg), 0);
	f->buf = reg.handle;
	return 0;
}

static u64 retire_fix_submit(struct kunit *test, u64 buf)
{
	struct retire_fix *f = test->priv;
	struct retire_sqe sqe = {
		.buf = buf,
		.len = 512,
		.dev_flags = RETIRE_DEV_WRITE,
		.user_data = 0x1234,
	};
	int ret;

	mutex_lock(&f->ctx->mutex);
	ret = retire_submit_one(f->ctx, &sqe, ktime_get());
	mutex_unlock(&f->ctx->mutex);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return sqe.handle;
}

static void retire_fix_complete(struct retire_fix *f, u64 handle)
{
	struct retire_engine_result res = { .transferred = 512 };

	retire_engine_complete(f->ctx, handle, &res);
}

/* read every ready record; return how many were of @type */
static unsigned int retire_fix_read(struct retire_fix *f, u32 type)
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

static u64 retire_fix_stat(struct retire_fix *f, enum retire_stat i)
{
	u64 v;

	spin_lock_irq(&f->ctx->lock);
	v = f->ctx->stats.v[i];
	spin_unlock_irq(&f->ctx->lock);
	return v;
}

static int retire_fix_borrow(struct retire_fix *f, u64 req, u64 *tok)
{
	int ret;

	mutex_lock(&f->ctx->mutex);
	ret = retire_token_borrow(f->ctx, req, tok);
	mutex_unlock(&f->ctx->mutex);
	return ret;
}

static int retire_fix_handoff(struct retire_fix *f, u64 tok, u64 *new_tok)
{
	int ret;

	mutex_lock(&f->ctx->mutex);
	ret = retire_token_handoff(f->ctx, tok, new_tok);
	mutex_unlock(&f->ctx->mutex);
	return ret;
}

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
	KUNIT_CASE(retire_engine_gone_is_never_bound_nor_its_id_reused),
	{}
};

static struct kunit_suite retire_ctx_suite = {
	.name = "retire_ctx",
	.test_cases = retire_ctx_cases,
};

/* ---- retire_slot: handles, generations, wrap --------------------------- */

struct retire_slot_obj {
	struct retire_slot slot;
	u64 payload;
};

static int retire_slot_test_init(struct kunit *test)
{
	struct retire_slot_table *t;
	void *chunk;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, retire_slot_table_init(t, RETIRE_KIND_REQ,
						     sizeof(struct retire_slot_obj),
						     RETIRE_SLOT_CHUNK, NULL,
						     NULL, NULL), 0);
	chunk = retire_slot_chunk_alloc(t);
	KUNIT_ASSERT_NOT_NULL(test, chunk);
	retire_slot_chunk_add_locked(t, chunk);
	test->priv = t;
	return 0;
}

static void retire_slot_test_exit(struct kunit *test)
{
	struct retire_slot_table *t = test->priv;
	u32 i;

	/* drop whatever a case left busy, then free */
	for (i = 0; i < t->nr; i++) {
		struct retire_slot *s = retire_slot_get(t, i);

		if (s->live)
			retire_slot_kill_locked(t, s);
		if (s->busy)
			retire_slot_release_locked(t, s, i);
	}
	retire_slot_table_destroy(t);
}

static void retire_slot_first_generation_is_one(struct kunit *test)
{
	struct retire_slot_table *t = test->priv;
	u64 h;

	KUNIT_ASSERT_NOT_NULL(test, retire_slot_alloc_locked(t, &h));

	KUNIT_EXPECT_EQ(test, retire_handle_kind(h), RETIRE_KIND_REQ);
	KUNIT_EXPECT_EQ(test, retire_handle_slot(h), 0U);
	KUNIT_EXPECT_EQ(test, retire_handle_gen(h), 1U);
	KUNIT_EXPECT_NE(test, h, 0ULL);
}

static void retire_slot_reuse_moves_generation(struct kunit *test)
{
	struct retire_slot_table *t = test->priv;
	struct retire_slot *s;
	u64 h1, h2;

	s = retire_slot_alloc_locked(t, &h1);
	KUNIT_ASSERT_NOT_NULL(test, s);
	retire_slot_kill_locked(t, s);
	retire_slot_release_locked(t, s, retire_handle_slot(h1));
	KUNIT_ASSERT_NOT_NULL(test, retire_slot_alloc_locked(t, &h2));

	KUNIT_EXPECT_EQ(test, retire_handle_slot(h2), retire_handle_slot(h1));
	KUNIT_EXPECT_EQ(test, retire_handle_gen(h2), retire_handle_gen(h1) + 1);
	KUNIT_EXPECT_NULL(test, retire_slot_lookup_locked(t, h1));
	KUNIT_EXPECT_NOT_NULL(test, retire_slot_lookup_locked(t, h2));
}

static void retire_slot_killed_handle_is_stale_before_release(struct kunit *test)
{
	struct retire_slot_table *t = test->priv;
	struct retire_slot *s;
	u64 h;

	s = retire_slot_alloc_locked(t, &h);
	KUNIT_ASSERT_NOT_NULL(test, s);
	retire_slot_kill_locked(t, s);

	KUNIT_EXPECT_NULL(test, retire_slot_lookup_locked(t, h));
	/* still busy: not handed out again until released */
	KUNIT_EXPECT_TRUE(test, s->busy);
	KUNIT_EXPECT_EQ(test, t->used, 1U);
}

static void retire_slot_wrap_retires_the_slot(struct kunit *test)
{
	struct retire_slot_table *t = test->priv;
	struct retire_slot *s;
	u64 h, h2;
	u32 i;

	s = retire_slot_alloc_locked(t, &h);
	KUNIT_ASSERT_NOT_NULL(test, s);
	/* fast-forward this incarnation to the last generation */
	s->gen = U32_MAX;
	h = retire_handle_make(RETIRE_KIND_REQ, retire_handle_slot(h), U32_MAX);
	KUNIT_ASSERT_PTR_EQ(test, retire_slot_lookup_locked(t, h), (void *)s);

	retire_slot_kill_locked(t, s);
	retire_slot_release_locked(t, s, retire_handle_slot(h));

	KUNIT_EXPECT_TRUE(test, s->exhausted);
	KUNIT_EXPECT_EQ(test, s->gen, U32_MAX);
	KUNIT_EXPECT_NULL(test, retire_slot_lookup_locked(t, h));
	/* every other slot is handed out, never the exhausted one */
	for (i = 1; i < RETIRE_SLOT_CHUNK; i++) {
		KUNIT_ASSERT_NOT_NULL(test, retire_slot_alloc_locked(t, &h2));
		KUNIT_EXPECT_NE(test, retire_handle_slot(h2),
				retire_handle_slot(h));
	}
	KUNIT_EXPECT_NULL(test, retire_slot_alloc_locked(t, &h2));
}

static void retire_slot_lookup_rejects_foreign_handles(struct kunit *test)
{
	struct retire_slot_table *t = test->priv;
	u64 h, token, beyond;

	KUNIT_ASSERT_NOT_NULL(test, retire_slot_alloc_locked(t, &h));

	KUNIT_EXPECT_NULL(test, retire_slot_lookup_locked(t, 0));
	token = retire_handle_make(RETIRE_KIND_TOKEN, retire_handle_slot(h),
				   retire_handle_gen(h));
	beyond = retire_handle_make(RETIRE_KIND_REQ, RETIRE_SLOT_MAX - 1, 1);

	KUNIT_EXPECT_NULL(test, retire_slot_lookup_locked(t, token));
	KUNIT_EXPECT_NULL(test, retire_slot_lookup_locked(t, beyond));
	KUNIT_EXPECT_NULL(test, retire_slot_lookup_locked(t, h + 1));
	KUNIT_EXPECT_NULL(test, retire_slot_lookup_locked(t, h - 1));
	KUNIT_EXPECT_NOT_NULL(test, retire_slot_lookup_locked(t, h));
}

static struct kunit_case retire_slot_cases[] = {
	KUNIT_CASE(retire_slot_first_generation_is_one),
	KUNIT_CASE(retire_slot_reuse_moves_generation),
	KUNIT_CASE(retire_slot_killed_handle_is_stale_before_release),
	KUNIT_CASE(retire_slot_wrap_retires_the_slot),
	KUNIT_CASE(retire_slot_lookup_rejects_foreign_handles),
	{}
};

static struct kunit_suite retire_slot_suite = {
	.name = "retire_slot",
	.init = retire_slot_test_init,
	.exit = retire_slot_test_exit,
	.test_cases = retire_slot_cases,
};

/* ---- retire_stale: a wrong generation never touches the live record --- */

/* every kind of wrong handle an event might carry for live request @h */
static void retire_stale_handles(u64 h, u64 out[4])
{
	out[0] = h - 1;				/* the previous generation */
	out[1] = h + 1;				/* a future generation */
	out[2] = retire_handle_make(RETIRE_KIND_TOKEN, retire_handle_slot(h),
				    retire_handle_gen(h));
	out[3] = retire_handle_make(RETIRE_KIND_REQ,
				    retire_handle_slot(h) + 1,
				    retire_handle_gen(h));
}

static struct retire_req *retire_fix_req(struct retire_fix *f, u64 h)
{
	return retire_slot_get(&f->ctx->reqs, retire_handle_slot(h));
}

/*
 * What a request's record says, without the list linkage the kernel owns
 * and read by the state that gives each field its meaning (what a request
 * needs before its terminal event and after it share memory): a raw
 * memcmp of the record is not a fact about it.
 */
struct retire_req_view {
	u64 handle, user_data, key, offset, len, result_len, checksum;
	u64 intent;
	s64 t_admit, t_terminal, watchdog_at;
	const void *buf;
	u32 dev_flags, tokens, outcome, job;
	s32 error;
	u8 state, pending;
	bool timed_out, cancel_requested, logical_done, terminal_read;
	bool consumed, quarantined, ack_already, ack_timed_out;
	bool deadline_armed, watchdog_armed, on_ready;
};

static void retire_req_view(struct retire_fix *f, u64 h,
			    struct retire_req_view *v)
{
	struct retire_req *r = retire_fix_req(f, h);
	bool live;

	memset(v, 0, sizeof(*v));
	spin_lock_irq(&f->ctx->lock);
	live = r->state == RETIRE_REQ_WAITING || r->state == RETIRE_REQ_ACTIVE;
	v->handle = r->handle;
	v->user_data = r->user_data;
	v->key = r->key;
	v->offset = r->offset;
	v->len = r->len;
	v->intent = r->intent;
	v->t_admit = ktime_to_ns(r->t_admit);
	v->buf = r->buf;
	v->dev_flags = r->dev_flags;
	v->outcome = r->outcome;
	v->state = r->state;
	v->pending = r->pending;
	v->timed_out = r->timed_out;
	v->cancel_requested = r->cancel_requested;
	v->logical_done = r->logical_done;
	v->terminal_read = r->terminal_read;
	v->consumed = r->consumed;
	v->quarantined = r->quarantined;
	v->ack_already = r->ack_already;
	v->ack_timed_out = r->ack_timed_out;
	v->on_ready = r->on_ready;
	if (live) {
		v->deadline_armed = r->dl;
		v->watchdog_armed = r->state == RETIRE_REQ_ACTIVE &&
				    hrtimer_is_queued(&f->ctx->timer);
		if (r->state == RETIRE_REQ_ACTIVE) {
			v->watchdog_at = ktime_to_ns(r->watch_at);
			v->job = r->job;
		}
	} else {
		v->t_terminal = ktime_to_ns(r->t_terminal);
		v->result_len = r->result_len;
		v->checksum = r->checksum;
		v->error = r->error;
		v->tokens = r->tokens;
	}
	spin_unlock_irq(&f->ctx->lock);
}

static void retire_stale_engine_event_changes_nothing(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	struct retire_req_view before, after;
	u64 h, bad[4];
	unsigned int i;

	h = retire_fix_submit(test, f->buf);
	retire_stale_handles(h, bad);
	retire_req_view(f, h, &before);

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		retire_fix_complete(f, bad[i]);

	retire_req_view(f, h, &after);
	KUNIT_EXPECT_MEMEQ(test, &after, &before, sizeof(before));
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_STALE_ENGINE), 4ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h)->state, RETIRE_REQ_ACTIVE);
	retire_fix_complete(f, h);
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h)->state,
			RETIRE_REQ_TERMINATED);
}

static void retire_stale_commands_change_nothing(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	struct retire_req_view before, after;
	u64 h, tok, bad[4];
	unsigned int i;

	h = retire_fix_submit(test, f->buf);
	retire_fix_complete(f, h);
	KUNIT_ASSERT_EQ(test, retire_fix_read(f, RETIRE_REC_TERMINAL), 1U);
	retire_stale_handles(h, bad);
	retire_req_view(f, h, &before);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ(test, retire_req_cancel(f->ctx, bad[i]), -ENOENT);
		KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, bad[i]), -ENOENT);
		KUNIT_EXPECT_EQ(test, retire_fix_borrow(f, bad[i], &tok), -ENOENT);
	}

	retire_req_view(f, h, &after);
	KUNIT_EXPECT_MEMEQ(test, &after, &before, sizeof(before));
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_STALE_CANCEL), 4ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_STALE_USER), 4ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_STALE_TOKEN), 4ULL);
	KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, h), 0);
}

static void retire_stale_after_retirement_changes_nothing(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	u64 old, h;

	old = retire_fix_submit(test, f->buf);
	retire_fix_complete(f, old);
	retire_fix_read(f, RETIRE_REC_TERMINAL);
	KUNIT_ASSERT_EQ(test, retire_req_retire(f->ctx, old), 0);
	KUNIT_ASSERT_EQ(test, retire_fix_read(f, RETIRE_REC_RETIRED), 1U);
	h = retire_fix_submit(test, f->buf);
	KUNIT_ASSERT_EQ(test, retire_handle_slot(h), retire_handle_slot(old));

	/* the old incarnation's late completion finds the new one live */
	retire_fix_complete(f, old);

	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h)->state, RETIRE_REQ_ACTIVE);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_STALE_ENGINE), 1ULL);
	KUNIT_EXPECT_EQ(test, retire_req_cancel(f->ctx, old), -ENOENT);
	retire_fix_complete(f, h);
}

static struct kunit_case retire_stale_cases[] = {
	KUNIT_CASE(retire_stale_engine_event_changes_nothing),
	KUNIT_CASE(retire_stale_commands_change_nothing),
	KUNIT_CASE(retire_stale_after_retirement_changes_nothing),
	{}
};

static struct kunit_suite retire_stale_suite = {
	.name = "retire_stale",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_stale_cases,
};

/* ---- retire_token: one-shot, handoff ----------------------------------- */

static void retire_token_needs_terminal_event(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	u64 h, tok;

	h = retire_fix_submit(test, f->buf);

	KUNIT_EXPECT_EQ(test, retire_fix_borrow(f, h, &tok), -EBUSY);
	retire_fix_complete(f, h);
	KUNIT_EXPECT_EQ(test, retire_fix_borrow(f, h, &tok), 0);
	KUNIT_EXPECT_EQ(test, retire_token_return(f->ctx, tok, 0), 0);
}

static void retire_token_second_return_is_a_protocol_error(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	u64 h, tok;

	h = retire_fix_submit(test, f->buf);
	retire_fix_complete(f, h);
	KUNIT_ASSERT_EQ(test, retire_fix_borrow(f, h, &tok), 0);

	KUNIT_EXPECT_EQ(test, retire_token_return(f->ctx, tok, -EIO), 0);
	KUNIT_EXPECT_EQ(test, retire_token_return(f->ctx, tok, 0), -ENOENT);

	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h)->tokens, 0U);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_TOKENS_OUT), 0ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_PROTOCOL_ERRORS), 1ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_CONSUMER_ERRORS), 1ULL);
}

static void retire_token_handoff_keeps_the_count(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	u64 h, t1, t2;

	h = retire_fix_submit(test, f->buf);
	retire_fix_complete(f, h);
	retire_fix_read(f, RETIRE_REC_TERMINAL);
	KUNIT_ASSERT_EQ(test, retire_fix_borrow(f, h, &t1), 0);
	KUNIT_ASSERT_EQ(test, retire_req_retire(f->ctx, h), 0);

	KUNIT_EXPECT_EQ(test, retire_fix_handoff(f, t1, &t2), 0);
	KUNIT_EXPECT_NE(test, t1, t2);
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h)->tokens, 1U);
	KUNIT_EXPECT_EQ(test, retire_fix_read(f, RETIRE_REC_RETIRED), 0U);
	KUNIT_EXPECT_EQ(test, retire_fix_handoff(f, t1, &t2), -ENOENT);
	KUNIT_EXPECT_EQ(test, retire_token_return(f->ctx, t2, 0), 0);
	KUNIT_EXPECT_EQ(test, retire_fix_read(f, RETIRE_REC_RETIRED), 1U);
}

static struct kunit_case retire_token_cases[] = {
	KUNIT_CASE(retire_token_needs_terminal_event),
	KUNIT_CASE(retire_token_second_return_is_a_protocol_error),
	KUNIT_CASE(retire_token_handoff_keeps_the_count),
	{}
};

static struct kunit_suite retire_token_suite = {
	.name = "retire_token",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_token_cases,
};

/*
 * ---- retire_order: exactly one retirement, whatever the order ----------
 *
 * The three legal orders of the target's terminal event, a cancel and the
 * owner's callback (read the TERMINAL record, then RETIRE), times the six
 * orders in which three consumers return their borrow tokens.
 */
enum retire_order_event { EV_TARGET, EV_CANCEL, EV_CALLBACK };

struct retire_order_case {
	enum retire_order_event ev[3];
	u8 release[3];
	char name[48];
};

static const enum retire_order_event retire_orders[3][3] = {
	{ EV_TARGET, EV_CANCEL, EV_CALLBACK },
	{ EV_TARGET, EV_CALLBACK, EV_CANCEL },
	{ EV_CANCEL, EV_TARGET, EV_CALLBACK },
};

static const u8 retire_releases[6][3] = {
	{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
	{ 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
};

static struct retire_order_case retire_order_cases[18];

static void retire_order_build(void)
{
	static const char *const ev[] = { "target", "cancel", "callback" };
	unsigned int o, r;

	for (o = 0; o < 3; o++)
		for (r = 0; r < 6; r++) {
			struct retire_order_case *c = &retire_order_cases[o * 6 + r];

			memcpy(c->ev, retire_orders[o], sizeof(c->ev));
			memcpy(c->release, retire_releases[r], sizeof(c->release));
			snprintf(c->name, sizeof(c->name), "%s_%s_%s_release_%c%c%c",
				 ev[c->ev[0]], ev[c->ev[1]], ev[c->ev[2]],
				 'a' + c->release[0], 'a' + c->release[1],
				 'a' + c->release[2]);
		}
}

static const void *retire_order_gen_params(const void *prev, char *desc)
{
	const struct retire_order_case *c = prev;

	if (!c) {
		retire_order_build();
		c = retire_order_cases;
	} else if (++c == retire_order_cases + ARRAY_SIZE(retire_order_cases)) {
		return NULL;
	}
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
	return c;
}

static void retire_order_retires_exactly_once(struct kunit *test)
{
	const struct retire_order_case *c = test->param_value;
	struct retire_fix *f = test->priv;
	unsigned int i, retired = 0;
	bool callback_done = false;
	u64 h, tok[3];
	u32 gen;

	h = retire_fix_submit(test, f->buf);
	gen = retire_fix_req(f, h)->slot.gen;

	for (i = 0; i < 3; i++) {
		switch (c->ev[i]) {
		case EV_TARGET:
			retire_fix_complete(f, h);
			/* three consumers borrow once the device is done */
			KUNIT_ASSERT_EQ(test, retire_fix_borrow(f, h, &tok[0]), 0);
			KUNIT_ASSERT_EQ(test, retire_fix_borrow(f, h, &tok[1]), 0);
			KUNIT_ASSERT_EQ(test, retire_fix_borrow(f, h, &tok[2]), 0);
			break;
		case EV_CANCEL:
			/* before the target: in flight; after: not found */
			KUNIT_EXPECT_EQ(test, retire_req_cancel(f->ctx, h),
					i == 0 ? -EALREADY : -ENOENT);
			break;
		case EV_CALLBACK:
			retire_fix_read(f, RETIRE_REC_TERMINAL);
			KUNIT_ASSERT_EQ(test, f->seen[RETIRE_REC_TERMINAL], 1U);
			KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, h), 0);
			callback_done = true;
			break;
		}
		retired += retire_fix_read(f, RETIRE_REC_RETIRED);
	}
	KUNIT_EXPECT_EQ(test, retired, 0U);
	KUNIT_ASSERT_TRUE(test, callback_done);

	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, retire_token_return(f->ctx,
							  tok[c->release[i]], 0), 0);
		retired += retire_fix_read(f, RETIRE_REC_RETIRED);
		/* only the last return retires */
		KUNIT_EXPECT_EQ(test, retired, i == 2 ? 1U : 0U);
	}
	/* a duplicate return changes nothing */
	KUNIT_EXPECT_EQ(test, retire_token_return(f->ctx, tok[0], 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, retire_fix_read(f, RETIRE_REC_RETIRED), 0U);
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h)->slot.gen, gen + 1);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_RETIRED), 1ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_OWNED_BYTES), 0ULL);
	KUNIT_EXPECT_EQ(test, retire_buf_unregister(f->ctx, f->buf), 0);
}

static struct kunit_case retire_order_cases_list[] = {
	KUNIT_CASE_PARAM(retire_order_retires_exactly_once,
			 retire_order_gen_params),
	{}
};

static struct kunit_suite retire_order_suite = {
	.name = "retire_order",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_order_cases_list,
};

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

static struct kunit_case retire_counters_cases[] = {
	KUNIT_CASE(retire_counters_balance_after_mixed_outcomes),
	KUNIT_CASE(retire_counters_hist_bucket_is_log2_us),
	{}
};

static struct kunit_suite retire_counters_suite = {
	.name = "retire_counters",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_counters_cases,
};

/*
 * ---- retire_bounds: each bound refuses atomically at exactly its limit --
 *
 * Set one limit to 2, fill to it, and the next attempt is refused with the
 * bound's own errno and counter while nothing else moves.
 */
enum retire_bound { B_UNRETIRED, B_RESERVED, B_WAITING, B_TOKENS, B_BUFFERS,
		    B_POOL };

struct retire_bound_case {
	enum retire_bound bound;
	int err;
	enum retire_stat counter;
	const char *name;
};

static const struct retire_bound_case retire_bound_cases[] = {
	{ B_UNRETIRED, -ENOSPC, RETIRE_ST_REFUSED_UNRETIRED, "max_unretired" },
	{ B_RESERVED, -EDQUOT, RETIRE_ST_REFUSED_RESERVED, "max_reserved_bytes" },
	{ B_WAITING, -ENOBUFS, RETIRE_ST_REFUSED_WAITING, "max_waiting" },
	{ B_TOKENS, -ETOOMANYREFS, RETIRE_ST_REFUSED_TOKENS, "max_tokens" },
	{ B_BUFFERS, -EMFILE, RETIRE_ST_REFUSED_BUFFERS, "max_buffers" },
	{ B_POOL, -ENOSPC, RETIRE_ST_REFUSED_POOL, "max_pool_bytes" },
};

static void retire_bound_case_desc(const struct retire_bound_case *c,
				   char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(retire_bound, retire_bound_cases, retire_bound_case_desc);

static int retire_fix_set(struct retire_fix *f, void (*edit)(struct retire_limits *l))
{
	struct retire_limits l = f->ctx->limits;

	edit(&l);
	return retire_ctx_set_limits(f->ctx, &l);
}

static void retire_fix_add_bufs(struct kunit *test, u64 *bufs, unsigned int n)
{
	struct retire_fix *f = test->priv;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct retire_buf_reg reg = { .len = PAGE_SIZE };

		KUNIT_ASSERT_EQ(test, retire_buf_register(f->ctx, &reg), 0);
		bufs[i] = reg.handle;
	}
}

static int retire_fix_try_submit(struct retire_fix *f, u64 buf, u64 len,
				 u64 key, u64 *handle)
{
	struct retire_sqe sqe = {
		.buf = buf, .len = len, .key = key,
		.dev_flags = RETIRE_DEV_WRITE,
	};
	int ret;

	mutex_lock(&f->ctx->mutex);
	ret = retire_submit_one(f->ctx, &sqe, ktime_get());
	mutex_unlock(&f->ctx->mutex);
	*handle = sqe.handle;
	return ret;
}

static void retire_edit_unretired(struct retire_limits *l) { l->max_unretired = 2; }
static void retire_edit_reserved(struct retire_limits *l) { l->max_reserved_bytes = 1024; }
static void retire_edit_waiting(struct retire_limits *l)
{
	l->max_active = 1;
	l->max_active_per_key = 1;
	l->max_waiting = 2;
}

static void retire_edit_tokens(struct retire_limits *l) { l->max_tokens = 2; }
static void retire_edit_buffers(struct retire_limits *l) { l->max_buffers = 2; }
static void retire_edit_pool(struct retire_limits *l) { l->max_pool_bytes = 2 * PAGE_SIZE; }

/* admit one request on each of @n buffers, on one key or a key each */
static void retire_fix_fill(struct kunit *test, const u64 *bufs,
			    unsigned int n, bool one_key, u64 *h)
{
	struct retire_fix *f = test->priv;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = retire_fix_try_submit(f, bufs[i], 512, one_key ? 0 : i,
					    &h[i]);
		KUNIT_ASSERT_EQ(test, ret, 0);
	}
}

static void retire_bound_refuses_at_exactly_its_limit(struct kunit *test)
{
	static void (*const edit[])(struct retire_limits *l) = {
		[B_UNRETIRED] = retire_edit_unretired,
		[B_RESERVED] = retire_edit_reserved,
		[B_WAITING] = retire_edit_waiting,
		[B_TOKENS] = retire_edit_tokens,
		[B_BUFFERS] = retire_edit_buffers,
		[B_POOL] = retire_edit_pool,
	};
	const struct retire_bound_case *c = test->param_value;
	struct retire_fix *f = test->priv;
	struct retire_ctx_stats before;
	struct retire_buf_reg reg = { .len = PAGE_SIZE };
	u64 bufs[4], h[4], tok[3];
	unsigned int i;
	int ret = 0;

	/* the fixture's buffer, plus four more: the pool case needs none */
	if (c->bound != B_BUFFERS && c->bound != B_POOL)
		retire_fix_add_bufs(test, bufs, 4);
	else
		KUNIT_ASSERT_EQ(test, retire_buf_unregister(f->ctx, f->buf), 0);
	KUNIT_ASSERT_EQ(test, retire_fix_set(f, edit[c->bound]), 0);

	/* fill to the limit: each of these is admitted */
	switch (c->bound) {
	case B_UNRETIRED:
	case B_RESERVED:
		retire_fix_fill(test, bufs, 2, false, h);
		break;
	case B_WAITING:
		/* one active, two waiting behind it */
		retire_fix_fill(test, bufs, 3, true, h);
		break;
	case B_TOKENS:
		h[0] = retire_fix_submit(test, bufs[0]);
		retire_fix_complete(f, h[0]);
		for (i = 0; i < 2; i++)
			KUNIT_ASSERT_EQ(test, retire_fix_borrow(f, h[0], &tok[i]), 0);
		break;
	case B_BUFFERS:
	case B_POOL:
		retire_fix_add_bufs(test, bufs, 2);
		/* both attached: the pool has nothing it may evict */
		retire_fix_fill(test, bufs, 2, false, h);
		break;
	}

	before = f->ctx->stats;
	switch (c->bound) {
	case B_UNRETIRED:
	case B_RESERVED:
		ret = retire_fix_try_submit(f, bufs[2], 512, 2, &h[2]);
		break;
	case B_WAITING:
		ret = retire_fix_try_submit(f, bufs[3], 512, 0, &h[3]);
		break;
	case B_TOKENS:
		ret = retire_fix_borrow(f, h[0], &tok[2]);
		break;
	case B_BUFFERS:
	case B_POOL:
		ret = retire_buf_register(f->ctx, &reg);
		break;
	}

	KUNIT_EXPECT_EQ(test, ret, c->err);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[c->counter],
			before.v[c->counter] + 1);
	/* the refusal moved its own counters and nothing else */
	before.v[c->counter]++;
	if (c->bound != B_TOKENS && c->bound != B_BUFFERS &&
	    c->bound != B_POOL)
		before.v[RETIRE_ST_REFUSED]++;
	KUNIT_EXPECT_MEMEQ(test, f->ctx->stats.v, before.v, sizeof(before.v));

	/* let the fixture's release retire everything */
	switch (c->bound) {
	case B_TOKENS:
		for (i = 0; i < 2; i++)
			retire_token_return(f->ctx, tok[i], 0);
		break;
	case B_WAITING:
		for (i = 0; i < 3; i++)
			retire_fix_complete(f, h[i]);
		break;
	default:
		for (i = 0; i < 2; i++)
			retire_fix_complete(f, h[i]);
		break;
	}
}

static struct kunit_case retire_bounds_cases[] = {
	KUNIT_CASE_PARAM(retire_bound_refuses_at_exactly_its_limit,
			 retire_bound_gen_params),
	{}
};

static struct kunit_suite retire_bounds_suite = {
	.name = "retire_bounds",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_bounds_cases,
};

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

static struct kunit_case retire_pool_cases[] = {
	KUNIT_CASE(retire_pool_refuses_without_evicting_then_evicts_unborrowed),
	{}
};

static struct kunit_suite retire_pool_suite = {
	.name = "retire_pool",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_pool_cases,
};

/* ---- retire_activation: a saturated key never blocks the next ----------- */

static void retire_activation_skips_saturated_key(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	u64 b[3], h[3];
	unsigned int i;

	retire_fix_add_bufs(test, b, 3);
	KUNIT_ASSERT_EQ(test, retire_fix_set(f, retire_edit_waiting), 0);
	f->ctx->limits.max_active = 2;	/* two slots, one per key */
	KUNIT_ASSERT_EQ(test, retire_fix_try_submit(f, b[0], 512, 1, &h[0]), 0);
	KUNIT_ASSERT_EQ(test, retire_fix_try_submit(f, b[1], 512, 1, &h[1]), 0);
	KUNIT_ASSERT_EQ(test, retire_fix_try_submit(f, b[2], 512, 2, &h[2]), 0);

	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h[0])->state, RETIRE_REQ_ACTIVE);
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h[1])->state, RETIRE_REQ_WAITING);
	/* key 2 went ahead of the older key-1 request */
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h[2])->state, RETIRE_REQ_ACTIVE);

	retire_fix_complete(f, h[0]);
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h[1])->state, RETIRE_REQ_ACTIVE);
	for (i = 1; i < 3; i++)
		retire_fix_complete(f, h[i]);
}

static struct kunit_case retire_activation_cases[] = {
	KUNIT_CASE(retire_activation_skips_saturated_key),
	{}
};

static struct kunit_suite retire_activation_suite = {
	.name = "retire_activation",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_activation_cases,
};

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
	struct retire_sqe bad = { .len = 0 };
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

/* ---- retire_predicate: the publication truth table ---------------------- */

struct retire_pred_case {
	bool cancelled, bumped, revoked;
	char name[40];
};

static struct retire_pred_case retire_pred_cases[8];

static const void *retire_pred_gen_params(const void *prev, char *desc)
{
	const struct retire_pred_case *c = prev;
	unsigned int i;

	if (!c) {
		for (i = 0; i < 8; i++) {
			struct retire_pred_case *p = &retire_pred_cases[i];

			p->cancelled = i & 1;
			p->bumped = i & 2;
			p->revoked = i & 4;
			snprintf(p->name, sizeof(p->name), "%s_%s_%s",
				 p->cancelled ? "cancelled" : "uncancelled",
				 p->bumped ? "epoch_bumped" : "same_epoch",
				 p->revoked ? "revoked" : "same_authority");
		}
		c = retire_pred_cases;
	} else if (++c == retire_pred_cases + ARRAY_SIZE(retire_pred_cases)) {
		return NULL;
	}
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
	return c;
}

static void retire_predicate_publishes_only_unchanged_intent(struct kunit *test)
{
	const struct retire_pred_case *c = test->param_value;
	struct retire_fix *f = test->priv;
	u64 h, epoch, auth;
	bool ok;

	h = retire_fix_submit(test, f->buf);
	if (c->cancelled)
		KUNIT_ASSERT_EQ(test, retire_req_cancel(f->ctx, h), -EALREADY);
	retire_fix_complete(f, h);
	if (c->bumped)
		KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_BUMP,
						       0, &epoch, &auth), 0);
	if (c->revoked)
		KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_REVOKE,
						       0, &epoch, &auth), 0);

	spin_lock_irq(&f->ctx->lock);
	ok = retire_req_publishable_locked(f->ctx, retire_fix_req(f, h));
	spin_unlock_irq(&f->ctx->lock);
	KUNIT_EXPECT_EQ(test, ok, !c->cancelled && !c->bumped && !c->revoked);

	/* and the delivered record says the same */
	retire_fix_read(f, RETIRE_REC_TERMINAL);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[ok ? RETIRE_ST_PUBLISHED :
					       RETIRE_ST_STALE_PUBLISHED], 1ULL);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_COMPLETED], 1ULL);
}

/*
 * A request compares the context's intent sequence with what moved after
 * its admission: a bump or a revocation before it, or a bump of another
 * key after it, leaves it publishable; a bump of its own key after it
 * does not, however many other changes came between.
 */
static void retire_predicate_judges_only_later_changes_of_its_key(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	u64 h, late, epoch, auth;
	bool ok_late;

	KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_BUMP, 0,
					       &epoch, &auth), 0);
	KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_REVOKE, 0,
					       &epoch, &auth), 0);
	h = retire_fix_submit(test, f->buf);
	KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_BUMP, 7,
					       &epoch, &auth), 0);
	retire_fix_complete(f, h);
	retire_fix_read(f, RETIRE_REC_TERMINAL);
	KUNIT_ASSERT_EQ(test, retire_req_retire(f->ctx, h), 0);
	retire_fix_read(f, RETIRE_REC_RETIRED);

	late = retire_fix_submit(test, f->buf);
	KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_BUMP, 7,
					       &epoch, &auth), 0);
	KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_BUMP, 0,
					       &epoch, &auth), 0);
	KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_BUMP, 7,
					       &epoch, &auth), 0);
	retire_fix_complete(f, late);

	spin_lock_irq(&f->ctx->lock);
	ok_late = retire_req_publishable_locked(f->ctx, retire_fix_req(f, late));
	spin_unlock_irq(&f->ctx->lock);
	KUNIT_EXPECT_FALSE(test, ok_late);
	KUNIT_EXPECT_EQ(test, epoch, 3ULL);
	retire_fix_read(f, RETIRE_REC_TERMINAL);
	/* @h was published, @late was not */
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_PUBLISHED], 1ULL);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_STALE_PUBLISHED], 1ULL);
}

static struct kunit_case retire_predicate_cases[] = {
	KUNIT_CASE_PARAM(retire_predicate_publishes_only_unchanged_intent,
			 retire_pred_gen_params),
	KUNIT_CASE(retire_predicate_judges_only_later_changes_of_its_key),
	{}
};

static struct kunit_suite retire_predicate_suite = {
	.name = "retire_predicate",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_predicate_cases,
};

/* ---- retire_quarantine: past the watchdog, until proven termination ---- */

/* quarantine @h: a 5 ms watchdog, and the test engine never reports */
static u64 retire_fix_quarantine(struct kunit *test, struct retire_fix *f)
{
	struct retire_limits l = f->ctx->limits;
	u64 h, other;

	l.watchdog_ns = 5 * NSEC_PER_MSEC;
	KUNIT_ASSERT_EQ(test, retire_ctx_set_limits(f->ctx, &l), 0);
	h = retire_fix_submit(test, f->buf);
	msleep(50);

	KUNIT_EXPECT_EQ(test, retire_fix_read(f, RETIRE_REC_QUARANTINE), 1U);
	KUNIT_EXPECT_TRUE(test, retire_fix_req(f, h)->quarantined);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_QUARANTINED_NOW], 1ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_try_submit(f, f->buf, 512, 0, &other),
			-ENOTRECOVERABLE);
	KUNIT_EXPECT_EQ(test, retire_buf_unregister(f->ctx, f->buf), -EBUSY);
	return h;
}

/* quarantine is over: the request retired and admission is open */
static void retire_fix_unquarantined(struct kunit *test, struct retire_fix *f)
{
	struct retire_engine_result reset = { .error = -ECANCELED, .reset = true };
	u64 other;

	KUNIT_EXPECT_EQ(test, retire_fix_read(f, RETIRE_REC_RETIRED), 1U);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_QUARANTINED_NOW], 0ULL);
	KUNIT_EXPECT_EQ(test, f->ctx->quarantined, 0U);
	KUNIT_ASSERT_EQ(test, retire_fix_try_submit(f, f->buf, 512, 0, &other), 0);
	retire_engine_complete(f->ctx, other, &reset);
}

static void retire_quarantine_ends_with_its_terminal_event(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	u64 h = retire_fix_quarantine(test, f);

	/* the device's own report proves termination: no reset needed */
	retire_fix_complete(f, h);
	KUNIT_EXPECT_FALSE(test, retire_fix_req(f, h)->quarantined);
	KUNIT_EXPECT_EQ(test, retire_fix_read(f, RETIRE_REC_TERMINAL), 1U);
	KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, h), 0);
	retire_fix_unquarantined(test, f);
}

static void retire_quarantine_holds_until_terminal_or_reset(struct kunit *test)
{
	struct retire_engine_result reset = { .error = -ECANCELED, .reset = true };
	struct retire_fix *f = test->priv;
	u64 h = retire_fix_quarantine(test, f);

	/* a reset's walk frees only what terminated: this did not */
	retire_ctx_unquarantine(f->ctx);
	KUNIT_EXPECT_TRUE(test, retire_fix_req(f, h)->quarantined);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_QUARANTINED_NOW], 1ULL);

	/* the reset's own terminal event does */
	retire_engine_complete(f->ctx, h, &reset);
	KUNIT_EXPECT_EQ(test, retire_fix_read(f, RETIRE_REC_TERMINAL), 1U);
	KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, h), 0);
	retire_fix_unquarantined(test, f);
}

static struct kunit_case retire_quarantine_cases[] = {
	KUNIT_CASE(retire_quarantine_ends_with_its_terminal_event),
	KUNIT_CASE(retire_quarantine_holds_until_terminal_or_reset),
	{}
};

static struct kunit_suite retire_quarantine_suite = {
	.name = "retire_quarantine",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_quarantine_cases,
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
	struct retire_sqe sqe = { .len = 4 * PAGE_SIZE,
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
	sqe.buf = reg.handle;
	mutex_lock(&ctx->mutex);
	ret = retire_submit_one(ctx, &sqe, ktime_get());
	mutex_unlock(&ctx->mutex);
	KUNIT_ASSERT_EQ(test, ret, 0);

	KUNIT_EXPECT_TRUE(test, retire_dirty_wait(ctx, RETIRE_ST_ENGINE_BYTES,
						  PAGE_SIZE));
	if (c->reset)
		retire_sim_reset();
	else
		KUNIT_EXPECT_GE(test, retire_req_cancel(ctx, sqe.handle),
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

/* ---- retire_netlink: the op table follows the spec -------------------- */

/* an op's maxattr, or -ENOENT for a command without an op */
static int retire_test_policy_max(u8 cmd)
{
	const struct genl_ops *op = retire_netlink_op(cmd);

	return op ? op->maxattr : -ENOENT;
}

static void retire_netlink_policies_cover_the_spec_sets(struct kunit *test)
{
	const struct genl_ops *op;
	int a;

	KUNIT_EXPECT_EQ(test, retire_test_policy_max(RETIRE_CMD_INFO_GET),
			RETIRE_A_INFO_MAX);
	KUNIT_EXPECT_EQ(test, retire_test_policy_max(RETIRE_CMD_STATS_GET),
			RETIRE_A_STATS_MAX);
	KUNIT_EXPECT_EQ(test, retire_test_policy_max(RETIRE_CMD_ENGINE_GET),
			RETIRE_A_ENGINE_MAX);
	KUNIT_EXPECT_EQ(test, retire_test_policy_max(RETIRE_CMD_ENGINE_SET),
			RETIRE_A_ENGINE_MAX);
	/* notifications are events, not requests */
	KUNIT_EXPECT_EQ(test, retire_test_policy_max(RETIRE_CMD_STALE_NTF),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, retire_test_policy_max(RETIRE_CMD_HEALTH_NTF),
			-ENOENT);
	/* engine-set takes every knob: a missing entry would be refused */
	op = retire_netlink_op(RETIRE_CMD_ENGINE_SET);
	KUNIT_ASSERT_NOT_NULL(test, op);
	KUNIT_EXPECT_EQ(test, op->policy[RETIRE_A_ENGINE_PAD].type, NLA_REJECT);
	for (a = RETIRE_A_ENGINE_PAD + 1; a <= RETIRE_A_ENGINE_MAX; a++)
		KUNIT_EXPECT_NE_MSG(test, op->policy[a].type, NLA_UNSPEC,
				    "engine attribute %d has no policy", a);
	/* every counter of struct retire_stats has its attribute */
	KUNIT_EXPECT_EQ(test, RETIRE_A_STATS_DEVICE_OUTSTANDING - RETIRE_A_STATS_ADMITTED + 1,
			RETIRE_ST_NR);
}

static struct kunit_case retire_netlink_cases[] = {
	KUNIT_CASE(retire_netlink_policies_cover_the_spec_sets),
	{}
};

static struct kunit_suite retire_netlink_suite = {
	.name = "retire_netlink",
	.test_cases = retire_netlink_cases,
};

kunit_test_suites(&retire_netlink_suite, &retire_info_suite, &retire_arg_suite, &retire_ctx_suite,
		  &retire_slot_suite, &retire_stale_suite, &retire_token_suite,
		  &retire_order_suite, &retire_counters_suite,
		  &retire_bounds_suite, &retire_pool_suite,
		  &retire_activation_suite, &retire_bucket_suite,
		  &retire_ordinal_suite, &retire_predicate_suite,
		  &retire_quarantine_suite, &retire_dirty_suite);

MODULE_DESCRIPTION("KUnit suites for retire");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
