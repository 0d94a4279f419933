// SPDX-License-Identifier: GPL-2.0
/*
 * The edu engine: QEMU's edu PCI device (scripts/vm-run.sh -e) driven by
 * retire.ko through the DMA API. A guest without the device skips; a
 * guest with the device and no edu engine fails.
 *
 * Each test names what it proves: the device is an engine with its DMA
 * mask; the bytes move by DMA as the device-access flags say (a READ's
 * checksum is of what reached the device); a buffer beyond the mask is
 * bounced and still right; a queued request cancels and a moving one
 * runs to its end; removal with work in flight ends every request with a
 * reset outcome, each retires, and a re-probed device is a new engine; a
 * transfer whose interrupt never comes is quarantined until removal; an
 * owner killed with transfers in flight leaves nothing behind; one user's
 * flood neither starves another's request nor gets it quarantined; an
 * imported dma-buf moves through its attachment's mapping.
 *
 * A transfer takes about 100 ms of the guest's virtual time: requests are
 * a few pages at most.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/dma-buf.h>

#include "kselftest_harness.h"
#include "retire_test.h"

#define EDU_MASK	((1ULL << 28) - 1)
#define EDU_CHUNK	2048	/* the most one transfer moves */
#define EDU_PARAM	"/sys/module/retire_edu/parameters/edu_drop_irq"

/* wait (at most @ms) for an edu engine to be listed */
static int edu_wait_engine(struct retire *r, struct retire_engine_info *out,
			   unsigned int ms)
{
	return RT_POLL_UNTIL(!rt_edu_engine(r, out), ms, 1) ? 0 : -ETIMEDOUT;
}

/* the transfers a request of [off, off + len) makes: per chunk within a
 * 2 KiB block, two for READ (in, and back out to be checksummed), two for
 * WRITE (the pattern in, then out), four for both */
static __u64 edu_transfers(__u64 off, __u64 len, __u32 flags)
{
	__u64 chunks = (off + len + EDU_CHUNK - 1) / EDU_CHUNK -
		       off / EDU_CHUNK;

	return chunks * (2 * !!(flags & RETIRE_DEV_READ) +
			 2 * !!(flags & RETIRE_DEV_WRITE));
}

FIXTURE(edu) {
	struct retire *r;
	struct retire_engine_info e;
	struct rt_log log;
};

FIXTURE_SETUP(edu)
{
	struct retire_info info;

	memset(&self->log, 0, sizeof(self->log));
	RT_OPEN_OR_SKIP(self->r);
	if (!rt_edu_present())
		SKIP(return, "no edu PCI device (vm-run.sh -e gives one)");
	/* a test before may have removed it and rescanned */
	ASSERT_EQ(0, edu_wait_engine(self->r, &self->e, 3000));
	ASSERT_EQ(0, retire_get_info(self->r, &info));
	ASSERT_TRUE(info.features & RETIRE_FEAT_EDU);
	ASSERT_EQ(0, retire_bind_engine(self->r, self->e.id));
}

FIXTURE_TEARDOWN(edu)
{
	rt_write_file(EDU_PARAM, "0");
	rt_log_free(&self->log);
	retire_close_device(self->r);
}

/* submit, wait for the terminal record, retire, wait for RETIRED */
static void edu_run(struct __test_metadata *_metadata,
		    FIXTURE_DATA(edu) * self, __u64 buf, __u64 off, __u64 len,
		    __u32 flags, __u64 user_data, struct retire_cqe *c)
{
	__u64 h;

	ASSERT_EQ(0, rt_submit(self->r, buf, off, len, flags, user_data, 0,
			       &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, c,
			     20000));
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, NULL,
			     2000));
}

/* the device is an engine: its DMA mask, its 4 KiB transfers, its address */
TEST_F(edu, the_device_is_an_engine_with_its_dma_mask)
{
	struct retire_engine_info now;
	__u32 id;

	EXPECT_EQ(RETIRE_ENGINE_F_DMA, self->e.flags);
	EXPECT_EQ(EDU_MASK, self->e.dma_mask);
	EXPECT_EQ(EDU_CHUNK, self->e.max_transfer);
	EXPECT_NE(0, self->e.id);
	EXPECT_NE(0, self->e.device[0]);
	ASSERT_EQ(0, retire_get_bound_engine(self->r, &id));
	EXPECT_EQ(self->e.id, id);
	/* listed before this context was bound to it: now one more */
	ASSERT_EQ(0, rt_edu_engine(self->r, &now));
	EXPECT_EQ(self->e.contexts + 1, now.contexts);
}

/*
 * WRITE puts the pattern in the range by DMA and nothing outside it; READ
 * reports the checksum of what reached the device and changes nothing;
 * both read each chunk, then write it. Every transfer is counted.
 */
TEST_F(edu, dma_moves_the_bytes_the_access_flags_allow)
{
	const size_t len = 3 * RT_PAGE;
	struct retire_engine_info after;
	unsigned char *map, *copy;
	struct retire_cqe c;
	__u64 buf, want;
	size_t i;

	copy = malloc(len);
	ASSERT_NE(NULL, copy);
	ASSERT_EQ(0, retire_alloc_buffer(self->r, len, &buf, (void **)&map));

	memset(map, 0x5a, len);
	edu_run(_metadata, self, buf, 100, 5000, RETIRE_DEV_WRITE, 0x1234567,
		&c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(5000, c.result_len);
	EXPECT_EQ(-1, rt_check_pattern(map + 100, 5000, 0x1234567));
	EXPECT_EQ(-1, rt_check_fill(map, 100, 0x5a));
	EXPECT_EQ(-1, rt_check_fill(map + 5100, len - 5100, 0x5a));

	for (i = 0; i < len; i++)
		map[i] = (unsigned char)(i * 7 + 3);
	memcpy(copy, map, len);
	edu_run(_metadata, self, buf, RT_PAGE + 17, 3000, RETIRE_DEV_READ,
		0x99, &c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(3000, c.result_len);
	EXPECT_EQ(rt_fnv1a64(copy + RT_PAGE + 17, 3000), c.checksum);
	EXPECT_EQ(0, memcmp(copy, map, len));

	edu_run(_metadata, self, buf, 8000, 4000,
		RETIRE_DEV_READ | RETIRE_DEV_WRITE, 0xabc, &c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(rt_fnv1a64(copy + 8000, 4000), c.checksum);
	EXPECT_EQ(-1, rt_check_pattern(map + 8000, 4000, 0xabc));
	EXPECT_EQ(0, memcmp(copy, map, 8000));
	EXPECT_EQ(0, memcmp(copy + 12000, map + 12000, len - 12000));

	want = edu_transfers(100, 5000, RETIRE_DEV_WRITE) +
	       edu_transfers(RT_PAGE + 17, 3000, RETIRE_DEV_READ) +
	       edu_transfers(8000, 4000, RETIRE_DEV_READ | RETIRE_DEV_WRITE);
	ASSERT_EQ(0, rt_edu_engine(self->r, &after));
	EXPECT_EQ(self->e.transfers + want, after.transfers);
	TH_LOG("%llu transfers by DMA, %llu of them bounced",
	       (unsigned long long)(after.transfers - self->e.transfers),
	       (unsigned long long)(after.bounced - self->e.bounced));
	EXPECT_EQ(0, retire_unregister_buffer(self->r, buf));
	free(copy);
}

/* the physical address of the page at @p (root reads PFNs), or 0 */
static __u64 phys_of(void *p)
{
	__u64 ent = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &ent, sizeof(ent),
		  (unsigned long)p / RT_PAGE * sizeof(ent)) != sizeof(ent))
		ent = 0;
	close(fd);
	if (!(ent & (1ULL << 63)))
		return 0;
	return (ent & ((1ULL << 55) - 1)) * RT_PAGE;
}

#define EDU_AREA	(16 << 20)

/* a page of @m[0..EDU_AREA) beyond the DMA mask, or NULL */
static unsigned char *edu_high_page(unsigned char *m)
{
	size_t i;

	for (i = 0; i < EDU_AREA; i += RT_PAGE)
		if (phys_of(m + i) > EDU_MASK)
			return m + i;
	return NULL;
}

/*
 * A page of user memory beyond the 28-bit mask cannot be reached by the
 * device: the DMA API bounces it (swiotlb), both ways, and the bytes are
 * still right.
 */
TEST_F(edu, a_buffer_beyond_the_dma_mask_is_bounced_both_ways)
{
	const size_t area = EDU_AREA;
	static unsigned char want[RT_PAGE];
	struct retire_engine_info after;
	unsigned char *m, *page;
	struct retire_cqe c;
	__u64 buf, phys;
	size_t i;

	m = mmap(NULL, area, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	page = edu_high_page(m);
	if (!page)
		SKIP(goto out, "no page of 16 MiB lies beyond the DMA mask");
	for (i = 0; i < RT_PAGE; i++)
		page[i] = (unsigned char)(i * 13 + 1);
	ASSERT_EQ(0, retire_pin_buffer(self->r, page, RT_PAGE, &buf));
	/* pinned: the page cannot move now */
	phys = phys_of(page);
	ASSERT_LT(EDU_MASK, phys);

	edu_run(_metadata, self, buf, 0, RT_PAGE,
		RETIRE_DEV_READ | RETIRE_DEV_WRITE, 0x77, &c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(RT_PAGE, c.result_len);
	for (i = 0; i < RT_PAGE; i++)
		want[i] = (unsigned char)(i * 13 + 1);
	EXPECT_EQ(rt_fnv1a64(want, RT_PAGE), c.checksum);
	EXPECT_EQ(-1, rt_check_pattern(page, RT_PAGE, 0x77));
	ASSERT_EQ(0, rt_edu_engine(self->r, &after));
	EXPECT_EQ(self->e.transfers +
		  edu_transfers(0, RT_PAGE, RETIRE_DEV_READ | RETIRE_DEV_WRITE),
		  after.transfers);
	/* the buffer's transfers, in and out of each chunk; not the scratch's */
	EXPECT_EQ(self->e.bounced + 2 * RT_PAGE / EDU_CHUNK, after.bounced);
	TH_LOG("page at %#llx bounced: %llu", (unsigned long long)phys,
	       (unsigned long long)(after.bounced - self->e.bounced));
	EXPECT_EQ(0, retire_unregister_buffer(self->r, buf));
out:
	munmap(m, area);
}

/*
 * The out-fence signals only after the request's last dma_unmap: a
 * bounced DMA_FROM_DEVICE transfer's bytes reach the buffer at the unmap,
 * so a fence signalled before it would let a waiter, who reads no record,
 * find the pattern missing.
 */
TEST_F(edu, the_out_fence_signals_after_the_last_unmap)
{
	struct pollfd p = { .events = POLLIN };
	struct retire_info info;
	unsigned char *m, *page;
	struct retire_sqe sqe;
	__u64 buf;

	ASSERT_EQ(0, retire_get_info(self->r, &info));
	if (!(info.features & RETIRE_FEAT_FENCES))
		SKIP(return, "a module without fences");
	m = mmap(NULL, EDU_AREA, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	page = edu_high_page(m);
	if (!page)
		SKIP(goto out, "no page of 16 MiB lies beyond the DMA mask");
	memset(page, 0, RT_PAGE);
	ASSERT_EQ(0, retire_pin_buffer(self->r, page, RT_PAGE, &buf));
	retire_prep_request(&sqe, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 0x3c);
	sqe.flags = RETIRE_SQE_F_OUT_FENCE;
	ASSERT_EQ(1, retire_submit_requests(self->r, &sqe, 1));
	p.fd = sqe.result;
	ASSERT_LE(0, p.fd);
	ASSERT_EQ(1, poll(&p, 1, 20000));
	/* no record read: the fence alone says the device is done */
	EXPECT_EQ(-1, rt_check_pattern(page, RT_PAGE, 0x3c));
	close(p.fd);
	ASSERT_EQ(0, rt_wait(self->r, &self->log, sqe.handle,
			     RETIRE_REC_TERMINAL, NULL, 20000));
	ASSERT_EQ(0, retire_release_request(self->r, sqe.handle));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, sqe.handle,
			     RETIRE_REC_RETIRED, NULL, 2000));
	EXPECT_EQ(0, retire_unregister_buffer(self->r, buf));
out:
	munmap(m, EDU_AREA);
}

static int edu_sync(int fd, __u64 flags)
{
	struct dma_buf_sync s = { .flags = flags };

	return ioctl(fd, DMA_BUF_IOCTL_SYNC, &s) ? -errno : 0;
}

/*
 * An imported dma-buf (another context's export) is attached to the edu
 * device and mapped once: the device reads the exporter's bytes and
 * writes into them by DMA, through the attachment's addresses, and the
 * exporter's CPU-access bracket brings them back (bounced or not). Bound
 * to another engine since, the context may not send the import there
 * (-EXDEV: its mapping is edu's); bound back, it may.
 */
TEST_F(edu, an_imported_dma_buf_is_moved_through_its_attachment)
{
	const size_t len = 2 * RT_PAGE;
	struct retire_engine_info sim, after;
	struct retire_info info;
	unsigned char *map;
	struct retire_cqe c;
	__u64 xbuf, buf, sum, h;
	struct retire *x;
	size_t i;
	int fd;

	ASSERT_EQ(0, retire_get_info(self->r, &info));
	if (!(info.features & RETIRE_FEAT_DMABUF_IMPORT))
		SKIP(return, "a module without dma-buf import");
	ASSERT_EQ(0, retire_open_device(&x, NULL, 0));
	ASSERT_EQ(0, retire_alloc_buffer(x, len, &xbuf, (void **)&map));
	for (i = 0; i < len; i++)
		map[i] = (unsigned char)(i * 5 + 2);
	fd = retire_export_buffer(x, xbuf, 0, len);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, retire_import_buffer(self->r, fd, &buf, NULL));
	sum = rt_fnv1a64(map + RT_PAGE + 8, 3000);

	edu_run(_metadata, self, buf, RT_PAGE + 8, 3000,
		RETIRE_DEV_READ | RETIRE_DEV_WRITE, 0x6d, &c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(3000, c.result_len);
	EXPECT_EQ(sum, c.checksum);
	ASSERT_EQ(0, edu_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
	EXPECT_EQ(-1, rt_check_pattern(map + RT_PAGE + 8, 3000, 0x6d));
	EXPECT_EQ((unsigned char)((RT_PAGE + 7) * 5 + 2), map[RT_PAGE + 7]);
	ASSERT_EQ(0, edu_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));
	ASSERT_EQ(0, rt_edu_engine(self->r, &after));
	EXPECT_EQ(self->e.transfers +
		  edu_transfers(RT_PAGE + 8, 3000,
				RETIRE_DEV_READ | RETIRE_DEV_WRITE),
		  after.transfers);
	/* nothing mapped per transfer: nothing bounced per transfer */
	EXPECT_EQ(self->e.bounced, after.bounced);

	ASSERT_EQ(0, rt_engine_named(self->r, "sim", &sim));
	ASSERT_EQ(0, retire_bind_engine(self->r, sim.id));
	EXPECT_EQ(-EXDEV, rt_submit(self->r, buf, 0, 64, RETIRE_DEV_WRITE, 1,
				    0, &h));
	ASSERT_EQ(0, retire_bind_engine(self->r, self->e.id));
	edu_run(_metadata, self, buf, 0, 64, RETIRE_DEV_WRITE, 0x21, &c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	ASSERT_EQ(0, edu_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
	EXPECT_EQ(-1, rt_check_pattern(map, 64, 0x21));
	ASSERT_EQ(0, edu_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));

	EXPECT_EQ(0, retire_unregister_buffer(self->r, buf));
	close(fd);
	munmap(map, len);
	retire_close_device(x);
}

/*
 * A buffer's pages have one DMA mapping at a time. While an import of its
 * own export is attached to the device (mapped once), a request on the
 * buffer itself, which edu would map per transfer, is refused (-EBUSY,
 * counted) and the buffer stays free; the import moves its bytes. Once
 * the import is unregistered, the buffer's own request runs and reads
 * what the import wrote. The DMA API's debug code (where the kernel has
 * it) reports nothing: on edu, whose mappings are bounced, two mappings
 * of a page would each write their copy back over the other's.
 */
TEST_F(edu, a_buffer_is_mapped_for_its_attachment_or_its_transfers)
{
	const size_t len = 2 * RT_PAGE;
	long e0 = rt_dma_api_errors();
	struct retire_stats s0, s1;
	struct retire_info info;
	unsigned char *map;
	struct retire_cqe c;
	__u64 pbuf, ibuf, sum, h;
	size_t i;
	int fd;

	ASSERT_EQ(0, retire_get_info(self->r, &info));
	if (!(info.features & RETIRE_FEAT_DMABUF_IMPORT))
		SKIP(return, "a module without dma-buf import");
	ASSERT_EQ(0, retire_alloc_buffer(self->r, len, &pbuf, (void **)&map));
	for (i = 0; i < len; i++)
		map[i] = (unsigned char)(i * 3 + 1);
	fd = retire_export_buffer(self->r, pbuf, 0, len);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, retire_import_buffer(self->r, fd, &ibuf, NULL));

	ASSERT_EQ(0, rt_stats(self->r, &s0));
	EXPECT_EQ(-EBUSY, rt_submit(self->r, pbuf, 0, 2000,
				    RETIRE_DEV_READ | RETIRE_DEV_WRITE, 1, 0,
				    &h));
	ASSERT_EQ(0, rt_stats(self->r, &s1));
	EXPECT_EQ(s0.refused + 1, s1.refused);
	sum = rt_fnv1a64(map + 16, 3000);
	edu_run(_metadata, self, ibuf, 16, 3000,
		RETIRE_DEV_READ | RETIRE_DEV_WRITE, 0x4a, &c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(sum, c.checksum);

	EXPECT_EQ(0, retire_unregister_buffer(self->r, ibuf));
	sum = rt_fnv1a64(map, 2000);
	edu_run(_metadata, self, pbuf, 0, 2000,
		RETIRE_DEV_READ | RETIRE_DEV_WRITE, 0x4b, &c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(sum, c.checksum);
	EXPECT_EQ(-1, rt_check_pattern(map, 2000, 0x4b));
	EXPECT_EQ(-1, rt_check_pattern(map + 2000, 1016, 0x4a + 1984));
	close(fd);
	munmap(map, len);
	if (e0 >= 0)
		EXPECT_EQ(e0, rt_dma_api_errors());
}

/*
 * edu cannot abort a transfer: a request the device has begun runs to its
 * end (-EALREADY; its success is then stale, never published); one still
 * queued behind it cancels (0) and is never moved: no transfer of its own
 * is made.
 */
TEST_F(edu, a_queued_request_cancels_and_a_moving_one_runs_on)
{
	struct retire_engine_info after;
	struct retire_cqe ca, cb;
	__u64 a, b, ha, hb;

	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &a, NULL));
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &b, NULL));
	ASSERT_EQ(0, rt_submit(self->r, a, 0, RT_PAGE, RETIRE_DEV_WRITE, 1, 0,
			       &ha));
	ASSERT_EQ(0, rt_submit(self->r, b, 0, RT_PAGE, RETIRE_DEV_WRITE, 2, 0,
			       &hb));
	EXPECT_EQ(0, retire_cancel_request(self->r, hb));
	/* the first is the device's within a transfer's time */
	rt_msleep(50);
	EXPECT_EQ(-EALREADY, retire_cancel_request(self->r, ha));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, hb, RETIRE_REC_TERMINAL,
			     &cb, 5000));
	EXPECT_EQ(RETIRE_OUTCOME_CANCELLED, cb.outcome);
	ASSERT_EQ(0, rt_wait(self->r, &self->log, ha, RETIRE_REC_TERMINAL,
			     &ca, 5000));
	/* it ran to its end; the cancel made its result unpublishable */
	EXPECT_EQ(RETIRE_OUTCOME_STALE, ca.outcome);
	ASSERT_EQ(0, rt_edu_engine(self->r, &after));
	EXPECT_EQ(self->e.transfers +
		  edu_transfers(0, RT_PAGE, RETIRE_DEV_WRITE), after.transfers);
	EXPECT_EQ(0, retire_release_request(self->r, ha));
	EXPECT_EQ(0, retire_release_request(self->r, hb));
}

/* remove the device behind @e; 0 once its engine is no longer listed */
static int edu_remove(struct retire *r, const struct retire_engine_info *e)
{
	struct retire_engine_info now;
	char path[128];
	int ret;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove",
		 e->device);
	ret = rt_write_file(path, "1");
	if (ret)
		return ret;
	if (!rt_edu_engine(r, &now) && now.id == e->id)
		return -EBUSY;
	return 0;
}

/*
 * Removal with work in flight: the transfer under way finishes or loses
 * the bus, and every request, moving or queued, ends with a reset outcome
 * (failed, -ECANCELED) and retires; the context admits nothing for the
 * gone engine (-ENODEV) nor binds to it again (-ENOENT). A rescan probes
 * the device again as a new engine, and it works.
 */
TEST_F(edu, removal_with_work_in_flight_resets_and_a_rescan_is_a_new_engine)
{
	struct retire_engine_info again;
	struct retire_cqe c;
	__u64 buf[3], h[3], hx;
	int i;

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &buf[i], NULL));
		ASSERT_EQ(0, rt_submit(self->r, buf[i], 0, RT_PAGE,
				       RETIRE_DEV_READ | RETIRE_DEV_WRITE,
				       i, 0, &h[i]));
	}
	rt_msleep(50);
	ASSERT_EQ(0, edu_remove(self->r, &self->e));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, rt_wait(self->r, &self->log, h[i],
				     RETIRE_REC_TERMINAL, &c, 5000));
		EXPECT_EQ(RETIRE_OUTCOME_FAILED, c.outcome);
		EXPECT_EQ(-ECANCELED, c.error);
		EXPECT_EQ(0, retire_release_request(self->r, h[i]));
		EXPECT_EQ(0, rt_wait(self->r, &self->log, h[i],
				     RETIRE_REC_RETIRED, NULL, 2000));
	}
	EXPECT_EQ(-ENODEV, rt_submit(self->r, buf[0], 0, RT_PAGE,
				     RETIRE_DEV_WRITE, 9, 0, &hx));
	EXPECT_EQ(-ENOENT, retire_bind_engine(self->r, self->e.id));

	ASSERT_EQ(0, rt_write_file("/sys/bus/pci/rescan", "1"));
	ASSERT_EQ(0, edu_wait_engine(self->r, &again, 3000));
	EXPECT_LT(self->e.id, again.id);
	EXPECT_STREQ(self->e.device, again.device);
	ASSERT_EQ(0, retire_bind_engine(self->r, again.id));
	edu_run(_metadata, self, buf[1], 0, 100, RETIRE_DEV_WRITE, 0x42, &c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
}

/*
 * Removal with an import attached to the device, a request on it in
 * flight: the request ends with a reset outcome, and the import is
 * unmapped and detached before the driver lets the device go (the DMA
 * API's debug code reports a mapping a driver leaves behind). The buffer
 * stays registered but takes no request (-ENODEV), even bound to the
 * rescanned device; an import of the same dma-buf there is a new
 * attachment and is served; the exporter's revoke tells only that one.
 */
TEST_F(edu, removal_detaches_the_imports_attached_to_the_device)
{
	const size_t len = 2 * RT_PAGE;
	long e0 = rt_dma_api_errors();
	struct retire_engine_info again;
	unsigned char *map;
	struct retire_cqe c;
	__u64 xbuf, old, fresh, h;
	struct retire *x;
	int fd;

	ASSERT_EQ(0, retire_open_device(&x, NULL, 0));
	ASSERT_EQ(0, retire_alloc_buffer(x, len, &xbuf, (void **)&map));
	memset(map, 0x11, len);
	fd = retire_export_buffer(x, xbuf, 0, len);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, retire_import_buffer(self->r, fd, &old, NULL));
	ASSERT_EQ(0, rt_submit(self->r, old, 0, len,
			       RETIRE_DEV_READ | RETIRE_DEV_WRITE, 1, 0, &h));
	rt_msleep(20);
	ASSERT_EQ(0, edu_remove(self->r, &self->e));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     5000));
	EXPECT_EQ(0, retire_release_request(self->r, h));

	ASSERT_EQ(0, rt_write_file("/sys/bus/pci/rescan", "1"));
	ASSERT_EQ(0, edu_wait_engine(self->r, &again, 3000));
	ASSERT_EQ(0, retire_bind_engine(self->r, again.id));
	EXPECT_EQ(-ENODEV, rt_submit(self->r, old, 0, 64, RETIRE_DEV_WRITE, 2,
				     0, &h));
	ASSERT_EQ(0, retire_import_buffer(self->r, fd, &fresh, NULL));
	edu_run(_metadata, self, fresh, 0, 64, RETIRE_DEV_WRITE, 0x5c, &c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	ASSERT_EQ(0, edu_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
	EXPECT_EQ(-1, rt_check_pattern(map, 64, 0x5c));
	ASSERT_EQ(0, edu_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));
	EXPECT_EQ(1, retire_revoke_buffer(x, fd, 0));

	EXPECT_EQ(0, retire_unregister_buffer(self->r, old));
	EXPECT_EQ(0, retire_unregister_buffer(self->r, fresh));
	close(fd);
	munmap(map, len);
	retire_close_device(x);
	if (e0 >= 0)
		EXPECT_EQ(e0, rt_dma_api_errors());
}

/*
 * A transfer whose interrupt never comes (edu_drop_irq) holds its request
 * past the watchdog: quarantined, not retirable, the context admits
 * nothing. Removing the device is the proof that no access follows: the
 * request ends with a reset outcome and retires. Meanwhile the buffer's
 * pages may be mapped by the device: an import of its export is refused
 * (-EBUSY: one DMA mapping at a time) until the request has retired.
 */
TEST_F(edu, a_lost_interrupt_is_quarantined_until_the_device_goes)
{
	struct retire_engine_info again;
	struct retire_cqe q, c;
	struct retire_limits l;
	struct retire *x;
	__u64 buf, h, imp;
	int fd;

	ASSERT_EQ(0, retire_get_limits(self->r, &l));
	l.watchdog_ns = 1000 * RT_MS;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &buf, NULL));
	ASSERT_EQ(0, rt_write_file(EDU_PARAM, "1"));
	ASSERT_EQ(0, rt_submit(self->r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 5,
			       0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_QUARANTINE,
			     &q, 10000));
	EXPECT_EQ(RETIRE_OUTCOME_UNKNOWN, q.outcome);
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_TERMINAL));
	EXPECT_EQ(-EBUSY, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_write_file(EDU_PARAM, "0"));
	ASSERT_EQ(0, retire_open_device(&x, NULL, 0));
	fd = retire_export_buffer(self->r, buf, 0, RT_PAGE);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EBUSY, retire_import_buffer(x, fd, &imp, NULL));

	ASSERT_EQ(0, edu_remove(self->r, &self->e));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     5000));
	EXPECT_EQ(RETIRE_OUTCOME_FAILED, c.outcome);
	EXPECT_EQ(-ECANCELED, c.error);
	EXPECT_EQ(0, retire_release_request(self->r, h));
	EXPECT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, NULL,
			     2000));
	ASSERT_EQ(0, retire_import_buffer(x, fd, &imp, NULL));
	EXPECT_EQ(0, retire_unregister_buffer(x, imp));
	close(fd);
	retire_close_device(x);

	ASSERT_EQ(0, rt_write_file("/sys/bus/pci/rescan", "1"));
	ASSERT_EQ(0, edu_wait_engine(self->r, &again, 3000));
}

/* the child: binds to @id, puts three requests in the device's hands */
static void owner_child(int wfd, long id)
{
	struct retire *r;
	__u64 buf, h;
	char ok = 0;
	int i;

	if (retire_open_device(&r, NULL, 0) || retire_bind_engine(r, id))
		goto out;
	for (i = 0; i < 3; i++)
		if (rt_register(r, RT_PAGE, &buf, NULL) ||
		    rt_submit(r, buf, 0, RT_PAGE,
			      RETIRE_DEV_READ | RETIRE_DEV_WRITE, i, 0, &h))
			goto out;
	ok = 'K';
out:
	rt_owner_report(wfd, ok);
}

/*
 * An owner killed with transfers in flight and queued: its context
 * outlives it until the device has reported every request (no buffer is
 * freed under a mapping), then the reaper retires everything and the
 * module's gauges come back to where they stood; the device works on.
 */
TEST_F(edu, a_killed_owner_with_transfers_in_flight_retires_everything)
{
	struct retire_stats base, m;
	struct retire_cqe c;
	int status;
	char ok = 0;
	__u64 buf;
	pid_t pid;

	ASSERT_EQ(0, rt_settle_module(self->r, &base, 3000));
	pid = rt_spawn_owner(owner_child, self->e.id, &ok);
	ASSERT_LE(0, pid);
	EXPECT_EQ('K', ok);
	/* mid-transfer: the first request's first chunk is moving */
	rt_msleep(150);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, rt_mstats(self->r, &m));
	EXPECT_EQ(base.contexts + 1, m.contexts);
	EXPECT_LT(base.physical_outstanding, m.physical_outstanding);

	/* 3 requests of 8 transfers, about 100 ms each */
	EXPECT_EQ(0, rt_wait_module_gauges(self->r, &base, &m, 20000));
	EXPECT_GAUGES_EQ(base, m);

	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &buf, NULL));
	edu_run(_metadata, self, buf, 0, 100, RETIRE_DEV_WRITE, 0x43, &c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
}

/*
 * The second user: a context of its own, bound to edu, then nobody with a
 * watchdog of one second of the device's time; one short READ (two
 * transfers, about 200 ms of the device). Reports 'K' if it completed
 * without quarantine, 'Q' if it was quarantined, 'O' for another outcome,
 * 'E' for an error on the way.
 */
static void short_user(int wfd, long id)
{
	struct rt_log log = { 0 };
	struct retire_limits l;
	struct retire_stats st;
	struct retire_cqe c;
	struct retire *r;
	__u64 buf, h;
	char ok = 'E';

	if (retire_open_device(&r, NULL, 0) || retire_bind_engine(r, id) ||
	    rt_become_nobody() || retire_get_limits(r, &l))
		goto out;
	l.watchdog_ns = 1000 * RT_MS;
	if (retire_set_limits(r, &l) || rt_register(r, RT_PAGE, &buf, NULL) ||
	    rt_submit(r, buf, 0, 64, RETIRE_DEV_READ, 7, 0, &h) ||
	    rt_wait(r, &log, h, RETIRE_REC_TERMINAL, &c, 8000) ||
	    retire_get_stats(r, &st, 0))
		goto out;
	ok = st.quarantined ? 'Q' :
	     c.outcome != RETIRE_OUTCOME_COMPLETED ? 'O' : 'K';
out:
	rt_owner_report(wfd, ok);
}

/*
 * One device, two users. The first floods it: six requests of 400 ms of
 * the device each, 2.4 s in all. The second, a moment later, submits one
 * short request under a one-second watchdog. The device serves contexts
 * in turn, so the short request begins after at most the one moving now;
 * its watchdog counts from then, so it is not quarantined for the time it
 * waited behind the other user (it used to be: one queue for all, and the
 * watchdog from the hand-over). The flood completes too.
 */
TEST_F(edu, a_flooding_user_neither_starves_nor_quarantines_another)
{
	enum { NR = 6 };
	struct retire_stats st;
	struct retire_cqe c;
	__u64 buf[NR], h[NR];
	int i, status;
	char ok = 0;
	pid_t pid;

	for (i = 0; i < NR; i++) {
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &buf[i], NULL));
		ASSERT_EQ(0, rt_submit(self->r, buf[i], 0, EDU_CHUNK,
				       RETIRE_DEV_READ | RETIRE_DEV_WRITE,
				       i, 0, &h[i]));
	}
	pid = rt_spawn_owner(short_user, self->e.id, &ok);
	ASSERT_LE(0, pid);
	EXPECT_EQ('K', ok) {
		TH_LOG("the short request: %s", ok == 'Q' ?
		       "quarantined for its wait behind the flood" :
		       ok ? "not completed" : "no answer within 10 s");
	}
	/* it did not wait for the whole flood */
	ASSERT_EQ(0, retire_get_stats(self->r, &st, 0));
	EXPECT_LT(st.completed, NR);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	for (i = 0; i < NR; i++) {
		ASSERT_EQ(0, rt_wait(self->r, &self->log, h[i],
				     RETIRE_REC_TERMINAL, &c, 10000));
		EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
		EXPECT_EQ(0, retire_release_request(self->r, h[i]));
	}
	ASSERT_EQ(0, retire_get_stats(self->r, &st, 0));
	EXPECT_EQ(0, st.quarantined);
}

TEST_HARNESS_MAIN
