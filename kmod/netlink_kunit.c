// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the generic netlink family (netlink.c): its op table follows the spec.
 */
#include "kunit_fixture.h"

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

kunit_test_suites(&retire_netlink_suite);
