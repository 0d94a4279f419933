// SPDX-License-Identifier: GPL-2.0
/*
 * dma-buf export (RETIRE_FEAT_DMABUF): a module buffer's range as a
 * dma-buf holds the same bytes, through mmap() and the CPU access ioctls,
 * as the device and the buffer's own mapping see; while any reference to
 * it lives (an fd in another process, a mapping) the buffer is neither
 * unregistered nor evicted, and once the last goes it is the pool's
 * again; a dma-buf outlives its context; bad arguments are refused with a
 * clear errno and change nothing.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/dma-buf.h>

#include "kselftest_harness.h"
#include "libretire.h"
#include "retire_test.h"

FIXTURE(db) {
	struct retire *r;
	struct rt_log log;
};

FIXTURE_SETUP(db)
{
	RT_OPEN_OR_SKIP(self->r);
	RT_REQUIRE_FEATURES(self->r, RETIRE_FEAT_DMABUF,
			    "a module without dma-buf export");
	rt_sim_neutral(self->r);
}

FIXTURE_TEARDOWN(db)
{
	rt_log_free(&self->log);
	rt_close_neutral(self->r);
}

static int db_sync(int fd, __u64 flags)
{
	struct dma_buf_sync s = { .flags = flags };

	return ioctl(fd, DMA_BUF_IOCTL_SYNC, &s) ? -errno : 0;
}

/* unregister, retried while a released reference is still on its way */
static int db_unregister_within(struct retire *r, __u64 buf, unsigned int ms)
{
	int ret = -EBUSY;

	RT_POLL_UNTIL((ret = retire_unregister_buffer(r, buf)) != -EBUSY, ms,
		      10);
	return ret;
}

/*
 * The dma-buf of a range maps exactly the range's pages: bytes the CPU
 * writes through one mapping (inside DMA_BUF_IOCTL_SYNC) are in the other,
 * and what the device writes into the buffer is in the dma-buf.
 */
TEST_F(db, the_dma_buf_holds_the_buffers_bytes)
{
	const size_t len = 3 * RT_PAGE;
	unsigned char *map, *dm;
	struct retire_cqe c;
	__u64 buf, h;
	size_t i;
	int fd;

	ASSERT_EQ(0, retire_alloc_buffer(self->r, len, &buf, (void **)&map));
	for (i = 0; i < len; i++)
		map[i] = (unsigned char)(i / RT_PAGE + 1);
	fd = retire_export_buffer(self->r, buf, RT_PAGE, RT_PAGE);
	ASSERT_LE(0, fd);
	dm = mmap(NULL, RT_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, dm);
	ASSERT_EQ(0, db_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW));
	EXPECT_EQ(-1, rt_check_fill(dm, RT_PAGE, 2));
	memset(dm, 0x77, 16);
	ASSERT_EQ(0, db_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW));
	EXPECT_EQ(-1, rt_check_fill(map + RT_PAGE, 16, 0x77));
	EXPECT_EQ(-1, rt_check_fill(map, RT_PAGE, 1));
	EXPECT_EQ(-1, rt_check_fill(map + 2 * RT_PAGE, RT_PAGE, 3));
	/* beyond the range: no page to map */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * RT_PAGE, PROT_READ, MAP_SHARED,
				   fd, 0));

	/* the device writes the range: the dma-buf has it */
	ASSERT_EQ(0, rt_submit(self->r, buf, RT_PAGE, 100, RETIRE_DEV_WRITE,
			       0x40, 0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     5000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	ASSERT_EQ(0, db_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
	EXPECT_EQ(-1, rt_check_pattern(dm, 100, 0x40));
	ASSERT_EQ(0, db_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));
	ASSERT_EQ(0, retire_retire_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, NULL,
			     2000));
	munmap(dm, RT_PAGE);
	close(fd);
	EXPECT_EQ(0, db_unregister_within(self->r, buf, 1000));
}

/*
 * An exported buffer cannot be unregistered while another process holds
 * the dma-buf's fd, though its own fd is closed and its requests are
 * retired; killed, the process lets it go, and unregister succeeds.
 * A mapping holds it the same way.
 */
TEST_F(db, an_exported_buffer_stays_while_anyone_holds_the_dma_buf)
{
	struct retire_stats s0, s1;
	void *dm;
	__u64 buf;
	pid_t pid;
	int fd, st;

	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &buf, NULL));
	fd = retire_export_buffer(self->r, buf, 0, RT_PAGE);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		pause();
		_exit(0);
	}
	close(fd);
	ASSERT_EQ(0, rt_stats(self->r, &s0));
	EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, buf));
	ASSERT_EQ(0, rt_stats(self->r, &s1));
	EXPECT_EQ(s0.buffers, s1.buffers);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, db_unregister_within(self->r, buf, 2000));

	/* a mapping of the dma-buf holds it after its fd is closed */
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &buf, NULL));
	fd = retire_export_buffer(self->r, buf, 0, RT_PAGE);
	ASSERT_LE(0, fd);
	dm = mmap(NULL, RT_PAGE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, dm);
	close(fd);
	EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, buf));
	munmap(dm, RT_PAGE);
	EXPECT_EQ(0, db_unregister_within(self->r, buf, 1000));
}

/*
 * Eviction passes an exported buffer by: the pool's LRU no longer holds
 * it, so the next one is evicted in its place; dropped, it is the pool's
 * again, the last to be evicted.
 */
TEST_F(db, eviction_never_takes_an_exported_buffer)
{
	struct retire_limits l;
	struct retire_buf_reg reg;
	__u64 a, b, c;
	int fd;

	ASSERT_EQ(0, retire_get_limits(self->r, &l));
	l.max_pool_bytes = 2 * RT_PAGE;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &a, NULL));
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &b, NULL));
	fd = retire_export_buffer(self->r, a, 0, RT_PAGE);
	ASSERT_LE(0, fd);

	/* a is the oldest, but exported: b goes */
	memset(&reg, 0, sizeof(reg));
	reg.len = RT_PAGE;
	ASSERT_EQ(0, retire_register_buffer(self->r, &reg));
	c = reg.handle;
	EXPECT_EQ(1, reg.evicted);
	EXPECT_EQ(-ENOENT, retire_unregister_buffer(self->r, b));
	EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, a));

	/* nothing else to evict: refused, nothing taken */
	memset(&reg, 0, sizeof(reg));
	reg.len = 2 * RT_PAGE;
	EXPECT_EQ(-ENOSPC, retire_register_buffer(self->r, &reg));
	EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, a));

	/* dropped, a is the pool's again: newest, so c goes first */
	close(fd);
	memset(&reg, 0, sizeof(reg));
	reg.len = RT_PAGE;
	RT_POLL_UNTIL(retire_register_buffer(self->r, &reg) == 0, 1000, 10);
	EXPECT_EQ(1, reg.evicted);
	EXPECT_EQ(-ENOENT, retire_unregister_buffer(self->r, c));
	EXPECT_EQ(0, retire_unregister_buffer(self->r, a));
}

/*
 * A dma-buf outlives its context: after the device is closed its mapping
 * still holds the bytes, and when it goes the module's gauges come back
 * to where they were.
 */
TEST_F(db, a_dma_buf_outlives_its_context)
{
	struct retire_stats m0, m1;
	unsigned char *map, *dm;
	struct retire *q;
	__u64 buf;
	int fd;

	ASSERT_EQ(0, rt_settle_module(self->r, &m0, 2000));
	ASSERT_EQ(0, retire_open_device(&q, NULL, 0));
	ASSERT_EQ(0, retire_alloc_buffer(q, RT_PAGE, &buf, (void **)&map));
	memset(map, 0x21, RT_PAGE);
	fd = retire_export_buffer(q, buf, 0, RT_PAGE);
	ASSERT_LE(0, fd);
	munmap(map, RT_PAGE);
	retire_close_device(q);
	dm = mmap(NULL, RT_PAGE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, dm);
	EXPECT_EQ(-1, rt_check_fill(dm, RT_PAGE, 0x21));
	munmap(dm, RT_PAGE);
	close(fd);
	ASSERT_EQ(0, rt_settle_module(self->r, &m1, 5000));
	EXPECT_GAUGES_EQ(m0, m1);
}

/*
 * A pinned buffer, a range that is not page-aligned, empty or past the
 * buffer, flags or reserved bits are -EINVAL; a stale handle -ENOENT.
 * None leaves an export behind: the buffer unregisters at once.
 */
TEST_F(db, bad_exports_are_refused_and_change_nothing)
{
	struct retire_buf_export e;
	int dfd = retire_get_fd(self->r);
	__u64 buf, pinned;
	void *mem, *ro;

	ASSERT_EQ(0, rt_register(self->r, 2 * RT_PAGE, &buf, NULL));
	mem = mmap(NULL, RT_PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	ASSERT_EQ(0, retire_pin_buffer(self->r, mem, RT_PAGE, &pinned));

	EXPECT_EQ(-EINVAL, retire_export_buffer(self->r, pinned, 0, RT_PAGE));
	EXPECT_EQ(-EINVAL, retire_export_buffer(self->r, buf, 1, RT_PAGE));
	EXPECT_EQ(-EINVAL, retire_export_buffer(self->r, buf, 0, 100));
	EXPECT_EQ(-EINVAL, retire_export_buffer(self->r, buf, 0, 0));
	EXPECT_EQ(-EINVAL, retire_export_buffer(self->r, buf, RT_PAGE,
						2 * RT_PAGE));
	EXPECT_EQ(-EINVAL, retire_export_buffer(self->r, buf,
						~0ULL & ~(RT_PAGE - 1),
						2 * RT_PAGE));
	EXPECT_EQ(-ENOENT, retire_export_buffer(self->r, buf + 1, 0, RT_PAGE));
	memset(&e, 0, sizeof(e));
	e.buf = buf;
	e.len = RT_PAGE;
	e.flags = 1;
	EXPECT_EQ(-EINVAL, rt_ioctl(dfd, RETIRE_IOC_BUF_EXPORT, &e));
	e.flags = 0;
	e.reserved[1] = 1;
	EXPECT_EQ(-EINVAL, rt_ioctl(dfd, RETIRE_IOC_BUF_EXPORT, &e));
	/* a reply that cannot be written: no fd, no export */
	ro = mmap(NULL, RT_PAGE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	e.reserved[1] = 0;
	memcpy(ro, &e, sizeof(e));
	ASSERT_EQ(0, mprotect(ro, RT_PAGE, PROT_READ));
	EXPECT_EQ(-EFAULT, rt_ioctl(dfd, RETIRE_IOC_BUF_EXPORT, ro));
	munmap(ro, RT_PAGE);

	EXPECT_EQ(0, retire_unregister_buffer(self->r, buf));
	EXPECT_EQ(0, retire_unregister_buffer(self->r, pinned));
	munmap(mem, RT_PAGE);
}

TEST_HARNESS_MAIN
