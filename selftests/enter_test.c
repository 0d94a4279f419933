// SPDX-License-Identifier: GPL-2.0
/*
 * The batched path: RETIRE_IOC_ENTER, RETIRE_SQE_F_AUTO_RETIRE and the
 * inline sim engine, through libretire's queue and retire_enter().
 *
 * Each test names what it proves: record order, exactly-once retirement,
 * no record lost when the caller's array is smaller than what is ready,
 * bad arguments refused changing nothing, and a process killed with work
 * in its batch leaving nothing behind.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "retire_test.h"

#define NBUF	64

FIXTURE(en) {
	struct retire *r;
	__u64 buf[NBUF];
	struct rt_log log;
};

FIXTURE_SETUP(en)
{
	unsigned int i;

	RT_OPEN_OR_SKIP(self->r);
	rt_sim_neutral(self->r);
	for (i = 0; i < NBUF; i++)
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &self->buf[i], NULL));
}

FIXTURE_TEARDOWN(en)
{
	rt_sim_neutral(self->r);
	rt_log_free(&self->log);
	retire_close_device(self->r);
}

static void en_submits(struct retire_op *ops, const __u64 *bufs,
		       unsigned int n, __u32 flags)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		retire_prep_submit(&ops[i], bufs[i], 0, 128, RETIRE_DEV_READ,
				   0x5000 + i);
		ops[i].flags = flags;
	}
}

/*
 * One ENTER submits 32 AUTO_RETIRE requests on the inline engine and reaps
 * all 64 records: each request's TERMINAL (completed, its checksum) comes
 * before its RETIRED, the TERMINALs in submission order, and every handle
 * is the one its operation returned.
 */
TEST_F(en, inline_batch_records_in_order_terminal_then_retired)
{
	struct retire_op ops[32];
	struct retire_cqe cqes[64];
	unsigned int i, term = 0;
	int n;

	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_INLINE, 0));
	en_submits(ops, self->buf, 32, RETIRE_SQE_F_AUTO_RETIRE);
	n = retire_enter(self->r, ops, 32, cqes, 64, 64, 2000 * RT_MS);
	ASSERT_EQ(64, n);
	for (i = 0; i < 32; i++)
		ASSERT_EQ(0, ops[i].result);
	for (i = 0; i < 64; i++) {
		ASSERT_EQ(0, rt_log_add(&self->log, &cqes[i]));
		if (cqes[i].type == RETIRE_REC_TERMINAL) {
			EXPECT_EQ(ops[term].handle, cqes[i].handle);
			EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, cqes[i].outcome);
			EXPECT_EQ(128, cqes[i].result_len);
			term++;
		}
	}
	EXPECT_EQ(32, term);
	for (i = 0; i < 32; i++) {
		EXPECT_EQ(1, rt_count(&self->log, ops[i].handle,
				      RETIRE_REC_TERMINAL));
		EXPECT_EQ(1, rt_count(&self->log, ops[i].handle,
				      RETIRE_REC_RETIRED));
		EXPECT_LT(rt_index(&self->log, ops[i].handle,
				   RETIRE_REC_TERMINAL),
			  rt_index(&self->log, ops[i].handle,
				   RETIRE_REC_RETIRED));
	}
}

/*
 * AUTO_RETIRE retires exactly once: a RETIRE of the request after its
 * TERMINAL was read finds it gone (-ENOENT once retired), the retired
 * counter grows by one per request, and a borrow token taken before the
 * TERMINAL was read holds retirement until it returns.
 */
TEST_F(en, auto_retire_retires_once_and_waits_for_the_last_token)
{
	struct retire_stats before, after;
	struct retire_op ops[4];
	struct retire_cqe cqes[8];
	__u64 h, tok;
	int n;

	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_INLINE, 0));
	ASSERT_EQ(0, rt_stats(self->r, &before));
	en_submits(ops, self->buf, 1, RETIRE_SQE_F_AUTO_RETIRE);
	ASSERT_EQ(0, retire_enter(self->r, ops, 1, NULL, 0, 0, 0));
	ASSERT_EQ(0, ops[0].result);
	h = ops[0].handle;

	/* a token, then the TERMINAL: consumed, but the token holds it */
	retire_prep_borrow(&ops[0], h);
	n = retire_enter(self->r, ops, 1, cqes, 8, 1, 2000 * RT_MS);
	ASSERT_EQ(1, n);
	ASSERT_EQ(0, ops[0].result);
	tok = ops[0].handle;
	EXPECT_EQ(RETIRE_REC_TERMINAL, cqes[0].type);
	EXPECT_EQ(0, retire_enter(self->r, NULL, 0, cqes, 8, 0, 0));
	retire_prep_release(&ops[0], h);
	ASSERT_EQ(0, retire_enter(self->r, ops, 1, NULL, 0, 0, 0));
	EXPECT_EQ(-EALREADY, ops[0].result);

	/* the last token back: RETIRED, once */
	retire_prep_return(&ops[0], tok, 0);
	n = retire_enter(self->r, ops, 1, cqes, 8, 1, 2000 * RT_MS);
	ASSERT_EQ(1, n);
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(RETIRE_REC_RETIRED, cqes[0].type);
	EXPECT_EQ(h, cqes[0].handle);
	retire_prep_release(&ops[0], h);
	retire_prep_release(&ops[1], h);
	ASSERT_EQ(0, retire_enter(self->r, ops, 2, cqes, 8, 0, 0));
	EXPECT_EQ(-ENOENT, ops[0].result);
	EXPECT_EQ(-ENOENT, ops[1].result);
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.retired + 1, after.retired);
	EXPECT_EQ(before.physical_outstanding, after.physical_outstanding);
}

/*
 * RETIRE_SQE_F_ONE_RECORD: each request's TERMINAL record says it retired
 * (RETIRE_CQE_F_RETIRED) and is its only record, whether read by ENTER or
 * by read(); it retired exactly once (its handle is stale at once). A
 * request with a token out when its TERMINAL is read says nothing of the
 * sort and gets its RETIRED record when the token returns. Without
 * AUTO_RETIRE the flag is refused.
 */
TEST_F(en, one_record_requests_say_they_retired_in_their_terminal)
{
	struct retire_stats before, after;
	struct retire_op ops[NBUF];
	struct retire_cqe cqes[NBUF];
	unsigned int i;
	__u64 h, tok;
	ssize_t got;
	int n;

	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_INLINE, 0));
	ASSERT_EQ(0, rt_stats(self->r, &before));
	en_submits(ops, self->buf, 32, RETIRE_SQE_F_AUTO_RETIRE |
					 RETIRE_SQE_F_ONE_RECORD);
	n = retire_enter(self->r, ops, 32, cqes, NBUF, 32, 2000 * RT_MS);
	ASSERT_EQ(32, n);
	for (i = 0; i < 32; i++) {
		ASSERT_EQ(0, ops[i].result);
		EXPECT_EQ(RETIRE_REC_TERMINAL, cqes[i].type);
		EXPECT_EQ(ops[i].handle, cqes[i].handle);
		EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, cqes[i].outcome);
		EXPECT_TRUE(cqes[i].flags & RETIRE_CQE_F_RETIRED);
	}
	/* the same through read(): nothing more, and every handle stale */
	en_submits(ops, self->buf + 32, 16, RETIRE_SQE_F_AUTO_RETIRE |
					      RETIRE_SQE_F_ONE_RECORD);
	ASSERT_EQ(0, retire_enter(self->r, ops, 16, NULL, 0, 0, 0));
	got = read(retire_get_fd(self->r), cqes, sizeof(cqes));
	ASSERT_EQ(16 * sizeof(cqes[0]), got);
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(RETIRE_REC_TERMINAL, cqes[i].type);
		EXPECT_TRUE(cqes[i].flags & RETIRE_CQE_F_RETIRED);
		retire_prep_release(&ops[i], cqes[i].handle);
	}
	ASSERT_EQ(0, retire_enter(self->r, ops, 16, cqes, NBUF, 0, 0));
	for (i = 0; i < 16; i++)
		EXPECT_EQ(-ENOENT, ops[i].result);
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.retired + 48, after.retired);
	EXPECT_EQ(before.physical_outstanding, after.physical_outstanding);

	/* a token out when the TERMINAL is read: RETIRED comes after it */
	en_submits(ops, self->buf, 1, RETIRE_SQE_F_AUTO_RETIRE |
				       RETIRE_SQE_F_ONE_RECORD);
	ASSERT_EQ(0, retire_enter(self->r, ops, 1, NULL, 0, 0, 0));
	h = ops[0].handle;
	retire_prep_borrow(&ops[0], h);
	ASSERT_EQ(1, retire_enter(self->r, ops, 1, cqes, NBUF, 1,
				  2000 * RT_MS));
	ASSERT_EQ(0, ops[0].result);
	tok = ops[0].handle;
	EXPECT_EQ(RETIRE_REC_TERMINAL, cqes[0].type);
	EXPECT_FALSE(cqes[0].flags & RETIRE_CQE_F_RETIRED);
	retire_prep_return(&ops[0], tok, 0);
	ASSERT_EQ(1, retire_enter(self->r, ops, 1, cqes, NBUF, 1,
				  2000 * RT_MS));
	EXPECT_EQ(RETIRE_REC_RETIRED, cqes[0].type);
	EXPECT_EQ(h, cqes[0].handle);

	/* the flag alone is refused, changing nothing */
	en_submits(ops, self->buf, 1, RETIRE_SQE_F_ONE_RECORD);
	ASSERT_EQ(0, retire_enter(self->r, ops, 1, NULL, 0, 0, 0));
	EXPECT_EQ(-EINVAL, ops[0].result);
	EXPECT_EQ(0, retire_enter(self->r, NULL, 0, cqes, NBUF, 0, 0));
}

/*
 * 64 requests on the timer engine make 128 records; reaping them 5 at a
 * time (and with calls that reap nothing) loses none and repeats none.
 */
TEST_F(en, small_record_arrays_never_lose_a_record)
{
	struct retire_op ops[NBUF];
	struct retire_cqe cqes[5];
	unsigned int i, got = 0, calls = 0;
	int n;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 0));
	en_submits(ops, self->buf, NBUF, RETIRE_SQE_F_AUTO_RETIRE);
	ASSERT_EQ(0, retire_enter(self->r, ops, NBUF, NULL, 0, 0, 0));
	for (i = 0; i < NBUF; i++)
		ASSERT_EQ(0, ops[i].result);
	while (got < 2 * NBUF && calls++ < 10000) {
		n = retire_enter(self->r, NULL, 0, cqes, 5, 1, 2000 * RT_MS);
		ASSERT_LE(0, n);
		for (i = 0; i < (unsigned int)n; i++)
			ASSERT_EQ(0, rt_log_add(&self->log, &cqes[i]));
		got += n;
	}
	ASSERT_EQ(2 * NBUF, got);
	for (i = 0; i < NBUF; i++) {
		EXPECT_EQ(1, rt_count(&self->log, ops[i].handle,
				      RETIRE_REC_TERMINAL));
		EXPECT_EQ(1, rt_count(&self->log, ops[i].handle,
				      RETIRE_REC_RETIRED));
	}
	EXPECT_EQ(0, retire_enter(self->r, NULL, 0, cqes, 5, 0, 0));
}

static int en_raw(int fd, struct retire_enter *e)
{
	return ioctl(fd, RETIRE_IOC_ENTER, e) < 0 ? -errno : 0;
}

/*
 * ENTER writes back its two outputs, done and reaped, and nothing else of
 * the caller's structure: one whose reserved tail lies in a read-only page
 * works (a write-back of the whole structure faulted on it), and the tail
 * a caller could read back is as it was.
 */
TEST_F(en, enter_writes_back_only_done_and_reaped)
{
	struct retire_cqe cqes[4];
	struct retire_enter *e;
	long pg = sysconf(_SC_PAGESIZE);
	char *map;

	map = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	/* done and reaped in the first page, reserved[] in the second */
	e = (struct retire_enter *)(map + pg -
				    offsetof(struct retire_enter, reserved));
	e->cqes = (__u64)(uintptr_t)cqes;
	e->nr_cqes = 4;
	e->done = 7;
	e->reaped = 9;
	ASSERT_EQ(0, mprotect(map + pg, pg, PROT_READ));
	EXPECT_EQ(0, en_raw(retire_get_fd(self->r), e));
	EXPECT_EQ(0, e->done);
	EXPECT_EQ(0, e->reaped);
	EXPECT_EQ(0, e->reserved[0]);
	EXPECT_EQ(0, e->reserved[1]);
	EXPECT_EQ(4, e->nr_cqes);
	EXPECT_EQ(0, munmap(map, 2 * pg));
}

/*
 * Every malformed batch is refused as a whole with -EINVAL or -EFAULT
 * before any operation runs: nothing is admitted. A malformed operation
 * inside a good batch gets -EINVAL in its own result and changes nothing,
 * while the good operations around it run.
 */
TEST_F(en, bad_batches_and_operations_refused_changing_nothing)
{
	struct retire_stats before, after;
	struct retire_op ops[4];
	struct retire_cqe cqes[4];
	struct retire_enter e, good;
	int fd = retire_get_fd(self->r), i;

	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_INLINE, 0));
	ASSERT_EQ(0, rt_stats(self->r, &before));
	en_submits(ops, self->buf, 1, RETIRE_SQE_F_AUTO_RETIRE);
	memset(&good, 0, sizeof(good));
	good.ops = (__u64)(uintptr_t)ops;
	good.nr_ops = 1;
	good.cqes = (__u64)(uintptr_t)cqes;
	good.nr_cqes = 4;

	/* done and reaped are outputs: bad_input_test.c shows them ignored */
	for (i = 0; i < 9; i++) {
		e = good;
		switch (i) {
		case 0: e.flags = RETIRE_ENTER_F_ALL + 1; break;
		case 1: e.reserved[0] = 1; break;
		case 2: e.reserved[1] = 1ULL << 63; break;
		case 3: e.nr_ops = RETIRE_SUBMIT_MAX + 1; break;
		case 4: e.nr_cqes = RETIRE_SUBMIT_MAX + 1; break;
		case 5: e.min_complete = 5; break;
		case 6: e.nr_ops = 0; e.nr_cqes = 0; break;
		case 7: e.ops = 8; break;			/* unmapped */
		case 8: e.ops = (__u64)(uintptr_t)"ro"; break;	/* unwritable */
		}
		EXPECT_EQ(i >= 7 ? -EFAULT : -EINVAL, en_raw(fd, &e))
			TH_LOG("case %d", i);
	}
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.admitted, after.admitted);
	EXPECT_EQ(before.refused, after.refused);

	/* bad operations between good ones */
	en_submits(&ops[0], &self->buf[0], 1, RETIRE_SQE_F_AUTO_RETIRE);
	retire_prep_op(&ops[1], 99, 0);				/* opcode */
	en_submits(&ops[2], &self->buf[1], 1, RETIRE_SQE_F_ALL + 1);	/* flag */
	retire_prep_cancel(&ops[3], 1);
	ops[3].len = 1;					/* a SUBMIT field */
	e = good;
	e.nr_ops = 4;
	e.min_complete = 2;
	ASSERT_EQ(0, en_raw(fd, &e));
	EXPECT_EQ(4, e.done);
	EXPECT_EQ(2, e.reaped);
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(-EINVAL, ops[1].result);
	EXPECT_EQ(-EINVAL, ops[2].result);
	EXPECT_EQ(-EINVAL, ops[3].result);
	EXPECT_EQ(0, ops[1].handle);
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.admitted + 1, after.admitted);
	EXPECT_EQ(before.retired + 1, after.retired);
}

/*
 * @op sent as its own ioctl, as libretire 1.0 would: SUBMIT as a batch of
 * one, CANCEL and RETIRE with the handle, the token operations through
 * RETIRE_IOC_TOKEN (an opcode it has no name for as op 0). Returns the
 * entry's result, or the ioctl's errno.
 */
static int en_single(int fd, const struct retire_op *op)
{
	struct retire_handle_arg h = { .handle = op->handle };
	struct retire_token_op t = { .handle = op->handle,
				     .error = op->error };
	struct retire_submit sub = { .nr = 1 };
	struct retire_sqe sqe = {
		.user_data = op->user_data, .buf = op->buf,
		.offset = op->offset, .len = op->len,
		.deadline_ns = op->deadline_ns, .key = op->key,
		.dev_flags = op->dev_flags, .flags = op->flags,
	};
	int ret;

	switch (op->opcode) {
	case RETIRE_OP_SUBMIT:
		sub.sqes = (__u64)(uintptr_t)&sqe;
		ret = rt_ioctl(fd, RETIRE_IOC_SUBMIT, &sub);
		return ret ?: sqe.result;
	case RETIRE_OP_CANCEL:
		return rt_ioctl(fd, RETIRE_IOC_CANCEL, &h);
	case RETIRE_OP_RETIRE:
		return rt_ioctl(fd, RETIRE_IOC_RETIRE, &h);
	case RETIRE_OP_BORROW:
		t.op = RETIRE_TOKEN_BORROW;
		break;
	case RETIRE_OP_RETURN:
		t.op = RETIRE_TOKEN_RETURN;
		break;
	case RETIRE_OP_HANDOFF:
		t.op = RETIRE_TOKEN_HANDOFF;
		break;
	default:
		t.op = 0;
		break;
	}
	return rt_ioctl(fd, RETIRE_IOC_TOKEN, &t);
}

/* @b - @a, field by field, into @d */
static void en_stats_delta(const struct retire_stats *a,
			   const struct retire_stats *b,
			   struct retire_stats *d)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < sizeof(rt_stat_fields) / sizeof(rt_stat_fields[0]);
	     i++)
		*(__u64 *)((char *)d + rt_stat_fields[i].off) =
			rt_stat_get(b, rt_stat_fields[i].off) -
			rt_stat_get(a, rt_stat_fields[i].off);
}

/*
 * The single-op ioctls and ENTER's operations are one path: the same
 * malformed or stale operation gets the same errno either way, and moves
 * the same counters (stale handles, refusals) by the same amounts. REAP is
 * an ENTER without operations: the same bad arguments, the same answers.
 */
TEST_F(en, single_op_ioctls_and_enter_operations_answer_alike)
{
	static const __u64 stale = 0xdead;
	struct retire_stats s0, s1, s2, d1, d2;
	struct retire_op ops[24], one;
	struct retire_reap reap;
	struct retire_cqe cqes[4];
	struct retire_enter e;
	int fd = retire_get_fd(self->r), want[24], got;
	unsigned int n = 0, i;
	const char *diff;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 0));
#define EN_SUBMIT(field, value, err) do {				\
		retire_prep_submit(&ops[n], self->buf[0], 0, 128,	\
				   RETIRE_DEV_READ, n);			\
		ops[n].field = value;					\
		want[n++] = err;					\
	} while (0)
	EN_SUBMIT(len, 0, -EINVAL);
	EN_SUBMIT(dev_flags, 0, -EINVAL);
	EN_SUBMIT(dev_flags, RETIRE_DEV_ALL + 1, -EINVAL);
	EN_SUBMIT(flags, RETIRE_SQE_F_ONE_RECORD, -EINVAL);
	EN_SUBMIT(flags, RETIRE_SQE_F_ALL + 1, -EINVAL);
	EN_SUBMIT(deadline_ns, 1ULL << 63, -EINVAL);
	EN_SUBMIT(buf, stale, -ENOENT);
	EN_SUBMIT(offset, RT_PAGE, -EINVAL);
#undef EN_SUBMIT
#define EN_OP(opcode, handle, err, e) do {				\
		retire_prep_op(&ops[n], opcode, handle);		\
		ops[n].error = e;					\
		want[n++] = err;					\
	} while (0)
	EN_OP(RETIRE_OP_CANCEL, stale, -ENOENT, 0);
	EN_OP(RETIRE_OP_RETIRE, stale, -ENOENT, 0);
	EN_OP(RETIRE_OP_BORROW, stale, -ENOENT, 0);
	EN_OP(RETIRE_OP_BORROW, stale, -EINVAL, -EIO);
	EN_OP(RETIRE_OP_HANDOFF, stale, -EINVAL, -EIO);
	EN_OP(RETIRE_OP_HANDOFF, stale, -ENOENT, 0);
	EN_OP(RETIRE_OP_RETURN, stale, -ENOENT, -EIO);
	EN_OP(RETIRE_OP_RETURN, stale, -EINVAL, 1);
	EN_OP(RETIRE_OP_RETURN, stale, -EINVAL, -4096);
	EN_OP(0, stale, -EINVAL, 0);
#undef EN_OP
	ASSERT_GE(ARRAY_SIZE(ops), n);

	/* each as its own ioctl */
	ASSERT_EQ(0, rt_stats(self->r, &s0));
	for (i = 0; i < n; i++) {
		one = ops[i];
		EXPECT_EQ(want[i], en_single(fd, &one)) TH_LOG("case %u", i);
	}
	ASSERT_EQ(0, rt_stats(self->r, &s1));

	/* then all of them in one ENTER */
	memset(&e, 0, sizeof(e));
	e.ops = (__u64)(uintptr_t)ops;
	e.nr_ops = n;
	ASSERT_EQ(0, en_raw(fd, &e));
	EXPECT_EQ(n, e.done);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(want[i], ops[i].result) TH_LOG("case %u", i);
		/* refused: a SUBMIT's handle is 0, another's is unchanged */
		EXPECT_EQ(ops[i].opcode == RETIRE_OP_SUBMIT ? 0 : stale,
			  ops[i].handle) TH_LOG("case %u", i);
	}
	ASSERT_EQ(0, rt_stats(self->r, &s2));
	en_stats_delta(&s0, &s1, &d1);
	en_stats_delta(&s1, &s2, &d2);
	diff = rt_stats_diff(&d1, &d2, NULL);
	EXPECT_EQ(NULL, diff) TH_LOG("%s moved differently", diff);
	EXPECT_EQ(0, d1.admitted);
	EXPECT_LT(0, d1.stale_user + d1.stale_token + d1.stale_cancel);

	/* REAP and an ENTER without operations */
	for (i = 0; i < 4; i++) {
		memset(&reap, 0, sizeof(reap));
		reap.cqes = (__u64)(uintptr_t)cqes;
		reap.nr = 4;
		reap.timeout_ns = RT_MS;
		switch (i) {
		case 0: reap.nr = 0; break;
		case 1: reap.nr = RETIRE_SUBMIT_MAX + 1; break;
		case 2: reap.min_complete = 5; break;
		case 3: reap.min_complete = 1; break;	/* nothing comes */
		}
		memset(&e, 0, sizeof(e));
		e.cqes = reap.cqes;
		e.nr_cqes = reap.nr;
		e.min_complete = reap.min_complete;
		e.timeout_ns = reap.timeout_ns;
		got = rt_ioctl(fd, RETIRE_IOC_REAP, &reap);
		EXPECT_EQ(i < 3 ? -EINVAL : 0, got) TH_LOG("reap case %u", i);
		EXPECT_EQ(got, en_raw(fd, &e)) TH_LOG("reap case %u", i);
		EXPECT_EQ(0, e.reaped);
	}
}

/*
 * A child submits batches on the timer engine (with a latency) and dies
 * by SIGKILL at a random point, its records unread: the module's gauges
 * return to where they were, so every request it admitted was retired by
 * the reaper, exactly once.
 */
/* the child: batches in flight, the first left to the reaper unretired */
static void en_child(unsigned int round)
{
	struct retire_op ops[NBUF];
	struct retire_cqe cqes[16];
	struct retire *c;
	__u64 b[NBUF];
	unsigned int i;

	if (retire_open_device(&c, NULL, 0))
		_exit(2);
	for (i = 0; i < NBUF; i++)
		if (rt_register(c, RT_PAGE, &b[i], NULL))
			_exit(3);
	en_submits(ops, b, NBUF, 0);
	for (;;) {
		retire_enter(c, ops, NBUF, cqes, 16, 0, 0);
		en_submits(ops, b, NBUF, RETIRE_SQE_F_AUTO_RETIRE);
	}
}

TEST_F(en, process_killed_with_batches_in_flight_leaves_nothing)
{
	struct retire_stats base, now;

	EXPECT_EQ(0, rt_kill_children(self->r, 8, en_child, &base, &now))
		TH_LOG("%s", rt_stats_diff(&base, &now, NULL) ?: "gauges");
}

/*
 * Closing a context with more records owed than one pass of the kernel's
 * record stage holds (300 RETIRED records here, the stage holds 256) frees
 * it: the reaper consumes every record, not only the first pass. RETIRED
 * records owe nothing more, so no new record wakes the reaper again.
 */
TEST_F(en, close_with_many_records_owed_frees_the_context)
{
	struct retire_stats base, now;
	struct retire_op ops[150];
	struct retire_cqe cqes[150];
	struct retire *c;
	__u64 b[300], h[300];
	unsigned int i, done;

	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_INLINE, 0));
	ASSERT_EQ(0, rt_settle_module(self->r, &base, 5000));
	ASSERT_EQ(0, retire_open_device(&c, NULL, 0));
	for (i = 0; i < 300; i++)
		ASSERT_EQ(0, rt_register(c, RT_PAGE, &b[i], NULL));
	for (done = 0; done < 300; done += 150) {
		en_submits(ops, b + done, 150, 0);
		ASSERT_EQ(150, retire_enter(c, ops, 150, cqes, 150, 150,
					    2000 * RT_MS));
		for (i = 0; i < 150; i++) {
			ASSERT_EQ(0, ops[i].result);
			ASSERT_EQ(RETIRE_REC_TERMINAL, cqes[i].type);
			h[done + i] = cqes[i].handle;
		}
	}
	/* retired now: 300 RETIRED records owed, left unread */
	for (done = 0; done < 300; done += 150) {
		for (i = 0; i < 150; i++)
			retire_prep_release(&ops[i], h[done + i]);
		ASSERT_EQ(0, retire_enter(c, ops, 150, NULL, 0, 0, 0));
		for (i = 0; i < 150; i++)
			ASSERT_EQ(0, ops[i].result);
	}
	retire_close_device(c);
	EXPECT_EQ(0, rt_wait_module_gauges(self->r, &base, &now, 10000))
		TH_LOG("%s", rt_stats_diff(&base, &now, NULL) ?: "gauges");
}

TEST_HARNESS_MAIN
