// SPDX-License-Identifier: GPL-2.0
/*
 * history_ctx: a context for retirectl_test.sh to watch.
 *
 *   history_ctx seq [SECONDS]
 *	Opens a context and gives it a known history: 300 cancels of a
 *	handle never issued (stale, so the oldest are overwritten), then one
 *	request through its whole life (submit, activate, terminal, a late
 *	cancel, borrow, handoff, a return with -EPIPE that retires it) and
 *	two stale handles (a cancel of the retired request, a return of the
 *	handed-off token). Prints "ctx ID", one "expect EVENT ..." line per
 *	event of the request's life, in the words retirectl history uses
 *	(a prefix of its line without the time), "recorded N" and "ready",
 *	then keeps the context open until SIGTERM or SIGINT, or SECONDS
 *	(default 60) have passed.
 *
 *   history_ctx load MS
 *	Opens a context and, for MS milliseconds, admits and retires
 *	requests of 64 bytes, 16 at a time (auto-retired as their record is
 *	read); prints "ctx ID" at the start and "admitted N" at the end.
 *
 * Needs no privilege and changes no module-wide knob; a request must
 * complete within 5 s (the sim engine as it is left between tests).
 * Exit: 0, 1 on an unexpected answer, 4 if /dev/retire is absent.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libretire.h"
#include <linux/retire_names.h>

#define PAD		300
#define BATCH		16
#define WAIT_NS		5000000000ULL

/* slot 7, generation 1 of a fresh context: never issued */
#define FORGED_REQ	(((__u64)RETIRE_KIND_REQ << 56) | (7ULL << 32) | 1)

static int fail(const char *what, int ret)
{
	fprintf(stderr, "history_ctx: %s: %s\n", what, strerror(-ret));
	return 1;
}

/* "req slot 3 gen 1", as retirectl prints a handle */
static const char *h(__u64 handle)
{
	static char buf[4][48];
	static int i;
#define KIND(NAME, name)	[RETIRE_KIND_##NAME] = #name,
	static const char *const kinds[] = {
		[0] = "kind0", RETIRE_KIND_NAMES(KIND, KIND)
	};
#undef KIND
	char *b = buf[i++ % 4];

	snprintf(b, sizeof(buf[0]), "%s slot %u gen %u",
		 RETIRE_HANDLE_KIND(handle) < sizeof(kinds) / sizeof(kinds[0]) ?
		 kinds[RETIRE_HANDLE_KIND(handle)] : "?",
		 RETIRE_HANDLE_SLOT(handle), RETIRE_HANDLE_GEN(handle));
	return b;
}

/* the next record, waiting up to WAIT_NS */
static int reap_one(struct retire *r, struct retire_cqe *cqe)
{
	int n = retire_reap_records(r, cqe, 1, 1, WAIT_NS);

	return n == 1 ? 0 : n < 0 ? n : -ETIMEDOUT;
}

static int seq(struct retire *r, unsigned int seconds)
{
	struct retire_history_info info;
	struct retire_cqe cqe;
	struct retire_sqe sqe;
	struct timespec ts = { .tv_sec = seconds };
	__u64 buf, req, tok1, tok2;
	sigset_t set;
	int i, ret;

	for (i = 0; i < PAD; i++) {
		ret = retire_cancel_request(r, FORGED_REQ);
		if (ret != -ENOENT)
			return fail("cancel of a forged handle", ret ?: -EPROTO);
	}
	ret = retire_alloc_buffer(r, 4096, &buf, NULL);
	if (ret)
		return fail("retire_alloc_buffer", ret);
	retire_prep_request(&sqe, buf, 0, 4096, RETIRE_DEV_WRITE, 1);
	ret = retire_submit_requests(r, &sqe, 1);
	if (ret != 1 || sqe.result)
		return fail("retire_submit_requests", ret < 0 ? ret : sqe.result);
	req = sqe.handle;
	do {
		ret = reap_one(r, &cqe);
		if (ret)
			return fail("waiting for the terminal record", ret);
	} while (cqe.type != RETIRE_REC_TERMINAL);
	if (cqe.outcome != RETIRE_OUTCOME_COMPLETED)
		return fail("the request did not complete", -EPROTO);
	ret = retire_cancel_request(r, req);
	if (ret != -ENOENT)
		return fail("a late cancel", ret ?: -EPROTO);
	ret = retire_borrow_token(r, req, &tok1);
	if (ret)
		return fail("retire_borrow_token", ret);
	ret = retire_handoff_token(r, tok1, &tok2);
	if (ret)
		return fail("retire_handoff_token", ret);
	/* consumed now, retired when its last token is back */
	ret = retire_release_request(r, req);
	if (ret)
		return fail("retire_release_request", ret);
	ret = retire_return_token(r, tok2, -EPIPE);
	if (ret)
		return fail("retire_return_token", ret);
	ret = retire_cancel_request(r, req);
	if (ret != -ENOENT)
		return fail("a cancel of the retired request", ret ?: -EPROTO);
	ret = retire_return_token(r, tok1, 0);
	if (ret != -ENOENT)
		return fail("a return of the handed-off token", ret ?: -EPROTO);

	ret = retire_read_history(r, 0, NULL, 0, &info);
	if (ret)
		return fail("retire_read_history", ret);
	printf("ctx %llu\n", (unsigned long long)info.ctx_id);
	printf("expect submit %s write len 4096\n", h(req));
	printf("expect activate %s\n", h(req));
	printf("expect terminal %s completed\n", h(req));
	printf("expect cancel %s result ENOENT\n", h(req));
	printf("expect borrow %s -> %s\n", h(req), h(tok1));
	printf("expect handoff %s new %s\n", h(req), h(tok2));
	printf("expect return %s <- %s error EPIPE\n", h(req), h(tok2));
	printf("expect retire %s\n", h(req));
	printf("expect stale %s counter cancel found gen\n", h(req));
	printf("expect stale %s counter token found gen\n", h(tok1));
	printf("recorded %llu\n", (unsigned long long)info.recorded);
	printf("ready\n");
	fflush(stdout);

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (sigtimedwait(&set, NULL, &ts) < 0 && errno != EAGAIN)
		return fail("sigtimedwait", -errno);
	return 0;
}

static unsigned long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * SIGTERM ends the load between batches: the test stops it after top.
 * It stays blocked, so it never interrupts a wait for a record; the loop
 * looks for it pending.
 */
static bool load_stopped(void)
{
	sigset_t pending;

	return !sigpending(&pending) && sigismember(&pending, SIGTERM) == 1;
}

static int load(struct retire *r, unsigned long ms)
{
	struct retire_history_info info;
	struct retire_sqe sqe[BATCH];
	struct retire_cqe cqe;
	unsigned long long end, admitted = 0;
	__u64 buf[BATCH];
	sigset_t term;
	int i, ret, left;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	for (i = 0; i < BATCH; i++) {
		ret = retire_alloc_buffer(r, 4096, &buf[i], NULL);
		if (ret)
			return fail("retire_alloc_buffer", ret);
	}
	ret = retire_read_history(r, 0, NULL, 0, &info);
	if (ret)
		return fail("retire_read_history", ret);
	printf("ctx %llu\n", (unsigned long long)info.ctx_id);
	fflush(stdout);

	end = now_ms() + ms;
	do {
		for (i = 0; i < BATCH; i++) {
			retire_prep_request(&sqe[i], buf[i], 0, 64,
					    RETIRE_DEV_WRITE, i);
			sqe[i].flags = RETIRE_SQE_F_AUTO_RETIRE |
				       RETIRE_SQE_F_ONE_RECORD;
		}
		ret = retire_submit_requests(r, sqe, BATCH);
		if (ret != BATCH)
			return fail("retire_submit_requests",
				    ret < 0 ? ret : -EPROTO);
		admitted += BATCH;
		/* each retires, its buffer free again, as its record is read */
		for (left = BATCH; left; ) {
			ret = reap_one(r, &cqe);
			if (ret)
				return fail("waiting for a record", ret);
			if (cqe.type == RETIRE_REC_TERMINAL &&
			    cqe.flags & RETIRE_CQE_F_RETIRED)
				left--;
		}
	} while (!load_stopped() && now_ms() < end);
	printf("admitted %llu\n", admitted);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long arg = 0;
	struct retire *r;
	int ret;

	if (argc == 3)
		arg = strtoul(argv[2], NULL, 0);
	if (argc < 2 || argc > 3 ||
	    (strcmp(argv[1], "seq") && strcmp(argv[1], "load")) ||
	    (!strcmp(argv[1], "load") && !arg)) {
		fprintf(stderr, "usage: %s seq [SECONDS] | load MS\n", argv[0]);
		return 1;
	}
	ret = retire_open_device(&r, NULL, 0);
	if (ret == -ENOENT) {
		fprintf(stderr, "history_ctx: /dev/retire is absent\n");
		return 4;
	}
	if (ret)
		return fail("retire_open_device", ret);
	if (!strcmp(argv[1], "seq"))
		ret = seq(r, arg ? arg : 60);
	else
		ret = load(r, arg);
	retire_close_device(r);
	return ret;
}
