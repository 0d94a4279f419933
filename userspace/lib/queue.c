// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libretire: a queue over RETIRE_IOC_ENTER, shaped like liburing's ring.
 *
 * Where the module has rings (RETIRE_FEAT_RINGS), the queue drives the
 * context's submission and completion rings: an operation is written
 * straight into the submission ring, and records are read straight from
 * the completion ring, so nothing is copied across the boundary. One
 * queue at a time drives a context's rings; another queue on the same
 * context, or a module without rings, uses arrays the queue owns: one
 * ioctl runs the taken operations and reaps records into the queue's
 * record array.
 *
 * Either way a taken operation keeps its result (and the handle it
 * returned) until the next retire_queue_get_op() after the submission;
 * records stay until retire_queue_cqe_seen() passes them.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "internal.h"

/* the context's rings, as this queue maps them */
struct retire_queue_rings {
	void *map;
	size_t size;
	_Atomic __u32 *sq_head, *sq_tail, *cq_head, *cq_tail;
	__u32 sq_mask, cq_mask, cq_entries;
	struct retire_op *sqes;
	struct retire_cqe *cqes;
	__u32 sq_next;		/* one past the last operation taken */
	__u32 cq_next;		/* the next record to read */
};

struct retire_queue {
	struct retire *r;
	unsigned int entries;
	unsigned int nr_ops;	/* taken since the last submission */
	int submitted;		/* the last call ran them: restart at 0 */
	struct retire_queue_rings *rings;	/* or, without them: */
	unsigned int head;	/* first unseen record */
	unsigned int tail;	/* one past the last record */
	struct retire_op *ops;
	struct retire_cqe *cqes;
};

static unsigned int roundup_pow2(unsigned int n)
{
	unsigned int p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/*
 * Map the context's rings: the submission ring holds a batch, the
 * completion ring both records of each operation of two batches. 0, or a
 * negative errno: the queue then uses arrays.
 */
static int queue_map_rings(struct retire_queue *q)
{
	struct retire_ring_setup s;
	struct retire_queue_rings *g;
	void *map;
	int fd = retire_get_fd(q->r), ret;

	memset(&s, 0, sizeof(s));
	s.sq_entries = roundup_pow2(q->entries);
	s.cq_entries = 4 * s.sq_entries;
	ret = __retire_ioctl(fd, RETIRE_IOC_RING_SETUP, &s);
	if (ret)
		return ret;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	map = mmap(NULL, s.size, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, fd, RETIRE_RING_OFFSET);
	if (map == MAP_FAILED) {
		ret = -errno;
		free(g);
		return ret;
	}
	g->map = map;
	g->size = s.size;
	g->sq_head = (void *)((char *)map + s.off.sq_head);
	g->sq_tail = (void *)((char *)map + s.off.sq_tail);
	g->cq_head = (void *)((char *)map + s.off.cq_head);
	g->cq_tail = (void *)((char *)map + s.off.cq_tail);
	g->sq_mask = *(__u32 *)((char *)map + s.off.sq_mask);
	g->cq_mask = *(__u32 *)((char *)map + s.off.cq_mask);
	g->cq_entries = *(__u32 *)((char *)map + s.off.cq_entries);
	g->sqes = (void *)((char *)map + s.off.sqes);
	g->cqes = (void *)((char *)map + s.off.cqes);
	/* rings mapped again stand where the last queue left them */
	g->sq_next = atomic_load_explicit(g->sq_head, memory_order_acquire);
	atomic_store_explicit(g->sq_tail, g->sq_next, memory_order_release);
	g->cq_next = atomic_load_explicit(g->cq_head, memory_order_acquire);
	q->rings = g;
	return 0;
}

int retire_queue_init(struct retire *r, unsigned int entries,
		      struct retire_queue **qp)
{
	struct retire_queue *q;

	if (!r || !qp || !entries || entries > RETIRE_SUBMIT_MAX)
		return -EINVAL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->r = r;
	q->entries = entries;
	if (__retire_rings_take(r)) {
		if (!queue_map_rings(q)) {
			*qp = q;
			return 0;
		}
		__retire_rings_give(r);
	}
	q->ops = calloc(entries, sizeof(*q->ops));
	/* room for two records per operation: TERMINAL and RETIRED */
	q->cqes = calloc(RETIRE_SUBMIT_MAX, sizeof(*q->cqes));
	if (!q->ops || !q->cqes) {
		retire_queue_exit(q);
		return -ENOMEM;
	}
	*qp = q;
	return 0;
}

void retire_queue_exit(struct retire_queue *q)
{
	if (!q)
		return;
	if (q->rings) {
		munmap(q->rings->map, q->rings->size);
		free(q->rings);
		__retire_rings_give(q->r);
	}
	free(q->ops);
	free(q->cqes);
	free(q);
}

struct retire_op *retire_queue_get_op(struct retire_queue *q)
{
	struct retire_op *op;

	if (!q)
		return NULL;
	if (q->submitted) {
		q->submitted = 0;
		q->nr_ops = 0;
	}
	if (q->nr_ops == q->entries)
		return NULL;
	if (q->rings)
		op = &q->rings->sqes[q->rings->sq_next++ & q->rings->sq_mask];
	else
		op = &q->ops[q->nr_ops];
	q->nr_ops++;
	/* never a stale operation: an unfilled one is refused (opcode 0) */
	memset(op, 0, sizeof(*op));
	return op;
}

/* the ring's side of retire_queue_submit_and_wait() */
static int queue_enter_rings(struct retire_queue *q, unsigned int nr_ops,
			     unsigned int wait_nr, __u64 timeout_ns)
{
	struct retire_queue_rings *g = q->rings;
	struct retire_enter e;
	__u32 first, n;

	atomic_store_explicit(g->sq_tail, g->sq_next, memory_order_release);
	memset(&e, 0, sizeof(e));
	e.flags = RETIRE_ENTER_F_RINGS;
	e.nr_ops = nr_ops;
	e.min_complete = wait_nr < g->cq_entries ? wait_nr : g->cq_entries;
	if (timeout_ns == UINT64_MAX)
		e.flags |= RETIRE_REAP_F_WAIT_FOREVER;
	else
		e.timeout_ns = timeout_ns;
	/* never restarted, as retire_enter(): operations must not run twice */
	if (ioctl(retire_get_fd(q->r), RETIRE_IOC_ENTER, &e) < 0)
		return -errno;
	/* the records this call moved feed a latency set, as a reap does */
	first = (atomic_load_explicit(g->cq_tail, memory_order_acquire) -
		 e.reaped) & g->cq_mask;
	n = e.reaped < g->cq_entries - first ? e.reaped : g->cq_entries - first;
	__retire_feed(q->r, &g->cqes[first], n);
	__retire_feed(q->r, g->cqes, e.reaped - n);
	return (int)e.done;
}

int retire_queue_submit_and_wait(struct retire_queue *q,
				 unsigned int wait_nr, __u64 timeout_ns)
{
	unsigned int nr_ops, room;
	int ret;

	if (!q)
		return -EINVAL;
	nr_ops = q->submitted ? 0 : q->nr_ops;
	if (q->rings) {
		ret = queue_enter_rings(q, nr_ops, wait_nr, timeout_ns);
		if (ret < 0 && (ret != -EINTR || !nr_ops))
			return ret;
		q->submitted = 1;
		return (int)nr_ops;
	}
	/*
	 * wait_nr counts the unseen records, as the ring's min_complete
	 * does: only the rest must be reaped by this call
	 */
	wait_nr = wait_nr > q->tail - q->head ? wait_nr - (q->tail - q->head)
					       : 0;
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
	struct retire_queue_rings *g;

	if (!q || !cqe)
		return -EINVAL;
	g = q->rings;
	if (g) {
		if (g->cq_next == atomic_load_explicit(g->cq_tail,
						       memory_order_acquire))
			return -EAGAIN;
		*cqe = &g->cqes[g->cq_next & g->cq_mask];
		return 0;
	}
	if (q->head == q->tail)
		return -EAGAIN;
	*cqe = &q->cqes[q->head];
	return 0;
}

unsigned int retire_queue_peek_batch_cqe(struct retire_queue *q,
					 struct retire_cqe **cqes,
					 unsigned int count)
{
	struct retire_queue_rings *g;
	unsigned int n, i;

	if (!q || !cqes)
		return 0;
	g = q->rings;
	if (g) {
		n = atomic_load_explicit(g->cq_tail, memory_order_acquire) -
		    g->cq_next;
		n = n < count ? n : count;
		for (i = 0; i < n; i++)
			cqes[i] = &g->cqes[(g->cq_next + i) & g->cq_mask];
		return n;
	}
	n = q->tail - q->head < count ? q->tail - q->head : count;
	for (i = 0; i < n; i++)
		cqes[i] = &q->cqes[q->head + i];
	return n;
}

void retire_queue_cq_advance(struct retire_queue *q, unsigned int nr)
{
	struct retire_queue_rings *g;
	unsigned int n;

	if (!q)
		return;
	g = q->rings;
	if (g) {
		n = atomic_load_explicit(g->cq_tail, memory_order_acquire) -
		    g->cq_next;
		g->cq_next += nr < n ? nr : n;
		/* the records are read: their slots may take others */
		atomic_store_explicit(g->cq_head, g->cq_next,
				      memory_order_release);
		return;
	}
	q->head += nr < q->tail - q->head ? nr : q->tail - q->head;
}

void retire_queue_cqe_seen(struct retire_queue *q)
{
	struct retire_queue_rings *g;

	if (!q)
		return;
	g = q->rings;
	if (g) {
		if (g->cq_next != atomic_load_explicit(g->cq_tail,
						       memory_order_acquire))
			/* the record is read: its slot may take another */
			atomic_store_explicit(g->cq_head, ++g->cq_next,
					      memory_order_release);
		return;
	}
	if (q->head < q->tail)
		q->head++;
}

int retire_queue_uses_rings(const struct retire_queue *q)
{
	if (!q)
		return -EINVAL;
	return !!q->rings;
}

int retire_queue_cq_entries(const struct retire_queue *q)
{
	if (!q)
		return -EINVAL;
	return q->rings ? (int)q->rings->cq_entries : RETIRE_SUBMIT_MAX;
}
