// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the slot table: handles, generations, wrap (slot.c, slot.h).
 */
#include "kunit_fixture.h"

/* ---- retire_slot: handles, generations, wrap --------------------------- */

struct retire_slot_obj {
	struct retire_slot slot;
	u64 payload;
};

/* a table and the lock that protects it, as a context has */
struct retire_slot_fix {
	struct retire_slot_table t;
	spinlock_t lock;	/* protects t */
};

/*
 * The table's *_locked() functions, each under the table's lock: lockdep
 * checks that they are called with it held.
 */
static void *retire_slot_test_alloc(struct retire_slot_table *t, u64 *h)
{
	void *s;

	spin_lock(t->lock);
	s = retire_slot_alloc_locked(t, h);
	spin_unlock(t->lock);
	return s;
}

static void *retire_slot_test_lookup(struct retire_slot_table *t, u64 h)
{
	void *s;

	spin_lock(t->lock);
	s = retire_slot_lookup_locked(t, h);
	spin_unlock(t->lock);
	return s;
}

/* end the incarnation of @s, and give its slot back if @release */
static void retire_slot_test_kill(struct retire_slot_table *t,
				  struct retire_slot *s, u32 idx, bool release)
{
	spin_lock(t->lock);
	if (s->live)
		retire_slot_kill_locked(t, s);
	if (release && s->busy)
		retire_slot_release_locked(t, s, idx);
	spin_unlock(t->lock);
}

static int retire_slot_test_init(struct kunit *test)
{
	struct retire_slot_fix *sf;
	struct retire_slot_table *t;
	void *chunk;

	sf = kunit_kzalloc(test, sizeof(*sf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sf);
	spin_lock_init(&sf->lock);
	t = &sf->t;
	KUNIT_ASSERT_EQ(test, retire_slot_table_init(t, RETIRE_KIND_REQ,
						     sizeof(struct retire_slot_obj),
						     RETIRE_SLOT_CHUNK, NULL,
						     NULL, NULL, &sf->lock), 0);
	chunk = retire_slot_chunk_alloc(t);
	KUNIT_ASSERT_NOT_NULL(test, chunk);
	spin_lock(&sf->lock);
	retire_slot_chunk_add_locked(t, chunk);
	spin_unlock(&sf->lock);
	test->priv = t;
	return 0;
}

static void retire_slot_test_exit(struct kunit *test)
{
	struct retire_slot_table *t = test->priv;
	u32 i;

	/* drop whatever a case left busy, then free */
	for (i = 0; i < t->nr; i++)
		retire_slot_test_kill(t, retire_slot_get(t, i), i, true);
	retire_slot_table_destroy(t);
}

static void retire_slot_first_generation_is_one(struct kunit *test)
{
	struct retire_slot_table *t = test->priv;
	u64 h;

	KUNIT_ASSERT_NOT_NULL(test, retire_slot_test_alloc(t, &h));

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

	s = retire_slot_test_alloc(t, &h1);
	KUNIT_ASSERT_NOT_NULL(test, s);
	retire_slot_test_kill(t, s, retire_handle_slot(h1), true);
	KUNIT_ASSERT_NOT_NULL(test, retire_slot_test_alloc(t, &h2));

	KUNIT_EXPECT_EQ(test, retire_handle_slot(h2), retire_handle_slot(h1));
	KUNIT_EXPECT_EQ(test, retire_handle_gen(h2), retire_handle_gen(h1) + 1);
	KUNIT_EXPECT_NULL(test, retire_slot_test_lookup(t, h1));
	KUNIT_EXPECT_NOT_NULL(test, retire_slot_test_lookup(t, h2));
}

static void retire_slot_killed_handle_is_stale_before_release(struct kunit *test)
{
	struct retire_slot_table *t = test->priv;
	struct retire_slot *s;
	u64 h;

	s = retire_slot_test_alloc(t, &h);
	KUNIT_ASSERT_NOT_NULL(test, s);
	retire_slot_test_kill(t, s, retire_handle_slot(h), false);

	KUNIT_EXPECT_NULL(test, retire_slot_test_lookup(t, h));
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

	s = retire_slot_test_alloc(t, &h);
	KUNIT_ASSERT_NOT_NULL(test, s);
	/* fast-forward this incarnation to the last generation */
	s->gen = U32_MAX;
	h = retire_handle_make(RETIRE_KIND_REQ, retire_handle_slot(h), U32_MAX);
	KUNIT_ASSERT_PTR_EQ(test, retire_slot_test_lookup(t, h), (void *)s);

	retire_slot_test_kill(t, s, retire_handle_slot(h), true);

	KUNIT_EXPECT_TRUE(test, s->exhausted);
	KUNIT_EXPECT_EQ(test, s->gen, U32_MAX);
	KUNIT_EXPECT_NULL(test, retire_slot_test_lookup(t, h));
	/* every other slot is handed out, never the exhausted one */
	for (i = 1; i < RETIRE_SLOT_CHUNK; i++) {
		KUNIT_ASSERT_NOT_NULL(test, retire_slot_test_alloc(t, &h2));
		KUNIT_EXPECT_NE(test, retire_handle_slot(h2),
				retire_handle_slot(h));
	}
	KUNIT_EXPECT_NULL(test, retire_slot_test_alloc(t, &h2));
}

static void retire_slot_lookup_rejects_foreign_handles(struct kunit *test)
{
	struct retire_slot_table *t = test->priv;
	u64 h, token, beyond;

	KUNIT_ASSERT_NOT_NULL(test, retire_slot_test_alloc(t, &h));

	KUNIT_EXPECT_NULL(test, retire_slot_test_lookup(t, 0));
	token = retire_handle_make(RETIRE_KIND_TOKEN, retire_handle_slot(h),
				   retire_handle_gen(h));
	beyond = retire_handle_make(RETIRE_KIND_REQ, RETIRE_SLOT_MAX - 1, 1);

	KUNIT_EXPECT_NULL(test, retire_slot_test_lookup(t, token));
	KUNIT_EXPECT_NULL(test, retire_slot_test_lookup(t, beyond));
	KUNIT_EXPECT_NULL(test, retire_slot_test_lookup(t, h + 1));
	KUNIT_EXPECT_NULL(test, retire_slot_test_lookup(t, h - 1));
	KUNIT_EXPECT_NOT_NULL(test, retire_slot_test_lookup(t, h));
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

kunit_test_suites(&retire_slot_suite);
