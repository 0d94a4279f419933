// SPDX-License-Identifier: MIT
/*
 * borrow: a result read by consumers after its owner is done with it.
 *
 * The device writes a result into a buffer. The owner reads the TERMINAL
 * record, lends the buffer to consumer A with a borrow token, and retires
 * the request at once: it has no more use for it. A hands its token off to
 * consumer B (A's token dies, B gets a new one), B reads the result and
 * returns its token. The buffer goes back to its pool only then: retirement
 * waits for the last token out, whoever holds it.
 *
 * Run as root (the sim engine's latency is a module-wide setting).
 * Exit: 0 success, 1 failure (with a message), 4 skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>

#include "example.h"

#define PAGE	4096

/* the request must not have retired yet: no RETIRED record, still counted */
static int still_held(struct retire *r, const char *when)
{
	struct retire_stats st;
	struct retire_cqe cqe;
	int n;

	n = retire_reap_records(r, &cqe, 1, 0, 0);	/* look, don't wait */
	if (n != 0 || retire_get_stats(r, &st, 0) || st.retired != 0) {
		fprintf(stderr, "borrow: retired too early: %s\n", when);
		return 1;
	}
	printf("%s: not retired, %llu token(s) out\n", when,
	       (unsigned long long)st.tokens_out);
	return 0;
}

static int borrow(struct retire *r, __u64 buf, const unsigned char *map)
{
	struct retire_cqe cqe;
	__u64 req, tok_a, tok_b;
	int ret;

	/* the device writes the page (the sim writes user_data + i) */
	if (example_run_one(r, buf, PAGE, RETIRE_DEV_WRITE, 7, &req, &cqe))
		return 1;

	/* consumer A borrows; then the owner lets go of the request */
	ret = retire_borrow_token(r, req, &tok_a);
	if (ret)
		return example_fail("borrow", ret);
	ret = retire_release_request(r, req);
	if (ret)
		return example_fail("retire", ret);
	if (still_held(r, "owner retired, A holds a token"))
		return 1;

	/* A passes the result on to B: one token out, never zero */
	ret = retire_handoff_token(r, tok_a, &tok_b);
	if (ret)
		return example_fail("handoff", ret);
	ret = retire_return_token(r, tok_a, 0);	/* A's token is dead now */
	if (ret != -ENOENT)
		return example_fail("return of a handed-off token, got", ret);
	if (still_held(r, "A handed off to B"))
		return 1;

	/* B reads the device's result: the buffer cannot have been reused */
	printf("B reads byte 0: %u (the device wrote 7)\n", map[0]);
	if (map[0] != 7)
		return example_fail("B read the wrong byte", -EIO);
	ret = retire_return_token(r, tok_b, 0);
	if (ret)
		return example_fail("return", ret);

	/* the last token is back: the request retires, once */
	if (example_expect(r, req, RETIRE_REC_RETIRED, &cqe))
		return 1;
	printf("RETIRED after B returned the last token\n");
	return 0;
}

int main(void)
{
	struct retire_sim_config saved;
	struct retire *r;
	__u64 buf;
	void *map;
	int ret;

	ret = example_open("borrow", &r);
	if (ret)
		return ret;
	ret = example_slow_sim(r, 10 * MS, &saved);
	if (ret)
		goto out_close;

	/* a page of the module's pool, mapped into this process */
	ret = retire_alloc_buffer(r, PAGE, &buf, &map);
	if (ret) {
		ret = example_fail("retire_alloc_buffer", ret);
		goto out_sim;
	}
	ret = borrow(r, buf, map);
	munmap(map, PAGE);
	if (retire_unregister_buffer(r, buf) && !ret)
		ret = example_fail("retire_unregister_buffer", -EPROTO);
out_sim:
	if (example_restore_sim(r, &saved) && !ret)
		ret = 1;
out_close:
	retire_close_device(r);
	if (!ret)
		printf("borrow: ok\n");
	return ret;
}
