// SPDX-License-Identifier: GPL-2.0
/*
 * Regressions of the 1.0 attack: each test failed on the module as
 * released and is named after what it proves. A test whose bug hung or
 * crashed the kernel fails through the VM runner (a lockup detector's
 * panic, a report, or the run's time bound), the others by their checks.
 *
 * Tests that must not have CAP_SYS_ADMIN or CAP_IPC_LOCK run in a child
 * that drops to nobody after opening /dev/retire as root.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <linux/userfaultfd.h>
#include <grp.h>
#include <sched.h>
#include <poll.h>

#include "kselftest_harness.h"
#include "retire_test.h"

#define KEY		7

FIXTURE(rg) {
	struct retire *r;
	struct retire_info info;
	struct rt_log log;
};

FIXTURE_SETUP(rg)
{
	RT_OPEN_OR_SKIP(self->r);
	rt_sim_neutral(self->r);
	ASSERT_EQ(0, retire_get_info(self->r, &self->info));
}

FIXTURE_TEARDOWN(rg)
{
	rt_sim_neutral(self->r);
	rt_log_free(&self->log);
	retire_close_device(self->r);
}

/* one module buffer of @pages pages */
static __u64 rg_buf(struct __test_metadata *_metadata, struct retire *r,
		    unsigned int pages)
{
	__u64 h = 0;

	EXPECT_EQ(0, rt_register(r, pages * RT_PAGE, &h, NULL));
	return h;
}

/* wait for @h's TERMINAL, retire it, wait for its RETIRED */
static void rg_retire(struct __test_metadata *_metadata, struct retire *r,
		      struct rt_log *log, __u64 h, unsigned int ms)
{
	struct retire_cqe c;

	ASSERT_EQ(0, rt_wait(r, log, h, RETIRE_REC_TERMINAL, &c, ms));
	ASSERT_EQ(0, retire_release_request(r, h));
	ASSERT_EQ(0, rt_wait(r, log, h, RETIRE_REC_RETIRED, &c, 2000));
}

/* ---- defect 1: limits and activation ----------------------------------- */

/*
 * Three requests of one key behind max_active = 1: raising the limits back
 * to the caps starts the two waiters at once. On 1.0 they kept waiting,
 * and close() then spun for ever with interrupts off walking the waiting
 * list that its own cancels rearranged.
 */
TEST_F(rg, limits_raise_starts_waiters_and_close_returns)
{
	struct retire_limits l = self->info.caps;
	struct retire_cqe c;
	struct retire *r2;
	__u64 h[3], b[3], t0;
	int i;

	ASSERT_EQ(0, retire_open_device(&r2, NULL, 0));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 600 * RT_MS));
	l.max_active = 1;
	l.max_active_per_key = 1;
	ASSERT_EQ(0, retire_set_limits(r2, &l));
	for (i = 0; i < 3; i++) {
		b[i] = rg_buf(_metadata, r2, 1);
		ASSERT_EQ(0, rt_submit_key(r2, b[i], 0, 64, RETIRE_DEV_WRITE,
					   i, 0, KEY, &h[i]));
	}
	t0 = rt_now_ns();
	ASSERT_EQ(0, retire_set_limits(r2, &self->info.caps));
	/* all three run together now: done near one latency, not three */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, rt_wait(r2, &self->log, h[i], RETIRE_REC_TERMINAL,
				     &c, 5000));
	EXPECT_LT(rt_now_ns() - t0, 1000 * RT_MS);

	/* the same again, closed while two wait: close must return */
	ASSERT_EQ(0, retire_set_limits(r2, &l));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, retire_release_request(r2, h[i]));
		ASSERT_EQ(0, rt_wait(r2, &self->log, h[i], RETIRE_REC_RETIRED,
				     &c, 2000));
		ASSERT_EQ(0, rt_submit_key(r2, b[i], 0, 64, RETIRE_DEV_WRITE,
					   i, 0, KEY, &h[i]));
	}
	ASSERT_EQ(0, retire_set_limits(r2, &self->info.caps));
	retire_close_device(r2);
}

/* LIMITS SET: max_active_per_key below what a key has active is -EBUSY */
TEST_F(rg, limits_refuse_per_key_below_active_use)
{
	struct retire_limits l = self->info.caps, got;
	__u64 h[2];
	int i;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 300 * RT_MS));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, rt_submit_key(self->r, rg_buf(_metadata, self->r, 1),
					   0, 64, RETIRE_DEV_READ, i, 0, KEY,
					   &h[i]));
	l.max_active_per_key = 1;
	EXPECT_EQ(-EBUSY, retire_set_limits(self->r, &l));
	ASSERT_EQ(0, retire_get_limits(self->r, &got));
	EXPECT_EQ(self->info.caps.max_active_per_key, got.max_active_per_key);
	l.max_active_per_key = 2;
	EXPECT_EQ(0, retire_set_limits(self->r, &l));
	for (i = 0; i < 2; i++)
		rg_retire(_metadata, self->r, &self->log, h[i], 5000);
}

/* ---- defect 2: the pool's budget before any allocation ----------------- */

TEST_F(rg, huge_buffer_refused_before_any_allocation)
{
	/* 1 TiB tripped kvmalloc's size warning, 2 GiB the OOM killer */
	static const __u64 lens[] = { 1ULL << 40, 2ULL << 30 };
	struct retire_stats s0, s;
	struct retire_buf_reg reg;
	__u64 t0;
	unsigned int i;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		ASSERT_EQ(0, rt_stats(self->r, &s0));
		memset(&reg, 0, sizeof(reg));
		reg.len = lens[i];
		t0 = rt_now_ns();
		EXPECT_EQ(-ENOSPC, retire_register_buffer(self->r, &reg));
		/* refused from the counters, not after paging in gigabytes */
		EXPECT_LT(rt_now_ns() - t0, 500 * RT_MS);
		ASSERT_EQ(0, rt_stats(self->r, &s));
		EXPECT_EQ(s0.refused_pool + 1, s.refused_pool);
		EXPECT_EQ(s0.pool_bytes, s.pool_bytes);
		EXPECT_EQ(s0.buffers, s.buffers);
	}
}

TEST_F(rg, huge_pinned_buffer_refused_before_pinning)
{
	struct retire_stats s0, s;
	struct retire_buf_reg reg;

	ASSERT_EQ(0, rt_stats(self->r, &s0));
	memset(&reg, 0, sizeof(reg));
	reg.flags = RETIRE_BUF_F_USER;
	reg.addr = 1ULL << 30;
	reg.len = 1ULL << 40;
	EXPECT_EQ(-EDQUOT, retire_register_buffer(self->r, &reg));
	ASSERT_EQ(0, rt_stats(self->r, &s));
	EXPECT_EQ(s0.refused_pinned + 1, s.refused_pinned);
	EXPECT_EQ(s0.pinned_bytes, s.pinned_bytes);
}

/* ---- defect 3: SIM_INJECT decides and delivers under one lock hold ----- */

struct rg_race {
	struct retire *r;
	__u64 buf;
	volatile __u64 last;	/* the handle the submitter used last */
	volatile int stop;
	unsigned long injected, busy;
};

static void *rg_inject(void *arg)
{
	struct rg_race *x = arg;
	__u64 h, next;
	int ret;

	while (!x->stop) {
		h = x->last;
		/* the handle the slot's next incarnation will have */
		next = (h & ~0xffffffffULL) | (__u32)(h + 1);
		ret = retire_inject_sim_event(x->r, next, 0);
		if (ret == -EBUSY)
			x->busy++;
		x->injected++;
	}
	return NULL;
}

/*
 * A handle that came alive between the check and the delivery was ended
 * under its running job on 1.0: a use after free of the buffer's pages or
 * a job left on the engine's list, for KASAN or list debugging to report.
 */
TEST_F(rg, inject_never_ends_a_request_that_came_alive)
{
	struct rg_race x = { .r = self->r };
	struct retire_stats s;
	struct retire_cqe c;
	pthread_t t;
	__u64 h, end;
	int n = 0;

	ASSERT_EQ(0, rt_set_sim(self->r, 0, 0, 200000, 512, 0, 1));
	x.buf = rg_buf(_metadata, self->r, 1);
	ASSERT_EQ(0, rt_submit(self->r, x.buf, 0, 4096, RETIRE_DEV_WRITE, 1,
			       0, &h));
	x.last = h;
	ASSERT_EQ(0, pthread_create(&t, NULL, rg_inject, &x));
	end = rt_now_ns() + 2000 * RT_MS;
	while (rt_now_ns() < end) {
		ASSERT_EQ(0, rt_wait(self->r, &self->log, h,
				     RETIRE_REC_TERMINAL, &c, 5000));
		/* the sim engine finished it: nobody else did */
		ASSERT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
		ASSERT_EQ(4096, c.result_len);
		ASSERT_EQ(0, retire_release_request(self->r, h));
		ASSERT_EQ(0, rt_wait(self->r, &self->log, h,
				     RETIRE_REC_RETIRED, &c, 2000));
		ASSERT_EQ(0, rt_submit(self->r, x.buf, 0, 4096,
				       RETIRE_DEV_WRITE, 1, 0, &h));
		x.last = h;
		rt_log_free(&self->log);
		n++;
	}
	x.stop = 1;
	pthread_join(t, NULL);
	rg_retire(_metadata, self->r, &self->log, h, 5000);
	ASSERT_EQ(0, rt_stats(self->r, &s));
	EXPECT_EQ(0, s.device_outstanding);
	TH_LOG("%d requests, %lu injections, %lu refused as live", n,
	       x.injected, x.busy);
}

/* ---- defect 4: freeing contexts never stalls the module's queue -------- */

TEST_F(rg, contexts_freed_together_keep_the_queue_running)
{
	enum { N = 320 };
	struct retire_stats base, now;
	struct retire **rs;
	__u64 b, h;
	int i;

	ASSERT_EQ(0, rt_settle_module(self->r, &base, 5000));
	rs = calloc(N, sizeof(*rs));
	ASSERT_NE(NULL, rs);
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, retire_open_device(&rs[i], NULL, 0));
		/* a stale cancel: its notification is pending at close */
		EXPECT_EQ(-ENOENT, retire_cancel_request(rs[i], 1));
	}
	for (i = 0; i < N; i++)
		retire_close_device(rs[i]);
	free(rs);

	/* the queue still runs the engine: a request completes */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 0));
	b = rg_buf(_metadata, self->r, 1);
	ASSERT_EQ(0, rt_submit(self->r, b, 0, 64, RETIRE_DEV_READ, 1, 0, &h));
	rg_retire(_metadata, self->r, &self->log, h, 10000);
	ASSERT_EQ(0, retire_unregister_buffer(self->r, b));
	/* and every closed context was freed */
	EXPECT_EQ(0, rt_wait_module_gauges(self->r, &base, &now, 20000));
	EXPECT_GAUGES_EQ(base, now);
}

/* ---- defect 5: bandwidth never asks for more than the bucket holds ----- */

TEST_F(rg, request_longer_than_burst_completes_under_a_rate)
{
	struct retire_sim_config cfg;
	struct retire_cqe c;
	__u64 h;

	memset(&cfg, 0, sizeof(cfg));
	cfg.op = RETIRE_SIM_SET;
	cfg.rate_bps = 4 << 20;
	cfg.burst_bytes = 4096;
	/* bytes_per_tick 0: the whole range in one transfer */
	ASSERT_EQ(0, retire_set_sim_config(self->r, &cfg));
	ASSERT_EQ(0, rt_submit(self->r, rg_buf(_metadata, self->r, 16), 0,
			       16 * RT_PAGE, RETIRE_DEV_WRITE, 3, 0, &h));
	/* 64 KiB at 4 MiB/s: 16 ms of credit, not a wait for ever */
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     3000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(16 * RT_PAGE, c.result_len);
	rg_retire(_metadata, self->r, &self->log, h, 1000);
}

/* ---- defect 7: pinned memory is charged to the user -------------------- */

#define RG_LIMIT_PAGES	16
#define RG_PROBE_ENV	"RETIRE_RG_PIN_PROBE_FD"

/* pin one page through the retire fd @fd: 0 or -errno */
static int rg_pin_one(int fd)
{
	struct retire_buf_reg reg;
	void *p;

	p = mmap(NULL, RT_PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	memset(p, 1, RT_PAGE);
	memset(&reg, 0, sizeof(reg));
	reg.flags = RETIRE_BUF_F_USER;
	reg.addr = (__u64)(uintptr_t)p;
	reg.len = RT_PAGE;
	return rt_ioctl(fd, RETIRE_IOC_BUF_REGISTER, &reg);
}

/* after exec: try to pin one page on the inherited fd, exit 0 if refused */
__attribute__((constructor)) static void rg_pin_probe(void)
{
	const char *fd = getenv(RG_PROBE_ENV);

	if (fd)
		_exit(rg_pin_one(atoi(fd)) == -ENOMEM ? 0 : 1);
}

/* as nobody, no capabilities, RLIMIT_MEMLOCK of RG_LIMIT_PAGES pages */
static int rg_become_nobody(rlim_t memlock)
{
	struct rlimit rl = { memlock, memlock };

	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		return -errno;
	return rt_become_nobody();
}

/* the user's whole allowance, pinned through @fd */
static int rg_pin_limit(int fd, void **mem)
{
	struct retire_buf_reg reg;

	*mem = mmap(NULL, RG_LIMIT_PAGES * RT_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (*mem == MAP_FAILED)
		return -errno;
	memset(&reg, 0, sizeof(reg));
	reg.flags = RETIRE_BUF_F_USER;
	reg.addr = (__u64)(uintptr_t)*mem;
	reg.len = RG_LIMIT_PAGES * RT_PAGE;
	return rt_ioctl(fd, RETIRE_IOC_BUF_REGISTER, &reg);
}

/*
 * exit codes of the child: 0 all held; 10 + step for a failed step
 */
static int rg_charge_child(int fd, bool use_exec)
{
	char num[16];
	void *mem;
	pid_t pid;
	int st;

	if (rg_become_nobody(RG_LIMIT_PAGES * RT_PAGE))
		return 10;
	if (rg_pin_limit(fd, &mem))
		return 11;
	/* the user is at its limit: one more page is refused here */
	if (rg_pin_one(fd) != -ENOMEM)
		return 12;
	pid = fork();
	if (pid < 0)
		return 13;
	if (!pid) {
		if (!use_exec)
			_exit(rg_pin_one(fd) == -ENOMEM ? 0 : 1);
		/* a new mm, the same user: still at its limit */
		snprintf(num, sizeof(num), "%d", fd);
		setenv(RG_PROBE_ENV, num, 1);
		execl("/proc/self/exe", "regress_test", (char *)NULL);
		_exit(2);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 14;
	return WEXITSTATUS(st) ? 20 + WEXITSTATUS(st) : 0;
}

static int rg_grow_buf_table(int fd);

static void rg_charge_case(struct __test_metadata *_metadata, bool use_exec)
{
	struct retire *r2;
	pid_t pid;
	int fd, st;

	ASSERT_EQ(0, retire_open_device(&r2, NULL, 0));
	fd = retire_get_fd(r2);
	/* the exec'd grandchild inherits it */
	ASSERT_EQ(0, fcntl(fd, F_SETFD, 0));
	ASSERT_EQ(0, rg_grow_buf_table(fd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(rg_charge_child(fd, use_exec));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	retire_close_device(r2);
}

/* a forked child has a fresh mm but not a fresh RLIMIT_MEMLOCK */
TEST_F(rg, pinned_charge_is_the_users_across_fork)
{
	rg_charge_case(_metadata, false);
}

/* an exec leaves the pin, and its charge, with the user */
TEST_F(rg, pinned_charge_is_the_users_across_exec)
{
	rg_charge_case(_metadata, true);
}

/* ---- a user's RLIMIT_MEMLOCK covers all the memory it makes the module hold */

static int rg_register_module(int fd, __u64 pages, __u64 *handle)
{
	struct retire_buf_reg reg;
	int ret;

	memset(&reg, 0, sizeof(reg));
	reg.len = pages * RT_PAGE;
	ret = rt_ioctl(fd, RETIRE_IOC_BUF_REGISTER, &reg);
	if (!ret && handle)
		*handle = reg.handle;
	return ret;
}

/* unregister buffer @handle of @fd: 0 or -errno */
static int rg_unregister(int fd, __u64 handle)
{
	struct retire_handle_arg h;

	memset(&h, 0, sizeof(h));
	h.handle = handle;
	return rt_ioctl(fd, RETIRE_IOC_BUF_UNREGISTER, &h);
}

/*
 * As nobody with RG_LIMIT_PAGES pages to lock: a module buffer of all of
 * them, registered through @fd and mapped shared. Returns the mapping
 * (its handle in *@handle), or NULL with *@step the step that failed:
 * 10 to 12.
 */
static char *rg_map_all_as_nobody(int fd, __u64 *handle, int *step)
{
	const size_t len = RG_LIMIT_PAGES * RT_PAGE;
	struct retire_buf_reg reg;
	void *map;

	*step = 10;
	if (rg_become_nobody(len))
		return NULL;
	*step = 11;
	memset(&reg, 0, sizeof(reg));
	reg.len = len;
	if (rt_ioctl(fd, RETIRE_IOC_BUF_REGISTER, &reg))
		return NULL;
	*step = 12;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   reg.mmap_offset);
	if (map == MAP_FAILED)
		return NULL;
	*handle = reg.handle;
	return map;
}

/*
 * Root (CAP_IPC_LOCK: nothing charged) grows @fd's buffer table by its
 * first chunk: a registration that grows it charges its pages to the
 * caller's RLIMIT_MEMLOCK too, so a test that measures a user's
 * allowance in buffer pages alone starts with the table there.
 */
static int rg_grow_buf_table(int fd)
{
	__u64 handle;

	return rg_register_module(fd, 1, &handle) ?:
	       rg_unregister(fd, handle);
}

static int rg_pool_bytes(int fd, __u64 *bytes)
{
	struct retire_stats st;
	struct retire_stats_arg a;
	int ret;

	memset(&st, 0, sizeof(st));
	memset(&a, 0, sizeof(a));
	a.stats = (__u64)(uintptr_t)&st;
	a.size = sizeof(st);
	ret = rt_ioctl(fd, RETIRE_IOC_GET_STATS, &a);
	*bytes = st.pool_bytes;
	return ret;
}

/*
 * exit codes of the child: 0 all held; 10 + step for a failed step. As
 * nobody with RG_LIMIT_PAGES pages to lock: module buffers of all of
 * them fit, a page more is refused on this context and on another (the
 * allowance is the user's, not a context's) with nothing allocated, and
 * what an unregistration gives back is free to use again.
 */
static int rg_module_charge_child(int fd, int fd2)
{
	__u64 big, small, pool;

	if (rg_become_nobody(RG_LIMIT_PAGES * RT_PAGE))
		return 10;
	if (rg_register_module(fd, RG_LIMIT_PAGES, &big))
		return 11;
	if (rg_register_module(fd, 1, NULL) != -ENOMEM)
		return 12;
	if (rg_register_module(fd2, 1, NULL) != -ENOMEM)
		return 13;
	if (rg_pool_bytes(fd2, &pool) || pool != 0)
		return 14;
	if (rg_unregister(fd, big))
		return 15;
	if (rg_register_module(fd2, 1, &small))
		return 16;
	return 0;
}

/*
 * Module-allocated buffers are charged to the registering user's
 * RLIMIT_MEMLOCK, as pinned ones are: without it a member of the
 * device's group made the module hold max_pool_bytes per context, for as
 * many contexts as it could open, in no RSS, VmLck or VmPin.
 */
/*
 * Two contexts, their buffer tables grown (rg_grow_buf_table()), and a
 * child that runs @child on their fds: its exit status, 0 when it held.
 */
static int rg_charge_run(struct __test_metadata *_metadata,
			 int (*child)(int fd, int fd2))
{
	struct retire *a, *b;
	pid_t pid;
	int st;

	ASSERT_EQ(0, retire_open_device(&a, NULL, 0));
	ASSERT_EQ(0, retire_open_device(&b, NULL, 0));
	ASSERT_EQ(0, rg_grow_buf_table(retire_get_fd(a)));
	ASSERT_EQ(0, rg_grow_buf_table(retire_get_fd(b)));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(child(retire_get_fd(a), retire_get_fd(b)));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	retire_close_device(b);
	retire_close_device(a);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

TEST_F(rg, module_buffers_are_charged_to_the_users_memlock)
{
	EXPECT_EQ(0, rg_charge_run(_metadata, rg_module_charge_child));
}

/*
 * exit codes of the child: 0 all held; 10 + step for a failed step. As
 * nobody with RG_LIMIT_PAGES pages to lock: a module buffer of all of
 * them, mapped, then unregistered. The mapping keeps the pages, so they
 * stay charged: a page more is refused until the last mapping is gone,
 * a fork's copy of it included.
 */
static int rg_mapped_charge_child(int fd, int fd2)
{
	const size_t len = RG_LIMIT_PAGES * RT_PAGE;
	int go[2], st, step;
	__u64 handle;
	pid_t copy;
	char *map;
	char c;

	map = rg_map_all_as_nobody(fd, &handle, &step);
	if (!map)
		return step;
	memset(map, 0x5a, len);
	/* a copy of the mapping in another process, until told to go */
	if (pipe(go))
		return 13;
	copy = fork();
	if (copy < 0)
		return 14;
	if (!copy) {
		close(go[1]);
		_exit(read(go[0], &c, 1) == 1 && map[len - 1] == 0x5a ? 0 : 1);
	}
	close(go[0]);
	if (rg_unregister(fd, handle))
		return 15;
	/* the pages are the mappings' now, and still the user's charge */
	if (rg_register_module(fd2, 1, NULL) != -ENOMEM)
		return 16;
	if (munmap(map, len))
		return 17;
	if (rg_register_module(fd2, 1, NULL) != -ENOMEM)
		return 18;
	/* the last mapping goes with the copy's process */
	if (write(go[1], "x", 1) != 1 || waitpid(copy, &st, 0) != copy ||
	    !WIFEXITED(st) || WEXITSTATUS(st))
		return 19;
	if (rg_register_module(fd2, 1, NULL))
		return 20;
	return 0;
}

/*
 * A mapping of a module buffer outlives its unregistration, and keeps
 * its pages: they stay charged to the user's RLIMIT_MEMLOCK until the
 * last mapping is gone. Before, the charge went with the buffer, and a
 * loop of register, mmap, unregister held any amount of unswappable
 * memory within a limit of a few pages.
 */
TEST_F(rg, a_mapping_keeps_its_pages_charged_after_unregistration)
{
	EXPECT_EQ(0, rg_charge_run(_metadata, rg_mapped_charge_child));
}

/*
 * exit codes of the child: 0 all held; 10 + step for a failed step. As
 * nobody with RG_LIMIT_PAGES pages to lock: a module buffer of all of
 * them, mapped, its mapping split by an munmap of a page in the middle,
 * its tail moved by mremap(), and then unregistered. Each piece holds the
 * pages and their charge until the last piece is gone; the moved piece
 * still maps the buffer's bytes; no piece grows past the buffer.
 */
static int rg_split_charge_child(int fd, int fd2)
{
	const size_t len = RG_LIMIT_PAGES * RT_PAGE;
	char *map, *tail, *moved;
	__u64 handle;
	size_t i;
	int step;

	map = rg_map_all_as_nobody(fd, &handle, &step);
	if (!map)
		return step;
	for (i = 0; i < len; i++)
		map[i] = (char)(i / RT_PAGE);
	/* three pieces: [0, 4), a hole at 4, [5, 16) */
	if (munmap(map + 4 * RT_PAGE, RT_PAGE))
		return 13;
	tail = map + 5 * RT_PAGE;
	/* somewhere else to move the tail to, reserved first */
	moved = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (moved == MAP_FAILED)
		return 14;
	if (mremap(tail, 11 * RT_PAGE, 11 * RT_PAGE,
		   MREMAP_MAYMOVE | MREMAP_FIXED, moved) != moved)
		return 15;
	/* no piece grows past the buffer, in place or moved */
	if (mremap(map, 4 * RT_PAGE, 5 * RT_PAGE, 0) != MAP_FAILED ||
	    mremap(moved, 11 * RT_PAGE, 12 * RT_PAGE, MREMAP_MAYMOVE) !=
	    MAP_FAILED)
		return 16;
	if (rg_unregister(fd, handle))
		return 17;
	if (rg_register_module(fd2, 1, NULL) != -ENOMEM)
		return 18;
	if (munmap(map, 4 * RT_PAGE))
		return 19;
	if (rg_register_module(fd2, 1, NULL) != -ENOMEM)
		return 20;
	/* the moved piece still maps pages 5 to 15 of the buffer */
	for (i = 0; i < 11 * RT_PAGE; i += RT_PAGE)
		if (moved[i] != (char)(5 + i / RT_PAGE))
			return 21;
	if (munmap(moved, len))
		return 22;
	if (rg_register_module(fd2, 1, NULL))
		return 23;
	return 0;
}

/*
 * The pieces of a split or moved mapping are each a mapping: the split
 * (vm_ops->open on the new piece) and the move (open on the new, close on
 * the old) keep the count of mappings that the charge rides on right.
 */
TEST_F(rg, a_split_or_moved_mapping_keeps_its_pages_charged_to_the_last_piece)
{
	EXPECT_EQ(0, rg_charge_run(_metadata, rg_split_charge_child));
}

/* as nobody with two pages to lock: rings of five are refused, then fit */
static int rg_ring_charge_child(int fd)
{
	struct retire_ring_setup rs;

	if (rg_become_nobody(2 * RT_PAGE))
		return 10;
	memset(&rs, 0, sizeof(rs));
	rs.sq_entries = 64;
	rs.cq_entries = 256;
	if (rt_ioctl(fd, RETIRE_IOC_RING_SETUP, &rs) != -ENOMEM)
		return 11;
	memset(&rs, 0, sizeof(rs));
	rs.sq_entries = 1;
	rs.cq_entries = 1;
	if (rt_ioctl(fd, RETIRE_IOC_RING_SETUP, &rs))
		return 12;
	return 0;
}

/* the rings' pages are the user's to lock too, as io_uring's are */
TEST_F(rg, rings_are_charged_to_the_users_memlock)
{
	struct retire *a;
	pid_t pid;
	int st;

	ASSERT_EQ(0, retire_open_device(&a, NULL, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(rg_ring_charge_child(retire_get_fd(a)));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	retire_close_device(a);
}

/*
 * As nobody with nothing to lock (a soft RLIMIT_MEMLOCK of 0): the
 * request table cannot grow (-ENOMEM) and nothing is admitted; with the
 * soft limit raised to the hard one, the same submission goes through.
 */
static int rg_table_charge_child(struct retire *r, __u64 buf)
{
	struct rlimit rl = { 0, RG_LIMIT_PAGES * RT_PAGE };
	struct retire_stats st;
	__u64 h;

	if (setrlimit(RLIMIT_MEMLOCK, &rl) || rt_become_nobody())
		return 10;
	if (rt_submit(r, buf, 0, 64, RETIRE_DEV_READ, 1, 0, &h) != -ENOMEM)
		return 11;
	if (rt_stats(r, &st) || st.admitted || st.physical_outstanding)
		return 12;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		return 13;
	if (rt_submit(r, buf, 0, 64, RETIRE_DEV_READ, 1, 0, &h))
		return 14;
	return 0;
}

/*
 * A context's request, token, job and buffer tables grow with what its
 * caller asks for (a request table to 1 MiB): their pages are charged to
 * the user whose call grows them, as buffers and rings are. Without it a
 * user made the module hold a request table per context, for as many
 * contexts as it could open, charged to nothing but its memory cgroup.
 */
TEST_F(rg, request_tables_are_charged_to_the_users_memlock)
{
	struct retire *a;
	__u64 buf;
	pid_t pid;
	int st;

	ASSERT_EQ(0, retire_open_device(&a, NULL, 0));
	ASSERT_EQ(0, rt_register(a, RT_PAGE, &buf, NULL));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(rg_table_charge_child(a, buf));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	retire_close_device(a);
}

/* ---- defect 8: nanoseconds past a ktime -------------------------------- */

TEST_F(rg, deadline_past_ktime_max_is_refused)
{
	struct retire_stats s0, s;
	__u64 b, h;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 100 * RT_MS));
	b = rg_buf(_metadata, self->r, 1);
	ASSERT_EQ(0, rt_stats(self->r, &s0));
	EXPECT_EQ(-EINVAL, rt_submit(self->r, b, 0, 64, RETIRE_DEV_READ, 1,
				     1ULL << 63, &h));
	EXPECT_EQ(-EINVAL, rt_submit(self->r, b, 0, 64, RETIRE_DEV_READ, 1,
				     ~0ULL, &h));
	ASSERT_EQ(0, rt_stats(self->r, &s));
	EXPECT_EQ(s0.admitted, s.admitted);
	EXPECT_EQ(s0.refused + 2, s.refused);
	/* the longest deadline a ktime holds is a deadline, not an expiry */
	ASSERT_EQ(0, rt_submit(self->r, b, 0, 64, RETIRE_DEV_READ, 1,
			       (1ULL << 63) - 1, &h));
	rg_retire(_metadata, self->r, &self->log, h, 5000);
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_TIMEOUT));
}

static void rg_alarm(int sig)
{
}

TEST_F(rg, reap_with_huge_timeout_waits)
{
	struct sigaction sa = { .sa_handler = rg_alarm };
	struct retire_cqe c;
	struct retire_reap reap;
	__u64 t0;

	/* no SA_RESTART: the signal ends the wait */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	memset(&reap, 0, sizeof(reap));
	reap.cqes = (__u64)(uintptr_t)&c;
	reap.nr = 1;
	reap.min_complete = 1;
	reap.timeout_ns = ~0ULL - 1;
	t0 = rt_now_ns();
	alarm(1);
	EXPECT_EQ(-EINTR, rt_ioctl(retire_get_fd(self->r), RETIRE_IOC_REAP,
				   &reap));
	alarm(0);
	/* it waited for the signal rather than wrapping into the past */
	EXPECT_GT(rt_now_ns() - t0, 800 * RT_MS);
}

/*
 * Found by the fuzzer on the debug kernel (issue 16): a REAP of 2 ms never
 * returned. It checked its deadline and computed what was left with two
 * clock reads; when the deadline passed between them the wait got a
 * negative relative timeout, which hrtimer's ktime_add_safe() saturates
 * to KTIME_MAX, so the sleeper's timer never fired and only a record or a
 * signal ended the wait. Timeouts of a few microseconds, about the time
 * REAP takes to get to its wait, land the deadline in that window; each
 * call must return within its timeout plus a second.
 */
#define RG_SHORT_REAPS	20000

TEST_F(rg, reap_with_short_timeout_always_returns)
{
	struct sigaction sa = { .sa_handler = rg_alarm };
	struct itimerval one_s = { .it_value = { .tv_sec = 1 } }, off = { 0 };
	struct retire_cqe c;
	struct retire_reap reap;
	__u64 rng = 0x5eed, t0, took;
	unsigned int made = 0, stuck = 0;
	long ret;

	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	while (made < RG_SHORT_REAPS) {
		memset(&reap, 0, sizeof(reap));
		reap.cqes = (__u64)(uintptr_t)&c;
		reap.nr = 1;
		reap.min_complete = 1;
		/* 0 to 20 us, denser where REAP reaches its wait */
		reap.timeout_ns = rt_rand(&rng, 2) ? rt_rand(&rng, 4000) :
						      rt_rand(&rng, 20000);
		ASSERT_EQ(0, setitimer(ITIMER_REAL, &one_s, NULL));
		t0 = rt_now_ns();
		ret = rt_ioctl(retire_get_fd(self->r), RETIRE_IOC_REAP, &reap);
		took = rt_now_ns() - t0;
		made++;
		ASSERT_EQ(0, setitimer(ITIMER_REAL, &off, NULL));
		if (ret == -EINTR || took > 900 * RT_MS) {
			TH_LOG("REAP with timeout %llu ns waited %llu ms (call %u)",
			       (unsigned long long)reap.timeout_ns,
			       (unsigned long long)(took / RT_MS), made);
			/* each costs a second: three say enough */
			if (++stuck == 3)
				break;
			continue;
		}
		ASSERT_EQ(0, ret);
		ASSERT_EQ(0, reap.reaped);
	}
	EXPECT_EQ(0, stuck) {
		TH_LOG("%u of %u short REAPs waited until a signal", stuck,
		       made);
	}
}

/* ---- defect 9: a handoff at the token bound ---------------------------- */

TEST_F(rg, handoff_at_token_cap_succeeds)
{
	unsigned int cap = self->info.caps.max_tokens, i;
	struct retire_stats s;
	__u64 *tok, h, nt;
	struct retire_cqe c;

	tok = calloc(cap, sizeof(*tok));
	ASSERT_NE(NULL, tok);
	ASSERT_EQ(0, rt_submit(self->r, rg_buf(_metadata, self->r, 1), 0, 64,
			       RETIRE_DEV_READ, 1, 0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     5000));
	for (i = 0; i < cap; i++)
		ASSERT_EQ(0, retire_borrow_token(self->r, h, &tok[i]));
	EXPECT_EQ(-ETOOMANYREFS, retire_borrow_token(self->r, h, &nt));
	/* both tokens exist for an instant: one over the bound */
	ASSERT_EQ(0, retire_handoff_token(self->r, tok[0], &nt));
	tok[0] = nt;
	ASSERT_EQ(0, rt_stats(self->r, &s));
	EXPECT_EQ(cap, s.tokens_out);
	ASSERT_EQ(0, retire_release_request(self->r, h));
	for (i = 0; i < cap; i++)
		ASSERT_EQ(0, retire_return_token(self->r, tok[i], 0));
	EXPECT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     2000));
	free(tok);
}

/* ---- defect 10: an mmap offset names one buffer ------------------------ */

TEST_F(rg, stale_mmap_offset_fails_with_enoent_and_counts)
{
	struct retire_buf_reg a, b;
	struct retire_stats s0, s;
	int fd = retire_get_fd(self->r);
	void *p;

	memset(&a, 0, sizeof(a));
	a.len = RT_PAGE;
	ASSERT_EQ(0, retire_register_buffer(self->r, &a));
	ASSERT_EQ(0, retire_unregister_buffer(self->r, a.handle));
	memset(&b, 0, sizeof(b));
	b.len = RT_PAGE;
	ASSERT_EQ(0, retire_register_buffer(self->r, &b));
	/* the same slot, the next generation */
	ASSERT_EQ(RETIRE_HANDLE_SLOT(a.handle), RETIRE_HANDLE_SLOT(b.handle));
	EXPECT_NE(a.mmap_offset, b.mmap_offset);

	ASSERT_EQ(0, rt_stats(self->r, &s0));
	p = mmap(NULL, RT_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 a.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, rt_stats(self->r, &s));
	EXPECT_EQ(s0.stale_user + 1, s.stale_user);

	p = mmap(NULL, RT_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 b.mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, RT_PAGE);
	ASSERT_EQ(0, retire_unregister_buffer(self->r, b.handle));
}

/* ---- issue 17: quarantine ends with the device's own terminal event --- */

TEST_F(rg, quarantined_request_retires_on_its_terminal_without_reset)
{
	struct retire_limits l = self->info.caps;
	struct retire_stats s;
	struct retire_cqe c;
	__u64 b, h;

	l.watchdog_ns = RETIRE_WATCHDOG_MIN_NS;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 600 * RT_MS));
	b = rg_buf(_metadata, self->r, 1);
	ASSERT_EQ(0, rt_submit(self->r, b, 0, 64, RETIRE_DEV_WRITE, 1, 0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_QUARANTINE, &c,
			     3000));
	ASSERT_EQ(0, rt_stats(self->r, &s));
	EXPECT_EQ(1, s.quarantined_now);
	/* the device reports after all: proven termination, no reset */
	rg_retire(_metadata, self->r, &self->log, h, 5000);
	ASSERT_EQ(0, rt_stats(self->r, &s));
	EXPECT_EQ(0, s.quarantined_now);
	EXPECT_EQ(1, s.quarantined);
	EXPECT_EQ(0, s.owned_bytes);
	/* and the context admits again */
	l.watchdog_ns = self->info.caps.watchdog_ns;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	ASSERT_EQ(0, rt_submit(self->r, b, 0, 64, RETIRE_DEV_WRITE, 2, 0, &h));
	rg_retire(_metadata, self->r, &self->log, h, 5000);
}

/* as nobody: the watchdog floor, then an exit with work quarantined */
static int rg_nobody_quarantine(int fd)
{
	struct retire_limits_arg la;
	struct retire_buf_reg reg;
	struct retire_submit sub;
	struct retire_sqe sqe;

	if (rg_become_nobody(RG_LIMIT_PAGES * RT_PAGE))
		return 10;
	memset(&la, 0, sizeof(la));
	la.op = RETIRE_LIMITS_GET;
	if (rt_ioctl(fd, RETIRE_IOC_LIMITS, &la))
		return 11;
	la.op = RETIRE_LIMITS_SET;
	la.limits.watchdog_ns = 1;
	if (rt_ioctl(fd, RETIRE_IOC_LIMITS, &la) != -EPERM)
		return 12;
	la.limits.watchdog_ns = RETIRE_WATCHDOG_MIN_NS;
	if (rt_ioctl(fd, RETIRE_IOC_LIMITS, &la))
		return 13;
	memset(&reg, 0, sizeof(reg));
	reg.len = RT_PAGE;
	if (rt_ioctl(fd, RETIRE_IOC_BUF_REGISTER, &reg))
		return 14;
	retire_prep_request(&sqe, reg.handle, 0, 64, RETIRE_DEV_WRITE, 1);
	memset(&sub, 0, sizeof(sub));
	sub.sqes = (__u64)(uintptr_t)&sqe;
	sub.nr = 1;
	if (rt_ioctl(fd, RETIRE_IOC_SUBMIT, &sub) || sqe.result)
		return 15;
	/* past the watchdog, then gone with the request quarantined */
	rt_msleep(300);
	return 0;
}

TEST_F(rg, unprivileged_quarantine_ends_without_root_after_exit)
{
	struct retire_stats base, now, s;
	struct retire *r2;
	pid_t pid;
	int st;

	ASSERT_EQ(0, rt_settle_module(self->r, &base, 5000));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 1000 * RT_MS));
	ASSERT_EQ(0, retire_open_device(&r2, NULL, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(rg_nobody_quarantine(retire_get_fd(r2)));
	retire_close_device(r2);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));
	ASSERT_EQ(0, rt_mstats(self->r, &s));
	EXPECT_EQ(base.quarantined_now + 1, s.quarantined_now);
	/* no reset: the engine's report retires it and frees the context */
	EXPECT_EQ(0, rt_wait_module_gauges(self->r, &base, &now, 10000));
	EXPECT_GAUGES_EQ(base, now);
}

/* ---- defect 13: what a reset reports for work finishing as it runs ---- */

/*
 * The rule: completed only if the last byte moved and the destination's
 * finish_ns elapsed before the reset reached the job; failed otherwise,
 * with the bytes moved. Work done before the reset stays completed.
 */
TEST_F(rg, reset_fails_unfinished_work_and_keeps_finished_work)
{
	struct retire_sim_config cfg;
	struct retire_stats s;
	struct retire_cqe c;
	__u64 a, b;
	int ret = 0;

	/* A finishes before the reset */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 0));
	ASSERT_EQ(0, rt_submit(self->r, rg_buf(_metadata, self->r, 1), 0, 4096,
			       RETIRE_DEV_WRITE, 1, 0, &a));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, a, RETIRE_REC_TERMINAL, &c,
			     5000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);

	/* B moved every byte, but its destination takes 10 s to finish */
	memset(&cfg, 0, sizeof(cfg));
	cfg.op = RETIRE_SIM_SET;
	cfg.finish_ns = 10000 * RT_MS;
	ASSERT_EQ(0, retire_set_sim_config(self->r, &cfg));
	ASSERT_EQ(0, rt_submit(self->r, rg_buf(_metadata, self->r, 1), 0, 4096,
			       RETIRE_DEV_WRITE, 2, 0, &b));
	RT_POLL_UNTIL((ret = rt_stats(self->r, &s)) ||
		      s.engine_bytes >= 2 * 4096, 5000, 5);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(2 * 4096, s.engine_bytes);

	ASSERT_EQ(0, retire_reset_sim(self->r));
	/* the reset returned after B's report: it is there already */
	ASSERT_EQ(0, rt_wait(self->r, &self->log, b, RETIRE_REC_TERMINAL, &c,
			     1000));
	EXPECT_EQ(RETIRE_OUTCOME_FAILED, c.outcome);
	EXPECT_EQ(-ECANCELED, c.error);
	EXPECT_FALSE(c.flags & RETIRE_CQE_F_MEASURED);
	/* and A's completion stands: one TERMINAL each */
	EXPECT_EQ(1, rt_count(&self->log, a, RETIRE_REC_TERMINAL));
	EXPECT_EQ(1, rt_count(&self->log, b, RETIRE_REC_TERMINAL));
	rg_retire(_metadata, self->r, &self->log, a, 1000);
	rg_retire(_metadata, self->r, &self->log, b, 1000);
}

/* ---- defect 11: a batch whose array went away while it was admitted --- */

struct rg_uffd_read {
	int fd;
	void *dst;
	ssize_t ret;
};

/* a read() that faults on a userfaultfd page: it holds ctx->mutex */
static void *rg_blocked_read(void *arg)
{
	struct rg_uffd_read *x = arg;

	x->ret = read(x->fd, x->dst, sizeof(struct retire_cqe));
	return NULL;
}

/*
 * A read() of one record into @area, whose first page faults into a
 * userfaultfd: it holds the context's mutex until rg_uffd_release().
 * Returns the userfaultfd, or -1 where the kernel has none.
 */
static int rg_uffd_stuck_read(struct __test_metadata *_metadata, int fd,
			      char *area, struct rg_uffd_read *rd,
			      pthread_t *tr)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffd_msg msg;
	int uffd;

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		return -1;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (__u64)(uintptr_t)area;
	reg.range.len = RT_PAGE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));
	*rd = (struct rg_uffd_read){ .fd = fd, .dst = area };
	ASSERT_EQ(0, pthread_create(tr, NULL, rg_blocked_read, rd));
	/* the read is stuck on the page, holding the context's mutex */
	ASSERT_EQ(sizeof(msg), read(uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);
	return uffd;
}

/* let the stuck read go: a zero page where it faulted */
static void rg_uffd_release(struct __test_metadata *_metadata, int uffd,
			    char *area, pthread_t tr)
{
	struct uffdio_zeropage zp;

	memset(&zp, 0, sizeof(zp));
	zp.range.start = (__u64)(uintptr_t)area;
	zp.range.len = RT_PAGE;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_ZEROPAGE, &zp));
	pthread_join(tr, NULL);
	close(uffd);
}

struct rg_reset {
	int fd;
	int ret;
	atomic_int done;
};

static void *rg_reset_thread(void *arg)
{
	struct rg_reset *x = arg;
	struct retire_handle_arg h;

	memset(&h, 0, sizeof(h));
	x->ret = rt_ioctl(x->fd, RETIRE_IOC_SIM_RESET, &h);
	atomic_store(&x->done, 1);
	return NULL;
}

/*
 * An engine reset releases the quarantined requests of every context. It
 * took each context's mutex to do so, holding the list of contexts: one
 * owner stuck in a page fault while it copied a record out (a FUSE or
 * userfaultfd page) held the reset, and with it every open() of the
 * device, for as long as it liked. The reset now needs only each
 * context's lock: it ends while the read is still stuck.
 */
TEST_F(rg, an_engine_reset_does_not_wait_for_an_owner_stuck_in_a_fault)
{
	struct rg_uffd_read rd;
	struct rg_reset rs = { 0 };
	struct retire *b;
	pthread_t tr, tz;
	int uffd, i;
	char *area;
	__u64 buf, h;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 0));
	buf = rg_buf(_metadata, self->r, 1);
	/* one record ready, for the read below to fault on */
	ASSERT_EQ(0, rt_submit(self->r, buf, 0, 64, RETIRE_DEV_READ, 7, 0,
			       &h));
	ASSERT_EQ(1, rt_wait_ready(self->r, 5000));
	area = mmap(NULL, RT_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	uffd = rg_uffd_stuck_read(_metadata, retire_get_fd(self->r), area,
				  &rd, &tr);
	if (uffd < 0)
		SKIP(return, "no userfaultfd in this kernel");

	ASSERT_EQ(0, retire_open_device(&b, NULL, 0));
	rs.fd = retire_get_fd(b);
	ASSERT_EQ(0, pthread_create(&tz, NULL, rg_reset_thread, &rs));
	for (i = 0; i < 500 && !atomic_load(&rs.done); i++)
		rt_msleep(10);
	EXPECT_TRUE(atomic_load(&rs.done)) {
		TH_LOG("the reset still waits for the stuck read after 5 s");
	}

	rg_uffd_release(_metadata, uffd, area, tr);
	pthread_join(tz, NULL);
	EXPECT_EQ(0, rs.ret);
	EXPECT_EQ(sizeof(struct retire_cqe), rd.ret);
	retire_close_device(b);
	/* the stuck read() delivered the TERMINAL record */
	ASSERT_EQ(0, retire_release_request(self->r, h));
	munmap(area, RT_PAGE);
}

struct rg_submit {
	int fd;
	struct retire_submit *sub;
	int ret;
};

static void *rg_submit_thread(void *arg)
{
	struct rg_submit *x = arg;

	x->ret = rt_ioctl(x->fd, RETIRE_IOC_SUBMIT, x->sub);
	return NULL;
}

/*
 * 1.0 admitted the batch, failed to write the results back and returned
 * -EFAULT with nothing to say what was admitted. Now `submitted` says how
 * many, and their records carry their user_data and handles. The array
 * is made unwritable while the batch waits for the context's mutex, held
 * by a read() stuck on a userfaultfd page: a deterministic window.
 */
TEST_F(rg, submit_reports_admissions_when_results_cannot_be_written)
{
	struct rg_uffd_read rd;
	struct rg_submit sb;
	struct retire_submit *sub;
	struct retire_sqe *sqes;
	struct retire_cqe c;
	pthread_t tr, ts;
	__u64 b[4], h;
	int uffd, fd = retire_get_fd(self->r), i;
	char *area;

	ASSERT_EQ(0, rt_set_latency(self->r, 0, 0));
	for (i = 0; i < 4; i++)
		b[i] = rg_buf(_metadata, self->r, 1);
	/* one record ready, for the read below to fault on */
	ASSERT_EQ(0, rt_submit(self->r, b[0], 0, 64, RETIRE_DEV_READ, 99, 0,
			       &h));
	ASSERT_EQ(1, rt_wait_ready(self->r, 5000));

	area = mmap(NULL, 3 * RT_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	sqes = (struct retire_sqe *)(area + RT_PAGE);
	sub = (struct retire_submit *)(area + 2 * RT_PAGE);
	uffd = rg_uffd_stuck_read(_metadata, fd, area, &rd, &tr);
	if (uffd < 0)
		SKIP(return, "no userfaultfd in this kernel");

	for (i = 0; i < 3; i++)
		retire_prep_request(&sqes[i], b[i + 1], 0, 64, RETIRE_DEV_READ,
				    100 + i);
	memset(sub, 0, sizeof(*sub));
	sub->sqes = (__u64)(uintptr_t)sqes;
	sub->nr = 3;
	sb = (struct rg_submit){ .fd = fd, .sub = sub };
	ASSERT_EQ(0, pthread_create(&ts, NULL, rg_submit_thread, &sb));
	/* past its checks, it waits for the mutex; then the array goes */
	rt_msleep(300);
	ASSERT_EQ(0, mprotect(sqes, RT_PAGE, PROT_READ));

	rg_uffd_release(_metadata, uffd, area, tr);
	pthread_join(ts, NULL);
	EXPECT_EQ(sizeof(struct retire_cqe), rd.ret);
	EXPECT_EQ(-EFAULT, sb.ret);
	/* what was admitted is known: its count, then its records */
	EXPECT_EQ(3, sub->submitted);
	for (i = 0; i < 3; i++) {
		unsigned int k;

		ASSERT_EQ(0, rt_collect(self->r, &self->log, 200));
		for (k = 0; k < self->log.n; k++)
			if (self->log.c[k].user_data == 100 + (__u64)i &&
			    self->log.c[k].type == RETIRE_REC_TERMINAL)
				break;
		ASSERT_GT(self->log.n, k) TH_LOG("no record of entry %d", i);
		rg_retire(_metadata, self->r, &self->log,
			  self->log.c[k].handle, 2000);
	}
	/* the stuck read() delivered h's TERMINAL record */
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     2000));
	munmap(area, 3 * RT_PAGE);
}

struct rg_lockless {
	int fd;
	__u64 active, stale;
	int cancel, retire, token;
	volatile int done;
};

static void *rg_lockless_thread(void *arg)
{
	struct rg_lockless *x = arg;
	struct retire_handle_arg h = { .handle = x->active };
	struct retire_token_op t = { .op = RETIRE_TOKEN_RETURN,
				     .handle = x->stale };

	x->cancel = rt_ioctl(x->fd, RETIRE_IOC_CANCEL, &h);
	h.handle = x->stale;
	x->retire = rt_ioctl(x->fd, RETIRE_IOC_RETIRE, &h);
	x->token = rt_ioctl(x->fd, RETIRE_IOC_TOKEN, &t);
	__atomic_store_n(&x->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * CANCEL, RETIRE and a token's RETURN take the context's spinlock only,
 * never its mutex: the single-op ioctls run through ENTER's operation
 * path, and only the operations that may grow a table (SUBMIT, BORROW,
 * HANDOFF) hold the mutex there. So a canceller does not wait behind a
 * read() that holds the mutex while it faults in its records: here the
 * read is stuck on a userfaultfd page, and the cancel of a request the
 * device holds still answers at once (-EALREADY: the device has it).
 */
TEST_F(rg, cancel_retire_and_return_never_wait_behind_a_faulting_reader)
{
	struct rg_lockless lk;
	struct rg_uffd_read rd;
	struct retire_cqe c;
	pthread_t tr, tl;
	__u64 b[2], h0, h1;
	int uffd, fd = retire_get_fd(self->r), i;
	bool answered;
	char *area;

	for (i = 0; i < 2; i++)
		b[i] = rg_buf(_metadata, self->r, 1);
	/* one record ready, for the read below to fault on */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 0));
	ASSERT_EQ(0, rt_submit(self->r, b[0], 0, 64, RETIRE_DEV_READ, 1, 0,
			       &h0));
	ASSERT_EQ(1, rt_wait_ready(self->r, 5000));
	/* and one the device holds for two seconds */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 2000 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, b[1], 0, 64, RETIRE_DEV_READ, 2, 0,
			       &h1));

	area = mmap(NULL, RT_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	uffd = rg_uffd_stuck_read(_metadata, fd, area, &rd, &tr);
	if (uffd < 0)
		SKIP(return, "no userfaultfd in this kernel");

	lk = (struct rg_lockless){ .fd = fd, .active = h1, .stale = 0xdead };
	ASSERT_EQ(0, pthread_create(&tl, NULL, rg_lockless_thread, &lk));
	answered = RT_POLL_UNTIL(__atomic_load_n(&lk.done, __ATOMIC_ACQUIRE),
				 3000, 10);
	/* let the read go either way, so that a failure does not hang */
	rg_uffd_release(_metadata, uffd, area, tr);
	pthread_join(tl, NULL);
	EXPECT_TRUE(answered) TH_LOG("the cancel waited for the reader's mutex");
	EXPECT_EQ(sizeof(struct retire_cqe), rd.ret);
	EXPECT_EQ(-EALREADY, lk.cancel);
	EXPECT_EQ(-ENOENT, lk.retire);
	EXPECT_EQ(-ENOENT, lk.token);

	/* the stuck read() delivered h0's TERMINAL record; h1 completes */
	ASSERT_EQ(0, retire_release_request(self->r, h0));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h0, RETIRE_REC_RETIRED, &c,
			     2000));
	rg_retire(_metadata, self->r, &self->log, h1, 5000);
	munmap(area, RT_PAGE);
}

/* ---- issue 14: the documentation agrees with the module ---------------- */

/* the offset of the stats field @name, or -1 */
static long rg_stat_off(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(rt_stat_fields) / sizeof(rt_stat_fields[0]); i++)
		if (!strcmp(name, rt_stat_fields[i].name))
			return (long)rt_stat_fields[i].off;
	return -1;
}

/*
 * Run one row of Documentation/retire.rst's counter table: @ret must be
 * @want, and exactly the counters of @moved (NULL-terminated) must have
 * moved, each by one.
 */
static void rg_row(struct __test_metadata *_metadata, struct retire *r,
		   struct retire_stats *before, const char *what, int ret,
		   int want, const char *const *moved)
{
	struct retire_stats expect = *before, after;
	unsigned int k;
	const char *d;
	long off;

	EXPECT_EQ(want, ret) {
		TH_LOG("%s", what);
	}
	for (k = 0; moved[k]; k++) {
		off = rg_stat_off(moved[k]);
		ASSERT_LE(0, off);
		(*(__u64 *)((char *)&expect + off))++;
	}
	ASSERT_EQ(0, rt_stats(r, &after));
	d = rt_stats_diff(&expect, &after, NULL);
	EXPECT_TRUE(d == NULL) {
		TH_LOG("%s: stats.%s is %llu, the table says %llu", what, d,
		       (unsigned long long)rt_stat_get(&after, rg_stat_off(d)),
		       (unsigned long long)rt_stat_get(&expect,
						       rg_stat_off(d)));
	}
	*before = after;
}

#define RG_ROW(what, call, want, ...) do {				\
	static const char *const __m[] = { __VA_ARGS__ NULL };		\
	rg_row(_metadata, self->r, &st, (what), (call), (want), __m);	\
} while (0)

/*
 * Every row of the counter table in Documentation/retire.rst ("Refusals
 * and stale handles"): which counters each refusal moves, the overlapping
 * ones together, and nothing else.
 */
TEST_F(rg, each_refusal_moves_the_counters_its_table_row_names)
{
	struct retire_limits l = self->info.caps;
	struct retire_stats st;
	struct retire_submit sub;
	struct retire_buf_reg reg;
	struct retire_sqe sqe;
	struct retire_cqe c;
	__u64 b, b2, h, h2, t, t1, gone;

	b = rg_buf(_metadata, self->r, 1);
	b2 = rg_buf(_metadata, self->r, 1);
	gone = rg_buf(_metadata, self->r, 1);
	ASSERT_EQ(0, retire_unregister_buffer(self->r, gone));
	/* h: done, a token taken and given back, retired: every handle stale */
	ASSERT_EQ(0, rt_submit(self->r, b, 0, 64, RETIRE_DEV_WRITE, 1, 0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     3000));
	ASSERT_EQ(0, retire_borrow_token(self->r, h, &t));
	ASSERT_EQ(0, retire_return_token(self->r, t, 0));
	rg_retire(_metadata, self->r, &self->log, h, 3000);
	/* h2: terminated, its TERMINAL record read, not retired */
	ASSERT_EQ(0, rt_submit(self->r, b, 0, 64, RETIRE_DEV_WRITE, 2, 0, &h2));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h2, RETIRE_REC_TERMINAL, &c,
			     3000));
	ASSERT_EQ(0, rt_stats(self->r, &st));

	/* stale handles */
	RG_ROW("cancel of a retired request", retire_cancel_request(self->r, h),
	       -ENOENT, "cancel_noent", "stale_cancel",);
	RG_ROW("cancel of a terminated request",
	       retire_cancel_request(self->r, h2), -ENOENT, "cancel_noent",);
	RG_ROW("cancel of a buffer's handle",
	       retire_cancel_request(self->r, b), -ENOENT, "cancel_noent",
	       "stale_cancel",);
	RG_ROW("second return of a token", retire_return_token(self->r, t, 0),
	       -ENOENT, "protocol_errors", "stale_token",);
	RG_ROW("handoff of a returned token",
	       retire_handoff_token(self->r, t, &t1), -ENOENT,
	       "protocol_errors", "stale_token",);
	RG_ROW("borrow on a retired request",
	       retire_borrow_token(self->r, h, &t1), -ENOENT, "stale_token",);
	RG_ROW("RETIRE after retirement", retire_release_request(self->r, h),
	       -ENOENT, "stale_user",);
	RG_ROW("RETIRE of a buffer's handle", retire_release_request(self->r, b),
	       -ENOENT, "stale_user",);
	RG_ROW("unregister of a request's handle",
	       retire_unregister_buffer(self->r, h2), -ENOENT, "stale_user",);
	RG_ROW("engine event naming a retired request",
	       retire_inject_sim_event(self->r, h, 0), -ENOENT, "stale_engine",);

	/* SUBMIT entries: refused always, and the bound's own counter */
	RG_ROW("entry of length 0", rt_submit(self->r, b2, 0, 0,
					      RETIRE_DEV_READ, 3, 0, NULL),
	       -EINVAL, "refused",);
	RG_ROW("entry on an unregistered buffer",
	       rt_submit(self->r, gone, 0, 64, RETIRE_DEV_READ, 3, 0, NULL),
	       -ENOENT, "refused", "stale_user",);
	RG_ROW("entry on a held buffer",
	       rt_submit(self->r, b, 0, 64, RETIRE_DEV_READ, 3, 0, NULL),
	       -EBUSY, "refused",);
	l.max_unretired = 1;
	l.max_active = 1;
	l.max_active_per_key = 1;
	l.max_tokens = 1;
	l.max_buffers = 2;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	RG_ROW("entry over max_unretired",
	       rt_submit(self->r, b2, 0, 64, RETIRE_DEV_READ, 3, 0, NULL),
	       -ENOSPC, "refused", "refused_unretired",);

	/* BORROW and BUF_REGISTER: the bound's counter, never refused */
	ASSERT_EQ(0, retire_borrow_token(self->r, h2, &t1));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	RG_ROW("borrow over max_tokens", retire_borrow_token(self->r, h2, &t),
	       -ETOOMANYREFS, "refused_tokens",);
	ASSERT_EQ(0, retire_return_token(self->r, t1, 0));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	RG_ROW("buffer over max_buffers", rt_register(self->r, RT_PAGE, &t,
						       NULL),
	       -EMFILE, "refused_buffers",);
	ASSERT_EQ(0, retire_set_limits(self->r, &self->info.caps));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	RG_ROW("buffer over max_pool_bytes",
	       rt_register(self->r, 1ULL << 40, &t, NULL), -ENOSPC,
	       "refused_pool",);
	memset(&reg, 0, sizeof(reg));
	reg.flags = RETIRE_BUF_F_USER;
	reg.addr = 1ULL << 30;
	reg.len = 1ULL << 40;
	RG_ROW("user buffer over max_pinned_bytes",
	       retire_register_buffer(self->r, &reg), -EDQUOT,
	       "refused_pinned",);
	reg.addr = -(__u64)RT_PAGE;
	reg.len = 2 * RT_PAGE;
	RG_ROW("user range past 2^64", retire_register_buffer(self->r, &reg),
	       -EINVAL,);
	/* a malformed batch is no entry: nothing counts */
	retire_prep_request(&sqe, b2, 0, 64, RETIRE_DEV_READ, 4);
	memset(&sub, 0, sizeof(sub));
	sub.sqes = (__u64)(uintptr_t)&sqe;
	RG_ROW("batch of no entry",
	       rt_ioctl(retire_get_fd(self->r), RETIRE_IOC_SUBMIT, &sub),
	       -EINVAL,);
	rg_retire(_metadata, self->r, &self->log, h2, 1000);
}

/*
 * A request the owner has consumed but a token still holds takes more
 * tokens, and each one delays its retirement; only the last return
 * retires it. A second RETIRE meanwhile is -EALREADY, after it -ENOENT.
 */
TEST_F(rg, borrow_after_retire_with_a_token_out_succeeds_and_delays_retirement)
{
	struct retire_stats st0, st;
	struct retire_cqe c;
	__u64 b, h, t1, t2;

	b = rg_buf(_metadata, self->r, 1);
	ASSERT_EQ(0, rt_submit(self->r, b, 0, 64, RETIRE_DEV_WRITE, 5, 0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     3000));
	ASSERT_EQ(0, retire_borrow_token(self->r, h, &t1));
	ASSERT_EQ(0, retire_release_request(self->r, h));
	EXPECT_EQ(-EALREADY, retire_release_request(self->r, h));
	EXPECT_EQ(0, retire_borrow_token(self->r, h, &t2));
	ASSERT_EQ(0, rt_stats(self->r, &st0));
	EXPECT_EQ(2, st0.tokens_out);

	EXPECT_EQ(0, retire_return_token(self->r, t1, 0));
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 100));
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_RETIRED));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(st0.retired, st.retired);
	EXPECT_EQ(1, st.physical_outstanding);

	EXPECT_EQ(0, retire_return_token(self->r, t2, 0));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(st0.retired + 1, st.retired);
	EXPECT_EQ(-ENOENT, retire_borrow_token(self->r, h, &t1));
	EXPECT_EQ(-ENOENT, retire_release_request(self->r, h));
}

/*
 * "Had not started" is the WAITING state: admitted, not yet handed to the
 * engine. A cancel then returns 0. Once the engine has it, even inside
 * the sim's latency_ns before a byte moved, a cancel is -EALREADY unless
 * the engine may stop it (RETIRE_SIM_F_CANCEL_RUNNING). Either way a
 * cancelled TERMINAL record carries -ECANCELED.
 */
TEST_F(rg, cancel_returns_0_only_before_the_engine_has_it_and_says_ecanceled)
{
	struct retire_limits l = self->info.caps;
	struct retire_cqe ack, term;
	__u64 b[3], h[3];
	int i;

	for (i = 0; i < 3; i++)
		b[i] = rg_buf(_metadata, self->r, 1);
	l.max_active = 1;
	l.max_active_per_key = 1;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 400 * RT_MS));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, rt_submit(self->r, b[i], 0, 64, RETIRE_DEV_WRITE,
				       0x90 + i, 0, &h[i]));
	rt_msleep(20);
	/* h[0] is the engine's, in its latency window; h[1] waits */
	EXPECT_EQ(-EALREADY, retire_cancel_request(self->r, h[0]));
	EXPECT_EQ(0, retire_cancel_request(self->r, h[1]));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h[1], RETIRE_REC_CANCEL_ACK,
			     &ack, 1000));
	EXPECT_EQ(0, ack.error);
	EXPECT_EQ(RETIRE_OUTCOME_CANCEL_REQUESTED, ack.outcome);
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h[1], RETIRE_REC_TERMINAL,
			     &term, 1000));
	EXPECT_EQ(RETIRE_OUTCOME_CANCELLED, term.outcome);
	EXPECT_EQ(-ECANCELED, term.error);
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h[0], RETIRE_REC_CANCEL_ACK,
			     &ack, 1000));
	EXPECT_EQ(-EALREADY, ack.error);
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h[0], RETIRE_REC_TERMINAL,
			     &term, 3000));
	EXPECT_EQ(RETIRE_OUTCOME_STALE, term.outcome);
	EXPECT_EQ(0, term.error);

	/* with CANCEL_RUNNING the engine stops it in that same window */
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_CANCEL_RUNNING,
				    400 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, b[2], 0, 64, RETIRE_DEV_WRITE, 0x92, 0,
			       &h[2]));
	rt_msleep(20);
	EXPECT_EQ(0, retire_cancel_request(self->r, h[2]));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h[2], RETIRE_REC_TERMINAL,
			     &term, 1000));
	EXPECT_EQ(RETIRE_OUTCOME_CANCELLED, term.outcome);
	EXPECT_EQ(-ECANCELED, term.error);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, retire_release_request(self->r, h[i]));
		ASSERT_EQ(0, rt_wait(self->r, &self->log, h[i],
				     RETIRE_REC_RETIRED, &term, 1000));
	}
	ASSERT_EQ(0, retire_set_limits(self->r, &self->info.caps));
}

/*
 * The sim engine makes no random choice: its seed is stored and read back
 * and changes nothing it does. Two runs that differ only in the seed move
 * the same bytes, report the same checksums and time out the same way.
 */
TEST_F(rg, sim_seed_is_read_back_and_changes_nothing_the_engine_does)
{
	static const __u64 seeds[] = { 0, 1, 0x9e3779b97f4a7c15ULL };
	struct retire_sim_config cfg;
	struct retire_stats s0, s1;
	struct retire_cqe c[2];
	__u64 sum[3][2], bytes[3], b[2], h[2];
	unsigned char *map[2];
	unsigned int i, k;

	for (k = 0; k < 2; k++)
		ASSERT_EQ(0, retire_alloc_buffer(self->r, 4 * RT_PAGE, &b[k],
						 (void **)&map[k]));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, rt_set_sim(self->r, 0, 2 * RT_MS, RT_MS, 3000, 0,
					seeds[i]));
		ASSERT_EQ(0, retire_get_sim_config(self->r, &cfg));
		EXPECT_EQ(seeds[i], cfg.seed);
		for (k = 0; k < 2; k++)
			memset(map[k], 0x11 * (k + 1), 4 * RT_PAGE);
		ASSERT_EQ(0, rt_stats(self->r, &s0));
		for (k = 0; k < 2; k++)
			ASSERT_EQ(0, rt_submit(self->r, b[k], 100, 3 * RT_PAGE,
					       k ? RETIRE_DEV_READ :
					       RETIRE_DEV_READ |
					       RETIRE_DEV_WRITE, 0x40 + k, 0,
					       &h[k]));
		for (k = 0; k < 2; k++) {
			ASSERT_EQ(0, rt_wait(self->r, &self->log, h[k],
					     RETIRE_REC_TERMINAL, &c[k], 3000));
			EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c[k].outcome);
			EXPECT_EQ(3 * RT_PAGE, c[k].result_len);
			sum[i][k] = c[k].checksum;
			rg_retire(_metadata, self->r, &self->log, h[k], 1000);
		}
		ASSERT_EQ(0, rt_stats(self->r, &s1));
		bytes[i] = s1.engine_bytes - s0.engine_bytes;
		EXPECT_EQ(-1, rt_check_pattern(map[0] + 100, 3 * RT_PAGE,
					       0x40));
		if (i) {
			EXPECT_EQ(sum[0][0], sum[i][0]);
			EXPECT_EQ(sum[0][1], sum[i][1]);
			EXPECT_EQ(bytes[0], bytes[i]);
		}
	}
	for (k = 0; k < 2; k++)
		munmap(map[k], 4 * RT_PAGE);
}

/*
 * The family lives in the initial network namespace only (netnsok false),
 * and so do its notifications: a context opened from another network
 * namespace is reported there, like every other.
 */
TEST_F(rg, stale_counts_of_a_context_opened_in_another_netns_reach_the_initial_one)
{
	struct retire_event ev[64];
	struct retire_monitor *m;
	struct pollfd pfd;
	__u64 end, last = 0;
	int i, n, status;
	pid_t pid;

	ASSERT_EQ(0, retire_open_monitor(&m, RETIRE_MONITOR_STALE));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct retire *r;

		if (unshare(CLONE_NEWNET))
			_exit(errno == EINVAL ? 4 : 10);
		if (retire_open_device(&r, NULL, 0))
			_exit(11);
		for (i = 0; i < 3; i++)
			if (retire_cancel_request(r, (2ULL << 56) | 1) != -ENOENT)
				_exit(12);
		/* closing sends what is pending */
		retire_close_device(r);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 4)
		SKIP(goto out, "no network namespaces");
	ASSERT_EQ(0, WEXITSTATUS(status));

	pfd.fd = retire_get_monitor_fd(m);
	pfd.events = POLLIN;
	end = rt_now_ns() + 2000 * RT_MS;
	while (last != 3 && rt_now_ns() < end) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = retire_read_events(m, ev, 64);
		ASSERT_LE(0, n);
		for (i = 0; i < n; i++)
			if (ev[i].type == RETIRE_CMD_STALE_NTF &&
			    ev[i].pid == (__u32)pid)
				last = ev[i].stale_cancel;
	}
	EXPECT_EQ(3, last);
out:
	retire_close_monitor(m);
}

/*
 * Array entries never grow: their size is the stride of every array and
 * ring that holds them (uapi/linux/retire.h says how they are replaced).
 */
TEST(array_entries_keep_their_abi_size)
{
	EXPECT_EQ(88, sizeof(struct retire_sqe));
	EXPECT_EQ(80, sizeof(struct retire_op));
	EXPECT_EQ(64, sizeof(struct retire_cqe));
	EXPECT_EQ(112, sizeof(struct retire_engine_info));
	EXPECT_EQ(32, sizeof(struct retire_history_event));
}

/*
 * The features a module reports: every bit it has, RETIRE_FEAT_EDU only
 * while an edu engine is listed (Documentation/retire.rst shows 0x2ff for
 * a machine without one).
 */
TEST_F(rg, features_are_every_bit_but_edu_unless_an_edu_engine_is_listed)
{
	struct retire_engine_info e[16];
	bool edu = false;
	int n, i;

	n = retire_list_engines(self->r, e, 16);
	ASSERT_LE(1, n);
	for (i = 0; i < n && i < 16; i++)
		if (!strcmp(e[i].name, "edu"))
			edu = true;
	EXPECT_EQ(RETIRE_FEAT_ALL & ~(edu ? 0 : RETIRE_FEAT_EDU),
		  self->info.features);
	if (!edu)
		EXPECT_EQ(0x2ff, self->info.features);
}

TEST_HARNESS_MAIN
