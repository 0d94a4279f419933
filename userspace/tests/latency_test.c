// SPDX-License-Identifier: MIT
/*
 * The latency API on its own, and a program built as libretire's users
 * build one. make check runs it twice: built against the uninstalled
 * library (userspace/Makefile's tests/latency_test, a host check of its
 * own), and built against a DESTDIR install, shared and with libretire.a,
 * with nothing but pkg-config's flags (scripts/install-test.sh):
 *
 *	cc $(pkg-config --cflags libretire) latency_test.c \
 *		$(pkg-config --libs libretire) -pthread
 *
 * It needs no /dev/retire: it exercises the latency API for real (nearest
 * rank, unknown, the averaged-p95 counterexample, full sets, merges,
 * copies, bad arguments, threads) and checks that opening a missing device
 * fails as documented. Prints one line per failed check and a summary;
 * exits 1 if any failed.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libretire.h>

#define MS	1000000ULL

static int failures, checks;

#define CHECK(cond, ...)						\
	do {								\
		checks++;						\
		if (!(cond)) {						\
			failures++;					\
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__,	\
			       #cond);					\
			printf(__VA_ARGS__);				\
			putchar('\n');					\
		}							\
	} while (0)

/* the error a call returned, by name, for the messages */
static const char *err_name(int ret)
{
	static char buf[64];

	if (ret >= 0) {
		snprintf(buf, sizeof(buf), "%d", ret);
		return buf;
	}
	snprintf(buf, sizeof(buf), "-%d (%s)", -ret, strerror(-ret));
	return buf;
}

static struct retire_latency *create(size_t cap)
{
	struct retire_latency *l = NULL;
	int ret;

	ret = retire_create_latency(&l, cap);
	if (ret || !l) {
		printf("FATAL retire_create_latency(%zu): %s\n", cap,
		       err_name(ret));
		exit(1);
	}
	return l;
}

static void expect_pct(struct retire_latency *l, double pct, __u64 want,
		       const char *what)
{
	__u64 ns = ~0ULL;
	int ret;

	ret = retire_get_percentile(l, pct, &ns);
	CHECK(ret == 0 && ns == want, "%s: p%g = %llu (ret %s), want %llu",
	      what, pct, (unsigned long long)ns, err_name(ret),
	      (unsigned long long)want);
}

static void expect_count(struct retire_latency *l, size_t nr, size_t dropped,
			 const char *what)
{
	size_t n = ~(size_t)0, d = ~(size_t)0;
	int ret;

	ret = retire_count_latency(l, &n, &d);
	CHECK(ret == 0 && n == nr && d == dropped,
	      "%s: count %zu dropped %zu (ret %s), want %zu and %zu", what, n,
	      d, err_name(ret), nr, dropped);
}

static void expect_unknown(struct retire_latency *l, const char *what)
{
	__u64 ns = 12345;
	int ret;

	ret = retire_get_percentile(l, 95, &ns);
	CHECK(ret == -ENODATA && ns == 12345,
	      "%s: p95 of no observation: %s, want -ENODATA and no value",
	      what, err_name(ret));
}

/* nearest rank: the ceil(pct/100 * n)-th smallest, on sets of known shape */
static void test_nearest_rank(void)
{
	static const __u64 five[] = { 40, 10, 50, 30, 20 };
	struct retire_latency *l;
	unsigned int i;

	l = create(1000);
	for (i = 0; i < 5; i++)
		CHECK(retire_add_latency(l, five[i]) == 0, "add %u", i);
	expect_count(l, 5, 0, "five");
	expect_pct(l, 1, 10, "five");
	expect_pct(l, 20, 10, "five");		/* rank 1 exactly */
	expect_pct(l, 20.5, 20, "five");	/* rank ceil(1.025) = 2 */
	expect_pct(l, 40, 20, "five");
	expect_pct(l, 50, 30, "five");		/* rank ceil(2.5) = 3 */
	expect_pct(l, 60, 30, "five");
	expect_pct(l, 80, 40, "five");
	expect_pct(l, 95, 50, "five");
	expect_pct(l, 100, 50, "five");

	/* 1..100, added backwards: pN is N, never an interpolation */
	CHECK(retire_reset_latency(l) == 0, "reset");
	for (i = 100; i >= 1; i--)
		retire_add_latency(l, i);
	expect_pct(l, 50, 50, "1..100");
	expect_pct(l, 95, 95, "1..100");
	expect_pct(l, 99, 99, "1..100");
	expect_pct(l, 99.5, 100, "1..100");
	expect_pct(l, 0.5, 1, "1..100");
	expect_pct(l, 100, 100, "1..100");

	/* 1..1000: p99.9 is the 999th */
	CHECK(retire_reset_latency(l) == 0, "reset");
	for (i = 1; i <= 1000; i++)
		retire_add_latency(l, i);
	expect_pct(l, 99.9, 999, "1..1000");
	expect_pct(l, 95, 950, "1..1000");
	expect_pct(l, 0.1, 1, "1..1000");

	/* one observation is every percentile */
	CHECK(retire_reset_latency(l) == 0, "reset");
	retire_add_latency(l, 7 * MS);
	expect_pct(l, 0.001, 7 * MS, "one");
	expect_pct(l, 50, 7 * MS, "one");
	expect_pct(l, 100, 7 * MS, "one");

	/* duplicates and the largest value */
	CHECK(retire_reset_latency(l) == 0, "reset");
	retire_add_latency(l, ~0ULL);
	retire_add_latency(l, 0);
	retire_add_latency(l, 0);
	expect_pct(l, 66, 0, "dups");
	expect_pct(l, 67, ~0ULL, "dups");
	retire_destroy_latency(l);
}

static void test_unknown(void)
{
	struct retire_latency *l = create(4);

	expect_unknown(l, "new set");
	retire_add_latency(l, 5);
	expect_pct(l, 95, 5, "one added");
	CHECK(retire_reset_latency(l) == 0, "reset");
	expect_unknown(l, "after reset");
	expect_count(l, 0, 0, "after reset");
	retire_destroy_latency(l);
}

/*
 * Percentiles do not average: 100 observations of 0 ms and 100 of 100 ms. Each
 * cohort's p95 is 0 and 100 ms; the p95 of both is 100 ms (rank 190 of
 * 200), not 50 ms, which averaging the two percentiles would claim.
 */
static void test_percentiles_do_not_average(void)
{
	struct retire_latency *a = create(100), *b = create(100);
	struct retire_latency *all = create(200);
	unsigned int i;
	__u64 pa = 1, pb = 1, p = 1;
	int ret;

	for (i = 0; i < 100; i++) {
		CHECK(retire_add_latency(a, 0) == 0, "add a %u", i);
		CHECK(retire_add_latency(b, 100 * MS) == 0, "add b %u", i);
	}
	expect_count(a, 100, 0, "cohort a");
	expect_pct(a, 95, 0, "cohort a (0 ms)");
	expect_pct(b, 95, 100 * MS, "cohort b (100 ms)");

	ret = retire_merge_latency(all, a);
	CHECK(ret == 0, "merge a: %s", err_name(ret));
	ret = retire_merge_latency(all, b);
	CHECK(ret == 0, "merge b: %s", err_name(ret));
	expect_count(all, 200, 0, "merged");
	expect_pct(all, 95, 100 * MS, "merged");
	expect_pct(all, 50, 0, "merged");
	expect_pct(all, 50.5, 100 * MS, "merged");

	retire_get_percentile(a, 95, &pa);
	retire_get_percentile(b, 95, &pb);
	retire_get_percentile(all, 95, &p);
	CHECK(p != (pa + pb) / 2 && (pa + pb) / 2 == 50 * MS,
	      "the merged p95 (%llu) is not the average of the cohorts' (%llu)",
	      (unsigned long long)p, (unsigned long long)((pa + pb) / 2));

	/* the sources are untouched */
	expect_count(a, 100, 0, "cohort a after merge");
	expect_count(b, 100, 0, "cohort b after merge");
	retire_destroy_latency(a);
	retire_destroy_latency(b);
	retire_destroy_latency(all);
}

static void test_full(void)
{
	struct retire_latency *l = create(3);
	__u64 got[8];
	int ret;

	CHECK(retire_add_latency(l, 1) == 0, "add 1");
	CHECK(retire_add_latency(l, 2) == 0, "add 2");
	CHECK(retire_add_latency(l, 3) == 0, "add 3");
	ret = retire_add_latency(l, 4);
	CHECK(ret == -ENOSPC, "add to a full set: %s, want -ENOSPC",
	      err_name(ret));
	ret = retire_add_latency(l, 0);
	CHECK(ret == -ENOSPC, "add to a full set: %s, want -ENOSPC",
	      err_name(ret));
	expect_count(l, 3, 2, "full");
	/* what was dropped changes no percentile */
	expect_pct(l, 100, 3, "full");
	expect_pct(l, 1, 1, "full");
	ret = retire_copy_latency(l, got, 8);
	CHECK(ret == 3 && got[0] == 1 && got[1] == 2 && got[2] == 3,
	      "copy of a full set: %s", err_name(ret));

	/* a count may ask for one of the two */
	{
		size_t n = 0, d = 0;

		CHECK(retire_count_latency(l, &n, NULL) == 0 && n == 3,
		      "count without dropped: %zu", n);
		CHECK(retire_count_latency(l, NULL, &d) == 0 && d == 2,
		      "count without nr: %zu", d);
	}

	CHECK(retire_reset_latency(l) == 0, "reset");
	expect_count(l, 0, 0, "reset clears dropped");
	CHECK(retire_add_latency(l, 9) == 0, "add after reset");
	expect_pct(l, 50, 9, "after reset");
	retire_destroy_latency(l);
}

/* a merge that does not fit changes nothing, in either set */
static void test_merge(void)
{
	struct retire_latency *dst = create(4), *src = create(8);
	struct retire_latency *big = create(2);
	__u64 got[8];
	int ret, i;

	for (i = 1; i <= 3; i++)
		retire_add_latency(dst, i);
	retire_add_latency(src, 10);
	retire_add_latency(src, 20);
	ret = retire_merge_latency(dst, src);
	CHECK(ret == -ENOSPC, "merge of 2 into 1 free: %s, want -ENOSPC",
	      err_name(ret));
	expect_count(dst, 3, 0, "dst after a refused merge");
	expect_count(src, 2, 0, "src after a refused merge");
	ret = retire_copy_latency(dst, got, 8);
	CHECK(ret == 3 && got[0] == 1 && got[1] == 2 && got[2] == 3,
	      "dst's observations after a refused merge: %s", err_name(ret));
	expect_pct(dst, 100, 3, "dst after a refused merge");

	/* one that fits exactly, dropped counts coming along */
	retire_add_latency(big, 100);
	retire_add_latency(big, 200);
	CHECK(retire_add_latency(big, 300) == -ENOSPC, "big is full");
	ret = retire_merge_latency(src, big);
	CHECK(ret == 0, "merge of 2 into 6 free: %s", err_name(ret));
	expect_count(src, 4, 1, "src after a merge");
	expect_pct(src, 100, 200, "src after a merge");
	expect_pct(src, 25, 10, "src after a merge");

	/* merging an empty set changes nothing */
	CHECK(retire_reset_latency(big) == 0, "reset big");
	ret = retire_merge_latency(dst, big);
	CHECK(ret == 0, "merge of an empty set: %s", err_name(ret));
	expect_count(dst, 3, 0, "dst after an empty merge");

	/* exactly full */
	retire_add_latency(big, 4);
	ret = retire_merge_latency(dst, big);
	CHECK(ret == 0, "merge to exactly full: %s", err_name(ret));
	expect_count(dst, 4, 0, "exactly full");
	expect_pct(dst, 100, 4, "exactly full");

	retire_destroy_latency(dst);
	retire_destroy_latency(src);
	retire_destroy_latency(big);
}

static void test_copy(void)
{
	struct retire_latency *l = create(16);
	__u64 got[16];
	int ret, i;

	ret = retire_copy_latency(l, got, 16);
	CHECK(ret == 0, "copy of an empty set: %s", err_name(ret));
	ret = retire_copy_latency(l, NULL, 0);
	CHECK(ret == 0, "copy of nothing: %s", err_name(ret));
	for (i = 0; i < 10; i++)
		retire_add_latency(l, 100 - i);
	memset(got, 0xff, sizeof(got));
	ret = retire_copy_latency(l, got, 4);
	CHECK(ret == 4, "copy of 4 of 10: %s", err_name(ret));
	for (i = 0; i < 4; i++)
		CHECK(got[i] == (__u64)(100 - i),
		      "copy keeps arrival order: [%d] = %llu", i,
		      (unsigned long long)got[i]);
	CHECK(got[4] == ~0ULL, "copy writes no more than asked");
	ret = retire_copy_latency(l, got, 16);
	CHECK(ret == 10 && got[9] == 91, "copy of all: %s", err_name(ret));
	ret = retire_copy_latency(l, NULL, 0);
	CHECK(ret == 0, "copy of none of 10: %s", err_name(ret));
	retire_destroy_latency(l);
}

static void test_bad_arguments(void)
{
	struct retire_latency *l = create(4), *keep = l, *none = NULL;
	struct retire *r = NULL;
	struct retire_history_event ev[1];
	size_t n;
	__u64 ns = 0, v[1];
	int ret;

#define EXPECT_EINVAL(call)						\
	do {								\
		ret = (call);						\
		CHECK(ret == -EINVAL, "%s", err_name(ret));		\
	} while (0)

	EXPECT_EINVAL(retire_create_latency(NULL, 4));
	EXPECT_EINVAL(retire_create_latency(&none, 0));
	EXPECT_EINVAL(retire_create_latency(&none, (size_t)-1));
	CHECK(!none, "a refused create leaves the pointer alone");
	EXPECT_EINVAL(retire_add_latency(NULL, 1));
	EXPECT_EINVAL(retire_reset_latency(NULL));
	EXPECT_EINVAL(retire_count_latency(NULL, &n, NULL));
	EXPECT_EINVAL(retire_count_latency(l, NULL, NULL));
	EXPECT_EINVAL(retire_copy_latency(NULL, v, 1));
	EXPECT_EINVAL(retire_copy_latency(l, NULL, 1));
	EXPECT_EINVAL(retire_merge_latency(NULL, l));
	EXPECT_EINVAL(retire_merge_latency(l, NULL));
	EXPECT_EINVAL(retire_merge_latency(l, l));
	retire_add_latency(l, 1);
	EXPECT_EINVAL(retire_get_percentile(NULL, 50, &ns));
	EXPECT_EINVAL(retire_get_percentile(l, 50, NULL));
	EXPECT_EINVAL(retire_get_percentile(l, 0, &ns));
	EXPECT_EINVAL(retire_get_percentile(l, -1, &ns));
	EXPECT_EINVAL(retire_get_percentile(l, 100.0001, &ns));
	EXPECT_EINVAL(retire_get_percentile(l, NAN, &ns));
	EXPECT_EINVAL(retire_get_percentile(l, INFINITY, &ns));
	EXPECT_EINVAL(retire_track_latency(NULL, l));
	EXPECT_EINVAL(retire_open_device(NULL, "/dev/null", 0));
	EXPECT_EINVAL(retire_get_fd(NULL));
	EXPECT_EINVAL(retire_open_netlink(NULL));
	EXPECT_EINVAL(retire_open_monitor(NULL, RETIRE_MONITOR_STALE));
	/* 1.3: the history's event under the name libretire.h gives it */
	EXPECT_EINVAL(retire_read_history(NULL, 0, NULL, 0, NULL));
	EXPECT_EINVAL(retire_read_history(NULL, 1, ev, 1, NULL));
#undef EXPECT_EINVAL
	CHECK(l == keep, "the set is the same");
	expect_count(l, 1, 0, "after the bad calls");
	/* destroying nothing is allowed */
	retire_destroy_latency(NULL);
	retire_close_device(r);
	retire_close_netlink(NULL);
	retire_close_monitor(NULL);
	retire_destroy_latency(l);
}

#define THREADS		4
#define PER_THREAD	20000

struct adder {
	struct retire_latency *l;
	unsigned int id;
	unsigned int refused;
	int bad;
};

static void *add_many(void *arg)
{
	struct adder *a = arg;
	unsigned int i;
	int ret;

	for (i = 0; i < PER_THREAD; i++) {
		ret = retire_add_latency(a->l, a->id * PER_THREAD + i);
		if (ret == -ENOSPC)
			a->refused++;
		else if (ret)
			a->bad++;
	}
	return NULL;
}

/* readers while the adders run: every answer is an observation or unknown */
static void *read_many(void *arg)
{
	struct adder *a = arg;
	unsigned int i;
	__u64 ns;
	int ret;

	for (i = 0; i < 200; i++) {
		ret = retire_get_percentile(a->l, 99, &ns);
		if (ret == -ENODATA)
			continue;
		if (ret || ns >= (__u64)THREADS * PER_THREAD)
			a->bad++;
	}
	return NULL;
}

static void run_threads(size_t cap)
{
	struct retire_latency *l = create(cap);
	struct adder a[THREADS + 1];
	pthread_t t[THREADS + 1];
	__u64 *all;
	size_t n, total = (size_t)THREADS * PER_THREAD;
	size_t want = cap < total ? cap : total;
	unsigned int i, refused = 0;
	unsigned char *seen;
	int ret, bad = 0;

	for (i = 0; i <= THREADS; i++) {
		a[i] = (struct adder){ .l = l, .id = i };
		ret = pthread_create(&t[i], NULL,
				     i < THREADS ? add_many : read_many, &a[i]);
		if (ret) {
			printf("FATAL pthread_create: %s\n", strerror(ret));
			exit(1);
		}
	}
	for (i = 0; i <= THREADS; i++) {
		pthread_join(t[i], NULL);
		refused += a[i].refused;
		bad += a[i].bad;
	}
	CHECK(!bad, "cap %zu: %d unexpected results", cap, bad);
	CHECK(refused == total - want,
	      "cap %zu: %u adds refused, want %zu", cap, refused,
	      total - want);
	expect_count(l, want, total - want, "threads");

	/* every value kept is one that was added, and at most once */
	all = calloc(want ? want : 1, sizeof(*all));
	seen = calloc(total, 1);
	if (!all || !seen) {
		printf("FATAL out of memory\n");
		exit(1);
	}
	ret = retire_copy_latency(l, all, want);
	CHECK(ret == (int)want, "copy: %s", err_name(ret));
	for (n = 0, bad = 0; n < want; n++) {
		if (all[n] >= total || seen[all[n]]++)
			bad++;
	}
	CHECK(!bad, "cap %zu: %d observations lost, doubled or invented",
	      cap, bad);
	if (want == total)
		expect_pct(l, 100, total - 1, "threads");
	free(seen);
	free(all);
	retire_destroy_latency(l);
}

static void test_threads(void)
{
	run_threads((size_t)THREADS * PER_THREAD);
	run_threads((size_t)THREADS * PER_THREAD * 3 / 4);
}

static void test_no_device(void)
{
	struct retire *r = (struct retire *)&r;
	int ret;

	ret = retire_open_device(&r, "/nonexistent/retire", 0);
	CHECK(ret == -ENOENT, "retire_open_device(/nonexistent/retire): %s, want -ENOENT",
	      err_name(ret));
	CHECK(r == (struct retire *)&r,
	      "a failed open leaves the handle pointer alone");
	ret = retire_open_device(&r, "/dev/null", 1);
	CHECK(ret == -EINVAL, "retire_open_device with flags 1: %s",
	      err_name(ret));
}

/* a pure helper of the header: fills an sqe, zeroing everything else */
static void test_prep_request(void)
{
	struct retire_sqe sqe;

	memset(&sqe, 0xa5, sizeof(sqe));
	retire_prep_request(&sqe, 1, 2, 3, RETIRE_DEV_READ, 4);
	CHECK(sqe.buf == 1 && sqe.offset == 2 && sqe.len == 3 &&
	      sqe.dev_flags == RETIRE_DEV_READ && sqe.user_data == 4 &&
	      !sqe.deadline_ns && !sqe.key && !sqe.flags && !sqe.handle &&
	      !sqe.result && !sqe.pad && !sqe.reserved[0] &&
	      !sqe.reserved[1], "retire_prep_request");
}

int main(void)
{
	test_nearest_rank();
	test_unknown();
	test_percentiles_do_not_average();
	test_full();
	test_merge();
	test_copy();
	test_bad_arguments();
	test_threads();
	test_no_device();
	test_prep_request();

	printf("%s: %d checks, %d failed\n", failures ? "FAIL" : "ok",
	       checks, failures);
	return failures ? 1 : 0;
}
