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

kunit_test_suites(&retire_slot_suite);
