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
#include <poll.h>
#include <pthread.h>
#include <sched.h>
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
#define MAX_ROWS	48
#define MAX_REPS	64

static unsigned int reqs_per_sample = 16384;
static unsigned int reps = 5;
static unsigned long live_small = 1000, live_big = 1000000;
/* the scale rows' names, which say how many are in flight */
static char small_name[64], small_anchor[24], big_name[64];
static unsigned long mem_n = 16384;	/* io_uring registers at most 16 K */
static int verbose;	/* -v: each row's name on stderr as it starts */
static int serial;	/* -S: no rows on two CPUs (-icount runs one CPU at a time) */

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
	__u32 dev_flags;	/* of its measured requests: READ or WRITE */
	__u64 want_len;		/* a completed request's result_len */
	int want_sum;		/* and its checksum is the zeros' */
	int keyed;		/* measured request i has key i (else 0) */
};

#define PIN_PAGES	16	/* buffers spread their pins over these */

#define HOUR_NS		(3600ULL * 1000000000ULL)

/*
 * The sim's knobs are module-wide: @flags (RETIRE_SIM_F_*) and the latency
 * of the requests started from now on. A request already on its timer
 * keeps the latency it started with. RETIRE_SIM_F_CANCEL_RUNNING lets a
 * cancel stop a request on its timer; without it the request runs on
 * until its timer fires, and a cancel only marks it.
 */
static void sim_mode(struct retire *r, __u32 flags, __u64 latency_ns)
{
	struct retire_sim_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.flags = flags;
	cfg.latency_ns = latency_ns;
	check(retire_set_sim_config(r, &cfg));
}

#define SIM_INLINE	(RETIRE_SIM_F_INLINE | RETIRE_SIM_F_CANCEL_RUNNING)
#define SIM_TIMER	RETIRE_SIM_F_CANCEL_RUNNING

static void pin_bufs(struct rctx *c, __u64 *out, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		check(retire_pin_buffer(c->r, (char *)c->page +
					(i % PIN_PAGES) * 4096, 4096, &out[i]));
}

/* the id of the engine called @name */
static __u32 engine_id(struct retire *r, const char *name)
{
	struct retire_engine_info e[16];
	int n, i;

	n = retire_list_engines(r, e, 16);
	check(n);
	for (i = 0; i < n && i < 16; i++)
		if (!strcmp(e[i].name, name))
			return e[i].id;
	die("no engine \"%s\" (is retire_%s.ko loaded?)", name, name);
}

/* a context on @engine with @nbufs buffers for its measured requests */
static void rctx_open_on(struct rctx *c, unsigned int nbufs, const char *engine)
{
	memset(c, 0, sizeof(*c));
	check(retire_open_device(&c->r, NULL, 0));
	if (engine)
		check(retire_bind_engine(c->r, engine_id(c->r, engine)));
	c->dev_flags = RETIRE_DEV_READ;
	/* the null engine moves no byte; the sim reads them and hashes them */
	c->want_len = engine && !strcmp(engine, "null") ? 0 : REQ_LEN;
	c->want_sum = !c->want_len ? 0 : 1;
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

static void rctx_open(struct rctx *c, unsigned int nbufs)
{
	rctx_open_on(c, nbufs, NULL);
}

static void rctx_close(struct rctx *c)
{
	retire_queue_exit(c->q);
	retire_close_device(c->r);
	free(c->bufs);
	free(c->live);
	free(c->live_bufs);
	munmap(c->page, PIN_PAGES * 4096);
}

static void set_limits(struct rctx *c, __u32 active, __u32 per_key,
		       __u32 waiting)
{
	struct retire_limits l;

	check(retire_get_limits(c->r, &l));
	l.max_active = active;
	l.max_active_per_key = per_key;
	l.max_waiting = waiting;
	check(retire_set_limits(c->r, &l));
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

/* a completed request moved what its context's requests move */
static void check_read(const struct rctx *c, const struct retire_cqe *cqe)
{
	if (cqe->type != RETIRE_REC_TERMINAL ||
	    cqe->outcome != RETIRE_OUTCOME_COMPLETED)
		return;
	if (cqe->result_len != c->want_len ||
	    (c->want_sum && cqe->checksum != zero_sum))
		die("request %#llx: moved %llu bytes, checksum %#llx, wanted %llu, %#llx",
		    (unsigned long long)cqe->handle,
		    (unsigned long long)cqe->result_len,
		    (unsigned long long)cqe->checksum,
		    (unsigned long long)c->want_len,
		    (unsigned long long)zero_sum);
}

/* an operation's result, after its ENTER: an error ends the bench */
static void check_op(const struct retire_op *op, const char *what)
{
	if (op->result < 0)
		die("%s: %s", what, strerror((int)-op->result));
}

static void expect_rec(const struct rctx *c, const struct retire_cqe *cqe,
		       __u32 type, __u32 outcome)
{
	if (cqe->type != type || (outcome && cqe->outcome != outcome))
		die("record %#llx: type %u outcome %u, wanted %u/%u",
		    (unsigned long long)cqe->handle, cqe->type, cqe->outcome,
		    type, outcome);
	check_read(c, cqe);
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
			check_read(c, cqes[i]);
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
					   c->dev_flags, i);
			ops[i]->key = c->keyed ? i : 0;
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
			expect_rec(c, cqes[i], type, outcome);
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
			retire_prep_release(ops[i], h[i]);
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
			expect_rec(c, &cqes[i], RETIRE_REC_TERMINAL,
				   RETIRE_OUTCOME_COMPLETED);
			check(retire_release_request(c->r, cqes[i].handle));
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
	struct retire_op op;

	set_limits(c, 1, 1, 4096);
	sim_mode(c->r, SIM_TIMER, HOUR_NS);
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

#define LIVE_KEY	(1ULL << 40)	/* above the measured requests' keys */

/*
 * Keep @n requests in flight in @c, none of them finished: the first half
 * each on the sim's timer for an hour under a key of its own (active), the
 * rest under the first one's key, waiting behind it (the context allows
 * one active request per key). No record comes for any of them. The
 * measured requests of @c then need keys of their own (c->keyed).
 */
static void make_inflight(struct rctx *c, unsigned long n)
{
	struct retire_op ops[RETIRE_SUBMIT_MAX];
	unsigned long i, active = (n + 1) / 2;
	unsigned int b, j;

	ensure_bufs(c, n);
	c->keyed = 1;
	set_limits(c, active + RETIRE_SUBMIT_MAX, 1, n + RETIRE_SUBMIT_MAX);
	sim_mode(c->r, SIM_TIMER, HOUR_NS);
	for (i = c->nlive; i < n; i += b) {
		b = n - i < RETIRE_SUBMIT_MAX ? n - i : RETIRE_SUBMIT_MAX;
		for (j = 0; j < b; j++) {
			retire_prep_submit(&ops[j], c->live_bufs[i + j], 0,
					   REQ_LEN, RETIRE_DEV_READ, i + j);
			ops[j].key = LIVE_KEY + (i + j < active ? i + j : 0);
		}
		check(retire_enter(c->r, ops, b, NULL, 0, 0, 0));
		for (j = 0; j < b; j++) {
			check_op(&ops[j], "in flight: submit");
			c->live[i + j] = ops[j].handle;
		}
	}
	c->nlive = n;
}

/* ---- io_uring anchors ---------------------------------------------------- */

static struct io_uring ring;	/* default setup */
static struct io_uring tring;	/* SINGLE_ISSUER, DEFER_TASKRUN, registered fd */
static struct io_uring fring;	/* a fixed file and a registered buffer */
static int pipefd[2];
static unsigned char *fbuf;	/* fring's registered buffer: 32 x 64 B */

/* what each CQE's res must be, by the user_data its SQE was given */
enum {
	UD_NOP,		/* 0 */
	UD_CANCEL,	/* 0: found its target */
	UD_TIMEOUT,	/* -ETIME: the timeout fired */
	UD_IO,		/* REQ_LEN: the fixed read or write moved it all */
	UD_CANCELLED = 1000,	/* and above: -ECANCELED */
};

static int want_res(__u64 ud)
{
	switch (ud) {
	case UD_NOP:
	case UD_CANCEL:
		return 0;
	case UD_TIMEOUT:
		return -ETIME;
	case UD_IO:
		return REQ_LEN;
	}
	return -ECANCELED;
}

/* Reap @want CQEs of @r, each checked against its user_data's res */
static void uring_reap(struct io_uring *r, unsigned int want)
{
	struct io_uring_cqe *cqe;
	unsigned int got = 0, head, n;

	while (got < want) {
		check(io_uring_wait_cqe_nr(r, &cqe, 1));
		n = 0;
		io_uring_for_each_cqe(r, head, cqe) {
			if (cqe->res != want_res(cqe->user_data))
				die("io_uring: user_data %llu: res %d, wanted %d",
				    (unsigned long long)cqe->user_data,
				    cqe->res, want_res(cqe->user_data));
			n++;
		}
		io_uring_cq_advance(r, n);
		got += n;
	}
}

/* @sqe_flags: 0, or IOSQE_ASYNC (the NOP goes through io-wq) */
static void uring_nop_on(struct io_uring *r, unsigned int batch,
			 unsigned long n, unsigned int sqe_flags)
{
	struct io_uring_sqe *sqe;
	unsigned long done;
	unsigned int i;

	for (done = 0; done < n; done += batch) {
		for (i = 0; i < batch; i++) {
			sqe = io_uring_get_sqe(r);
			io_uring_prep_nop(sqe);
			sqe->flags |= sqe_flags;
			sqe->user_data = UD_NOP;
		}
		check(io_uring_submit_and_wait(r, batch));
		uring_reap(r, batch);
	}
}

static void uring_nop(unsigned int batch, unsigned long n)
{
	uring_nop_on(&ring, batch, n, 0);
}

/* the syscall floor: io_uring_enter() with nothing to submit or wait for */
static void uring_empty(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		check(io_uring_enter(ring.ring_fd, 0, 0, 0, NULL));
}

/* TIMEOUT of 0: an hrtimer that fires at once and completes from it */
static void uring_timeout(unsigned int batch, unsigned long n)
{
	struct __kernel_timespec ts = { 0, 0 };
	struct io_uring_sqe *sqe;
	unsigned long done;
	unsigned int i;

	for (done = 0; done < n; done += batch) {
		for (i = 0; i < batch; i++) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_timeout(sqe, &ts, 0, 0);
			sqe->user_data = UD_TIMEOUT;
		}
		check(io_uring_submit_and_wait(&ring, batch));
		uring_reap(&ring, batch);
	}
}

/*
 * A read (@poll 0) or a POLL_ADD (@poll 1) of an empty pipe, pending, then
 * ASYNC_CANCEL: both CQEs reaped. The read is armed on the pipe's poll, as
 * an active request is on its device; the poll is only waiting.
 */
static void uring_cancel(unsigned int batch, unsigned long n, int poll)
{
	static char sink[64];
	struct io_uring_sqe *sqe;
	unsigned long done;
	unsigned int i;

	for (done = 0; done < n; done += batch) {
		for (i = 0; i < batch; i++) {
			sqe = io_uring_get_sqe(&ring);
			if (poll)
				io_uring_prep_poll_add(sqe, pipefd[0], POLLIN);
			else
				io_uring_prep_read(sqe, pipefd[0], sink,
						   sizeof(sink), 0);
			sqe->user_data = UD_CANCELLED + i;
		}
		check(io_uring_submit(&ring));
		for (i = 0; i < batch; i++) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_cancel64(sqe, UD_CANCELLED + i, 0);
			sqe->user_data = UD_CANCEL;
		}
		check(io_uring_submit_and_wait(&ring, 2 * batch));
		uring_reap(&ring, 2 * batch);
	}
}

static void uring_cancel_read(unsigned int batch, unsigned long n)
{
	uring_cancel(batch, n, 0);
}

static void uring_cancel_poll(unsigned int batch, unsigned long n)
{
	uring_cancel(batch, n, 1);
}

/* FNV-1a-64, as the sim engine's device checksums what it reads */
static __u64 fnv1a(const unsigned char *p, size_t n)
{
	__u64 h = 0xcbf29ce484222325ULL;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

#define FILE_READ_AT	4096	/* the memfd's zeros; writes go below */

/* a memfd, fixed; fbuf registered; so READ_FIXED / WRITE_FIXED can run */
static void fixed_setup(void)
{
	struct iovec iov;
	int fd;

	fd = memfd_create("retire_bench", 0);
	check(fd);
	check(ftruncate(fd, 2 * 4096));
	fbuf = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (fbuf == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	check(io_uring_queue_init(64, &fring, 0));
	check(io_uring_register_files(&fring, &fd, 1));
	iov.iov_base = fbuf;
	iov.iov_len = 4096;
	check(io_uring_register_buffers(&fring, &iov, 1));
}

/*
 * The data path's anchor: @batch READ_FIXED of 64 zero bytes of the memfd
 * into the registered buffer, each then hashed in userspace as retire's
 * device hashes what it reads; or (@write) @batch WRITE_FIXED of 64 bytes
 * made in userspace as retire's device makes what it writes.
 */
static void uring_fixed(unsigned int batch, unsigned long n, int write)
{
	struct io_uring_sqe *sqe;
	unsigned long done;
	unsigned int i, j;

	for (done = 0; done < n; done += batch) {
		for (i = 0; i < batch; i++) {
			unsigned char *p = fbuf + i * REQ_LEN;

			sqe = io_uring_get_sqe(&fring);
			if (write) {
				for (j = 0; j < REQ_LEN; j++)
					p[j] = (unsigned char)(i + j);
				io_uring_prep_write_fixed(sqe, 0, p, REQ_LEN,
							  i * REQ_LEN, 0);
			} else {
				io_uring_prep_read_fixed(sqe, 0, p, REQ_LEN,
							 FILE_READ_AT, 0);
			}
			sqe->flags |= IOSQE_FIXED_FILE;
			sqe->user_data = UD_IO;
		}
		check(io_uring_submit_and_wait(&fring, batch));
		uring_reap(&fring, batch);
		if (write)
			continue;
		for (i = 0; i < batch; i++)
			if (fnv1a(fbuf + i * REQ_LEN, REQ_LEN) != zero_sum)
				die("READ_FIXED: bytes not the memfd's zeros");
	}
}

static void uring_read_fixed(unsigned int batch, unsigned long n)
{
	uring_fixed(batch, n, 0);
}

static void uring_write_fixed(unsigned int batch, unsigned long n)
{
	uring_fixed(batch, n, 1);
}

/* ---- memory ---------------------------------------------------------- */

/*
 * The kernel memory charged to this process's memory cgroup, in bytes:
 * memory.stat's "kernel" (slab, vmalloc, page tables, stacks, ...).
 * bench-guest.sh puts the bench in a cgroup of its own; every allocation
 * of retire's for a request is charged (GFP_KERNEL_ACCOUNT), as io_uring's
 * are.
 */
static char memstat[320];

static void memcg_init(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f || !fgets(line, sizeof(line), f) || strncmp(line, "0::/", 4))
		die("no cgroup v2 for this process (bench-guest.sh makes one)");
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	snprintf(memstat, sizeof(memstat), "/sys/fs/cgroup%s/memory.stat",
		 line + 3);
}

/*
 * The cgroup's counters are summed from per-CPU deltas at most every two
 * seconds unless enough piled up: a reading waits for that flush, or a
 * small sample would read nothing at all (-F, the tiny run, does not wait).
 */
static int mem_fast;

static double kernel_used(void)
{
	char line[256];
	double v = -1;
	FILE *f;

	usleep(mem_fast ? 100000 : 2100000);
	f = fopen(memstat, "r");
	if (!f)
		die("%s: %s", memstat, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "kernel ", 7))
			v = strtod(line + 7, NULL);
	fclose(f);
	if (v < 0)
		die("%s: no \"kernel\" line", memstat);
	return v;
}

/*
 * @n requests in flight in a fresh context (so its slot chunks are new
 * too), between two readings: half active on the sim's timer, half
 * waiting (make_inflight). With @buf the buffers are registered between
 * the readings too: the request and its buffer; else before.
 */
static double mem_retire(unsigned long n, int buf)
{
	double before, after;
	struct rctx c;

	rctx_open(&c, 1);
	if (!buf)
		ensure_bufs(&c, n);
	before = kernel_used();
	make_inflight(&c, n);
	after = kernel_used();
	sim_mode(c.r, SIM_INLINE, 0);
	rctx_close(&c);
	/* its teardown runs in the module's work items: let it finish */
	usleep(500000);
	return (after - before) / n;
}

/*
 * @n pipe reads in flight in a fresh ring, between two readings; with
 * @buf, READ_FIXED into @n buffers registered between the readings too.
 */
static double mem_uring(unsigned long n, int buf)
{
	static char page[PIN_PAGES * 4096] __attribute__((aligned(4096)));
	struct iovec *iov = NULL;
	double before, after;
	struct io_uring r2;
	unsigned long i;
	int p[2];

	check(pipe(p));
	check(io_uring_queue_init(n, &r2, 0));
	if (buf) {
		iov = calloc(n, sizeof(*iov));
		if (!iov)
			die("out of memory");
		for (i = 0; i < n; i++) {
			iov[i].iov_base = page + (i % PIN_PAGES) * 4096;
			iov[i].iov_len = 4096;
		}
	}
	before = kernel_used();
	if (buf)
		check(io_uring_register_buffers(&r2, iov, n));
	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&r2);

		if (!sqe) {
			check(io_uring_submit(&r2));
			sqe = io_uring_get_sqe(&r2);
		}
		if (buf)
			io_uring_prep_read_fixed(sqe, p[0], iov[i].iov_base,
						 REQ_LEN, 0, i);
		else
			io_uring_prep_read(sqe, p[0], page, REQ_LEN, 0);
	}
	check(io_uring_submit(&r2));
	after = kernel_used();
	io_uring_queue_exit(&r2);
	close(p[0]);
	close(p[1]);
	free(iov);
	/* the ring's teardown is deferred to a work item: let it finish */
	usleep(500000);
	return (after - before) / n;
}

/* ---- two contexts, two CPUs ------------------------------------------ */

struct par {
	pthread_t t;
	int cpu;
	unsigned long n;
	struct rctx c;		/* on the null engine */
	struct io_uring r;
	int uring;
};

static struct par par[2];

static void *par_main(void *arg)
{
	struct par *p = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(p->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (p->uring)
		uring_nop_on(&p->r, 32, p->n, 0);
	else
		cycle_run(&p->c, 32, p->n, 1);
	return NULL;
}

/* @nthr threads, each on its own CPU with its own context or ring */
static void par_run(int nthr, unsigned long n, int uring)
{
	int i;

	for (i = 0; i < nthr; i++) {
		par[i].n = n;
		par[i].uring = uring;
		if (pthread_create(&par[i].t, NULL, par_main, &par[i]))
			die("pthread_create failed");
	}
	for (i = 0; i < nthr; i++)
		pthread_join(par[i].t, NULL);
}

static void par_setup(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		par[i].cpu = i;
		rctx_open_on(&par[i].c, 64, "null");
		check(io_uring_queue_init(64, &par[i].r, 0));
	}
}

/* ---- rows ------------------------------------------------------------ */

struct row {
	const char *name;
	const char *anchor_name;
	int anchor;		/* index of the anchor row, -1 for none */
	const char *anchor2_name;	/* a second anchor, if any */
	int anchor2;
	double target;		/* issue 30's: ratio(s) at most this; 0: none */
	double target_bytes;	/* or the median at most this many bytes */
	int unit_bytes;
	int done;		/* measured at least once */
	double v[MAX_REPS];
};

static struct row rows[MAX_ROWS];
static unsigned int nrows;

static int row_add(const char *name, const char *anchor_name, int anchor)
{
	rows[nrows].name = name;
	rows[nrows].anchor_name = anchor_name;
	rows[nrows].anchor = anchor;
	rows[nrows].anchor2 = -1;
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
	if (verbose)							\
		fprintf(stderr, "retire_bench: %s\n", rows[idx].name);	\
	call;								\
	rows[idx].v[rep] = (now_ns() - __t) / (n);			\
	rows[idx].done = 1;						\
} while (0)

/* a row whose sample is what @call returns (bytes) */
#define MEASURE(rep, idx, call) do {					\
	if (!row_wanted(idx))						\
		break;							\
	if (verbose)							\
		fprintf(stderr, "retire_bench: %s\n", rows[idx].name);	\
	rows[idx].v[rep] = (call);					\
	rows[idx].done = 1;						\
} while (0)

static void usage(void)
{
	fprintf(stderr,
		"usage: retire_bench [-n REQS_PER_SAMPLE] [-r REPS] [-s LIVE_SMALL]\n"
		"                    [-l LIVE_BIG] [-m MEM_REQS] [-R ROW] [-S] [-v] [-F]\n");
	exit(1);
}

/* an ENTER with nothing to submit or wait for, through the rings */
static void retire_empty(struct rctx *c, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		check(retire_queue_submit_and_wait(c->q, 0, 0));
}

/* @r's median over its anchor @a's, or 0 if @a was not measured */
static double ratio(const struct row *r, int a)
{
	double lo, hi, am;

	if (a < 0 || !rows[a].done)
		return 0;
	am = median(&rows[a], &lo, &hi);
	return am > 0 ? median(r, &lo, &hi) / am : 0;
}

static void print_rows(void)
{
	double lo, hi, med, r1, r2;
	unsigned int i;
	int met;

	printf("%-58s %11s %23s %8s  %s\n", "row", "median",
	       "spread (min-max)", "ratio", "against");
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		if (!row_wanted(i) || !r->done)
			continue;
		med = median(r, &lo, &hi);
		r1 = ratio(r, r->anchor);
		r2 = ratio(r, r->anchor2);
		printf("%-58s %8.0f %s  [%8.0f - %8.0f]", r->name, med,
		       r->unit_bytes ? "B " : "ns", lo, hi);
		if (r1)
			printf(" %7.2fx  %s", r1, r->anchor_name);
		if (r2)
			printf("; %.2fx  %s", r2, r->anchor2_name);
		/* a target is met only against every anchor measured */
		if (r->target && r1) {
			met = r1 <= r->target && (!r2 || r2 <= r->target);
			printf("  [target <= %.2fx: %s]", r->target,
			       met ? "met" : "MISSED");
		}
		if (r->target_bytes)
			printf("  [target <= %.0f B: %s]", r->target_bytes,
			       med <= r->target_bytes ? "met" : "MISSED");
		printf("\n");
	}
	printf("(ns per request, or per call for the ENTER rows; B per request;\n"
	       " ratio = median / the anchor's median; targets are issue 30's)\n");
}

int main(int argc, char **argv)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	struct rctx cyc, wr, nul, can, act, sm, bg;
	int nop1, nop32, tnop1, tnop32, ucan1, ucan16, upoll1, upoll16;
	int uempty, rfix32, rfix1, wfix32, wfix1, anop32, anop1, tmo32, tmo1;
	int empty, n32, n1, a32, a1, o32, o1, w32, w1, e32, l32;
	int t32, t1, c1, c16, ac1, ac16, umem, umemb, mem, memb;
	int s_small, s_big, p1, p2, up1, up2, opt;
	unsigned int rep;

	while ((opt = getopt(argc, argv, "n:r:s:l:m:R:SvF")) != -1) {
		switch (opt) {
		case 'n': reqs_per_sample = strtoul(optarg, NULL, 0); break;
		case 'r': reps = strtoul(optarg, NULL, 0); break;
		case 's': live_small = strtoul(optarg, NULL, 0); break;
		case 'l': live_big = strtoul(optarg, NULL, 0); break;
		case 'm': mem_n = strtoul(optarg, NULL, 0); break;
		case 'R': only = optarg; break;
		case 'S': serial = 1; break;
		case 'v': verbose = 1; break;
		case 'F': mem_fast = 1; break;
		default: usage();
		}
	}
	if (!reps || reps > MAX_REPS || reqs_per_sample < 32 ||
	    !live_small || live_big < live_small || !mem_n || mem_n > 16384)
		usage();
	reqs_per_sample -= reqs_per_sample % 32;
	setrlimit(RLIMIT_MEMLOCK, &rl);
	zero_sum_init();
	memcg_init();

	check(io_uring_queue_init(256, &ring, 0));
	check(io_uring_queue_init(256, &tring, IORING_SETUP_SINGLE_ISSUER |
				  IORING_SETUP_DEFER_TASKRUN));
	if (io_uring_register_ring_fd(&tring) != 1)
		die("io_uring_register_ring_fd failed");
	check(pipe(pipefd));
	fixed_setup();
	rctx_open(&cyc, 64);
	rctx_open(&wr, 64);
	wr.dev_flags = RETIRE_DEV_WRITE;
	wr.want_sum = 0;	/* a write reads nothing to hash */
	rctx_open_on(&nul, 64, "null");
	rctx_open(&can, 64);
	cancel_ctx_setup(&can);
	rctx_open(&act, 64);

	/* anchors first: a retire row's anchor is an earlier row */
	uempty = row_add("io_uring_enter(), nothing to do", NULL, -1);
	nop32 = row_add("io_uring NOP, batch 32", NULL, -1);
	nop1 = row_add("io_uring NOP, batch 1", NULL, -1);
	tnop32 = row_add("io_uring NOP, DEFER_TASKRUN + reg. fd, batch 32",
			 NULL, -1);
	tnop1 = row_add("io_uring NOP, DEFER_TASKRUN + reg. fd, batch 1",
			NULL, -1);
	rfix32 = row_add("io_uring READ_FIXED 64 B + hash, batch 32", NULL, -1);
	rfix1 = row_add("io_uring READ_FIXED 64 B + hash, batch 1", NULL, -1);
	wfix32 = row_add("io_uring WRITE_FIXED 64 B, batch 32", NULL, -1);
	wfix1 = row_add("io_uring WRITE_FIXED 64 B, batch 1", NULL, -1);
	anop32 = row_add("io_uring NOP IOSQE_ASYNC, batch 32", NULL, -1);
	anop1 = row_add("io_uring NOP IOSQE_ASYNC, batch 1", NULL, -1);
	tmo32 = row_add("io_uring TIMEOUT 0, batch 32", NULL, -1);
	tmo1 = row_add("io_uring TIMEOUT 0, batch 1", NULL, -1);
	upoll16 = row_add("io_uring POLL_ADD + ASYNC_CANCEL, batch 16", NULL, -1);
	upoll1 = row_add("io_uring POLL_ADD + ASYNC_CANCEL, batch 1", NULL, -1);
	ucan16 = row_add("io_uring pipe read + ASYNC_CANCEL, batch 16", NULL, -1);
	ucan1 = row_add("io_uring pipe read + ASYNC_CANCEL, batch 1", NULL, -1);

	empty = row_add("ENTER, nothing to do (rings)", "io_uring_enter", uempty);
	n32 = row_add("lifecycle, null engine, one record, batch 32",
		      "NOP b32", nop32);
	n1 = row_add("lifecycle, null engine, one record, batch 1",
		     "NOP b1", nop1);
	rows[n32].anchor2 = tnop32;
	rows[n32].anchor2_name = "tuned NOP b32";
	rows[n1].anchor2 = tnop1;
	rows[n1].anchor2_name = "tuned NOP b1";
	o32 = row_add("data path: 64 B read + hash, one record, batch 32",
		      "READ_FIXED b32", rfix32);
	o1 = row_add("data path: 64 B read + hash, one record, batch 1",
		     "READ_FIXED b1", rfix1);
	w32 = row_add("data path: 64 B write, one record, batch 32",
		      "WRITE_FIXED b32", wfix32);
	w1 = row_add("data path: 64 B write, one record, batch 1",
		     "WRITE_FIXED b1", wfix1);
	a32 = row_add("64 B read, TERMINAL + RETIRED, batch 32",
		      "NOP b32", nop32);
	a1 = row_add("64 B read, TERMINAL + RETIRED, batch 1", "NOP b1", nop1);
	e32 = row_add("64 B read, explicit RETIRE, batch 32", "NOP b32", nop32);
	l32 = row_add("64 B read, 1.0 ioctls, batch 32", "NOP b32", nop32);
	t32 = row_add("async: sim engine with timer, batch 32",
		      "TIMEOUT 0 b32", tmo32);
	t1 = row_add("async: sim engine with timer, batch 1",
		     "TIMEOUT 0 b1", tmo1);
	c16 = row_add("cancel of a waiting request to RETIRED, batch 16",
		      "POLL_ADD + cancel b16", upoll16);
	c1 = row_add("cancel of a waiting request to RETIRED, batch 1",
		     "POLL_ADD + cancel b1", upoll1);
	ac16 = row_add("cancel of an active request to RETIRED, batch 16",
		       "read + cancel b16", ucan16);
	ac1 = row_add("cancel of an active request to RETIRED, batch 1",
		      "read + cancel b1", ucan1);

	rows[n32].target = 2.0;
	rows[n1].target = 1.5;
	rows[o32].target = rows[o1].target = 1.5;
	rows[w32].target = rows[w1].target = 1.5;
	rows[c16].target = rows[c1].target = 1.0;
	rows[ac16].target = rows[ac1].target = 1.0;

	/* rep 0 is a warm-up (caches, slabs, the kernel's record stage) */
	for (rep = 0; rep <= reps; rep++) {
		unsigned long n = reqs_per_sample, nb1 = n / 8;
		unsigned int at = rep ? rep - 1 : 0;

		TIME(at, uempty, n, uring_empty(n));
		TIME(at, nop32, n, uring_nop(32, n));
		TIME(at, nop1, nb1, uring_nop(1, nb1));
		TIME(at, tnop32, n, uring_nop_on(&tring, 32, n, 0));
		TIME(at, tnop1, nb1, uring_nop_on(&tring, 1, nb1, 0));
		TIME(at, rfix32, n, uring_read_fixed(32, n));
		TIME(at, rfix1, nb1, uring_read_fixed(1, nb1));
		TIME(at, wfix32, n, uring_write_fixed(32, n));
		TIME(at, wfix1, nb1, uring_write_fixed(1, nb1));
		TIME(at, anop32, nb1, uring_nop_on(&ring, 32, nb1, IOSQE_ASYNC));
		TIME(at, anop1, nb1 / 4, uring_nop_on(&ring, 1, nb1 / 4,
						       IOSQE_ASYNC));
		TIME(at, tmo32, nb1, uring_timeout(32, nb1));
		TIME(at, tmo1, nb1 / 4, uring_timeout(1, nb1 / 4));
		TIME(at, upoll16, nb1, uring_cancel_poll(16, nb1));
		TIME(at, upoll1, nb1 / 4, uring_cancel_poll(1, nb1 / 4));
		TIME(at, ucan16, nb1, uring_cancel_read(16, nb1));
		TIME(at, ucan1, nb1 / 4, uring_cancel_read(1, nb1 / 4));

		sim_mode(cyc.r, SIM_INLINE, 0);
		TIME(at, empty, n, retire_empty(&nul, n));
		TIME(at, n32, n, cycle_one(&nul, 32, n));
		TIME(at, n1, nb1, cycle_one(&nul, 1, nb1));
		TIME(at, o32, n, cycle_one(&cyc, 32, n));
		TIME(at, o1, nb1, cycle_one(&cyc, 1, nb1));
		TIME(at, w32, n, cycle_one(&wr, 32, n));
		TIME(at, w1, nb1, cycle_one(&wr, 1, nb1));
		TIME(at, a32, n, cycle_auto(&cyc, 32, n));
		TIME(at, a1, nb1, cycle_auto(&cyc, 1, nb1));
		TIME(at, e32, n, cycle_explicit(&cyc, 32, n));
		TIME(at, l32, nb1, cycle_legacy(&cyc, 32, nb1));
		TIME(at, c16, nb1, cycle_cancel(&can, 16, nb1));
		TIME(at, c1, nb1 / 4, cycle_cancel(&can, 1, nb1 / 4));
		sim_mode(cyc.r, SIM_TIMER, HOUR_NS);
		TIME(at, ac16, nb1, cycle_cancel(&act, 16, nb1));
		TIME(at, ac1, nb1 / 4, cycle_cancel(&act, 1, nb1 / 4));
		sim_mode(cyc.r, SIM_TIMER, 0);
		TIME(at, t32, nb1, cycle_auto(&cyc, 32, nb1));
		TIME(at, t1, nb1 / 4, cycle_auto(&cyc, 1, nb1 / 4));
	}

	/* memory, scale and CPUs: their own interleaving, no warm-up */
	umem = row_add("io_uring: kernel bytes per pending pipe read", NULL, -1);
	mem = row_add("retire: kernel bytes per request in flight",
		      "pending read", umem);
	umemb = row_add("io_uring: pending READ_FIXED + its registered buffer",
			NULL, -1);
	memb = row_add("retire: request in flight + its buffer",
		       "READ_FIXED + buffer", umemb);
	rows[umem].unit_bytes = rows[mem].unit_bytes = 1;
	rows[umemb].unit_bytes = rows[memb].unit_bytes = 1;
	snprintf(small_name, sizeof(small_name), "data path b32, %lu in flight",
		 live_small);
	snprintf(small_anchor, sizeof(small_anchor), "%lu", live_small);
	snprintf(big_name, sizeof(big_name), "data path b32, %lu in flight",
		 live_big);
	s_small = row_add(small_name, NULL, -1);
	s_big = row_add(big_name, small_anchor, s_small);
	up1 = row_add("io_uring NOP b32, 1 ring on 1 CPU", NULL, -1);
	up2 = row_add("io_uring NOP b32, 2 rings on 2 CPUs", "1 ring", up1);
	p1 = row_add("lifecycle b32, 1 context on 1 CPU", NULL, -1);
	p2 = row_add("lifecycle b32, 2 contexts on 2 CPUs", "1 context", p1);
	rows[mem].target_bytes = 64;	/* the request's state alone */
	rows[memb].target = 1.0;
	rows[s_big].target = 1.1;
	rows[p2].target = 1 / 1.8;	/* 1.8x the throughput of one */
	if (row_wanted(s_small) || row_wanted(s_big)) {
		/* made once: a million requests take a while to set up */
		rctx_open(&sm, 64);
		rctx_open(&bg, 64);
		make_inflight(&sm, live_small);
		make_inflight(&bg, live_big);
	}
	if (!serial)
		par_setup();
	for (rep = 0; rep < reps; rep++) {
		unsigned long n = reqs_per_sample;

		MEASURE(rep, umem, mem_uring(mem_n, 0));
		MEASURE(rep, mem, mem_retire(mem_n, 0));
		MEASURE(rep, umemb, mem_uring(mem_n, 1));
		MEASURE(rep, memb, mem_retire(mem_n, 1));
		sim_mode(cyc.r, SIM_INLINE, 0);
		if (row_wanted(s_small) || row_wanted(s_big)) {
			TIME(rep, s_small, n, cycle_one(&sm, 32, n));
			TIME(rep, s_big, n, cycle_one(&bg, 32, n));
		}
		if (serial)
			continue;
		TIME(rep, up1, n, par_run(1, n, 1));
		TIME(rep, up2, 2 * n, par_run(2, n, 1));
		TIME(rep, p1, n, par_run(1, n, 0));
		TIME(rep, p2, 2 * n, par_run(2, n, 0));
	}

	printf("retire_bench: %u reps, %u requests per sample, in flight %lu / %lu, memory over %lu\n",
	       reps, reqs_per_sample, live_small, live_big, mem_n);
	print_rows();
	/* let a cancel stop what is still on its timer, then stop the rest */
	sim_mode(cyc.r, SIM_TIMER, 0);
	check(retire_reset_sim(cyc.r));
	return 0;
}
