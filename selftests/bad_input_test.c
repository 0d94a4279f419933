// SPDX-License-Identifier: GPL-2.0
/*
 * Every bad input of the request, token, record, statistics and sim engine
 * commands gets its documented errno and changes nothing; read() and
 * poll() on the device follow the rules of a record queue.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libretire.h"
#include "retire_test.h"

#define BLEN	(2 * RT_PAGE)
#define NBUF	3

/* a command's number with the caller's structure of @size bytes */
#define RETIRE_IOC_SZ(nr, size) \
	_IOC(_IOC_READ | _IOC_WRITE, RETIRE_IOC_MAGIC, (nr), (size))

FIXTURE(bad) {
	struct retire *r;
	int fd;
	__u64 buf[NBUF];
	struct rt_log log;
};

FIXTURE_SETUP(bad)
{
	int i;

	RT_OPEN_OR_SKIP(self->r);
	self->fd = retire_get_fd(self->r);
	rt_sim_neutral(self->r);
	/* requests stay in flight until a reset, unless a test says not */
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_HANG, 0));
	for (i = 0; i < NBUF; i++)
		ASSERT_EQ(0, retire_alloc_buffer(self->r, BLEN, &self->buf[i],
						 NULL));
}

FIXTURE_TEARDOWN(bad)
{
	rt_sim_neutral(self->r);
	rt_log_free(&self->log);
	retire_close_device(self->r);
}

/* ---- "nothing changed" ------------------------------------------------- */

/* every counter and gauge of retire_test.h's rt_stat_fields, new ones too */

#define EXPECT_STATS_SAME(a, b) do {					\
	const char *__d = rt_stats_diff(&(a), &(b), NULL);		\
	EXPECT_TRUE(__d == NULL) {					\
		TH_LOG("stats.%s changed", __d);			\
	}								\
} while (0)

/*
 * ioctl @cmd on @arg must fail with @err, leave every byte of @arg (of
 * @size bytes) as it was, and change no counter of the context.
 */
static void expect_refused(struct __test_metadata *_metadata,
			   FIXTURE_DATA(bad) *self, unsigned long cmd,
			   void *arg, size_t size, int err, const char *what)
{
	struct retire_stats before, after;
	unsigned char copy[512];

	ASSERT_GE(sizeof(copy), size);
	memcpy(copy, arg, size);
	ASSERT_EQ(0, rt_stats(self->r, &before));
	EXPECT_EQ(err, rt_ioctl(self->fd, cmd, arg)) {
		TH_LOG("%s was not refused with %d", what, err);
	}
	EXPECT_EQ(0, memcmp(copy, arg, size)) {
		TH_LOG("%s: the refused structure was written to", what);
	}
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_STATS_SAME(before, after);
}

/* a page the kernel can read but not write */
static void *readonly_page(const void *content, size_t len)
{
	void *p = mmap(NULL, RT_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, RT_PAGE);
	if (content)
		memcpy(p, content, len);
	if (mprotect(p, RT_PAGE, PROT_READ)) {
		munmap(p, RT_PAGE);
		return NULL;
	}
	return p;
}

/* ---- SUBMIT ------------------------------------------------------------- */

TEST_F(bad, submit_bad_batch_fails_whole_and_admits_nothing)
{
	struct retire_sqe s[2], copy[2];
	struct retire_submit sub, good;
	struct retire_stats before, after;
	void *ro, *none;

	retire_prep_request(&s[0], self->buf[0], 0, BLEN, RETIRE_DEV_READ, 1);
	retire_prep_request(&s[1], self->buf[1], 0, BLEN, RETIRE_DEV_WRITE, 2);
	memcpy(copy, s, sizeof(s));
	memset(&good, 0, sizeof(good));
	good.sqes = (__u64)(uintptr_t)s;
	good.nr = 2;
	ASSERT_EQ(0, rt_stats(self->r, &before));

	sub = good;
	sub.nr = 0;
	expect_refused(_metadata, self, RETIRE_IOC_SUBMIT, &sub, sizeof(sub),
		       -EINVAL, "nr 0");
	sub = good;
	sub.nr = RETIRE_SUBMIT_MAX + 1;
	expect_refused(_metadata, self, RETIRE_IOC_SUBMIT, &sub, sizeof(sub),
		       -EINVAL, "nr 257");
	sub = good;
	sub.flags = 1;
	expect_refused(_metadata, self, RETIRE_IOC_SUBMIT, &sub, sizeof(sub),
		       -EINVAL, "flags 1");
	sub = good;
	sub.flags = 1U << 31;
	expect_refused(_metadata, self, RETIRE_IOC_SUBMIT, &sub, sizeof(sub),
		       -EINVAL, "flags 1 << 31");
	sub = good;
	sub.pad = 1;
	expect_refused(_metadata, self, RETIRE_IOC_SUBMIT, &sub, sizeof(sub),
		       -EINVAL, "pad");
	sub = good;
	sub.reserved[0] = 1;
	expect_refused(_metadata, self, RETIRE_IOC_SUBMIT, &sub, sizeof(sub),
		       -EINVAL, "reserved[0]");
	sub = good;
	sub.reserved[1] = 1;
	expect_refused(_metadata, self, RETIRE_IOC_SUBMIT, &sub, sizeof(sub),
		       -EINVAL, "reserved[1]");
	sub = good;
	sub.submitted = 7;	/* an output: garbage in is no fault */
	sub.nr = 0;
	expect_refused(_metadata, self, RETIRE_IOC_SUBMIT, &sub, sizeof(sub),
		       -EINVAL, "nr 0 with garbage in submitted");
	EXPECT_EQ(0, memcmp(copy, s, sizeof(s)));

	/* the array unreadable, or readable but not writable */
	sub = good;
	sub.sqes = 0;
	expect_refused(_metadata, self, RETIRE_IOC_SUBMIT, &sub, sizeof(sub),
		       -EFAULT, "NULL sqes");
	none = mmap(NULL, RT_PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	ASSERT_NE(MAP_FAILED, none);
	sub.sqes = (__u64)(uintptr_t)none;
	expect_refused(_metadata, self, RETIRE_IOC_SUBMIT, &sub, sizeof(sub),
		       -EFAULT, "PROT_NONE sqes");
	ro = readonly_page(s, sizeof(s));
	ASSERT_NE(NULL, ro);
	sub.sqes = (__u64)(uintptr_t)ro;
	expect_refused(_metadata, self, RETIRE_IOC_SUBMIT, &sub, sizeof(sub),
		       -EFAULT, "read-only sqes");
	EXPECT_EQ(0, memcmp(ro, copy, sizeof(copy)));
	munmap(ro, RT_PAGE);
	munmap(none, RT_PAGE);

	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_STATS_SAME(before, after);
	EXPECT_EQ(0, after.admitted);

	/* both buffers are still FREE: the same batch, fixed, is admitted */
	EXPECT_EQ(2, retire_submit_requests(self->r, s, 2));
	EXPECT_EQ(0, s[0].result);
	EXPECT_EQ(0, s[1].result);
}

TEST_F(bad, submit_refuses_bad_entries_and_admits_good_ones_in_order)
{
	struct retire_stats before, after;
	struct retire_sqe s[18], s2[3];
	int exp[18], i, n = 0;
	__u64 g = self->buf[0], b = self->buf[1], stale, owned = 0;

	ASSERT_EQ(0, retire_alloc_buffer(self->r, BLEN, &stale, NULL));
	ASSERT_EQ(0, retire_unregister_buffer(self->r, stale));

#define ENTRY(buf, off, len, dev, err) do {				\
	retire_prep_request(&s[n], (buf), (off), (len), (dev), 0x100 + n); \
	s[n].result = 1;						\
	exp[n++] = (err);						\
} while (0)
	ENTRY(b, 0, BLEN, 0, -EINVAL);				/* no dev_flags */
	ENTRY(b, 0, BLEN, 1U << 2, -EINVAL);			/* unknown */
	ENTRY(b, 0, BLEN, RETIRE_DEV_READ | (1U << 31), -EINVAL);
	ENTRY(b, 0, 0, RETIRE_DEV_READ, -EINVAL);		/* len 0 */
	ENTRY(b, BLEN - 100, 200, RETIRE_DEV_READ, -EINVAL);	/* past end */
	ENTRY(b, BLEN, 1, RETIRE_DEV_READ, -EINVAL);
	ENTRY(b, UINT64_MAX, RT_PAGE, RETIRE_DEV_READ, -EINVAL); /* overflow */
	ENTRY(b, RT_PAGE, UINT64_MAX, RETIRE_DEV_READ, -EINVAL);
	ENTRY(b, 0, BLEN, RETIRE_DEV_READ, -EINVAL);
	s[n - 1].flags = RETIRE_SQE_F_ALL + 1;	/* first unknown */
	ENTRY(b, 0, BLEN, RETIRE_DEV_READ, -EINVAL);
	s[n - 1].pad = 1;
	ENTRY(b, 0, BLEN, RETIRE_DEV_READ, -EINVAL);
	s[n - 1].reserved[0] = 1;
	ENTRY(b, 0, BLEN, RETIRE_DEV_READ, -EINVAL);
	s[n - 1].reserved[1] = 1;
	ENTRY(stale, 0, BLEN, RETIRE_DEV_READ, -ENOENT);	/* unregistered */
	ENTRY(0, 0, BLEN, RETIRE_DEV_READ, -ENOENT);
	ENTRY(g ^ 0xffffffffULL, 0, BLEN, RETIRE_DEV_READ, -ENOENT);
	ENTRY(g, 100, 1000, RETIRE_DEV_WRITE, 0);		/* good */
	ENTRY(g, 0, BLEN, RETIRE_DEV_READ, -EBUSY);		/* now attached */
	ENTRY(b, 0, BLEN, RETIRE_DEV_READ | RETIRE_DEV_WRITE, 0); /* good */
#undef ENTRY
	ASSERT_EQ(18, n);

	ASSERT_EQ(0, rt_stats(self->r, &before));
	EXPECT_EQ(2, retire_submit_requests(self->r, s, n));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(exp[i], s[i].result) {
			TH_LOG("entry %d", i);
		}
		if (exp[i]) {
			EXPECT_EQ(0, s[i].handle) {
				TH_LOG("refused entry %d got a handle", i);
			}
		} else {
			EXPECT_EQ(RETIRE_KIND_REQ,
				  RETIRE_HANDLE_KIND(s[i].handle));
			owned += s[i].len;
		}
	}
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.admitted + 2, after.admitted);
	EXPECT_EQ(before.refused + n - 2, after.refused);
	EXPECT_EQ(before.physical_outstanding + 2, after.physical_outstanding);
	EXPECT_EQ(before.owned_bytes + owned, after.owned_bytes);
	EXPECT_EQ(before.buffers, after.buffers);
	EXPECT_EQ(before.retired, after.retired);
	EXPECT_EQ(before.tokens_out, after.tokens_out);

	/* a request handle is no buffer; b is attached now; buf[2] is FREE */
	retire_prep_request(&s2[0], s[15].handle, 0, BLEN, RETIRE_DEV_READ, 1);
	retire_prep_request(&s2[1], b, 0, BLEN, RETIRE_DEV_READ, 2);
	retire_prep_request(&s2[2], self->buf[2], 0, BLEN, RETIRE_DEV_READ, 3);
	EXPECT_EQ(1, retire_submit_requests(self->r, s2, 3));
	EXPECT_EQ(-ENOENT, s2[0].result);
	EXPECT_EQ(-EBUSY, s2[1].result);
	EXPECT_EQ(0, s2[2].result);
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.admitted + 3, after.admitted);
	EXPECT_EQ(before.refused + n, after.refused);
}

/* ---- commands naming one handle ----------------------------------------- */

TEST_F(bad, handle_commands_reject_flags_pad_and_reserved)
{
	static const struct {
		unsigned long cmd;
		const char *name;
	} cmds[] = {
		{ RETIRE_IOC_CANCEL, "CANCEL" },
		{ RETIRE_IOC_RETIRE, "RETIRE" },
		{ RETIRE_IOC_BUF_UNREGISTER, "BUF_UNREGISTER" },
		{ RETIRE_IOC_SIM_RESET, "SIM_RESET" },
	};
	struct retire_handle_arg good, arg;
	char what[64];
	unsigned int i, m;
	__u64 h;

	ASSERT_EQ(0, rt_submit(self->r, self->buf[0], 0, BLEN,
			       RETIRE_DEV_READ, 0x44, 0, &h));
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		memset(&good, 0, sizeof(good));
		/* a handle each command would act on if it were let through */
		if (cmds[i].cmd == RETIRE_IOC_BUF_UNREGISTER)
			good.handle = self->buf[1];
		else if (cmds[i].cmd != RETIRE_IOC_SIM_RESET)
			good.handle = h;
		for (m = 0; m < 5; m++) {
			arg = good;
			switch (m) {
			case 0: arg.flags = 1; break;
			case 1: arg.flags = 1U << 31; break;
			case 2: arg.pad = 1; break;
			case 3: arg.reserved[0] = 1; break;
			case 4: arg.reserved[1] = 1ULL << 40; break;
			}
			snprintf(what, sizeof(what), "%s mutation %u",
				 cmds[i].name, m);
			expect_refused(_metadata, self, cmds[i].cmd, &arg,
				       sizeof(arg), -EINVAL, what);
		}
	}
	/* no acknowledgement, and the refused reset ended nothing */
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 100));
	EXPECT_EQ(0, rt_count_any(&self->log, h));

	/* the same handles, the structures fixed, are accepted */
	EXPECT_EQ(-EALREADY, retire_cancel_request(self->r, h));
	EXPECT_EQ(0, retire_unregister_buffer(self->r, self->buf[1]));
	EXPECT_EQ(0, retire_reset_sim(self->r));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL,
			     NULL, 2000));
}

TEST_F(bad, zero_and_wrong_kind_handles_return_enoent)
{
	struct retire_stats before, after;
	__u64 h, t = 0;

	ASSERT_EQ(0, rt_submit(self->r, self->buf[0], 0, BLEN,
			       RETIRE_DEV_READ, 0x45, 0, &h));

	/* 0 is never a handle */
	EXPECT_EQ(-ENOENT, retire_cancel_request(self->r, 0));
	EXPECT_EQ(-ENOENT, retire_release_request(self->r, 0));
	EXPECT_EQ(-ENOENT, retire_borrow_token(self->r, 0, &t));
	EXPECT_EQ(-ENOENT, retire_return_token(self->r, 0, 0));
	EXPECT_EQ(-ENOENT, retire_handoff_token(self->r, 0, &t));
	EXPECT_EQ(-ENOENT, retire_inject_sim_event(self->r, 0, 0));
	EXPECT_EQ(0, t);

	/* a handle of the wrong kind names nothing, and is counted */
	ASSERT_EQ(0, rt_stats(self->r, &before));
	EXPECT_EQ(-ENOENT, retire_cancel_request(self->r, self->buf[0]));
	EXPECT_EQ(-ENOENT, retire_release_request(self->r, self->buf[0]));
	EXPECT_EQ(-ENOENT, retire_unregister_buffer(self->r, h));
	EXPECT_EQ(-ENOENT, retire_borrow_token(self->r, self->buf[0], &t));
	EXPECT_EQ(-ENOENT, retire_return_token(self->r, h, 0));
	EXPECT_EQ(-ENOENT, retire_handoff_token(self->r, h, &t));
	EXPECT_EQ(-ENOENT, retire_inject_sim_event(self->r, self->buf[0], 0));
	EXPECT_EQ(0, t);
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.cancel_noent + 1, after.cancel_noent);
	EXPECT_EQ(before.stale_cancel + 1, after.stale_cancel);
	EXPECT_EQ(before.stale_user + 2, after.stale_user);
	EXPECT_LE(before.stale_token + 1, after.stale_token);
	EXPECT_EQ(before.protocol_errors + 2, after.protocol_errors);
	EXPECT_EQ(before.stale_engine + 1, after.stale_engine);
	EXPECT_EQ(before.admitted, after.admitted);
	EXPECT_EQ(before.retired, after.retired);
	EXPECT_EQ(before.tokens_out, after.tokens_out);
	EXPECT_EQ(before.buffers, after.buffers);
	EXPECT_EQ(before.cancel_already, after.cancel_already);
	EXPECT_EQ(before.physical_outstanding, after.physical_outstanding);

	/* the real request is untouched and still in flight */
	EXPECT_EQ(-EBUSY, retire_release_request(self->r, h));
	EXPECT_EQ(-EBUSY, retire_borrow_token(self->r, h, &t));
}

TEST_F(bad, retire_needs_terminal_record_read_then_works_once)
{
	struct retire_cqe c;
	__u64 h, t;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, self->buf[0], 0, BLEN,
			       RETIRE_DEV_WRITE, 0x46, 0, &h));
	/* the terminal event has happened; its record is not read yet */
	ASSERT_EQ(1, rt_wait_ready(self->r, 3000));
	EXPECT_EQ(-EBUSY, retire_release_request(self->r, h));
	/* borrowing needs the event, not the record */
	ASSERT_EQ(0, retire_borrow_token(self->r, h, &t));
	EXPECT_EQ(-EBUSY, retire_release_request(self->r, h));

	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     1000));
	EXPECT_EQ(0, retire_release_request(self->r, h));
	EXPECT_EQ(-EALREADY, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 50));
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_RETIRED));
	EXPECT_EQ(0, retire_return_token(self->r, t, 0));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
	EXPECT_EQ(-ENOENT, retire_release_request(self->r, h));
	EXPECT_EQ(-ENOENT, retire_borrow_token(self->r, h, &t));
}

/* ---- TOKEN -------------------------------------------------------------- */

TEST_F(bad, token_op_rejects_unknown_op_flags_error_and_reserved)
{
	struct retire_token_op good_b, good_r, good_h, op;
	struct retire_cqe c;
	__u64 h, t;
	int m;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, self->buf[0], 0, BLEN,
			       RETIRE_DEV_WRITE, 0x47, 0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     3000));
	ASSERT_EQ(0, retire_borrow_token(self->r, h, &t));

	memset(&good_b, 0, sizeof(good_b));
	good_b.handle = h;
	good_b.op = RETIRE_TOKEN_BORROW;
	good_b.token = 0x5555;	/* an output: must stay as it is */
	good_r = good_b;
	good_r.handle = t;
	good_r.op = RETIRE_TOKEN_RETURN;
	good_h = good_r;
	good_h.op = RETIRE_TOKEN_HANDOFF;

	op = good_b;
	op.op = 0;
	expect_refused(_metadata, self, RETIRE_IOC_TOKEN, &op, sizeof(op),
		       -EINVAL, "op 0");
	op.op = 4;
	expect_refused(_metadata, self, RETIRE_IOC_TOKEN, &op, sizeof(op),
		       -EINVAL, "op 4");
	op.op = 0xffffffff;
	expect_refused(_metadata, self, RETIRE_IOC_TOKEN, &op, sizeof(op),
		       -EINVAL, "op ~0");
	op = good_b;
	op.error = -EIO;
	expect_refused(_metadata, self, RETIRE_IOC_TOKEN, &op, sizeof(op),
		       -EINVAL, "BORROW with an error");
	op = good_h;
	op.error = -EIO;
	expect_refused(_metadata, self, RETIRE_IOC_TOKEN, &op, sizeof(op),
		       -EINVAL, "HANDOFF with an error");
	for (m = 0; m < 5; m++) {
		const struct retire_token_op *base[] = {
			&good_b, &good_r, &good_h,
		};
		int k;

		for (k = 0; k < 3; k++) {
			op = *base[k];
			switch (m) {
			case 0: op.flags = 1; break;
			case 1: op.flags = 1U << 31; break;
			case 2: op.pad = 1; break;
			case 3: op.reserved[0] = 1; break;
			case 4: op.reserved[1] = 1; break;
			}
			expect_refused(_metadata, self, RETIRE_IOC_TOKEN, &op,
				       sizeof(op), -EINVAL,
				       "token op with flags, pad or reserved");
		}
	}

	/* the token is still out, once */
	EXPECT_EQ(0, retire_return_token(self->r, t, 0));
	EXPECT_EQ(-ENOENT, retire_return_token(self->r, t, 0));
	ASSERT_EQ(0, retire_release_request(self->r, h));
}

/* ---- REAP --------------------------------------------------------------- */

TEST_F(bad, reap_rejects_bad_fields_and_loses_no_record)
{
	struct retire_reap good, rp;
	struct retire_cqe cq[4];
	void *ro;
	__u64 h;
	int n;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, self->buf[0], 0, BLEN,
			       RETIRE_DEV_WRITE, 0x48, 0, &h));
	ASSERT_EQ(1, rt_wait_ready(self->r, 3000));

	memset(&good, 0, sizeof(good));
	good.cqes = (__u64)(uintptr_t)cq;
	good.nr = 4;

	rp = good;
	rp.nr = 0;
	expect_refused(_metadata, self, RETIRE_IOC_REAP, &rp, sizeof(rp),
		       -EINVAL, "nr 0");
	rp = good;
	rp.nr = RETIRE_SUBMIT_MAX + 1;
	expect_refused(_metadata, self, RETIRE_IOC_REAP, &rp, sizeof(rp),
		       -EINVAL, "nr 257");
	rp = good;
	rp.flags = 1U << 1;
	expect_refused(_metadata, self, RETIRE_IOC_REAP, &rp, sizeof(rp),
		       -EINVAL, "flag bit 1");
	rp = good;
	rp.flags = 1U << 31;
	expect_refused(_metadata, self, RETIRE_IOC_REAP, &rp, sizeof(rp),
		       -EINVAL, "flag bit 31");
	rp = good;
	rp.reserved[0] = 1;
	expect_refused(_metadata, self, RETIRE_IOC_REAP, &rp, sizeof(rp),
		       -EINVAL, "reserved[0]");
	rp = good;
	rp.reserved[1] = 1;
	expect_refused(_metadata, self, RETIRE_IOC_REAP, &rp, sizeof(rp),
		       -EINVAL, "reserved[1]");

	/* a record that cannot be delivered stays queued */
	rp = good;
	rp.nr = 1;
	rp.cqes = 0;
	expect_refused(_metadata, self, RETIRE_IOC_REAP, &rp, sizeof(rp),
		       -EFAULT, "NULL cqes");
	ro = readonly_page(NULL, 0);
	ASSERT_NE(NULL, ro);
	rp.cqes = (__u64)(uintptr_t)ro;
	expect_refused(_metadata, self, RETIRE_IOC_REAP, &rp, sizeof(rp),
		       -EFAULT, "read-only cqes");
	munmap(ro, RT_PAGE);

	n = retire_reap_records(self->r, cq, 4, 1, 1000 * RT_MS);
	ASSERT_EQ(1, n);
	EXPECT_EQ(h, cq[0].handle);
	EXPECT_EQ(RETIRE_REC_TERMINAL, cq[0].type);
	EXPECT_EQ(0, retire_release_request(self->r, h));
}

TEST_F(bad, reap_with_zero_timeout_does_not_wait)
{
	struct retire_cqe cq[4];
	__u64 t0, ms;
	int n;

	t0 = rt_now_ns();
	n = retire_reap_records(self->r, cq, 4, 1, 0);
	EXPECT_EQ(0, n);
	EXPECT_GT(500, (rt_now_ns() - t0) / RT_MS);

	/* a bounded wait with nothing coming ends on time, with nothing */
	t0 = rt_now_ns();
	n = retire_reap_records(self->r, cq, 4, 1, 100 * RT_MS);
	ms = (rt_now_ns() - t0) / RT_MS;
	EXPECT_TRUE(rt_reap_ret_ok(n));
	EXPECT_GE(0, n);
	EXPECT_LE(90, ms);
	EXPECT_GT(3000, ms);
}

/* ---- GET_STATS ---------------------------------------------------------- */

TEST_F(bad, get_stats_rejects_bad_flags_and_honours_size)
{
	unsigned char buf[sizeof(struct retire_stats) + 64];
	struct retire_stats_arg good, a;
	struct retire_stats full;
	__u64 h;
	size_t i;

	/* something non-zero to see in the first fields */
	ASSERT_EQ(0, rt_submit(self->r, self->buf[0], 0, BLEN,
			       RETIRE_DEV_READ, 0x49, 0, &h));
	memset(buf, 0xa5, sizeof(buf));
	memset(&good, 0, sizeof(good));
	good.stats = (__u64)(uintptr_t)buf;
	good.size = sizeof(struct retire_stats);

	a = good;
	a.flags = 1U << 1;
	expect_refused(_metadata, self, RETIRE_IOC_GET_STATS, &a, sizeof(a),
		       -EINVAL, "flag bit 1");
	a.flags = 1U << 31;
	expect_refused(_metadata, self, RETIRE_IOC_GET_STATS, &a, sizeof(a),
		       -EINVAL, "flag bit 31");
	a = good;
	a.reserved[0] = 1;
	expect_refused(_metadata, self, RETIRE_IOC_GET_STATS, &a, sizeof(a),
		       -EINVAL, "reserved[0]");
	a = good;
	a.reserved[1] = 1;
	expect_refused(_metadata, self, RETIRE_IOC_GET_STATS, &a, sizeof(a),
		       -EINVAL, "reserved[1]");
	EXPECT_EQ(-1, rt_check_fill(buf, sizeof(buf), 0xa5));
	a = good;
	a.stats = 0;
	EXPECT_EQ(-EFAULT, rt_ioctl(self->fd, RETIRE_IOC_GET_STATS, &a));

	ASSERT_EQ(0, rt_stats(self->r, &full));
	EXPECT_EQ(1, full.admitted);

	/* an older, shorter structure: no byte beyond it is written */
	a = good;
	a.size = 2 * sizeof(__u64);
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_GET_STATS, &a));
	EXPECT_EQ(0, memcmp(buf, &full, 2 * sizeof(__u64)));
	EXPECT_EQ(-1, rt_check_fill(buf + 2 * sizeof(__u64),
				    sizeof(buf) - 2 * sizeof(__u64), 0xa5));

	/* a newer, longer one: what the module does not know is zeroed */
	a = good;
	a.size = sizeof(buf);
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_GET_STATS, &a));
	EXPECT_EQ(full.admitted, ((struct retire_stats *)buf)->admitted);
	for (i = sizeof(struct retire_stats); i < sizeof(buf); i++)
		if (buf[i])
			break;
	EXPECT_EQ(sizeof(buf), i);

	/* the module-wide view counts this context */
	ASSERT_EQ(0, rt_mstats(self->r, &full));
	EXPECT_LE(1, full.contexts);
	EXPECT_LE(1, full.physical_outstanding);
}

/* ---- the sim engine ----------------------------------------------------- */

TEST_F(bad, sim_config_rejects_unknown_op_flags_and_reserved)
{
	struct retire_sim_config known, cfg;

	memset(&known, 0, sizeof(known));
	known.op = RETIRE_SIM_SET;
	known.flags = RETIRE_SIM_F_CANCEL_RUNNING;
	known.latency_ns = 123 * RT_MS;
	known.tick_ns = 2 * RT_MS;
	known.bytes_per_tick = 512;
	known.fail_every = 0;
	known.fail_submit_every = 1000;
	known.seed = 42;
	known.rate_bps = 1ULL << 30;
	known.burst_bytes = 4096;
	known.finish_ns = 7 * RT_MS;
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_SIM_CONFIG, &known));
	ASSERT_EQ(0, retire_get_sim_config(self->r, &cfg));
	EXPECT_SIM_CONFIG_EQ(known, cfg);

	cfg = known;
	cfg.op = 2;
	cfg.latency_ns = 1;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_CONFIG, &cfg,
		       sizeof(cfg), -EINVAL, "op 2");
	cfg.op = 0xffffffff;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_CONFIG, &cfg,
		       sizeof(cfg), -EINVAL, "op ~0");
	cfg = known;
	cfg.flags |= RETIRE_SIM_F_ALL + 1;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_CONFIG, &cfg,
		       sizeof(cfg), -EINVAL, "first unknown flag");
	cfg = known;
	cfg.flags |= 1U << 31;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_CONFIG, &cfg,
		       sizeof(cfg), -EINVAL, "flag bit 31");
	cfg = known;
	cfg.reserved = 1;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_CONFIG, &cfg,
		       sizeof(cfg), -EINVAL, "SET with reserved");
	cfg.op = RETIRE_SIM_GET;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_CONFIG, &cfg,
		       sizeof(cfg), -EINVAL, "GET with reserved");
	/* GET's knobs are outputs: output_only_fields_are_ignored_on_input */

	/* nothing of the refused ones took effect */
	ASSERT_EQ(0, retire_get_sim_config(self->r, &cfg));
	EXPECT_SIM_CONFIG_EQ(known, cfg);
}

TEST_F(bad, sim_config_rejects_inconsistent_bandwidth)
{
	struct retire_sim_config known, cfg;

	memset(&known, 0, sizeof(known));
	known.op = RETIRE_SIM_SET;
	known.latency_ns = 5 * RT_MS;
	known.tick_ns = 1 * RT_MS;
	known.bytes_per_tick = 1024;
	known.seed = 3;
	known.rate_bps = 64 * 1024;
	known.burst_bytes = 8192;
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_SIM_CONFIG, &known));

	/* a rate needs a bucket */
	cfg = known;
	cfg.burst_bytes = 0;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_CONFIG, &cfg,
		       sizeof(cfg), -EINVAL, "rate_bps with burst_bytes 0");
	/* a bucket smaller than one transfer would never let it through */
	cfg = known;
	cfg.burst_bytes = cfg.bytes_per_tick - 1;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_CONFIG, &cfg,
		       sizeof(cfg), -EINVAL, "burst_bytes < bytes_per_tick");
	/* at most 16 GiB, with or without a rate */
	cfg = known;
	cfg.burst_bytes = (16ULL << 30) + 1;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_CONFIG, &cfg,
		       sizeof(cfg), -EINVAL, "burst_bytes 16 GiB + 1");
	cfg.rate_bps = 0;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_CONFIG, &cfg,
		       sizeof(cfg), -EINVAL,
		       "burst_bytes 16 GiB + 1 without a rate");
	cfg.burst_bytes = ~0ULL;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_CONFIG, &cfg,
		       sizeof(cfg), -EINVAL, "burst_bytes ~0");
	ASSERT_EQ(0, retire_get_sim_config(self->r, &cfg));
	EXPECT_SIM_CONFIG_EQ(known, cfg);

	/* the limits themselves are accepted */
	cfg = known;
	cfg.burst_bytes = cfg.bytes_per_tick;
	EXPECT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_SIM_CONFIG, &cfg));
	cfg = known;
	cfg.burst_bytes = 16ULL << 30;
	EXPECT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_SIM_CONFIG, &cfg));
	/* no rate: the bucket's depth may be anything up to 16 GiB */
	cfg = known;
	cfg.rate_bps = 0;
	cfg.burst_bytes = 0;
	EXPECT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_SIM_CONFIG, &cfg));
}

TEST_F(bad, sim_inject_rejects_flags_and_reserved)
{
	struct retire_sim_event ev, good;
	struct retire_stats st;
	struct retire_cqe c;
	__u64 h;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, self->buf[0], 0, BLEN,
			       RETIRE_DEV_WRITE, 0x4a, 0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     3000));
	ASSERT_EQ(0, retire_release_request(self->r, h));

	/* a stale handle: let through, it would be counted */
	memset(&good, 0, sizeof(good));
	good.handle = h;
	ev = good;
	ev.flags = 1;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_INJECT, &ev, sizeof(ev),
		       -EINVAL, "flags 1");
	ev = good;
	ev.flags = 1U << 31;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_INJECT, &ev, sizeof(ev),
		       -EINVAL, "flags 1 << 31");
	ev = good;
	ev.reserved[0] = 1;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_INJECT, &ev, sizeof(ev),
		       -EINVAL, "reserved[0]");
	ev = good;
	ev.reserved[1] = 1;
	expect_refused(_metadata, self, RETIRE_IOC_SIM_INJECT, &ev, sizeof(ev),
		       -EINVAL, "reserved[1]");

	ev = good;
	EXPECT_EQ(-ENOENT, rt_ioctl(self->fd, RETIRE_IOC_SIM_INJECT, &ev));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.stale_engine);
}

/* ---- every command: structure size and pointer -------------------------- */

TEST_F(bad, every_command_checks_struct_size_and_pointer)
{
	static const struct {
		unsigned int nr;
		size_t size;
		const char *name;
	} cmds[] = {
		{ 0x01, sizeof(struct retire_buf_reg), "BUF_REGISTER" },
		{ 0x02, sizeof(struct retire_handle_arg), "BUF_UNREGISTER" },
		{ 0x03, sizeof(struct retire_submit), "SUBMIT" },
		{ 0x04, sizeof(struct retire_handle_arg), "CANCEL" },
		{ 0x05, sizeof(struct retire_handle_arg), "RETIRE" },
		{ 0x06, sizeof(struct retire_token_op), "TOKEN" },
		{ 0x07, sizeof(struct retire_reap), "REAP" },
		{ 0x08, sizeof(struct retire_stats_arg), "GET_STATS" },
		{ 0x09, sizeof(struct retire_sim_config), "SIM_CONFIG" },
		{ 0x0a, sizeof(struct retire_handle_arg), "SIM_RESET" },
		{ 0x0b, sizeof(struct retire_sim_event), "SIM_INJECT" },
		{ 0x0c, sizeof(struct retire_limits_arg), "LIMITS" },
		{ 0x0d, sizeof(struct retire_epoch_arg), "EPOCH" },
		{ 0x0e, sizeof(struct retire_enter), "ENTER" },
		{ 0x13, sizeof(struct retire_cancel_match), "CANCEL_MATCH" },
		{ 0x14, sizeof(struct retire_buf_export), "BUF_EXPORT" },
		{ 0x15, sizeof(struct retire_buf_import), "BUF_IMPORT" },
		{ 0x16, sizeof(struct retire_buf_revoke), "BUF_REVOKE" },
	};
	struct retire_stats before, after;
	unsigned char buf[256];
	unsigned int i;
	__u64 h;

	/* something for a command let through to change */
	ASSERT_EQ(0, rt_submit(self->r, self->buf[0], 0, BLEN,
			       RETIRE_DEV_READ, 0x4b, 0, &h));
	ASSERT_EQ(0, rt_stats(self->r, &before));
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ASSERT_GE(sizeof(buf), cmds[i].size + 8);
		memset(buf, 0, sizeof(buf));
		EXPECT_EQ(-EINVAL, rt_ioctl(self->fd,
					    RETIRE_IOC_SZ(cmds[i].nr,
							  cmds[i].size - 8),
					    buf)) {
			TH_LOG("%s: a short structure was accepted",
			       cmds[i].name);
		}
		memset(buf + cmds[i].size, 0xff, 8);
		EXPECT_EQ(-E2BIG, rt_ioctl(self->fd,
					   RETIRE_IOC_SZ(cmds[i].nr,
							 cmds[i].size + 8),
					   buf)) {
			TH_LOG("%s: a non-zero unknown tail was accepted",
			       cmds[i].name);
		}
		EXPECT_EQ(-EFAULT, rt_ioctl(self->fd,
					    RETIRE_IOC_SZ(cmds[i].nr,
							  cmds[i].size),
					    NULL)) {
			TH_LOG("%s: NULL was not -EFAULT", cmds[i].name);
		}
	}
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_STATS_SAME(before, after);
	/* the request is still in flight: no reset got through */
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 50));
	EXPECT_EQ(0, rt_count_any(&self->log, h));

	/* a longer structure with a zero tail is the same command */
	memset(buf, 0, sizeof(buf));
	((struct retire_handle_arg *)buf)->handle = h;
	EXPECT_EQ(-EALREADY, rt_ioctl(self->fd,
				      RETIRE_IOC_SZ(0x04,
					sizeof(struct retire_handle_arg) + 8),
				      buf));
}

/* ---- output-only fields ------------------------------------------------- */

/*
 * A field that is only an output is ignored on input, whatever it holds,
 * in every command (GET_INFO's: info_test.c): a caller may pass back a
 * structure as the module returned it. Reserved and pad fields still must
 * be zero (the tests above).
 */
TEST_F(bad, output_only_fields_are_ignored_on_input)
{
	struct retire_history_event ev[4];
	struct retire_sim_config cfg, want;
	struct retire_history_arg ha;
	struct retire_context_arg ca;
	struct retire_limits_arg la;
	struct retire_limits limits;
	struct retire_ring_setup rs;
	struct retire_epoch_arg ea;
	struct retire_token_op op;
	struct retire_buf_reg reg;
	struct retire_submit sub;
	struct retire_enter e;
	struct retire_reap rp;
	struct retire_sqe sqe[2];
	struct retire_op ops[1];
	struct retire_cqe cq[8];
	__u64 h, h2, t, epoch, authority;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));

	/* BUF_REGISTER: evicted, handle, mmap_offset */
	memset(&reg, 0, sizeof(reg));
	reg.len = RT_PAGE;
	reg.evicted = ~0U;
	reg.handle = ~0ULL;
	reg.mmap_offset = ~0ULL;
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_BUF_REGISTER, &reg));
	EXPECT_EQ(RETIRE_KIND_BUF, RETIRE_HANDLE_KIND(reg.handle));
	EXPECT_EQ(0, reg.evicted);
	EXPECT_NE(~0ULL, reg.mmap_offset);
	EXPECT_EQ(0, reg.mmap_offset % RT_PAGE);
	EXPECT_EQ(0, retire_unregister_buffer(self->r, reg.handle));

	/* SUBMIT: submitted, and each entry's handle and result */
	retire_prep_request(&sqe[0], self->buf[0], 0, BLEN, RETIRE_DEV_WRITE,
			    0x60);
	sqe[1] = sqe[0];	/* the same buffer: refused, -EBUSY */
	sqe[0].handle = 0xdeadbeefULL;
	sqe[1].handle = 0xdeadbeefULL;
	sqe[0].result = -EIO;
	sqe[1].result = -EIO;
	memset(&sub, 0, sizeof(sub));
	sub.sqes = (__u64)(uintptr_t)sqe;
	sub.nr = 2;
	sub.submitted = 77;
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_SUBMIT, &sub));
	EXPECT_EQ(1, sub.submitted);
	EXPECT_EQ(0, sqe[0].result);
	EXPECT_EQ(RETIRE_KIND_REQ, RETIRE_HANDLE_KIND(sqe[0].handle));
	EXPECT_EQ(-EBUSY, sqe[1].result);
	EXPECT_EQ(0, sqe[1].handle);	/* a refused entry: 0, not garbage */
	h = sqe[0].handle;

	/* TOKEN: token; HANDOFF gets the BORROW's structure back as it was */
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL,
			     NULL, 3000));
	memset(&op, 0, sizeof(op));
	op.handle = h;
	op.op = RETIRE_TOKEN_BORROW;
	op.token = 0x5555;
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_TOKEN, &op));
	EXPECT_EQ(RETIRE_KIND_TOKEN, RETIRE_HANDLE_KIND(op.token));
	t = op.token;
	op.handle = t;
	op.op = RETIRE_TOKEN_HANDOFF;
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_TOKEN, &op));
	EXPECT_EQ(RETIRE_KIND_TOKEN, RETIRE_HANDLE_KIND(op.token));
	EXPECT_NE(t, op.token);
	EXPECT_EQ(0, retire_return_token(self->r, op.token, 0));

	/* REAP: reaped */
	ASSERT_EQ(0, retire_release_request(self->r, h));
	memset(&rp, 0, sizeof(rp));
	rp.cqes = (__u64)(uintptr_t)cq;
	rp.nr = 8;
	rp.min_complete = 1;
	rp.timeout_ns = 2000 * RT_MS;
	rp.reaped = 99;
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_REAP, &rp));
	ASSERT_EQ(1, rp.reaped);
	EXPECT_EQ(h, cq[0].handle);
	EXPECT_EQ(RETIRE_REC_RETIRED, cq[0].type);

	/* ENTER: done, reaped, and a SUBMIT operation's handle and result */
	retire_prep_submit(&ops[0], self->buf[1], 0, BLEN, RETIRE_DEV_WRITE,
			   0x61);
	ops[0].handle = 0xdeadbeefULL;
	ops[0].result = -EIO;
	memset(&e, 0, sizeof(e));
	e.ops = (__u64)(uintptr_t)ops;
	e.nr_ops = 1;
	e.done = 5;
	e.reaped = 9;
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_ENTER, &e));
	EXPECT_EQ(1, e.done);
	EXPECT_EQ(0, e.reaped);
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(RETIRE_KIND_REQ, RETIRE_HANDLE_KIND(ops[0].handle));
	h2 = ops[0].handle;
	/* the same batch again, as it came back: the buffer is attached now */
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_ENTER, &e));
	EXPECT_EQ(1, e.done);
	EXPECT_EQ(-EBUSY, ops[0].result);
	EXPECT_EQ(0, ops[0].handle);
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h2, RETIRE_REC_TERMINAL,
			     NULL, 3000));

	/* HISTORY: recorded, dropped */
	memset(&ha, 0, sizeof(ha));
	ha.events = (__u64)(uintptr_t)ev;
	ha.nr = 4;
	ha.recorded = 12345;
	ha.dropped = 6789;
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_HISTORY, &ha));
	EXPECT_EQ(4, ha.nr);
	EXPECT_LE(4, ha.recorded);
	EXPECT_GT(200, ha.recorded);
	EXPECT_EQ(0, ha.dropped);

	/* EPOCH: epoch, authority */
	ASSERT_EQ(0, retire_bump_epoch(self->r, 3, &epoch));
	ASSERT_EQ(0, retire_get_epoch(self->r, 3, &epoch, &authority));
	memset(&ea, 0, sizeof(ea));
	ea.op = RETIRE_EPOCH_GET;
	ea.key = 3;
	ea.epoch = 99;
	ea.authority = 99;
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_EPOCH, &ea));
	EXPECT_EQ(epoch, ea.epoch);
	EXPECT_EQ(authority, ea.authority);

	/* SIM_CONFIG GET: every knob is an output */
	ASSERT_EQ(0, retire_get_sim_config(self->r, &want));
	memset(&cfg, 0xff, sizeof(cfg));
	cfg.op = RETIRE_SIM_GET;
	cfg.reserved = 0;
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_SIM_CONFIG, &cfg));
	EXPECT_SIM_CONFIG_EQ(want, cfg);

	/* LIMITS GET: limits; CONTEXT GET: engine */
	ASSERT_EQ(0, retire_get_limits(self->r, &limits));
	memset(&la, 0, sizeof(la));
	la.op = RETIRE_LIMITS_GET;
	memset(&la.limits, 0xff, sizeof(la.limits));
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_LIMITS, &la));
	EXPECT_EQ(0, memcmp(&limits, &la.limits, sizeof(limits)));
	memset(&ca, 0, sizeof(ca));
	ca.op = RETIRE_CONTEXT_GET;
	ca.engine = 77;
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_CONTEXT, &ca));
	EXPECT_EQ(RETIRE_ENGINE_SIM, ca.engine);

	/* RING_SETUP: size, and off (its pad and reserved included) */
	memset(&rs, 0, sizeof(rs));
	rs.sq_entries = 4;
	rs.cq_entries = 4;
	rs.size = 1;
	memset(&rs.off, 0xff, sizeof(rs.off));
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_RING_SETUP, &rs));
	EXPECT_EQ(0, rs.size % RT_PAGE);
	EXPECT_GT(rs.size, rs.off.cqes);
	EXPECT_GT(rs.size, rs.off.cq_flags);
	EXPECT_EQ(0, rs.off.pad);
	EXPECT_EQ(0, rs.off.reserved[0]);
	EXPECT_EQ(0, rs.off.reserved[1]);
}

/* the loop of the issue: one struct retire_reap for every call */
TEST_F(bad, reap_loop_reusing_its_structure_works)
{
	unsigned int got = 0, calls = 0, i;
	struct retire_cqe cq[2];
	struct retire_reap rp;
	__u64 h[NBUF];

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	for (i = 0; i < NBUF; i++)
		ASSERT_EQ(0, rt_submit(self->r, self->buf[i], 0, BLEN,
				       RETIRE_DEV_WRITE, 0x70 + i, 0, &h[i]));
	memset(&rp, 0, sizeof(rp));
	rp.cqes = (__u64)(uintptr_t)cq;
	rp.nr = 2;
	rp.min_complete = 1;
	rp.timeout_ns = 3000 * RT_MS;
	while (got < NBUF && calls++ < 10) {
		ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_REAP, &rp)) {
			TH_LOG("call %u, reaped %u before it", calls,
			       rp.reaped);
		}
		ASSERT_LE(1, rp.reaped);
		ASSERT_GE(2, rp.reaped);
		for (i = 0; i < rp.reaped; i++)
			EXPECT_EQ(RETIRE_REC_TERMINAL, cq[i].type);
		got += rp.reaped;
	}
	EXPECT_EQ(NBUF, got);
	EXPECT_LE(2, calls);
}

/* ---- the errnos of the corners ------------------------------------------ */

TEST_F(bad, get_stats_size_zero_returns_einval)
{
	struct retire_stats st;
	struct retire_stats_arg a;

	memset(&a, 0, sizeof(a));
	a.stats = (__u64)(uintptr_t)&st;
	expect_refused(_metadata, self, RETIRE_IOC_GET_STATS, &a, sizeof(a),
		       -EINVAL, "size 0");
	a.flags = RETIRE_STATS_F_MODULE;
	expect_refused(_metadata, self, RETIRE_IOC_GET_STATS, &a, sizeof(a),
		       -EINVAL, "module, size 0");
}

TEST_F(bad, reap_min_complete_above_nr_returns_einval)
{
	struct retire_cqe cq[2];
	struct retire_reap rp;

	memset(&rp, 0, sizeof(rp));
	rp.cqes = (__u64)(uintptr_t)cq;
	rp.nr = 2;
	rp.min_complete = 3;
	expect_refused(_metadata, self, RETIRE_IOC_REAP, &rp, sizeof(rp),
		       -EINVAL, "min_complete 3 of nr 2");
	rp.min_complete = 2;
	EXPECT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_REAP, &rp));
	EXPECT_EQ(0, rp.reaped);
}

TEST_F(bad, user_buffer_at_addr_zero_returns_einval)
{
	struct retire_buf_reg reg;

	memset(&reg, 0, sizeof(reg));
	reg.flags = RETIRE_BUF_F_USER;
	reg.len = RT_PAGE;
	expect_refused(_metadata, self, RETIRE_IOC_BUF_REGISTER, &reg,
		       sizeof(reg), -EINVAL, "user buffer at 0");
}

/*
 * A range that wraps past 2^64 is a malformed argument: -EINVAL, nothing
 * counted, on every kernel (gup answered -EOVERFLOW on 6.12 and -EFAULT on
 * 6.1). A well-formed range over max_pinned_bytes is a bound's refusal:
 * -EDQUOT, counted in refused_pinned and nowhere else.
 */
TEST_F(bad, user_range_past_2_64_is_einval_uncounted_but_1tib_is_edquot_counted)
{
	static const char *const moved[] = { "refused_pinned", NULL };
	struct retire_stats before, after;
	struct retire_buf_reg reg;
	const char *d;

	memset(&reg, 0, sizeof(reg));
	reg.flags = RETIRE_BUF_F_USER;
	reg.addr = -(__u64)RT_PAGE;
	reg.len = 2 * RT_PAGE;
	expect_refused(_metadata, self, RETIRE_IOC_BUF_REGISTER, &reg,
		       sizeof(reg), -EINVAL, "a range past 2^64");
	reg.addr = -(__u64)(16 * RT_PAGE);
	reg.len = 1ULL << 40;
	expect_refused(_metadata, self, RETIRE_IOC_BUF_REGISTER, &reg,
		       sizeof(reg), -EINVAL, "1 TiB past 2^64");

	ASSERT_EQ(0, rt_stats(self->r, &before));
	reg.addr = 1ULL << 30;
	EXPECT_EQ(-EDQUOT, rt_ioctl(self->fd, RETIRE_IOC_BUF_REGISTER, &reg));
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(before.refused_pinned + 1, after.refused_pinned);
	d = rt_stats_diff(&before, &after, moved);
	EXPECT_TRUE(d == NULL) {
		TH_LOG("stats.%s changed", d);
	}
}

/* ---- read() and poll() -------------------------------------------------- */

static int set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, fl) < 0 ? -errno : 0;
}

TEST_F(bad, read_shorter_than_a_record_returns_einval)
{
	struct retire_cqe cq[3];
	ssize_t n;
	__u64 h;

	ASSERT_EQ(0, set_nonblock(self->fd, 1));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, self->buf[0], 0, BLEN,
			       RETIRE_DEV_WRITE, 0x4c, 0, &h));
	ASSERT_EQ(1, rt_wait_ready(self->r, 3000));

	errno = 0;
	EXPECT_EQ(-1, read(self->fd, cq, sizeof(cq[0]) - 1));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, cq, 1));
	EXPECT_EQ(EINVAL, errno);

	/* the record was not consumed; whole records only */
	n = read(self->fd, cq, 2 * sizeof(cq[0]) + 10);
	ASSERT_EQ(sizeof(cq[0]), n);
	EXPECT_EQ(h, cq[0].handle);
	EXPECT_EQ(RETIRE_REC_TERMINAL, cq[0].type);
	EXPECT_EQ(0x4c, cq[0].user_data);
	/* read() consumed it: the request can be retired */
	EXPECT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, set_nonblock(self->fd, 0));
}

TEST_F(bad, nonblocking_read_without_records_returns_eagain)
{
	struct retire_cqe cq;

	ASSERT_EQ(0, set_nonblock(self->fd, 1));
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, &cq, sizeof(cq)));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, set_nonblock(self->fd, 0));
}

TEST_F(bad, poll_reports_pollin_only_when_a_record_is_ready)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	struct retire_cqe cq;
	__u64 h;

	ASSERT_EQ(0, set_nonblock(self->fd, 1));
	EXPECT_EQ(0, poll(&pfd, 1, 0));

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 300 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, self->buf[0], 0, BLEN,
			       RETIRE_DEV_WRITE, 0x4d, 0, &h));
	/* in flight: nothing to read yet */
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(1, poll(&pfd, 1, 3000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_EQ(sizeof(cq), read(self->fd, &cq, sizeof(cq)));
	EXPECT_EQ(h, cq.handle);
	EXPECT_EQ(RETIRE_REC_TERMINAL, cq.type);

	/* drained */
	pfd.revents = 0;
	EXPECT_EQ(0, poll(&pfd, 1, 0));

	/* retiring makes the next record */
	ASSERT_EQ(0, retire_release_request(self->r, h));
	EXPECT_EQ(1, poll(&pfd, 1, 1000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_EQ(sizeof(cq), read(self->fd, &cq, sizeof(cq)));
	EXPECT_EQ(h, cq.handle);
	EXPECT_EQ(RETIRE_REC_RETIRED, cq.type);
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, &cq, sizeof(cq)));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, set_nonblock(self->fd, 0));
}

TEST_HARNESS_MAIN
