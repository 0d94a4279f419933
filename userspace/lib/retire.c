// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libretire: the ioctl side. Thin wrappers over one ioctl helper.
 *
 * The helper restarts an ioctl that a signal interrupted; every command that
 * fails with EINTR has changed nothing, so that is always safe. The one
 * exception is RETIRE_IOC_REAP, which waits: it reports -EINTR so that its
 * caller can react to the signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "libretire.h"
#include "internal.h"

/*
 * Nothing here changes after retire_open_device() but @lat. Every call
 * may come from any thread: @lat_lock is held (shared) while a reap feeds
 * the set and (exclusive) while retire_track_latency() swaps it, so a set
 * detached is a set no reap still writes to.
 */
struct retire {
	int fd;
	pthread_rwlock_t lat_lock;
	struct retire_latency *lat;	/* fed by retire_reap_records() */
	atomic_flag rings_taken;	/* a queue drives the context's rings */
};

int __retire_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

int retire_open_device(struct retire **rp, const char *path, unsigned int flags)
{
	struct retire *r;

	if (!rp || flags)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = open(path ? path : LIBRETIRE_DEFAULT_PATH, O_RDWR | O_CLOEXEC);
	if (r->fd < 0) {
		int err = -errno;

		free(r);
		return err;
	}
	pthread_rwlock_init(&r->lat_lock, NULL);
	atomic_flag_clear(&r->rings_taken);
	*rp = r;
	return 0;
}

void retire_close_device(struct retire *r)
{
	if (!r)
		return;
	close(r->fd);
	pthread_rwlock_destroy(&r->lat_lock);
	free(r);
}

int retire_get_fd(const struct retire *r)
{
	return r ? r->fd : -EINVAL;
}

int retire_get_info(struct retire *r, struct retire_info *info)
{
	if (!r || !info)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	return __retire_ioctl(r->fd, RETIRE_IOC_GET_INFO, info);
}

/* ---- engines ------------------------------------------------------------ */

int retire_list_engines(struct retire *r, struct retire_engine_info *engines,
			unsigned int nr)
{
	struct retire_engines_arg a;
	int ret;

	if (!r || (!engines && nr))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.engines = (__u64)(uintptr_t)engines;
	a.nr = nr;
	ret = __retire_ioctl(r->fd, RETIRE_IOC_ENGINES, &a);
	return ret < 0 ? ret : (int)a.nr;
}

int retire_get_bound_engine(struct retire *r, __u32 *engine)
{
	struct retire_context_arg a;
	int ret;

	if (!r || !engine)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.op = RETIRE_CONTEXT_GET;
	ret = __retire_ioctl(r->fd, RETIRE_IOC_CONTEXT, &a);
	if (!ret)
		*engine = a.engine;
	return ret;
}
RETIRE_OLD_NAME(retire_get_engine, retire_get_bound_engine);

int retire_bind_engine(struct retire *r, __u32 engine)
{
	struct retire_context_arg a;

	if (!r)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.op = RETIRE_CONTEXT_SET;
	a.engine = engine;
	return __retire_ioctl(r->fd, RETIRE_IOC_CONTEXT, &a);
}
RETIRE_OLD_NAME(retire_set_engine, retire_bind_engine);

int retire_get_context_id(struct retire *r, __u64 *id)
{
	struct retire_context_arg a;
	int ret;

	if (!r || !id)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.op = RETIRE_CONTEXT_GET;
	ret = __retire_ioctl(r->fd, RETIRE_IOC_CONTEXT, &a);
	if (ret)
		return ret;
	/* ids start at 1: a module before 1.7 leaves the field 0 */
	if (!a.ctx_id)
		return -EOPNOTSUPP;
	*id = a.ctx_id;
	return 0;
}

/* ---- buffers ------------------------------------------------------------ */

int retire_register_buffer(struct retire *r, struct retire_buf_reg *reg)
{
	if (!r || !reg)
		return -EINVAL;
	return __retire_ioctl(r->fd, RETIRE_IOC_BUF_REGISTER, reg);
}

int retire_alloc_buffer(struct retire *r, size_t len, __u64 *handle,
			void **map)
{
	struct retire_buf_reg reg;
	void *addr = NULL;
	off_t off;
	int ret;

	if (!r || !handle)
		return -EINVAL;
	memset(&reg, 0, sizeof(reg));
	reg.len = len;
	ret = __retire_ioctl(r->fd, RETIRE_IOC_BUF_REGISTER, &reg);
	if (ret < 0)
		return ret;
	if (map) {
		off = (off_t)reg.mmap_offset;
		if (off < 0 || (__u64)off != reg.mmap_offset) {
			/* an off_t of this build cannot carry the offset */
			ret = -EOVERFLOW;
			goto out_unregister;
		}
		addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			    r->fd, off);
		if (addr == MAP_FAILED) {
			ret = -errno;
			goto out_unregister;
		}
		*map = addr;
	}
	*handle = reg.handle;
	return 0;

out_unregister:
	/* the buffer is FREE: nothing can be attached to it yet */
	retire_unregister_buffer(r, reg.handle);
	return ret;
}

int retire_pin_buffer(struct retire *r, void *addr, size_t len,
		      __u64 *handle)
{
	struct retire_buf_reg reg;
	int ret;

	if (!r || !addr || !handle)
		return -EINVAL;
	memset(&reg, 0, sizeof(reg));
	reg.flags = RETIRE_BUF_F_USER;
	reg.addr = (__u64)(uintptr_t)addr;
	reg.len = len;
	ret = __retire_ioctl(r->fd, RETIRE_IOC_BUF_REGISTER, &reg);
	if (ret < 0)
		return ret;
	*handle = reg.handle;
	return 0;
}

/* the commands whose argument names one handle and nothing else */
static int retire_handle_ioctl(struct retire *r, unsigned long cmd,
			       __u64 handle)
{
	struct retire_handle_arg arg;

	if (!r)
		return -EINVAL;
	memset(&arg, 0, sizeof(arg));
	arg.handle = handle;
	return __retire_ioctl(r->fd, cmd, &arg);
}

int retire_unregister_buffer(struct retire *r, __u64 handle)
{
	return retire_handle_ioctl(r, RETIRE_IOC_BUF_UNREGISTER, handle);
}

int retire_export_buffer(struct retire *r, __u64 handle, __u64 offset,
			 __u64 len)
{
	struct retire_buf_export e;
	int ret;

	if (!r)
		return -EINVAL;
	memset(&e, 0, sizeof(e));
	e.buf = handle;
	e.offset = offset;
	e.len = len;
	ret = __retire_ioctl(r->fd, RETIRE_IOC_BUF_EXPORT, &e);
	return ret < 0 ? ret : e.fd;
}

int retire_import_buffer(struct retire *r, int fd, __u64 *handle,
			 __u64 *len)
{
	struct retire_buf_import a;
	int ret;

	if (!r || !handle)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.fd = fd;
	ret = __retire_ioctl(r->fd, RETIRE_IOC_BUF_IMPORT, &a);
	if (ret < 0)
		return ret;
	*handle = a.handle;
	if (len)
		*len = a.len;
	return 0;
}

int retire_revoke_buffer(struct retire *r, int fd, __u64 timeout_ns)
{
	struct retire_buf_revoke a;
	int ret;

	if (!r)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.fd = fd;
	a.timeout_ns = timeout_ns;
	ret = __retire_ioctl(r->fd, RETIRE_IOC_BUF_REVOKE, &a);
	return ret < 0 ? ret : (int)a.importers;
}

/* ---- requests ----------------------------------------------------------- */

void retire_prep_request(struct retire_sqe *sqe, __u64 buf, __u64 offset,
			 __u64 len, __u32 dev_flags, __u64 user_data)
{
	if (!sqe)
		return;
	memset(sqe, 0, sizeof(*sqe));
	sqe->user_data = user_data;
	sqe->buf = buf;
	sqe->offset = offset;
	sqe->len = len;
	sqe->dev_flags = dev_flags;
}

int retire_submit_requests(struct retire *r, struct retire_sqe *sqes,
			   unsigned int nr)
{
	struct retire_submit sub;
	unsigned int done = 0, admitted = 0, batch;
	int ret;

	if (!r || !sqes || !nr || nr > INT_MAX)
		return -EINVAL;
	while (done < nr) {
		batch = nr - done;
		if (batch > RETIRE_SUBMIT_MAX)
			batch = RETIRE_SUBMIT_MAX;
		memset(&sub, 0, sizeof(sub));
		sub.sqes = (__u64)(uintptr_t)(sqes + done);
		sub.nr = batch;
		ret = __retire_ioctl(r->fd, RETIRE_IOC_SUBMIT, &sub);
		/*
		 * A failed batch admitted nothing, unless its array became
		 * unwritable while it was admitted: then the kernel still
		 * counts what it admitted (their records name them).
		 */
		admitted += sub.submitted;
		if (ret < 0)
			return admitted ? (int)admitted : ret;
		done += batch;
	}
	return (int)admitted;
}

int retire_cancel_request(struct retire *r, __u64 handle)
{
	return retire_handle_ioctl(r, RETIRE_IOC_CANCEL, handle);
}

int retire_release_request(struct retire *r, __u64 handle)
{
	return retire_handle_ioctl(r, RETIRE_IOC_RETIRE, handle);
}
RETIRE_OLD_NAME(retire_retire_request, retire_release_request);

/* RETIRE_IOC_CANCEL_MATCH, its answer in @m */
static int retire_cancel_match_ioctl(struct retire *r, __u32 flags,
				     __u64 key, __u64 timeout_ns,
				     struct retire_cancel_match *m)
{
	if (!r)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->flags = flags;
	m->key = key;
	m->timeout_ns = timeout_ns;
	return __retire_ioctl(r->fd, RETIRE_IOC_CANCEL_MATCH, m);
}

static int retire_cancel_found(struct retire *r, __u32 flags, __u64 key,
			       __u32 *kept)
{
	struct retire_cancel_match m;
	int ret = retire_cancel_match_ioctl(r, flags, key, 0, &m);

	if (ret < 0)
		return ret;
	if (kept)
		*kept = m.kept;
	return m.found > INT_MAX ? INT_MAX : (int)m.found;
}

int retire_cancel_key(struct retire *r, __u64 key, __u32 *kept)
{
	return retire_cancel_found(r, RETIRE_CANCEL_F_KEY, key, kept);
}

int retire_cancel_all(struct retire *r, __u32 *kept)
{
	return retire_cancel_found(r, RETIRE_CANCEL_F_ANY, 0, kept);
}

int retire_cancel_sync(struct retire *r, __u32 flags, __u64 key,
		       __u64 timeout_ns, __u32 *pending)
{
	struct retire_cancel_match m;
	int ret;

	if (flags & ~(__u32)(RETIRE_CANCEL_F_KEY | RETIRE_CANCEL_F_ANY))
		return -EINVAL;
	ret = retire_cancel_match_ioctl(r, flags | RETIRE_CANCEL_F_WAIT, key,
					timeout_ns, &m);
	if (pending)
		*pending = ret == -ETIME ? m.pending : 0;
	return ret;
}

int retire_request_fence(struct retire *r, __u64 request)
{
	struct retire_op op;
	int ret;

	retire_prep_fence(&op, request);
	ret = retire_enter(r, &op, 1, NULL, 0, 0, 0);
	return ret < 0 ? ret : op.result;
}

/* ---- borrow tokens ------------------------------------------------------ */

static int retire_token_ioctl(struct retire *r, __u32 op, __u64 handle,
			      int error, __u64 *token)
{
	struct retire_token_op arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	arg.handle = handle;
	arg.op = op;
	arg.error = error;
	ret = __retire_ioctl(r->fd, RETIRE_IOC_TOKEN, &arg);
	if (ret < 0)
		return ret;
	if (token)
		*token = arg.token;
	return 0;
}

int retire_borrow_token(struct retire *r, __u64 request, __u64 *token)
{
	if (!r || !token)
		return -EINVAL;
	return retire_token_ioctl(r, RETIRE_TOKEN_BORROW, request, 0, token);
}

int retire_return_token(struct retire *r, __u64 token, int error)
{
	if (!r)
		return -EINVAL;
	return retire_token_ioctl(r, RETIRE_TOKEN_RETURN, token, error, NULL);
}

int retire_handoff_token(struct retire *r, __u64 token, __u64 *new_token)
{
	if (!r || !new_token)
		return -EINVAL;
	return retire_token_ioctl(r, RETIRE_TOKEN_HANDOFF, token, 0,
				  new_token);
}

/* ---- records ------------------------------------------------------------ */

int retire_reap_records(struct retire *r, struct retire_cqe *cqes,
			unsigned int nr, unsigned int min_complete,
			__u64 timeout_ns)
{
	struct retire_reap reap;

	if (!r || !cqes || !nr)
		return -EINVAL;
	if (nr > RETIRE_SUBMIT_MAX)
		nr = RETIRE_SUBMIT_MAX;
	if (min_complete > nr)
		min_complete = nr;
	memset(&reap, 0, sizeof(reap));
	reap.cqes = (__u64)(uintptr_t)cqes;
	reap.nr = nr;
	reap.min_complete = min_complete;
	if (timeout_ns == UINT64_MAX)
		reap.flags = RETIRE_REAP_F_WAIT_FOREVER;
	else
		reap.timeout_ns = timeout_ns;
	/* not __retire_ioctl(): a signal must reach the caller as -EINTR */
	if (ioctl(r->fd, RETIRE_IOC_REAP, &reap) < 0)
		return -errno;
	__retire_feed(r, cqes, reap.reaped);
	return (int)reap.reaped;
}

int retire_enter(struct retire *r, struct retire_op *ops, unsigned int nr_ops,
		 struct retire_cqe *cqes, unsigned int nr_cqes,
		 unsigned int min_complete, __u64 timeout_ns)
{
	struct retire_enter e;

	if (!r || (!ops && nr_ops) || (!cqes && nr_cqes) ||
	    (!nr_ops && !nr_cqes) || nr_ops > RETIRE_SUBMIT_MAX)
		return -EINVAL;
	if (nr_cqes > RETIRE_SUBMIT_MAX)
		nr_cqes = RETIRE_SUBMIT_MAX;
	if (min_complete > nr_cqes)
		min_complete = nr_cqes;
	memset(&e, 0, sizeof(e));
	e.ops = (__u64)(uintptr_t)ops;
	e.nr_ops = nr_ops;
	e.cqes = (__u64)(uintptr_t)cqes;
	e.nr_cqes = nr_cqes;
	e.min_complete = min_complete;
	if (timeout_ns == UINT64_MAX)
		e.flags = RETIRE_REAP_F_WAIT_FOREVER;
	else
		e.timeout_ns = timeout_ns;
	/*
	 * Never restarted: operations that ran must not run twice. The
	 * kernel fails with -EINTR only when there were none to run.
	 */
	if (ioctl(r->fd, RETIRE_IOC_ENTER, &e) < 0)
		return -errno;
	__retire_feed(r, cqes, e.reaped);
	return (int)e.reaped;
}

void __retire_feed(struct retire *r, const struct retire_cqe *cqes,
		   unsigned int nr)
{
	/* most handles track no latency: then no lock either */
	if (!nr || !__atomic_load_n(&r->lat, __ATOMIC_ACQUIRE))
		return;
	pthread_rwlock_rdlock(&r->lat_lock);
	if (r->lat)
		__retire_latency_feed(r->lat, cqes, nr);
	pthread_rwlock_unlock(&r->lat_lock);
}

int __retire_rings_take(struct retire *r)
{
	return !atomic_flag_test_and_set(&r->rings_taken);
}

void __retire_rings_give(struct retire *r)
{
	atomic_flag_clear(&r->rings_taken);
}

int retire_track_latency(struct retire *r, struct retire_latency *l)
{
	if (!r)
		return -EINVAL;
	pthread_rwlock_wrlock(&r->lat_lock);
	__atomic_store_n(&r->lat, l, __ATOMIC_RELEASE);
	pthread_rwlock_unlock(&r->lat_lock);
	return 0;
}

#define RETIRE_RUN_BATCH	64

int retire_run_records(struct retire *r, retire_record_fn fn, void *arg,
		       unsigned int min_complete, __u64 timeout_ns)
{
	struct retire_cqe cqes[RETIRE_RUN_BATCH];
	int total = 0, n, i, ret, stop = 0;

	if (!r || !fn)
		return -EINVAL;
	for (;;) {
		n = retire_reap_records(r, cqes, RETIRE_RUN_BATCH,
					min_complete, timeout_ns);
		if (n <= 0)
			return n < 0 ? n : total;
		/*
		 * The kernel has dropped these records: every one reaches
		 * @fn, even after @fn asked to stop, or it would be lost.
		 */
		for (i = 0; i < n; i++) {
			ret = fn(r, &cqes[i], arg);
			if (ret && !stop)
				stop = ret;
			total++;
		}
		if (stop)
			return stop;
		/* only the first reap waits */
		min_complete = 0;
		timeout_ns = 0;
		/* the count must stay representable */
		if (total > INT_MAX - RETIRE_RUN_BATCH)
			return total;
	}
}

/* ---- history ------------------------------------------------------------ */

int retire_read_history(struct retire *r, __u64 ctx_id,
			struct retire_history_event *ev, unsigned int nr,
			struct retire_history_info *info)
{
	struct retire_history_arg a;
	int ret;

	if (!r || (!ev && nr))
		return -EINVAL;
	/* the module keeps no more; the count returned stays an int */
	if (nr > RETIRE_HISTORY_LEN)
		nr = RETIRE_HISTORY_LEN;
	memset(&a, 0, sizeof(a));
	a.events = (__u64)(uintptr_t)ev;
	a.nr = nr;
	a.ctx_id = ctx_id;
	/* reading changes nothing: a restart after EINTR is safe */
	ret = __retire_ioctl(r->fd, RETIRE_IOC_HISTORY, &a);
	if (ret < 0)
		return ret;
	if (info) {
		info->ctx_id = a.ctx_id;
		info->recorded = a.recorded;
		info->dropped = a.dropped;
	}
	return (int)a.nr;
}

/* ---- limits and the publication predicate ------------------------------- */

static int retire_limits_op(struct retire *r, __u32 op,
			    struct retire_limits *limits)
{
	struct retire_limits_arg arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	arg.op = op;
	if (op == RETIRE_LIMITS_SET)
		arg.limits = *limits;
	ret = __retire_ioctl(r->fd, RETIRE_IOC_LIMITS, &arg);
	if (!ret && op == RETIRE_LIMITS_GET)
		*limits = arg.limits;
	return ret;
}

int retire_get_limits(struct retire *r, struct retire_limits *limits)
{
	if (!r || !limits)
		return -EINVAL;
	return retire_limits_op(r, RETIRE_LIMITS_GET, limits);
}

int retire_set_limits(struct retire *r, const struct retire_limits *limits)
{
	struct retire_limits l;

	if (!r || !limits)
		return -EINVAL;
	l = *limits;
	return retire_limits_op(r, RETIRE_LIMITS_SET, &l);
}

static int retire_epoch_op(struct retire *r, __u32 op, __u64 key,
			   __u64 *epoch, __u64 *authority)
{
	struct retire_epoch_arg arg;
	int ret;

	if (!r)
		return -EINVAL;
	memset(&arg, 0, sizeof(arg));
	arg.op = op;
	arg.key = key;
	ret = __retire_ioctl(r->fd, RETIRE_IOC_EPOCH, &arg);
	if (ret)
		return ret;
	if (epoch)
		*epoch = arg.epoch;
	if (authority)
		*authority = arg.authority;
	return 0;
}

int retire_get_epoch(struct retire *r, __u64 key, __u64 *epoch,
		     __u64 *authority)
{
	return retire_epoch_op(r, RETIRE_EPOCH_GET, key, epoch, authority);
}

int retire_bump_epoch(struct retire *r, __u64 key, __u64 *epoch)
{
	return retire_epoch_op(r, RETIRE_EPOCH_BUMP, key, epoch, NULL);
}

int retire_revoke_authority(struct retire *r, __u64 *authority)
{
	return retire_epoch_op(r, RETIRE_EPOCH_REVOKE, 0, NULL, authority);
}

/* ---- statistics --------------------------------------------------------- */

int retire_get_stats(struct retire *r, struct retire_stats *stats,
		     unsigned int flags)
{
	struct retire_stats_arg arg;

	if (!r || !stats)
		return -EINVAL;
	memset(stats, 0, sizeof(*stats));
	memset(&arg, 0, sizeof(arg));
	arg.stats = (__u64)(uintptr_t)stats;
	arg.size = sizeof(*stats);
	arg.flags = flags;
	return __retire_ioctl(r->fd, RETIRE_IOC_GET_STATS, &arg);
}

/* ---- the sim engine ----------------------------------------------------- */

int retire_get_sim_config(struct retire *r, struct retire_sim_config *cfg)
{
	if (!r || !cfg)
		return -EINVAL;
	memset(cfg, 0, sizeof(*cfg));
	cfg->op = RETIRE_SIM_GET;
	return __retire_ioctl(r->fd, RETIRE_IOC_SIM_CONFIG, cfg);
}

int retire_set_sim_config(struct retire *r, const struct retire_sim_config *cfg)
{
	struct retire_sim_config set;

	if (!r || !cfg)
		return -EINVAL;
	set = *cfg;
	set.op = RETIRE_SIM_SET;
	return __retire_ioctl(r->fd, RETIRE_IOC_SIM_CONFIG, &set);
}

int retire_reset_sim(struct retire *r)
{
	return retire_handle_ioctl(r, RETIRE_IOC_SIM_RESET, 0);
}

int retire_inject_sim_event(struct retire *r, __u64 handle, int error)
{
	struct retire_sim_event ev;

	if (!r)
		return -EINVAL;
	memset(&ev, 0, sizeof(ev));
	ev.handle = handle;
	ev.error = error;
	return __retire_ioctl(r->fd, RETIRE_IOC_SIM_INJECT, &ev);
}
