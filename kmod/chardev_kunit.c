// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the ioctl arguments: what GET_INFO reports and how a growable
 * argument is copied in (chardev.c, main.c).
 */
#include "kunit_fixture.h"

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

kunit_test_suites(&retire_info_suite, &retire_arg_suite);
