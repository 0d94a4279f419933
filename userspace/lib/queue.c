// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libretire: a queue over RETIRE_IOC_ENTER, shaped like liburing's ring.
 *
 * Operations are taken from an array the queue owns and run together by
 * one ioctl, which also reaps records into the queue's record array. A
 * taken operation keeps its result (and the handle it returned) until the
 * next retire_queue_get_op() after the submission; records stay until
 * retire_queue_cqe_seen() passes them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libretire.h"

struct retire_queue {
	struct retire *r;
	unsigned int entries;
	unsigned int nr_ops;	/* taken since the last submission */
	int submitted;		/* the last call ran them: restart at 0 */
	unsigned int head;	/* first unseen record */
	unsigned int tail;	/* one past the last record */
	struct retire_op *ops;
	struct retire_cqe *cqes;
};

int retire_queue_init(struct retire *r, unsigned int entries,
		      struct retire_queue **qp)
{
	struct retire_queue *q;

	if (!r || !qp || !entries || entries > RETIRE_SUBMIT_MAX)
		return -EINVAL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->ops = calloc(entries, sizeof(*q->ops));
	/* room for two records per operation: TERMINAL and RETIRED */
	q->cqes = calloc(RETIRE_SUBMIT_MAX, sizeof(*q->cqes));
	if (!q->ops || !q->cqes) {
		retire_queue_exit(q);
		return -ENOMEM;
	}
	q->r = r;
	q->entries = entries;
	*qp = q;
	return 0;
}

void retire_queue_exit(struct retire_queue *q)
{
	if (!q)
		return;
	free(q->ops);
	free(q->cqes);
	free(q);
}

struct retire_op *retire_queue_get_op(struct retire_queue *q)
{
	if (!q)
		return NULL;
	if (q->submitted) {
		q->submitted = 0;
		q->nr_ops = 0;
	}
	if (q->nr_ops == q->entries)
		return NULL;
	/* never a stale operation: an unfilled one is refused (opcode 0) */
	memset(&q->ops[q->nr_ops], 0, sizeof(q->ops[0]));
	return &q->ops[q->nr_ops++];
}

int retire_queue_submit_and_wait(struct retire_queue *q,
				 unsigned int wait_nr, __u64 timeout_ns)
{
	unsigned int nr_ops, room;
	int ret;

	if (!q)
		return -EINVAL;
	nr_ops = q->submitted ? 0 : q->nr_ops;
	/* unseen records move to the front; the rest of the array is room */
	if (q->head) {
		memmove(q->cqes, q->cqes + q->head,
			(q->tail - q->head) * sizeof(*q->cqes));
		q->tail -= q->head;
		q->head = 0;
	}
	room = RETIRE_SUBMIT_MAX - q->tail;
	if (!nr_ops && !room)
		return 0;
	if (wait_nr > room)
		wait_nr = room;
	ret = retire_enter(q->r, q->ops, nr_ops, room ? q->cqes + q->tail : NULL,
			   room, wait_nr, timeout_ns);
	if (ret == -EINTR && !nr_ops)
		return ret;
	if (ret < 0 && ret != -EINTR)
		return ret;
	if (ret > 0)
		q->tail += ret;
	q->submitted = 1;
	return (int)nr_ops;
}

int retire_queue_peek_cqe(struct retire_queue *q, struct retire_cqe **cqe)
{
	if (!q || !cqe)
		return -EINVAL;
	if (q->head == q->tail)
		return -EAGAIN;
	*cqe = &q->cqes[q->head];
	return 0;
}

void retire_queue_cqe_seen(struct retire_queue *q)
{
	if (q && q->head < q->tail)
		q->head++;
}
