// SPDX-License-Identifier: GPL-2.0
/*
 * Admission, budgets and publication: per-context limits (GET, SET and
 * their validation), every admission bound refusing at exactly its limit
 * with its own errno and counter, overload of a blocked engine, per-key
 * activation that never blocks later keys, injected submission failures,
 * the shared bandwidth token bucket, the buffer pool's LRU eviction, the
 * watchdog's quarantine and its release by an engine reset (also for a
 * killed owner), and the publication predicate (epochs, authority,
 * cancels) judged when a TERMINAL record is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libretire.h"
#include "retire_test.h"

#define WATCHDOG_PARAM	"/sys/module/retire/parameters/watchdog_ms"
#define DEFAULT_WATCHDOG_NS	(10000 * RT_MS)

/* every record flag that only a completed terminal record may carry */
#define NOT_MEASURED(c)	\
	(!((c).flags & RETIRE_CQE_F_MEASURED) && !(c).result_len && \
	 !(c).latency_ns && !(c).checksum)

/* nothing but the fields named in @skip (NULL-terminated) differs */
#define EXPECT_STATS_SAME_BUT(a, b, ...) do {				\
	static const char *const __skip[] = { __VA_ARGS__, NULL };	\
	const char *__d = rt_stats_diff(&(a), &(b), __skip);		\
	EXPECT_TRUE(__d == NULL) {					\
		TH_LOG("stats.%s changed", __d);			\
	}								\
} while (0)

static __u64 min64(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

/* the value of the stats field called @name */
static __u64 stat_by_name(const struct retire_stats *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(rt_stat_fields) / sizeof(rt_stat_fields[0]);
	     i++)
		if (!strcmp(rt_stat_fields[i].name, name))
			return rt_stat_get(s, rt_stat_fields[i].off);
	return ~0ULL;
}

/* ---- one context, the engine neutral ------------------------------------ */

FIXTURE(adm) {
	struct retire *r;
	int fd;
	struct retire_info info;
	struct rt_log log;
};

FIXTURE_SETUP(adm)
{
	RT_OPEN_OR_SKIP(self->r);
	self->fd = retire_get_fd(self->r);
	rt_sim_neutral(self->r);
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	ASSERT_EQ(0, retire_get_info(self->r, &self->info));
}

FIXTURE_TEARDOWN(adm)
{
	/* ends hung work and every quarantine, zeroes every knob */
	rt_sim_neutral(self->r);
	rt_log_free(&self->log);
	retire_close_device(self->r);
}

/* wait for @h's TERMINAL record, retire it, wait for its RETIRED record */
static void retire_after_terminal(struct __test_metadata *_metadata,
				  FIXTURE_DATA(adm) *self, __u64 h,
				  struct retire_cqe *term)
{
	struct retire_cqe c;

	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL,
			     term ? term : &c, 5000));
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
}

TEST_F(adm, feature_bit_is_advertised)
{
	EXPECT_TRUE(self->info.features & RETIRE_FEAT_ADMISSION);
}

/* ---- limits: GET, SET, validation ---------------------------------------- */

/* one field of struct retire_limits, for tables of mutations */
static const struct {
	const char *name;
	size_t off;
	bool wide;		/* __u64, else __u32 */
	bool zero_ok;
} limit_fields[] = {
#define L32(x) { #x, offsetof(struct retire_limits, x), false, false }
#define L64(x, z) { #x, offsetof(struct retire_limits, x), true, z }
	L32(max_unretired), L32(max_active), L32(max_active_per_key),
	L32(max_waiting), L32(max_tokens), L32(max_buffers),
	L64(max_reserved_bytes, false), L64(max_pinned_bytes, true),
	L64(max_pool_bytes, false), L64(watchdog_ns, false),
#undef L32
#undef L64
};

#define NLIMIT_FIELDS	(sizeof(limit_fields) / sizeof(limit_fields[0]))

static __u64 limit_get(const struct retire_limits *l, unsigned int f)
{
	const char *p = (const char *)l + limit_fields[f].off;

	return limit_fields[f].wide ? *(const __u64 *)p : *(const __u32 *)p;
}

static void limit_set(struct retire_limits *l, unsigned int f, __u64 v)
{
	char *p = (char *)l + limit_fields[f].off;

	if (limit_fields[f].wide)
		*(__u64 *)p = v;
	else
		*(__u32 *)p = (__u32)v;
}

/* SET @l must fail with @err and leave the limits at @now */
static void expect_set_refused(struct __test_metadata *_metadata,
			       FIXTURE_DATA(adm) *self,
			       const struct retire_limits *l, int err,
			       const struct retire_limits *now,
			       const char *what)
{
	struct retire_limits got;

	EXPECT_EQ(err, retire_set_limits(self->r, l)) {
		TH_LOG("SET with %s was not refused with %d", what, err);
	}
	ASSERT_EQ(0, retire_get_limits(self->r, &got));
	EXPECT_TRUE(rt_limits_equal(&got, now)) {
		TH_LOG("the refused SET with %s changed the limits", what);
	}
}

/* RETIRE_IOC_LIMITS on @arg must fail with -EINVAL and write nothing */
static void expect_limits_ioctl_einval(struct __test_metadata *_metadata,
				       FIXTURE_DATA(adm) *self,
				       struct retire_limits_arg *arg,
				       const struct retire_limits *now,
				       const char *what)
{
	struct retire_limits_arg copy = *arg;
	struct retire_limits got;

	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_LIMITS, arg)) {
		TH_LOG("%s was accepted", what);
	}
	EXPECT_EQ(0, memcmp(&copy, arg, sizeof(copy))) {
		TH_LOG("%s: the refused structure was written to", what);
	}
	ASSERT_EQ(0, retire_get_limits(self->r, &got));
	EXPECT_TRUE(rt_limits_equal(&got, now)) {
		TH_LOG("%s changed the limits", what);
	}
}

TEST_F(adm, limits_get_defaults_to_caps_and_set_validates)
{
	const struct retire_limits *caps = &self->info.caps;
	struct retire_limits def, v, l, got, use;
	struct retire_limits_arg arg;
	struct retire_stats st;
	__u64 bufs[4], pbuf, h[4], t[2], wd_want;
	struct retire_cqe c;
	char what[96];
	unsigned int f;
	long wd_ms;
	void *mem;
	int i;

	/* a new context starts at the caps, the watchdog at its default */
	ASSERT_EQ(0, retire_get_limits(self->r, &def));
	EXPECT_EQ(caps->max_unretired, def.max_unretired);
	EXPECT_EQ(caps->max_active, def.max_active);
	EXPECT_EQ(caps->max_active_per_key, def.max_active_per_key);
	EXPECT_EQ(caps->max_waiting, def.max_waiting);
	EXPECT_EQ(caps->max_tokens, def.max_tokens);
	EXPECT_EQ(caps->max_buffers, def.max_buffers);
	EXPECT_EQ(caps->max_reserved_bytes, def.max_reserved_bytes);
	EXPECT_EQ(caps->max_pinned_bytes, def.max_pinned_bytes);
	EXPECT_EQ(caps->max_pool_bytes, def.max_pool_bytes);
	wd_ms = rt_read_long(WATCHDOG_PARAM);
	wd_want = wd_ms > 0 ? (__u64)wd_ms * RT_MS : DEFAULT_WATCHDOG_NS;
	EXPECT_EQ(wd_want, def.watchdog_ns);
	EXPECT_LE(def.watchdog_ns, caps->watchdog_ns);

	/* small and valid */
	v = def;
	v.max_unretired = min64(8, caps->max_unretired);
	v.max_active = min64(4, caps->max_active);
	v.max_active_per_key = min64(2, min64(v.max_active,
					      caps->max_active_per_key));
	v.max_waiting = min64(8, caps->max_waiting);
	v.max_tokens = min64(8, caps->max_tokens);
	v.max_buffers = min64(8, caps->max_buffers);
	v.max_reserved_bytes = min64(64 * RT_PAGE, caps->max_reserved_bytes);
	v.max_pinned_bytes = min64(16 * RT_PAGE, caps->max_pinned_bytes);
	v.max_pool_bytes = min64(16 * RT_PAGE, caps->max_pool_bytes);
	/* long enough that the hung request below is not quarantined */
	v.watchdog_ns = min64(5000 * RT_MS, caps->watchdog_ns);

	/* each field 0 (but max_pinned_bytes) or above its cap: -EINVAL */
	for (f = 0; f < NLIMIT_FIELDS; f++) {
		__u64 cap = limit_get(caps, f);

		l = v;
		limit_set(&l, f, 0);
		snprintf(what, sizeof(what), "%s 0", limit_fields[f].name);
		if (!limit_fields[f].zero_ok)
			expect_set_refused(_metadata, self, &l, -EINVAL, &def,
					   what);
		if (cap == (limit_fields[f].wide ? ~0ULL : 0xffffffffULL))
			continue;
		l = v;
		limit_set(&l, f, cap + 1);
		snprintf(what, sizeof(what), "%s cap + 1",
			 limit_fields[f].name);
		expect_set_refused(_metadata, self, &l, -EINVAL, &def, what);
	}
	l = v;
	l.max_active_per_key = l.max_active + 1;
	expect_set_refused(_metadata, self, &l, -EINVAL, &def,
			   "max_active_per_key > max_active");

	/* a valid SET round-trips, max_pinned_bytes 0 included */
	l = v;
	l.max_pinned_bytes = 0;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	ASSERT_EQ(0, retire_get_limits(self->r, &got));
	EXPECT_TRUE(rt_limits_equal(&l, &got));
	ASSERT_EQ(0, retire_set_limits(self->r, &v));
	ASSERT_EQ(0, retire_get_limits(self->r, &got));
	EXPECT_TRUE(rt_limits_equal(&v, &got));
	/* and the caps themselves are a valid SET */
	ASSERT_EQ(0, retire_set_limits(self->r, caps));
	ASSERT_EQ(0, retire_get_limits(self->r, &got));
	EXPECT_TRUE(rt_limits_equal(caps, &got));

	/*
	 * Put something of every kind in use: 4 module buffers and 2 pinned
	 * pages; one request terminated with 2 tokens out; one hung in the
	 * engine (max_active 1) and 2 waiting behind it.
	 */
	v.max_active = 1;
	v.max_active_per_key = 1;
	ASSERT_EQ(0, retire_set_limits(self->r, &v));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &bufs[i], NULL));
	ASSERT_EQ(0, posix_memalign(&mem, RT_PAGE, 2 * RT_PAGE));
	memset(mem, 0, 2 * RT_PAGE);
	ASSERT_EQ(0, retire_pin_buffer(self->r, mem, 2 * RT_PAGE, &pbuf));
	ASSERT_EQ(0, rt_submit(self->r, bufs[0], 0, RT_PAGE, RETIRE_DEV_WRITE,
			       0x10, 0, &h[0]));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h[0], RETIRE_REC_TERMINAL,
			     &c, 3000));
	ASSERT_EQ(0, retire_borrow_token(self->r, h[0], &t[0]));
	ASSERT_EQ(0, retire_borrow_token(self->r, h[0], &t[1]));
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_HANG, 0));
	for (i = 1; i < 4; i++)
		ASSERT_EQ(0, rt_submit(self->r, bufs[i], 0, RT_PAGE,
				       RETIRE_DEV_READ, 0x10 + i, 0, &h[i]));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(4, st.physical_outstanding);
	EXPECT_EQ(2, st.tokens_out);
	EXPECT_EQ(5, st.buffers);
	EXPECT_EQ(4 * RT_PAGE, st.owned_bytes);
	EXPECT_EQ(2 * RT_PAGE, st.pinned_bytes);
	EXPECT_EQ(4 * RT_PAGE, st.pool_bytes);

	/* exactly what is in use is a valid SET */
	use = v;
	use.max_unretired = 4;
	use.max_waiting = 2;
	use.max_tokens = 2;
	use.max_buffers = 5;
	use.max_reserved_bytes = 4 * RT_PAGE;
	use.max_pinned_bytes = 2 * RT_PAGE;
	use.max_pool_bytes = 4 * RT_PAGE;
	ASSERT_EQ(0, retire_set_limits(self->r, &use));
	ASSERT_EQ(0, retire_get_limits(self->r, &got));
	EXPECT_TRUE(rt_limits_equal(&use, &got));

	/* one below, each in turn: -EBUSY, nothing changes */
#define BELOW(field, val) do {						\
	l = use;							\
	l.field = (val);						\
	expect_set_refused(_metadata, self, &l, -EBUSY, &use,		\
			   #field " below what is in use");		\
} while (0)
	BELOW(max_unretired, 3);
	BELOW(max_waiting, 1);
	BELOW(max_tokens, 1);
	BELOW(max_buffers, 4);
	BELOW(max_reserved_bytes, 4 * RT_PAGE - 1);
	BELOW(max_pinned_bytes, RT_PAGE);
	BELOW(max_pool_bytes, 3 * RT_PAGE);
#undef BELOW
	/* a refusal that is both: still nothing changes */
	l = use;
	l.max_tokens = 1;
	l.max_buffers = 1;
	expect_set_refused(_metadata, self, &l, -EBUSY, &use,
			   "two fields below what is in use");

	/* the command's own fields */
	memset(&arg, 0, sizeof(arg));
	arg.op = RETIRE_LIMITS_GET;
	arg.flags = 1;
	expect_limits_ioctl_einval(_metadata, self, &arg, &use,
				   "GET with flags 1");
	arg.flags = 1U << 31;
	expect_limits_ioctl_einval(_metadata, self, &arg, &use,
				   "GET with flags 1 << 31");
	memset(&arg, 0, sizeof(arg));
	arg.reserved[0] = 1;
	expect_limits_ioctl_einval(_metadata, self, &arg, &use,
				   "GET with reserved[0]");
	memset(&arg, 0, sizeof(arg));
	arg.reserved[1] = 1;
	expect_limits_ioctl_einval(_metadata, self, &arg, &use,
				   "GET with reserved[1]");
	memset(&arg, 0, sizeof(arg));
	arg.op = 2;
	arg.limits = def;
	expect_limits_ioctl_einval(_metadata, self, &arg, &use, "op 2");
	arg.op = ~0U;
	expect_limits_ioctl_einval(_metadata, self, &arg, &use, "op ~0");
	memset(&arg, 0, sizeof(arg));
	arg.op = RETIRE_LIMITS_SET;
	arg.limits = caps[0];
	arg.flags = 1;
	expect_limits_ioctl_einval(_metadata, self, &arg, &use,
				   "SET with flags 1");
	arg.flags = 0;
	arg.reserved[1] = 1ULL << 63;
	expect_limits_ioctl_einval(_metadata, self, &arg, &use,
				   "SET with reserved[1]");
	/* GET ignores what limits holds on input */
	memset(&arg, 0, sizeof(arg));
	arg.op = RETIRE_LIMITS_GET;
	memset(&arg.limits, 0xff, sizeof(arg.limits));
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_LIMITS, &arg));
	EXPECT_TRUE(rt_limits_equal(&use, &arg.limits));

	/* let it all go: the reset ends the hung request */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 0));
	ASSERT_EQ(0, retire_reset_sim(self->r));
	ASSERT_EQ(0, retire_return_token(self->r, t[0], 0));
	ASSERT_EQ(0, retire_return_token(self->r, t[1], 0));
	for (i = 0; i < 4; i++)
		retire_after_terminal(_metadata, self, h[i], NULL);
	EXPECT_EQ(0, retire_unregister_buffer(self->r, pbuf));
	free(mem);
}

/* ---- each admission bound, at exactly its limit ------------------------- */

enum bound {
	B_UNRETIRED,
	B_RESERVED,
	B_WAITING,
	B_TOKENS,
	B_BUFFERS,
	B_PINNED,
};

#define BOUND_MAX	4	/* the largest limit of a variant */

FIXTURE(bound) {
	struct retire *r;
	struct rt_log log;
	void *mem;
	__u64 pinned[BOUND_MAX + 1];
	unsigned int npinned;
};

FIXTURE_VARIANT(bound) {
	enum bound which;
	unsigned int limit;	/* requests, tokens, buffers or pages */
	int err;
	const char *counter;
	bool submit;		/* the refused thing is a SUBMIT entry */
};

FIXTURE_VARIANT_ADD(bound, max_unretired) {
	.which = B_UNRETIRED, .limit = 3, .err = -ENOSPC,
	.counter = "refused_unretired", .submit = true,
};

FIXTURE_VARIANT_ADD(bound, max_reserved_bytes) {
	.which = B_RESERVED, .limit = 3, .err = -EDQUOT,
	.counter = "refused_reserved", .submit = true,
};

FIXTURE_VARIANT_ADD(bound, max_waiting) {
	.which = B_WAITING, .limit = 2, .err = -ENOBUFS,
	.counter = "refused_waiting", .submit = true,
};

FIXTURE_VARIANT_ADD(bound, max_tokens) {
	.which = B_TOKENS, .limit = 3, .err = -ETOOMANYREFS,
	.counter = "refused_tokens", .submit = false,
};

FIXTURE_VARIANT_ADD(bound, max_buffers) {
	.which = B_BUFFERS, .limit = 3, .err = -EMFILE,
	.counter = "refused_buffers", .submit = false,
};

FIXTURE_VARIANT_ADD(bound, max_pinned_bytes) {
	.which = B_PINNED, .limit = 3, .err = -EDQUOT,
	.counter = "refused_pinned", .submit = false,
};

FIXTURE_SETUP(bound)
{
	RT_OPEN_OR_SKIP(self->r);
	rt_sim_neutral(self->r);
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	ASSERT_EQ(0, posix_memalign(&self->mem, RT_PAGE,
				    (BOUND_MAX + 1) * RT_PAGE));
	memset(self->mem, 0, (BOUND_MAX + 1) * RT_PAGE);
}

FIXTURE_TEARDOWN(bound)
{
	unsigned int i;

	rt_sim_neutral(self->r);
	/* no request uses the pinned buffers: they unpin at once */
	for (i = 0; i < self->npinned; i++)
		retire_unregister_buffer(self->r, self->pinned[i]);
	rt_log_free(&self->log);
	retire_close_device(self->r);
	if (!self->npinned)
		free(self->mem);
}

TEST_F(bound, each_bound_refuses_at_exactly_its_limit)
{
	struct retire_stats before, after;
	struct retire_limits l;
	__u64 bufs[BOUND_MAX + 2], h = 0, t;
	struct retire_cqe c;
	unsigned int i, n = variant->limit;
	int ret = 0;

	ASSERT_GE(BOUND_MAX, n);
	ASSERT_EQ(0, retire_get_limits(self->r, &l));
	switch (variant->which) {
	case B_UNRETIRED:
		l.max_unretired = n;
		break;
	case B_RESERVED:
		l.max_reserved_bytes = n * RT_PAGE;
		break;
	case B_WAITING:
		l.max_active = 1;
		l.max_active_per_key = 1;
		l.max_waiting = n;
		break;
	case B_TOKENS:
		l.max_tokens = n;
		break;
	case B_BUFFERS:
		l.max_buffers = n;
		break;
	case B_PINNED:
		l.max_pinned_bytes = n * RT_PAGE;
		break;
	}
	ASSERT_EQ(0, retire_set_limits(self->r, &l));

	/* fill exactly to the limit: everything is admitted */
	switch (variant->which) {
	case B_UNRETIRED:
	case B_RESERVED:
	case B_WAITING:
		/* requests stay unretired and, past the first, waiting */
		ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_HANG, 0));
		for (i = 0; i < BOUND_MAX + 2; i++)
			ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &bufs[i],
						 NULL));
		/* max_waiting: one in the engine, n behind it */
		for (i = 0; i < n + (variant->which == B_WAITING); i++)
			ASSERT_EQ(0, rt_submit(self->r, bufs[i], 0, RT_PAGE,
					       RETIRE_DEV_READ, 0x100 + i, 0,
					       &h)) {
				TH_LOG("request %u of the limit %u", i, n);
			}
		break;
	case B_TOKENS:
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &bufs[0], NULL));
		ASSERT_EQ(0, rt_submit(self->r, bufs[0], 0, RT_PAGE,
				       RETIRE_DEV_WRITE, 0x100, 0, &h));
		ASSERT_EQ(0, rt_wait(self->r, &self->log, h,
				     RETIRE_REC_TERMINAL, &c, 3000));
		for (i = 0; i < n; i++)
			ASSERT_EQ(0, retire_borrow_token(self->r, h, &t));
		break;
	case B_BUFFERS:
		for (i = 0; i < n; i++)
			ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &bufs[i],
						 NULL));
		break;
	case B_PINNED:
		for (i = 0; i < n; i++) {
			ASSERT_EQ(0, retire_pin_buffer(self->r,
					(char *)self->mem + i * RT_PAGE,
					RT_PAGE, &self->pinned[i]));
			self->npinned++;
		}
		break;
	}

	/* one more: refused with the bound's errno, nothing else changes */
	ASSERT_EQ(0, rt_stats(self->r, &before));
	switch (variant->which) {
	case B_UNRETIRED:
	case B_WAITING:
		i = n + (variant->which == B_WAITING);
		ret = rt_submit(self->r, bufs[i], 0, RT_PAGE, RETIRE_DEV_READ,
				0x1ff, 0, &h);
		break;
	case B_RESERVED:
		/* one byte more than the limit */
		ret = rt_submit(self->r, bufs[n], 0, 1, RETIRE_DEV_READ,
				0x1ff, 0, &h);
		break;
	case B_TOKENS:
		t = 0;
		ret = retire_borrow_token(self->r, h, &t);
		EXPECT_EQ(0, t);
		break;
	case B_BUFFERS:
		ret = rt_register(self->r, RT_PAGE, &bufs[n], NULL);
		break;
	case B_PINNED:
		ret = retire_pin_buffer(self->r,
					(char *)self->mem + n * RT_PAGE,
					RT_PAGE, &bufs[0]);
		if (!ret)
			self->pinned[self->npinned++] = bufs[0];
		break;
	}
	EXPECT_EQ(variant->err, ret);
	ASSERT_EQ(0, rt_stats(self->r, &after));
	EXPECT_EQ(stat_by_name(&before, variant->counter) + 1,
		  stat_by_name(&after, variant->counter)) {
		TH_LOG("stats.%s did not count the refusal", variant->counter);
	}
	if (variant->submit)
		EXPECT_EQ(before.refused + 1, after.refused);
	/*
	 * refused counts SUBMIT entries; whether a refused registration or
	 * borrow counts there too is not fixed, so it is not compared.
	 */
	{
		const char *skip[] = { variant->counter, "refused", NULL };
		const char *d = rt_stats_diff(&before, &after, skip);

		EXPECT_TRUE(d == NULL) {
			TH_LOG("the refusal changed stats.%s", d);
		}
	}
}

/* ---- overload --------------------------------------------------------------- */

#define OVL_BUFS	32
#define OVL_BATCH	8

TEST_F(adm, overload_with_blocked_engine_refuses_and_nothing_grows)
{
	struct retire_sqe sqe[OVL_BATCH];
	struct retire_stats st;
	struct retire_limits l;
	__u64 bufs[OVL_BUFS], h[OVL_BUFS];
	unsigned int i, k, round, nadm = 0, nrefused = 0;
	int admitted;

	ASSERT_EQ(0, retire_get_limits(self->r, &l));
	l.max_unretired = 16;
	l.max_active = 2;
	l.max_active_per_key = 2;
	l.max_waiting = 4;
	l.max_reserved_bytes = 64 * RT_PAGE;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	/* the engine takes requests but moves nothing */
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_BLOCKED, 0));
	for (i = 0; i < OVL_BUFS; i++)
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &bufs[i], NULL));

	/*
	 * Far more than the limits, in batches, twice over: 2 active and 4
	 * waiting are admitted, every other entry is refused (-ENOBUFS).
	 */
	for (round = 0; round < 2 * OVL_BUFS / OVL_BATCH; round++) {
		unsigned int base = (round * OVL_BATCH) % OVL_BUFS;

		for (k = 0; k < OVL_BATCH; k++)
			retire_prep_request(&sqe[k], bufs[base + k], 0,
					    RT_PAGE, RETIRE_DEV_WRITE,
					    0x200 + base + k);
		admitted = retire_submit_requests(self->r, sqe, OVL_BATCH);
		ASSERT_LE(0, admitted);
		for (k = 0; k < OVL_BATCH; k++) {
			if (sqe[k].result == 0) {
				if (nadm < OVL_BUFS)
					h[nadm] = sqe[k].handle;
				nadm++;
				continue;
			}
			nrefused++;
			/* in the first round the first 6 are admitted; the
			 * second time round their buffers are attached */
			EXPECT_EQ(round >= OVL_BUFS / OVL_BATCH &&
				  base + k < 6 ? -EBUSY : -ENOBUFS,
				  sqe[k].result) {
				TH_LOG("round %u entry %u", round, k);
			}
		}
		ASSERT_EQ(0, rt_stats(self->r, &st));
		EXPECT_EQ(6, st.admitted);
		EXPECT_EQ(6, st.physical_outstanding);
		EXPECT_EQ(6 * RT_PAGE, st.owned_bytes);
		EXPECT_EQ(6 * RT_PAGE, st.owned_bytes_hwm);
		EXPECT_EQ(nrefused, st.refused);
		EXPECT_EQ(0, st.completed + st.failed);
	}
	ASSERT_EQ(6, nadm);
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(nrefused - 6, st.refused_waiting);
	EXPECT_EQ(0, st.refused_unretired);

	/* more room to wait: now max_unretired is the bound (-ENOSPC) */
	l.max_waiting = 16;
	l.max_unretired = 8;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	for (k = 0; k < OVL_BATCH; k++)
		retire_prep_request(&sqe[k], bufs[6 + k], 0, RT_PAGE,
				    RETIRE_DEV_WRITE, 0x300 + k);
	admitted = retire_submit_requests(self->r, sqe, OVL_BATCH);
	EXPECT_EQ(2, admitted);
	for (k = 0; k < OVL_BATCH; k++) {
		if (k < 2) {
			EXPECT_EQ(0, sqe[k].result);
			if (!sqe[k].result && nadm < OVL_BUFS)
				h[nadm++] = sqe[k].handle;
		} else {
			EXPECT_EQ(-ENOSPC, sqe[k].result);
		}
	}
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(8, st.admitted);
	EXPECT_EQ(8, st.physical_outstanding);
	EXPECT_EQ(8 * RT_PAGE, st.owned_bytes);
	EXPECT_EQ(6, st.refused_unretired);
	EXPECT_EQ(0, st.completed + st.failed);

	/* unblocked, everything completes and retires */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 1 * RT_MS));
	for (i = 0; i < nadm; i++) {
		struct retire_cqe term;

		retire_after_terminal(_metadata, self, h[i], &term);
		EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, term.outcome);
	}
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(8, st.completed);
	EXPECT_EQ(8, st.published);
	EXPECT_EQ(8, st.retired);
	EXPECT_EQ(0, st.physical_outstanding);
	EXPECT_EQ(0, st.owned_bytes);
	EXPECT_EQ(8 * RT_PAGE, st.owned_bytes_hwm);
}

/* ---- per-key activation ------------------------------------------------------ */

TEST_F(adm, per_key_skip_does_not_block_later_keys)
{
	struct retire_cqe ta, tb, tc;
	struct retire_limits l;
	struct retire_sqe sqe[3];
	__u64 bufs[3];
	int i, ia, ib, ic;

	ASSERT_EQ(0, retire_get_limits(self->r, &l));
	l.max_active = 4;
	l.max_active_per_key = 1;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 300 * RT_MS));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &bufs[i], NULL));

	/* A and B share key 1; C has key 2 and comes last */
	for (i = 0; i < 3; i++) {
		retire_prep_request(&sqe[i], bufs[i], 0, RT_PAGE,
				    RETIRE_DEV_WRITE, 0xa + i);
		sqe[i].key = i < 2 ? 1 : 2;
	}
	ASSERT_EQ(3, retire_submit_requests(self->r, sqe, 3));

	/* B waits for A; C, behind B in the list, does not wait for B */
	ASSERT_EQ(0, rt_wait(self->r, &self->log, sqe[1].handle,
			     RETIRE_REC_TERMINAL, &tb, 5000));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, sqe[0].handle,
			     RETIRE_REC_TERMINAL, &ta, 0));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, sqe[2].handle,
			     RETIRE_REC_TERMINAL, &tc, 0));
	ia = rt_index(&self->log, sqe[0].handle, RETIRE_REC_TERMINAL);
	ib = rt_index(&self->log, sqe[1].handle, RETIRE_REC_TERMINAL);
	ic = rt_index(&self->log, sqe[2].handle, RETIRE_REC_TERMINAL);
	EXPECT_LT(ia, ib);
	EXPECT_LT(ic, ib);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, ta.outcome);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, tb.outcome);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, tc.outcome);
	/*
	 * B started only after A ended: two latencies (timers never fire
	 * early; 10 ms for B's admission coming a little after A's)
	 */
	EXPECT_LE(590 * RT_MS, tb.latency_ns);
	EXPECT_LE(300 * RT_MS, tc.latency_ns);
	EXPECT_LT(tc.latency_ns, tb.latency_ns);

	for (i = 0; i < 3; i++)
		retire_after_terminal(_metadata, self, sqe[i].handle, NULL);
}

/*
 * The same skip when a slot frees later: the walk over the waiting list
 * that starts requests as active ones end must pass a saturated key's
 * request, not stop at it.
 */
TEST_F(adm, activation_walk_skips_a_saturated_key)
{
	struct retire_cqe ta, tc;
	struct retire_limits l;
	struct retire_sqe sqe[4];
	__u64 bufs[4];
	int i, ia, ic;

	ASSERT_EQ(0, retire_get_limits(self->r, &l));
	l.max_active = 2;
	l.max_active_per_key = 1;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &bufs[i], NULL));
		retire_prep_request(&sqe[i], bufs[i], 0, RT_PAGE,
				    RETIRE_DEV_WRITE, 0xa0 + i);
	}
	/* A, key 1, runs 1 s; D, key 3, 100 ms; B (key 1) and C (key 2) wait */
	sqe[0].key = 1;
	sqe[1].key = 3;
	sqe[2].key = 1;
	sqe[3].key = 2;
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 1000 * RT_MS));
	ASSERT_EQ(1, retire_submit_requests(self->r, sqe, 1));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 100 * RT_MS));
	ASSERT_EQ(3, retire_submit_requests(self->r, sqe + 1, 3));

	/* D's end starts C past B, whose key A still holds: C ends first */
	ASSERT_EQ(0, rt_wait(self->r, &self->log, sqe[3].handle,
			     RETIRE_REC_TERMINAL, &tc, 5000));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, sqe[0].handle,
			     RETIRE_REC_TERMINAL, &ta, 5000));
	ia = rt_index(&self->log, sqe[0].handle, RETIRE_REC_TERMINAL);
	ic = rt_index(&self->log, sqe[3].handle, RETIRE_REC_TERMINAL);
	EXPECT_LT(ic, ia) {
		TH_LOG("C waited behind B for A's key");
	}
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, tc.outcome);
	EXPECT_LT(tc.latency_ns, ta.latency_ns);

	for (i = 0; i < 4; i++)
		retire_after_terminal(_metadata, self, sqe[i].handle, NULL);
}

/* ---- injected submission failures ---------------------------------------- */

TEST_F(adm, fail_submit_every_counts_refused_attempts)
{
	struct retire_stats st0, st, m0, m;
	struct retire_sim_config cfg;
	struct retire_sqe sqe[6];
	__u64 bufs[8], h[8];
	int exp[6], i, nh = 0;

	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &bufs[i], NULL));
	ASSERT_EQ(0, rt_stats(self->r, &st0));
	ASSERT_EQ(0, rt_mstats(self->r, &m0));

	/* attempts are counted from the SET on */
	memset(&cfg, 0, sizeof(cfg));
	cfg.latency_ns = 20 * RT_MS;
	cfg.fail_submit_every = 3;
	cfg.seed = 1;
	ASSERT_EQ(0, retire_set_sim_config(self->r, &cfg));

	/* 1: admitted */
	ASSERT_EQ(0, rt_submit(self->r, bufs[0], 0, RT_PAGE, RETIRE_DEV_WRITE,
			       1, 0, &h[nh++]));
	/* 2: a bad entry is an attempt too */
	EXPECT_EQ(-EINVAL, rt_submit(self->r, bufs[1], 0, RT_PAGE, 0, 2, 0,
				     NULL));
	/* 3: injected, though the entry is good */
	EXPECT_EQ(-EIO, rt_submit(self->r, bufs[1], 0, RT_PAGE,
				  RETIRE_DEV_WRITE, 3, 0, NULL));
	/* 4: the same buffer: the injected refusal did not attach it */
	ASSERT_EQ(0, rt_submit(self->r, bufs[1], 0, RT_PAGE, RETIRE_DEV_WRITE,
			       4, 0, &h[nh++]));
	/* 5: refused for its own reason */
	EXPECT_EQ(-EBUSY, rt_submit(self->r, bufs[0], 0, RT_PAGE,
				    RETIRE_DEV_WRITE, 5, 0, NULL));
	/* 6: injected */
	EXPECT_EQ(-EIO, rt_submit(self->r, bufs[2], 0, RT_PAGE,
				  RETIRE_DEV_WRITE, 6, 0, NULL));

	/* 7..12 in one batch: every entry is an attempt */
	retire_prep_request(&sqe[0], bufs[2], 0, RT_PAGE, RETIRE_DEV_WRITE, 7);
	exp[0] = 0;
	retire_prep_request(&sqe[1], bufs[3], 0, RT_PAGE, RETIRE_DEV_WRITE, 8);
	exp[1] = 0;
	/* 9: injected before it is found bad (len 0) */
	retire_prep_request(&sqe[2], bufs[4], 0, 0, RETIRE_DEV_WRITE, 9);
	exp[2] = -EIO;
	retire_prep_request(&sqe[3], bufs[4], 0, RT_PAGE, RETIRE_DEV_WRITE, 10);
	exp[3] = 0;
	retire_prep_request(&sqe[4], bufs[4], 0, RT_PAGE, RETIRE_DEV_WRITE, 11);
	exp[4] = -EBUSY;
	retire_prep_request(&sqe[5], bufs[5], 0, RT_PAGE, RETIRE_DEV_WRITE, 12);
	exp[5] = -EIO;
	EXPECT_EQ(3, retire_submit_requests(self->r, sqe, 6));
	for (i = 0; i < 6; i++) {
		EXPECT_EQ(exp[i], sqe[i].result) {
			TH_LOG("attempt %d", 7 + i);
		}
		if (!sqe[i].result && !exp[i])
			h[nh++] = sqe[i].handle;
	}

	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(st0.refused_injected + 4, st.refused_injected);
	EXPECT_EQ(st0.refused + 7, st.refused);
	EXPECT_EQ(st0.admitted + 5, st.admitted);
	EXPECT_EQ(5 * RT_PAGE, st.owned_bytes);
	ASSERT_EQ(0, rt_mstats(self->r, &m));
	EXPECT_EQ(m0.refused_injected + 4, m.refused_injected);

	/* off again: nothing is injected */
	cfg.fail_submit_every = 0;
	ASSERT_EQ(0, retire_set_sim_config(self->r, &cfg));
	for (i = 5; i < 8; i++)
		ASSERT_EQ(0, rt_submit(self->r, bufs[i], 0, RT_PAGE,
				       RETIRE_DEV_WRITE, 13 + i, 0, &h[nh++]));
	ASSERT_EQ(8, nh);
	for (i = 0; i < nh; i++)
		retire_after_terminal(_metadata, self, h[i], NULL);
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(st0.refused_injected + 4, st.refused_injected);
	EXPECT_EQ(st.admitted, st.retired);
	EXPECT_EQ(0, st.owned_bytes);
}

/* ---- shared bandwidth --------------------------------------------------------- */

#define BW_RATE		(64 * 1024ULL)	/* bytes per second */
#define BW_BURST	(8 * 1024ULL)
#define BW_CHUNK	1024ULL		/* bytes_per_tick */
#define BW_REQS		8
#define BW_LEN		(8 * 1024ULL)	/* BW_REQS * BW_LEN = 64 KiB */

TEST_F(adm, bandwidth_never_exceeds_burst_plus_rate)
{
	const __u64 total = BW_REQS * BW_LEN;
	/* no transfer can end before the bucket has let total through */
	const __u64 min_ns = (total - BW_BURST) * 1000000000ULL / BW_RATE;
	struct retire_sqe sqe[BW_REQS];
	struct retire_sim_config cfg;
	struct retire_stats m;
	__u64 bufs[BW_REQS], t_set, t, e0, delta, allowed, done_ns = 0;
	__u64 worst_excess = 0, end;
	unsigned int samples = 0, violations = 0, nterm;
	int i;

	for (i = 0; i < BW_REQS; i++)
		ASSERT_EQ(0, rt_register(self->r, BW_LEN, &bufs[i], NULL));
	/* nobody else's transfers in the module-wide counter */
	ASSERT_EQ(0, rt_settle_module(self->r, &m, 3000));

	memset(&cfg, 0, sizeof(cfg));
	cfg.tick_ns = 1 * RT_MS;
	cfg.bytes_per_tick = BW_CHUNK;
	cfg.seed = 1;
	cfg.rate_bps = BW_RATE;
	cfg.burst_bytes = BW_BURST;
	/*
	 * The bucket starts full when the config is set; t_set is taken
	 * before the SET, so B + R * (now - t_set) is never less than the
	 * module's own bound.
	 */
	t_set = rt_now_ns();
	ASSERT_EQ(0, retire_set_sim_config(self->r, &cfg));
	ASSERT_EQ(0, rt_mstats(self->r, &m));
	e0 = m.engine_bytes;

	for (i = 0; i < BW_REQS; i++)
		retire_prep_request(&sqe[i], bufs[i], 0, BW_LEN,
				    RETIRE_DEV_WRITE, 0xb0 + i);
	ASSERT_EQ(BW_REQS, retire_submit_requests(self->r, sqe, BW_REQS));

	/*
	 * Sample while it runs. The time of a sample is taken after the
	 * stats are read (a later time only allows more). Slack: one
	 * transfer (bytes_per_tick), since a transfer may be added to
	 * engine_bytes at another instant than the one it took its tokens.
	 */
	end = rt_now_ns() + 5000 * RT_MS;
	for (;;) {
		ASSERT_LE(0, rt_reap(self->r, &self->log, 0, 0));
		ASSERT_EQ(0, rt_mstats(self->r, &m));
		t = rt_now_ns();
		delta = m.engine_bytes - e0;
		allowed = BW_BURST + BW_RATE * (t - t_set) / 1000000000ULL +
			  BW_CHUNK;
		samples++;
		if (delta > allowed) {
			violations++;
			if (delta - allowed > worst_excess)
				worst_excess = delta - allowed;
		}
		for (nterm = 0, i = 0; i < BW_REQS; i++)
			nterm += rt_index(&self->log, sqe[i].handle,
					  RETIRE_REC_TERMINAL) >= 0;
		if (nterm == BW_REQS) {
			done_ns = t - t_set;
			break;
		}
		if (t > end)
			break;
		rt_msleep(5);
	}
	EXPECT_EQ(BW_REQS, nterm);
	EXPECT_EQ(0, violations) {
		TH_LOG("%u of %u samples above B + R*t + %llu, worst by %llu bytes",
		       violations, samples, BW_CHUNK,
		       (unsigned long long)worst_excess);
	}
	EXPECT_LE(10, samples);
	EXPECT_LE(min_ns, done_ns) {
		TH_LOG("64 KiB moved in %llu ms, the bucket allows no less than %llu ms",
		       (unsigned long long)(done_ns / RT_MS),
		       (unsigned long long)(min_ns / RT_MS));
	}
	ASSERT_EQ(0, rt_mstats(self->r, &m));
	EXPECT_EQ(total, m.engine_bytes - e0);

	for (i = 0; i < BW_REQS; i++) {
		struct retire_cqe term;

		retire_after_terminal(_metadata, self, sqe[i].handle, &term);
		EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, term.outcome);
		EXPECT_EQ(BW_LEN, term.result_len);
	}
	ASSERT_EQ(0, rt_stats(self->r, &m));
	EXPECT_EQ(BW_REQS, m.retired);
	EXPECT_EQ(0, m.owned_bytes);
}

/* ---- the pool's budget ------------------------------------------------------- */

TEST_F(adm, pool_evicts_lru_free_buffers_only)
{
	struct retire_stats st0, st, before;
	struct retire_limits l;
	struct retire_cqe c;
	__u64 A, B, C, D, E, F = 0, G = 0, hA, hB, hB2, hD, hE, tA;
	__u32 ev = ~0U;

	ASSERT_EQ(0, retire_get_limits(self->r, &l));
	l.max_pool_bytes = 4 * RT_PAGE;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	ASSERT_EQ(0, rt_stats(self->r, &st0));

	/* four pages: the budget, full; recency A < B < C < D */
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &A, &ev));
	EXPECT_EQ(0, ev);
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &B, &ev));
	EXPECT_EQ(0, ev);
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &C, &ev));
	EXPECT_EQ(0, ev);
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &D, &ev));
	EXPECT_EQ(0, ev);
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(4 * RT_PAGE, st.pool_bytes);

	/* A: done and borrowed (held); B: used and retired (FREE, recent) */
	ASSERT_EQ(0, rt_submit(self->r, A, 0, RT_PAGE, RETIRE_DEV_WRITE, 0xa,
			       0, &hA));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, hA, RETIRE_REC_TERMINAL, &c,
			     3000));
	ASSERT_EQ(0, retire_borrow_token(self->r, hA, &tA));
	ASSERT_EQ(0, rt_submit(self->r, B, 0, RT_PAGE, RETIRE_DEV_WRITE, 0xb,
			       0, &hB));
	retire_after_terminal(_metadata, self, hB, NULL);

	/* E evicts the least recently used FREE buffer: C */
	ASSERT_EQ(0, rt_stats(self->r, &before));
	ev = ~0U;
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &E, &ev));
	EXPECT_EQ(1, ev);
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(before.evicted + 1, st.evicted);
	EXPECT_EQ(4 * RT_PAGE, st.pool_bytes);
	EXPECT_EQ(before.buffers, st.buffers);
	EXPECT_EQ(-ENOENT, retire_unregister_buffer(self->r, C));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(before.stale_user + 1, st.stale_user);
	EXPECT_EQ(before.buffers, st.buffers);

	/* B and E attached (hung), D FREE, A borrowed */
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_HANG, 0));
	ASSERT_EQ(0, rt_submit(self->r, B, 0, RT_PAGE, RETIRE_DEV_READ, 0xb2,
			       0, &hB2));
	ASSERT_EQ(0, rt_submit(self->r, E, 0, RT_PAGE, RETIRE_DEV_READ, 0xe,
			       0, &hE));

	/* two pages needed, one reclaimable: refused, nothing evicted */
	ASSERT_EQ(0, rt_stats(self->r, &before));
	EXPECT_EQ(-ENOSPC, rt_register(self->r, 2 * RT_PAGE, &F, NULL));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(before.refused_pool + 1, st.refused_pool);
	EXPECT_STATS_SAME_BUT(before, st, "refused_pool", "refused");
	/* D survived: it can still carry a request */
	ASSERT_EQ(0, rt_submit(self->r, D, 0, RT_PAGE, RETIRE_DEV_READ, 0xd,
			       0, &hD));

	/* nothing reclaimable at all: refused */
	ASSERT_EQ(0, rt_stats(self->r, &before));
	EXPECT_EQ(-ENOSPC, rt_register(self->r, RT_PAGE, &G, NULL));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(before.refused_pool + 1, st.refused_pool);
	EXPECT_STATS_SAME_BUT(before, st, "refused_pool", "refused");

	/* A given back and retired: FREE, the only one; G evicts only A */
	ASSERT_EQ(0, retire_return_token(self->r, tA, 0));
	ASSERT_EQ(0, retire_release_request(self->r, hA));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, hA, RETIRE_REC_RETIRED, &c,
			     1000));
	ASSERT_EQ(0, rt_stats(self->r, &before));
	ev = ~0U;
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &G, &ev));
	EXPECT_EQ(1, ev);
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(before.evicted + 1, st.evicted);
	EXPECT_EQ(st0.evicted + 2, st.evicted);
	EXPECT_EQ(4 * RT_PAGE, st.pool_bytes);
	EXPECT_EQ(-ENOENT, retire_unregister_buffer(self->r, A));
	EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, B));
	EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, D));
	EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, E));

	/* the hung ones end at the reset and retire; G is FREE */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 0));
	ASSERT_EQ(0, retire_reset_sim(self->r));
	retire_after_terminal(_metadata, self, hB2, NULL);
	retire_after_terminal(_metadata, self, hD, NULL);
	retire_after_terminal(_metadata, self, hE, NULL);
	EXPECT_EQ(0, retire_unregister_buffer(self->r, G));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(3 * RT_PAGE, st.pool_bytes);
	EXPECT_EQ(0, st.owned_bytes);
}

/* ---- the watchdog and quarantine -------------------------------------------- */

TEST_F(adm, hang_watchdog_quarantines_then_reset_retires)
{
	struct retire_stats st, m0, m, before;
	struct retire_cqe to, q, term, c;
	struct retire_limits l;
	struct retire *r2;
	__u64 X, Y, Z, h, h2, hz;

	ASSERT_EQ(0, retire_get_limits(self->r, &l));
	l.watchdog_ns = 200 * RT_MS;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &X, NULL));
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &Y, NULL));
	ASSERT_EQ(0, rt_settle_module(self->r, &m0, 3000));

	/* hung past its deadline (100 ms) and then past the watchdog */
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_HANG, 0));
	ASSERT_EQ(0, rt_submit(self->r, X, 0, RT_PAGE, RETIRE_DEV_WRITE, 0x51,
			       100 * RT_MS, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_QUARANTINE,
			     &q, 3000));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TIMEOUT, &to,
			     0));
	EXPECT_LT(rt_index(&self->log, h, RETIRE_REC_TIMEOUT),
		  rt_index(&self->log, h, RETIRE_REC_QUARANTINE));
	EXPECT_EQ(RETIRE_OUTCOME_TIMED_OUT, to.outcome);
	EXPECT_EQ(RETIRE_OUTCOME_UNKNOWN, q.outcome);
	EXPECT_TRUE(q.flags & RETIRE_CQE_F_OUTSTANDING);
	EXPECT_EQ(0x51, q.user_data);
	EXPECT_TRUE(NOT_MEASURED(q));
	EXPECT_EQ(0, rt_count(&self->log, h, RETIRE_REC_TERMINAL));

	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(1, st.quarantined);
	EXPECT_EQ(1, st.quarantined_now);
	EXPECT_EQ(1, st.timed_out);
	EXPECT_EQ(1, st.physical_outstanding);
	/* the buffer stays owned */
	EXPECT_EQ(RT_PAGE, st.owned_bytes);
	ASSERT_EQ(0, rt_mstats(self->r, &m));
	EXPECT_EQ(m0.quarantined + 1, m.quarantined);
	EXPECT_EQ(m0.quarantined_now + 1, m.quarantined_now);

	/* the buffer is never released nor reused; the context admits
	 * nothing, even on a FREE buffer */
	EXPECT_EQ(-EBUSY, retire_unregister_buffer(self->r, X));
	EXPECT_EQ(-EBUSY, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_stats(self->r, &before));
	EXPECT_EQ(-ENOTRECOVERABLE, rt_submit(self->r, Y, 0, RT_PAGE,
					      RETIRE_DEV_WRITE, 0x52, 0, &h2));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(before.refused + 1, st.refused);
	EXPECT_EQ(before.refused_quarantine + 1, st.refused_quarantine);
	EXPECT_STATS_SAME_BUT(before, st, "refused", "refused_quarantine");

	/* another context is not quarantined */
	ASSERT_EQ(0, retire_open_device(&r2, NULL, 0));
	ASSERT_EQ(0, rt_register(r2, RT_PAGE, &Z, NULL));
	EXPECT_EQ(0, rt_submit(r2, Z, 0, RT_PAGE, RETIRE_DEV_READ, 0x53, 0,
			       &hz));

	/* only the reset ends it and releases the quarantine */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	ASSERT_EQ(0, retire_reset_sim(self->r));
	retire_close_device(r2);	/* its reaper retires the other one */
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL,
			     &term, 2000));
	EXPECT_EQ(RETIRE_OUTCOME_FAILED, term.outcome);
	EXPECT_EQ(-ECANCELED, term.error);
	EXPECT_TRUE(term.flags & RETIRE_CQE_F_TIMED_OUT);
	EXPECT_TRUE(NOT_MEASURED(term));
	EXPECT_LT(rt_index(&self->log, h, RETIRE_REC_QUARANTINE),
		  rt_index(&self->log, h, RETIRE_REC_TERMINAL));
	EXPECT_EQ(0, rt_wait_quarantined_now(self->r, 0, &st, 2000));
	EXPECT_EQ(1, st.quarantined);

	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, &c,
			     1000));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(0, st.physical_outstanding);
	EXPECT_EQ(0, st.owned_bytes);
	EXPECT_EQ(1, st.retired);

	/* admission works again, and the buffer can go */
	ASSERT_EQ(0, rt_submit(self->r, Y, 0, RT_PAGE, RETIRE_DEV_WRITE, 0x54,
			       0, &h2));
	retire_after_terminal(_metadata, self, h2, &term);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, term.outcome);
	EXPECT_EQ(0, retire_unregister_buffer(self->r, X));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(0, st.quarantined_now);
	EXPECT_EQ(st.admitted, st.retired);
}

/* ---- a killed owner with quarantined work -------------------------------- */

FIXTURE(qowner) {
	struct retire *r;		/* the observer */
	struct retire_stats base;	/* module-wide, settled */
};

FIXTURE_SETUP(qowner)
{
	RT_OPEN_OR_SKIP(self->r);
	rt_sim_neutral(self->r);
	ASSERT_EQ(0, rt_settle_module(self->r, &self->base, 3000));
}

FIXTURE_TEARDOWN(qowner)
{
	rt_close_neutral(self->r);
}

/*
 * The child: a context with a 200 ms watchdog and one request hung past
 * it (the parent has set HANG); it reports 'K' once the QUARANTINE record
 * is read, then waits for SIGKILL. It never returns.
 */
static void quarantined_child(int wfd, long arg)
{
	struct rt_log log = { 0 };
	struct retire_limits l;
	struct retire_cqe c;
	struct retire *r;
	__u64 buf, h;
	char ok = 'F';

	if (retire_open_device(&r, NULL, 0) || retire_get_limits(r, &l))
		goto out;
	l.watchdog_ns = 200 * RT_MS;
	if (retire_set_limits(r, &l) ||
	    rt_register(r, 2 * RT_PAGE, &buf, NULL) ||
	    rt_submit(r, buf, 0, 2 * RT_PAGE, RETIRE_DEV_WRITE, 0x900, 0, &h) ||
	    rt_wait(r, &log, h, RETIRE_REC_QUARANTINE, &c, 3000))
		goto out;
	ok = 'K';
out:
	rt_owner_report(wfd, ok);
}

TEST_F_TIMEOUT(qowner, killed_owner_with_quarantined_buffers_waits_for_reset,
	       30)
{
	struct retire_stats m;
	int status, i, left = 0;
	char ok = 0;
	pid_t pid;

	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_HANG, 0));
	pid = rt_spawn_owner(quarantined_child, 0, &ok);
	ASSERT_LE(0, pid);
	EXPECT_EQ('K', ok) {
		TH_LOG("the child saw no quarantine");
	}
	ASSERT_EQ(0, rt_mstats(self->r, &m));
	EXPECT_EQ(self->base.contexts + 1, m.contexts);
	EXPECT_EQ(self->base.quarantined_now + 1, m.quarantined_now);

	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));

	/* for a second: the reaper may retire nothing, the context stays */
	for (i = 0; i < 10; i++) {
		rt_msleep(100);
		ASSERT_EQ(0, rt_mstats(self->r, &m));
		if (m.contexts <= self->base.contexts ||
		    m.physical_outstanding <= self->base.physical_outstanding ||
		    m.quarantined_now <= self->base.quarantined_now)
			left++;
	}
	EXPECT_EQ(0, left) {
		TH_LOG("the quarantined context went away before a reset");
	}
	EXPECT_EQ(self->base.contexts + 1, m.contexts);
	EXPECT_EQ(self->base.owned_bytes + 2 * RT_PAGE, m.owned_bytes);

	/* the reset from another fd lets the reaper finish */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 0));
	ASSERT_EQ(0, retire_reset_sim(self->r));
	EXPECT_EQ(0, rt_wait_module_gauges(self->r, &self->base, &m, 5000));
	EXPECT_EQ(self->base.contexts, m.contexts);
	EXPECT_EQ(self->base.physical_outstanding, m.physical_outstanding);
	EXPECT_EQ(self->base.owned_bytes, m.owned_bytes);
	EXPECT_EQ(self->base.pool_bytes, m.pool_bytes);
	EXPECT_EQ(self->base.quarantined_now, m.quarantined_now);
	EXPECT_EQ(m.admitted - self->base.admitted,
		  m.retired - self->base.retired);

	/* with our own context gone, nothing holds the module */
	retire_close_device(self->r);
	self->r = NULL;
	EXPECT_MODULE_UNUSED();
}

/* ---- the publication predicate ----------------------------------------------- */

/* wait until a record is ready, and a little more for the rest */
static void let_it_finish(struct retire *r)
{
	rt_wait_ready(r, 3000);
	rt_msleep(100);
}

/* RETIRE_IOC_EPOCH on @arg must fail with -EINVAL */
static void expect_epoch_einval(struct __test_metadata *_metadata,
				int fd, struct retire_epoch_arg *arg,
				const char *what)
{
	struct retire_epoch_arg copy = *arg;

	EXPECT_EQ(-EINVAL, rt_ioctl(fd, RETIRE_IOC_EPOCH, arg)) {
		TH_LOG("%s was accepted", what);
	}
	EXPECT_EQ(0, memcmp(&copy, arg, sizeof(copy))) {
		TH_LOG("%s: the refused structure was written to", what);
	}
}

TEST_F(adm, epoch_bump_and_revoke_make_deliveries_stale)
{
	struct retire_cqe t1, t2, t3, t4;
	struct retire_epoch_arg arg;
	struct retire_stats st;
	__u64 bufs[4], h1, h2, h3, h4, e = ~0ULL, a = ~0ULL, k;
	struct retire *r2;
	int i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &bufs[i], NULL));
	ASSERT_EQ(0, retire_get_epoch(self->r, 7, &e, &a));
	EXPECT_EQ(0, e);
	EXPECT_EQ(0, a);

	/* key 7 done; its epoch bumped before its record is read */
	ASSERT_EQ(0, rt_submit_key(self->r, bufs[0], 0, RT_PAGE,
				   RETIRE_DEV_WRITE, 0x71, 0, 7, &h1));
	ASSERT_EQ(0, rt_submit_key(self->r, bufs[1], 0, RT_PAGE,
				   RETIRE_DEV_WRITE, 0x81, 0, 8, &h2));
	let_it_finish(self->r);
	ASSERT_EQ(0, retire_bump_epoch(self->r, 7, &e));
	EXPECT_EQ(1, e);
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h1, RETIRE_REC_TERMINAL, &t1,
			     3000));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h2, RETIRE_REC_TERMINAL, &t2,
			     3000));
	EXPECT_EQ(RETIRE_OUTCOME_STALE, t1.outcome);
	EXPECT_EQ(0, t1.error);
	EXPECT_EQ(0x71, t1.user_data);
	EXPECT_TRUE(NOT_MEASURED(t1));
	/* key 8 is another intent: untouched */
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, t2.outcome);
	EXPECT_TRUE(t2.flags & RETIRE_CQE_F_MEASURED);
	EXPECT_EQ(RT_PAGE, t2.result_len);
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(2, st.completed);
	EXPECT_EQ(1, st.published);
	EXPECT_EQ(1, st.stale_published);
	/* a stale terminal retires as any other */
	retire_after_terminal(_metadata, self, h1, NULL);
	retire_after_terminal(_metadata, self, h2, NULL);

	ASSERT_EQ(0, retire_get_epoch(self->r, 7, &e, &a));
	EXPECT_EQ(1, e);
	EXPECT_EQ(0, a);
	ASSERT_EQ(0, retire_get_epoch(self->r, 8, &e, &a));
	EXPECT_EQ(0, e);

	/* submitted before the revoke, read after it: stale */
	ASSERT_EQ(0, rt_submit_key(self->r, bufs[2], 0, RT_PAGE,
				   RETIRE_DEV_WRITE, 0x82, 0, 8, &h3));
	let_it_finish(self->r);
	ASSERT_EQ(0, retire_revoke_authority(self->r, &a));
	EXPECT_EQ(1, a);
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h3, RETIRE_REC_TERMINAL, &t3,
			     3000));
	EXPECT_EQ(RETIRE_OUTCOME_STALE, t3.outcome);
	EXPECT_TRUE(NOT_MEASURED(t3));
	/* submitted after it: published */
	ASSERT_EQ(0, rt_submit_key(self->r, bufs[3], 0, RT_PAGE,
				   RETIRE_DEV_WRITE, 0x83, 0, 8, &h4));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h4, RETIRE_REC_TERMINAL, &t4,
			     3000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, t4.outcome);
	EXPECT_TRUE(t4.flags & RETIRE_CQE_F_MEASURED);
	retire_after_terminal(_metadata, self, h3, NULL);
	retire_after_terminal(_metadata, self, h4, NULL);
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(4, st.completed);
	EXPECT_EQ(2, st.published);
	EXPECT_EQ(2, st.stale_published);
	EXPECT_EQ(4, st.retired);
	ASSERT_EQ(0, retire_get_epoch(self->r, 8, &e, &a));
	EXPECT_EQ(0, e);
	EXPECT_EQ(1, a);

	/* the command's own checks */
	memset(&arg, 0, sizeof(arg));
	arg.op = RETIRE_EPOCH_REVOKE;
	arg.key = 7;
	expect_epoch_einval(_metadata, self->fd, &arg, "REVOKE with key 7");
	memset(&arg, 0, sizeof(arg));
	arg.op = 3;
	expect_epoch_einval(_metadata, self->fd, &arg, "op 3");
	arg.op = ~0U;
	expect_epoch_einval(_metadata, self->fd, &arg, "op ~0");
	memset(&arg, 0, sizeof(arg));
	arg.op = RETIRE_EPOCH_BUMP;
	arg.key = 7;
	arg.flags = 1;
	expect_epoch_einval(_metadata, self->fd, &arg, "BUMP with flags 1");
	arg.flags = 0;
	arg.reserved[0] = 1;
	expect_epoch_einval(_metadata, self->fd, &arg, "BUMP with reserved[0]");
	memset(&arg, 0, sizeof(arg));
	arg.op = RETIRE_EPOCH_GET;
	arg.reserved[1] = 1;
	expect_epoch_einval(_metadata, self->fd, &arg, "GET with reserved[1]");
	/* none of them changed anything */
	ASSERT_EQ(0, retire_get_epoch(self->r, 7, &e, &a));
	EXPECT_EQ(1, e);
	EXPECT_EQ(1, a);

	/* a fresh context: 64 distinct keys are tracked, the 65th is not */
	ASSERT_EQ(0, retire_open_device(&r2, NULL, 0));
	for (k = 0; k < RETIRE_EPOCH_KEYS; k++) {
		e = ~0ULL;
		ASSERT_EQ(0, retire_bump_epoch(r2, 1000 + k, &e)) {
			TH_LOG("distinct key %llu", (unsigned long long)k + 1);
		}
		EXPECT_EQ(1, e);
	}
	EXPECT_EQ(-ENOSPC, retire_bump_epoch(r2, 5000, &e));
	/* a tracked key still moves; the refused one stays at 0 */
	ASSERT_EQ(0, retire_bump_epoch(r2, 1000, &e));
	EXPECT_EQ(2, e);
	ASSERT_EQ(0, retire_get_epoch(r2, 5000, &e, &a));
	EXPECT_EQ(0, e);
	EXPECT_EQ(0, a);
	retire_close_device(r2);
}

TEST_F(adm, completions_after_an_epoch_bump_are_stale_and_retire_once)
{
	struct retire_stats before, st, mb, m;
	struct retire_cqe t1, t2, t3, t4, ack, c;
	struct retire_limits l;
	__u64 b1, b2, b3, b4, j1, j2, j3, j4, e, a;
	void *m1, *m2;

	ASSERT_EQ(0, retire_alloc_buffer(self->r, RT_PAGE, &b1, &m1));
	ASSERT_EQ(0, retire_alloc_buffer(self->r, RT_PAGE, &b2, &m2));
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &b3, NULL));
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &b4, NULL));
	memset(m1, 0, RT_PAGE);
	memset(m2, 0, RT_PAGE);
	ASSERT_EQ(0, rt_stats(self->r, &before));

	/* two jobs on key 5, both active; CANCEL_RUNNING off */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 300 * RT_MS));
	ASSERT_EQ(0, rt_submit_key(self->r, b1, 0, 256, RETIRE_DEV_WRITE,
				   0x5001, 0, 5, &j1));
	ASSERT_EQ(0, rt_submit_key(self->r, b2, 0, 256, RETIRE_DEV_WRITE,
				   0x5002, 0, 5, &j2));
	/* a new intent and a new authority while they run */
	ASSERT_EQ(0, retire_bump_epoch(self->r, 5, &e));
	EXPECT_EQ(1, e);
	ASSERT_EQ(0, retire_revoke_authority(self->r, &a));
	EXPECT_EQ(1, a);
	EXPECT_EQ(-EALREADY, retire_cancel_request(self->r, j2));

	ASSERT_EQ(0, rt_wait(self->r, &self->log, j1, RETIRE_REC_TERMINAL, &t1,
			     3000));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, j2, RETIRE_REC_TERMINAL, &t2,
			     3000));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, j2, RETIRE_REC_CANCEL_ACK,
			     &ack, 0));
	EXPECT_EQ(-EALREADY, ack.error);
	EXPECT_LT(rt_index(&self->log, j2, RETIRE_REC_CANCEL_ACK),
		  rt_index(&self->log, j2, RETIRE_REC_TERMINAL));
	EXPECT_EQ(0, rt_count(&self->log, j1, RETIRE_REC_CANCEL_ACK));
	/* both stale, neither measured */
	EXPECT_EQ(RETIRE_OUTCOME_STALE, t1.outcome);
	EXPECT_EQ(RETIRE_OUTCOME_STALE, t2.outcome);
	EXPECT_TRUE(NOT_MEASURED(t1));
	EXPECT_TRUE(NOT_MEASURED(t2));
	EXPECT_FALSE(t1.flags & RETIRE_CQE_F_CANCEL_REQUESTED);
	EXPECT_TRUE(t2.flags & RETIRE_CQE_F_CANCEL_REQUESTED);
	/* both transfers completed: the device wrote its bytes */
	EXPECT_EQ(-1, rt_check_pattern(m1, 256, 0x5001));
	EXPECT_EQ(-1, rt_check_pattern(m2, 256, 0x5002));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(before.completed + 2, st.completed);
	EXPECT_EQ(before.stale_published + 2, st.stale_published);
	EXPECT_EQ(before.published, st.published);
	EXPECT_EQ(before.cancel_already + 1, st.cancel_already);
	EXPECT_EQ(before.failed, st.failed);
	EXPECT_EQ(before.cancelled, st.cancelled);

	/* each retires exactly once; ownership is released once */
	ASSERT_EQ(0, retire_release_request(self->r, j1));
	ASSERT_EQ(0, retire_release_request(self->r, j2));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, j1, RETIRE_REC_RETIRED, &c,
			     1000));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, j2, RETIRE_REC_RETIRED, &c,
			     1000));
	EXPECT_EQ(-ENOENT, retire_release_request(self->r, j1));
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 100));
	EXPECT_EQ(1, rt_count(&self->log, j1, RETIRE_REC_RETIRED));
	EXPECT_EQ(1, rt_count(&self->log, j2, RETIRE_REC_RETIRED));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(before.retired + 2, st.retired);
	EXPECT_EQ(0, st.owned_bytes);
	EXPECT_EQ(0, st.physical_outstanding);
	EXPECT_EQ(512, st.owned_bytes_hwm);

	/* a late duplicate finish of J1: rejected, counted, nothing else */
	ASSERT_EQ(0, rt_stats(self->r, &before));
	ASSERT_EQ(0, rt_mstats(self->r, &mb));
	EXPECT_EQ(-ENOENT, retire_inject_sim_event(self->r, j1, 0));
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(before.stale_engine + 1, st.stale_engine);
	EXPECT_STATS_SAME_BUT(before, st, "stale_engine");
	ASSERT_EQ(0, rt_mstats(self->r, &m));
	EXPECT_EQ(mb.stale_engine + 1, m.stale_engine);
	ASSERT_EQ(0, rt_collect(self->r, &self->log, 50));
	/* J1's records are its TERMINAL and its RETIRED, nothing new */
	EXPECT_EQ(2, rt_count_any(&self->log, j1));

	/* J3 queued behind J4 (max_active 1), cancelled before it starts */
	ASSERT_EQ(0, retire_get_limits(self->r, &l));
	l.max_active = 1;
	l.max_active_per_key = 1;
	ASSERT_EQ(0, retire_set_limits(self->r, &l));
	ASSERT_EQ(0, rt_stats(self->r, &before));
	ASSERT_EQ(0, rt_submit_key(self->r, b4, 0, 256, RETIRE_DEV_WRITE,
				   0x5004, 0, 6, &j4));
	ASSERT_EQ(0, rt_submit_key(self->r, b3, 0, 256, RETIRE_DEV_WRITE,
				   0x5003, 0, 6, &j3));
	EXPECT_EQ(0, retire_cancel_request(self->r, j3));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, j3, RETIRE_REC_TERMINAL, &t3,
			     1000));
	/* at once: before the job in front of it has finished */
	EXPECT_EQ(-1, rt_index(&self->log, j4, RETIRE_REC_TERMINAL));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, j3, RETIRE_REC_CANCEL_ACK,
			     &ack, 0));
	EXPECT_EQ(0, ack.error);
	EXPECT_LT(rt_index(&self->log, j3, RETIRE_REC_CANCEL_ACK),
		  rt_index(&self->log, j3, RETIRE_REC_TERMINAL));
	EXPECT_EQ(RETIRE_OUTCOME_CANCELLED, t3.outcome);
	EXPECT_TRUE(NOT_MEASURED(t3));
	retire_after_terminal(_metadata, self, j3, NULL);
	/* J4 was admitted after the bump and the revoke: published */
	retire_after_terminal(_metadata, self, j4, &t4);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, t4.outcome);
	ASSERT_EQ(0, rt_stats(self->r, &st));
	EXPECT_EQ(before.cancel_ok + 1, st.cancel_ok);
	EXPECT_EQ(before.cancelled + 1, st.cancelled);
	EXPECT_EQ(before.completed + 1, st.completed);
	EXPECT_EQ(before.published + 1, st.published);
	EXPECT_EQ(before.stale_published, st.stale_published);
	EXPECT_EQ(st.admitted, st.retired);
	EXPECT_EQ(0, st.owned_bytes);
	munmap(m1, RT_PAGE);
	munmap(m2, RT_PAGE);
}

TEST_HARNESS_MAIN
