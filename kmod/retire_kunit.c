// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for retire's internals. Built as retire_kunit.ko against a
 * kernel with KUnit; the suites run when it is loaded, after retire.ko.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/mman.h>
#include <linux/uaccess.h>

#include "main.h"
#include "buf.h"
#include "cancel.h"
#include "chardev.h"
#include "ctx.h"
#include "engine.h"
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

static void retire_test_start(struct retire_ctx *ctx, u32 idx,
			      const struct retire_engine_work *w)
{
	struct retire_test_job *job = retire_slot_get(&ctx->jobs, idx);

	job->started = true;
	job->handle = w->handle;
}

static bool retire_test_try_stop(struct retire_ctx *ctx, u32 idx)
{
	struct retire_test_job *job = retire_slot_get(&ctx->jobs, idx);

	if (retire_test_stop_ok)
		job->started = false;
	return retire_test_stop_ok;
}

static void retire_test_quiesce(struct retire_ctx *ctx, u32 idx)
{
}

static const struct retire_engine_ops retire_test_ops = {
	.start		= retire_test_start,
	.try_stop	= retire_test_try_stop,
	.quiesce	= retire_test_quiesce,
	.job_size	= sizeof(struct retire_test_job),
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
	f->ctx = retire_ctx_create(&retire_test_ops);
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
	ret = retire_submit_one(f->ctx, &sqe);
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
	ctx = retire_ctx_create(&retire_test_ops);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);

	KUNIT_EXPECT_MEMEQ(test, &ctx->limits, &caps, sizeof(caps));
	KUNIT_EXPECT_EQ(test, kref_read(&ctx->ref), 1U);
	retire_ctx_release(ctx);
}

static void retire_ctx_each_create_is_distinct(struct kunit *test)
{
	struct retire_ctx *a, *b;

	a = retire_ctx_create(&retire_test_ops);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	b = retire_ctx_create(&retire_test_ops);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);

	KUNIT_EXPECT_PTR_NE(test, a, b);
	retire_ctx_release(b);
	retire_ctx_release(a);
}

static struct kunit_case retire_ctx_cases[] = {
	KUNIT_CASE(retire_ctx_starts_at_module_caps),
	KUNIT_CASE(retire_ctx_each_create_is_distinct),
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

static void retire_stale_engine_event_changes_nothing(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	struct retire_req before;
	u64 h, bad[4];
	unsigned int i;

	h = retire_fix_submit(test, f->buf);
	retire_stale_handles(h, bad);
	before = *retire_fix_req(f, h);

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		retire_fix_complete(f, bad[i]);

	KUNIT_EXPECT_MEMEQ(test, retire_fix_req(f, h), &before, sizeof(before));
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_STALE_ENGINE), 4ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h)->state, RETIRE_REQ_ACTIVE);
	retire_fix_complete(f, h);
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h)->state,
			RETIRE_REQ_TERMINATED);
}

static void retire_stale_commands_change_nothing(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	struct retire_req before;
	u64 h, tok, bad[4];
	unsigned int i;

	h = retire_fix_submit(test, f->buf);
	retire_fix_complete(f, h);
	KUNIT_ASSERT_EQ(test, retire_fix_read(f, RETIRE_REC_TERMINAL), 1U);
	retire_stale_handles(h, bad);
	before = *retire_fix_req(f, h);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ(test, retire_req_cancel(f->ctx, bad[i]), -ENOENT);
		KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, bad[i]), -ENOENT);
		KUNIT_EXPECT_EQ(test, retire_fix_borrow(f, bad[i], &tok), -ENOENT);
	}

	KUNIT_EXPECT_MEMEQ(test, retire_fix_req(f, h), &before, sizeof(before));
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

	retire_fix_complete(f, a);
	retire_engine_complete(f->ctx, b, &failed);
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

kunit_test_suites(&retire_info_suite, &retire_arg_suite, &retire_ctx_suite,
		  &retire_slot_suite, &retire_stale_suite, &retire_token_suite,
		  &retire_order_suite, &retire_counters_suite);

MODULE_DESCRIPTION("KUnit suites for retire");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
