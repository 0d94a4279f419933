/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the retire kselftests: sim engine configuration, a
 * record log with bounded waits, statistics snapshots, the FNV-1a checksum
 * the sim engine computes, and readers of /proc and /sys counters.
 *
 * Every helper returns 0 or a negative errno and never waits without a
 * bound; the tests decide what is an error.
 */
#ifndef RETIRE_TEST_H
#define RETIRE_TEST_H

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <grp.h>
#include <unistd.h>

#include "libretire.h"
#include <linux/retire_names.h>

/*
 * The harness's TEST_F() wrapper keeps a local across setjmp(); gcc 12
 * warns that it "might be clobbered" when the test body is large, although
 * it keeps that local in memory. The warning is about the harness, not
 * about these tests.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wclobbered"
#endif

#define RT_PAGE		4096UL
#define RT_MS		1000000ULL
#define RT_NOBODY	65534	/* nobody's uid and gid */
#define RT_SKIP_MSG	"/dev/retire is absent: is retire.ko loaded?"
#define RT_REFCNT_PATH	"/sys/module/retire/refcnt"
#define RT_HOLDERS_PATH	"/sys/module/retire/holders"

/* ---- fixture prologue ---------------------------------------------------- */

/*
 * In a FIXTURE_SETUP: open /dev/retire into @r (a struct retire *). The
 * test skips when the module is not loaded and fails on any other error.
 */
#define RT_OPEN_OR_SKIP(r) do {						\
	int __rt_ret = retire_open_device(&(r), NULL, 0);		\
									\
	if (__rt_ret == -ENOENT)					\
		SKIP(return, RT_SKIP_MSG);				\
	ASSERT_EQ(0, __rt_ret);						\
} while (0)

/*
 * In a FIXTURE_SETUP, after RT_OPEN_OR_SKIP(): skip with @why unless the
 * module advertises every bit of @feat.
 */
#define RT_REQUIRE_FEATURES(r, feat, why) do {				\
	struct retire_info __rt_info;					\
									\
	ASSERT_EQ(0, retire_get_info(r, &__rt_info));			\
	if ((__rt_info.features & (feat)) != (feat))			\
		SKIP(return, why);					\
} while (0)

/* ---- time --------------------------------------------------------------- */

/*
 * Become nobody: no supplementary groups, nobody's gid and uid, and so no
 * capability. Files opened before stay open. Returns 0 or -errno.
 */
static inline int rt_become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(RT_NOBODY) || setuid(RT_NOBODY))
		return -errno;
	return 0;
}

static inline __u64 rt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void rt_msleep(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000L,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Evaluate @cond every @step_ms until it is true or @ms have passed; the
 * value is whether it became true. @cond is evaluated after the last
 * sleep too, so that a condition met meanwhile counts.
 */
#define RT_POLL_UNTIL(cond, ms, step_ms) ({				\
	__u64 __rt_end = rt_now_ns() + (__u64)(ms) * RT_MS;		\
	bool __rt_ok;							\
									\
	while (!(__rt_ok = (cond)) && rt_now_ns() < __rt_end)		\
		rt_msleep(step_ms);					\
	__rt_ok;							\
})

/* ---- a growable array ---------------------------------------------------- */

/*
 * Make room for element @n of the array @a, of @cap elements (an unsigned
 * int), doubling it from 64: the value is 0, or -ENOMEM with @a as it was.
 * For arrays that grow one element at a time (@n is at most @cap).
 */
#define RT_GROW(a, n, cap) ({						\
	int __rt_ret = 0;						\
									\
	if ((n) >= (cap)) {						\
		unsigned int __rt_cap = (cap) ? (cap) * 2 : 64;		\
		typeof(a) __rt_a = realloc((a), __rt_cap * sizeof(*(a)));	\
									\
		if (__rt_a) {						\
			(a) = __rt_a;					\
			(cap) = __rt_cap;				\
		} else {						\
			__rt_ret = -ENOMEM;				\
		}							\
	}								\
	__rt_ret;							\
})

/* ---- raw ioctls --------------------------------------------------------- */

static inline int rt_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

/* ---- the sim engine ----------------------------------------------------- */

/*
 * Set every knob of the module-wide sim engine explicitly. The knobs this
 * helper does not take (fail_submit_every, rate_bps, burst_bytes) are set
 * to 0: no injected submission failures, unlimited bandwidth.
 */
static inline int rt_set_sim(struct retire *r, __u32 flags, __u64 latency_ns,
			     __u64 tick_ns, __u64 bytes_per_tick,
			     __u32 fail_every, __u64 seed)
{
	struct retire_sim_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.op = RETIRE_SIM_SET;
	cfg.flags = flags;
	cfg.latency_ns = latency_ns;
	cfg.tick_ns = tick_ns;
	cfg.bytes_per_tick = bytes_per_tick;
	cfg.fail_every = fail_every;
	cfg.seed = seed;
	return retire_set_sim_config(r, &cfg);
}

/* the simplest engine: @latency_ns, whole range at once, never fails */
static inline int rt_set_latency(struct retire *r, __u32 flags,
				 __u64 latency_ns)
{
	return rt_set_sim(r, flags, latency_ns, 0, 0, 0, 1);
}

/*
 * What every teardown leaves behind, and what every setup starts from (a
 * test killed by its timeout never runs its teardown): all knobs 0 (the
 * flags, fail_every, fail_submit_every, rate_bps and burst_bytes among
 * them), nothing held by the engine, nothing quarantined (the reset
 * releases every quarantined request of every context).
 */
static inline void rt_sim_neutral(struct retire *r)
{
	if (!r)
		return;
	rt_set_sim(r, 0, 0, 0, 0, 0, 0);
	retire_reset_sim(r);
}

/*
 * Every knob of a sim engine configuration (not op or reserved): X(knob)
 * for each, so that comparing them and expecting them equal name the same
 * knobs.
 */
#define RT_SIM_KNOBS(X)							\
	X(flags) X(latency_ns) X(tick_ns) X(bytes_per_tick) X(fail_every) \
	X(fail_submit_every) X(seed) X(rate_bps) X(burst_bytes) X(finish_ns)

/*
 * A fixture's teardown: leave the engine neutral for the next test and
 * close @r; when the test closed it already (to let the module go, @r is
 * NULL), through a context of its own.
 */
static inline void rt_close_neutral(struct retire *r)
{
	if (!r && retire_open_device(&r, NULL, 0))
		return;
	rt_sim_neutral(r);
	retire_close_device(r);
}

static inline bool rt_sim_config_eq(const struct retire_sim_config *a,
				    const struct retire_sim_config *b)
{
#define RT_KNOB_EQ(f) && a->f == b->f
	return true RT_SIM_KNOBS(RT_KNOB_EQ);
#undef RT_KNOB_EQ
}

/* the same, knob by knob, so that a failure names the knob */
#define RT_EXPECT_FIELD_EQ(f) EXPECT_EQ(__rt_want.f, __rt_got.f);
#define EXPECT_SIM_CONFIG_EQ(want, got) do {				\
	const struct retire_sim_config __rt_want = (want), __rt_got = (got); \
									\
	RT_SIM_KNOBS(RT_EXPECT_FIELD_EQ)				\
} while (0)

/* ---- requests ----------------------------------------------------------- */

/*
 * Submit one request. Returns 0 and sets *handle when admitted, the entry's
 * -errno when it was refused, or the ioctl's -errno for a refused batch.
 */
static inline int rt_submit(struct retire *r, __u64 buf, __u64 offset,
			    __u64 len, __u32 dev_flags, __u64 user_data,
			    __u64 deadline_ns, __u64 *handle)
{
	struct retire_sqe sqe;
	int ret;

	retire_prep_request(&sqe, buf, offset, len, dev_flags, user_data);
	sqe.deadline_ns = deadline_ns;
	ret = retire_submit_requests(r, &sqe, 1);
	if (ret < 0)
		return ret;
	if (ret != 1)
		return sqe.result ? sqe.result : -EPROTO;
	if (handle)
		*handle = sqe.handle;
	return 0;
}

/* rt_submit() with a key: admission (max_active_per_key) and the
 * publication predicate (the key's epoch) look at it */
static inline int rt_submit_key(struct retire *r, __u64 buf, __u64 offset,
				__u64 len, __u32 dev_flags, __u64 user_data,
				__u64 deadline_ns, __u64 key, __u64 *handle)
{
	struct retire_sqe sqe;
	int ret;

	retire_prep_request(&sqe, buf, offset, len, dev_flags, user_data);
	sqe.deadline_ns = deadline_ns;
	sqe.key = key;
	ret = retire_submit_requests(r, &sqe, 1);
	if (ret < 0)
		return ret;
	if (ret != 1)
		return sqe.result ? sqe.result : -EPROTO;
	if (handle)
		*handle = sqe.handle;
	return 0;
}

/* register a module-allocated buffer of @len bytes without mapping it;
 * *@evicted (if not NULL) gets reg.evicted */
static inline int rt_register(struct retire *r, __u64 len, __u64 *handle,
			      __u32 *evicted)
{
	struct retire_buf_reg reg;
	int ret;

	memset(&reg, 0, sizeof(reg));
	reg.len = len;
	ret = retire_register_buffer(r, &reg);
	if (ret)
		return ret;
	*handle = reg.handle;
	if (evicted)
		*evicted = reg.evicted;
	return 0;
}

/* ---- limits -------------------------------------------------------------- */

static inline int rt_limits_equal(const struct retire_limits *a,
				  const struct retire_limits *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* ---- the record log ----------------------------------------------------- */

/*
 * Every record a test reaps goes into a log, in the order it was read, so
 * that a test can wait for one record and still look at the others later
 * (their order, their count).
 */
struct rt_log {
	struct retire_cqe *c;
	unsigned int n, cap;
};

static inline void rt_log_free(struct rt_log *l)
{
	free(l->c);
	memset(l, 0, sizeof(*l));
}

static inline int rt_log_add(struct rt_log *l, const struct retire_cqe *c)
{
	if (RT_GROW(l->c, l->n, l->cap))
		return -ENOMEM;
	l->c[l->n++] = *c;
	return 0;
}

/* a bounded reap that ran out of time is not an error */
static inline int rt_reap_ret_ok(int ret)
{
	return ret >= 0 || ret == -ETIME || ret == -ETIMEDOUT ||
	       ret == -EINTR || ret == -EAGAIN;
}

/*
 * Reap what is ready, waiting up to @timeout_ns for at least @min records,
 * into @l. Returns the number of records added or a negative errno.
 */
static inline int rt_reap(struct retire *r, struct rt_log *l,
			  unsigned int min, __u64 timeout_ns)
{
	struct retire_cqe cqes[64];
	int total = 0, n, i, ret;

	for (;;) {
		n = retire_reap_records(r, cqes, 64, min, timeout_ns);
		if (n <= 0)
			return rt_reap_ret_ok(n) ? total : n;
		for (i = 0; i < n; i++) {
			ret = rt_log_add(l, &cqes[i]);
			if (ret)
				return ret;
		}
		total += n;
		if (n < 64)
			return total;
		min = 0;
		timeout_ns = 0;
	}
}

/* index of the first record of @type for @handle in @l, or -1 */
static inline int rt_index(const struct rt_log *l, __u64 handle, __u32 type)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (l->c[i].handle == handle && l->c[i].type == type)
			return (int)i;
	return -1;
}

static inline unsigned int rt_count(const struct rt_log *l, __u64 handle,
				    __u32 type)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->n; i++)
		if (l->c[i].handle == handle && l->c[i].type == type)
			n++;
	return n;
}

/* records of any type naming @handle */
static inline unsigned int rt_count_any(const struct rt_log *l, __u64 handle)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->n; i++)
		if (l->c[i].handle == handle)
			n++;
	return n;
}

/*
 * Wait up to @timeout_ms until @l holds a record of @type for @handle (one
 * already there counts), and copy it to *@out if @out is not NULL.
 * Returns 0, -ETIMEDOUT, or the error of a failed reap.
 */
static inline int rt_wait(struct retire *r, struct rt_log *l, __u64 handle,
			  __u32 type, struct retire_cqe *out,
			  unsigned int timeout_ms)
{
	__u64 end = rt_now_ns() + (__u64)timeout_ms * RT_MS;
	__u64 now, slice;
	int idx, ret;

	for (;;) {
		idx = rt_index(l, handle, type);
		if (idx >= 0) {
			if (out)
				*out = l->c[idx];
			return 0;
		}
		now = rt_now_ns();
		if (now >= end)
			return -ETIMEDOUT;
		slice = end - now;
		if (slice > 100 * RT_MS)
			slice = 100 * RT_MS;
		ret = rt_reap(r, l, 1, slice);
		if (ret < 0)
			return ret;
	}
}

/* collect every record that arrives within @ms */
static inline int rt_collect(struct retire *r, struct rt_log *l,
			     unsigned int ms)
{
	__u64 end = rt_now_ns() + (__u64)ms * RT_MS;
	__u64 now;
	int ret;

	for (;;) {
		now = rt_now_ns();
		if (now >= end)
			return rt_reap(r, l, 0, 0) < 0 ? -EIO : 0;
		ret = rt_reap(r, l, 256, end - now);
		if (ret < 0)
			return ret;
	}
}

/*
 * Wait up to @ms until the context has a record ready (POLLIN), without
 * reading it: 1 if one is ready, 0 if not, or a negative errno.
 */
static inline int rt_wait_ready(struct retire *r, int ms)
{
	struct pollfd pfd = { .fd = retire_get_fd(r), .events = POLLIN };
	int ret;

	do {
		ret = poll(&pfd, 1, ms);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	return ret == 1 && (pfd.revents & POLLIN);
}

/* ---- statistics --------------------------------------------------------- */

static inline int rt_stats(struct retire *r, struct retire_stats *s)
{
	return retire_get_stats(r, s, 0);
}

static inline int rt_mstats(struct retire *r, struct retire_stats *s)
{
	return retire_get_stats(r, s, RETIRE_STATS_F_MODULE);
}

/*
 * Every scalar counter and gauge of struct retire_stats (the histograms
 * left out), by name, for "nothing else changed" checks.
 */
static const struct {
	const char *name;
	size_t off;
} rt_stat_fields[] = {
#define RT_F(NAME, x) { #x, __builtin_offsetof(struct retire_stats, x) },
	RETIRE_STAT_NAMES(RT_F, RT_F)
#undef RT_F
};

static inline __u64 rt_stat_get(const struct retire_stats *s, size_t off)
{
	return *(const __u64 *)((const char *)s + off);
}

/*
 * The name of the first field of rt_stat_fields that differs between @a
 * and @b, skipping the fields named in the NULL-terminated list @skip
 * (NULL: skip none), or NULL if none differs.
 */
static inline const char *rt_stats_diff(const struct retire_stats *a,
					const struct retire_stats *b,
					const char *const *skip)
{
	unsigned int i, k;

	for (i = 0; i < sizeof(rt_stat_fields) / sizeof(rt_stat_fields[0]);
	     i++) {
		bool skipped = false;

		for (k = 0; skip && skip[k]; k++)
			if (!strcmp(skip[k], rt_stat_fields[i].name))
				skipped = true;
		if (skipped)
			continue;
		if (rt_stat_get(a, rt_stat_fields[i].off) !=
		    rt_stat_get(b, rt_stat_fields[i].off))
			return rt_stat_fields[i].name;
	}
	return NULL;
}

/* the gauges that must come back when everything has retired */
#define RT_GAUGES(X)							\
	X(tokens_out) X(quarantined_now) X(pool_bytes)			\
	X(logical_outstanding) X(physical_outstanding)			\
	X(device_outstanding) X(owned_bytes) X(pinned_bytes) X(buffers)	\
	X(contexts)

static inline int rt_gauges_equal(const struct retire_stats *a,
				  const struct retire_stats *b)
{
#define RT_GAUGE_EQ(f) && a->f == b->f
	return true RT_GAUGES(RT_GAUGE_EQ);
#undef RT_GAUGE_EQ
}

/* rt_gauges_equal(), gauge by gauge, so that a failure names the gauge */
#define EXPECT_GAUGES_EQ(want, now) do {				\
	const struct retire_stats __rt_want = (want), __rt_got = (now);	\
									\
	RT_GAUGES(RT_EXPECT_FIELD_EQ)					\
} while (0)

/* poll the module-wide gauges until they equal @want (at most @ms) */
static inline int rt_wait_module_gauges(struct retire *r,
					const struct retire_stats *want,
					struct retire_stats *now,
					unsigned int ms)
{
	int ret = 0;

	if (RT_POLL_UNTIL((ret = rt_mstats(r, now)) ||
			  rt_gauges_equal(want, now), ms, 20))
		return ret;
	return -ETIMEDOUT;
}

/* poll the context's gauge quarantined_now until it is @want (at most @ms) */
static inline int rt_wait_quarantined_now(struct retire *r, __u64 want,
					  struct retire_stats *st,
					  unsigned int ms)
{
	int ret = 0;

	if (RT_POLL_UNTIL((ret = rt_stats(r, st)) ||
			  st->quarantined_now == want, ms, 20))
		return ret;
	return -ETIMEDOUT;
}

/*
 * Wait until the module-wide gauges stop moving (three equal samples 50 ms
 * apart, at most @timeout_ms), so that a context of an earlier test still
 * draining does not disturb a baseline. Fills *@s with the last sample.
 */
static inline int rt_settle_module(struct retire *r, struct retire_stats *s,
				   unsigned int timeout_ms)
{
	__u64 end = rt_now_ns() + (__u64)timeout_ms * RT_MS;
	struct retire_stats prev;
	int same = 0, ret;

	ret = rt_mstats(r, &prev);
	if (ret)
		return ret;
	while (same < 2 && rt_now_ns() < end) {
		rt_msleep(50);
		ret = rt_mstats(r, s);
		if (ret)
			return ret;
		same = rt_gauges_equal(&prev, s) ? same + 1 : 0;
		prev = *s;
	}
	*s = prev;
	return 0;
}

/* what a killed child does until the signal comes: never returns */
typedef void (*rt_child_fn)(unsigned int round);

/*
 * @rounds children run @child, the engine alternating between a 1 ms
 * timer and inline completion, each killed by SIGKILL after a delay that
 * grows with its round, its work in flight and its records unread. Then
 * the module's gauges must come back to where they stood before (*@base,
 * *@now as they were last seen). Returns 0, -ECHILD if a child did not die
 * by the signal, -ETIMEDOUT if the gauges did not come back, or the errno
 * of a failed call.
 */
static inline int rt_kill_children(struct retire *r, unsigned int rounds,
				   rt_child_fn child, struct retire_stats *base,
				   struct retire_stats *now)
{
	unsigned int round;
	int status, ret;
	pid_t pid;

	ret = rt_settle_module(r, base, 5000);
	for (round = 0; !ret && round < rounds; round++) {
		ret = rt_set_latency(r, round % 2 ? RETIRE_SIM_F_INLINE : 0,
				     round % 2 ? 0 : RT_MS);
		if (ret)
			break;
		pid = fork();
		if (pid < 0)
			return -errno;
		if (!pid) {
			child(round);
			_exit(0);
		}
		rt_msleep(20 + 37 * round);
		if (kill(pid, SIGKILL))
			return -errno;
		if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
			return -ECHILD;
	}
	return ret ?: rt_wait_module_gauges(r, base, now, 10000);
}

/* ---- data --------------------------------------------------------------- */

/* the checksum the sim engine returns for a DEV_READ range */
static inline __u64 rt_fnv1a64(const void *p, size_t len)
{
	const unsigned char *b = p;
	__u64 h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* index of the first byte of @p[0..len) that is not the DEV_WRITE pattern
 * of @user_data, or -1 */
static inline long rt_check_pattern(const void *p, size_t len,
				    __u64 user_data)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != (unsigned char)(user_data + i))
			return (long)i;
	return -1;
}

/* index of the first byte of @p[0..len) that is not @c, or -1 */
static inline long rt_check_fill(const void *p, size_t len, unsigned char c)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != c)
			return (long)i;
	return -1;
}

/* ---- /proc and /sys ----------------------------------------------------- */

/* a counter of /proc/vmstat, or -1 */
static inline long long rt_vmstat(const char *name)
{
	char key[128];
	long long v, found = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%127s %lld", key, &v) == 2) {
		if (!strcmp(key, name)) {
			found = v;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * Fold every CPU's pending vmstat deltas into the global counters: without
 * it /proc/vmstat lags by up to a per-CPU threshold.
 */
static inline void rt_vmstat_refresh(void)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);

	if (fd < 0)
		return;
	if (write(fd, "1", 1) < 0) {
		/* best effort: the counters then lag as they would anyway */
	}
	close(fd);
}

/*
 * Pages pinned system-wide (FOLL_PIN acquired minus released), or
 * LLONG_MIN if the kernel does not count them. Read until two reads agree,
 * to ride out a pin of someone else in flight.
 */
static inline long long rt_foll_pins(void)
{
	long long a, r, prev = -1, cur;
	int i;

	for (i = 0; i < 10; i++) {
		rt_vmstat_refresh();
		a = rt_vmstat("nr_foll_pin_acquired");
		r = rt_vmstat("nr_foll_pin_released");
		if (a < 0 || r < 0)
			return LLONG_MIN;
		cur = a - r;
		if (cur == prev)
			return cur;
		prev = cur;
		rt_msleep(5);
	}
	return prev;
}

/*
 * The system's FOLL_PIN pages before a test. The counter is system-wide:
 * another party's pin in flight raises it for a while (in the test VM,
 * every read from its 9p root pins the reader's pages), so the least of
 * reads over a fifth of a second is the count without them.
 */
static inline long long rt_foll_pins_base(void)
{
	long long least = LLONG_MAX, cur;
	int i;

	for (i = 0; i < 20; i++) {
		if (i)
			rt_msleep(10);
		cur = rt_foll_pins();
		if (cur == LLONG_MIN)
			return cur;
		if (cur < least)
			least = cur;
	}
	return least;
}

/*
 * The system's FOLL_PIN pages once they are exactly @want, or the last
 * read after @ms: while a test holds pins, to see that it holds all.
 */
static inline long long rt_foll_pins_until(long long want, unsigned int ms)
{
	long long cur;

	RT_POLL_UNTIL((cur = rt_foll_pins()) == want, ms, 10);
	return cur;
}

/*
 * The system's FOLL_PIN pages once they are back to @base or below, or
 * the last read after @ms: someone else's pins end, and may take the
 * count below the base; one of ours left behind keeps it above for good.
 */
static inline long long rt_foll_pins_back(long long base, unsigned int ms)
{
	long long cur;

	RT_POLL_UNTIL((cur = rt_foll_pins()) <= base, ms, 10);
	return cur;
}

static inline int rt_have_foll_pins(void)
{
	return rt_vmstat("nr_foll_pin_acquired") >= 0;
}

/* a "Key:   N kB" line of /proc/self/status, in kB, or -1 */
static inline long rt_status_kb(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':' &&
		    sscanf(line + n + 1, "%ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* VmPin of this process in kB (pinned buffers show there), or -1 */
static inline long rt_vmpin_kb(void)
{
	return rt_status_kb("VmPin");
}

/* a number in a one-line file, or -1 */
/* write the string @s to @path (sysfs, procfs, tracefs); 0 or -errno */
static inline int rt_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != strlen(s))
		ret = -EIO;
	close(fd);
	return ret;
}

static inline long rt_read_long(const char *path)
{
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * The DMA API debug code's error count (CONFIG_DMA_API_DEBUG, debugfs
 * mounted), or -1 where it has none: a test that makes mappings compares
 * it before and after, so a report is that test's failure.
 */
static inline long rt_dma_api_errors(void)
{
	return rt_read_long("/sys/kernel/debug/dma-api/error_count");
}

/*
 * The modules that use the core's symbols (the engines): each holds one
 * reference to it for as long as it is loaded, whatever the contexts do.
 */
static inline long rt_module_holders(void)
{
	DIR *d = opendir(RT_HOLDERS_PATH);
	struct dirent *de;
	long n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* the core's references other than its engine modules': contexts' */
static inline long rt_module_users(void)
{
	long refcnt = rt_read_long(RT_REFCNT_PATH);

	return refcnt < 0 ? refcnt : refcnt - rt_module_holders();
}

/*
 * The core's references beyond its engine modules' once they are 0
 * (waiting at most @ms), or what they last were; -1 when the kernel shows
 * none (no CONFIG_MODULE_UNLOAD).
 */
static inline long rt_module_refcnt(unsigned int ms)
{
	long refcnt;

	if (rt_read_long(RT_REFCNT_PATH) < 0)
		return -1;
	RT_POLL_UNTIL((refcnt = rt_module_users()) == 0, ms, 20);
	return refcnt;
}

/* with the test's own contexts closed, nothing holds the module */
#define EXPECT_MODULE_UNUSED() do {					\
	long __rt_refcnt = rt_module_refcnt(5000);			\
									\
	if (__rt_refcnt < 0)						\
		TH_LOG("no " RT_REFCNT_PATH ": cannot check the module is free"); \
	else								\
		EXPECT_EQ(0, __rt_refcnt);				\
} while (0)

/* ---- a killed owner ------------------------------------------------------ */

/*
 * The owner-death tests fork a child that sets work up, says 'K' (or
 * anything else when it could not) on a pipe, and waits to be killed.
 * The child's end: say @ok and wait for the signal.
 */
static inline void __attribute__((noreturn)) rt_owner_report(int wfd,
							     char ok)
{
	if (write(wfd, &ok, 1) != 1)
		_exit(2);
	for (;;)
		pause();
}

/*
 * The parent's: fork @child(wfd, @arg), which ends in rt_owner_report(),
 * and put what it said within 10 s into *@said (0 for nothing). Returns
 * the child's pid, or -1 when it could not start.
 */
static inline pid_t rt_spawn_owner(void (*child)(int wfd, long arg),
				   long arg, char *said)
{
	struct pollfd pfd = { .events = POLLIN };
	int p[2];
	pid_t pid;

	*said = 0;
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		child(p[1], arg);
		_exit(3);
	}
	close(p[1]);
	pfd.fd = p[0];
	if (pid > 0 && poll(&pfd, 1, 10000) == 1 && read(p[0], said, 1) != 1)
		*said = 0;
	close(p[0]);
	return pid;
}

/* ---- a deterministic PRNG ----------------------------------------------- */

static inline __u64 rt_xorshift64(__u64 *s)
{
	__u64 x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* uniform enough in [0, n) for a test */
static inline unsigned int rt_rand(__u64 *s, unsigned int n)
{
	return n ? (unsigned int)(rt_xorshift64(s) % n) : 0;
}

/* ---- passing files (SCM_RIGHTS) ------------------------------------------- */

/* send @n (at most 8) file descriptors over the socket @sock; 0 or -errno */
static inline int rt_send_fds(int sock, const int *fds, int n)
{
	char data = 'f', ctl[CMSG_SPACE(8 * sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = CMSG_SPACE(n * sizeof(int)),
	};
	struct cmsghdr *c;

	if (n < 1 || n > 8)
		return -EINVAL;
	memset(ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	/* a receiver gone already is -EPIPE here, not a SIGPIPE */
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

/*
 * receive up to @max (at most 8) file descriptors from @sock: how many, 0
 * if the other end closed without sending, or -errno
 */
static inline int rt_recv_fds(int sock, int *fds, int max)
{
	char data, ctl[CMSG_SPACE(8 * sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	ssize_t got;
	int n;

	got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	if (got <= 0)
		return got < 0 ? -errno : 0;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
		return -EPROTO;
	n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	if (n > max || n > 8)
		return -E2BIG;
	memcpy(fds, CMSG_DATA(c), n * sizeof(int));
	return n;
}

/* ---- QEMU's edu device ------------------------------------------------- */

/* is QEMU's edu device (1234:11e8) on this machine's PCI bus? */
static inline bool rt_edu_present(void)
{
	char path[300], id[16];
	struct dirent *d;
	bool found = false;
	DIR *dir;
	FILE *f;

	dir = opendir("/sys/bus/pci/devices");
	if (!dir)
		return false;
	while (!found && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device",
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		found = fgets(id, sizeof(id), f) && !strncmp(id, "0x11e8", 6);
		fclose(f);
	}
	closedir(dir);
	return found;
}

#define RT_MAX_ENGINES	16

/* the first engine listed named @name, into *@out; 0 or -ENOENT */
static inline int rt_engine_named(struct retire *r, const char *name,
				  struct retire_engine_info *out)
{
	struct retire_engine_info e[RT_MAX_ENGINES];
	int n, i;

	n = retire_list_engines(r, e, RT_MAX_ENGINES);
	for (i = 0; i < n && i < RT_MAX_ENGINES; i++)
		if (!strcmp(e[i].name, name)) {
			*out = e[i];
			return 0;
		}
	return -ENOENT;
}

/* the first edu engine listed, into *@out; 0 or -ENOENT */
static inline int rt_edu_engine(struct retire *r,
				struct retire_engine_info *out)
{
	return rt_engine_named(r, "edu", out);
}

#endif /* RETIRE_TEST_H */
