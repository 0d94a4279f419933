// SPDX-License-Identifier: MIT
/*
 * retirectl demo: retirement at work on the real module, through libretire.
 *
 * 1. Useful vs blocked. Two runs, each in its own context, with the same
 *    requests ("bodies": data the device reads and sends to a
 *    destination), bandwidth, finish delay and polling schedule; in the
 *    second every destination stays blocked past the end. An activity
 *    metric (how often the program polled for records) cannot tell them
 *    apart; the module's counters can. Then cleanup (cancel what is left,
 *    wait for it, retire it), after which both runs must own zero bytes.
 * 2. A retirement trace: a deadline expires before the device finishes,
 *    a consumer borrows the result, a late cancel finds nothing; the
 *    buffer goes back only when the last token returns, the slot's
 *    generation moves on by one, and a device report naming the old
 *    generation is rejected and counted.
 * 3. The stale-notification counters as the "stale" multicast group
 *    delivered them, against the context's own counters.
 *
 * Every number printed comes from the module (per-context counters,
 * handles, records and their module-measured latencies) or from counting
 * what this program did (polls); none is a constant.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libretire.h"
#include "retirectl.h"

#define MS		1000000ULL
#define NBODIES		4
#define BODY_BYTES	1024
#define BODY_BUF	4096
#define RATE_BPS	1024
#define BURST_BYTES	512
#define CHUNK_BYTES	512
#define FINISH_MS	50
#define PUMP_MS		100
#define OBSERVE_MS	6000
#define TICK_MS		10

#define TRACE_BYTES	4096
#define TRACE_DEADLINE_MS 100
#define TRACE_DEVICE_MS	1000

/* how long any single wait for a record may take before it is a failure */
#define RECORD_WAIT_NS	(10000 * MS)

struct run {
	unsigned int pumps;		/* polls for records */
	struct retire_stats st;		/* at the end of observation */
	int p95_ret;			/* 0, or -ENODATA: unknown */
	__u64 p95_ns;
	__u64 lat[NBODIES];
	int nlat;
	__u64 owned_after;
	unsigned int cancelled;		/* by the cleanup */
};

#define NSTEPS	7

struct step {
	const char *name;
	const char *what;
	__u64 logical, physical, d, tokens;
	__u32 gen;
};

struct trace {
	struct step steps[NSTEPS];
	int nsteps;
	__u32 slot, gen_before, gen_after, slot_after;
	int late_cancel;
	int stale_ret;
	__u64 stale_before, stale_after;
	struct retire_stats final;	/* the context's counters at the end */
};

#define MAX_NTF	16

struct ntf {
	struct retire_event ev[MAX_NTF];
	int n;
	bool matches;
};

struct demo {
	const char *dev;
	int json;
	struct retire *ctl;		/* the engine's knobs go through it */
	struct retire_sim_config saved;
	struct retire_monitor *mon;
	struct run runs[2];
	struct trace trace;
	/* the same trace on QEMU's edu PCI device, if the module has one */
	struct trace edu;
	struct retire_engine_info edu_engine;
	bool have_edu;
	__u64 edu_transfers;		/* the DMA transfers it made for it */
	struct ntf ntf;
	bool ok;
};


static void check(struct demo *d, bool cond, const char *what)
{
	if (cond)
		return;
	fprintf(stderr, "retirectl: demo: invariant failed: %s\n", what);
	d->ok = false;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static void sleep_until(__u64 t)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t / 1000000000ULL),
		.tv_nsec = (long)(t % 1000000000ULL),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static int set_engine(struct demo *d, const struct retire_sim_config *cfg)
{
	struct retire_sim_config c = *cfg;
	int ret;

	c.op = RETIRE_SIM_SET;
	ret = retire_set_sim_config(d->ctl, &c);
	if (ret == -EPERM)
		fprintf(stderr,
			"retirectl: demo: the sim engine is module-wide: run the demo as root\n");
	return ret;
}

/* ---- 1. useful vs blocked ---------------------------------------------- */

struct bodies {
	__u64 buf[NBODIES];
	__u64 req[NBODIES];
	bool terminal[NBODIES];
	bool retired[NBODIES];
	int nretired;
};

/* one record of a run: retire what has ended, count what has retired */
static int run_record(struct retire *r, const struct retire_cqe *cqe,
		      void *arg)
{
	struct bodies *b = arg;
	__u64 i = cqe->user_data;
	int ret;

	if (i >= NBODIES || cqe->handle != b->req[i])
		return -EPROTO;
	switch (cqe->type) {
	case RETIRE_REC_TERMINAL:
		b->terminal[i] = true;
		/* the owner is done with the result: the buffer may go */
		ret = retire_release_request(r, cqe->handle);
		if (ret) {
			lib_fail("retire_release_request", ret);
			return ret;
		}
		break;
	case RETIRE_REC_RETIRED:
		b->retired[i] = true;
		b->nretired++;
		break;
	}
	return 0;
}

static int run_once(struct demo *d, bool blocked, struct run *out)
{
	const struct retire_sim_config cfg = {
		/* a cancel may stop a started body: the cleanup's abort */
		.flags = RETIRE_SIM_F_CANCEL_RUNNING |
			 (blocked ? RETIRE_SIM_F_BLOCKED : 0),
		.tick_ns = TICK_MS * MS,
		.bytes_per_tick = CHUNK_BYTES,
		.rate_bps = RATE_BPS,
		.burst_bytes = BURST_BYTES,
		.finish_ns = FINISH_MS * MS,
	};
	struct retire_sqe sqe[NBODIES];
	struct retire_latency *lat = NULL;
	struct bodies b = { 0 };
	struct retire_stats st;
	const char *call;
	struct retire *r;
	void *map[NBODIES] = { 0 };
	__u64 t0;
	int i, ret;

	memset(out, 0, sizeof(*out));
	ret = retire_open_device(&r, d->dev, 0);
	if (ret)
		return lib_fail("retire_open_device", ret);
	call = "retire_create_latency";
	ret = retire_create_latency(&lat, 64);
	if (ret)
		goto out;
	call = "retire_track_latency";
	ret = retire_track_latency(r, lat);
	if (ret)
		goto out;
	for (i = 0; i < NBODIES; i++) {
		call = "retire_alloc_buffer";
		/* buffers are whole pages; the body is its first 1,024 bytes */
		ret = retire_alloc_buffer(r, BODY_BUF, &b.buf[i], &map[i]);
		if (ret)
			goto out;
		memset(map[i], 'a' + i, BODY_BYTES);
		/* the device reads the body: it sends it to destination i */
		retire_prep_request(&sqe[i], b.buf[i], 0, BODY_BYTES,
				    RETIRE_DEV_READ, i);
		sqe[i].key = i + 1;
	}
	/* the bucket starts full (the burst) when the engine is set */
	call = "retire_set_sim_config";
	ret = set_engine(d, &cfg);
	if (ret)
		goto out;
	t0 = now_ns();
	call = "retire_submit_requests";
	ret = retire_submit_requests(r, sqe, NBODIES);
	if (ret != NBODIES) {
		ret = ret < 0 ? ret : -EAGAIN;
		goto out;
	}
	for (i = 0; i < NBODIES; i++)
		b.req[i] = sqe[i].handle;

	/* poll for records at 0, 100, ..., 6000 ms: 61 polls */
	for (i = 0; i <= OBSERVE_MS / PUMP_MS; i++) {
		sleep_until(t0 + (__u64)i * PUMP_MS * MS);
		call = "retire_run_records";
		ret = retire_run_records(r, run_record, &b, 0, 0);
		if (ret < 0)
			goto out;
		out->pumps++;
	}

	/* before cleanup */
	call = "retire_get_stats";
	ret = retire_get_stats(r, &out->st, 0);
	if (ret)
		goto out;
	out->p95_ret = retire_get_percentile(lat, 95.0, &out->p95_ns);
	call = "retire_get_percentile";
	if (out->p95_ret && out->p95_ret != -ENODATA) {
		ret = out->p95_ret;
		goto out;
	}
	call = "retire_copy_latency";
	ret = retire_copy_latency(lat, out->lat, NBODIES);
	if (ret < 0)
		goto out;
	out->nlat = ret;

	/* cleanup: abort what is left, then wait for its records */
	for (i = 0; i < NBODIES; i++) {
		if (b.terminal[i])
			continue;
		ret = retire_cancel_request(r, b.req[i]);
		/*
		 * 0: stopped; -EALREADY: caught mid-step, it stops at its
		 * next one and reports itself; -ENOENT: it ended since the
		 * last poll. Either way its TERMINAL record is coming.
		 */
		if (ret && ret != -EALREADY && ret != -ENOENT) {
			call = "retire_cancel_request";
			goto out;
		}
		if (ret != -ENOENT)
			out->cancelled++;
	}
	while (b.nretired < NBODIES) {
		call = "retire_run_records";
		ret = retire_run_records(r, run_record, &b, 1, RECORD_WAIT_NS);
		if (ret < 0)
			goto out;
		if (!ret) {
			ret = -ETIMEDOUT;
			goto out;
		}
	}
	call = "retire_get_stats";
	ret = retire_get_stats(r, &st, 0);
	if (ret)
		goto out;
	out->owned_after = st.owned_bytes;
	ret = 0;
out:
	if (ret)
		lib_fail(call, ret);
	retire_track_latency(r, NULL);
	retire_destroy_latency(lat);
	for (i = 0; i < NBODIES; i++)
		if (map[i])
			munmap(map[i], BODY_BUF);
	/* closing the context gives back every buffer it still holds */
	retire_close_device(r);
	return ret ? RETIRECTL_EXIT_FAIL : 0;
}

/* ---- 2. the retirement trace -------------------------------------------- */

static int trace_step(struct retire *r, struct trace *t, const char *name,
		      const char *what, __u32 gen)
{
	struct retire_stats st;
	struct step *s = &t->steps[t->nsteps++];
	int ret;

	ret = retire_get_stats(r, &st, 0);
	if (ret)
		return lib_fail("retire_get_stats", ret);
	s->name = name;
	s->what = what;
	s->logical = st.logical_outstanding;
	s->physical = st.physical_outstanding;
	s->d = st.device_outstanding;
	s->tokens = st.tokens_out;
	s->gen = gen;
	return 0;
}

/* the next record, which must be of @type for @handle */
static int trace_record(struct retire *r, __u64 handle, __u32 type,
			struct retire_cqe *cqe)
{
	int ret;

	ret = retire_reap_records(r, cqe, 1, 1, RECORD_WAIT_NS);
	if (ret < 0)
		return lib_fail("retire_reap_records", ret);
	if (ret == 0)
		return lib_fail("retire_reap_records", -ETIMEDOUT);
	if (cqe->handle != handle || cqe->type != type) {
		fprintf(stderr,
			"retirectl: demo: expected record type %u for 0x%llx, read type %u for 0x%llx\n",
			type, (unsigned long long)handle, cqe->type,
			(unsigned long long)cqe->handle);
		return RETIRECTL_EXIT_FAIL;
	}
	return 0;
}

static int run_trace(struct demo *d, struct retire *r, struct trace *t)
{
	const struct retire_sim_config cfg = {
		.latency_ns = TRACE_DEVICE_MS * MS,
	};
	struct retire_stats st;
	struct retire_cqe cqe;
	struct retire_sqe sqe;
	__u64 buf, req, req2, tok;
	void *map;
	int ret;

	ret = set_engine(d, &cfg);
	if (ret)
		return lib_fail("retire_set_sim_config", ret);
	ret = retire_alloc_buffer(r, TRACE_BYTES, &buf, &map);
	if (ret)
		return lib_fail("retire_alloc_buffer", ret);
	memset(map, 'B', TRACE_BYTES);

	retire_prep_request(&sqe, buf, 0, TRACE_BYTES, RETIRE_DEV_READ, 1);
	sqe.deadline_ns = TRACE_DEADLINE_MS * MS;
	ret = retire_submit_requests(r, &sqe, 1);
	if (ret != 1)
		return lib_fail("retire_submit_requests", ret ? ret : -EAGAIN);
	req = sqe.handle;
	t->slot = RETIRE_HANDLE_SLOT(req);
	t->gen_before = RETIRE_HANDLE_GEN(req);
	ret = trace_step(r, t, "submitted", "R submitted on B (4,096 bytes)",
			 t->gen_before);
	if (ret)
		return ret;

	ret = trace_record(r, req, RETIRE_REC_TIMEOUT, &cqe);
	if (ret)
		return ret;
	check(d, cqe.flags & RETIRE_CQE_F_OUTSTANDING,
	      "the timeout record says the device still owns B");
	ret = trace_step(r, t, "deadline_expired",
			 "deadline expired: the caller stopped waiting",
			 t->gen_before);
	if (ret)
		return ret;

	ret = trace_record(r, req, RETIRE_REC_TERMINAL, &cqe);
	if (ret)
		return ret;
	check(d, cqe.outcome == RETIRE_OUTCOME_COMPLETED,
	      "the device completed R after its deadline");
	ret = retire_borrow_token(r, req, &tok);
	if (ret)
		return lib_fail("retire_borrow_token", ret);
	/* the owner is done; the consumer's token keeps B */
	ret = retire_release_request(r, req);
	if (ret)
		return lib_fail("retire_release_request", ret);
	ret = trace_step(r, t, "target_succeeded_borrowed",
			 "device finished late; a consumer borrowed B",
			 t->gen_before);
	if (ret)
		return ret;

	t->late_cancel = retire_cancel_request(r, req);
	check(d, t->late_cancel == -ENOENT, "the late cancel finds nothing");
	ret = trace_step(r, t, "late_cancel_not_found",
			 "late cancel: not found; it releases nothing",
			 t->gen_before);
	if (ret)
		return ret;

	ret = retire_return_token(r, tok, 0);
	if (ret)
		return lib_fail("retire_return_token", ret);
	ret = trace_record(r, req, RETIRE_REC_RETIRED, &cqe);
	if (ret)
		return ret;
	/* the generation is filled in once a new request shows it */
	ret = trace_step(r, t, "token_returned_retired",
			 "last token returned: R retired, B back in its pool",
			 0);
	if (ret)
		return ret;

	/* R' is in flight (the same device latency) while it is looked at */
	retire_prep_request(&sqe, buf, 0, TRACE_BYTES, RETIRE_DEV_READ, 2);
	ret = retire_submit_requests(r, &sqe, 1);
	if (ret != 1)
		return lib_fail("retire_submit_requests", ret ? ret : -EAGAIN);
	req2 = sqe.handle;
	t->slot_after = RETIRE_HANDLE_SLOT(req2);
	t->gen_after = RETIRE_HANDLE_GEN(req2);
	t->steps[t->nsteps - 1].gen = t->gen_after;
	ret = trace_step(r, t, "new_request_same_buffer",
			 "R' submitted on the same B: same slot, next generation",
			 t->gen_after);
	if (ret)
		return ret;

	ret = retire_get_stats(r, &st, 0);
	if (ret)
		return lib_fail("retire_get_stats", ret);
	t->stale_before = st.stale_engine;
	/* a device's late report naming R, whose generation has ended */
	t->stale_ret = retire_inject_sim_event(r, req, 0);
	ret = retire_get_stats(r, &st, 0);
	if (ret)
		return lib_fail("retire_get_stats", ret);
	t->stale_after = st.stale_engine;
	ret = trace_step(r, t, "stale_notification_rejected",
			 "late device report naming R: rejected, counted",
			 t->gen_after);
	if (ret)
		return ret;

	/* R' ends normally: the stale notification did not touch it */
	ret = trace_record(r, req2, RETIRE_REC_TERMINAL, &cqe);
	if (ret)
		return ret;
	check(d, cqe.outcome == RETIRE_OUTCOME_COMPLETED,
	      "R' completes after the stale notification");
	ret = retire_release_request(r, req2);
	if (ret)
		return lib_fail("retire_release_request", ret);
	ret = trace_record(r, req2, RETIRE_REC_RETIRED, &cqe);
	if (ret)
		return ret;
	ret = retire_unregister_buffer(r, buf);
	if (ret)
		return lib_fail("retire_unregister_buffer", ret);
	munmap(map, TRACE_BYTES);
	ret = retire_get_stats(r, &t->final, 0);
	if (ret)
		return lib_fail("retire_get_stats", ret);
	return 0;
}

/* the first engine named @name, into *@out: 1 found, 0 not, or -errno */
static int find_engine(struct retire *r, const char *name,
		       struct retire_engine_info *out)
{
	struct retire_engine_info e[8];
	int n, i;

	n = retire_list_engines(r, e, 8);
	if (n < 0)
		return n;
	for (i = 0; i < n && i < 8; i++)
		if (!strcmp(e[i].name, name)) {
			*out = e[i];
			return 1;
		}
	return 0;
}

/*
 * The trace once more on the edu engine, if the module drives one: a real
 * PCI device moving R and R' by DMA (per 2 KiB, a transfer into the
 * device and one back out for the checksum, about 100 ms each), each
 * ending with a real interrupt, and the same exactly-once retirement.
 */
static int run_edu_trace(struct demo *d)
{
	struct retire_engine_info after;
	struct retire *r;
	int ret;

	ret = find_engine(d->ctl, "edu", &d->edu_engine);
	if (ret <= 0)
		return ret ? lib_fail("retire_list_engines", ret) : 0;
	d->have_edu = true;
	ret = retire_open_device(&r, d->dev, 0);
	if (ret)
		return lib_fail("retire_open_device", ret);
	ret = retire_bind_engine(r, d->edu_engine.id);
	if (ret) {
		retire_close_device(r);
		return lib_fail("retire_bind_engine", ret);
	}
	ret = run_trace(d, r, &d->edu);
	retire_close_device(r);
	if (ret)
		return ret;
	ret = find_engine(d->ctl, "edu", &after);
	if (ret <= 0)
		return lib_fail("retire_list_engines", ret ? ret : -ENODEV);
	d->edu_transfers = after.transfers - d->edu_engine.transfers;
	return 0;
}

/* ---- 3. stale notifications over netlink -------------------------------- */

/* this process's stale notifications, until one carries @want engine */
static int collect_ntf(struct demo *d, const struct retire_stats *want)
{
	struct ntf *n = &d->ntf;
	struct retire_event ev[16];
	const struct retire_event *last;
	__u64 deadline = now_ns() + 3000 * MS;
	struct pollfd pfd = {
		.fd = retire_get_monitor_fd(d->mon),
		.events = POLLIN,
	};
	int i, got, left;

	for (;;) {
		got = retire_read_events(d->mon, ev, 16);
		if (got < 0)
			return lib_fail("retire_read_events", got);
		for (i = 0; i < got; i++) {
			if (ev[i].type != RETIRE_CMD_STALE_NTF ||
			    ev[i].pid != (__u32)getpid() || n->n == MAX_NTF)
				continue;
			n->ev[n->n++] = ev[i];
		}
		last = n->n ? &n->ev[n->n - 1] : NULL;
		if (last && last->stale_engine == want->stale_engine &&
		    last->stale_cancel == want->stale_cancel &&
		    last->stale_token == want->stale_token &&
		    last->stale_user == want->stale_user &&
		    last->stale_published == want->stale_published) {
			n->matches = true;
			return 0;
		}
		if (got)
			continue;
		left = (int)(((__s64)(deadline - now_ns())) / (__s64)MS);
		if (left <= 0)
			return 0;	/* reported: matches stays false */
		if (poll(&pfd, 1, left) < 0 && errno != EINTR)
			return lib_fail("poll", -errno);
	}
}

/* ---- output ------------------------------------------------------------- */

/* 4096 -> "4,096" */
static const char *grouped(__u64 v, char *buf, size_t len)
{
	char tmp[32];
	size_t n, i, o = 0;

	n = (size_t)snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	for (i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

static const char *p95_text(const struct run *run, char *buf, size_t len)
{
	char g[32];

	if (run->p95_ret)
		return "unknown";
	snprintf(buf, len, "%s ms",
		 grouped((run->p95_ns + MS / 2) / MS, g, sizeof(g)));
	return buf;
}

static void print_row(const char *name, const char *a, const char *b)
{
	printf("| %-30s | %11s | %11s |\n", name, a, b);
}

static void print_row_u(const char *name, __u64 a, __u64 b)
{
	char x[32], y[32];

	print_row(name, grouped(a, x, sizeof(x)), grouped(b, y, sizeof(y)));
}

static const char *errno_name(int ret)
{
	switch (-ret) {
	case 0:
		return "0";
	case ENOENT:
		return "ENOENT";
	case EALREADY:
		return "EALREADY";
	case EBUSY:
		return "EBUSY";
	case EPERM:
		return "EPERM";
	default:
		return "other";
	}
}

/* the table for one run of the trace, and what it showed */
static void print_trace(const struct trace *t)
{
	int i;

	printf("| %-54s | %7s | %9s | %6s | %6s | %10s |\n", "State",
	       "Waiting", "Unretired", "Device", "Tokens", "Generation");
	printf("|--------------------------------------------------------|--------:|----------:|-------:|-------:|-----------:|\n");
	for (i = 0; i < t->nsteps; i++) {
		const struct step *s = &t->steps[i];
		char gen[24];

		/* the state where the generation moved on shows the move */
		if (i && s->gen != s[-1].gen)
			snprintf(gen, sizeof(gen), "%u -> %u", s[-1].gen,
				 s->gen);
		else
			snprintf(gen, sizeof(gen), "%u", s->gen);
		printf("| %-54s | %7llu | %9llu | %6llu | %6llu | %10s |\n",
		       s->what, (unsigned long long)s->logical,
		       (unsigned long long)s->physical,
		       (unsigned long long)s->d, (unsigned long long)s->tokens,
		       gen);
	}
	printf("\nLate cancel returned %s. The device report for generation %u returned %s;\n"
	       "stale_engine went %llu -> %llu. Nobody waited after the deadline, but the\n"
	       "buffer stayed unretired until the last token came back.\n\n",
	       errno_name(t->late_cancel), t->gen_before,
	       errno_name(t->stale_ret), (unsigned long long)t->stale_before,
	       (unsigned long long)t->stale_after);
}

static void print_text(const struct demo *d)
{
	const struct run *u = &d->runs[0], *b = &d->runs[1];
	const struct trace *t = &d->trace;
	char x[32], y[32];
	int i;

	printf("retirectl demo on %s\n\n",
	       d->dev ? d->dev : LIBRETIRE_DEFAULT_PATH);
	printf("1. Useful vs blocked: %d requests of %s bytes, each read by the device and\n"
	       "   sent to its own destination over a shared %s B/s link (a %d-byte burst),\n"
	       "   finishing %d ms after its last byte; the program polls for records every\n"
	       "   %d ms for %d s. The second run is the same except that no destination\n"
	       "   accepts a byte.\n\n",
	       NBODIES, grouped(BODY_BYTES, x, sizeof(x)),
	       grouped(RATE_BPS, y, sizeof(y)), BURST_BYTES, FINISH_MS,
	       PUMP_MS, OBSERVE_MS / 1000);
	print_row("Before cleanup", "Useful run", "Blocked run");
	printf("|--------------------------------|------------:|------------:|\n");
	print_row_u("Polls for records", u->pumps, b->pumps);
	print_row_u("Requests admitted", u->st.admitted, b->st.admitted);
	print_row_u("Bytes the device moved", u->st.engine_bytes,
		    b->st.engine_bytes);
	print_row_u("Results delivered", u->st.published, b->st.published);
	print_row_u("Bytes still owned", u->st.owned_bytes,
		    b->st.owned_bytes);
	print_row("p95 completion latency", p95_text(u, x, sizeof(x)),
		  p95_text(b, y, sizeof(y)));
	print_row_u("Owned bytes, high-water", u->st.owned_bytes_hwm,
		    b->st.owned_bytes_hwm);
	printf("\nThe table shows that activity is not progress: both runs polled and admitted\n"
	       "alike, but the blocked run's device never moved a byte, so it delivered\n"
	       "nothing, has no latency to report, and still owns its buffers.\n");
	printf("\nAfter cleanup: useful run owns %s bytes, blocked run owns %s bytes\n"
	       "(the cleanup cancelled %u and %u requests and retired every one).\n",
	       grouped(u->owned_after, x, sizeof(x)),
	       grouped(b->owned_after, y, sizeof(y)), u->cancelled,
	       b->cancelled);
	printf("Useful run's successful latencies (module-measured, admission to\n"
	       "terminal event):");
	for (i = 0; i < u->nlat; i++)
		printf(" %.1f", (double)u->lat[i] / MS);
	printf(" ms; p95 is nearest rank over them.\n\n");

	printf("2. Retirement trace: request R on a 4,096-byte buffer B, deadline %d ms,\n"
	       "   device latency %d ms, on the sim engine; slot %u. Each row is a state:\n"
	       "   requests someone still waits for, requests not yet retired, requests\n"
	       "   the device still holds, borrow tokens out, and R's slot generation.\n"
	       "   It shows that the deadline ends the wait but not the ownership: B goes\n"
	       "   back only after the device and the last borrower are done, and only\n"
	       "   then does the generation move on, so a late report naming R is refused.\n\n",
	       TRACE_DEADLINE_MS, TRACE_DEVICE_MS, t->slot);
	print_trace(t);
	if (d->have_edu) {
		printf("2b. The same trace on the edu engine: QEMU's edu PCI device at %s.\n"
		       "   The table must equal the sim's; the run differs only in that every\n"
		       "   byte moved by DMA through the DMA API, each transfer ended by its\n"
		       "   interrupt: %llu transfers for R and R'.\n\n",
		       d->edu_engine.device,
		       (unsigned long long)d->edu_transfers);
		print_trace(&d->edu);
	}

	printf("3. Stale notifications received over generic netlink (group \"stale\"):\n"
	       "   the module multicasts a context's stale counters when they move, so a\n"
	       "   monitor sees refused reports without polling; they must match the\n"
	       "   counters the trace's context reads by ioctl.\n");
	if (!d->ntf.n)
		printf("   none\n");
	for (i = 0; i < d->ntf.n; i++) {
		printf("   ");
		print_event(&d->ntf.ev[i], 0);
		putchar('\n');
	}
	printf("   %s the trace context's own counters (ioctl).\n\n",
	       d->ntf.matches ? "The last one matches" : "None matches");
	printf("%s\n", d->ok ? "Every invariant held." :
	       "AN INVARIANT FAILED (see above).");
}

static void json_run(const struct run *r)
{
	int i;

	printf("{\"pump_callbacks\":%u,\"admitted_bodies\":%llu,"
	       "\"bytes_submitted\":%llu,\"published_results\":%llu,"
	       "\"reserved_body_bytes\":%llu,\"successful_p95_ms\":",
	       r->pumps, (unsigned long long)r->st.admitted,
	       (unsigned long long)r->st.engine_bytes,
	       (unsigned long long)r->st.published,
	       (unsigned long long)r->st.owned_bytes);
	if (r->p95_ret)
		printf("\"unknown\"");
	else
		printf("%.3f", (double)r->p95_ns / MS);
	printf(",\"successful_latencies_ms\":[");
	for (i = 0; i < r->nlat; i++)
		printf("%s%.3f", i ? "," : "", (double)r->lat[i] / MS);
	printf("],\"owned_bytes_hwm\":%llu,\"owned_bytes_after_cleanup\":%llu}",
	       (unsigned long long)r->st.owned_bytes_hwm,
	       (unsigned long long)r->owned_after);
}

/* one run of the trace, as a JSON object */
static void json_trace(const struct trace *t)
{
	int i;

	printf("{\"buffer_bytes\":%d,\"deadline_ms\":%d,"
	       "\"device_latency_ms\":%d,\"slot\":%u,\"generation_before\":%u,"
	       "\"generation_after\":%u,\"steps\":[",
	       TRACE_BYTES, TRACE_DEADLINE_MS, TRACE_DEVICE_MS, t->slot,
	       t->gen_before, t->gen_after);
	for (i = 0; i < t->nsteps; i++) {
		const struct step *s = &t->steps[i];

		printf("%s{\"step\":\"%s\",\"logical_outstanding\":%llu,"
		       "\"physical_unretired\":%llu,\"d\":%llu,\"tokens\":%llu,"
		       "\"generation\":%u}", i ? "," : "", s->name,
		       (unsigned long long)s->logical,
		       (unsigned long long)s->physical,
		       (unsigned long long)s->d, (unsigned long long)s->tokens,
		       s->gen);
	}
	printf("],\"late_cancel\":\"%s\",\"stale_rejected\":\"%s\","
	       "\"stale_engine_before\":%llu,\"stale_engine_after\":%llu}",
	       errno_name(t->late_cancel), errno_name(t->stale_ret),
	       (unsigned long long)t->stale_before,
	       (unsigned long long)t->stale_after);
}

static void print_json(const struct demo *d)
{
	int i;

	printf("{\"device\":");
	json_string(d->dev ? d->dev : LIBRETIRE_DEFAULT_PATH);
	printf(",\"useful_vs_blocked\":{\"bodies\":%d,\"body_bytes\":%d,"
	       "\"rate_bps\":%d,\"burst_bytes\":%d,\"finish_ms\":%d,"
	       "\"pump_interval_ms\":%d,\"observed_ms\":%d,\"useful\":",
	       NBODIES, BODY_BYTES, RATE_BPS, BURST_BYTES, FINISH_MS, PUMP_MS,
	       OBSERVE_MS);
	json_run(&d->runs[0]);
	printf(",\"blocked\":");
	json_run(&d->runs[1]);
	printf("},\"trace\":");
	json_trace(&d->trace);
	printf(",\"edu\":");
	if (d->have_edu) {
		printf("{\"pci_device\":");
		json_string(d->edu_engine.device);
		printf(",\"engine\":%u,\"dma_transfers\":%llu,\"trace\":",
		       d->edu_engine.id,
		       (unsigned long long)d->edu_transfers);
		json_trace(&d->edu);
		putchar('}');
	} else {
		printf("null");
	}
	printf(",\"netlink\":{\"stale_notifications\":[");
	for (i = 0; i < d->ntf.n; i++) {
		if (i)
			putchar(',');
		print_event(&d->ntf.ev[i], 1);
	}
	printf("],\"matches_ioctl\":%s},\"ok\":%s}\n",
	       d->ntf.matches ? "true" : "false", d->ok ? "true" : "false");
}

/* ---- the command -------------------------------------------------------- */

/* the trace's invariants, for one run of it */
static void check_trace(struct demo *d, const struct trace *t)
{
	/* waiting, unretired, device-held, tokens at each state */
	static const __u64 want[NSTEPS][4] = {
		{ 1, 1, 1, 0 },		/* submitted */
		{ 0, 1, 1, 0 },		/* deadline expired */
		{ 0, 1, 0, 1 },		/* device finished, borrowed */
		{ 0, 1, 0, 1 },		/* late cancel */
		{ 0, 0, 0, 0 },		/* token returned: retired */
		{ 1, 1, 1, 0 },		/* R' */
		{ 1, 1, 1, 0 },		/* stale notification */
	};
	int i;

	check(d, t->nsteps == NSTEPS, "the trace has every step");
	check(d, t->slot_after == t->slot &&
	      t->gen_after == t->gen_before + 1,
	      "retirement moved the slot's generation on by exactly one");
	check(d, t->stale_ret == -ENOENT &&
	      t->stale_after == t->stale_before + 1,
	      "the stale notification was rejected and counted");
	for (i = 0; i < t->nsteps; i++) {
		const struct step *s = &t->steps[i];

		check(d, s->logical == want[i][0] && s->physical == want[i][1] &&
		      s->d == want[i][2] && s->tokens == want[i][3],
		      s->name);
	}
	check(d, !t->final.physical_outstanding && !t->final.owned_bytes &&
	      !t->final.tokens_out && !t->final.device_outstanding,
	      "the trace context ends with nothing outstanding");
}

static void check_all(struct demo *d)
{
	const struct run *u = &d->runs[0], *b = &d->runs[1];

	check(d, u->pumps == b->pumps, "both runs polled as often");
	check(d, u->st.admitted == NBODIES && b->st.admitted == NBODIES,
	      "both runs admitted every body");
	check(d, u->st.published == NBODIES, "the useful run published all");
	check(d, u->st.engine_bytes == NBODIES * BODY_BYTES,
	      "the useful run submitted every byte");
	check(d, !u->p95_ret, "the useful run has a p95");
	check(d, b->st.published == 0 && b->st.engine_bytes == 0,
	      "the blocked run submitted and published nothing");
	check(d, b->p95_ret == -ENODATA, "the blocked run's p95 is unknown");
	check(d, b->st.owned_bytes == NBODIES * BODY_BYTES,
	      "the blocked run still holds its bodies before cleanup");
	check(d, u->owned_after == 0 && b->owned_after == 0,
	      "both runs own zero bytes after cleanup");
	check_trace(d, &d->trace);
	if (d->have_edu) {
		check_trace(d, &d->edu);
		/* R and R', a page each: two 2 KiB chunks, each in and out */
		check(d, d->edu_transfers == 8,
		      "the edu engine moved R and R' in 8 DMA transfers");
	}
	check(d, d->ntf.matches,
	      "the netlink stale counters match the context's own");
}

int cmd_demo(const char *dev, int argc, char **argv)
{
	struct demo d = { .dev = dev, .ok = true };
	struct retire *r = NULL;
	int opt, ret, status;

	while ((opt = getopt(argc, argv, "+j")) != -1) {
		switch (opt) {
		case 'j':
			d.json = 1;
			break;
		default:
			fprintf(stderr, "usage: retirectl demo [-j]\n");
			return RETIRECTL_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "retirectl: demo: unexpected argument '%s'\n"
			"usage: retirectl demo [-j]\n", argv[optind]);
		return RETIRECTL_EXIT_USAGE;
	}

	ret = retire_open_device(&d.ctl, dev, 0);
	if (ret)
		return lib_fail("retire_open_device", ret);
	ret = retire_get_sim_config(d.ctl, &d.saved);
	if (ret) {
		status = lib_fail("retire_get_sim_config", ret);
		goto out_ctl;
	}
	/* subscribed before anything can go stale */
	ret = retire_open_monitor(&d.mon, RETIRE_MONITOR_STALE);
	if (ret) {
		status = lib_fail("retire_open_monitor", ret);
		goto out_ctl;
	}

	status = run_once(&d, false, &d.runs[0]);
	if (!status)
		status = run_once(&d, true, &d.runs[1]);
	if (!status) {
		ret = retire_open_device(&r, dev, 0);
		status = ret ? lib_fail("retire_open_device", ret) :
			 run_trace(&d, r, &d.trace);
	}
	if (!status)
		status = run_edu_trace(&d);
	if (!status)
		status = collect_ntf(&d, &d.trace.final);
	if (r)
		retire_close_device(r);
	retire_close_monitor(d.mon);

	/* the engine is module-wide: leave it as it was found */
	ret = set_engine(&d, &d.saved);
	if (ret && !status)
		status = lib_fail("retire_set_sim_config", ret);
	if (status)
		goto out_ctl;

	check_all(&d);
	if (d.json)
		print_json(&d);
	else
		print_text(&d);
	if (fflush(stdout) == EOF)
		status = lib_fail("fflush", -errno);
	else if (!d.ok)
		status = RETIRECTL_EXIT_INVARIANT;
out_ctl:
	retire_close_device(d.ctl);
	return status;
}
