// SPDX-License-Identifier: MIT
/*
 * cancel: the two answers a cancel gives a request in flight.
 *
 * The context lets one request at a time on the device, and the (simulated)
 * device takes 500 ms. The caller submits A, which goes to the device, and
 * B, which waits behind it; then it cancels both. B had not started, so
 * its cancel removes it (0): it ends at once, cancelled, its buffer never
 * touched. A's cancel comes too late (-EALREADY): the device holds A's
 * buffer, and nothing can take it back before the device lets go, so A
 * ends only when the device is done, and its result is not published as
 * completed (outcome stale). Each cancel also gives a CANCEL_ACK record
 * carrying its answer.
 *
 * Run as root (the sim engine's latency is a module-wide setting).
 * Exit: 0 success, 1 failure (with a message), 4 skipped.
 */
#include <errno.h>
#include <stdio.h>

#include "example.h"

#define PAGE	4096

/* the next record: of @type for @req, with @outcome and @error */
static int expect(struct retire *r, __u64 req, __u32 type, __u32 outcome,
		  int error, struct retire_cqe *cqe)
{
	if (example_expect(r, req, type, cqe))
		return 1;
	if (cqe->outcome == outcome && cqe->error == error)
		return 0;
	fprintf(stderr, "cancel: record type %u: expected outcome %u error %d, got %u, %d\n",
		type, outcome, error, cqe->outcome, cqe->error);
	return 1;
}

static int cancel_both(struct retire *r, const __u64 *buf)
{
	struct retire_sqe sqe[2];
	struct retire_cqe cqe;
	__u64 a, b;
	int ret, i;

	/* A, then B, a buffer each: a buffer serves one request at a time */
	retire_prep_request(&sqe[0], buf[0], 0, PAGE, RETIRE_DEV_READ, 'A');
	retire_prep_request(&sqe[1], buf[1], 0, PAGE, RETIRE_DEV_READ, 'B');
	ret = retire_submit_requests(r, sqe, 2);
	if (ret < 0)
		return example_fail("submit", ret);
	for (i = 0; i < 2; i++)
		if (sqe[i].result)
			return example_fail("submit", sqe[i].result);
	a = sqe[0].handle;
	b = sqe[1].handle;

	/* A is on the device: too late, the device must finish with it */
	ret = retire_cancel_request(r, a);
	if (ret != -EALREADY)
		return example_fail("cancel of A, expected EALREADY, got", ret);
	printf("cancel A (on the device): EALREADY\n");
	/* B is still waiting: removed, it never reaches the device */
	ret = retire_cancel_request(r, b);
	if (ret)
		return example_fail("cancel of B", ret);
	printf("cancel B (waiting): 0\n");

	/* each cancel's CANCEL_ACK record carries its answer */
	if (expect(r, a, RETIRE_REC_CANCEL_ACK,
		   RETIRE_OUTCOME_OUTSTANDING_WORK, -EALREADY, &cqe))
		return 1;
	printf("A: CANCEL_ACK, error EALREADY, device still holds the buffer: %s\n",
	       cqe.flags & RETIRE_CQE_F_OUTSTANDING ? "yes" : "no");
	if (expect(r, b, RETIRE_REC_CANCEL_ACK,
		   RETIRE_OUTCOME_CANCEL_REQUESTED, 0, &cqe))
		return 1;
	printf("B: CANCEL_ACK, error 0\n");
	/* B ends at once, cancelled */
	if (expect(r, b, RETIRE_REC_TERMINAL, RETIRE_OUTCOME_CANCELLED,
		   -ECANCELED, &cqe))
		return 1;
	printf("B: TERMINAL, cancelled (ECANCELED)\n");

	/* 500 ms: A's device finishes, but a cancel found A: not published */
	if (expect(r, a, RETIRE_REC_TERMINAL, RETIRE_OUTCOME_STALE, 0, &cqe))
		return 1;
	if (!(cqe.flags & RETIRE_CQE_F_CANCEL_REQUESTED) ||
	    cqe.flags & RETIRE_CQE_F_MEASURED)
		return example_fail("A's TERMINAL flags", -EPROTO);
	printf("A: TERMINAL, stale: the device finished, no result published\n");

	/* cancelled or not, each request is retired as usual */
	for (i = 0; i < 2; i++) {
		ret = retire_release_request(r, sqe[i].handle);
		if (ret)
			return example_fail("retire", ret);
		if (example_expect(r, sqe[i].handle, RETIRE_REC_RETIRED, &cqe))
			return 1;
	}
	printf("A and B: RETIRED\n");
	return 0;
}

int main(void)
{
	struct retire_sim_config saved;
	struct retire_limits lim;
	struct retire *r;
	__u64 buf[2];
	int ret, i, n;

	ret = example_open("cancel", &r);
	if (ret)
		return ret;
	/* one request on the device at a time: this context's own limit */
	ret = retire_get_limits(r, &lim);
	if (!ret) {
		lim.max_active = 1;
		lim.max_active_per_key = 1;
		ret = retire_set_limits(r, &lim);
	}
	if (ret) {
		ret = example_fail("retire_set_limits", ret);
		goto out_close;
	}
	ret = example_slow_sim(r, 500 * MS, &saved);
	if (ret)
		goto out_close;

	for (n = 0; n < 2; n++) {
		ret = retire_alloc_buffer(r, PAGE, &buf[n], NULL);
		if (ret) {
			ret = example_fail("retire_alloc_buffer", ret);
			goto out_buf;
		}
	}
	ret = cancel_both(r, buf);
out_buf:
	for (i = 0; i < n; i++)
		if (retire_unregister_buffer(r, buf[i]) && !ret)
			ret = example_fail("retire_unregister_buffer", -EPROTO);
	if (example_restore_sim(r, &saved) && !ret)
		ret = 1;
out_close:
	retire_close_device(r);
	if (!ret)
		printf("cancel: ok\n");
	return ret;
}
