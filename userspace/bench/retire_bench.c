// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * retire_bench: what a request costs in retire, next to what io_uring
 * costs for the nearest thing it does, on the same kernel in the same
 * boot. Every row is measured R times, the rows interleaved (row 1, row 2,
 * ..., row 1, row 2, ...) so that a slow stretch of the machine hits every
 * row alike; each prints its median, its spread (min-max) and the ratio of
 * medians against its io_uring anchor.
 *
 * Exit status: 0, or 1 on an error (a refused request, a record out of
 * place, a failed syscall). Never on a ratio: these machines are noisy and
 * ratios are read, not asserted.
 *
 * Needs root (the sim engine's knobs are module-wide) and a module loaded
 * with caps large enough for --live (scripts/bench.sh loads it so).
 */
#include <errno.h>
#include <getopt.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "libretire.h"

#define REQ_LEN		64	/* a cache line: the device reads it */
#define MAX_ROWS	24
#define MAX_REPS	64

static unsigned int reqs_per_sample = 16384;
static unsigned int reps = 5;
static unsigned long live_small = 1000, live_big = 1000000;
static unsigned long mem_n = 100000;

#define die(...) do {						\
	fprintf(stderr, "retire_bench: " __VA_ARGS__);		\
	fputc('\n', stderr);					\
	exit(1);						\
} while (0)

#define check(call) do {					\
	long __r = (call);					\
	if (__r < 0)						\
		die("%s:%d: %s: %s", __FILE__, __LINE__, #call,	\
		    strerror((int)-__r));			\
} while (0)

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ---- retire: contexts, buffers, the engine ----------------------------- */

struct rctx {
	struct retire *r;
	struct retire_queue *q;
	__u64 *bufs;		/* FREE buffers for the measured requests */
	unsigned int nbufs;
	__u64 *live;		/* requests kept unretired (scale, memory) */
	unsigned long nlive;
	__u64 *live_bufs;
	unsigned long nlive_bufs;
	void *page;		/* the user pages every buffer pins */
};

#define PIN_PAGES	16	/* buffers spread their pins over these */

static void sim_mode(struct retire *r, int inline_done, __u64 latency_ns)
{
	struct retire_sim_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.flags = inline_done ? RETIRE_SIM_F_INLINE : 0;
	cfg.latency_ns = latency_ns;
	check(retire_set_sim_config(r, &cfg));
}

static void pin_bufs(struct rctx *c, __u64 *out, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		check(retire_pin_buffer(c->r, (char *)c->page +
					(i % PIN_PAGES) * 4096, 4096, &out[i]));
}

static void rctx_open(struct rctx *c, unsigned int nbufs)
{
	memset(c, 0, sizeof(*c));
	check(retire_open_device(&c->r, NULL, 0));
	check(retire_queue_init(c->r, 128, &c->q));
	c->page = mmap(NULL, PIN_PAGES * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (c->page == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	c->bufs = calloc(nbufs, sizeof(*c->bufs));
	if (!c->bufs)
		die("out of memory");
	c->nbufs = nbufs;
	pin_bufs(c, c->bufs, nbufs);
}

/*
 * What every measured request reads: REQ_LEN bytes of the zero pages its
 * buffer pins. A completed TERMINAL record must say so, or the row
 * measured other work than it claims.
 */
static __u64 zero_sum;

static void zero_sum_init(void)
{
	unsigned int i;

	zero_sum = 0xcbf29ce484222325ULL;	/* FNV-1a-64 */
	for (i = 0; i < REQ_LEN; i++)
		zero_sum *= 0x100000001b3ULL;	/* ^= a zero byte: nothing */
}

static void check_read(const struct retire_cqe *cqe)
{
	if (cqe->type != RETIRE_REC_TERMINAL ||
	    cqe->outcome != RETIRE_OUTCOME_COMPLETED)
		return;
	if (cqe->result_len != REQ_LEN || cqe->checksum != zero_sum)
		die("request %#llx: read %llu bytes, checksum %#llx, wanted %u, %#llx",
		    (unsigned long long)cqe->handle,
		    (unsigned long long)cqe->result_len,
		    (unsigned long long)cqe->checksum, REQ_LEN,
		    (unsigned long long)zero_sum);
}

/* an operation's result, after its ENTER: an error ends the bench */
static void check_op(const struct retire_op *op, const char *what)
{
	if (op->result < 0)
		die("%s: %s", what, strerror((int)-op->result));
}

static void expect_rec(const struct retire_cqe *cqe, __u32 type, __u32 outcome)
{
	if (cqe->type != type || (outcome && cqe->outcome != outcome))
		die("record %#llx: type %u outcome %u, wanted %u/%u",
		    (unsigned long long)cqe->handle, cqe->type, cqe->outcome,
		    type, outcome);
	check_read(cqe);
}

#define NR_TYPES	8	/* @types' room: record types below it */

/* drain the queue's records: @want of them, checked, a batch at a time */
static void queue_drain(struct rctx *c, unsigned int want, __u32 *types)
{
	struct retire_cqe *cqes[RETIRE_SUBMIT_MAX];
	unsigned int got = 0, n, i;

	while (got < want) {
		n = retire_queue_peek_batch_cqe(c->q, cqes, RETIRE_SUBMIT_MAX);
		if (!n) {
			check(retire_queue_submit_and_wait(c->q, want - got,
							   UINT64_MAX));
			continue;
		}
		for (i = 0; i < n; i++) {
			if (cqes[i]->type == 0 || cqes[i]->type >= NR_TYPES)
				die("record %#llx: unknown type %u",
				    (unsigned long long)cqes[i]->handle,
				    cqes[i]->type);
			check_read(cqes[i]);
			if (types) {
				types[cqes[i]->type]++;
				/* slot 0 (no type): TERMINALs that retired */
				if (cqes[i]->flags & RETIRE_CQE_F_RETIRED)
					types[0]++;
			}
			if (cqes[i]->type == RETIRE_REC_TERMINAL &&
			    cqes[i]->outcome != RETIRE_OUTCOME_COMPLETED)
				die("request %#llx: outcome %u",
				    (unsigned long long)cqes[i]->handle,
				    cqes[i]->outcome);
		}
		retire_queue_cq_advance(c->q, n);
		got += n;
	}
}

/*
 * The full cycle through the queue: @batch submits (AUTO_RETIRE) in one
 * ENTER that also reaps both records of each: TERMINAL, then RETIRED. With
 * @one, RETIRE_SQE_F_ONE_RECORD: the TERMINAL record says the request
 * retired, and is its only record.
 */
static void cycle_run(struct rctx *c, unsigned int batch, unsigned long n,
		      int one)
{
	struct retire_op *ops[RETIRE_SUBMIT_MAX];
	unsigned int per = one ? 1 : 2, i;
	__u32 types[NR_TYPES];
	unsigned long done;

	for (done = 0; done < n; done += batch) {
		for (i = 0; i < batch; i++) {
			ops[i] = retire_queue_get_op(c->q);
			retire_prep_submit(ops[i], c->bufs[i], 0, REQ_LEN,
					   RETIRE_DEV_READ, i);
			ops[i]->flags = RETIRE_SQE_F_AUTO_RETIRE |
					(one ? RETIRE_SQE_F_ONE_RECORD : 0);
		}
		check(retire_queue_submit_and_wait(c->q, per * batch,
						   UINT64_MAX));
		for (i = 0; i < batch; i++)
			check_op(ops[i], "cycle: submit");
		memset(types, 0, sizeof(types));
		queue_drain(c, per * batch, types);
		if (types[RETIRE_REC_TERMINAL] != batch ||
		    types[RETIRE_REC_RETIRED] != (one ? 0 : batch) ||
		    types[0] != (one ? batch : 0))
			die("cycle: %u TERMINAL (%u retired), %u RETIRED of %u",
			    types[RETIRE_REC_TERMINAL], types[0],
			    types[RETIRE_REC_RETIRED], batch);
	}
}

static void cycle_auto(struct rctx *c, unsigned int batch, unsigned long n)
{
	cycle_run(c, batch, n, 0);
}

static void cycle_one(struct rctx *c, unsigned int batch, unsigned long n)
{
	cycle_run(c, batch, n, 1);
}

/*
 * Take @want records from the queue, waiting as needed, each of @type;
 * their handles go to @h (if not NULL), in the order they came.
 */
static void queue_take(struct rctx *c, unsigned int want, __u32 type,
		       __u32 outcome, __u64 *h)
{
	struct retire_cqe *cqes[RETIRE_SUBMIT_MAX];
	unsigned int got = 0, n, i;

	while (got < want) {
		n = retire_queue_peek_batch_cqe(c->q, cqes, want - got);
		if (!n) {
			check(retire_queue_submit_and_wait(c->q, want - got,
							   UINT64_MAX));
			continue;
		}
		for (i = 0; i < n; i++) {
			expect_rec(cqes[i], type, outcome);
			if (h)
				h[got + i] = cqes[i]->handle;
		}
		retire_queue_cq_advance(c->q, n);
		got += n;
	}
}

/* the same with RETIRE explicit: one ENTER submits and reaps the
 * TERMINALs, a second retires the batch and reaps the RETIREDs */
static void cycle_explicit(struct rctx *c, unsigned int batch,
			   unsigned long n)
{
	struct retire_op *ops[RETIRE_SUBMIT_MAX];
	__u64 h[RETIRE_SUBMIT_MAX];
	unsigned long done;
	unsigned int i;

	for (done = 0; done < n; done += batch) {
		for (i = 0; i < batch; i++) {
			ops[i] = retire_queue_get_op(c->q);
			retire_prep_submit(ops[i], c->bufs[i], 0, REQ_LEN,
					   RETIRE_DEV_READ, i);
		}
		check(retire_queue_submit_and_wait(c->q, batch, UINT64_MAX));
		for (i = 0; i < batch; i++)
			check_op(ops[i], "explicit: submit");
		queue_take(c, batch, RETIRE_REC_TERMINAL,
			   RETIRE_OUTCOME_COMPLETED, h);
		for (i = 0; i < batch; i++) {
			ops[i] = retire_queue_get_op(c->q);
			retire_prep_retire(ops[i], h[i]);
		}
		check(retire_queue_submit_and_wait(c->q, batch, UINT64_MAX));
		for (i = 0; i < batch; i++)
			check_op(ops[i], "explicit: retire");
		queue_take(c, batch, RETIRE_REC_RETIRED, 0, NULL);
	}
}

/* 1.0's path: SUBMIT, REAP, one RETIRE ioctl per request, REAP */
static void cycle_legacy(struct rctx *c, unsigned int batch, unsigned long n)
{
	struct retire_sqe sqes[RETIRE_SUBMIT_MAX];
	struct retire_cqe cqes[RETIRE_SUBMIT_MAX];
	unsigned long done;
	unsigned int i;

	for (done = 0; done < n; done += batch) {
		for (i = 0; i < batch; i++)
			retire_prep_request(&sqes[i], c->bufs[i], 0, REQ_LEN,
					    RETIRE_DEV_READ, i);
		if (retire_submit_requests(c->r, sqes, batch) != (int)batch)
			die("legacy submit refused");
		if (retire_reap_records(c->r, cqes, batch, batch,
					UINT64_MAX) != (int)batch)
			die("legacy reap short");
		for (i = 0; i < batch; i++) {
			expect_rec(&cqes[i], RETIRE_REC_TERMINAL,
				   RETIRE_OUTCOME_COMPLETED);
			check(retire_retire_request(c->r, cqes[i].handle));
		}
		if (retire_reap_records(c->r, cqes, batch, batch,
					UINT64_MAX) != (int)batch)
			die("legacy reap of RETIRED short");
	}
}

/*
 * Cancel of a queued request through retirement: @batch submits (with
 * AUTO_RETIRE and ONE_RECORD) that wait behind the context's one active
 * request, then one ENTER cancelling them and reaping, for each, its
 * CANCEL_ACK and its TERMINAL (cancelled), which says it retired: two
 * records, as io_uring's read and cancel make two CQEs.
 */
static void cycle_cancel(struct rctx *c, unsigned int batch, unsigned long n)
{
	struct retire_op *ops[RETIRE_SUBMIT_MAX];
	struct retire_cqe *cqes[RETIRE_SUBMIT_MAX];
	__u64 h[RETIRE_SUBMIT_MAX];
	unsigned long done;
	unsigned int i, got, k;

	for (done = 0; done < n; done += batch) {
		for (i = 0; i < batch; i++) {
			ops[i] = retire_queue_get_op(c->q);
			retire_prep_submit(ops[i], c->bufs[i], 0, REQ_LEN,
					   RETIRE_DEV_READ, i);
			ops[i]->flags = RETIRE_SQE_F_AUTO_RETIRE |
					RETIRE_SQE_F_ONE_RECORD;
		}
		check(retire_queue_submit_and_wait(c->q, 0, 0));
		for (i = 0; i < batch; i++) {
			if (ops[i]->result)
				die("cancel row: submit: %s",
				    strerror(-ops[i]->result));
			h[i] = ops[i]->handle;
		}
		for (i = 0; i < batch; i++)
			retire_prep_cancel(retire_queue_get_op(c->q), h[i]);
		check(retire_queue_submit_and_wait(c->q, 2 * batch,
						   UINT64_MAX));
		for (got = 0; got < 2 * batch; got += k) {
			k = retire_queue_peek_batch_cqe(c->q, cqes,
							2 * batch - got);
			if (!k)
				check(retire_queue_submit_and_wait(c->q,
								   2 * batch - got,
								   UINT64_MAX));
			for (i = 0; i < k; i++)
				if (cqes[i]->type == RETIRE_REC_TERMINAL &&
				    (cqes[i]->outcome != RETIRE_OUTCOME_CANCELLED ||
				     !(cqes[i]->flags & RETIRE_CQE_F_RETIRED)))
					die("cancel: outcome %u flags %#x",
					    cqes[i]->outcome, cqes[i]->flags);
			retire_queue_cq_advance(c->q, k);
		}
	}
}

/* a request that holds the device for an hour: the others wait behind it */
static void cancel_ctx_setup(struct rctx *c)
{
	struct retire_limits l;
	struct retire_op op;

	check(retire_get_limits(c->r, &l));
	l.max_active = 1;
	l.max_active_per_key = 1;
	check(retire_set_limits(c->r, &l));
	sim_mode(c->r, 0, 3600ULL * 1000000000ULL);
	retire_prep_submit(&op, c->bufs[c->nbufs - 1], 0, REQ_LEN,
			   RETIRE_DEV_READ, 0xb10c);
	check(retire_enter(c->r, &op, 1, NULL, 0, 0, 0));
	if (op.result)
		die("blocker: %s", strerror(-op.result));
	c->nbufs--;
}

/* buffers (and room for handles) for @n live requests, made outside any timing */
static void ensure_bufs(struct rctx *c, unsigned long n)
{
	if (n <= c->nlive_bufs)
		return;
	c->live = realloc(c->live, n * sizeof(*c->live));
	c->live_bufs = realloc(c->live_bufs, n * sizeof(*c->live_bufs));
	if (!c->live || !c->live_bufs)
		die("out of memory");
	pin_bufs(c, c->live_bufs + c->nlive_bufs, n - c->nlive_bufs);
	c->nlive_bufs = n;
}

/* keep @n requests unretired in @c: submitted, completed, TERMINAL read */
static void make_live(struct rctx *c, unsigned long n)
{
	struct retire_op ops[RETIRE_SUBMIT_MAX];
	struct retire_cqe cqes[RETIRE_SUBMIT_MAX];
	unsigned long i;
	unsigned int b, j;
	int got;

	ensure_bufs(c, n);
	for (i = c->nlive; i < n; i += b) {
		b = n - i < RETIRE_SUBMIT_MAX ? n - i : RETIRE_SUBMIT_MAX;
		for (j = 0; j < b; j++)
			retire_prep_submit(&ops[j], c->live_bufs[i + j], 0,
					   REQ_LEN, RETIRE_DEV_READ, i + j);
		got = retire_enter(c->r, ops, b, cqes, b, b, UINT64_MAX);
		check(got);
		if (got != (int)b)
			die("live: %d of %u records", got, b);
		for (j = 0; j < b; j++) {
			check_op(&ops[j], "live: submit");
			expect_rec(&cqes[j], RETIRE_REC_TERMINAL,
				   RETIRE_OUTCOME_COMPLETED);
			c->live[i + j] = ops[j].handle;
		}
	}
	c->nlive = n;
}

/* retire every live request of @c */
static void drop_live(struct rctx *c)
{
	struct retire_op ops[RETIRE_SUBMIT_MAX];
	struct retire_cqe cqes[RETIRE_SUBMIT_MAX];
	unsigned long i;
	unsigned int b, j;

	for (i = 0; i < c->nlive; i += b) {
		b = c->nlive - i < RETIRE_SUBMIT_MAX ? c->nlive - i :
						       RETIRE_SUBMIT_MAX;
		for (j = 0; j < b; j++)
			retire_prep_retire(&ops[j], c->live[i + j]);
		if (retire_enter(c->r, ops, b, cqes, b, b, UINT64_MAX) != (int)b)
			die("drop live: short");
		for (j = 0; j < b; j++)
			check_op(&ops[j], "drop live: retire");
	}
	c->nlive = 0;
}

/* ---- io_uring anchors ---------------------------------------------------- */

static struct io_uring ring;
static int pipefd[2];

/*
 * Reap @want CQEs, each checked: a NOP's res is 0; a cancel (user_data 1)
 * found its read (0) and the read ended cancelled (-ECANCELED).
 */
static void uring_reap(unsigned int want)
{
	struct io_uring_cqe *cqe;
	unsigned int got = 0, head, n;
	int want_res;

	while (got < want) {
		check(io_uring_wait_cqe_nr(&ring, &cqe, 1));
		n = 0;
		io_uring_for_each_cqe(&ring, head, cqe) {
			want_res = cqe->user_data >= 1000 ? -ECANCELED : 0;
			if (cqe->res != want_res)
				die("io_uring: user_data %llu: res %d, wanted %d",
				    (unsigned long long)cqe->user_data,
				    cqe->res, want_res);
			n++;
		}
		io_uring_cq_advance(&ring, n);
		got += n;
	}
}

static void uring_nop(unsigned int batch, unsigned long n)
{
	struct io_uring_sqe *sqe;
	unsigned long done;
	unsigned int i;

	for (done = 0; done < n; done += batch) {
		for (i = 0; i < batch; i++) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_nop(sqe);
			sqe->user_data = 0;	/* the slot may hold a read's */
		}
		check(io_uring_submit_and_wait(&ring, batch));
		uring_reap(batch);
	}
}

/* a read of an empty pipe, pending, then ASYNC_CANCEL: both CQEs reaped */
static void uring_cancel(unsigned int batch, unsigned long n)
{
	static char sink[64];
	struct io_uring_sqe *sqe;
	unsigned long done;
	unsigned int i;

	for (done = 0; done < n; done += batch) {
		for (i = 0; i < batch; i++) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_read(sqe, pipefd[0], sink, sizeof(sink), 0);
			sqe->user_data = 1000 + i;
		}
		check(io_uring_submit(&ring));
		for (i = 0; i < batch; i++) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_cancel64(sqe, 1000 + i, 0);
			sqe->user_data = 1;
		}
		check(io_uring_submit_and_wait(&ring, 2 * batch));
		uring_reap(2 * batch);
	}
}

/* ---- memory ---------------------------------------------------------- */

static long meminfo_kb(const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) &&
		    line[strlen(key)] == ':')
			v = strtol(line + strlen(key) + 1, NULL, 10);
	fclose(f);
	return v;
}

/* kernel memory in use, bytes: what MemFree lost (slab and pages alike) */
static double kernel_used(void)
{
	return (meminfo_kb("MemTotal") - meminfo_kb("MemFree")) * 1024.0;
}

/*
 * A fresh context, so its slot chunks are new too: buffers pinned first,
 * then @mem_n requests made unretired between two readings of MemFree.
 */
static double mem_retire(void)
{
	double before, after;
	struct rctx c;

	rctx_open(&c, 1);
	ensure_bufs(&c, mem_n);
	usleep(200000);
	before = kernel_used();
	make_live(&c, mem_n);
	after = kernel_used();
	drop_live(&c);
	retire_queue_exit(c.q);
	retire_close_device(c.r);
	free(c.bufs);
	free(c.live);
	free(c.live_bufs);
	munmap(c.page, PIN_PAGES * 4096);
	/* its teardown runs in the module's work items: let it finish */
	usleep(500000);
	return (after - before) / mem_n;
}

/* pending pipe reads: what one io_uring request in flight costs */
static double mem_uring(void)
{
	static char sink[64];
	struct io_uring r2;
	unsigned long n = mem_n < 16384 ? mem_n : 16384, i;
	double before, after;
	int p[2];

	check(pipe(p));
	check(io_uring_queue_init(32768, &r2, 0));
	usleep(200000);
	before = kernel_used();
	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&r2);

		if (!sqe) {
			check(io_uring_submit(&r2));
			sqe = io_uring_get_sqe(&r2);
		}
		io_uring_prep_read(sqe, p[0], sink, sizeof(sink), 0);
	}
	check(io_uring_submit(&r2));
	usleep(200000);
	after = kernel_used();
	io_uring_queue_exit(&r2);
	close(p[0]);
	close(p[1]);
	/* the ring's teardown is deferred to a work item: let it finish */
	usleep(500000);
	return (after - before) / n;
}

/* ---- rows ------------------------------------------------------------ */

struct row {
	const char *name;
	const char *anchor_name;
	int anchor;		/* index of the anchor row, -1 for none */
	int unit_bytes;
	double v[MAX_REPS];
};

static struct row rows[MAX_ROWS];
static unsigned int nrows;

static int row_add(const char *name, const char *anchor_name, int anchor)
{
	rows[nrows].name = name;
	rows[nrows].anchor_name = anchor_name;
	rows[nrows].anchor = anchor;
	return nrows++;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const struct row *r, double *lo, double *hi)
{
	double s[MAX_REPS];

	memcpy(s, r->v, reps * sizeof(double));
	qsort(s, reps, sizeof(double), cmp_double);
	*lo = s[0];
	*hi = s[reps - 1];
	return reps % 2 ? s[reps / 2] : (s[reps / 2 - 1] + s[reps / 2]) / 2;
}

/* -R: only the rows whose name holds this, and their anchors (profiling) */
static const char *only;

static int row_wanted(int idx)
{
	unsigned int i;

	if (!only || strstr(rows[idx].name, only))
		return 1;
	for (i = 0; i < nrows; i++)
		if (rows[i].anchor == idx && strstr(rows[i].name, only))
			return 1;
	return 0;
}

#define TIME(rep, idx, n, call) do {					\
	double __t = now_ns();						\
	if (!row_wanted(idx))						\
		break;							\
	call;								\
	rows[idx].v[rep] = (now_ns() - __t) / (n);			\
} while (0)

static void usage(void)
{
	fprintf(stderr,
		"usage: retire_bench [-n REQS_PER_SAMPLE] [-r REPS] [-s LIVE_SMALL]\n"
		"                    [-l LIVE_BIG] [-m MEM_REQS] [-R ROW]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	int nop1, nop32, ucan1, ucan16, umem, opt;
	int a32, a1, o32, o1, e32, l32, t32, t1, c1, c16, mem, s_small, s_big;
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	struct rctx cyc, can;
	unsigned int rep, i;
	double lo, hi, med, am;

	while ((opt = getopt(argc, argv, "n:r:s:l:m:R:")) != -1) {
		switch (opt) {
		case 'n': reqs_per_sample = strtoul(optarg, NULL, 0); break;
		case 'r': reps = strtoul(optarg, NULL, 0); break;
		case 's': live_small = strtoul(optarg, NULL, 0); break;
		case 'l': live_big = strtoul(optarg, NULL, 0); break;
		case 'm': mem_n = strtoul(optarg, NULL, 0); break;
		case 'R': only = optarg; break;
		default: usage();
		}
	}
	if (!reps || reps > MAX_REPS || reqs_per_sample < 32 ||
	    !live_small || live_big < live_small || !mem_n)
		usage();
	reqs_per_sample -= reqs_per_sample % 32;
	setrlimit(RLIMIT_MEMLOCK, &rl);
	zero_sum_init();

	check(io_uring_queue_init(256, &ring, 0));
	check(pipe(pipefd));
	rctx_open(&cyc, 64);
	rctx_open(&can, 64);
	cancel_ctx_setup(&can);

	nop32 = row_add("io_uring NOP, batch 32", NULL, -1);
	nop1 = row_add("io_uring NOP, batch 1", NULL, -1);
	ucan16 = row_add("io_uring pipe read + ASYNC_CANCEL, batch 16", NULL, -1);
	ucan1 = row_add("io_uring pipe read + ASYNC_CANCEL, batch 1", NULL, -1);
	a32 = row_add("full cycle, inline engine, AUTO_RETIRE, batch 32",
		      "NOP b32", nop32);
	a1 = row_add("full cycle, inline engine, AUTO_RETIRE, batch 1",
		     "NOP b1", nop1);
	o32 = row_add("full cycle, inline, AUTO_RETIRE one record, batch 32",
		      "NOP b32", nop32);
	o1 = row_add("full cycle, inline, AUTO_RETIRE one record, batch 1",
		     "NOP b1", nop1);
	e32 = row_add("full cycle, inline engine, explicit RETIRE, batch 32",
		      "NOP b32", nop32);
	l32 = row_add("full cycle, inline engine, 1.0 ioctls, batch 32",
		      "NOP b32", nop32);
	t32 = row_add("full cycle, sim engine with timer, batch 32",
		      "NOP b32", nop32);
	t1 = row_add("full cycle, sim engine with timer, batch 1",
		     "NOP b1", nop1);
	c16 = row_add("cancel of a queued request to RETIRED, batch 16",
		      "uring cancel b16", ucan16);
	c1 = row_add("cancel of a queued request to RETIRED, batch 1",
		     "uring cancel b1", ucan1);

	/* rep 0 is a warm-up (caches, slabs, the kernel's record stage) */
	for (rep = 0; rep <= reps; rep++) {
		unsigned long n = reqs_per_sample, nb1 = n / 8;
		unsigned int at = rep ? rep - 1 : 0;

		TIME(at, nop32, n, uring_nop(32, n));
		TIME(at, nop1, nb1, uring_nop(1, nb1));
		TIME(at, ucan16, nb1, uring_cancel(16, nb1));
		TIME(at, ucan1, nb1 / 4, uring_cancel(1, nb1 / 4));
		sim_mode(cyc.r, 1, 0);
		TIME(at, a32, n, cycle_auto(&cyc, 32, n));
		TIME(at, a1, nb1, cycle_auto(&cyc, 1, nb1));
		TIME(at, o32, n, cycle_one(&cyc, 32, n));
		TIME(at, o1, nb1, cycle_one(&cyc, 1, nb1));
		TIME(at, e32, n, cycle_explicit(&cyc, 32, n));
		TIME(at, l32, nb1, cycle_legacy(&cyc, 32, nb1));
		TIME(at, c16, nb1, cycle_cancel(&can, 16, nb1));
		TIME(at, c1, nb1 / 4, cycle_cancel(&can, 1, nb1 / 4));
		sim_mode(cyc.r, 0, 0);
		TIME(at, t32, nb1, cycle_auto(&cyc, 32, nb1));
		TIME(at, t1, nb1 / 4, cycle_auto(&cyc, 1, nb1 / 4));
	}

	/* memory and scale: once each, their own interleaving */
	sim_mode(cyc.r, 1, 0);
	umem = row_add("io_uring: kernel bytes per pending pipe read", NULL, -1);
	mem = row_add("retire: kernel bytes per unretired request",
		      "uring pending read", umem);
	rows[umem].unit_bytes = rows[mem].unit_bytes = 1;
	s_small = row_add("full cycle b32 with LIVE_SMALL unretired", NULL, -1);
	s_big = row_add("full cycle b32 with LIVE_BIG unretired",
			"LIVE_SMALL", s_small);
	for (rep = 0; rep < reps; rep++) {
		unsigned long n = reqs_per_sample;

		if (row_wanted(umem))
			rows[umem].v[rep] = mem_uring();
		if (row_wanted(mem))
			rows[mem].v[rep] = mem_retire();
		if (!row_wanted(s_small) && !row_wanted(s_big))
			continue;
		ensure_bufs(&cyc, live_big);
		make_live(&cyc, live_small);
		TIME(rep, s_small, n, cycle_auto(&cyc, 32, n));
		make_live(&cyc, live_big);
		TIME(rep, s_big, n, cycle_auto(&cyc, 32, n));
		drop_live(&cyc);
	}

	printf("retire_bench: %u reps, %u requests per sample, live %lu / %lu, memory over %lu\n",
	       reps, reqs_per_sample, live_small, live_big, mem_n);
	printf("%-55s %11s %23s %8s  %s\n", "row", "median", "spread (min-max)",
	       "ratio", "against");
	for (i = 0; i < nrows; i++) {
		if (!row_wanted(i))
			continue;
		med = median(&rows[i], &lo, &hi);
		printf("%-55s %8.0f %s  [%8.0f - %8.0f]", rows[i].name, med,
		       rows[i].unit_bytes ? "B " : "ns", lo, hi);
		if (rows[i].anchor >= 0) {
			am = median(&rows[rows[i].anchor], &lo, &hi);
			printf(" %7.2fx  %s", am > 0 ? med / am : 0,
			       rows[i].anchor_name);
		}
		printf("\n");
	}
	printf("(ns per request; B per request; ratio = median / anchor's median)\n");
	sim_mode(cyc.r, 0, 0);
	check(retire_reset_sim(cyc.r));
	return 0;
}
