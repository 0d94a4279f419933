// SPDX-License-Identifier: MIT
/*
 * rings: a batch of requests through the submission and completion rings.
 *
 * Eight requests go in with one call, each flagged both AUTO_RETIRE and
 * ONE_RECORD (RETIRE_SQE_F_*): the caller makes no RETIRE call, and reads
 * one record per request, a completed TERMINAL record that says the request
 * retired with it (RETIRE_CQE_F_RETIRED). Twice: first through libretire's
 * queue (retire_queue_init(): the first queue of a context drives the
 * context's rings, where the module has them and memory allows, else
 * arrays of its own), then, on a second context, through what that queue
 * is built on: RETIRE_IOC_RING_SETUP, mmap() and RETIRE_IOC_ENTER with
 * RETIRE_ENTER_F_RINGS.
 *
 * Exit: 0 success, 1 failure (with a message), 4 skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "example.h"

#define NR	8
#define PAGE	4096

/* request i reads buffer i; user_data i says which record is whose */
static void prep(struct retire_op *op, __u64 buf, unsigned int i)
{
	retire_prep_submit(op, buf, 0, PAGE, RETIRE_DEV_READ, i);
	op->flags = RETIRE_SQE_F_AUTO_RETIRE | RETIRE_SQE_F_ONE_RECORD;
}

/* a request's one record: completed, and it retired with it */
static int check_record(const struct retire_cqe *c, unsigned int *seen)
{
	if (c->type == RETIRE_REC_TERMINAL &&
	    c->outcome == RETIRE_OUTCOME_COMPLETED &&
	    c->flags & RETIRE_CQE_F_RETIRED && c->user_data < NR &&
	    !(*seen & 1U << c->user_data)) {
		*seen |= 1U << c->user_data;
		return 0;
	}
	fprintf(stderr, "rings: unexpected record: type %u, outcome %u, flags 0x%x, user_data %llu\n",
		c->type, c->outcome, c->flags,
		(unsigned long long)c->user_data);
	return 1;
}

/* every request gave its record, and the module counts them retired */
static int check_batch(struct retire *r, const char *how, unsigned int n,
		       unsigned int seen)
{
	struct retire_stats st;
	int ret;

	ret = retire_get_stats(r, &st, 0);
	if (ret)
		return example_fail("retire_get_stats", ret);
	if (seen != (1U << NR) - 1 || st.retired != NR) {
		fprintf(stderr, "rings: %s: %u records, %llu retired: expected %u, %u\n",
			how, n, (unsigned long long)st.retired, NR, NR);
		return 1;
	}
	printf("%s: %u records, each a completed TERMINAL, %llu retired\n",
	       how, n, (unsigned long long)st.retired);
	return 0;
}

static int with_queue(struct retire *r, const __u64 *buf)
{
	struct retire_cqe *cqes[NR];
	struct retire_op *ops[NR];
	struct retire_queue *q;
	unsigned int i, n, seen = 0;
	int ret;

	ret = retire_queue_init(r, NR, &q);
	if (ret)
		return example_fail("retire_queue_init", ret);
	printf("queue: on the context's rings: %s, holds %d records\n",
	       retire_queue_uses_rings(q) ? "yes" : "no (arrays)",
	       retire_queue_cq_entries(q));
	for (i = 0; i < NR; i++) {
		ops[i] = retire_queue_get_op(q);	/* room for NR */
		prep(ops[i], buf[i], i);
	}
	/* run the batch, and wait until the queue holds NR records */
	ret = retire_queue_submit_and_wait(q, NR, 5000 * MS);
	if (ret != NR) {
		ret = example_fail("retire_queue_submit_and_wait",
				   ret < 0 ? ret : -EIO);
		goto out;
	}
	for (i = 0; i < NR; i++) {
		if (ops[i]->result) {
			ret = example_fail("submit", ops[i]->result);
			goto out;
		}
	}
	n = retire_queue_peek_batch_cqe(q, cqes, NR);
	for (i = 0; i < n; i++) {
		if (check_record(cqes[i], &seen)) {
			ret = 1;
			goto out;
		}
	}
	retire_queue_cq_advance(q, n);	/* read: their slots may be reused */
	ret = check_batch(r, "queue", n, seen);
out:
	retire_queue_exit(q);
	return ret;
}

static int with_rings(struct retire *r, const __u64 *buf)
{
	struct retire_ring_setup s = { .sq_entries = NR, .cq_entries = NR };
	struct retire_enter e = { .nr_ops = NR, .min_complete = NR,
				  .flags = RETIRE_ENTER_F_RINGS,
				  .timeout_ns = 5000 * MS };
	__u32 *sq_tail, *cq_head, *cq_tail, sq_mask, cq_mask, tail, head;
	unsigned int i, n, seen = 0;
	int fd = retire_get_fd(r);
	struct retire_op *sqes;
	struct retire_cqe *cqes;
	char *map;
	int ret;

	/* the rings are charged to RLIMIT_MEMLOCK, unless CAP_IPC_LOCK */
	if (ioctl(fd, RETIRE_IOC_RING_SETUP, &s)) {
		if (errno != ENOMEM)
			return example_fail("RETIRE_IOC_RING_SETUP", -errno);
		fprintf(stderr, "rings: SKIP: RLIMIT_MEMLOCK is too low for the rings (run as root)\n");
		return EXAMPLE_SKIP;
	}
	map = mmap(NULL, s.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   RETIRE_RING_OFFSET);
	if (map == MAP_FAILED)
		return example_fail("mmap", -errno);
	sq_tail = (__u32 *)(map + s.off.sq_tail);
	sq_mask = *(__u32 *)(map + s.off.sq_mask);
	sqes = (struct retire_op *)(map + s.off.sqes);
	cq_head = (__u32 *)(map + s.off.cq_head);
	cq_tail = (__u32 *)(map + s.off.cq_tail);
	cq_mask = *(__u32 *)(map + s.off.cq_mask);
	cqes = (struct retire_cqe *)(map + s.off.cqes);
	printf("rings: %u bytes mapped, %u operations, %u records\n", s.size,
	       sq_mask + 1, cq_mask + 1);

	/* sq_tail is ours: fill the entries, then publish it (release) */
	tail = *sq_tail;
	for (i = 0; i < NR; i++)
		prep(&sqes[(tail + i) & sq_mask], buf[i], i);
	__atomic_store_n(sq_tail, tail + NR, __ATOMIC_RELEASE);
	/* take NR operations, and wait until the ring holds NR records */
	if (ioctl(fd, RETIRE_IOC_ENTER, &e)) {
		ret = example_fail("RETIRE_IOC_ENTER", -errno);
		goto out;
	}
	/* each operation's result is written back into its entry */
	for (i = 0; i < NR; i++) {
		ret = sqes[(tail + i) & sq_mask].result;
		if (ret) {
			ret = example_fail("submit", ret);
			goto out;
		}
	}
	/* the records from cq_head to cq_tail (the module's: acquire) */
	head = *cq_head;
	n = __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) - head;
	for (i = 0; i < n; i++) {
		if (check_record(&cqes[(head + i) & cq_mask], &seen)) {
			ret = 1;
			goto out;
		}
	}
	__atomic_store_n(cq_head, head + n, __ATOMIC_RELEASE);	/* read */
	ret = check_batch(r, "raw rings", n, seen);
out:
	/* the mapping holds the file: unmap before closing */
	munmap(map, s.size);
	return ret;
}

/* @batch on NR buffers of a page, allocated on @r for it */
static int on_buffers(struct retire *r,
		      int (*batch)(struct retire *r, const __u64 *buf))
{
	__u64 buf[NR];
	int ret = 0, i, n;

	for (n = 0; n < NR; n++) {
		ret = retire_alloc_buffer(r, PAGE, &buf[n], NULL);
		if (ret) {
			ret = example_fail("retire_alloc_buffer", ret);
			break;
		}
	}
	if (!ret)
		ret = batch(r, buf);
	for (i = 0; i < n; i++)
		if (retire_unregister_buffer(r, buf[i]) && !ret)
			ret = example_fail("retire_unregister_buffer", -EPROTO);
	return ret;
}

int main(void)
{
	const __u64 need = RETIRE_FEAT_ENTER | RETIRE_FEAT_RINGS |
			   RETIRE_FEAT_ONE_RECORD;
	struct retire *r, *r2;
	int ret;

	ret = example_open("rings", &r);
	if (ret)
		return ret;
	ret = example_require(r, need, "rings or no RETIRE_SQE_F_ONE_RECORD");
	if (ret)
		goto out_close;
	ret = on_buffers(r, with_queue);
	if (ret)
		goto out_close;

	/* a context has one pair of rings for life: a new one, for new rings */
	ret = retire_open_device(&r2, NULL, 0);
	if (ret) {
		ret = example_fail("retire_open_device", ret);
		goto out_close;
	}
	ret = on_buffers(r2, with_rings);
	retire_close_device(r2);
out_close:
	retire_close_device(r);
	if (!ret)
		printf("rings: ok\n");
	return ret;
}
