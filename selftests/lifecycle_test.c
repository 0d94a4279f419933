// SPDX-License-Identifier: GPL-2.0
/*
 * The life of a request, one test per race exit of the design (success
 * before the deadline, cancel that wins, cancel that is too late, wrong
 * handle, consumer error, closed and reused fd, killed owner), plus
 * timeouts, token handoff, every release order of three borrows, failures,
 * what the sim engine does to the bytes, and stale engine events.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libretire.h"
#include "retire_test.h"

#define LEN		(4 * RT_PAGE)

/* every record flag that only a completed terminal record may carry */
#define NOT_MEASURED(c)	\
	(!((c).flags & RETIRE_CQE_F_MEASURED) && !(c).result_len && \
	 !(c).latency_ns && !(c).checksum)

/* ---- one context, one mapped module buffer ------------------------------ */

FIXTURE(lifecycle) {
	struct retire *r;
	__u64 buf;
	unsigned char *map;
	struct rt_log log;
};

FIXTURE_SETUP(lifecycle)
{
	void *map;

	RT_OPEN_OR_SKIP(self->r);
	rt_sim_neutral(self->r);
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	ASSERT_EQ(0, retire_alloc_buffer(self->r, LEN, &self->buf, &map));
	self->map = map;
}

FIXTURE_TEARDOWN(lifecycle)
{
	/* end whatever a failed test left in flight or hung */
	rt_sim_neutral(self->r);
	if (self->map)
		munmap(self->map, LEN);
	rt_log_free(&self->log);
	retire_close_device(self->r);
}

TEST_F(lifecycle, exit1_success_before_deadline_retires_at_once)
{
	struct retire_stats st;
	struct retire_cqe c;
	__u64 h, t0, waited;

	t0 = rt_now_ns();
	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_WRITE,
			       0x11, 1000 * RT_MS, &h));
	EXPECT_EQ(RETIRE_KIND_REQ, RETIRE_HANDLE_KIND(h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     3000));
	EXPECT_EQ(0x11, c.user_data);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(0, c.error);
	EXPECT_TRUE(c.flags & RETIRE_CQE_F_MEASURED);
	EXPECT_EQ(0, c.flags & (RETIRE_CQE_F_TIMED_OUT |
				RETIRE_CQE_F_OUTSTANDING |
				RETIRE_CQE_F_CANCEL_REQUESTED));
	EXPECT_EQ(LEN, c.result_len);
	EXPECT_LT(0, c.latency_ns);
	EXPECT_EQ(0, c.reserved);
	EXPECT_EQ(-1, rt_check_pattern(self->map, LEN, 0x11));

	/* let the deadline pass: it finds the terminal event and does nothing */
	waited = (rt_now_ns() - t0) / RT_MS;
	if (waited < 1300)
		rt_msleep(1300 - waited);
	ASSERT_LE(0, rt_reap(self->r, &self->log, 0, 0));
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_TIMEOUT));
	EXPECT_EQ(1, rt_count_any(&self->log, h));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(0, st.timed_out);
	EXPECT_EQ(1, st.completed);
	EXPECT_EQ(1, st.published);
	EXPECT_EQ(0, st.stale_published);
	EXPECT_EQ(0, st.logical_outstanding);
	EXPECT_EQ(1, st.physical_outstanding);
	EXPECT_EQ(LEN, st.owned_bytes);

	/* no token is out: the request retires in the call itself */
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.retired);
	EXPECT_EQ(0, st.physical_outstanding);
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
	EXPECT_EQ(RETIRE_OUTCOME_RETIRED, c.outcome);
	EXPECT_EQ(0x11, c.user_data);
	EXPECT_TRUE(NOT_MEASURED(c));
	EXPECT_LT(rt_index(&self->log, h, RETIRE_REC_TERMINAL),
		  rt_index(&self->log, h, RETIRE_REC_RETIRED));

	/* the handle is stale now */
	EXPECT_EQ(-ENOENT, retire_cancel_request(self->r, h));
	EXPECT_EQ(-ENOENT, retire_release_request(self->r, h));

	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.admitted);
	EXPECT_EQ(st.admitted, st.retired);
	EXPECT_EQ(0, st.owned_bytes);
	EXPECT_EQ(LEN, st.owned_bytes_hwm);
	EXPECT_EQ(0, st.physical_outstanding);
	EXPECT_EQ(0, st.logical_outstanding);
	EXPECT_EQ(1, st.cancel_noent);
	EXPECT_EQ(1, st.stale_cancel);
	EXPECT_EQ(1, st.stale_user);
	EXPECT_EQ(0, st.timed_out);
}

TEST_F(lifecycle, exit2_cancel_running_gives_ack_then_cancelled_terminal)
{
	struct retire_cqe ack, term, c;
	struct retire_stats st;
	__u64 h, t;

	/* the engine may stop a started request; it would take 1 s */
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_CANCEL_RUNNING,
				    1000 * RT_MS));
	memset(self->map, 0x5a, LEN);
	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_WRITE,
			       0x22, 0, &h));
	EXPECT_EQ(0, retire_cancel_request(self->r, h));

	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL,
			     &term, 3000));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_CANCEL_ACK,
			     &ack, 0));
	/* two records, the acknowledgement first */
	EXPECT_LT(rt_index(&self->log, h, RETIRE_REC_CANCEL_ACK),
		  rt_index(&self->log, h, RETIRE_REC_TERMINAL));
	EXPECT_EQ(1, rt_count(&self->log, h, RETIRE_REC_CANCEL_ACK));
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_TIMEOUT));
	EXPECT_EQ(0, ack.error);
	EXPECT_EQ(0x22, ack.user_data);
	EXPECT_TRUE(NOT_MEASURED(ack));
	EXPECT_EQ(RETIRE_OUTCOME_CANCELLED, term.outcome);
	EXPECT_EQ(0x22, term.user_data);
	EXPECT_TRUE(NOT_MEASURED(term));
	EXPECT_TRUE(term.flags & RETIRE_CQE_F_CANCEL_REQUESTED);
	/* stopped before its first transfer: not a byte was written */
	EXPECT_EQ(-1, rt_check_fill(self->map, LEN, 0x5a));

	/* terminated: a second cancel finds nothing */
	EXPECT_EQ(-ENOENT, retire_cancel_request(self->r, h));

	/* a consumer holds the buffer past the retire call */
	ASSERT_EQ(0, retire_borrow_token(self->r, h, &t));
	EXPECT_EQ(RETIRE_KIND_TOKEN, RETIRE_HANDLE_KIND(t));
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 100));
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_RETIRED));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(0, st.retired);
	EXPECT_EQ(1, st.tokens_out);
	EXPECT_EQ(1, st.physical_outstanding);
	EXPECT_EQ(LEN, st.owned_bytes);
	EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, self->buf));

	/* the last return retires it */
	ASSERT_EQ(0, retire_return_token(self->r, t, 0));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
	EXPECT_EQ(RETIRE_OUTCOME_RETIRED, c.outcome);
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 50));
	EXPECT_EQ(1, rt_count(&self->log, h, RETIRE_REC_RETIRED));

	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.cancel_ok);
	EXPECT_EQ(0, st.cancel_already);
	EXPECT_EQ(1, st.cancel_noent);
	EXPECT_EQ(1, st.cancelled);
	EXPECT_EQ(0, st.completed);
	EXPECT_EQ(0, st.failed);
	/* a cancelled record is delivered as it is: neither count */
	EXPECT_EQ(0, st.published);
	EXPECT_EQ(0, st.stale_published);
	EXPECT_EQ(1, st.retired);
	EXPECT_EQ(0, st.tokens_out);
	EXPECT_EQ(0, st.physical_outstanding);
	EXPECT_EQ(0, st.logical_outstanding);
	EXPECT_EQ(0, st.owned_bytes);
}

/*
 * The cancel came too late to stop the device, which then succeeded: the
 * transfer counts as completed, but the record is not published as such
 * (the publication predicate: a cancel named it), so the caller cannot
 * mistake it for a result it still wants.
 */
TEST_F(lifecycle, exit3_cancel_inflight_returns_ealready_then_stale)
{
	struct retire_cqe ack, term, c;
	struct retire_stats st;
	__u64 h;

	memset(self->map, 0x3c, LEN);
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 300 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_READ,
			       0x33, 0, &h));
	rt_msleep(20);
	EXPECT_EQ(-EALREADY, retire_cancel_request(self->r, h));
	/* repeating it does not hurry it, and acknowledges nothing new */
	EXPECT_EQ(-EALREADY, retire_cancel_request(self->r, h));

	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_CANCEL_ACK,
			     &ack, 1000));
	EXPECT_EQ(-EALREADY, ack.error);
	EXPECT_TRUE(ack.flags & RETIRE_CQE_F_OUTSTANDING);
	EXPECT_EQ(0x33, ack.user_data);
	EXPECT_TRUE(NOT_MEASURED(ack));

	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL,
			     &term, 3000));
	EXPECT_EQ(1, rt_count(&self->log, h, RETIRE_REC_CANCEL_ACK));
	EXPECT_LT(rt_index(&self->log, h, RETIRE_REC_CANCEL_ACK),
		  rt_index(&self->log, h, RETIRE_REC_TERMINAL));
	/* the engine succeeded, but a cancel named it: stale, unmeasured */
	EXPECT_EQ(RETIRE_OUTCOME_STALE, term.outcome);
	EXPECT_EQ(0, term.error);
	EXPECT_EQ(0x33, term.user_data);
	EXPECT_TRUE(NOT_MEASURED(term));
	EXPECT_TRUE(term.flags & RETIRE_CQE_F_CANCEL_REQUESTED);
	EXPECT_FALSE(term.flags & RETIRE_CQE_F_OUTSTANDING);
	/* DEV_READ only: the device read the range and changed nothing */
	EXPECT_EQ(-1, rt_check_fill(self->map, LEN, 0x3c));

	/* terminated: nothing left to cancel */
	EXPECT_EQ(-ENOENT, retire_cancel_request(self->r, h));
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 50));
	EXPECT_EQ(1, rt_count(&self->log, h, RETIRE_REC_CANCEL_ACK));
	EXPECT_EQ(1, rt_count(&self->log, h, RETIRE_REC_RETIRED));

	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(2, st.cancel_already);
	EXPECT_EQ(0, st.cancel_ok);
	EXPECT_EQ(1, st.cancel_noent);
	/* a completed transfer, delivered stale */
	EXPECT_EQ(1, st.completed);
	EXPECT_EQ(0, st.published);
	EXPECT_EQ(1, st.stale_published);
	EXPECT_EQ(0, st.cancelled);
	EXPECT_EQ(0, st.failed);
	EXPECT_EQ(1, st.retired);
	EXPECT_EQ(0, st.physical_outstanding);
	EXPECT_EQ(0, st.owned_bytes);
}

TEST_F(lifecycle, exit4_wrong_handle_cancel_noent_real_target_completes)
{
	struct retire_stats st;
	struct retire_cqe c;
	__u64 h, forged_gen, forged_slot;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 200 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_WRITE,
			       0x44, 0, &h));
	forged_gen = h ^ 0xffffffffULL;		/* same slot, other generation */
	forged_slot = h ^ (1ULL << 32);		/* other slot, same generation */

	EXPECT_EQ(-ENOENT, retire_cancel_request(self->r, forged_gen));
	EXPECT_EQ(-ENOENT, retire_cancel_request(self->r, forged_slot));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(2, st.cancel_noent);
	EXPECT_EQ(2, st.stale_cancel);
	EXPECT_EQ(0, st.cancel_already);
	EXPECT_EQ(0, st.cancel_ok);
	EXPECT_EQ(1, st.physical_outstanding);

	/* the real target is still received by its correct handle */
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     3000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_FALSE(c.flags & RETIRE_CQE_F_CANCEL_REQUESTED);
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_CANCEL_ACK));
	EXPECT_EQ(0, rt_count_any(&self->log, forged_gen));
	EXPECT_EQ(0, rt_count_any(&self->log, forged_slot));
	EXPECT_EQ(-1, rt_check_pattern(self->map, LEN, 0x44));

	EXPECT_EQ(-ENOENT, retire_release_request(self->r, forged_gen));
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.retired);
	EXPECT_EQ(1, st.stale_user);
	EXPECT_EQ(0, st.physical_outstanding);
	/* a cancel naming a wrong handle does not make the target stale */
	EXPECT_EQ(1, st.published);
	EXPECT_EQ(0, st.stale_published);
}

TEST_F(lifecycle, exit4_hung_target_terminates_only_on_sim_reset)
{
	struct retire_stats st;
	struct retire_cqe c;
	__u64 h, h2, t;

	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_HANG, 20 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_WRITE,
			       0x45, 0, &h));
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 400));
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_TERMINAL));

	/* nothing may release the buffer while the target may still run */
	EXPECT_EQ(-EBUSY, retire_release_request(self->r, h));
	EXPECT_EQ(-EBUSY, retire_borrow_token(self->r, h, &t));
	EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, self->buf));
	EXPECT_EQ(-EALREADY, retire_cancel_request(self->r, h));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.physical_outstanding);
	EXPECT_EQ(LEN, st.owned_bytes);
	EXPECT_EQ(0, st.tokens_out);
	EXPECT_EQ(1, st.buffers);

	/* only the engine reset ends it */
	ASSERT_EQ(0, retire_reset_sim(self->r));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     2000));
	EXPECT_EQ(RETIRE_OUTCOME_FAILED, c.outcome);
	EXPECT_EQ(-ECANCELED, c.error);
	EXPECT_TRUE(NOT_MEASURED(c));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));

	/* the buffer is FREE and the engine works again */
	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_WRITE,
			       0x46, 0, &h2));
	EXPECT_NE(h, h2);
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h2, RETIRE_REC_TERMINAL, &c,
			     3000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	ASSERT_EQ(0, retire_release_request(self->r, h2));

	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.failed);
	EXPECT_EQ(1, st.completed);
	EXPECT_EQ(2, st.retired);
	EXPECT_EQ(0, st.physical_outstanding);
}

TEST_F(lifecycle, exit5_consumer_error_returns_token_once)
{
	struct retire_stats st;
	struct retire_cqe c;
	__u64 h, t1, t2;

	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_WRITE,
			       0x55, 0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     3000));
	ASSERT_EQ(0, retire_borrow_token(self->r, h, &t1));
	ASSERT_EQ(0, retire_borrow_token(self->r, h, &t2));
	EXPECT_NE(t1, t2);
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(2, st.tokens_out);

	/* the consumer fails and gives its token back on its error path */
	EXPECT_EQ(0, retire_return_token(self->r, t1, -EIO));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.consumer_errors);
	EXPECT_EQ(1, st.tokens_out);
	EXPECT_EQ(0, st.protocol_errors);

	/* a duplicate return is a protocol error and releases nothing */
	EXPECT_EQ(-ENOENT, retire_return_token(self->r, t1, -EIO));
	EXPECT_EQ(-ENOENT, retire_return_token(self->r, t1, 0));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(2, st.protocol_errors);
	EXPECT_EQ(1, st.consumer_errors);
	EXPECT_EQ(1, st.tokens_out);

	/* t2 still holds the buffer */
	ASSERT_EQ(0, retire_release_request(self->r, h));
	EXPECT_EQ(-EALREADY, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 100));
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_RETIRED));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(0, st.retired);
	EXPECT_EQ(1, st.physical_outstanding);

	EXPECT_EQ(0, retire_return_token(self->r, t2, 0));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
	EXPECT_EQ(-ENOENT, retire_return_token(self->r, t2, 0));
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 100));
	EXPECT_EQ(1, rt_count(&self->log, h, RETIRE_REC_RETIRED));

	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.retired);
	EXPECT_EQ(0, st.tokens_out);
	EXPECT_EQ(3, st.protocol_errors);
	EXPECT_EQ(1, st.consumer_errors);
	EXPECT_EQ(0, st.physical_outstanding);
	EXPECT_EQ(0, st.owned_bytes);
}

TEST_F(lifecycle, timeout_delivers_timed_out_and_keeps_buffer_owned)
{
	struct retire_cqe to, term, c;
	struct retire_stats st;
	__u64 h, t;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 600 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_WRITE,
			       0x66, 50 * RT_MS, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TIMEOUT, &to,
			     2000));
	EXPECT_EQ(RETIRE_OUTCOME_TIMED_OUT, to.outcome);
	EXPECT_TRUE(to.flags & RETIRE_CQE_F_OUTSTANDING);
	EXPECT_EQ(0x66, to.user_data);
	EXPECT_TRUE(NOT_MEASURED(to));
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_TERMINAL));

	/* the caller stopped waiting; the device did not stop */
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.timed_out);
	EXPECT_EQ(0, st.logical_outstanding);
	EXPECT_EQ(1, st.physical_outstanding);
	EXPECT_EQ(LEN, st.owned_bytes);
	EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, self->buf));
	EXPECT_EQ(-EBUSY, retire_borrow_token(self->r, h, &t));
	EXPECT_EQ(-EBUSY, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.buffers);
	EXPECT_EQ(0, st.tokens_out);
	EXPECT_EQ(0, st.retired);

	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL,
			     &term, 3000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, term.outcome);
	EXPECT_TRUE(term.flags & RETIRE_CQE_F_TIMED_OUT);
	EXPECT_TRUE(term.flags & RETIRE_CQE_F_MEASURED);
	EXPECT_EQ(LEN, term.result_len);
	EXPECT_EQ(1, rt_count(&self->log, h, RETIRE_REC_TIMEOUT));
	EXPECT_LT(rt_index(&self->log, h, RETIRE_REC_TIMEOUT),
		  rt_index(&self->log, h, RETIRE_REC_TERMINAL));
	EXPECT_EQ(-1, rt_check_pattern(self->map, LEN, 0x66));

	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
	munmap(self->map, LEN);
	self->map = NULL;
	EXPECT_EQ(0, retire_unregister_buffer(self->r, self->buf));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(0, st.buffers);
	EXPECT_EQ(1, st.timed_out);
	EXPECT_EQ(1, st.completed);
	/* a timeout is no cancel: the late result is still published */
	EXPECT_EQ(1, st.published);
	EXPECT_EQ(0, st.physical_outstanding);
}

/* the destination's own finish: @finish_ns after the last byte */
static int set_finish(struct retire *r, __u32 flags, __u64 finish_ns)
{
	struct retire_sim_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.op = RETIRE_SIM_SET;
	cfg.flags = flags;
	cfg.finish_ns = finish_ns;
	return retire_set_sim_config(r, &cfg);
}

/* every byte went, but the body stays owned until the terminal event */
/*
 * A context's deadlines share one timer: whatever order they are set in,
 * each request with a deadline gets exactly one TIMEOUT, in deadline
 * order; a request without one gets none; and a request that terminates
 * first takes its deadline along, so nothing fires for it later.
 */
TEST_F(lifecycle, deadlines_in_any_order_each_time_out_once_in_order)
{
	static const unsigned int ms[] = { 100, 700, 300, 500, 200, 600, 400,
					   800, 0, 0, 0, 0, 3000, 3000 };
	enum { N = sizeof(ms) / sizeof(ms[0]) };
	__u64 h[N], buf[N], last = 0;
	struct retire_stats st;
	struct retire_cqe c;
	unsigned int i, j, timeouts = 0;

	for (i = 0; i < N; i++)
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &buf[i], NULL));
	/* every request outlives the deadlines below 1 s, none the last */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 1500 * RT_MS));
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, rt_submit(self->r, buf[i], 0, RT_PAGE,
				       RETIRE_DEV_WRITE, i, ms[i] * RT_MS,
				       &h[i]));
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, rt_wait(self->r, &self->log, h[i],
				     RETIRE_REC_TERMINAL, &c, 5000));
	/* past the 3 s deadlines of the two that completed at 1.5 s */
	rt_msleep(2000);
	ASSERT_LE(0, rt_reap(self->r, &self->log, 0, 0));

	for (i = 0; i < self->log.n; i++) {
		c = self->log.c[i];
		if (c.type != RETIRE_REC_TIMEOUT)
			continue;
		timeouts++;
		ASSERT_GT(N, c.user_data);
		j = c.user_data;
		EXPECT_EQ(h[j], c.handle);
		EXPECT_GT(1000, ms[j]);
		EXPECT_NE(0, ms[j]);
		/* in deadline order */
		EXPECT_LT(last, ms[j]);
		last = ms[j];
	}
	EXPECT_EQ(8, timeouts);
	for (i = 0; i < N; i++) {
		EXPECT_EQ(ms[i] && ms[i] < 1000 ? 1 : 0,
			  rt_count(&self->log, h[i], RETIRE_REC_TIMEOUT));
		EXPECT_EQ(1, rt_count(&self->log, h[i], RETIRE_REC_TERMINAL));
	}
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(8, st.timed_out);
	EXPECT_EQ(N, st.completed);
	for (i = 0; i < N; i++)
		EXPECT_EQ(0, retire_release_request(self->r, h[i]));
}

TEST_F(lifecycle, finish_ns_keeps_the_body_owned_after_its_last_byte)
{
	struct retire_sim_config got;
	struct retire_stats st;
	struct retire_cqe term;
	__u64 h, t0;
	int ret;

	ASSERT_EQ(0, set_finish(self->r, 0, 500 * RT_MS));
	memset(&got, 0, sizeof(got));
	ASSERT_EQ(0, retire_get_sim_config(self->r, &got));
	EXPECT_EQ(500 * RT_MS, got.finish_ns);
	memset(self->map, 0x3c, LEN);
	t0 = rt_now_ns();
	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_READ,
			       0x77, 0, &h));
	/* the last byte moves at once (no latency, no bandwidth limit) */
	RT_POLL_UNTIL((ret = rt_stats(self->r, &st)) ||
		      st.engine_bytes == LEN, 400, 5);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(LEN, st.engine_bytes);
	ASSERT_LT(rt_now_ns() - t0, 400 * RT_MS);
	EXPECT_EQ(1, st.device_outstanding);
	EXPECT_EQ(1, st.physical_outstanding);
	EXPECT_EQ(LEN, st.owned_bytes);
	ASSERT_LE(0, rt_reap(self->r, &self->log, 0, 0));
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_TERMINAL));
	EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, self->buf));

	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL,
			     &term, 3000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, term.outcome);
	EXPECT_EQ(LEN, term.result_len);
	EXPECT_EQ(rt_fnv1a64(self->map, LEN), term.checksum);
	EXPECT_LE(500 * RT_MS, term.latency_ns);
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(0, st.device_outstanding);
	EXPECT_EQ(1, st.physical_outstanding);
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(0, st.physical_outstanding);
	EXPECT_EQ(0, st.owned_bytes);
}

/* a cancel that may stop a started job stops it in its finish window */
TEST_F(lifecycle, cancel_in_the_finish_window_stops_the_job)
{
	struct retire_stats st;
	struct retire_cqe term;
	__u64 h, t0;
	int ret;

	ASSERT_EQ(0, set_finish(self->r, RETIRE_SIM_F_CANCEL_RUNNING,
				2000 * RT_MS));
	t0 = rt_now_ns();
	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_READ,
			       0x78, 0, &h));
	RT_POLL_UNTIL((ret = rt_stats(self->r, &st)) ||
		      st.engine_bytes == LEN, 1500, 5);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(LEN, st.engine_bytes);
	ASSERT_LT(rt_now_ns() - t0, 1500 * RT_MS);
	/*
	 * The bytes are counted as the last transfer starts; once it has
	 * ended the job waits on its finish timer, where a cancel stops it
	 * at once (0) rather than at its next step (-EALREADY).
	 */
	rt_msleep(100);
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.device_outstanding);
	EXPECT_EQ(0, retire_cancel_request(self->r, h));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(0, st.device_outstanding);
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL,
			     &term, 1000));
	EXPECT_EQ(RETIRE_OUTCOME_CANCELLED, term.outcome);
	EXPECT_GT(2000 * RT_MS, rt_now_ns() - t0);
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(0, st.physical_outstanding);
	EXPECT_EQ(1, st.cancel_ok);
}

TEST_F(lifecycle, handoff_never_drops_count_to_zero)
{
	struct retire_stats st;
	struct retire_cqe c;
	__u64 h, t1, t2, t3, bad;

	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_WRITE,
			       0x77, 0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     3000));
	ASSERT_EQ(0, retire_borrow_token(self->r, h, &t1));
	ASSERT_EQ(0, retire_handoff_token(self->r, t1, &t2));
	EXPECT_NE(t1, t2);
	EXPECT_EQ(RETIRE_KIND_TOKEN, RETIRE_HANDLE_KIND(t2));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.tokens_out);

	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 100));
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_RETIRED));

	/* the handed-off token is stale: returning or passing it is an error */
	EXPECT_EQ(-ENOENT, retire_return_token(self->r, t1, 0));
	bad = 0;
	EXPECT_EQ(-ENOENT, retire_handoff_token(self->r, t1, &bad));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(2, st.protocol_errors);
	EXPECT_EQ(1, st.tokens_out);
	EXPECT_EQ(0, st.retired);

	/* a handoff after retire still keeps the count above zero */
	ASSERT_EQ(0, retire_handoff_token(self->r, t2, &t3));
	EXPECT_NE(t2, t3);
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 50));
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_RETIRED));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.tokens_out);
	EXPECT_EQ(0, st.retired);

	ASSERT_EQ(0, retire_return_token(self->r, t3, 0));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 100));
	EXPECT_EQ(1, rt_count(&self->log, h, RETIRE_REC_RETIRED));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.retired);
	EXPECT_EQ(0, st.tokens_out);
	EXPECT_EQ(0, st.physical_outstanding);
}

TEST_F(lifecycle, failed_request_delivers_failed_not_measured)
{
	struct retire_stats st;
	struct retire_cqe c;
	__u64 h;

	/* every activation fails */
	ASSERT_EQ(0, rt_set_sim(self->r, 0, 20 * RT_MS, 0, 0, 1, 1));
	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_WRITE,
			       0x88, 0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     3000));
	EXPECT_EQ(RETIRE_OUTCOME_FAILED, c.outcome);
	EXPECT_EQ(-EIO, c.error);
	EXPECT_EQ(0x88, c.user_data);
	EXPECT_TRUE(NOT_MEASURED(c));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.failed);
	EXPECT_EQ(0, st.completed);
	EXPECT_EQ(0, st.published);
	EXPECT_EQ(0, st.stale_published);
	EXPECT_EQ(0, st.logical_outstanding);

	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.retired);
	EXPECT_EQ(0, st.physical_outstanding);
}

/* submit, wait for the terminal record, retire: returns the terminal */
static void run_one(struct __test_metadata *_metadata,
		    FIXTURE_DATA(lifecycle) *self, __u64 off, __u64 len,
		    __u32 dev_flags, __u64 ud, struct retire_cqe *term)
{
	struct retire_cqe c;
	__u64 h;

	ASSERT_EQ(0, rt_submit(self->r, self->buf, off, len, dev_flags, ud, 0,
			       &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL,
			     term, 3000));
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
}

TEST_F(lifecycle, engine_writes_and_reads_per_dev_flags)
{
	struct retire_stats st, mbefore, mafter;
	unsigned char *copy;
	struct retire_cqe c;
	size_t i;

	copy = malloc(LEN);
	ASSERT_NE(NULL, copy);
	/* 1 KiB per 1 ms tick: several transfers per request */
	ASSERT_EQ(0, rt_set_sim(self->r, 0, 20 * RT_MS, 1 * RT_MS, 1024, 0,
				7));

	/* DEV_WRITE: the pattern in the range, nothing outside */
	memset(self->map, 0x5a, LEN);
	run_one(_metadata, self, 100, 5000, RETIRE_DEV_WRITE, 0x1234567, &c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(5000, c.result_len);
	EXPECT_EQ(-1, rt_check_pattern(self->map + 100, 5000, 0x1234567));
	EXPECT_EQ(-1, rt_check_fill(self->map, 100, 0x5a));
	EXPECT_EQ(-1, rt_check_fill(self->map + 5100, LEN - 5100, 0x5a));

	/* DEV_READ: the checksum of the range, no byte changed */
	for (i = 0; i < LEN; i++)
		self->map[i] = (unsigned char)(i * 7 + 3);
	memcpy(copy, self->map, LEN);
	run_one(_metadata, self, RT_PAGE + 17, 3000, RETIRE_DEV_READ, 0x99,
		&c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(3000, c.result_len);
	EXPECT_EQ(rt_fnv1a64(copy + RT_PAGE + 17, 3000), c.checksum);
	EXPECT_EQ(0, memcmp(copy, self->map, LEN));

	/* both: each chunk is read, then written */
	run_one(_metadata, self, 8000, 4000, RETIRE_DEV_READ | RETIRE_DEV_WRITE,
		0xabc, &c);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(rt_fnv1a64(copy + 8000, 4000), c.checksum);
	EXPECT_EQ(-1, rt_check_pattern(self->map + 8000, 4000, 0xabc));
	EXPECT_EQ(0, memcmp(copy, self->map, 8000));
	EXPECT_EQ(0, memcmp(copy + 12000, self->map + 12000, LEN - 12000));

	/* an access outside dev_flags is refused, counted and fails it */
	memcpy(copy, self->map, LEN);
	ASSERT_EQ(0, rt_mstats(self->r, &mbefore));
	ASSERT_EQ(0, rt_set_sim(self->r, RETIRE_SIM_F_VIOLATE, 20 * RT_MS, 0,
				0, 0, 7));
	run_one(_metadata, self, 0, LEN, RETIRE_DEV_READ, 0x5a5a, &c);
	EXPECT_EQ(RETIRE_OUTCOME_FAILED, c.outcome);
	EXPECT_EQ(-EACCES, c.error);
	EXPECT_TRUE(NOT_MEASURED(c));
	EXPECT_EQ(0, memcmp(copy, self->map, LEN));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.access_violations);
	EXPECT_EQ(1, st.failed);
	EXPECT_EQ(3, st.completed);
	EXPECT_EQ(4, st.retired);
	ASSERT_EQ(0, rt_mstats(self->r, &mafter));
	EXPECT_EQ(mbefore.access_violations + 1, mafter.access_violations);
	free(copy);
}

TEST_F(lifecycle, stale_engine_event_is_rejected_and_counted)
{
	struct retire_stats st, mbefore, mafter;
	struct retire_cqe c;
	__u64 h1, h2;

	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_WRITE,
			       0x101, 0, &h1));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h1, RETIRE_REC_TERMINAL, &c,
			     3000));
	ASSERT_EQ(0, retire_release_request(self->r, h1));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h1, RETIRE_REC_RETIRED, &c,
			     1000));

	ASSERT_EQ(0, rt_mstats(self->r, &mbefore));
	EXPECT_EQ(-ENOENT, retire_inject_sim_event(self->r, h1, 0));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.stale_engine);
	ASSERT_EQ(0, rt_mstats(self->r, &mafter));
	EXPECT_EQ(mbefore.stale_engine + 1, mafter.stale_engine);

	/* the same buffer again: a new incarnation, a new handle */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 300 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_WRITE,
			       0x102, 0, &h2));
	EXPECT_NE(h1, h2);
	if ((h1 >> 32) != (h2 >> 32))
		TH_LOG("note: the new request got another slot");

	/* the engine owns its live request: a forged event is refused */
	EXPECT_EQ(-EBUSY, retire_inject_sim_event(self->r, h2, -EIO));
	/* the stale one still names nothing, and cannot hit the new one */
	EXPECT_EQ(-ENOENT, retire_inject_sim_event(self->r, h1, -EIO));
	/* nor can a handle of the wrong kind */
	EXPECT_EQ(-ENOENT, retire_inject_sim_event(self->r, self->buf, 0));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(3, st.stale_engine);

	ASSERT_EQ(0, rt_wait(self->r, &self->log, h2, RETIRE_REC_TERMINAL, &c,
			     3000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(0x102, c.user_data);
	EXPECT_TRUE(c.flags & RETIRE_CQE_F_MEASURED);
	EXPECT_EQ(-1, rt_check_pattern(self->map, LEN, 0x102));
	ASSERT_EQ(0, retire_release_request(self->r, h2));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h2, RETIRE_REC_RETIRED, &c,
			     1000));
	/* the old handle got no record after its retirement */
	EXPECT_EQ(2, rt_count_any(&self->log, h1));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(2, st.completed);
	EXPECT_EQ(0, st.failed);
	EXPECT_EQ(2, st.retired);
}

/* ---- three borrows: every release order, retire in every place ---------- */

FIXTURE(release) {
	struct retire *r;
	__u64 buf;
	struct rt_log log;
};

FIXTURE_VARIANT(release) {
	int order[3];	/* which token each return gives back */
	int retire_at;	/* retire before return number retire_at (3: last) */
};

#define RELEASE_ORDER(abc, a, b, c)					\
	FIXTURE_VARIANT_ADD(release, abc##_retire_first) {		\
		.order = { a, b, c }, .retire_at = 0, };		\
	FIXTURE_VARIANT_ADD(release, abc##_retire_after_one) {		\
		.order = { a, b, c }, .retire_at = 1, };		\
	FIXTURE_VARIANT_ADD(release, abc##_retire_after_two) {		\
		.order = { a, b, c }, .retire_at = 2, };		\
	FIXTURE_VARIANT_ADD(release, abc##_retire_last) {		\
		.order = { a, b, c }, .retire_at = 3, }

RELEASE_ORDER(order_abc, 0, 1, 2);
RELEASE_ORDER(order_acb, 0, 2, 1);
RELEASE_ORDER(order_bac, 1, 0, 2);
RELEASE_ORDER(order_bca, 1, 2, 0);
RELEASE_ORDER(order_cab, 2, 0, 1);
RELEASE_ORDER(order_cba, 2, 1, 0);

FIXTURE_SETUP(release)
{
	RT_OPEN_OR_SKIP(self->r);
	rt_sim_neutral(self->r);
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 10 * RT_MS));
	ASSERT_EQ(0, retire_alloc_buffer(self->r, RT_PAGE, &self->buf, NULL));
}

FIXTURE_TEARDOWN(release)
{
	rt_sim_neutral(self->r);
	rt_log_free(&self->log);
	retire_close_device(self->r);
}

TEST_F(release, three_borrows_all_release_orders_retire_once)
{
	struct retire_stats st;
	struct retire_cqe c;
	__u64 h, t[3];
	int step, ret_n = 0, i;

	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, RT_PAGE,
			       RETIRE_DEV_WRITE, 0x3b, 0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     3000));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, retire_borrow_token(self->r, h, &t[i]));
	EXPECT_NE(t[0], t[1]);
	EXPECT_NE(t[1], t[2]);
	EXPECT_NE(t[0], t[2]);

	/* four events: three returns with the retire call among them */
	for (step = 0; step < 4; step++) {
		if (step == variant->retire_at) {
			ASSERT_EQ(0, retire_release_request(self->r, h));
		} else {
			EXPECT_EQ(0, retire_return_token(self->r,
						t[variant->order[ret_n]], 0));
			ret_n++;
		}
		if (step == 3)
			break;
		/* not the last of (retire, final return): still owned */
		ASSERT_EQ(0, rt_collect(self->r, &self->log, 20));
		EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_RETIRED)) {
			TH_LOG("retired after event %d", step);
		}
		ASSERT_EQ(0, rt_stats(self->r, &st));
		EXPECT_EQ(0, st.retired);
		EXPECT_EQ(3 - ret_n, st.tokens_out);
		EXPECT_EQ(1, st.physical_outstanding);
	}

	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
	/* a late duplicate return changes nothing */
	EXPECT_EQ(-ENOENT, retire_return_token(self->r,
					       t[variant->order[0]], 0));
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 50));
	EXPECT_EQ(1, rt_count(&self->log, h, RETIRE_REC_RETIRED));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.retired);
	EXPECT_EQ(0, st.tokens_out);
	EXPECT_EQ(0, st.physical_outstanding);
	EXPECT_EQ(1, st.protocol_errors);
}

/* ---- owners that leave: closed fds and killed processes ------------------ */

FIXTURE(owner) {
	struct retire *r;		/* the observer: module stats, knobs */
	struct retire_stats base;	/* module-wide, settled */
};

FIXTURE_SETUP(owner)
{
	RT_OPEN_OR_SKIP(self->r);
	rt_sim_neutral(self->r);
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	ASSERT_EQ(0, rt_settle_module(self->r, &self->base, 3000));
}

FIXTURE_TEARDOWN(owner)
{
	rt_close_neutral(self->r);
}

/* register a module buffer without mapping it: no mapping may keep the
 * file open behind a close() */
static int register_unmapped(struct retire *r, __u64 len, __u64 *handle)
{
	struct retire_buf_reg reg;
	int ret;

	memset(&reg, 0, sizeof(reg));
	reg.len = len;
	ret = retire_register_buffer(r, &reg);
	if (!ret)
		*handle = reg.handle;
	return ret;
}

TEST_F(owner, exit6_closed_fd_reused_number_is_a_new_context)
{
	struct retire_stats st, m, want;
	struct retire *a, *b;
	__u64 abuf, h, t;
	int fda, fdb;
	long refcnt;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 1000 * RT_MS));
	refcnt = rt_module_users();
	ASSERT_EQ(0, retire_open_device(&a, NULL, 0));
	fda = retire_get_fd(a);
	ASSERT_EQ(0, register_unmapped(a, LEN, &abuf));
	ASSERT_EQ(0, rt_submit(a, abuf, 0, LEN, RETIRE_DEV_WRITE, 0x6a, 0, &h));
	retire_close_device(a);
	/* the file's reference is gone; A's own pins the module until freed */
	if (refcnt < 0)
		TH_LOG("no " RT_REFCNT_PATH ": cannot check A pins the module");
	else
		EXPECT_LT(refcnt, rt_module_users());

	ASSERT_EQ(0, retire_open_device(&b, NULL, 0));
	fdb = retire_get_fd(b);
	if (fda != fdb)
		TH_LOG("note: the new context got fd %d, not %d", fdb, fda);

	/* close() is no evidence of termination: A lives on, draining */
	ASSERT_EQ(0, rt_mstats(self->r, &m));
	EXPECT_EQ(self->base.contexts + 2, m.contexts);
	EXPECT_EQ(self->base.physical_outstanding + 1, m.physical_outstanding);
	EXPECT_EQ(self->base.owned_bytes + LEN, m.owned_bytes);

	/* B is a new context: nothing of A is visible through it */
	ASSERT_EQ(0, rt_stats(b, &st));
	EXPECT_EQ(0, st.admitted);
	EXPECT_EQ(0, st.physical_outstanding);
	EXPECT_EQ(0, st.owned_bytes);
	EXPECT_EQ(0, st.buffers);
	EXPECT_EQ(-ENOENT, retire_cancel_request(b, h));
	EXPECT_EQ(-ENOENT, retire_release_request(b, h));
	EXPECT_EQ(-ENOENT, retire_borrow_token(b, h, &t));
	EXPECT_EQ(-ENOENT, retire_unregister_buffer(b, abuf));
	ASSERT_EQ(0, rt_stats(b, &st));
	EXPECT_EQ(1, st.cancel_noent);
	EXPECT_EQ(1, st.stale_cancel);
	EXPECT_EQ(1, st.stale_token);
	EXPECT_EQ(2, st.stale_user);
	EXPECT_EQ(0, st.admitted);
	EXPECT_EQ(0, st.retired);

	/* the module's reaper retires A's request and frees A */
	want = self->base;
	want.contexts = self->base.contexts + 1;
	EXPECT_EQ(0, rt_wait_module_gauges(self->r, &want, &m, 5000));
	EXPECT_GAUGES_EQ(want, m);
	EXPECT_EQ(self->base.admitted + 1, m.admitted);
	EXPECT_EQ(self->base.retired + 1, m.retired);

	retire_close_device(b);
	EXPECT_EQ(0, rt_wait_module_gauges(self->r, &self->base, &m, 5000));
	EXPECT_GAUGES_EQ(self->base, m);
}

#define OWNER_REQS	4
#define OWNER_TOKENS	2

/*
 * The killed owner: registers buffers (mapped, unmapped and pinned user
 * memory), puts OWNER_REQS requests in flight (one with a deadline, one
 * cancelled), with @tokens one of them terminated, retired and held by
 * OWNER_TOKENS borrow tokens, then tells the parent and waits for SIGKILL.
 * It never returns.
 */
static void owner_child(int wfd, long tokens)
{
	struct rt_log log = { 0 };
	__u64 buf[OWNER_REQS], h[OWNER_REQS], t[OWNER_TOKENS];
	struct retire_cqe c;
	struct retire *r;
	void *map, *mem;
	char ok = 'F';
	int i, first = 0;

	if (retire_open_device(&r, NULL, 0))
		goto out;
	if (retire_alloc_buffer(r, 2 * RT_PAGE, &buf[0], &map) ||
	    retire_alloc_buffer(r, 2 * RT_PAGE, &buf[1], NULL) ||
	    register_unmapped(r, 2 * RT_PAGE, &buf[2]))
		goto out;
	if (posix_memalign(&mem, RT_PAGE, 2 * RT_PAGE))
		goto out;
	memset(mem, 0, 2 * RT_PAGE);
	if (retire_pin_buffer(r, mem, 2 * RT_PAGE, &buf[3]))
		goto out;

	if (tokens) {
		/* terminated, retired, but held by consumers */
		if (rt_set_latency(r, 0, 10 * RT_MS) ||
		    rt_submit(r, buf[0], 0, 2 * RT_PAGE, RETIRE_DEV_WRITE,
			      0x700, 0, &h[0]) ||
		    rt_wait(r, &log, h[0], RETIRE_REC_TERMINAL, &c, 3000))
			goto out;
		for (i = 0; i < OWNER_TOKENS; i++)
			if (retire_borrow_token(r, h[0], &t[i]))
				goto out;
		if (retire_release_request(r, h[0]))
			goto out;
		first = 1;
	}
	if (rt_set_latency(r, 0, 1500 * RT_MS))
		goto out;
	for (i = first; i < OWNER_REQS; i++)
		if (rt_submit(r, buf[i], 0, 2 * RT_PAGE,
			      RETIRE_DEV_READ | RETIRE_DEV_WRITE, 0x700 + i,
			      i == 1 ? 50 * RT_MS : 0, &h[i]))
			goto out;
	if (retire_cancel_request(r, h[OWNER_REQS - 1]) != -EALREADY)
		goto out;
	ok = 'K';
out:
	rt_owner_report(wfd, ok);
}

static void killed_owner(struct __test_metadata *_metadata,
			 FIXTURE_DATA(owner) *self, bool tokens)
{
	struct retire_stats m;
	int status;
	char ok = 0;
	pid_t pid;

	pid = rt_spawn_owner(owner_child, tokens, &ok);
	ASSERT_LE(0, pid);
	EXPECT_EQ('K', ok) {
		TH_LOG("the child could not set its work up");
	}

	/* while its work is in flight the child's context is everywhere */
	ASSERT_EQ(0, rt_mstats(self->r, &m));
	EXPECT_EQ(self->base.contexts + 1, m.contexts);
	EXPECT_EQ(self->base.physical_outstanding + OWNER_REQS,
		  m.physical_outstanding);
	EXPECT_EQ(self->base.buffers + OWNER_REQS, m.buffers);
	EXPECT_EQ(self->base.pinned_bytes + 2 * RT_PAGE, m.pinned_bytes);
	/* three module-allocated buffers of two pages: the pool's */
	EXPECT_EQ(self->base.pool_bytes + 3 * 2 * RT_PAGE, m.pool_bytes);
	EXPECT_EQ(self->base.tokens_out + (tokens ? OWNER_TOKENS : 0),
		  m.tokens_out);

	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));

	/* the owner is gone, the device is not done: nothing freed early */
	ASSERT_EQ(0, rt_mstats(self->r, &m));
	EXPECT_LT(self->base.physical_outstanding, m.physical_outstanding);
	EXPECT_EQ(self->base.contexts + 1, m.contexts);

	/* the reaper consumes every record, returns the tokens, retires */
	EXPECT_EQ(0, rt_wait_module_gauges(self->r, &self->base, &m, 8000));
	EXPECT_GAUGES_EQ(self->base, m);
	EXPECT_EQ(m.admitted - self->base.admitted,
		  m.retired - self->base.retired);
	EXPECT_EQ(self->base.admitted + OWNER_REQS, m.admitted);

	/* with our own context gone, nothing holds the module */
	retire_close_device(self->r);
	self->r = NULL;
	EXPECT_MODULE_UNUSED();
}

TEST_F_TIMEOUT(owner, exit7_killed_owner_reaper_retires_everything, 30)
{
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	killed_owner(_metadata, self, false);
}

TEST_F_TIMEOUT(owner, exit7_killed_owner_with_tokens_out_reaper_returns_them,
	       30)
{
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	killed_owner(_metadata, self, true);
}

TEST_HARNESS_MAIN
