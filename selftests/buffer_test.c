// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers: module-allocated pages and their mmap, pinned user memory and
 * its accounting (pinned_bytes, VmLck, the kernel's FOLL_PIN counters),
 * unregistration, and every bad input of RETIRE_IOC_BUF_REGISTER and
 * mmap with its documented errno and no change.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libretire.h"
#include "retire_test.h"

FIXTURE(buffer) {
	struct retire *r;
	int fd;
	struct rt_log log;
};

FIXTURE_SETUP(buffer)
{
	RT_OPEN_OR_SKIP(self->r);
	self->fd = retire_get_fd(self->r);
	rt_sim_neutral(self->r);
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
}

FIXTURE_TEARDOWN(buffer)
{
	rt_sim_neutral(self->r);
	rt_log_free(&self->log);
	retire_close_device(self->r);
}

/* the buffer state a refused command must leave alone */
#define EXPECT_BUFFERS_SAME(a, b) do {					\
	EXPECT_EQ((a).buffers, (b).buffers);				\
	EXPECT_EQ((a).pinned_bytes, (b).pinned_bytes);			\
	EXPECT_EQ((a).admitted, (b).admitted);				\
	EXPECT_EQ((a).physical_outstanding, (b).physical_outstanding);	\
	EXPECT_EQ((a).owned_bytes, (b).owned_bytes);			\
	EXPECT_EQ((a).pool_bytes, (b).pool_bytes);			\
	EXPECT_EQ((a).evicted, (b).evicted);				\
} while (0)

/* submit one request, wait for its terminal record, retire it */
static void run_one(struct __test_metadata *_metadata,
		    FIXTURE_DATA(buffer) *self, __u64 buf, __u64 off,
		    __u64 len, __u32 dev_flags, __u64 ud,
		    struct retire_cqe *term)
{
	struct retire_cqe c;
	__u64 h;

	ASSERT_EQ(0, rt_submit(self->r, buf, off, len, dev_flags, ud, 0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL,
			     term, 3000));
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
}

TEST_F(buffer, alloc_maps_zeroed_pages_and_unregister_frees)
{
	struct retire_stats st0, st;
	unsigned char *map;
	void *p;
	__u64 h;

	ASSERT_EQ(0, rt_stats(self->r, &st0));
	ASSERT_EQ(0, retire_alloc_buffer(self->r, 3 * RT_PAGE, &h, &p));
	map = p;
	EXPECT_EQ(RETIRE_KIND_BUF, RETIRE_HANDLE_KIND(h));
	EXPECT_EQ(-1, rt_check_fill(map, 3 * RT_PAGE, 0));
	memset(map, 0xab, 3 * RT_PAGE);

	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(st0.buffers + 1, st.buffers);
	/* module pages are not pinned user memory; they are the pool's */
	EXPECT_EQ(st0.pinned_bytes, st.pinned_bytes);
	EXPECT_EQ(st0.pool_bytes + 3 * RT_PAGE, st.pool_bytes);

	munmap(map, 3 * RT_PAGE);
	EXPECT_EQ(0, retire_unregister_buffer(self->r, h));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(st0.buffers, st.buffers);
	EXPECT_EQ(st0.pool_bytes, st.pool_bytes);

	/* once only: the handle is stale now */
	EXPECT_EQ(-ENOENT, retire_unregister_buffer(self->r, h));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(st0.stale_user + 1, st.stale_user);
	EXPECT_EQ(st0.buffers, st.buffers);
}

TEST_F(buffer, register_returns_offset_and_mappings_share_the_pages)
{
	struct retire_buf_reg reg;
	unsigned char *m1, *m2;
	struct retire_cqe c;
	size_t i;

	memset(&reg, 0, sizeof(reg));
	reg.len = 2 * RT_PAGE;
	ASSERT_EQ(0, retire_register_buffer(self->r, &reg));
	EXPECT_NE(0, reg.handle);
	EXPECT_EQ(RETIRE_KIND_BUF, RETIRE_HANDLE_KIND(reg.handle));
	EXPECT_NE(0, reg.mmap_offset);

	m1 = mmap(NULL, 2 * RT_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		  self->fd, reg.mmap_offset);
	ASSERT_NE(MAP_FAILED, m1);
	/* a shorter mapping is fine */
	m2 = mmap(NULL, RT_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		  reg.mmap_offset);
	ASSERT_NE(MAP_FAILED, m2);
	for (i = 0; i < 2 * RT_PAGE; i++)
		m1[i] = (unsigned char)(i * 13 + 1);
	EXPECT_EQ(0, memcmp(m1, m2, RT_PAGE));

	/* and the device reads the very pages the mappings show */
	run_one(_metadata, self, reg.handle, 0, 2 * RT_PAGE, RETIRE_DEV_READ,
		0x10, &c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(rt_fnv1a64(m1, 2 * RT_PAGE), c.checksum);
	run_one(_metadata, self, reg.handle, 100, 200, RETIRE_DEV_WRITE, 0x20,
		&c);
	EXPECT_EQ(-1, rt_check_pattern(m2 + 100, 200, 0x20));

	munmap(m1, 2 * RT_PAGE);
	munmap(m2, RT_PAGE);
	EXPECT_EQ(0, retire_unregister_buffer(self->r, reg.handle));
}

TEST_F(buffer, mmap_rejects_bad_offset_too_long_and_private)
{
	struct retire_buf_reg reg, gone;
	void *m;

	memset(&reg, 0, sizeof(reg));
	reg.len = 2 * RT_PAGE;
	ASSERT_EQ(0, retire_register_buffer(self->r, &reg));
	/* an offset that named a buffer once */
	memset(&gone, 0, sizeof(gone));
	gone.len = RT_PAGE;
	ASSERT_EQ(0, retire_register_buffer(self->r, &gone));
	ASSERT_EQ(0, retire_unregister_buffer(self->r, gone.handle));

	errno = 0;
	m = mmap(NULL, 3 * RT_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, reg.mmap_offset);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);

	errno = 0;
	m = mmap(NULL, RT_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd,
		 reg.mmap_offset);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);

	/* 0 is never an offset the module returns */
	errno = 0;
	m = mmap(NULL, RT_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);

	/* a buffer that is gone: a stale offset, like a stale handle */
	errno = 0;
	m = mmap(NULL, RT_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		 gone.mmap_offset);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(ENOENT, errno);

	/* the good one still maps */
	m = mmap(NULL, 2 * RT_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, reg.mmap_offset);
	ASSERT_NE(MAP_FAILED, m);
	munmap(m, 2 * RT_PAGE);
	EXPECT_EQ(0, retire_unregister_buffer(self->r, reg.handle));
}

TEST_F(buffer, pin_user_memory_accounts_pinned_bytes_vmpin_and_foll_pins)
{
	const size_t npages = 16, len = npages * RT_PAGE;
	struct retire_stats st0, st;
	long long pins0 = 0, pins;
	bool have_pins = rt_have_foll_pins();
	struct retire_cqe c;
	long lck0, lck;
	void *mem;
	__u64 h;

	ASSERT_EQ(0, posix_memalign(&mem, RT_PAGE, len));
	memset(mem, 0x11, len);
	ASSERT_EQ(0, rt_stats(self->r, &st0));
	lck0 = rt_vmpin_kb();
	ASSERT_LE(0, lck0);
	if (have_pins)
		pins0 = rt_foll_pins_base();
	else
		TH_LOG("no nr_foll_pin_* in /proc/vmstat: not checking them");

	ASSERT_EQ(0, retire_pin_buffer(self->r, mem, len, &h));
	EXPECT_EQ(RETIRE_KIND_BUF, RETIRE_HANDLE_KIND(h));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(st0.pinned_bytes + len, st.pinned_bytes);
	EXPECT_EQ(st0.buffers + 1, st.buffers);
	/* pinned user memory is not the pool's */
	EXPECT_EQ(st0.pool_bytes, st.pool_bytes);
	lck = rt_vmpin_kb();
	EXPECT_EQ(lck0 + (long)(len / 1024), lck);
	if (have_pins) {
		pins = rt_foll_pins_until(pins0 + (long long)npages, 2000);
		EXPECT_EQ(pins0 + (long long)npages, pins);
	}

	/* the device works on the caller's very pages */
	run_one(_metadata, self, h, RT_PAGE, RT_PAGE, RETIRE_DEV_WRITE, 0x42,
		&c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(-1, rt_check_pattern((char *)mem + RT_PAGE, RT_PAGE, 0x42));
	EXPECT_EQ(-1, rt_check_fill(mem, RT_PAGE, 0x11));
	EXPECT_EQ(-1, rt_check_fill((char *)mem + 2 * RT_PAGE,
				    len - 2 * RT_PAGE, 0x11));
	run_one(_metadata, self, h, 0, len, RETIRE_DEV_READ, 0x43, &c);
	EXPECT_EQ(rt_fnv1a64(mem, len), c.checksum);

	EXPECT_EQ(0, retire_unregister_buffer(self->r, h));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(st0.pinned_bytes, st.pinned_bytes);
	EXPECT_EQ(st0.buffers, st.buffers);
	EXPECT_EQ(lck0, rt_vmpin_kb());
	if (have_pins)
		EXPECT_GE(pins0, rt_foll_pins_back(pins0, 2000));
	free(mem);
}

TEST_F(buffer, unregister_attached_buffer_returns_ebusy_and_changes_nothing)
{
	struct retire_stats before, after;
	struct retire_cqe c;
	__u64 bufs[2], h;
	void *mem;
	int i;

	ASSERT_EQ(0, posix_memalign(&mem, RT_PAGE, 2 * RT_PAGE));
	memset(mem, 0, 2 * RT_PAGE);
	ASSERT_EQ(0, retire_alloc_buffer(self->r, 2 * RT_PAGE, &bufs[0], NULL));
	ASSERT_EQ(0, retire_pin_buffer(self->r, mem, 2 * RT_PAGE, &bufs[1]));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 300 * RT_MS));

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rt_submit(self->r, bufs[i], 0, 2 * RT_PAGE,
				       RETIRE_DEV_READ, 0x50 + i, 0, &h));
		ASSERT_EQ(0, rt_stats(self->r, &before));
		EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, bufs[i]));
		ASSERT_EQ(0, rt_stats(self->r, &after));
		EXPECT_BUFFERS_SAME(before, after);
		EXPECT_EQ(before.stale_user, after.stale_user);

		/* terminated is not enough: FREE only once retired */
		ASSERT_EQ(0, rt_wait(self->r, &self->log, h,
				     RETIRE_REC_TERMINAL, &c, 3000));
		EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, bufs[i]));
		ASSERT_EQ(0, retire_release_request(self->r, h));
		ASSERT_EQ(0, rt_wait(self->r, &self->log, h,
				     RETIRE_REC_RETIRED, &c, 1000));
		EXPECT_EQ(0, retire_unregister_buffer(self->r, bufs[i]));
	}
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(0, after.buffers);
	EXPECT_EQ(0, after.pinned_bytes);
	free(mem);
}

TEST_F(buffer, unregister_unknown_handles_returns_enoent)
{
	struct retire_stats before, after;
	struct retire_cqe c;
	__u64 buf, h;

	ASSERT_EQ(0, retire_alloc_buffer(self->r, RT_PAGE, &buf, NULL));
	run_one(_metadata, self, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 1, &c);
	ASSERT_EQ(0, rt_submit(self->r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 2,
			       0, &h));
	ASSERT_EQ(0, rt_stats(self->r, &before));
	EXPECT_EQ(-ENOENT, retire_unregister_buffer(self->r, 0));
	/* a request handle is not a buffer handle */
	EXPECT_EQ(-ENOENT, retire_unregister_buffer(self->r, h));
	/* another generation of the same slot, another slot */
	EXPECT_EQ(-ENOENT, retire_unregister_buffer(self->r,
						    buf ^ 0xffffffffULL));
	EXPECT_EQ(-ENOENT, retire_unregister_buffer(self->r,
						    buf ^ (1ULL << 32)));
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.stale_user + 4, after.stale_user);
	EXPECT_BUFFERS_SAME(before, after);

	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     3000));
	ASSERT_EQ(0, retire_release_request(self->r, h));
	EXPECT_EQ(0, retire_unregister_buffer(self->r, buf));
	EXPECT_EQ(-ENOENT, retire_unregister_buffer(self->r, buf));
}

/*
 * RETIRE_IOC_BUF_REGISTER with @reg must fail with @err and write nothing
 * back, and the context's buffers must not change.
 */
static void expect_register_fails(struct __test_metadata *_metadata,
				  FIXTURE_DATA(buffer) *self,
				  const struct retire_buf_reg *reg, int err,
				  const char *what)
{
	struct retire_stats before, after;
	struct retire_buf_reg copy = *reg;

	ASSERT_EQ(0, rt_stats(self->r, &before));
	EXPECT_EQ(err, rt_ioctl(self->fd, RETIRE_IOC_BUF_REGISTER, &copy)) {
		TH_LOG("%s was not refused with %d", what, err);
	}
	EXPECT_EQ(0, memcmp(&copy, reg, sizeof(copy))) {
		TH_LOG("%s: the refused structure was written to", what);
	}
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_BUFFERS_SAME(before, after);
}

TEST_F(buffer, register_rejects_bad_lengths)
{
	static const __u64 lens[] = { 0, 1, 100, RT_PAGE - 1, RT_PAGE + 1,
				      2 * RT_PAGE + 512 };
	struct retire_buf_reg reg;
	void *mem;
	unsigned int i;

	ASSERT_EQ(0, posix_memalign(&mem, RT_PAGE, 4 * RT_PAGE));
	memset(mem, 0, 4 * RT_PAGE);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		memset(&reg, 0, sizeof(reg));
		reg.len = lens[i];
		expect_register_fails(_metadata, self, &reg, -EINVAL,
				      "module buffer of a bad length");
		reg.flags = RETIRE_BUF_F_USER;
		reg.addr = (__u64)(uintptr_t)mem;
		expect_register_fails(_metadata, self, &reg, -EINVAL,
				      "user buffer of a bad length");
	}
	free(mem);
}

TEST_F(buffer, register_user_rejects_unaligned_addr)
{
	struct retire_buf_reg reg;
	char *mem;

	ASSERT_EQ(0, posix_memalign((void **)&mem, RT_PAGE, 4 * RT_PAGE));
	memset(mem, 0, 4 * RT_PAGE);
	memset(&reg, 0, sizeof(reg));
	reg.flags = RETIRE_BUF_F_USER;
	reg.len = RT_PAGE;
	reg.addr = (__u64)(uintptr_t)(mem + 1);
	expect_register_fails(_metadata, self, &reg, -EINVAL,
			      "addr + 1");
	reg.addr = (__u64)(uintptr_t)(mem + RT_PAGE / 2);
	expect_register_fails(_metadata, self, &reg, -EINVAL,
			      "addr + half a page");
	free(mem);
}

TEST_F(buffer, register_module_rejects_nonzero_addr)
{
	struct retire_buf_reg reg;
	void *mem;

	ASSERT_EQ(0, posix_memalign(&mem, RT_PAGE, RT_PAGE));
	memset(&reg, 0, sizeof(reg));
	reg.len = RT_PAGE;
	reg.addr = (__u64)(uintptr_t)mem;
	expect_register_fails(_metadata, self, &reg, -EINVAL,
			      "module buffer with an addr");
	reg.addr = RT_PAGE;
	expect_register_fails(_metadata, self, &reg, -EINVAL,
			      "module buffer with addr 4096");
	free(mem);
}

TEST_F(buffer, register_rejects_unknown_flags_and_reserved)
{
	struct retire_buf_reg good[2], reg;
	void *mem;
	int i;

	ASSERT_EQ(0, posix_memalign(&mem, RT_PAGE, RT_PAGE));
	memset(mem, 0, RT_PAGE);
	memset(good, 0, sizeof(good));
	good[0].len = RT_PAGE;
	good[1].len = RT_PAGE;
	good[1].flags = RETIRE_BUF_F_USER;
	good[1].addr = (__u64)(uintptr_t)mem;

	for (i = 0; i < 2; i++) {
		reg = good[i];
		reg.flags |= 1U << 1;
		expect_register_fails(_metadata, self, &reg, -EINVAL,
				      "flag bit 1");
		reg = good[i];
		reg.flags |= 1U << 31;
		expect_register_fails(_metadata, self, &reg, -EINVAL,
				      "flag bit 31");
		reg = good[i];
		reg.reserved[0] = 1;
		expect_register_fails(_metadata, self, &reg, -EINVAL,
				      "reserved[0]");
		reg = good[i];
		reg.reserved[1] = 1ULL << 63;
		expect_register_fails(_metadata, self, &reg, -EINVAL,
				      "reserved[1]");
		/* the same structure without the fault is accepted */
		reg = good[i];
		ASSERT_EQ(0, retire_register_buffer(self->r, &reg));
		EXPECT_EQ(0, retire_unregister_buffer(self->r, reg.handle));
	}
	free(mem);
}

TEST_F(buffer, register_user_unmapped_addr_returns_efault)
{
	struct retire_buf_reg reg;
	long long pins0 = 0;
	bool have_pins = rt_have_foll_pins();
	long lck0 = rt_vmpin_kb();
	char *p;

	if (have_pins)
		pins0 = rt_foll_pins_base();

	/* nothing mapped there at all */
	p = mmap(NULL, 4 * RT_PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p, 4 * RT_PAGE));
	memset(&reg, 0, sizeof(reg));
	reg.flags = RETIRE_BUF_F_USER;
	reg.addr = (__u64)(uintptr_t)p;
	reg.len = 4 * RT_PAGE;
	expect_register_fails(_metadata, self, &reg, -EFAULT,
			      "an unmapped range");

	/* the first half mapped: what was pinned is given back */
	p = mmap(NULL, 4 * RT_PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 1, 4 * RT_PAGE);
	ASSERT_EQ(0, munmap(p + 2 * RT_PAGE, 2 * RT_PAGE));
	reg.addr = (__u64)(uintptr_t)p;
	expect_register_fails(_metadata, self, &reg, -EFAULT,
			      "a half-mapped range");
	EXPECT_EQ(lck0, rt_vmpin_kb());
	if (have_pins)
		EXPECT_GE(pins0, rt_foll_pins_back(pins0, 2000));
	munmap(p, 2 * RT_PAGE);
}

TEST_F(buffer, register_beyond_max_buffers_returns_emfile)
{
	static const char *const counted[] = { "refused_buffers", NULL };
	struct retire_stats st, before;
	struct retire_info info;
	__u64 *h, extra;
	unsigned int n, i;
	const char *d;
	int ret = 0;

	ASSERT_EQ(0, retire_get_info(self->r, &info));
	if (info.caps.max_buffers > 4096)
		SKIP(return, "max_buffers %u is too many to register here",
		     info.caps.max_buffers);
	/* the pool's budget must not evict before max_buffers is reached */
	if (info.caps.max_pool_bytes < (__u64)(info.caps.max_buffers + 1) *
				       RT_PAGE)
		SKIP(return, "max_pool_bytes %llu is below max_buffers pages",
		     (unsigned long long)info.caps.max_pool_bytes);
	h = calloc(info.caps.max_buffers + 1, sizeof(*h));
	ASSERT_NE(NULL, h);

	/* a new context's limits are the caps */
	for (n = 0; n <= info.caps.max_buffers; n++) {
		if (n == info.caps.max_buffers)
			ASSERT_EQ(0, rt_stats(self->r, &before));
		ret = retire_alloc_buffer(self->r, RT_PAGE, &h[n], NULL);
		if (ret)
			break;
	}
	EXPECT_EQ(-EMFILE, ret);
	EXPECT_EQ(info.caps.max_buffers, n);
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(n, st.buffers);
	EXPECT_EQ((__u64)n * RT_PAGE, st.pool_bytes);
	if (n == info.caps.max_buffers) {
		/* counted, and nothing else changed */
		EXPECT_EQ(before.refused_buffers + 1, st.refused_buffers);
		d = rt_stats_diff(&before, &st, counted);
		EXPECT_TRUE(d == NULL) {
			TH_LOG("stats.%s changed", d);
		}
	}

	/* room again once one goes */
	if (n > 0) {
		EXPECT_EQ(0, retire_unregister_buffer(self->r, h[n - 1]));
		EXPECT_EQ(0, retire_alloc_buffer(self->r, RT_PAGE, &extra,
						 NULL));
		h[n - 1] = extra;
	}
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, retire_unregister_buffer(self->r, h[i]));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(0, st.buffers);
	free(h);
}

TEST_F(buffer, library_rejects_bad_lengths_and_null_arguments)
{
	void *map = NULL, *mem;
	__u64 h = 0;

	EXPECT_EQ(-EINVAL, retire_alloc_buffer(self->r, 0, &h, &map));
	EXPECT_EQ(-EINVAL, retire_alloc_buffer(self->r, 100, &h, &map));
	EXPECT_EQ(0, h);
	EXPECT_EQ(NULL, map);
	EXPECT_EQ(-EINVAL, retire_alloc_buffer(self->r, RT_PAGE, NULL, &map));
	ASSERT_EQ(0, posix_memalign(&mem, RT_PAGE, RT_PAGE));
	EXPECT_EQ(-EINVAL, retire_pin_buffer(self->r, NULL, RT_PAGE, &h));
	EXPECT_EQ(-EINVAL, retire_pin_buffer(self->r, mem, RT_PAGE + 1, &h));
	EXPECT_EQ(-EINVAL, retire_pin_buffer(self->r, (char *)mem + 8,
					     RT_PAGE, &h));
	EXPECT_EQ(0, h);
	EXPECT_EQ(-EINVAL, retire_unregister_buffer(NULL, 1));
	free(mem);
}

TEST_HARNESS_MAIN
