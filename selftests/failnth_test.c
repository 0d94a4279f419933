// SPDX-License-Identifier: GPL-2.0
/*
 * The fault-injection sweep: for every ioctl, mmap, open and close with
 * work in flight, and every netlink command, fail the 1st, 2nd, 3rd ...
 * allocation of the call through /proc/thread-self/fail-nth (failslab and
 * fail_page_alloc, order 0 included, sleeping allocations included) until
 * a run injects nothing. Each call must return 0 or a clean errno, and
 * once its context is closed the module-wide gauges, VmPin and the
 * system's FOLL_PIN count must be back where they started: nothing leaked,
 * nothing left half done. kmemleak and KASAN
 * in the VM runner watch the same runs.
 *
 * Needs CONFIG_FAULT_INJECTION, FAILSLAB and FAIL_PAGE_ALLOC with debugfs
 * (the debug kernel); skipped elsewhere.
 */
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "retire_test.h"

#define FN_MAX_NTH	200	/* a call with more allocations is a bug */
#define FN_DBG		"/sys/kernel/debug"

/* fail the @n-th fault point of this thread's next calls */
static int fn_arm(unsigned int n)
{
	char b[16];

	snprintf(b, sizeof(b), "%u", n);
	return rt_write_file("/proc/thread-self/fail-nth", b);
}

/* 1 if the armed fault was injected, 0 if not; disarms */
static int fn_injected(void)
{
	long v = rt_read_long("/proc/thread-self/fail-nth");

	rt_write_file("/proc/thread-self/fail-nth", "0");
	return v == 0;
}

/* every allocation a syscall makes may fail, quietly */
static int fn_setup_debugfs(void)
{
	static const char *const set[][2] = {
		{ FN_DBG "/failslab/ignore-gfp-wait", "N" },
		{ FN_DBG "/failslab/verbose", "0" },
		{ FN_DBG "/fail_page_alloc/ignore-gfp-wait", "N" },
		{ FN_DBG "/fail_page_alloc/ignore-gfp-highmem", "N" },
		{ FN_DBG "/fail_page_alloc/min-order", "0" },
		{ FN_DBG "/fail_page_alloc/verbose", "0" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(set) / sizeof(set[0]); i++)
		if (rt_write_file(set[i][0], set[i][1]))
			return -ENOENT;
	return 0;
}

/*
 * The errnos an allocation failure may surface as. libnl reports some
 * failed kernel replies (an ACK or a dump part that could not be
 * allocated) as a generic failure, which libretire gives as -EIO, and a
 * family lookup whose reply was lost as "not found" (-ENOENT).
 */
static bool fn_clean(int ret, bool netlink)
{
	return ret == 0 || ret == -ENOMEM || ret == -EFAULT ||
	       ret == -EAGAIN || ret == -ENOBUFS || ret == -EINTR ||
	       (netlink && (ret == -EIO || ret == -ENOENT));
}

/* ---- the operations ------------------------------------------------------
 *
 * Each runs on a context it opens and closes itself: @setup (not injected)
 * brings the context to the state the operation needs, @op is the call
 * under injection. Both get the same state.
 */
struct fn_state {
	struct retire *r;
	struct retire_nl *nl;
	__u64 buf, req, tok;
	__u64 mmap_offset;
	void *user;
	int fd;
};

struct fn_op {
	const char *name;
	int (*setup)(struct fn_state *s);
	int (*op)(struct fn_state *s);
	bool netlink;
};

static int fn_setup_open(struct fn_state *s)
{
	int ret = retire_open_device(&s->r, NULL, 0);

	if (!ret)
		s->fd = retire_get_fd(s->r);
	return ret;
}

static int fn_setup_buf(struct fn_state *s)
{
	struct retire_buf_reg reg;
	int ret = fn_setup_open(s);

	if (ret)
		return ret;
	memset(&reg, 0, sizeof(reg));
	reg.len = 2 * RT_PAGE;
	ret = retire_register_buffer(s->r, &reg);
	s->buf = reg.handle;
	s->mmap_offset = reg.mmap_offset;
	return ret;
}

/* a request in flight on a slow engine */
static int fn_setup_active(struct fn_state *s)
{
	int ret = fn_setup_buf(s);

	return ret ?: rt_submit(s->r, s->buf, 0, 64, RETIRE_DEV_WRITE, 1, 0,
				&s->req);
}

/* a request the device finished, its TERMINAL record read */
static int fn_setup_done(struct fn_state *s)
{
	struct rt_log l = { 0 };
	int ret = fn_setup_buf(s);

	if (!ret)
		ret = rt_set_latency(s->r, 0, 0);
	if (!ret)
		ret = rt_submit(s->r, s->buf, 0, 64, RETIRE_DEV_READ, 1, 0,
				&s->req);
	if (!ret)
		ret = rt_wait(s->r, &l, s->req, RETIRE_REC_TERMINAL, NULL, 5000);
	rt_log_free(&l);
	return ret;
}

static int fn_setup_token(struct fn_state *s)
{
	int ret = fn_setup_done(s);

	return ret ?: retire_borrow_token(s->r, s->req, &s->tok);
}

static int fn_setup_nl(struct fn_state *s)
{
	int ret = fn_setup_active(s);

	return ret ?: retire_open_netlink(&s->nl);
}

static int fn_op_open(struct fn_state *s)
{
	struct retire *r;
	int ret = retire_open_device(&r, NULL, 0);

	if (!ret)
		retire_close_device(r);
	return ret;
}

/* close() with a request in flight: the reaper takes over */
static int fn_op_close(struct fn_state *s)
{
	retire_close_device(s->r);
	s->r = NULL;
	return 0;
}

static int fn_op_info(struct fn_state *s)
{
	struct retire_info info;

	return retire_get_info(s->r, &info);
}

static int fn_op_register(struct fn_state *s)
{
	struct retire_buf_reg reg;

	memset(&reg, 0, sizeof(reg));
	reg.len = 4 * RT_PAGE;
	return retire_register_buffer(s->r, &reg);
}

static int fn_op_pin(struct fn_state *s)
{
	__u64 h;

	return retire_pin_buffer(s->r, s->user, 4 * RT_PAGE, &h);
}

static int fn_op_unregister(struct fn_state *s)
{
	return retire_unregister_buffer(s->r, s->buf);
}

static int fn_op_mmap(struct fn_state *s)
{
	void *p = mmap(NULL, 2 * RT_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		       s->fd, s->mmap_offset);

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, 2 * RT_PAGE);
	return 0;
}

/* a batch: the first grows the request and job tables */
static int fn_op_submit(struct fn_state *s)
{
	struct retire_sqe sqe[4];
	int i, ret;

	for (i = 0; i < 4; i++) {
		retire_prep_request(&sqe[i], s->buf, i * 64, 64,
				    RETIRE_DEV_READ, i);
		sqe[i].deadline_ns = 50 * RT_MS;
	}
	ret = retire_submit_requests(s->r, sqe, 4);
	if (ret < 0)
		return ret;
	/* one buffer, one request at a time: only the first is admitted */
	return sqe[0].result;
}

static int fn_op_cancel(struct fn_state *s)
{
	int ret = retire_cancel_request(s->r, s->req);

	return ret == -EALREADY ? 0 : ret;
}

static int fn_op_reap(struct fn_state *s)
{
	struct retire_cqe c[8];
	int ret = retire_reap_records(s->r, c, 8, 0, 0);

	return ret < 0 ? ret : 0;
}

static int fn_op_retire(struct fn_state *s)
{
	return retire_release_request(s->r, s->req);
}

static int fn_op_borrow(struct fn_state *s)
{
	__u64 t;

	return retire_borrow_token(s->r, s->req, &t);
}

static int fn_op_handoff(struct fn_state *s)
{
	__u64 t;

	return retire_handoff_token(s->r, s->tok, &t);
}

static int fn_op_stats(struct fn_state *s)
{
	struct retire_stats st;
	int ret = rt_stats(s->r, &st);

	return ret ?: rt_mstats(s->r, &st);
}

static int fn_op_limits(struct fn_state *s)
{
	struct retire_limits l;
	int ret = retire_get_limits(s->r, &l);

	return ret ?: retire_set_limits(s->r, &l);
}

static int fn_op_epoch(struct fn_state *s)
{
	__u64 e;

	return retire_bump_epoch(s->r, 5, &e);
}

static int fn_op_nl_open(struct fn_state *s)
{
	struct retire_nl *nl;
	int ret = retire_open_netlink(&nl);

	if (!ret)
		retire_close_netlink(nl);
	return ret;
}

static int fn_dump_cb(__u64 id, __u32 pid, const struct retire_stats *st,
		      void *arg)
{
	return 0;
}

static int fn_op_nl_stats(struct fn_state *s)
{
	struct retire_stats st;
	int ret = retire_nl_get_stats(s->nl, &st);

	return ret ?: retire_nl_dump_stats(s->nl, fn_dump_cb, NULL);
}

static int fn_op_nl_engine(struct fn_state *s)
{
	struct retire_sim_config cfg;
	int ret = retire_nl_get_sim_config(s->nl, &cfg);

	return ret ?: retire_nl_set_sim_config(s->nl, &cfg);
}

/* the rings: their page array, pages and mapping are each allocated */
static int fn_op_ring_setup(struct fn_state *s)
{
	struct retire_ring_setup rs;

	memset(&rs, 0, sizeof(rs));
	rs.sq_entries = 64;
	rs.cq_entries = 256;
	return rt_ioctl(s->fd, RETIRE_IOC_RING_SETUP, &rs);
}

static const struct fn_op fn_ops[] = {
	{ "open", NULL, fn_op_open },
	{ "close_with_work_in_flight", fn_setup_active, fn_op_close },
	{ "get_info", fn_setup_open, fn_op_info },
	{ "buf_register", fn_setup_open, fn_op_register },
	{ "buf_register_user", fn_setup_open, fn_op_pin },
	{ "buf_unregister", fn_setup_buf, fn_op_unregister },
	{ "mmap", fn_setup_buf, fn_op_mmap },
	{ "submit", fn_setup_buf, fn_op_submit },
	{ "cancel", fn_setup_active, fn_op_cancel },
	{ "reap", fn_setup_done, fn_op_reap },
	{ "retire", fn_setup_done, fn_op_retire },
	{ "borrow", fn_setup_done, fn_op_borrow },
	{ "handoff", fn_setup_token, fn_op_handoff },
	{ "get_stats", fn_setup_open, fn_op_stats },
	{ "limits", fn_setup_open, fn_op_limits },
	{ "epoch", fn_setup_open, fn_op_epoch },
	{ "ring_setup", fn_setup_open, fn_op_ring_setup },
	{ "netlink_open", NULL, fn_op_nl_open, true },
	{ "netlink_stats", fn_setup_nl, fn_op_nl_stats, true },
	{ "netlink_engine", fn_setup_nl, fn_op_nl_engine, true },
};

FIXTURE(fn) {
	struct retire *r;
	struct retire_stats base;
	long vmpin_kb;
	long long pins;
	void *user;
};

FIXTURE_SETUP(fn)
{
	if (access("/proc/thread-self/fail-nth", W_OK) || fn_setup_debugfs())
		SKIP(return, "no fail-nth, failslab or fail_page_alloc here");
	RT_OPEN_OR_SKIP(self->r);
	rt_sim_neutral(self->r);
	/* slow enough that "in flight" stays so during the call */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	self->user = mmap(NULL, 4 * RT_PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, self->user);
	ASSERT_EQ(0, rt_settle_module(self->r, &self->base, 5000));
	self->vmpin_kb = rt_vmpin_kb();
	self->pins = rt_foll_pins_base();
}

FIXTURE_TEARDOWN(fn)
{
	rt_sim_neutral(self->r);
	retire_close_device(self->r);
}

/* one run of @o with its @nth allocation failing; 1 if one was injected */
static int fn_run(struct __test_metadata *_metadata, FIXTURE_DATA(fn) *self,
		  const struct fn_op *o, unsigned int nth)
{
	struct fn_state s = { .user = self->user, .fd = -1 };
	struct retire_stats now;
	int ret, injected;

	if (o->setup)
		ASSERT_EQ(0, o->setup(&s)) TH_LOG("%s: setup", o->name);
	ASSERT_EQ(0, fn_arm(nth));
	ret = o->op(&s);
	injected = fn_injected();
	EXPECT_TRUE(fn_clean(ret, o->netlink))
		TH_LOG("%s, allocation %u failed: returned %d", o->name, nth,
		       ret);
	if (s.nl)
		retire_close_netlink(s.nl);
	if (s.r)
		retire_close_device(s.r);
	/* everything it did, or half did, is gone once its context is */
	EXPECT_EQ(0, rt_wait_module_gauges(self->r, &self->base, &now, 10000))
		TH_LOG("%s, allocation %u failed: the module did not drain",
		       o->name, nth);
	EXPECT_GAUGES_EQ(self->base, now);
	/* and no page stayed pinned or charged for it */
	EXPECT_EQ(self->vmpin_kb, rt_vmpin_kb())
		TH_LOG("%s, allocation %u failed: VmPin", o->name, nth);
	EXPECT_GE(self->pins, rt_foll_pins_back(self->pins, 2000))
		TH_LOG("%s, allocation %u failed: FOLL_PIN", o->name, nth);
	return injected;
}

TEST_F_TIMEOUT(fn, every_allocation_of_every_call_may_fail, 1200)
{
	unsigned int i, nth, runs = 0, injected = 0;

	for (i = 0; i < sizeof(fn_ops) / sizeof(fn_ops[0]); i++) {
		for (nth = 1; nth <= FN_MAX_NTH; nth++) {
			runs++;
			if (!fn_run(_metadata, self, &fn_ops[i], nth))
				break;
			injected++;
			if (_metadata->exit_code)
				return;
		}
		EXPECT_GE(FN_MAX_NTH, nth) TH_LOG("%s never ran out of allocations",
						  fn_ops[i].name);
		TH_LOG("%-26s %3u allocations failed one by one", fn_ops[i].name,
		       nth - 1);
	}
	TH_LOG("%u runs, %u with an injected failure", runs, injected);
}

TEST_HARNESS_MAIN
