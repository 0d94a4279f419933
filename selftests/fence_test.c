// SPDX-License-Identifier: GPL-2.0
/*
 * Fences (RETIRE_FEAT_FENCES): a request's out-fence, a sync_file that
 * signals at its terminal event with that event's -errno and never
 * before, whatever the engine; and its in-fence, a sync_file it waits for
 * before it is handed to the device: chained on the request before it in
 * the same context or in another, failed without device access by a
 * fence error, cancelled while it waits, closed with its context. Bad
 * descriptors are refused with a clear errno and change nothing.
 *
 * The source of the fences waited for is a context on the sim engine with
 * a latency, so that they are unsignalled for a while; the requests that
 * wait run on each engine in turn (the variants).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sync_file.h>

#include "kselftest_harness.h"
#include "libretire.h"
#include "retire_test.h"

#define NBUF		6
#define SLOW_MS		400

FIXTURE(fence) {
	struct retire *src;	/* sim, SLOW_MS: its fences take a while */
	struct retire *r;	/* the variant's engine */
	__u64 sbuf[NBUF];
	__u64 buf[NBUF];
	unsigned char *map[NBUF];
	struct rt_log slog;
	struct rt_log log;
};

FIXTURE_VARIANT(fence) {
	const char *engine;
	bool moves_bytes;	/* a DEV_WRITE request writes its range */
};

FIXTURE_VARIANT_ADD(fence, sim) {
	.engine = "sim",
	.moves_bytes = true,
};

FIXTURE_VARIANT_ADD(fence, null) {
	.engine = "null",
	.moves_bytes = false,
};

FIXTURE_SETUP(fence)
{
	struct retire_engine_info e;
	unsigned int i;

	RT_OPEN_OR_SKIP(self->src);
	RT_REQUIRE_FEATURES(self->src, RETIRE_FEAT_FENCES,
			    "a module without fences");
	rt_sim_neutral(self->src);
	ASSERT_EQ(0, retire_open_device(&self->r, NULL, 0));
	if (rt_engine_named(self->r, variant->engine, &e))
		SKIP(return, "no %s engine is loaded", variant->engine);
	ASSERT_EQ(0, retire_bind_engine(self->r, e.id));
	for (i = 0; i < NBUF; i++) {
		ASSERT_EQ(0, rt_register(self->src, RT_PAGE, &self->sbuf[i],
					 NULL));
		ASSERT_EQ(0, retire_alloc_buffer(self->r, RT_PAGE,
						 &self->buf[i],
						 (void **)&self->map[i]));
		memset(self->map[i], 0x5a, RT_PAGE);
	}
	ASSERT_EQ(0, rt_set_latency(self->src, 0, SLOW_MS * RT_MS));
}

FIXTURE_TEARDOWN(fence)
{
	rt_sim_neutral(self->src);
	rt_log_free(&self->slog);
	rt_log_free(&self->log);
	retire_close_device(self->r);
	retire_close_device(self->src);
}

/* submit one request with @flags; its fd (out-fence) or 0 in *@fd */
static int fe_submit(struct retire *r, __u64 buf, __u32 dev_flags,
		     __u32 flags, int in_fence, __u64 user_data, __u64 *h,
		     int *fd)
{
	struct retire_sqe sqe;
	int ret;

	retire_prep_request(&sqe, buf, 0, 64, dev_flags, user_data);
	sqe.flags = flags;
	if (flags & RETIRE_SQE_F_IN_FENCE)
		sqe.in_fence = in_fence;
	ret = retire_submit_requests(r, &sqe, 1);
	if (ret < 0)
		return ret;
	if (ret != 1)
		return sqe.result < 0 ? sqe.result : -EPROTO;
	*h = sqe.handle;
	if (fd)
		*fd = sqe.result;
	else if (sqe.result)
		return -EPROTO;
	return 0;
}

/* 1 if the fence has signalled, 0 if not, -errno */
static int fe_signalled(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, ms);

	return n < 0 ? -errno : n;
}

/* SYNC_IOC_FILE_INFO of a one-fence sync_file */
static int fe_info(int fd, struct sync_file_info *info,
		   struct sync_fence_info *fi)
{
	memset(info, 0, sizeof(*info));
	memset(fi, 0, sizeof(*fi));
	info->num_fences = 1;
	info->sync_fence_info = (__u64)(uintptr_t)fi;
	return ioctl(fd, SYNC_IOC_FILE_INFO, info) ? -errno : 0;
}

/* the fence's status: 1 signalled, 0 not yet, -errno its error */
static int fe_status(int fd)
{
	struct sync_file_info info;
	struct sync_fence_info fi;
	int ret = fe_info(fd, &info, &fi);

	return ret ? ret : fi.status;
}

static void fe_retire(struct __test_metadata *_metadata, struct retire *r,
		      struct rt_log *log, __u64 h, __u8 outcome, __s32 error)
{
	struct retire_cqe c;

	ASSERT_EQ(0, rt_wait(r, log, h, RETIRE_REC_TERMINAL, &c, 5000));
	EXPECT_EQ(outcome, c.outcome);
	EXPECT_EQ(error, c.error);
	ASSERT_EQ(0, retire_release_request(r, h));
	ASSERT_EQ(0, rt_wait(r, log, h, RETIRE_REC_RETIRED, &c, 2000));
}

/* the time of @h's first @type event in @r's history, or 0 */
static __u64 fe_event_ns(struct retire *r, __u64 h, __u32 type, __s32 *value)
{
	struct retire_history_event ev[RETIRE_HISTORY_LEN];
	struct retire_history_info info;
	int n, i;

	n = retire_read_history(r, 0, ev, RETIRE_HISTORY_LEN, &info);
	for (i = 0; i < n; i++)
		if (ev[i].handle == h && ev[i].type == type) {
			if (value)
				*value = ev[i].value;
			return ev[i].time_ns;
		}
	return 0;
}

/*
 * The out-fence signals at the terminal event, not before, and with no
 * error for a completed request: while the sim holds the request it is
 * unsignalled; once the TERMINAL record is there it has signalled,
 * though the request is not retired (a borrow token holds it), and
 * SYNC_IOC_FILE_INFO names the driver and the request.
 */
TEST_F(fence, the_out_fence_signals_at_the_terminal_event_and_not_before)
{
	struct sync_file_info info;
	struct sync_fence_info fi;
	struct retire_cqe c;
	__u64 h, tok;
	char want[32];
	int fd;

	ASSERT_EQ(0, fe_submit(self->src, self->sbuf[0], RETIRE_DEV_READ,
			       RETIRE_SQE_F_OUT_FENCE, 0, 1, &h, &fd));
	ASSERT_LE(0, fd);
	EXPECT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(0, fe_signalled(fd, SLOW_MS / 4));
	EXPECT_EQ(0, fe_status(fd));
	ASSERT_EQ(0, rt_wait(self->src, &self->slog, h, RETIRE_REC_TERMINAL,
			     &c, 5000));
	ASSERT_EQ(0, retire_borrow_token(self->src, h, &tok));
	EXPECT_EQ(1, fe_signalled(fd, 0));
	ASSERT_EQ(0, fe_info(fd, &info, &fi));
	EXPECT_EQ(1, info.status);
	EXPECT_EQ(1, info.num_fences);
	EXPECT_STREQ("retire", fi.driver_name);
	snprintf(want, sizeof(want), "%llx", (unsigned long long)h);
	EXPECT_NE(NULL, strstr(fi.obj_name, want)) TH_LOG("%s", fi.obj_name);
	EXPECT_NE(0, fe_event_ns(self->src, h, RETIRE_EV_FENCE, NULL));
	ASSERT_EQ(0, retire_return_token(self->src, tok, 0));
	fe_retire(_metadata, self->src, &self->slog, h,
		  RETIRE_OUTCOME_COMPLETED, 0);
	close(fd);

	/* the variant's engine: signalled once TERMINAL is there, no error */
	ASSERT_EQ(0, fe_submit(self->r, self->buf[0], RETIRE_DEV_WRITE,
			       RETIRE_SQE_F_OUT_FENCE, 0, 2, &h, &fd));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     5000));
	EXPECT_EQ(1, fe_status(fd));
	close(fd);
}

/*
 * A quarantined request has not ended device access: its fence stays
 * unsignalled through the watchdog's QUARANTINE record, and signals only
 * when the engine reset ends the access, with the reset's error.
 */
TEST_F(fence, a_quarantined_requests_fence_waits_for_the_reset)
{
	struct retire_limits l;
	struct retire_cqe c;
	__u64 h;
	int fd;

	ASSERT_EQ(0, retire_get_limits(self->src, &l));
	l.watchdog_ns = RETIRE_WATCHDOG_MIN_NS;
	ASSERT_EQ(0, retire_set_limits(self->src, &l));
	ASSERT_EQ(0, rt_set_latency(self->src, RETIRE_SIM_F_HANG, 0));
	ASSERT_EQ(0, fe_submit(self->src, self->sbuf[0], RETIRE_DEV_READ,
			       RETIRE_SQE_F_OUT_FENCE, 0, 1, &h, &fd));
	ASSERT_EQ(0, rt_wait(self->src, &self->slog, h, RETIRE_REC_QUARANTINE,
			     &c, 5000));
	EXPECT_EQ(0, fe_signalled(fd, 100));
	EXPECT_EQ(0, fe_event_ns(self->src, h, RETIRE_EV_FENCE, NULL));
	rt_sim_neutral(self->src);	/* the reset ends it */
	EXPECT_EQ(1, fe_signalled(fd, 5000));
	ASSERT_EQ(0, rt_wait(self->src, &self->slog, h, RETIRE_REC_TERMINAL,
			     &c, 5000));
	EXPECT_EQ(RETIRE_OUTCOME_FAILED, c.outcome);
	EXPECT_EQ(c.error, fe_status(fd));
	EXPECT_GT(0, c.error);
	ASSERT_EQ(0, retire_release_request(self->src, h));
	close(fd);
}

/*
 * A fence's error is the terminal event's: a failed request's -errno, a
 * cancelled one's -ECANCELED.
 */
TEST_F(fence, the_out_fence_carries_the_terminal_events_error)
{
	struct retire_limits l;
	__u64 h[3];
	int fd[3];

	/* max_active 1: the second waits and its cancel stops it */
	ASSERT_EQ(0, retire_get_limits(self->src, &l));
	l.max_active = 1;
	l.max_active_per_key = 1;
	ASSERT_EQ(0, retire_set_limits(self->src, &l));
	ASSERT_EQ(0, fe_submit(self->src, self->sbuf[0], RETIRE_DEV_READ,
			       RETIRE_SQE_F_OUT_FENCE, 0, 1, &h[0], &fd[0]));
	ASSERT_EQ(0, fe_submit(self->src, self->sbuf[1], RETIRE_DEV_READ,
			       RETIRE_SQE_F_OUT_FENCE, 0, 2, &h[1], &fd[1]));
	ASSERT_EQ(0, retire_cancel_request(self->src, h[1]));
	EXPECT_EQ(-ECANCELED, fe_status(fd[1]));
	EXPECT_EQ(0, fe_status(fd[0]));
	fe_retire(_metadata, self->src, &self->slog, h[1],
		  RETIRE_OUTCOME_CANCELLED, -ECANCELED);
	fe_retire(_metadata, self->src, &self->slog, h[0],
		  RETIRE_OUTCOME_COMPLETED, 0);
	EXPECT_EQ(1, fe_status(fd[0]));

	/* every request fails */
	ASSERT_EQ(0, rt_set_sim(self->src, 0, 0, 0, 0, 1, 1));
	ASSERT_EQ(0, fe_submit(self->src, self->sbuf[2], RETIRE_DEV_READ,
			       RETIRE_SQE_F_OUT_FENCE, 0, 3, &h[2], &fd[2]));
	fe_retire(_metadata, self->src, &self->slog, h[2],
		  RETIRE_OUTCOME_FAILED, -EIO);
	EXPECT_EQ(-EIO, fe_status(fd[2]));
	close(fd[0]);
	close(fd[1]);
	close(fd[2]);
}

/*
 * RETIRE_OP_FENCE gives a fence for a request submitted without one: in
 * flight, the one it has (asked twice, both fds signal together); after
 * its terminal event, one signalled already with its error; once it has
 * retired, -ENOENT.
 */
TEST_F(fence, a_fence_asked_for_later_is_the_requests_own)
{
	struct retire_cqe c;
	int fd1, fd2, fd3;
	__u64 h;

	ASSERT_EQ(0, fe_submit(self->src, self->sbuf[0], RETIRE_DEV_READ, 0,
			       0, 1, &h, NULL));
	fd1 = retire_request_fence(self->src, h);
	ASSERT_LE(0, fd1);
	fd2 = retire_request_fence(self->src, h);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, fe_status(fd1));
	EXPECT_EQ(0, fe_status(fd2));
	ASSERT_EQ(0, rt_wait(self->src, &self->slog, h, RETIRE_REC_TERMINAL,
			     &c, 5000));
	EXPECT_EQ(1, fe_status(fd1));
	EXPECT_EQ(1, fe_status(fd2));
	fd3 = retire_request_fence(self->src, h);
	ASSERT_LE(0, fd3);
	EXPECT_EQ(1, fe_status(fd3));
	ASSERT_EQ(0, retire_release_request(self->src, h));
	ASSERT_EQ(0, rt_wait(self->src, &self->slog, h, RETIRE_REC_RETIRED,
			     &c, 2000));
	EXPECT_EQ(-ENOENT, retire_request_fence(self->src, h));
	close(fd1);
	close(fd2);
	close(fd3);
}

/*
 * A request chained on another's out-fence is not handed to its device
 * before that fence signals: its ACTIVATE follows the first one's
 * TERMINAL, with a GATE event between; then it runs as any other. In the
 * same context (the fence signals under the lock the chained request
 * needs) and from another context on the variant's engine.
 */
TEST_F(fence, a_request_waits_for_its_in_fence_before_the_device_sees_it)
{
	__u64 a, b, c2, t_term, t_gate, t_act;
	int fa, fb;
	__s32 v = 99;

	ASSERT_EQ(0, fe_submit(self->src, self->sbuf[0], RETIRE_DEV_READ,
			       RETIRE_SQE_F_OUT_FENCE, 0, 1, &a, &fa));
	/* same context */
	ASSERT_EQ(0, fe_submit(self->src, self->sbuf[1], RETIRE_DEV_READ,
			       RETIRE_SQE_F_IN_FENCE | RETIRE_SQE_F_OUT_FENCE,
			       fa, 2, &b, &fb));
	/* another context, the variant's engine */
	ASSERT_EQ(0, fe_submit(self->r, self->buf[0], RETIRE_DEV_WRITE,
			       RETIRE_SQE_F_IN_FENCE, fa, 3, &c2, NULL));
	rt_msleep(SLOW_MS / 4);
	EXPECT_EQ(0, fe_event_ns(self->src, b, RETIRE_EV_ACTIVATE, NULL));
	EXPECT_EQ(0, fe_event_ns(self->r, c2, RETIRE_EV_ACTIVATE, NULL));
	EXPECT_EQ(-1, rt_check_fill(self->map[0], RT_PAGE, 0x5a));

	fe_retire(_metadata, self->src, &self->slog, a,
		  RETIRE_OUTCOME_COMPLETED, 0);
	fe_retire(_metadata, self->src, &self->slog, b,
		  RETIRE_OUTCOME_COMPLETED, 0);
	fe_retire(_metadata, self->r, &self->log, c2,
		  RETIRE_OUTCOME_COMPLETED, 0);
	EXPECT_EQ(1, fe_status(fb));

	t_term = fe_event_ns(self->src, a, RETIRE_EV_TERMINAL, NULL);
	t_gate = fe_event_ns(self->src, b, RETIRE_EV_GATE, &v);
	t_act = fe_event_ns(self->src, b, RETIRE_EV_ACTIVATE, NULL);
	ASSERT_NE(0, t_term);
	EXPECT_EQ(0, v);
	EXPECT_LE(t_term, t_gate);
	EXPECT_LE(t_gate, t_act);
	v = 99;
	t_gate = fe_event_ns(self->r, c2, RETIRE_EV_GATE, &v);
	t_act = fe_event_ns(self->r, c2, RETIRE_EV_ACTIVATE, NULL);
	EXPECT_EQ(0, v);
	EXPECT_LE(t_term, t_gate);
	EXPECT_LE(t_gate, t_act);
	/* the device wrote it once it could (the null engine moves nothing) */
	if (variant->moves_bytes)
		EXPECT_EQ(0, rt_check_fill(self->map[0], 64, 0x5a));
	close(fa);
	close(fb);
}

/*
 * An in-fence that signals an error fails the request with that error,
 * and no device sees it: its buffer keeps every byte.
 */
TEST_F(fence, an_in_fence_error_fails_the_request_without_device_access)
{
	__u64 a, b, c2;
	int fa, fb;

	ASSERT_EQ(0, rt_set_sim(self->src, 0, SLOW_MS * RT_MS, 0, 0, 1, 1));
	ASSERT_EQ(0, fe_submit(self->src, self->sbuf[0], RETIRE_DEV_READ,
			       RETIRE_SQE_F_OUT_FENCE, 0, 1, &a, &fa));
	ASSERT_EQ(0, fe_submit(self->r, self->buf[0], RETIRE_DEV_WRITE,
			       RETIRE_SQE_F_IN_FENCE | RETIRE_SQE_F_OUT_FENCE,
			       fa, 2, &b, &fb));
	fe_retire(_metadata, self->src, &self->slog, a,
		  RETIRE_OUTCOME_FAILED, -EIO);
	fe_retire(_metadata, self->r, &self->log, b, RETIRE_OUTCOME_FAILED,
		  -EIO);
	EXPECT_EQ(-EIO, fe_status(fb));
	EXPECT_EQ(0, fe_event_ns(self->r, b, RETIRE_EV_ACTIVATE, NULL));
	EXPECT_EQ(-1, rt_check_fill(self->map[0], RT_PAGE, 0x5a));

	/* signalled with its error before the submission: the same */
	ASSERT_EQ(0, fe_submit(self->r, self->buf[1], RETIRE_DEV_WRITE,
			       RETIRE_SQE_F_IN_FENCE, fa, 3, &c2, NULL));
	fe_retire(_metadata, self->r, &self->log, c2, RETIRE_OUTCOME_FAILED,
		  -EIO);
	EXPECT_EQ(-1, rt_check_fill(self->map[1], RT_PAGE, 0x5a));
	close(fa);
	close(fb);
}

/*
 * A cancel of a request waiting for its in-fence stops it (0), as it
 * would one waiting for room; the fence signalling later changes
 * nothing; its own out-fence says -ECANCELED.
 */
TEST_F(fence, a_cancel_while_it_waits_for_its_fence_stops_it)
{
	struct retire_stats s0, s1;
	struct retire_cqe c;
	__u64 a, b;
	int fa, fb;

	ASSERT_EQ(0, fe_submit(self->src, self->sbuf[0], RETIRE_DEV_READ,
			       RETIRE_SQE_F_OUT_FENCE, 0, 1, &a, &fa));
	ASSERT_EQ(0, fe_submit(self->r, self->buf[0], RETIRE_DEV_WRITE,
			       RETIRE_SQE_F_IN_FENCE | RETIRE_SQE_F_OUT_FENCE,
			       fa, 2, &b, &fb));
	ASSERT_EQ(0, retire_cancel_request(self->r, b));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, b, RETIRE_REC_CANCEL_ACK,
			     &c, 2000));
	EXPECT_EQ(0, c.error);
	fe_retire(_metadata, self->r, &self->log, b,
		  RETIRE_OUTCOME_CANCELLED, -ECANCELED);
	EXPECT_EQ(-ECANCELED, fe_status(fb));
	ASSERT_EQ(0, rt_stats(self->r, &s0));
	fe_retire(_metadata, self->src, &self->slog, a,
		  RETIRE_OUTCOME_COMPLETED, 0);
	rt_msleep(50);
	ASSERT_EQ(0, rt_stats(self->r, &s1));
	EXPECT_EQ(NULL, rt_stats_diff(&s0, &s1, NULL));
	EXPECT_EQ(-1, rt_check_fill(self->map[0], RT_PAGE, 0x5a));
	close(fa);
	close(fb);
}

/*
 * A context closed, or its process killed, while its requests wait for
 * fences that have not signalled leaves nothing behind: the module's
 * gauges return to what they were, and the fences signalling afterwards
 * reach nothing.
 */
TEST_F(fence, closing_or_killing_while_requests_wait_for_fences_leaves_nothing)
{
	struct retire_stats m0, m1;
	struct retire *q;
	unsigned int i;
	__u64 a, h, qb;
	int fa, st;
	pid_t pid;

	ASSERT_EQ(0, rt_settle_module(self->src, &m0, 2000));
	ASSERT_EQ(0, fe_submit(self->src, self->sbuf[0], RETIRE_DEV_READ,
			       RETIRE_SQE_F_OUT_FENCE, 0, 1, &a, &fa));
	ASSERT_EQ(0, retire_open_device(&q, NULL, 0));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, rt_register(q, RT_PAGE, &qb, NULL));
		ASSERT_EQ(0, fe_submit(q, qb, RETIRE_DEV_READ,
				       RETIRE_SQE_F_IN_FENCE |
				       RETIRE_SQE_F_OUT_FENCE, fa, i, &h,
				       &st));
	}
	retire_close_device(q);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (retire_open_device(&q, NULL, 0) ||
		    rt_register(q, RT_PAGE, &qb, NULL) ||
		    fe_submit(q, qb, RETIRE_DEV_READ, RETIRE_SQE_F_IN_FENCE,
			      fa, 9, &h, NULL))
			_exit(1);
		pause();
		_exit(0);
	}
	rt_msleep(100);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFSIGNALED(st)) TH_LOG("the child failed to submit");

	fe_retire(_metadata, self->src, &self->slog, a,
		  RETIRE_OUTCOME_COMPLETED, 0);
	close(fa);
	ASSERT_EQ(0, rt_settle_module(self->src, &m1, 5000));
	EXPECT_GAUGES_EQ(m0, m1);
}

/* an out-fenced submission with no descriptor free for its fence */
static int fe_submit_without_fds(struct retire *r, __u64 buf)
{
	struct rlimit old, none;
	int lowest, ret, fd;
	__u64 h;

	lowest = dup(0);
	if (lowest < 0 || getrlimit(RLIMIT_NOFILE, &old))
		return -errno;
	/* every descriptor below the lowest free one is taken */
	none.rlim_cur = lowest;
	none.rlim_max = old.rlim_max;
	close(lowest);
	if (dup(0) != lowest)
		return -EPROTO;
	ret = setrlimit(RLIMIT_NOFILE, &none) ? -errno :
	      fe_submit(r, buf, RETIRE_DEV_READ, RETIRE_SQE_F_OUT_FENCE, 0, 1,
			&h, &fd);
	setrlimit(RLIMIT_NOFILE, &old);
	close(lowest);
	return ret;
}

/*
 * A descriptor that is not an open file is -EBADF, one that is no
 * sync_file -EINVAL; an in_fence without its flag, or a FENCE operation
 * with fields it does not take, -EINVAL; a FENCE of a stale handle
 * -ENOENT. Each changes nothing but the refusal counters.
 */
TEST_F(fence, bad_fences_are_refused_and_change_nothing)
{
	struct retire_stats s0, s1;
	struct retire_sqe sqe;
	struct retire_op op;
	int p[2];
	__u64 h;

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, rt_stats(self->r, &s0));
	EXPECT_EQ(-EBADF, fe_submit(self->r, self->buf[0], RETIRE_DEV_READ,
				    RETIRE_SQE_F_IN_FENCE, -1, 1, &h, NULL));
	EXPECT_EQ(-EBADF, fe_submit(self->r, self->buf[0], RETIRE_DEV_READ,
				    RETIRE_SQE_F_IN_FENCE, 1000, 1, &h, NULL));
	EXPECT_EQ(-EINVAL, fe_submit(self->r, self->buf[0], RETIRE_DEV_READ,
				     RETIRE_SQE_F_IN_FENCE, p[0], 1, &h,
				     NULL));
	EXPECT_EQ(-EINVAL, fe_submit(self->r, self->buf[0], RETIRE_DEV_READ,
				     RETIRE_SQE_F_IN_FENCE,
				     retire_get_fd(self->r), 1, &h, NULL));
	/* in_fence without the flag: a malformed entry */
	retire_prep_request(&sqe, self->buf[0], 0, 64, RETIRE_DEV_READ, 1);
	sqe.in_fence = p[0];
	EXPECT_EQ(0, retire_submit_requests(self->r, &sqe, 1));
	EXPECT_EQ(-EINVAL, sqe.result);
	retire_prep_submit(&op, self->buf[0], 0, 64, RETIRE_DEV_READ, 1);
	op.in_fence = p[0];
	ASSERT_EQ(0, retire_enter(self->r, &op, 1, NULL, 0, 0, 0));
	EXPECT_EQ(-EINVAL, op.result);
	retire_prep_fence(&op, 0);
	op.key = 1;
	ASSERT_EQ(0, retire_enter(self->r, &op, 1, NULL, 0, 0, 0));
	EXPECT_EQ(-EINVAL, op.result);
	EXPECT_EQ(-ENOENT, retire_request_fence(self->r, 0));
	ASSERT_EQ(0, rt_stats(self->r, &s1));
	EXPECT_EQ(s0.refused + 5, s1.refused);
	EXPECT_EQ(s0.admitted, s1.admitted);
	EXPECT_GAUGES_EQ(s0, s1);

	/* no descriptor left for the out-fence: -EMFILE, nothing admitted */
	EXPECT_EQ(-EMFILE, fe_submit_without_fds(self->r, self->buf[0]));
	ASSERT_EQ(0, rt_stats(self->r, &s1));
	EXPECT_EQ(s0.admitted, s1.admitted);
	EXPECT_GAUGES_EQ(s0, s1);
	close(p[0]);
	close(p[1]);
}

/*
 * A fence outlives its context and holds the module: the fd still
 * answers SYNC_IOC_FILE_INFO after the context is gone, and the module's
 * reference count drops once the last fd is closed: within a grace period,
 * as an RCU reader may still be looking at the fence until then.
 */
TEST_F(fence, a_fence_outlives_its_context_and_holds_the_module)
{
	long ref0, ref1, ref2;
	__u64 h;
	int fd;

	ASSERT_EQ(0, fe_submit(self->src, self->sbuf[0], RETIRE_DEV_READ,
			       RETIRE_SQE_F_OUT_FENCE, 0, 1, &h, &fd));
	ref0 = rt_read_long(RT_REFCNT_PATH);
	retire_close_device(self->src);
	self->src = NULL;
	EXPECT_EQ(1, fe_signalled(fd, 5000));
	EXPECT_EQ(1, fe_status(fd));
	/* the closed context is reaped meanwhile: let it go first */
	rt_msleep(200);
	ref1 = rt_read_long(RT_REFCNT_PATH);
	close(fd);
	RT_POLL_UNTIL((ref2 = rt_read_long(RT_REFCNT_PATH)) < ref1, 5000, 10);
	EXPECT_EQ(ref1 - 1, ref2) TH_LOG("refcnt %ld, %ld, %ld", ref0, ref1,
					 ref2);
}

TEST_HARNESS_MAIN
