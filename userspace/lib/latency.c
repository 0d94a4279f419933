// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libretire: raw latency observations and nearest-rank percentiles.
 *
 * A percentile is computed from the observations themselves, never from
 * other percentiles: two cohorts' p95 values cannot be combined into the
 * p95 of both (100 x 0 ms and 100 x 100 ms have p95 0 and 100, together
 * 100, not 50), so a caller who wants the aggregate merges
 * the raw observations (retire_merge_latency()) and asks again. With no
 * observation the answer is -ENODATA: unknown, not zero.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libretire.h"
#include "internal.h"

/* observations one set may hold: 2^28 of 8 bytes, 2 GiB */
#define RETIRE_LATENCY_MAX_CAP	(1UL << 28)

struct retire_latency {
	pthread_mutex_t lock;
	__u64 *obs;		/* in arrival order */
	size_t nr;
	size_t cap;
	size_t dropped;		/* offered when full */
};

int retire_create_latency(struct retire_latency **lp, size_t capacity)
{
	struct retire_latency *l;

	if (!lp || !capacity || capacity > RETIRE_LATENCY_MAX_CAP)
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->obs = calloc(capacity, sizeof(*l->obs));
	if (!l->obs) {
		free(l);
		return -ENOMEM;
	}
	l->cap = capacity;
	pthread_mutex_init(&l->lock, NULL);
	*lp = l;
	return 0;
}

void retire_destroy_latency(struct retire_latency *l)
{
	if (!l)
		return;
	pthread_mutex_destroy(&l->lock);
	free(l->obs);
	free(l);
}

/* keep @ns, or count it dropped when the set is full (-ENOSPC) */
static int retire_latency_append_locked(struct retire_latency *l, __u64 ns)
{
	if (l->nr == l->cap) {
		l->dropped++;
		return -ENOSPC;
	}
	l->obs[l->nr++] = ns;
	return 0;
}

int retire_add_latency(struct retire_latency *l, __u64 ns)
{
	int ret;

	if (!l)
		return -EINVAL;
	pthread_mutex_lock(&l->lock);
	ret = retire_latency_append_locked(l, ns);
	pthread_mutex_unlock(&l->lock);
	return ret;
}

int retire_reset_latency(struct retire_latency *l)
{
	if (!l)
		return -EINVAL;
	pthread_mutex_lock(&l->lock);
	l->nr = 0;
	l->dropped = 0;
	pthread_mutex_unlock(&l->lock);
	return 0;
}

int retire_count_latency(struct retire_latency *l, size_t *nr, size_t *dropped)
{
	if (!l || (!nr && !dropped))
		return -EINVAL;
	pthread_mutex_lock(&l->lock);
	if (nr)
		*nr = l->nr;
	if (dropped)
		*dropped = l->dropped;
	pthread_mutex_unlock(&l->lock);
	return 0;
}

int retire_copy_latency(struct retire_latency *l, __u64 *ns, size_t nr)
{
	size_t n;

	if (!l || (!ns && nr))
		return -EINVAL;
	pthread_mutex_lock(&l->lock);
	n = l->nr < nr ? l->nr : nr;
	if (n > INT32_MAX)
		n = INT32_MAX;
	memcpy(ns, l->obs, n * sizeof(*ns));
	pthread_mutex_unlock(&l->lock);
	return (int)n;
}

int retire_merge_latency(struct retire_latency *dst, struct retire_latency *src)
{
	struct retire_latency *first, *second;
	int ret = 0;

	if (!dst || !src || dst == src)
		return -EINVAL;
	/* a fixed order, so that two merges in opposite directions agree */
	first = (uintptr_t)dst < (uintptr_t)src ? dst : src;
	second = first == dst ? src : dst;
	pthread_mutex_lock(&first->lock);
	pthread_mutex_lock(&second->lock);
	/* all or nothing: a partial merge would be a cohort nobody named */
	if (src->nr > dst->cap - dst->nr) {
		ret = -ENOSPC;
	} else {
		memcpy(dst->obs + dst->nr, src->obs,
		       src->nr * sizeof(*src->obs));
		dst->nr += src->nr;
		dst->dropped += src->dropped;
	}
	pthread_mutex_unlock(&second->lock);
	pthread_mutex_unlock(&first->lock);
	return ret;
}

static int retire_cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Nearest rank: the ceil(pct / 100 * n)-th smallest observation. The
 * epsilon keeps an exact product (95 of 100) from rounding up a rank.
 */
int retire_get_percentile(struct retire_latency *l, double pct, __u64 *ns)
{
	__u64 *sorted;
	size_t n, rank;
	double r;

	if (!l || !ns || !(pct > 0.0 && pct <= 100.0))
		return -EINVAL;
	pthread_mutex_lock(&l->lock);
	n = l->nr;
	if (!n) {
		pthread_mutex_unlock(&l->lock);
		return -ENODATA;
	}
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		pthread_mutex_unlock(&l->lock);
		return -ENOMEM;
	}
	memcpy(sorted, l->obs, n * sizeof(*sorted));
	pthread_mutex_unlock(&l->lock);

	qsort(sorted, n, sizeof(*sorted), retire_cmp_u64);
	r = pct * (double)n / 100.0 - 1e-9;
	rank = (size_t)r;		/* r > -1: truncation is floor */
	if ((double)rank < r)
		rank++;			/* ceil */
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	*ns = sorted[rank - 1];
	free(sorted);
	return 0;
}

/*
 * What retire_reap_records() feeds a tracked set: successful completions,
 * the whole batch under one lock.
 */
void __retire_latency_feed(struct retire_latency *l,
			   const struct retire_cqe *cqes, unsigned int nr)
{
	unsigned int i;

	pthread_mutex_lock(&l->lock);
	for (i = 0; i < nr; i++) {
		if (cqes[i].type != RETIRE_REC_TERMINAL ||
		    cqes[i].outcome != RETIRE_OUTCOME_COMPLETED ||
		    !(cqes[i].flags & RETIRE_CQE_F_MEASURED))
			continue;
		retire_latency_append_locked(l, cqes[i].latency_ns);
	}
	pthread_mutex_unlock(&l->lock);
}
