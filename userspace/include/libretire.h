/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libretire: the userspace side of retire.
 *
 * Every function returns 0 (or a non-negative value where documented) on
 * success and a negative errno on failure; none of them sets errno.
 *
 * Structures from <linux/retire.h> are passed at the size this header
 * gives them. When one grows, the function taking it gets a new symbol
 * version (see libretire.map) and the old version keeps the old size, so a
 * program built against an older header keeps working.
 *
 * There is no global state. Threads: every function taking a struct
 * retire, struct retire_nl, struct retire_monitor or struct
 * retire_latency may be called from several threads at once on the same
 * handle, except that a handle must not be closed (or destroyed) while
 * another call on it runs. Calls on one struct retire_nl are serialized
 * (one request on its socket at a time); a retire_nl_dump_stats() callback
 * runs with that handle busy and must not call back into it.
 *
 * Install: pkg-config --cflags --libs libretire; the headers live in
 * <includedir>/retire/, which the --cflags add to the search path.
 */
#ifndef LIBRETIRE_H
#define LIBRETIRE_H

#include <stddef.h>
#include <linux/types.h>

#include <linux/retire.h>
#include <linux/retire_netlink.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBRETIRE_DEFAULT_PATH	"/dev/" RETIRE_DEVICE_NAME

/* One open file description of /dev/retire: one context in the module. */
struct retire;

/* A generic netlink socket resolved to the "retire" family. */
struct retire_nl;

int retire_open_device(struct retire **rp, const char *path,
		       unsigned int flags);
void retire_close_device(struct retire *r);
int retire_get_fd(const struct retire *r);
int retire_get_info(struct retire *r, struct retire_info *info);

/* buffers */
int retire_register_buffer(struct retire *r, struct retire_buf_reg *reg);
int retire_alloc_buffer(struct retire *r, size_t len, __u64 *handle,
			void **map);
int retire_pin_buffer(struct retire *r, void *addr, size_t len,
		      __u64 *handle);
int retire_unregister_buffer(struct retire *r, __u64 handle);
/* a module buffer's page-aligned range as a dma-buf fd (RETIRE_FEAT_DMABUF) */
int retire_export_buffer(struct retire *r, __u64 handle, __u64 offset,
			 __u64 len);
/* another driver's dma-buf as a buffer (RETIRE_FEAT_DMABUF_IMPORT) */
int retire_import_buffer(struct retire *r, int fd, __u64 *handle,
			 __u64 *len);
/* take device access to an exported dma-buf back (RETIRE_FEAT_DMABUF_REVOKE) */
int retire_revoke_buffer(struct retire *r, int fd, __u64 timeout_ns);

/* requests */
void retire_prep_request(struct retire_sqe *sqe, __u64 buf, __u64 offset,
			 __u64 len, __u32 dev_flags, __u64 user_data);
int retire_submit_requests(struct retire *r, struct retire_sqe *sqes,
			   unsigned int nr);
int retire_cancel_request(struct retire *r, __u64 handle);
int retire_release_request(struct retire *r, __u64 handle);
/*
 * Cancel by match (RETIRE_FEAT_CANCEL_MATCH): every request of @key, or of
 * the context, that is waiting or on the device. Each returns how many it
 * found; @kept (may be NULL) how many of those the device kept.
 * retire_cancel_sync() then waits for their terminal events: 0, or -ETIME
 * with *@pending still in flight.
 */
int retire_cancel_key(struct retire *r, __u64 key, __u32 *kept);
int retire_cancel_all(struct retire *r, __u32 *kept);
int retire_cancel_sync(struct retire *r, __u32 flags, __u64 key,
		       __u64 timeout_ns, __u32 *pending);
/*
 * Fences (RETIRE_FEAT_FENCES): a sync_file fd whose fence signals at the
 * request's terminal event, with its -errno. A submission asks for one
 * with RETIRE_SQE_F_OUT_FENCE, and waits for another's with
 * RETIRE_SQE_F_IN_FENCE and its in_fence.
 */
int retire_request_fence(struct retire *r, __u64 request);

/* borrow tokens */
int retire_borrow_token(struct retire *r, __u64 request, __u64 *token);
int retire_return_token(struct retire *r, __u64 token, int error);
int retire_handoff_token(struct retire *r, __u64 token, __u64 *new_token);

/* records */
int retire_reap_records(struct retire *r, struct retire_cqe *cqes,
			unsigned int nr, unsigned int min_complete,
			__u64 timeout_ns);
typedef int (*retire_record_fn)(struct retire *r,
				const struct retire_cqe *cqe, void *arg);
int retire_run_records(struct retire *r, retire_record_fn fn, void *arg,
		       unsigned int min_complete, __u64 timeout_ns);

/*
 * the batched path: one RETIRE_IOC_ENTER runs a batch of operations and
 * reaps records. The prep helpers fill one struct retire_op each.
 */
static inline void retire_prep_op(struct retire_op *op, __u32 opcode,
				  __u64 handle)
{
	__builtin_memset(op, 0, sizeof(*op));
	op->opcode = opcode;
	op->handle = handle;
}

static inline void retire_prep_submit(struct retire_op *op, __u64 buf,
				      __u64 offset, __u64 len,
				      __u32 dev_flags, __u64 user_data)
{
	retire_prep_op(op, RETIRE_OP_SUBMIT, 0);
	op->buf = buf;
	op->offset = offset;
	op->len = len;
	op->dev_flags = dev_flags;
	op->user_data = user_data;
}

static inline void retire_prep_cancel(struct retire_op *op, __u64 request)
{
	retire_prep_op(op, RETIRE_OP_CANCEL, request);
}

static inline void retire_prep_release(struct retire_op *op, __u64 request)
{
	retire_prep_op(op, RETIRE_OP_RETIRE, request);
}

static inline void retire_prep_borrow(struct retire_op *op, __u64 request)
{
	retire_prep_op(op, RETIRE_OP_BORROW, request);
}

static inline void retire_prep_return(struct retire_op *op, __u64 token,
				      int error)
{
	retire_prep_op(op, RETIRE_OP_RETURN, token);
	op->error = error;
}

static inline void retire_prep_handoff(struct retire_op *op, __u64 token)
{
	retire_prep_op(op, RETIRE_OP_HANDOFF, token);
}

/* a sync_file fd for the request's end of device access: @result */
static inline void retire_prep_fence(struct retire_op *op, __u64 request)
{
	retire_prep_op(op, RETIRE_OP_FENCE, request);
}

/* RETIRE_CANCEL_F_KEY with @key, or RETIRE_CANCEL_F_ANY with @key 0 */
static inline void retire_prep_cancel_match(struct retire_op *op,
					    __u32 flags, __u64 key)
{
	retire_prep_op(op, RETIRE_OP_CANCEL_MATCH, 0);
	op->flags = flags;
	op->key = key;
}

int retire_enter(struct retire *r, struct retire_op *ops, unsigned int nr_ops,
		 struct retire_cqe *cqes, unsigned int nr_cqes,
		 unsigned int min_complete, __u64 timeout_ns);

/*
 * A queue over RETIRE_IOC_ENTER, as liburing's ring is over io_uring_enter():
 * take operations with retire_queue_get_op(), run them and wait for records
 * with retire_queue_submit_and_wait(), walk the records with
 * retire_queue_peek_cqe() and retire_queue_cqe_seen(), or a batch at a time
 * with retire_queue_peek_batch_cqe() and retire_queue_cq_advance(). Where
 * the module has rings (RETIRE_FEAT_RINGS), the first queue of a context
 * drives the context's rings: nothing is copied. One thread at a time per
 * queue.
 */
struct retire_queue;

int retire_queue_init(struct retire *r, unsigned int entries,
		      struct retire_queue **qp);
void retire_queue_exit(struct retire_queue *q);
struct retire_op *retire_queue_get_op(struct retire_queue *q);
int retire_queue_submit_and_wait(struct retire_queue *q,
				 unsigned int wait_nr, __u64 timeout_ns);
int retire_queue_peek_cqe(struct retire_queue *q, struct retire_cqe **cqe);
void retire_queue_cqe_seen(struct retire_queue *q);
unsigned int retire_queue_peek_batch_cqe(struct retire_queue *q,
					 struct retire_cqe **cqes,
					 unsigned int count);
void retire_queue_cq_advance(struct retire_queue *q, unsigned int nr);
/* 1 on the context's rings, 0 on the queue's arrays */
int retire_queue_uses_rings(const struct retire_queue *q);
/* the records the queue holds: what wait_nr is lowered to */
int retire_queue_cq_entries(const struct retire_queue *q);

/* engines: the sim (RETIRE_ENGINE_SIM) and a bound device's */
int retire_list_engines(struct retire *r, struct retire_engine_info *engines,
			unsigned int nr);
int retire_get_bound_engine(struct retire *r, __u32 *engine);
int retire_bind_engine(struct retire *r, __u32 engine);
/* this context's id, as netlink and retire_read_history() name it */
int retire_get_context_id(struct retire *r, __u64 *id);

/*
 * A context's history (RETIRE_FEAT_HISTORY): its last RETIRE_HISTORY_LEN
 * events, oldest first, as struct retire_history_event; of the caller's
 * own context (@ctx_id 0) or of another by the id that retire_nl_dump_stats()
 * gives it.
 */

/*
 * struct retire_history_info - what retire_read_history() read
 * @ctx_id:	the id of the context read (the caller's own for 0)
 * @recorded:	events since that context was opened
 * @dropped:	of those, how many were overwritten before the call
 */
struct retire_history_info {
	__u64 ctx_id;
	__u64 recorded;
	__u64 dropped;
};

int retire_read_history(struct retire *r, __u64 ctx_id,
			struct retire_history_event *ev, unsigned int nr,
			struct retire_history_info *info);

/* limits and the publication predicate */
int retire_get_limits(struct retire *r, struct retire_limits *limits);
int retire_set_limits(struct retire *r, const struct retire_limits *limits);
int retire_get_epoch(struct retire *r, __u64 key, __u64 *epoch,
		     __u64 *authority);
int retire_bump_epoch(struct retire *r, __u64 key, __u64 *epoch);
int retire_revoke_authority(struct retire *r, __u64 *authority);

/* statistics */
int retire_get_stats(struct retire *r, struct retire_stats *stats,
		     unsigned int flags);

/*
 * Raw latency observations. A set keeps up to @capacity observations in
 * nanoseconds; percentiles are nearest rank over exactly those (never
 * combined from other percentiles), and -ENODATA (unknown) when there are none. Attached to a handle
 * with retire_track_latency(), a set receives latency_ns of every
 * successful completion (a TERMINAL record with outcome COMPLETED and
 * RETIRE_CQE_F_MEASURED) that retire_reap_records(), retire_run_records(),
 * retire_enter() or retire_queue_submit_and_wait() reads on it (the man
 * page of retire_track_latency() is the reference). Once it has
 * detached a set, no reap on that handle touches it any more.
 */
struct retire_latency;

int retire_create_latency(struct retire_latency **lp, size_t capacity);
void retire_destroy_latency(struct retire_latency *l);
int retire_add_latency(struct retire_latency *l, __u64 ns);
int retire_reset_latency(struct retire_latency *l);
int retire_count_latency(struct retire_latency *l, size_t *nr,
			 size_t *dropped);
int retire_copy_latency(struct retire_latency *l, __u64 *ns, size_t nr);
int retire_merge_latency(struct retire_latency *dst,
			 struct retire_latency *src);
int retire_get_percentile(struct retire_latency *l, double pct, __u64 *ns);
int retire_track_latency(struct retire *r, struct retire_latency *l);

/* the sim engine */
int retire_get_sim_config(struct retire *r, struct retire_sim_config *cfg);
int retire_set_sim_config(struct retire *r,
			  const struct retire_sim_config *cfg);
int retire_reset_sim(struct retire *r);
int retire_inject_sim_event(struct retire *r, __u64 handle, int error);

/*
 * struct retire_event - one multicast notification, as retire_read_events()
 * returns it. Fields the notification did not carry are 0.
 * @type:	RETIRE_CMD_STALE_NTF or RETIRE_CMD_HEALTH_NTF
 * @ctx_id:	the context (0 for an engine reset)
 * @pid:	its owner's thread-group id, initial pid namespace
 * @health_event: RETIRE_HEALTH_EVENT_* (health only)
 * @quarantined_now: requests still quarantined (health only)
 * @stale_engine, @stale_cancel, @stale_token, @stale_user,
 * @stale_published: the context's cumulative stale counters (stale only)
 */
struct retire_event {
	__u32 type;
	__u32 pid;
	__u64 ctx_id;
	__u32 health_event;
	__u32 pad;
	__u64 quarantined_now;
	__u64 stale_engine;
	__u64 stale_cancel;
	__u64 stale_token;
	__u64 stale_user;
	__u64 stale_published;
};

/* retire_open_monitor() groups */
#define RETIRE_MONITOR_STALE	(1U << 0)
#define RETIRE_MONITOR_HEALTH	(1U << 1)

/* A socket subscribed to the family's multicast groups. */
struct retire_monitor;

typedef int (*retire_ctx_stats_fn)(__u64 ctx_id, __u32 pid,
				   const struct retire_stats *stats,
				   void *arg);

int retire_open_netlink(struct retire_nl **nlp);
void retire_close_netlink(struct retire_nl *nl);
int retire_get_family_id(const struct retire_nl *nl);
int retire_nl_get_info(struct retire_nl *nl, struct retire_info *info);
int retire_nl_get_stats(struct retire_nl *nl, struct retire_stats *stats);
int retire_nl_dump_stats(struct retire_nl *nl, retire_ctx_stats_fn fn,
			 void *arg);
int retire_nl_get_sim_config(struct retire_nl *nl,
			     struct retire_sim_config *cfg);
int retire_nl_set_sim_config(struct retire_nl *nl,
			     const struct retire_sim_config *cfg);

int retire_open_monitor(struct retire_monitor **mp, unsigned int groups);
int retire_get_monitor_fd(const struct retire_monitor *m);
int retire_read_events(struct retire_monitor *m, struct retire_event *ev,
		       unsigned int nr);
void retire_close_monitor(struct retire_monitor *m);

/*
 * The names libretire 1.6 replaced: each still links to the same function
 * (at the symbol version it always had) and is deprecated.
 */
#if defined(__GNUC__) || defined(__clang__)
#define RETIRE_DEPRECATED(use)	__attribute__((deprecated("use " use)))
#else
#define RETIRE_DEPRECATED(use)
#endif

int retire_retire_request(struct retire *r, __u64 handle)
	RETIRE_DEPRECATED("retire_release_request()");
int retire_get_engine(struct retire *r, __u32 *engine)
	RETIRE_DEPRECATED("retire_get_bound_engine()");
int retire_set_engine(struct retire *r, __u32 engine)
	RETIRE_DEPRECATED("retire_bind_engine()");
int retire_query_info(struct retire_nl *nl, struct retire_info *info)
	RETIRE_DEPRECATED("retire_nl_get_info()");
int retire_query_stats(struct retire_nl *nl, struct retire_stats *stats)
	RETIRE_DEPRECATED("retire_nl_get_stats()");
int retire_dump_stats(struct retire_nl *nl, retire_ctx_stats_fn fn,
		      void *arg)
	RETIRE_DEPRECATED("retire_nl_dump_stats()");
int retire_query_engine(struct retire_nl *nl, struct retire_sim_config *cfg)
	RETIRE_DEPRECATED("retire_nl_get_sim_config()");
int retire_configure_engine(struct retire_nl *nl,
			    const struct retire_sim_config *cfg)
	RETIRE_DEPRECATED("retire_nl_set_sim_config()");

RETIRE_DEPRECATED("retire_prep_release()")
static inline void retire_prep_retire(struct retire_op *op, __u64 request)
{
	retire_prep_release(op, request);
}

#ifdef __cplusplus
}
#endif

#endif /* LIBRETIRE_H */
