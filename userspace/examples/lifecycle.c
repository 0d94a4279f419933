// SPDX-License-Identifier: MIT
/*
 * lifecycle: one request from submission to retirement, when the device
 * finishes after the caller has stopped waiting.
 *
 * The caller pins a page of its own memory, gives it to the device with a
 * 50 ms deadline, and the (simulated) device takes 300 ms. The deadline
 * produces a TIMEOUT record, but the device still holds the page, so the
 * module refuses to hand it back. Only after the device's late completion
 * does the request retire: exactly once, after which its handle is stale.
 *
 * Run as root (the sim engine's latency is a module-wide setting).
 * Exit: 0 success, 1 failure (with a message), 4 skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "example.h"

#define PAGE	4096

/* the story itself: the part the README shows */
static int lifecycle(struct retire *r, __u64 buf)
{
	struct retire_sqe sqe;
	struct retire_cqe cqe;
	__u64 req;
	int ret;

	/* the device may read the whole page; stop waiting after 50 ms */
	retire_prep_request(&sqe, buf, 0, PAGE, RETIRE_DEV_READ, 42);
	sqe.deadline_ns = 50 * MS;
	ret = retire_submit_requests(r, &sqe, 1);
	if (ret != 1)
		return example_fail("submit", ret < 0 ? ret : sqe.result);
	req = sqe.handle;

	/* 50 ms: the deadline passes, but the device still owns the page */
	if (example_expect(r, req, RETIRE_REC_TIMEOUT, &cqe))
		return 1;
	printf("TIMEOUT: device still holds the buffer: %s\n",
	       cqe.flags & RETIRE_CQE_F_OUTSTANDING ? "yes" : "no");
	/* so giving it back now is refused: the device could still read it */
	ret = retire_release_request(r, req);
	if (ret != -EBUSY)
		return example_fail("early retire, expected EBUSY, got", ret);

	/* 300 ms: the device completes, late; only now may the page go */
	if (example_expect(r, req, RETIRE_REC_TERMINAL, &cqe))
		return 1;
	printf("TERMINAL: outcome %u (1 = completed), after the deadline: %s\n",
	       cqe.outcome, cqe.flags & RETIRE_CQE_F_TIMED_OUT ? "yes" : "no");
	ret = retire_release_request(r, req);
	if (ret)
		return example_fail("retire", ret);
	if (example_expect(r, req, RETIRE_REC_RETIRED, &cqe))
		return 1;
	printf("RETIRED: the page is back in its pool\n");

	/* exactly once: the handle is stale from now on */
	ret = retire_release_request(r, req);
	if (ret != -ENOENT)
		return example_fail("second retire, expected ENOENT, got", ret);
	return 0;
}

int main(void)
{
	struct retire_sim_config saved;
	struct retire_stats st;
	struct retire_cqe extra;
	struct retire *r;
	__u64 buf;
	void *mem;
	int ret;

	ret = example_open("lifecycle", &r);
	if (ret)
		return ret;
	ret = example_slow_sim(r, 300 * MS, &saved);
	if (ret)
		goto out_close;

	/* our own page: the module pins it until the buffer is unregistered */
	mem = aligned_alloc(PAGE, PAGE);
	ret = mem ? retire_pin_buffer(r, mem, PAGE, &buf) : -ENOMEM;
	if (ret) {
		ret = example_fail("retire_pin_buffer", ret);
		goto out_sim;
	}

	ret = lifecycle(r, buf);

	/* the module's own count agrees: one admitted, one retired */
	if (!ret && retire_reap_records(r, &extra, 1, 0, 0) != 0)
		ret = example_fail("a record after RETIRED", -EPROTO);
	if (!ret && (retire_get_stats(r, &st, 0) || st.admitted != 1 ||
		     st.retired != 1)) {
		fprintf(stderr, "lifecycle: admitted %llu, retired %llu: expected 1, 1\n",
			(unsigned long long)st.admitted,
			(unsigned long long)st.retired);
		ret = 1;
	}
	if (retire_unregister_buffer(r, buf) && !ret)
		ret = example_fail("retire_unregister_buffer", -EPROTO);
	free(mem);
out_sim:
	if (example_restore_sim(r, &saved) && !ret)
		ret = 1;
out_close:
	retire_close_device(r);
	if (!ret)
		printf("lifecycle: ok\n");
	return ret;
}
