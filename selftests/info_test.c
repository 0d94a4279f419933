// SPDX-License-Identifier: GPL-2.0
/*
 * RETIRE_IOC_GET_INFO and the netlink INFO_GET command: what they report,
 * and that every bad input gets its documented errno and changes nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "retire_test.h"

/* GET_INFO with the caller's structure of @size bytes */
#define RETIRE_IOC_GET_INFO_SZ(size) \
	_IOC(_IOC_READ | _IOC_WRITE, RETIRE_IOC_MAGIC, 0x00, (size))

FIXTURE(info) {
	struct retire *r;
	int fd;
};

FIXTURE_SETUP(info)
{
	RT_OPEN_OR_SKIP(self->r);
	self->fd = retire_get_fd(self->r);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(info)
{
	retire_close_device(self->r);
}

TEST_F(info, get_info_reports_abi_features_and_caps)
{
	struct retire_info info;

	ASSERT_EQ(0, retire_get_info(self->r, &info));
	EXPECT_EQ(RETIRE_ABI_VERSION, info.abi_version);
	EXPECT_EQ(0, info.features & ~RETIRE_FEAT_ALL);
	EXPECT_TRUE(info.features & RETIRE_FEAT_GENL);
	EXPECT_EQ(0, info.flags);
	EXPECT_LT(0, info.caps.max_unretired);
	EXPECT_LT(0, info.caps.max_active);
	EXPECT_LE(info.caps.max_active_per_key, info.caps.max_active);
	EXPECT_LE(info.caps.max_active, info.caps.max_unretired);
	EXPECT_LT(0, info.caps.max_waiting);
	EXPECT_LT(0, info.caps.max_tokens);
	EXPECT_LT(0, info.caps.max_buffers);
	EXPECT_LT(0, info.caps.max_reserved_bytes);
	EXPECT_LT(0, info.caps.max_pool_bytes);
	EXPECT_LT(0, info.caps.watchdog_ns);
}

TEST_F(info, get_info_advertises_admission)
{
	struct retire_info info;

	ASSERT_EQ(0, retire_get_info(self->r, &info));
	EXPECT_TRUE(info.features & RETIRE_FEAT_ADMISSION);
	EXPECT_TRUE(info.features & RETIRE_FEAT_REQUESTS);
	EXPECT_TRUE(info.features & RETIRE_FEAT_SIM);
}

TEST_F(info, get_info_is_the_same_for_every_context)
{
	struct retire_info a, b;
	struct retire *r2;

	ASSERT_EQ(0, retire_open_device(&r2, NULL, 0));
	ASSERT_EQ(0, retire_get_info(self->r, &a));
	ASSERT_EQ(0, retire_get_info(r2, &b));
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
	retire_close_device(r2);
}

TEST_F(info, get_info_rejects_nonzero_flags_and_writes_nothing)
{
	struct retire_info info, before;

	memset(&info, 0, sizeof(info));
	info.flags = 1;
	before = info;
	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_GET_INFO, &info));
	EXPECT_EQ(0, memcmp(&before, &info, sizeof(info)));

	info.flags = 1U << 31;
	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_GET_INFO, &info));
}

TEST_F(info, get_info_rejects_each_nonzero_reserved_word)
{
	struct retire_info info, before;
	unsigned int i;

	for (i = 0; i < sizeof(info.reserved) / sizeof(info.reserved[0]); i++) {
		memset(&info, 0, sizeof(info));
		info.reserved[i] = 1ULL << (i * 13);
		before = info;
		EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_GET_INFO,
					    &info)) {
			TH_LOG("reserved[%u] was accepted", i);
		}
		EXPECT_EQ(0, memcmp(&before, &info, sizeof(info)));
	}
}

TEST_F(info, get_info_ignores_output_fields_on_input)
{
	struct retire_info info;

	/* abi_version, features and caps are outputs: garbage in is fine */
	memset(&info, 0, sizeof(info));
	info.abi_version = 0xdead;
	info.features = ~0ULL;
	memset(&info.caps, 0xff, sizeof(info.caps));
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_GET_INFO, &info));
	EXPECT_EQ(RETIRE_ABI_VERSION, info.abi_version);
	EXPECT_EQ(0, info.features & ~RETIRE_FEAT_ALL);
}

TEST_F(info, get_info_rejects_struct_shorter_than_version_1)
{
	char buf[sizeof(struct retire_info)] = { 0 };

	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd,
				    RETIRE_IOC_GET_INFO_SZ(sizeof(buf) - 8),
				    buf));
	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_GET_INFO_SZ(0), buf));
}

TEST_F(info, get_info_accepts_longer_struct_with_zero_tail)
{
	struct {
		struct retire_info info;
		__u64 future[4];
	} big;

	memset(&big, 0, sizeof(big));
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_GET_INFO_SZ(sizeof(big)),
			      &big));
	EXPECT_EQ(RETIRE_ABI_VERSION, big.info.abi_version);
	/* the kernel writes back only what it knows */
	EXPECT_EQ(0, big.future[0] | big.future[1] | big.future[2] |
		     big.future[3]);
}

TEST_F(info, get_info_rejects_longer_struct_with_nonzero_tail)
{
	struct {
		struct retire_info info;
		__u64 future[4];
	} big;

	memset(&big, 0, sizeof(big));
	big.future[3] = 1;
	EXPECT_EQ(-E2BIG, rt_ioctl(self->fd,
				   RETIRE_IOC_GET_INFO_SZ(sizeof(big)), &big));
	EXPECT_EQ(0, big.info.abi_version);
}

TEST_F(info, get_info_bad_pointer_returns_efault)
{
	void *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	ASSERT_NE(MAP_FAILED, page);
	EXPECT_EQ(-EFAULT, rt_ioctl(self->fd, RETIRE_IOC_GET_INFO, NULL));
	EXPECT_EQ(-EFAULT, rt_ioctl(self->fd, RETIRE_IOC_GET_INFO, page));
	munmap(page, 4096);
}

TEST_F(info, unknown_commands_return_enotty)
{
	struct retire_info info;

	memset(&info, 0, sizeof(info));
	/* an unused number of ours */
	EXPECT_EQ(-ENOTTY, rt_ioctl(self->fd,
				    _IOWR(RETIRE_IOC_MAGIC, 0x7f,
					  struct retire_info), &info));
	/* GET_INFO's number with the wrong direction */
	EXPECT_EQ(-ENOTTY, rt_ioctl(self->fd,
				    _IOR(RETIRE_IOC_MAGIC, 0x00,
					 struct retire_info), &info));
	/* another driver's letter */
	EXPECT_EQ(-ENOTTY, rt_ioctl(self->fd,
				    _IOWR('u', 0x00, struct retire_info),
				    &info));
	EXPECT_EQ(-ENOTTY, rt_ioctl(self->fd, 0, &info));
}

TEST_F(info, device_is_not_seekable)
{
	errno = 0;
	EXPECT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
}

TEST(library_rejects_bad_arguments)
{
	struct retire_info info;
	struct retire *r;

	EXPECT_EQ(-EINVAL, retire_open_device(NULL, NULL, 0));
	EXPECT_EQ(-EINVAL, retire_open_device(&r, NULL, 1));
	EXPECT_EQ(-ENOENT, retire_open_device(&r, "/dev/retire-does-not-exist", 0));
	EXPECT_EQ(-EINVAL, retire_get_info(NULL, &info));
	EXPECT_EQ(-EINVAL, retire_get_fd(NULL));
}

TEST(netlink_info_matches_ioctl)
{
	struct retire_info info, nlinfo;
	struct retire_nl *nl;
	struct retire *r;

	RT_OPEN_OR_SKIP(r);
	ASSERT_EQ(0, retire_get_info(r, &info));
	retire_close_device(r);

	ASSERT_EQ(0, retire_open_netlink(&nl));
	EXPECT_LT(0, retire_get_family_id(nl));
	ASSERT_EQ(0, retire_nl_get_info(nl, &nlinfo));
	EXPECT_EQ(info.abi_version, nlinfo.abi_version);
	EXPECT_EQ(info.features, nlinfo.features);
	retire_close_netlink(nl);
}

TEST_HARNESS_MAIN
