// SPDX-License-Identifier: GPL-2.0
/*
 * Cancel by match (RETIRE_FEAT_CANCEL_MATCH): every request of a key, or of
 * the context, cancelled at once as each would be by its handle; then,
 * with RETIRE_CANCEL_F_WAIT, a wait for their terminal events bounded by a
 * timeout. What it found and what the device kept are counted; nothing is
 * retired by it; bad arguments change nothing; a process killed while it
 * waits leaves nothing behind.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libretire.h"
#include "retire_test.h"

#define NBUF	8
#define KEY_A	0xa
#define KEY_B	0xb

FIXTURE(cm) {
	struct retire *r;
	__u64 buf[NBUF];
	struct rt_log log;
};

FIXTURE_SETUP(cm)
{
	unsigned int i;

	RT_OPEN_OR_SKIP(self->r);
	RT_REQUIRE_FEATURES(self->r, RETIRE_FEAT_CANCEL_MATCH,
			    "a module without cancel by match");
	rt_sim_neutral(self->r);
	for (i = 0; i < NBUF; i++)
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &self->buf[i], NULL));
}

FIXTURE_TEARDOWN(cm)
{
	rt_sim_neutral(self->r);
	rt_log_free(&self->log);
	retire_close_device(self->r);
}

static int cm_raw(int fd, struct retire_cancel_match *m)
{
	return rt_ioctl(fd, RETIRE_IOC_CANCEL_MATCH, m);
}

static int cm_max_active(struct retire *r, __u32 n)
{
	struct retire_limits l;
	int ret = retire_get_limits(r, &l);

	if (ret)
		return ret;
	l.max_active = n;
	l.max_active_per_key = n;
	return retire_set_limits(r, &l);
}

/* wait for @h's TERMINAL, which must have @outcome; retire it */
static void cm_retire(struct __test_metadata *_metadata, struct retire *r,
		      struct rt_log *log, __u64 h, __u8 outcome)
{
	struct retire_cqe c;

	ASSERT_EQ(0, rt_wait(r, log, h, RETIRE_REC_TERMINAL, &c, 5000));
	EXPECT_EQ(outcome, c.outcome) TH_LOG("request %llx",
					     (unsigned long long)h);
	ASSERT_EQ(0, retire_release_request(r, h));
	ASSERT_EQ(0, rt_wait(r, log, h, RETIRE_REC_RETIRED, &c, 2000));
}

/*
 * Two requests of key A on the device (max_active 2), two more of A and
 * three of B waiting behind them: a cancel of key A finds the four of A,
 * stops the two waiting (each a CANCEL_ACK 0 and a cancelled TERMINAL)
 * and leaves the two the device holds to end on their own (CANCEL_ACK
 * -EALREADY): found 4, kept 2, counted as four cancels. B is untouched.
 * The synchronous cancel of A then returns once both have completed;
 * nothing was retired by either call.
 */
TEST_F(cm, cancel_by_key_stops_its_waiting_requests_and_counts_what_the_device_kept)
{
	struct retire_stats s0, s1;
	struct retire_cqe c;
	__u64 a[4], b[3];
	__u32 kept = 99, pending = 99;
	unsigned int i;

	ASSERT_EQ(0, cm_max_active(self->r, 2));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 1500 * RT_MS));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, rt_submit_key(self->r, self->buf[i], 0, 64,
					   RETIRE_DEV_READ, i, 0, KEY_A,
					   &a[i]));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, rt_submit_key(self->r, self->buf[4 + i], 0, 64,
					   RETIRE_DEV_READ, 10 + i, 0, KEY_B,
					   &b[i]));
	ASSERT_EQ(0, rt_stats(self->r, &s0));

	EXPECT_EQ(4, retire_cancel_key(self->r, KEY_A, &kept));
	EXPECT_EQ(2, kept);
	ASSERT_EQ(0, rt_stats(self->r, &s1));
	EXPECT_EQ(s0.cancel_ok + 2, s1.cancel_ok);
	EXPECT_EQ(s0.cancel_already + 2, s1.cancel_already);
	EXPECT_EQ(s0.cancel_noent, s1.cancel_noent);
	EXPECT_EQ(s0.retired, s1.retired);

	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, rt_wait(self->r, &self->log, a[i],
				     RETIRE_REC_CANCEL_ACK, &c, 2000));
		EXPECT_EQ(i < 2 ? -EALREADY : 0, c.error) TH_LOG("a[%u]", i);
	}
	/* the waiting two ended cancelled at once */
	for (i = 2; i < 4; i++)
		cm_retire(_metadata, self->r, &self->log, a[i],
			  RETIRE_OUTCOME_CANCELLED);

	/* the two on the device: the wait returns when both have ended */
	EXPECT_EQ(0, retire_cancel_sync(self->r, RETIRE_CANCEL_F_KEY, KEY_A,
					10000 * RT_MS, &pending));
	EXPECT_EQ(0, pending);
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 0));
	EXPECT_LE(0, rt_index(&self->log, a[0], RETIRE_REC_TERMINAL));
	EXPECT_LE(0, rt_index(&self->log, a[1], RETIRE_REC_TERMINAL));
	/* nothing of A is left to find */
	EXPECT_EQ(0, retire_cancel_key(self->r, KEY_A, &kept));
	EXPECT_EQ(0, kept);

	/* completed after a cancel named them: not publishable */
	for (i = 0; i < 2; i++)
		cm_retire(_metadata, self->r, &self->log, a[i],
			  RETIRE_OUTCOME_STALE);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, rt_count(&self->log, b[i], RETIRE_REC_CANCEL_ACK));
		cm_retire(_metadata, self->r, &self->log, b[i],
			  RETIRE_OUTCOME_COMPLETED);
	}
}

/*
 * A request the device never finishes (the sim's HANG): the synchronous
 * cancel of every request gives -ETIME after its timeout, with the request
 * still pending and still the caller's; once a reset ends it, the same
 * call returns 0, and the request retires as any other.
 */
TEST_F(cm, sync_cancel_of_a_hung_request_times_out_and_leaves_it_owned)
{
	struct retire_cancel_match m;
	int fd = retire_get_fd(self->r);
	__u32 pending = 0;
	__u64 h, t0;

	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_HANG, 0));
	ASSERT_EQ(0, rt_submit(self->r, self->buf[0], 0, 64, RETIRE_DEV_READ,
			       1, 0, &h));
	t0 = rt_now_ns();
	EXPECT_EQ(-ETIME, retire_cancel_sync(self->r, RETIRE_CANCEL_F_ANY, 0,
					     200 * RT_MS, &pending));
	EXPECT_LE(200 * RT_MS, rt_now_ns() - t0);
	EXPECT_EQ(1, pending);

	/* the raw answer: found, kept and pending all say the one request */
	memset(&m, 0, sizeof(m));
	m.flags = RETIRE_CANCEL_F_ANY | RETIRE_CANCEL_F_WAIT;
	m.timeout_ns = 1;
	EXPECT_EQ(-ETIME, cm_raw(fd, &m));
	EXPECT_EQ(1, m.found);
	EXPECT_EQ(1, m.kept);
	EXPECT_EQ(1, m.pending);
	/* still the caller's: not retirable before its terminal event */
	EXPECT_EQ(-EBUSY, retire_release_request(self->r, h));

	rt_sim_neutral(self->r);	/* the reset ends it */
	EXPECT_EQ(0, retire_cancel_sync(self->r, RETIRE_CANCEL_F_ANY, 0,
					5000 * RT_MS, &pending));
	EXPECT_EQ(0, pending);
	cm_retire(_metadata, self->r, &self->log, h, RETIRE_OUTCOME_FAILED);
}

static void cm_on_alarm(int sig)
{
}

/*
 * A signal ends the wait with -EINTR (the raw ioctl: libretire repeats
 * it), and pending says what it was waiting for.
 */
TEST_F(cm, a_signal_ends_the_wait_with_eintr)
{
	struct sigaction sa = { .sa_handler = cm_on_alarm };
	struct retire_cancel_match m;
	__u64 h;

	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));	/* no SA_RESTART */
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_HANG, 0));
	ASSERT_EQ(0, rt_submit_key(self->r, self->buf[0], 0, 64,
				   RETIRE_DEV_READ, 1, 0, KEY_B, &h));
	memset(&m, 0, sizeof(m));
	m.flags = RETIRE_CANCEL_F_KEY | RETIRE_CANCEL_F_WAIT;
	m.key = KEY_B;
	alarm(1);
	EXPECT_EQ(-EINTR, cm_raw(retire_get_fd(self->r), &m));
	EXPECT_EQ(1, m.found);
	EXPECT_EQ(1, m.pending);
	rt_sim_neutral(self->r);
	cm_retire(_metadata, self->r, &self->log, h, RETIRE_OUTCOME_FAILED);
}

/*
 * The same cancel as an operation of a batch: three SUBMITs of one key
 * (one on the device, max_active 1) and the CANCEL_MATCH of that key in
 * one ENTER. Its result is what it found, its handle what the device kept.
 */
TEST_F(cm, cancel_match_in_a_batch_answers_found_and_kept)
{
	struct retire_op ops[4];
	unsigned int i;

	ASSERT_EQ(0, cm_max_active(self->r, 1));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 500 * RT_MS));
	for (i = 0; i < 3; i++) {
		retire_prep_submit(&ops[i], self->buf[i], 0, 64,
				   RETIRE_DEV_READ, i);
		ops[i].key = KEY_A;
	}
	retire_prep_cancel_match(&ops[3], RETIRE_CANCEL_F_KEY, KEY_A);
	ops[3].handle = 77;	/* output only */
	ASSERT_EQ(0, retire_enter(self->r, ops, 4, NULL, 0, 0, 0));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, ops[i].result);
	EXPECT_EQ(3, ops[3].result);
	EXPECT_EQ(1, ops[3].handle);
	cm_retire(_metadata, self->r, &self->log, ops[0].handle,
		  RETIRE_OUTCOME_STALE);
	for (i = 1; i < 3; i++)
		cm_retire(_metadata, self->r, &self->log, ops[i].handle,
			  RETIRE_OUTCOME_CANCELLED);
}

/*
 * The module walks the request slots 64 at a time, dropping its lock in
 * between: a cancel of everything still reaches each of 150 requests (one
 * on the device, 149 waiting behind max_active 1), and each waiting one
 * ends cancelled. The one on the device ends at a reset.
 */
TEST_F(cm, cancel_all_reaches_requests_past_the_first_batch_of_slots)
{
	enum { NR = 150 };
	struct retire_cqe c;
	__u64 b[NR], h[NR];
	__u32 kept = 0;
	unsigned int i;

	ASSERT_EQ(0, cm_max_active(self->r, 1));
	/* the first holds the device until the reset below */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 60000 * RT_MS));
	for (i = 0; i < NR; i++) {
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &b[i], NULL));
		ASSERT_EQ(0, rt_submit(self->r, b[i], 0, 64, RETIRE_DEV_READ,
				       i, 0, &h[i]));
	}
	EXPECT_EQ(NR, retire_cancel_all(self->r, &kept));
	EXPECT_EQ(1, kept);
	for (i = 1; i < NR; i++) {
		ASSERT_EQ(0, rt_wait(self->r, &self->log, h[i],
				     RETIRE_REC_TERMINAL, &c, 2000))
			TH_LOG("request %u", i);
		EXPECT_EQ(RETIRE_OUTCOME_CANCELLED, c.outcome);
	}
	rt_sim_neutral(self->r);
	cm_retire(_metadata, self->r, &self->log, h[0], RETIRE_OUTCOME_FAILED);
	for (i = 1; i < NR; i++)
		ASSERT_EQ(0, retire_release_request(self->r, h[i]));
}

/*
 * Every malformed cancel by match is refused with -EINVAL and changes
 * nothing: no request cancelled, no counter moved. The waiting request
 * is still there to be found by the good call that follows.
 */
TEST_F(cm, bad_cancel_matches_are_refused_changing_nothing)
{
	struct retire_cancel_match good, m;
	struct retire_stats s0, s1;
	struct retire_op op;
	int fd = retire_get_fd(self->r), i;
	const char *diff;
	__u64 h[2];

	ASSERT_EQ(0, cm_max_active(self->r, 1));
	/* the first holds the device until the reset below */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 60000 * RT_MS));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, rt_submit_key(self->r, self->buf[i], 0, 64,
					   RETIRE_DEV_READ, i, 0, KEY_A,
					   &h[i]));
	ASSERT_EQ(0, rt_stats(self->r, &s0));
	memset(&good, 0, sizeof(good));
	good.flags = RETIRE_CANCEL_F_KEY;
	good.key = KEY_A;
	for (i = 0; i < 9; i++) {
		m = good;
		switch (i) {
		case 0: m.flags = 0; break;
		case 1: m.flags = RETIRE_CANCEL_F_KEY | RETIRE_CANCEL_F_ANY; break;
		case 2: m.flags = RETIRE_CANCEL_F_ANY; break;	/* with a key */
		case 3: m.flags = RETIRE_CANCEL_F_WAIT; break;
		case 4: m.flags |= RETIRE_CANCEL_F_ALL + 1; break;
		case 5: m.flags |= 1U << 31; break;
		case 6: m.timeout_ns = 1; break;		/* without WAIT */
		case 7: m.reserved[0] = 1; break;
		case 8: m.reserved[1] = 1ULL << 63; break;
		}
		EXPECT_EQ(-EINVAL, cm_raw(fd, &m)) TH_LOG("case %d", i);
	}
	/* as operations: WAIT, or a field only SUBMIT may set */
	for (i = 0; i < 3; i++) {
		retire_prep_cancel_match(&op, RETIRE_CANCEL_F_KEY, KEY_A);
		switch (i) {
		case 0: op.flags |= RETIRE_CANCEL_F_WAIT; break;
		case 1: op.buf = self->buf[0]; break;
		case 2: op.error = -EIO; break;
		}
		ASSERT_EQ(0, retire_enter(self->r, &op, 1, NULL, 0, 0, 0));
		EXPECT_EQ(-EINVAL, op.result) TH_LOG("op case %d", i);
	}
	ASSERT_EQ(0, rt_stats(self->r, &s1));
	diff = rt_stats_diff(&s0, &s1, NULL);
	EXPECT_EQ(NULL, diff) TH_LOG("%s moved", diff);

	/* nothing was cancelled: the good call still finds both */
	m = good;
	EXPECT_EQ(0, cm_raw(fd, &m));
	EXPECT_EQ(2, m.found);
	EXPECT_EQ(1, m.kept);
	EXPECT_EQ(0, m.pending);
	rt_sim_neutral(self->r);
	cm_retire(_metadata, self->r, &self->log, h[0], RETIRE_OUTCOME_FAILED);
	cm_retire(_metadata, self->r, &self->log, h[1],
		  RETIRE_OUTCOME_CANCELLED);
}

struct cm_sub {
	struct retire *r;
	const __u64 *buf;
	volatile int stop;
	unsigned int admitted;
};

/* submits to key A until told to stop, retiring nothing */
static void *cm_submitter(void *arg)
{
	struct cm_sub *x = arg;
	unsigned int i = 0;
	__u64 h;

	while (!__atomic_load_n(&x->stop, __ATOMIC_ACQUIRE)) {
		i++;
		if (!rt_submit_key(x->r, x->buf[i % NBUF], 0, 64,
				   RETIRE_DEV_READ, i, 0, KEY_A, &h))
			__atomic_add_fetch(&x->admitted, 1, __ATOMIC_RELAXED);
		else
			rt_msleep(1);
	}
	return NULL;
}

/* retire every request whose TERMINAL record arrived since *@seen */
static void cm_retire_new(struct retire *r, struct rt_log *log,
			  unsigned int *seen)
{
	for (; *seen < log->n; (*seen)++)
		if (log->c[*seen].type == RETIRE_REC_TERMINAL)
			retire_release_request(r, log->c[*seen].handle);
}

/*
 * Hostile: a thread keeps submitting to key A while the owner cancels it
 * again and again, synchronously with a short timeout, at once by key,
 * and everything: each call answers 0, -ETIME or a count, and once the
 * submitter stops, one synchronous cancel of everything ends it all.
 * Every request admitted then retires exactly once.
 */
TEST_F(cm, cancels_racing_a_submitter_on_one_fd_end_every_request_once)
{
	struct cm_sub x = { .r = self->r, .buf = self->buf };
	struct retire_stats s0, s1;
	unsigned int i, seen = 0;
	__u32 pending, kept;
	pthread_t t;
	int ret;

	ASSERT_EQ(0, rt_stats(self->r, &s0));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 2 * RT_MS));
	ASSERT_EQ(0, pthread_create(&t, NULL, cm_submitter, &x));
	/* the submitter must be at work before the cancels race it */
	EXPECT_TRUE(RT_POLL_UNTIL(__atomic_load_n(&x.admitted,
						  __ATOMIC_RELAXED) > 0,
				  5000, 1));
	for (i = 0; i < 2000 && (i < 40 ||
	     __atomic_load_n(&x.admitted, __ATOMIC_RELAXED) < 20); i++) {
		ret = retire_cancel_sync(self->r, RETIRE_CANCEL_F_KEY, KEY_A,
					 5 * RT_MS, &pending);
		EXPECT_TRUE(ret == 0 || ret == -ETIME) TH_LOG("ret %d", ret);
		ret = i % 2 ? retire_cancel_key(self->r, KEY_A, &kept) :
			      retire_cancel_all(self->r, &kept);
		ASSERT_LE(0, ret);
		EXPECT_GE((__u32)ret, kept);
		/* keep the records moving, or the submitter runs out */
		ASSERT_EQ(0, rt_collect(self->r, &self->log, 0));
		cm_retire_new(self->r, &self->log, &seen);
	}
	__atomic_store_n(&x.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	EXPECT_EQ(0, retire_cancel_sync(self->r, RETIRE_CANCEL_F_ANY, 0,
					5000 * RT_MS, &pending));
	EXPECT_EQ(0, pending);

	/* retire what is left; each request retires once */
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(0, rt_collect(self->r, &self->log, 10));
		cm_retire_new(self->r, &self->log, &seen);
		ASSERT_EQ(0, rt_stats(self->r, &s1));
		if (s1.retired - s0.retired == x.admitted)
			break;
	}
	EXPECT_LT(0, x.admitted);
	EXPECT_EQ(x.admitted, s1.retired - s0.retired);
	EXPECT_EQ(s0.physical_outstanding, s1.physical_outstanding);
}

/* a child: a request, then a synchronous cancel without bound, again */
static void cm_child(unsigned int round)
{
	struct retire *c;
	__u64 b, h;

	if (retire_open_device(&c, NULL, 0) || rt_register(c, RT_PAGE, &b, NULL))
		_exit(2);
	for (;;) {
		rt_submit(c, b, 0, 64, RETIRE_DEV_READ, round, 0, &h);
		retire_cancel_sync(c, RETIRE_CANCEL_F_ANY, 0, 0, NULL);
	}
}

/*
 * Children killed while they cancel and wait, their requests in flight
 * and their records unread: the module's gauges come back, so the reaper
 * retired everything and the waits left nothing behind.
 */
TEST_F(cm, killed_while_it_waits_leaves_nothing)
{
	struct retire_stats base, now;

	EXPECT_EQ(0, rt_kill_children(self->r, 6, cm_child, &base, &now))
		TH_LOG("gauges did not come back");
}

/*
 * A cancel the device kept (-EALREADY) leaves the request's deadline
 * armed: the deadline passing later still gives its TIMEOUT record, after
 * the CANCEL_ACK, flagged cancel requested, and the TERMINAL record comes
 * last, published stale because a cancel found it in flight. The old
 * documents left unsaid whether a deadline after a cancel still counts.
 */
TEST_F(cm, a_deadline_after_a_kept_cancel_still_gives_its_timeout_record)
{
	struct retire_cqe c;
	__u64 h;
	int ack, to, term;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 400 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, self->buf[0], 0, 64, RETIRE_DEV_READ,
			       1, 100 * RT_MS, &h));
	EXPECT_EQ(-EALREADY, retire_cancel_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TIMEOUT, &c,
			     3000));
	EXPECT_EQ(RETIRE_OUTCOME_TIMED_OUT, c.outcome);
	EXPECT_TRUE(c.flags & RETIRE_CQE_F_CANCEL_REQUESTED);
	EXPECT_TRUE(c.flags & RETIRE_CQE_F_OUTSTANDING);
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     3000));
	EXPECT_EQ(RETIRE_OUTCOME_STALE, c.outcome);
	ack = rt_index(&self->log, h, RETIRE_REC_CANCEL_ACK);
	to = rt_index(&self->log, h, RETIRE_REC_TIMEOUT);
	term = rt_index(&self->log, h, RETIRE_REC_TERMINAL);
	EXPECT_LE(0, ack);
	EXPECT_LT(ack, to);
	EXPECT_LT(to, term);
	EXPECT_EQ(1, rt_count(&self->log, h, RETIRE_REC_TIMEOUT));
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     2000));
}

TEST_HARNESS_MAIN
