// SPDX-License-Identifier: GPL-2.0
/*
 * The rings: RETIRE_IOC_RING_SETUP, the mapping at RETIRE_RING_OFFSET and
 * RETIRE_IOC_ENTER with RETIRE_ENTER_F_RINGS, driven by hand so every
 * index is the test's to choose.
 *
 * Each test names what it proves: the order of a request's records, one
 * retirement each through the rings, a full completion ring never losing a
 * record, indices from userspace bounded before anything runs, a bad setup
 * or mapping refused, the other ways of reading records still working
 * beside the rings, and a process killed with work in its rings leaving
 * nothing behind. The fast lane (an engine that runs inline, ONE_RECORD
 * requests) is held to the same: its records are the other path's, its
 * refusals too, it overflows in order, keeps a mixed batch's order, wakes
 * a waiter and leaves nothing when killed.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include "kselftest_harness.h"
#include "retire_test.h"

#define NBUF	64

/* a context's rings, mapped */
struct rg {
	int fd;
	struct retire_ring_setup s;
	void *map;
	_Atomic __u32 *sq_head, *sq_tail, *cq_head, *cq_tail, *cq_flags;
	struct retire_op *sqes;
	struct retire_cqe *cqes;
	__u32 sq_next;		/* one past the last operation queued */
	__u32 cq_next;		/* the next record to read */
};

static int rg_setup(int fd, unsigned int sq, unsigned int cq,
		    struct retire_ring_setup *s)
{
	memset(s, 0, sizeof(*s));
	s->sq_entries = sq;
	s->cq_entries = cq;
	return ioctl(fd, RETIRE_IOC_RING_SETUP, s) < 0 ? -errno : 0;
}

static void *rg_at(struct rg *g, __u32 off)
{
	return (char *)g->map + off;
}

static int rg_open(struct rg *g, int fd, unsigned int sq, unsigned int cq)
{
	int ret;

	memset(g, 0, sizeof(*g));
	g->fd = fd;
	ret = rg_setup(fd, sq, cq, &g->s);
	if (ret)
		return ret;
	g->map = mmap(NULL, g->s.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      RETIRE_RING_OFFSET);
	if (g->map == MAP_FAILED)
		return -errno;
	g->sq_head = rg_at(g, g->s.off.sq_head);
	g->sq_tail = rg_at(g, g->s.off.sq_tail);
	g->cq_head = rg_at(g, g->s.off.cq_head);
	g->cq_tail = rg_at(g, g->s.off.cq_tail);
	g->cq_flags = rg_at(g, g->s.off.cq_flags);
	g->sqes = rg_at(g, g->s.off.sqes);
	g->cqes = rg_at(g, g->s.off.cqes);
	g->sq_next = atomic_load(g->sq_head);
	g->cq_next = atomic_load(g->cq_head);
	return 0;
}

static void rg_close(struct rg *g)
{
	if (g->map && g->map != MAP_FAILED)
		munmap(g->map, g->s.size);
	g->map = NULL;
}

static struct retire_op *rg_op(struct rg *g)
{
	return &g->sqes[g->sq_next++ & (g->s.sq_entries - 1)];
}

/* the operation queued @back places before the last one */
static struct retire_op *rg_queued(struct rg *g, unsigned int back)
{
	return &g->sqes[(g->sq_next - 1 - back) & (g->s.sq_entries - 1)];
}

/* publish what is queued, run @nr of it, wait for @min records */
static int rg_enter(struct rg *g, unsigned int nr, unsigned int min,
		    struct retire_enter *out)
{
	struct retire_enter e;
	int ret;

	atomic_store_explicit(g->sq_tail, g->sq_next, memory_order_release);
	memset(&e, 0, sizeof(e));
	e.flags = RETIRE_ENTER_F_RINGS;
	e.nr_ops = nr;
	e.min_complete = min;
	e.timeout_ns = 2000 * RT_MS;
	ret = ioctl(g->fd, RETIRE_IOC_ENTER, &e) < 0 ? -errno : 0;
	if (out)
		*out = e;
	return ret;
}

/* move every record the completion ring holds into @l */
static int rg_drain(struct rg *g, struct rt_log *l)
{
	__u32 tail = atomic_load_explicit(g->cq_tail, memory_order_acquire);
	int n = 0, ret;

	for (; g->cq_next != tail; g->cq_next++, n++) {
		ret = rt_log_add(l, &g->cqes[g->cq_next &
					     (g->s.cq_entries - 1)]);
		if (ret)
			return ret;
	}
	atomic_store_explicit(g->cq_head, g->cq_next, memory_order_release);
	return n;
}

FIXTURE(ring) {
	struct retire *r;
	int fd;
	__u64 buf[NBUF];
	struct rg g;
	struct rt_log log;
};

FIXTURE_SETUP(ring)
{
	unsigned int i;

	RT_OPEN_OR_SKIP(self->r);
	RT_REQUIRE_FEATURES(self->r, RETIRE_FEAT_RINGS,
			    "the module has no rings");
	self->fd = retire_get_fd(self->r);
	rt_sim_neutral(self->r);
	for (i = 0; i < NBUF; i++)
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &self->buf[i], NULL));
}

FIXTURE_TEARDOWN(ring)
{
	rt_sim_neutral(self->r);
	rg_close(&self->g);
	rt_log_free(&self->log);
	retire_close_device(self->r);
}

static void rg_submit(struct rg *g, __u64 buf, __u64 user_data,
		      __u64 deadline_ns, __u32 flags)
{
	struct retire_op *op = rg_op(g);

	retire_prep_submit(op, buf, 0, 128, RETIRE_DEV_READ, user_data);
	op->deadline_ns = deadline_ns;
	op->flags = flags;
}

/*
 * Sizes that are not a power of two from 1 to RETIRE_RING_MAX_ENTRIES, a
 * flag or a reserved field are refused; asked again for the same sizes
 * the call describes the same rings, for other sizes it is -EBUSY. A
 * mapping before the rings exist, a private one or one larger than them
 * is refused.
 */
TEST_F(ring, setup_and_mapping_refuse_what_is_not_a_ring)
{
	static const unsigned int bad[][2] = {
		{ 0, 8 }, { 8, 0 }, { 3, 8 }, { 8, 12 },
		{ RETIRE_RING_MAX_ENTRIES * 2, 8 },
		{ 8, RETIRE_RING_MAX_ENTRIES * 2 }, { 1U << 31, 8 },
	};
	struct retire_ring_setup s, again;
	unsigned int i;
	void *m;

	m = mmap(NULL, RT_PAGE, PROT_READ, MAP_SHARED, self->fd,
		 RETIRE_RING_OFFSET);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, rg_setup(self->fd, bad[i][0], bad[i][1], &s))
			TH_LOG("sizes %u %u", bad[i][0], bad[i][1]);
	memset(&s, 0, sizeof(s));
	s.sq_entries = 8;
	s.cq_entries = 8;
	s.flags = 1;
	EXPECT_EQ(-1, ioctl(self->fd, RETIRE_IOC_RING_SETUP, &s));
	EXPECT_EQ(EINVAL, errno);
	s.flags = 0;
	s.reserved[1] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, RETIRE_IOC_RING_SETUP, &s));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, rg_setup(self->fd, 8, 16, &s));
	EXPECT_EQ(0, s.size % RT_PAGE);
	EXPECT_LE(s.off.cqes + 16 * sizeof(struct retire_cqe), s.size);
	EXPECT_LE(s.off.sqes + 8 * sizeof(struct retire_op), s.off.cqes);
	ASSERT_EQ(0, rg_setup(self->fd, 8, 16, &again));
	EXPECT_EQ(0, memcmp(&s, &again, sizeof(s)));
	EXPECT_EQ(-EBUSY, rg_setup(self->fd, 16, 16, &again));
	EXPECT_EQ(-EBUSY, rg_setup(self->fd, 8, 8, &again));

	m = mmap(NULL, s.size, PROT_READ, MAP_PRIVATE, self->fd,
		 RETIRE_RING_OFFSET);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, s.size + RT_PAGE, PROT_READ, MAP_SHARED, self->fd,
		 RETIRE_RING_OFFSET);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, s.size, PROT_READ, MAP_SHARED, self->fd,
		 RETIRE_RING_OFFSET);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(7, *(__u32 *)((char *)m + s.off.sq_mask));
	EXPECT_EQ(8, *(__u32 *)((char *)m + s.off.sq_entries));
	EXPECT_EQ(15, *(__u32 *)((char *)m + s.off.cq_mask));
	EXPECT_EQ(16, *(__u32 *)((char *)m + s.off.cq_entries));
	munmap(m, s.size);
}

/*
 * Through the rings, a request's records come in their order: TIMEOUT and
 * CANCEL_ACK before TERMINAL, TERMINAL before RETIRED, each once; each
 * operation's result and handle are written back into its entry.
 */
TEST_F(ring, records_come_in_their_order_each_once)
{
	struct retire_enter e;
	__u64 h[6], end;
	unsigned int i;

	ASSERT_EQ(0, rg_open(&self->g, self->fd, 8, 64));
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_CANCEL_RUNNING,
				    300 * RT_MS));
	/* 0, 1: plain; 2, 3: a 50 ms deadline; 4, 5: cancelled */
	for (i = 0; i < 6; i++)
		rg_submit(&self->g, self->buf[i], 0x100 + i,
			  i / 2 == 1 ? 50 * RT_MS : 0,
			  i % 2 ? RETIRE_SQE_F_AUTO_RETIRE : 0);
	ASSERT_EQ(0, rg_enter(&self->g, 6, 0, &e));
	EXPECT_EQ(6, e.done);
	EXPECT_EQ(atomic_load(self->g.sq_head), self->g.sq_next);
	for (i = 0; i < 6; i++) {
		struct retire_op *op = rg_queued(&self->g, 5 - i);

		ASSERT_EQ(0, op->result);
		EXPECT_EQ(RETIRE_KIND_REQ, RETIRE_HANDLE_KIND(op->handle));
		h[i] = op->handle;
	}
	retire_prep_cancel(rg_op(&self->g), h[4]);
	retire_prep_cancel(rg_op(&self->g), h[5]);
	ASSERT_EQ(0, rg_enter(&self->g, 2, 0, &e));
	EXPECT_EQ(0, rg_queued(&self->g, 1)->result);
	EXPECT_EQ(0, rg_queued(&self->g, 0)->result);

	/* every record but the explicit RETIREDs, within the latency */
	end = rt_now_ns() + 5000 * RT_MS;
	while (self->log.n < 13 && rt_now_ns() < end) {
		ASSERT_EQ(0, rg_enter(&self->g, 0, 1, NULL));
		ASSERT_LE(0, rg_drain(&self->g, &self->log));
	}
	ASSERT_EQ(13, self->log.n);
	for (i = 0; i < 6; i += 2)
		retire_prep_release(rg_op(&self->g), h[i]);
	ASSERT_EQ(0, rg_enter(&self->g, 3, 3, &e));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, rg_queued(&self->g, i)->result);
	ASSERT_EQ(3, rg_drain(&self->g, &self->log));
	EXPECT_EQ(6 * 2 + 2 + 2, self->log.n);
	for (i = 0; i < 6; i++) {
		EXPECT_EQ(1, rt_count(&self->log, h[i], RETIRE_REC_TERMINAL));
		EXPECT_EQ(1, rt_count(&self->log, h[i], RETIRE_REC_RETIRED));
		EXPECT_LT(rt_index(&self->log, h[i], RETIRE_REC_TERMINAL),
			  rt_index(&self->log, h[i], RETIRE_REC_RETIRED));
		EXPECT_EQ(i / 2 == 1, rt_count(&self->log, h[i],
					       RETIRE_REC_TIMEOUT));
		EXPECT_EQ(i / 2 == 2, rt_count(&self->log, h[i],
					       RETIRE_REC_CANCEL_ACK));
		if (i / 2 == 1)
			EXPECT_LT(rt_index(&self->log, h[i], RETIRE_REC_TIMEOUT),
				  rt_index(&self->log, h[i],
					   RETIRE_REC_TERMINAL));
		if (i / 2 == 2)
			EXPECT_LT(rt_index(&self->log, h[i],
					   RETIRE_REC_CANCEL_ACK),
				  rt_index(&self->log, h[i],
					   RETIRE_REC_TERMINAL));
	}
}

/*
 * Every request retires once through the rings, by AUTO_RETIRE or by a
 * RETIRE operation: the module's retired counter moves by one per
 * admission, a second RETIRE of each finds it gone, and each has exactly
 * one RETIRED record.
 */
TEST_F(ring, every_request_retires_once_through_the_rings)
{
	struct retire_stats before, after;
	struct retire_enter e;
	__u64 h[NBUF];
	unsigned int i, term = 0;

	ASSERT_EQ(0, rg_open(&self->g, self->fd, 64, 256));
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_INLINE, 0));
	ASSERT_EQ(0, rt_stats(self->r, &before));
	for (i = 0; i < NBUF; i++)
		rg_submit(&self->g, self->buf[i], i, 0,
			  i % 2 ? RETIRE_SQE_F_AUTO_RETIRE : 0);
	ASSERT_EQ(0, rg_enter(&self->g, NBUF, NBUF + NBUF / 2, &e));
	EXPECT_EQ(NBUF, e.done);
	EXPECT_EQ(NBUF + NBUF / 2, e.reaped);
	for (i = 0; i < NBUF; i++) {
		ASSERT_EQ(0, rg_queued(&self->g, NBUF - 1 - i)->result);
		h[i] = rg_queued(&self->g, NBUF - 1 - i)->handle;
	}
	ASSERT_EQ(NBUF + NBUF / 2, rg_drain(&self->g, &self->log));
	for (i = 0; i < self->log.n; i++)
		if (self->log.c[i].type == RETIRE_REC_TERMINAL) {
			EXPECT_EQ(h[term], self->log.c[i].handle);
			EXPECT_EQ(i, self->log.c[i].user_data);
			term++;
		}
	EXPECT_EQ(NBUF, term);
	/* the explicit half, then every one again */
	for (i = 0; i < NBUF; i += 2)
		retire_prep_release(rg_op(&self->g), h[i]);
	ASSERT_EQ(0, rg_enter(&self->g, NBUF / 2, NBUF / 2, &e));
	for (i = 0; i < NBUF; i++)
		retire_prep_release(rg_op(&self->g), h[i]);
	ASSERT_EQ(0, rg_enter(&self->g, NBUF, 0, &e));
	for (i = 0; i < NBUF; i++)
		EXPECT_EQ(-ENOENT, rg_queued(&self->g, NBUF - 1 - i)->result);
	ASSERT_EQ(NBUF / 2, rg_drain(&self->g, &self->log));
	for (i = 0; i < NBUF; i++)
		EXPECT_EQ(1, rt_count(&self->log, h[i], RETIRE_REC_RETIRED));
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.admitted + NBUF, after.admitted);
	EXPECT_EQ(before.retired + NBUF, after.retired);
	EXPECT_EQ(before.physical_outstanding, after.physical_outstanding);
}

/*
 * Fences through the submission ring: an out-fenced SUBMIT's result in
 * the ring is its sync_file fd, a FENCE operation's too, and a request
 * chained on that fence in the same batch waits for it (its TERMINAL
 * comes after the first one's).
 */
TEST_F(ring, fences_come_back_through_the_ring)
{
	struct sync_file_info info;
	struct retire_info ri;
	struct retire_enter e;
	int fa, fa2, i, ia = -1, ib = -1;
	__u64 a, b;

	ASSERT_EQ(0, retire_get_info(self->r, &ri));
	if (!(ri.features & RETIRE_FEAT_FENCES))
		SKIP(return, "a module without fences");
	ASSERT_EQ(0, rg_open(&self->g, self->fd, 8, 16));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 200 * RT_MS));
	rg_submit(&self->g, self->buf[0], 1, 0, RETIRE_SQE_F_OUT_FENCE);
	ASSERT_EQ(0, rg_enter(&self->g, 1, 0, &e));
	fa = rg_queued(&self->g, 0)->result;
	a = rg_queued(&self->g, 0)->handle;
	ASSERT_LE(0, fa);
	retire_prep_fence(rg_op(&self->g), a);
	rg_submit(&self->g, self->buf[1], 2, 0, RETIRE_SQE_F_IN_FENCE);
	rg_queued(&self->g, 0)->in_fence = fa;
	ASSERT_EQ(0, rg_enter(&self->g, 2, 2, &e));
	fa2 = rg_queued(&self->g, 1)->result;
	ASSERT_LE(0, fa2);
	ASSERT_EQ(0, rg_queued(&self->g, 0)->result);
	b = rg_queued(&self->g, 0)->handle;
	memset(&info, 0, sizeof(info));
	EXPECT_EQ(0, ioctl(fa2, SYNC_IOC_FILE_INFO, &info));
	EXPECT_EQ(1, info.num_fences);
	/* both TERMINALs: a's first, b started only once a's fence signalled */
	for (i = 0; i < 20 && (ia < 0 || ib < 0); i++) {
		ASSERT_LE(0, rg_drain(&self->g, &self->log));
		ia = rt_index(&self->log, a, RETIRE_REC_TERMINAL);
		ib = rt_index(&self->log, b, RETIRE_REC_TERMINAL);
		if (ia < 0 || ib < 0)
			ASSERT_EQ(0, rg_enter(&self->g, 0, 1, &e));
	}
	ASSERT_LE(0, ia);
	ASSERT_LE(0, ib);
	EXPECT_LT(ia, ib);
	close(fa);
	close(fa2);
}

/*
 * A completion ring of two entries and 64 requests: 128 records wait in
 * the module (cq_flags says so) and come out two at a time, in order,
 * none lost and none repeated, whatever the caller asks for.
 */
TEST_F(ring, a_full_completion_ring_never_loses_a_record)
{
	struct retire_enter e;
	unsigned int i, calls = 0;
	__u64 h[NBUF];

	ASSERT_EQ(0, rg_open(&self->g, self->fd, 64, 2));
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_INLINE, 0));
	for (i = 0; i < NBUF; i++)
		rg_submit(&self->g, self->buf[i], i, 0,
			  RETIRE_SQE_F_AUTO_RETIRE);
	ASSERT_EQ(0, rg_enter(&self->g, NBUF, 2, &e));
	EXPECT_EQ(NBUF, e.done);
	EXPECT_EQ(2, e.reaped);
	EXPECT_EQ(RETIRE_CQ_F_OVERFLOW, atomic_load(self->g.cq_flags));
	for (i = 0; i < NBUF; i++)
		h[i] = rg_queued(&self->g, NBUF - 1 - i)->handle;
	/* a full ring and a wait for more than it holds: -EINVAL */
	EXPECT_EQ(-EINVAL, rg_enter(&self->g, 0, 3, NULL));
	/* nothing read: nothing more moves */
	ASSERT_EQ(0, rg_enter(&self->g, 0, 2, &e));
	EXPECT_EQ(0, e.reaped);
	while (calls++ < 1000) {
		/* read one, then let the module fill the ring again */
		ASSERT_EQ(0, rt_log_add(&self->log,
					&self->g.cqes[self->g.cq_next++ & 1]));
		atomic_store(self->g.cq_head, self->g.cq_next);
		if (self->log.n == 2 * NBUF)
			break;
		ASSERT_EQ(0, rg_enter(&self->g, 0, 1, &e));
		EXPECT_GE(1, e.reaped);
	}
	EXPECT_EQ(0, rg_drain(&self->g, &self->log));
	EXPECT_EQ(2 * NBUF, self->log.n);
	EXPECT_EQ(0, atomic_load(self->g.cq_flags));
	for (i = 0; i < NBUF; i++) {
		EXPECT_EQ(1, rt_count(&self->log, h[i], RETIRE_REC_TERMINAL));
		EXPECT_EQ(1, rt_count(&self->log, h[i], RETIRE_REC_RETIRED));
		EXPECT_LT(rt_index(&self->log, h[i], RETIRE_REC_TERMINAL),
			  rt_index(&self->log, h[i], RETIRE_REC_RETIRED));
	}
}

/*
 * A sq_tail more than the ring ahead of sq_head, or a cq_head ahead of
 * cq_tail or more than the ring behind it, fails ENTER with -EINVAL
 * before anything runs or moves; so does an ENTER that names arrays, or
 * rings the context does not have. Put right, the same ring works.
 */
TEST_F(ring, indices_out_of_bounds_are_refused_before_anything_runs)
{
	struct retire_stats before, after;
	struct retire_enter e;
	__u32 cq_tail;
	int i;

	memset(&e, 0, sizeof(e));
	e.flags = RETIRE_ENTER_F_RINGS;
	e.nr_ops = 1;
	EXPECT_EQ(-1, ioctl(self->fd, RETIRE_IOC_ENTER, &e));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, rg_open(&self->g, self->fd, 8, 8));
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_INLINE, 0));
	for (i = 0; i < 8; i++)
		rg_submit(&self->g, self->buf[i], i, 0,
			  RETIRE_SQE_F_AUTO_RETIRE);
	ASSERT_EQ(0, rt_stats(self->r, &before));

	/* nine queued in a ring of eight */
	self->g.sq_next++;
	EXPECT_EQ(-EINVAL, rg_enter(&self->g, 8, 0, NULL));
	self->g.sq_next += 0x80000000U;
	EXPECT_EQ(-EINVAL, rg_enter(&self->g, 8, 0, NULL));
	self->g.sq_next -= 0x80000000U + 1;
	/* a head past the tail, or more than the ring behind it */
	cq_tail = atomic_load(self->g.cq_tail);
	atomic_store(self->g.cq_head, cq_tail + 1);
	EXPECT_EQ(-EINVAL, rg_enter(&self->g, 8, 0, NULL));
	atomic_store(self->g.cq_head, cq_tail - 9);
	EXPECT_EQ(-EINVAL, rg_enter(&self->g, 8, 0, NULL));
	atomic_store(self->g.cq_head, cq_tail);
	/* arrays with the rings flag */
	memset(&e, 0, sizeof(e));
	e.flags = RETIRE_ENTER_F_RINGS;
	e.nr_cqes = 1;
	EXPECT_EQ(-1, ioctl(self->fd, RETIRE_IOC_ENTER, &e));
	EXPECT_EQ(EINVAL, errno);
	e.nr_cqes = 0;
	e.ops = (__u64)(uintptr_t)&e;
	EXPECT_EQ(-1, ioctl(self->fd, RETIRE_IOC_ENTER, &e));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.admitted, after.admitted);
	EXPECT_EQ(before.refused, after.refused);
	EXPECT_EQ(atomic_load(self->g.sq_head), self->g.sq_next - 8);

	ASSERT_EQ(0, rg_enter(&self->g, 8, 8, &e));
	EXPECT_EQ(8, e.done);
	EXPECT_EQ(8, e.reaped);
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.admitted + 8, after.admitted);
}

/*
 * The rings do not take the other ways of reading records away: each
 * record goes to whichever reads it first, once. poll() says POLLIN while
 * the completion ring holds unread records.
 */
TEST_F(ring, reap_beside_the_rings_takes_each_record_once)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	struct retire_cqe cqes[4];
	struct retire_enter e;
	unsigned int i;
	__u64 h[4];
	int n;

	ASSERT_EQ(0, rg_open(&self->g, self->fd, 8, 8));
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_INLINE, 0));
	/* submitted without the rings: the records wait in the module */
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, rt_submit(self->r, self->buf[i], 0, 128,
				       RETIRE_DEV_READ, i, 0, &h[i]));
	/* two by REAP, two through the ring */
	n = retire_reap_records(self->r, cqes, 2, 2, 0);
	ASSERT_EQ(2, n);
	EXPECT_EQ(h[0], cqes[0].handle);
	EXPECT_EQ(h[1], cqes[1].handle);
	ASSERT_EQ(0, rg_enter(&self->g, 0, 2, &e));
	EXPECT_EQ(2, e.reaped);
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_EQ(2, rg_drain(&self->g, &self->log));
	EXPECT_EQ(h[2], self->log.c[0].handle);
	EXPECT_EQ(h[3], self->log.c[1].handle);
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(0, retire_reap_records(self->r, cqes, 4, 0, 0));
}

/* one queue's round: @n AUTO_RETIRE requests, both records of each */
static int queue_round(struct retire_queue *q, const __u64 *bufs,
		       unsigned int n, __u64 tag, struct rt_log *l)
{
	struct retire_cqe *cqes[64];
	struct retire_op *op;
	unsigned int i, got = 0, k;
	int ret;

	for (i = 0; i < n; i++) {
		op = retire_queue_get_op(q);
		if (!op)
			return -ENOSPC;
		retire_prep_submit(op, bufs[i], 0, 64, RETIRE_DEV_READ,
				   tag + i);
		op->flags = RETIRE_SQE_F_AUTO_RETIRE;
	}
	ret = retire_queue_submit_and_wait(q, 2 * n, 2000 * RT_MS);
	if (ret != (int)n)
		return ret < 0 ? ret : -EPROTO;
	while (got < 2 * n) {
		k = retire_queue_peek_batch_cqe(q, cqes, 64);
		if (!k) {
			ret = retire_queue_submit_and_wait(q, 2 * n - got,
							   2000 * RT_MS);
			if (ret < 0)
				return ret;
			if (!retire_queue_peek_batch_cqe(q, cqes, 1))
				return -ETIMEDOUT;
			continue;
		}
		for (i = 0; i < k; i++)
			if (rt_log_add(l, cqes[i]))
				return -ENOMEM;
		retire_queue_cq_advance(q, k);
		got += k;
	}
	return 0;
}

/*
 * libretire's first queue on a handle drives the context's rings, a
 * second one uses arrays, and a queue made after the first is gone maps
 * the same rings again where they stand: all three deliver every record
 * of their own requests, once.
 */
TEST_F(ring, queues_on_rings_and_on_arrays_deliver_alike)
{
	struct retire_queue *q1, *q2, *q3;
	struct retire_ring_setup s;
	unsigned int i, round;

	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_INLINE, 0));
	ASSERT_EQ(0, retire_queue_init(self->r, 16, &q1));
	ASSERT_EQ(0, retire_queue_init(self->r, 16, &q2));
	/* the first queue's rings: 16 operations, 64 records */
	ASSERT_EQ(0, rg_setup(self->fd, 16, 64, &s));
	EXPECT_EQ(-EBUSY, rg_setup(self->fd, 32, 64, &s));
	for (round = 0; round < 5; round++) {
		ASSERT_EQ(0, queue_round(q1, self->buf, 16, 0x1000,
					 &self->log));
		ASSERT_EQ(0, queue_round(q2, self->buf + 16, 16, 0x2000,
					 &self->log));
	}
	retire_queue_exit(q1);
	ASSERT_EQ(0, retire_queue_init(self->r, 16, &q3));
	for (round = 0; round < 5; round++)
		ASSERT_EQ(0, queue_round(q3, self->buf + 32, 16, 0x3000,
					 &self->log));
	retire_queue_exit(q2);
	retire_queue_exit(q3);
	/* 15 rounds of 16 requests, two records each, each request once */
	EXPECT_EQ(15 * 16 * 2, self->log.n);
	for (i = 0; i < self->log.n; i++)
		EXPECT_EQ(1, rt_count(&self->log, self->log.c[i].handle,
				      self->log.c[i].type));
}

/*
 * wait_nr counts the records a queue holds unseen, as io_uring's
 * min_complete does, on the context's rings and on arrays alike: with as
 * many unseen as asked for, a call without operations returns at once,
 * however long it may wait, and asked for one more it waits for it.
 */
TEST_F(ring, wait_nr_counts_unseen_records_on_rings_and_on_arrays)
{
	struct retire_queue *q[2];
	struct retire_cqe *cqe;
	struct retire_op *op;
	unsigned int i;

	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_INLINE, 0));
	ASSERT_EQ(0, retire_queue_init(self->r, 4, &q[0]));
	ASSERT_EQ(0, retire_queue_init(self->r, 4, &q[1]));
	ASSERT_EQ(1, retire_queue_uses_rings(q[0]));
	ASSERT_EQ(0, retire_queue_uses_rings(q[1]));
	/* four operations: 4 rounded up, times four; arrays hold 256 */
	EXPECT_EQ(16, retire_queue_cq_entries(q[0]));
	EXPECT_EQ(RETIRE_SUBMIT_MAX, retire_queue_cq_entries(q[1]));
	EXPECT_EQ(-EINVAL, retire_queue_uses_rings(NULL));
	EXPECT_EQ(-EINVAL, retire_queue_cq_entries(NULL));
	/* a call that waits for a record that never comes dies here */
	alarm(20);
	for (i = 0; i < 2; i++) {
		op = retire_queue_get_op(q[i]);
		ASSERT_NE(NULL, op);
		retire_prep_submit(op, self->buf[i], 0, 64, RETIRE_DEV_READ,
				   0x100 + i);
		op->flags = RETIRE_SQE_F_AUTO_RETIRE | RETIRE_SQE_F_ONE_RECORD;
		ASSERT_EQ(1, retire_queue_submit_and_wait(q[i], 1,
							  UINT64_MAX));
		ASSERT_EQ(0, retire_queue_peek_cqe(q[i], &cqe));
		EXPECT_EQ(0x100 + i, cqe->user_data);
		/* the unseen record counts: nothing to wait for */
		ASSERT_EQ(0, retire_queue_submit_and_wait(q[i], 1,
							  UINT64_MAX));
		ASSERT_EQ(0, retire_queue_peek_cqe(q[i], &cqe));
		EXPECT_EQ(0x100 + i, cqe->user_data);
		/* one more than it holds: it waits, here for its bound */
		EXPECT_EQ(0, retire_queue_submit_and_wait(q[i], 2,
							  50 * RT_MS));
		retire_queue_cqe_seen(q[i]);
		EXPECT_EQ(-EAGAIN, retire_queue_peek_cqe(q[i], &cqe));
	}
	alarm(0);
	retire_queue_exit(q[0]);
	retire_queue_exit(q[1]);
}

/* the fast lane's flags, and its engine */
#define RG_LANE	(RETIRE_SQE_F_AUTO_RETIRE | RETIRE_SQE_F_ONE_RECORD)

/* bind @r's context to the null engine, which runs inline */
static int rg_bind_null(struct retire *r)
{
	struct retire_engine_info e;

	return rt_engine_named(r, "null", &e) ?: retire_bind_engine(r, e.id);
}

/*
 * The child: batches through its rings, a full completion ring unread; on
 * the null engine (@lane), mostly fast-lane requests, and a reader that
 * now and then keeps up.
 */
static void rg_child_run(unsigned int round, bool lane)
{
	struct retire *c;
	struct rg g;
	__u64 b[NBUF];
	unsigned int i;

	if (retire_open_device(&c, NULL, 0) || (lane && rg_bind_null(c)) ||
	    rg_open(&g, retire_get_fd(c), 32, lane ? 8 << (round % 3) : 4))
		_exit(2);
	for (i = 0; i < NBUF; i++)
		if (rt_register(c, RT_PAGE, &b[i], NULL))
			_exit(3);
	for (i = round;; i++) {
		if (lane)
			rg_submit(&g, b[i % NBUF], i, 0,
				  i % 5 ? RG_LANE : RETIRE_SQE_F_AUTO_RETIRE);
		else
			rg_submit(&g, b[i % NBUF], i, 0,
				  i % 3 ? RETIRE_SQE_F_AUTO_RETIRE : 0);
		if (i % 32 != 31)
			continue;
		rg_enter(&g, 32, 0, NULL);
		if (lane && i % 3)
			atomic_store(g.cq_head, atomic_load(g.cq_tail));
	}
}

static void rg_child(unsigned int round)
{
	rg_child_run(round, false);
}

/*
 * A child sets up rings, runs batches on the timer engine and queues more
 * it never enters, its completion ring full and unread, then dies by
 * SIGKILL: the module's gauges return to where they were, so every request
 * it admitted retired exactly once and the rings' memory went with it.
 */
TEST_F(ring, process_killed_with_work_in_its_rings_leaves_nothing)
{
	struct retire_stats base, now;

	EXPECT_EQ(0, rt_kill_children(self->r, 6, rg_child, &base, &now))
		TH_LOG("%s", rt_stats_diff(&base, &now, NULL) ?: "gauges");
}

/* ---- the fast lane: an engine that runs inline, one record each ------- */

/*
 * A new context has no request slot yet: its first request grows the
 * table the usual way. One fast-lane request, its record read, readies
 * the rings for the fast lane.
 */
static int rg_lane_warm(struct rg *g, __u64 buf)
{
	struct retire_enter e;
	int ret;

	rg_submit(g, buf, ~0ULL, 0, RG_LANE);
	ret = rg_enter(g, 1, 1, &e);
	if (ret)
		return ret;
	g->cq_next = atomic_load(g->cq_tail);
	atomic_store(g->cq_head, g->cq_next);
	return e.reaped == 1 ? 0 : -EIO;
}

/* where @handle's event @type is in @ev, or -1 */
static int rg_event_at(const struct retire_history_event *ev, int n,
		       __u64 handle, __u32 type)
{
	int i;

	for (i = 0; i < n; i++)
		if (ev[i].handle == handle && ev[i].type == type)
			return i;
	return -1;
}

/* the fields of a record that do not name its request */
static void rg_same_record(struct __test_metadata *_metadata,
			   const struct retire_cqe *a,
			   const struct retire_cqe *b)
{
	EXPECT_EQ(a->user_data, b->user_data);
	EXPECT_EQ(a->type, b->type);
	EXPECT_EQ(a->outcome, b->outcome);
	EXPECT_EQ(a->error, b->error);
	EXPECT_EQ(a->flags, b->flags);
	EXPECT_EQ(a->result_len, b->result_len);
	EXPECT_EQ(a->latency_ns, b->latency_ns);
	EXPECT_EQ(a->checksum, b->checksum);
}

/*
 * On an engine that runs inline, ONE_RECORD requests through the rings
 * take the fast lane: their records are in the completion ring as ENTER
 * returns, one each, in submission order, and field for field the records
 * the same operations get through ENTER's arrays (the ready list) on
 * another context. Each retired within its own operation (its history's
 * four events before the next request's first) and once (a RETIRE finds
 * it gone), and the module's counters moved as the other path moves them.
 */
TEST_F(ring, the_fast_lane_gives_the_records_the_ready_list_gives)
{
	struct retire_history_event ev[RETIRE_HISTORY_LEN];
	struct retire_history_info info;
	struct retire_stats before, after;
	int n;
	struct retire_cqe arr[NBUF];
	struct retire_op ops[NBUF];
	struct retire_enter e;
	struct retire *r2;
	__u64 h[NBUF], b2[NBUF];
	unsigned int i;

	if (rg_bind_null(self->r))
		SKIP(return, "no null engine");
	ASSERT_EQ(0, rg_open(&self->g, self->fd, 64, 256));
	ASSERT_EQ(0, rg_lane_warm(&self->g, self->buf[0]));
	ASSERT_EQ(0, rt_stats(self->r, &before));
	for (i = 0; i < NBUF; i++) {
		rg_submit(&self->g, self->buf[i], i, 0, RG_LANE);
		rg_queued(&self->g, 0)->dev_flags = 1 + i % 3;
		rg_queued(&self->g, 0)->key = i % 5;
	}
	ASSERT_EQ(0, rg_enter(&self->g, NBUF, NBUF, &e));
	EXPECT_EQ(NBUF, e.done);
	EXPECT_EQ(NBUF, e.reaped);
	for (i = 0; i < NBUF; i++) {
		ASSERT_EQ(0, rg_queued(&self->g, NBUF - 1 - i)->result);
		h[i] = rg_queued(&self->g, NBUF - 1 - i)->handle;
	}
	ASSERT_EQ(NBUF, rg_drain(&self->g, &self->log));
	/* each one retired within its operation, before the next came in */
	n = retire_read_history(self->r, 0, ev, RETIRE_HISTORY_LEN, &info);
	ASSERT_EQ(4 * NBUF, n);
	for (i = 0; i < NBUF; i++) {
		EXPECT_EQ(4 * i, rg_event_at(ev, n, h[i], RETIRE_EV_SUBMIT));
		EXPECT_EQ(4 * i + 3, rg_event_at(ev, n, h[i], RETIRE_EV_RETIRE));
	}
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.admitted + NBUF, after.admitted);
	EXPECT_EQ(before.completed + NBUF, after.completed);
	EXPECT_EQ(before.published + NBUF, after.published);
	EXPECT_EQ(before.retired + NBUF, after.retired);
	EXPECT_EQ(before.refused, after.refused);
	EXPECT_EQ(before.physical_outstanding, after.physical_outstanding);
	EXPECT_EQ(before.logical_outstanding, after.logical_outstanding);

	/* the same operations through the ready list */
	ASSERT_EQ(0, retire_open_device(&r2, NULL, 0));
	ASSERT_EQ(0, rg_bind_null(r2));
	for (i = 0; i < NBUF; i++) {
		ASSERT_EQ(0, rt_register(r2, RT_PAGE, &b2[i], NULL));
		retire_prep_submit(&ops[i], b2[i], 0, 128, 1 + i % 3, i);
		ops[i].flags = RG_LANE;
		ops[i].key = i % 5;
	}
	ASSERT_EQ(NBUF, retire_enter(r2, ops, NBUF, arr, NBUF, NBUF,
				     2000 * RT_MS));
	for (i = 0; i < NBUF; i++) {
		ASSERT_EQ(0, ops[i].result);
		EXPECT_EQ(ops[i].handle, arr[i].handle);
		EXPECT_EQ(h[i], self->log.c[i].handle);
		EXPECT_EQ(RETIRE_REC_TERMINAL, self->log.c[i].type);
		EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, self->log.c[i].outcome);
		EXPECT_EQ(RETIRE_CQE_F_MEASURED | RETIRE_CQE_F_RETIRED,
			  self->log.c[i].flags);
		rg_same_record(_metadata, &self->log.c[i], &arr[i]);
	}
	retire_close_device(r2);

	/* each one retired as its record was written: a RETIRE finds none */
	for (i = 0; i < NBUF; i++)
		retire_prep_release(rg_op(&self->g), h[i]);
	ASSERT_EQ(0, rg_enter(&self->g, NBUF, 0, &e));
	for (i = 0; i < NBUF; i++)
		EXPECT_EQ(-ENOENT, rg_queued(&self->g, NBUF - 1 - i)->result);
	EXPECT_EQ(0, rg_drain(&self->g, &self->log));
}

/*
 * The fast lane refuses what the other path refuses, with its errno and
 * its counters: a stale buffer, a range past its end, a buffer a request
 * holds, no device access, no bytes, max_unretired and max_reserved_bytes.
 * Nothing else changes: every admitted request still retires once.
 */
TEST_F(ring, the_fast_lane_refuses_as_the_other_path_refuses)
{
	struct retire_stats before, after;
	struct retire_limits l, l0;
	struct retire_enter e;
	__u64 gone, held;
	unsigned int i;

	if (rg_bind_null(self->r))
		SKIP(return, "no null engine");
	ASSERT_EQ(0, rg_open(&self->g, self->fd, 16, 64));
	ASSERT_EQ(0, rg_lane_warm(&self->g, self->buf[0]));
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &gone, NULL));
	ASSERT_EQ(0, retire_unregister_buffer(self->r, gone));
	/* a request on buf[1] that owes two records holds it */
	rg_submit(&self->g, self->buf[1], 100, 0, 0);
	ASSERT_EQ(0, rg_enter(&self->g, 1, 1, &e));
	held = rg_queued(&self->g, 0)->handle;
	ASSERT_EQ(1, rg_drain(&self->g, &self->log));

	ASSERT_EQ(0, rt_stats(self->r, &before));
	rg_submit(&self->g, gone, 1, 0, RG_LANE);
	rg_submit(&self->g, self->buf[0], 2, 0, RG_LANE);
	rg_queued(&self->g, 0)->offset = RT_PAGE - 64;
	rg_submit(&self->g, self->buf[1], 3, 0, RG_LANE);
	rg_submit(&self->g, self->buf[2], 4, 0, RG_LANE);
	rg_queued(&self->g, 0)->dev_flags = 0;
	rg_submit(&self->g, self->buf[3], 5, 0, RG_LANE);
	rg_queued(&self->g, 0)->len = 0;
	ASSERT_EQ(0, rg_enter(&self->g, 5, 0, &e));
	EXPECT_EQ(5, e.done);
	EXPECT_EQ(-ENOENT, rg_queued(&self->g, 4)->result);
	EXPECT_EQ(-EINVAL, rg_queued(&self->g, 3)->result);
	EXPECT_EQ(-EBUSY, rg_queued(&self->g, 2)->result);
	EXPECT_EQ(-EINVAL, rg_queued(&self->g, 1)->result);
	EXPECT_EQ(-EINVAL, rg_queued(&self->g, 0)->result);
	for (i = 0; i < 5; i++)
		EXPECT_EQ(0, rg_queued(&self->g, i)->handle);

	/* the bounds: one unretired request (the held one) is the most */
	ASSERT_EQ(0, retire_get_limits(self->r, &l0));
	l = l0;
	l.max_unretired = 1;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	rg_submit(&self->g, self->buf[4], 6, 0, RG_LANE);
	ASSERT_EQ(0, rg_enter(&self->g, 1, 0, &e));
	EXPECT_EQ(-ENOSPC, rg_queued(&self->g, 0)->result);
	l = l0;
	l.max_reserved_bytes = 128 + 64;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	rg_submit(&self->g, self->buf[4], 7, 0, RG_LANE);
	ASSERT_EQ(0, rg_enter(&self->g, 1, 0, &e));
	EXPECT_EQ(-EDQUOT, rg_queued(&self->g, 0)->result);
	ASSERT_EQ(0, retire_set_limits(self->r, &l0));
	EXPECT_EQ(0, rg_drain(&self->g, &self->log));

	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.admitted, after.admitted);
	EXPECT_EQ(before.refused + 7, after.refused);
	EXPECT_EQ(before.stale_user + 1, after.stale_user);
	EXPECT_EQ(before.refused_unretired + 1, after.refused_unretired);
	EXPECT_EQ(before.refused_reserved + 1, after.refused_reserved);

	/* the held request retires, and the lane takes the buffer again */
	retire_prep_release(rg_op(&self->g), held);
	rg_submit(&self->g, self->buf[1], 8, 0, RG_LANE);
	ASSERT_EQ(0, rg_enter(&self->g, 2, 2, &e));
	EXPECT_EQ(0, rg_queued(&self->g, 1)->result);
	EXPECT_EQ(0, rg_queued(&self->g, 0)->result);
	ASSERT_EQ(2, rg_drain(&self->g, &self->log));
	EXPECT_EQ(1, rt_count(&self->log, held, RETIRE_REC_RETIRED));
	EXPECT_EQ(1, rt_count(&self->log, rg_queued(&self->g, 0)->handle,
			      RETIRE_REC_TERMINAL));
}

/*
 * A completion ring of four entries and 64 fast-lane requests: four
 * records go straight into the ring, the other 60 wait in the module
 * (cq_flags says so) and come out in submission order, each request's
 * one record exactly once, as the reader makes room.
 */
TEST_F(ring, the_fast_lane_overflows_into_the_ready_list_in_order)
{
	struct retire_enter e;
	unsigned int i, calls = 0;

	if (rg_bind_null(self->r))
		SKIP(return, "no null engine");
	ASSERT_EQ(0, rg_open(&self->g, self->fd, 64, 4));
	ASSERT_EQ(0, rg_lane_warm(&self->g, self->buf[0]));
	for (i = 0; i < NBUF; i++)
		rg_submit(&self->g, self->buf[i], i, 0, RG_LANE);
	ASSERT_EQ(0, rg_enter(&self->g, NBUF, 4, &e));
	EXPECT_EQ(NBUF, e.done);
	EXPECT_EQ(4, atomic_load(self->g.cq_tail) - self->g.cq_next);
	EXPECT_EQ(RETIRE_CQ_F_OVERFLOW, atomic_load(self->g.cq_flags));
	while (self->log.n < NBUF && calls++ < 1000) {
		ASSERT_LE(0, rg_drain(&self->g, &self->log));
		ASSERT_EQ(0, rg_enter(&self->g, 0, 0, &e));
	}
	EXPECT_EQ(0, rg_drain(&self->g, &self->log));
	ASSERT_EQ(NBUF, self->log.n);
	EXPECT_EQ(0, atomic_load(self->g.cq_flags));
	for (i = 0; i < NBUF; i++) {
		EXPECT_EQ(i, self->log.c[i].user_data);
		EXPECT_EQ(RETIRE_REC_TERMINAL, self->log.c[i].type);
		EXPECT_TRUE(self->log.c[i].flags & RETIRE_CQE_F_RETIRED);
		EXPECT_EQ(rg_queued(&self->g, NBUF - 1 - i)->handle,
			  self->log.c[i].handle);
	}
}

/*
 * Operations the fast lane does not take, between ones it does, on an
 * engine that runs inline: every request's records come in the order its
 * events happened, the two records of a request that owes two in theirs,
 * each once.
 */
TEST_F(ring, the_fast_lane_keeps_the_order_of_a_mixed_batch)
{
	struct retire_enter e;
	unsigned int i, n = 0;
	__u64 h[NBUF];

	if (rg_bind_null(self->r))
		SKIP(return, "no null engine");
	ASSERT_EQ(0, rg_open(&self->g, self->fd, 64, 256));
	ASSERT_EQ(0, rg_lane_warm(&self->g, self->buf[0]));
	for (i = 0; i < 48; i++)
		rg_submit(&self->g, self->buf[i], i, 0,
			  i % 4 == 1 ? RETIRE_SQE_F_AUTO_RETIRE :
			  i % 4 == 2 ? 0 : RG_LANE);
	ASSERT_EQ(0, rg_enter(&self->g, 48, 0, &e));
	for (i = 0; i < 48; i++) {
		ASSERT_EQ(0, rg_queued(&self->g, 47 - i)->result);
		h[i] = rg_queued(&self->g, 47 - i)->handle;
	}
	/* the explicit ones retire now */
	for (i = 2; i < 48; i += 4)
		retire_prep_release(rg_op(&self->g), h[i]);
	ASSERT_EQ(0, rg_enter(&self->g, 12, 0, &e));
	ASSERT_LE(0, rg_drain(&self->g, &self->log));
	for (i = 0; i < 48; i++) {
		int term = rt_index(&self->log, h[i], RETIRE_REC_TERMINAL);

		EXPECT_EQ(1, rt_count(&self->log, h[i], RETIRE_REC_TERMINAL));
		EXPECT_EQ(i % 4 == 1 || i % 4 == 2,
			  rt_count(&self->log, h[i], RETIRE_REC_RETIRED));
		if (i % 4 == 1 || i % 4 == 2)
			EXPECT_LT(term, rt_index(&self->log, h[i],
						 RETIRE_REC_RETIRED));
		/* the TERMINALs in submission order */
		EXPECT_LE(n, term);
		n = term;
	}
	EXPECT_EQ(48 + 24, self->log.n);
}

/* a thread that waits in ENTER for the next record in the ring */
static void *rg_waiter(void *arg)
{
	struct rg *g = arg;
	struct retire_enter e;

	memset(&e, 0, sizeof(e));
	e.flags = RETIRE_ENTER_F_RINGS;
	e.min_complete = 1;
	e.timeout_ns = 3000 * RT_MS;
	if (ioctl(g->fd, RETIRE_IOC_ENTER, &e) < 0)
		return (void *)(long)-errno;
	return (void *)(long)e.reaped;
}

/*
 * One thread waits in ENTER for a record on an empty completion ring;
 * another's ENTER puts one there by the fast lane, never on the ready
 * list the waiter looks at: the waiter wakes at once, not at its
 * three-second timeout.
 */
TEST_F(ring, a_caller_waiting_on_the_ring_wakes_for_the_fast_lane)
{
	struct timespec t0, t1;
	struct retire_enter e;
	pthread_t th;
	void *ret;

	if (rg_bind_null(self->r))
		SKIP(return, "no null engine");
	ASSERT_EQ(0, rg_open(&self->g, self->fd, 8, 8));
	ASSERT_EQ(0, rg_lane_warm(&self->g, self->buf[0]));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, pthread_create(&th, NULL, rg_waiter, &self->g));
	rt_msleep(200);
	rg_submit(&self->g, self->buf[0], 1, 0, RG_LANE);
	ASSERT_EQ(0, rg_enter(&self->g, 1, 0, &e));
	/* the record went into the ring with its operation */
	EXPECT_EQ(1, e.reaped);
	ASSERT_EQ(0, pthread_join(th, &ret));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* so the waiter found it there, and moved none itself */
	EXPECT_EQ(0, (long)ret);
	EXPECT_GT(2000, (t1.tv_sec - t0.tv_sec) * 1000 +
			(t1.tv_nsec - t0.tv_nsec) / 1000000);
	EXPECT_EQ(1, rg_drain(&self->g, &self->log));
}

static void rg_lane_child(unsigned int round)
{
	rg_child_run(round, true);
}

/*
 * Children run fast-lane batches, some with their completion ring full
 * and unread, and die by SIGKILL anywhere: the module's gauges return to
 * where they were, every admitted request retired exactly once.
 */
TEST_F(ring, process_killed_in_the_fast_lane_leaves_nothing)
{
	struct retire_stats base, now;
	struct retire_engine_info e;

	if (rt_engine_named(self->r, "null", &e))
		SKIP(return, "no null engine");
	EXPECT_EQ(0, rt_kill_children(self->r, 6, rg_lane_child, &base, &now))
		TH_LOG("%s", rt_stats_diff(&base, &now, NULL) ?: "gauges");
}

/*
 * A min_complete above the completion ring's size can never be met: the
 * call fails with -EINVAL before anything runs, as for a bad index. The
 * operation queued stays queued, and runs once an ENTER asks for what
 * the ring can hold.
 */
TEST_F(ring, min_complete_above_the_ring_fails_before_anything_runs)
{
	struct retire_enter e;
	__u32 tail;

	ASSERT_EQ(0, rg_open(&self->g, self->fd, 8, 2));
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_INLINE, 0));
	EXPECT_EQ(-EINVAL, rg_enter(&self->g, 0, 3, NULL));
	tail = atomic_load(self->g.cq_tail);
	rg_submit(&self->g, self->buf[0], 1, 0, RETIRE_SQE_F_AUTO_RETIRE);
	EXPECT_EQ(-EINVAL, rg_enter(&self->g, 1, 3, &e));
	EXPECT_EQ(0, e.done);
	EXPECT_EQ(0, e.reaped);
	EXPECT_EQ(0, atomic_load(self->g.sq_head));
	EXPECT_EQ(tail, atomic_load(self->g.cq_tail));
	/* within the ring's size, the same operation runs */
	ASSERT_EQ(0, rg_enter(&self->g, 1, 1, &e));
	EXPECT_EQ(1, e.done);
	EXPECT_LE(1, e.reaped);
	EXPECT_EQ(0, rg_queued(&self->g, 0)->result);
}

/*
 * RETIRE_CQ_F_OVERFLOW is written only when an ENTER with
 * RETIRE_ENTER_F_RINGS moves records: set while records still wait in the
 * module after the move, cleared once none do. A reap that takes the
 * waiting records leaves it as it was until the next ENTER with rings.
 */
TEST_F(ring, overflow_flag_changes_only_when_an_enter_with_rings_moves_records)
{
	struct retire_cqe cqes[16];
	struct retire_enter e;
	unsigned int i, reaped = 0;
	int n;

	ASSERT_EQ(0, rg_open(&self->g, self->fd, 8, 2));
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_INLINE, 0));
	for (i = 0; i < 4; i++)
		rg_submit(&self->g, self->buf[i], i, 0,
			  RETIRE_SQE_F_AUTO_RETIRE);
	ASSERT_EQ(0, rg_enter(&self->g, 4, 0, &e));
	EXPECT_EQ(4, e.done);
	EXPECT_EQ(RETIRE_CQ_F_OVERFLOW, atomic_load(self->g.cq_flags));
	/* the records waiting in the module, taken by a reap */
	do {
		n = retire_reap_records(self->r, cqes, 16, 0, 0);
		ASSERT_LE(0, n);
		reaped += n;
	} while (n);
	EXPECT_EQ(8 - 2, reaped);
	EXPECT_EQ(RETIRE_CQ_F_OVERFLOW, atomic_load(self->g.cq_flags));
	EXPECT_EQ(2, rg_drain(&self->g, &self->log));
	ASSERT_EQ(0, rg_enter(&self->g, 0, 0, &e));
	EXPECT_EQ(0, e.reaped);
	EXPECT_EQ(0, atomic_load(self->g.cq_flags));
}

TEST_HARNESS_MAIN
