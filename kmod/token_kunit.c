// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: borrow tokens: one-shot returns and handoff (token.c).
 */
#include "kunit_fixture.h"

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

kunit_test_suites(&retire_token_suite);
