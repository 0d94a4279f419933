/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * retire: provable buffer lifetime for asynchronous device work.
 *
 * The ioctl ABI of /dev/retire: fixed-size, naturally aligned fields with
 * explicit padding; pointers travel as __u64. Each field is marked "in",
 * "out" or both; every "reserved" or "pad" field and undefined flag bit
 * must be 0 (-EINVAL). An ioctl's argument may grow at its end in later
 * versions; an array entry never does. See Documentation/retire.rst,
 * "Rules for every ioctl".
 */
#ifndef _UAPI_LINUX_RETIRE_H
#define _UAPI_LINUX_RETIRE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define RETIRE_DEVICE_NAME	"retire"

/* Bumped only for incompatible changes; additions are feature bits. */
#define RETIRE_ABI_VERSION	1

/*
 * Feature bits reported by RETIRE_IOC_GET_INFO.
 * Every feature must be listed in RETIRE_FEAT_ALL.
 */
/* the generic netlink family "retire" is registered */
#define RETIRE_FEAT_GENL	(1ULL << 0)
/* buffers, requests, cancellation, borrow tokens, retirement, records */
#define RETIRE_FEAT_REQUESTS	(1ULL << 1)
/* the sim engine and its knobs */
#define RETIRE_FEAT_SIM		(1ULL << 2)
/* per-context limits, quarantine, the publication predicate */
#define RETIRE_FEAT_ADMISSION	(1ULL << 3)

/* RETIRE_IOC_ENTER, RETIRE_SQE_F_AUTO_RETIRE and RETIRE_SIM_F_INLINE */
#define RETIRE_FEAT_ENTER	(1ULL << 4)
/* RETIRE_IOC_RING_SETUP and RETIRE_ENTER_F_RINGS: rings shared by mmap() */
#define RETIRE_FEAT_RINGS	(1ULL << 5)
/* RETIRE_SQE_F_ONE_RECORD and RETIRE_CQE_F_RETIRED */
#define RETIRE_FEAT_ONE_RECORD	(1ULL << 6)
/* RETIRE_IOC_ENGINES and RETIRE_IOC_CONTEXT: engines listed, one per context */
#define RETIRE_FEAT_ENGINES	(1ULL << 7)
/* an edu PCI device is bound: RETIRE_IOC_ENGINES lists an engine "edu" */
#define RETIRE_FEAT_EDU		(1ULL << 8)
/* RETIRE_IOC_HISTORY, the tracepoints of system "retire", and debugfs */
#define RETIRE_FEAT_HISTORY	(1ULL << 9)
/* RETIRE_IOC_CANCEL_MATCH and RETIRE_OP_CANCEL_MATCH: cancel by key or all */
#define RETIRE_FEAT_CANCEL_MATCH (1ULL << 10)
/*
 * RETIRE_SQE_F_OUT_FENCE, RETIRE_SQE_F_IN_FENCE and RETIRE_OP_FENCE:
 * requests' sync_file fences (the module's kernel has CONFIG_SYNC_FILE)
 */
#define RETIRE_FEAT_FENCES	(1ULL << 11)
/* RETIRE_IOC_BUF_EXPORT: buffers as dma-bufs (CONFIG_DMA_SHARED_BUFFER) */
#define RETIRE_FEAT_DMABUF	(1ULL << 12)
/* RETIRE_IOC_BUF_IMPORT: dma-bufs as buffers (CONFIG_DMA_SHARED_BUFFER) */
#define RETIRE_FEAT_DMABUF_IMPORT (1ULL << 13)
/*
 * RETIRE_IOC_BUF_REVOKE, and the end of an import its exporter moves or
 * revokes (the module's kernel has CONFIG_DMA_SHARED_BUFFER)
 */
#define RETIRE_FEAT_DMABUF_REVOKE (1ULL << 14)

#define RETIRE_FEAT_ALL		(RETIRE_FEAT_GENL | RETIRE_FEAT_REQUESTS | \
				 RETIRE_FEAT_SIM | RETIRE_FEAT_ADMISSION | \
				 RETIRE_FEAT_ENTER | RETIRE_FEAT_RINGS | \
				 RETIRE_FEAT_ONE_RECORD | RETIRE_FEAT_ENGINES | \
				 RETIRE_FEAT_EDU | RETIRE_FEAT_HISTORY | \
				 RETIRE_FEAT_CANCEL_MATCH | RETIRE_FEAT_FENCES | \
				 RETIRE_FEAT_DMABUF | RETIRE_FEAT_DMABUF_IMPORT | \
				 RETIRE_FEAT_DMABUF_REVOKE)

/*
 * struct retire_limits - a context's bounds; in RETIRE_IOC_GET_INFO, the
 * module-wide caps on them. See Documentation/retire.rst, "Admission and
 * bounds".
 */
struct retire_limits {
	/* unretired requests: timed-out and cancelled-but-unretired count */
	__u32 max_unretired;
	/* requests the engine may be working on at once */
	__u32 max_active;
	/* active requests sharing one key */
	__u32 max_active_per_key;
	/* admitted requests not yet activated */
	__u32 max_waiting;
	/* borrow tokens outstanding */
	__u32 max_tokens;
	/* registered buffers */
	__u32 max_buffers;
	/* bytes reserved by admitted, unretired requests */
	__u64 max_reserved_bytes;
	/* bytes of user memory pinned for buffers */
	__u64 max_pinned_bytes;
	/* bytes of module-allocated buffers (the pool's budget) */
	__u64 max_pool_bytes;
	/*
	 * a request the device holds longer than this is quarantined; below
	 * RETIRE_WATCHDOG_MIN_NS only with CAP_SYS_ADMIN (-EPERM)
	 */
	__u64 watchdog_ns;
};

/*
 * struct retire_info - argument of RETIRE_IOC_GET_INFO.
 * @flags:	in: must be 0.
 * @abi_version: out: RETIRE_ABI_VERSION of the running module.
 * @features:	out: RETIRE_FEAT_* the running module supports.
 * @caps:	out: the module-wide caps on every context's limits.
 * @reserved:	in: must be 0; out: 0.
 */
struct retire_info {
	__u32 flags;
	__u32 abi_version;
	__u64 features;
	struct retire_limits caps;
	__u64 reserved[4];
};

/*
 * Handles name buffers, requests and borrow tokens: kind (bits 63..56) |
 * slot (bits 55..32) | generation (bits 31..0). They are opaque: use only
 * what the module returned; 0 is never valid. See Documentation/retire.rst,
 * "Handles and stale notifications".
 */
#define RETIRE_KIND_BUF		1
#define RETIRE_KIND_REQ		2
#define RETIRE_KIND_TOKEN	3

#define RETIRE_HANDLE_KIND(h)	((__u32)((__u64)(h) >> 56))
#define RETIRE_HANDLE_SLOT(h)	((__u32)((__u64)(h) >> 32) & 0xffffff)
#define RETIRE_HANDLE_GEN(h)	((__u32)((__u64)(h) & 0xffffffff))

/* ---- buffers ------------------------------------------------------------ */

/*
 * Buffer flags (struct retire_buf_reg.flags).
 * Every flag must be listed in RETIRE_BUF_F_ALL.
 */
/*
 * pin the caller's memory at @addr (FOLL_LONGTERM, charged to
 * RLIMIT_MEMLOCK) instead of allocating pages in the module
 */
#define RETIRE_BUF_F_USER	(1U << 0)

#define RETIRE_BUF_F_ALL	(RETIRE_BUF_F_USER)

/*
 * struct retire_buf_reg - argument of RETIRE_IOC_BUF_REGISTER.
 * @flags:	in: RETIRE_BUF_F_*.
 * @evicted:	out: FREE module-allocated buffers evicted to make room;
 *		their handles are stale.
 * @addr:	in: RETIRE_BUF_F_USER: the page-aligned address of the memory
 *		to pin; otherwise 0.
 * @len:	in: bytes, a non-zero multiple of the page size.
 * @handle:	out: the buffer's handle (kind RETIRE_KIND_BUF).
 * @mmap_offset: out: module-allocated buffers: the offset to mmap() the
 *		buffer at; 0 for user memory. Opaque but page-aligned.
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_BUF_REGISTER and mmap().
 */
struct retire_buf_reg {
	__u32 flags;
	__u32 evicted;
	__u64 addr;
	__u64 len;
	__u64 handle;
	__u64 mmap_offset;
	__u64 reserved[2];
};

/*
 * struct retire_buf_export - argument of RETIRE_IOC_BUF_EXPORT: a range of
 * a module-allocated buffer as a dma-buf other drivers can attach to.
 * @buf:	in: the buffer's handle.
 * @offset:	in: page-aligned start of the range.
 * @len:	in: a non-zero multiple of the page size; @offset + @len inside
 *		the buffer.
 * @flags:	in: must be 0.
 * @fd:		out: the dma-buf's file descriptor (O_RDWR, O_CLOEXEC).
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_BUF_EXPORT.
 */
struct retire_buf_export {
	__u64 buf;
	__u64 offset;
	__u64 len;
	__u32 flags;
	__s32 fd;
	__u64 reserved[2];
};

/*
 * struct retire_buf_import - argument of RETIRE_IOC_BUF_IMPORT: another
 * driver's dma-buf as a buffer of the context.
 * @fd:		in: the dma-buf's file descriptor.
 * @flags:	in: must be 0.
 * @handle:	out: the buffer's handle.
 * @len:	out: its length, the dma-buf's size.
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_BUF_IMPORT.
 */
struct retire_buf_import {
	__s32 fd;
	__u32 flags;
	__u64 handle;
	__u64 len;
	__u64 reserved[2];
};

/*
 * struct retire_buf_revoke - argument of RETIRE_IOC_BUF_REVOKE: take
 * device access to a dma-buf the context exported back.
 * @fd:		in: the dma-buf's file descriptor (RETIRE_IOC_BUF_EXPORT's).
 * @flags:	in: must be 0.
 * @timeout_ns:	in: the longest wait for the importers' fences; 0: no bound.
 * @importers:	out: the dynamic importers that were told.
 * @pad:	in: must be 0.
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_BUF_REVOKE.
 */
struct retire_buf_revoke {
	__s32 fd;
	__u32 flags;
	__u64 timeout_ns;
	__u32 importers;
	__u32 pad;
	__u64 reserved[2];
};

/*
 * struct retire_handle_arg - argument of the commands that name one
 * handle: RETIRE_IOC_BUF_UNREGISTER, RETIRE_IOC_CANCEL, RETIRE_IOC_RETIRE.
 * @handle:	in: the handle.
 * @flags:	in: must be 0.
 * @pad:	in: must be 0.
 * @reserved:	in: must be 0.
 */
struct retire_handle_arg {
	__u64 handle;
	__u32 flags;
	__u32 pad;
	__u64 reserved[2];
};

/*
 * RETIRE_IOC_CANCEL_MATCH flags: exactly one of KEY and ANY names the
 * requests. Every flag must be listed in RETIRE_CANCEL_F_ALL.
 */
/* the requests submitted with @key */
#define RETIRE_CANCEL_F_KEY	(1U << 0)
/* every request of the context (@key must be 0) */
#define RETIRE_CANCEL_F_ANY	(1U << 1)
/* then wait until none of them is waiting or on the device */
#define RETIRE_CANCEL_F_WAIT	(1U << 2)

#define RETIRE_CANCEL_F_ALL	(RETIRE_CANCEL_F_KEY | RETIRE_CANCEL_F_ANY | \
				 RETIRE_CANCEL_F_WAIT)

/*
 * struct retire_cancel_match - argument of RETIRE_IOC_CANCEL_MATCH: cancel
 * the requests of a key, or all, that are waiting or on the device.
 * @key:	in: with RETIRE_CANCEL_F_KEY, the key; else 0.
 * @timeout_ns:	in: with RETIRE_CANCEL_F_WAIT, the longest wait (0: no
 *		bound); else 0.
 * @flags:	in: RETIRE_CANCEL_F_*.
 * @found:	out: requests found waiting or on the device.
 * @kept:	out: how many of them the device kept (-EALREADY).
 * @pending:	out: with RETIRE_CANCEL_F_WAIT, those still waiting or on the
 *		device at return: 0 unless the call failed (-ETIME, -EINTR).
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_CANCEL_MATCH.
 */
struct retire_cancel_match {
	__u64 key;
	__u64 timeout_ns;
	__u32 flags;
	__u32 found;
	__u32 kept;
	__u32 pending;
	__u64 reserved[2];
};

/* ---- requests ----------------------------------------------------------- */

/*
 * Device-access flags (struct retire_sqe.dev_flags): what the device may do
 * to the request's range. They fix the DMA direction and are enforced: an
 * engine access outside them is refused, counted and fails the request.
 * Every flag must be listed in RETIRE_DEV_ALL.
 */
/* the device may read the range */
#define RETIRE_DEV_READ		(1U << 0)
/* the device may write the range */
#define RETIRE_DEV_WRITE	(1U << 1)

#define RETIRE_DEV_ALL		(RETIRE_DEV_READ | RETIRE_DEV_WRITE)

/*
 * Request flags (struct retire_sqe.flags, struct retire_op.flags).
 * Every flag must be listed in RETIRE_SQE_F_ALL.
 */
/*
 * consume the request when its TERMINAL record is handed to the reader, as
 * if RETIRE_IOC_RETIRE had named it then
 */
#define RETIRE_SQE_F_AUTO_RETIRE	(1U << 0)
/*
 * with RETIRE_SQE_F_AUTO_RETIRE: a request that retires as its TERMINAL
 * record is handed over flags it RETIRE_CQE_F_RETIRED; no RETIRED record
 */
#define RETIRE_SQE_F_ONE_RECORD		(1U << 1)
/*
 * return in @result a sync_file fd (O_CLOEXEC) whose fence signals at the
 * request's terminal event, with its -errno
 */
#define RETIRE_SQE_F_OUT_FENCE		(1U << 2)
/*
 * @in_fence names a sync_file fd the request waits for before the device
 * sees it; a fence error fails it without device access
 */
#define RETIRE_SQE_F_IN_FENCE		(1U << 3)

#define RETIRE_SQE_F_ALL	(RETIRE_SQE_F_AUTO_RETIRE | \
				 RETIRE_SQE_F_ONE_RECORD | \
				 RETIRE_SQE_F_OUT_FENCE | \
				 RETIRE_SQE_F_IN_FENCE)

/*
 * struct retire_sqe - one request of a RETIRE_IOC_SUBMIT batch.
 * @user_data:	in: returned in every record of the request.
 * @buf:	in: the buffer's handle; the buffer must be FREE.
 * @offset:	in: start of the range in the buffer.
 * @len:	in: non-zero; @offset + @len must lie inside the buffer.
 * @deadline_ns: in: relative deadline, 0 for none, at most 2^63 - 1; its
 *		expiry gives a RETIRE_REC_TIMEOUT record, the work goes on.
 * @key:	in: the request's key (admission and publication use it).
 * @dev_flags:	in: RETIRE_DEV_*, at least one.
 * @flags:	in: RETIRE_SQE_F_*.
 * @handle:	out: the request's handle if admitted, else 0.
 * @result:	out: 0 if admitted (with RETIRE_SQE_F_OUT_FENCE the fence's
 *		fd, 0 or more), else the -errno that refused this entry.
 * @pad:	in: must be 0, unless @flags has RETIRE_SQE_F_IN_FENCE.
 * @in_fence:	in: with RETIRE_SQE_F_IN_FENCE: a sync_file fd.
 * @reserved:	in: must be 0.
 */
struct retire_sqe {
	__u64 user_data;
	__u64 buf;
	__u64 offset;
	__u64 len;
	__u64 deadline_ns;
	__u64 key;
	__u32 dev_flags;
	__u32 flags;
	__u64 handle;
	__s32 result;
	union {
		__u32 pad;
		__s32 in_fence;
	};
	__u64 reserved[2];
};

/* the most entries one RETIRE_IOC_SUBMIT takes */
#define RETIRE_SUBMIT_MAX	256

/*
 * struct retire_submit - argument of RETIRE_IOC_SUBMIT: admit a batch of
 * requests, each entry on its own.
 * @sqes:	in: address of an array of @nr struct retire_sqe.
 * @nr:		in: 1 to RETIRE_SUBMIT_MAX.
 * @flags:	in: must be 0.
 * @submitted:	out: how many entries were admitted.
 * @pad:	in: must be 0.
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_SUBMIT.
 */
struct retire_submit {
	__u64 sqes;
	__u32 nr;
	__u32 flags;
	__u32 submitted;
	__u32 pad;
	__u64 reserved[2];
};

/* ---- borrow tokens ------------------------------------------------------ */

/* struct retire_token_op.op */
/* take a token on a request whose device access has ended */
#define RETIRE_TOKEN_BORROW	1
/* give a token back: exactly once */
#define RETIRE_TOKEN_RETURN	2
/* take a new token and give back @handle's, atomically */
#define RETIRE_TOKEN_HANDOFF	3

/*
 * struct retire_token_op - argument of RETIRE_IOC_TOKEN.
 * @handle:	in: BORROW: the request's handle; RETURN and HANDOFF: the
 *		token's handle.
 * @token:	out: BORROW and HANDOFF: the new token's handle.
 * @op:		in: RETIRE_TOKEN_*.
 * @error:	in: RETURN: 0, or the -errno the consumer failed with (it is
 *		counted); must be 0 for BORROW and HANDOFF.
 * @flags:	in: must be 0.
 * @pad:	in: must be 0.
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_TOKEN.
 */
struct retire_token_op {
	__u64 handle;
	__u64 token;
	__u32 op;
	__s32 error;
	__u32 flags;
	__u32 pad;
	__u64 reserved[2];
};

/* ---- records ------------------------------------------------------------ */

/* struct retire_cqe.type */
/*
 * the request's deadline expired: outcome timed_out, with
 * RETIRE_CQE_F_OUTSTANDING (the device still owns the buffer)
 */
#define RETIRE_REC_TIMEOUT	1
/*
 * the first cancel that found the request in flight (waiting or on the
 * device): @error its result, 0 or -EALREADY
 */
#define RETIRE_REC_CANCEL_ACK	2
/* the engine's terminal event: completed, failed or cancelled */
#define RETIRE_REC_TERMINAL	3
/* the buffer went back to its pool; the request's handle is now stale */
#define RETIRE_REC_RETIRED	4
/*
 * the device held it past the watchdog: outcome unknown, buffer
 * quarantined until the device's terminal event or an engine reset
 */
#define RETIRE_REC_QUARANTINE	5

/* struct retire_cqe.outcome */
#define RETIRE_OUTCOME_COMPLETED	1
#define RETIRE_OUTCOME_FAILED		2
/* a cancel took it before the engine was handed it, or the engine stopped it */
#define RETIRE_OUTCOME_CANCELLED	3
/* the caller's wait expired; says nothing about the work */
#define RETIRE_OUTCOME_TIMED_OUT	4
#define RETIRE_OUTCOME_CANCEL_REQUESTED	5
/* timed out or cancelled, but the engine still owns the buffer */
#define RETIRE_OUTCOME_OUTSTANDING_WORK	6
/* termination cannot be proven: the watchdog quarantined it */
#define RETIRE_OUTCOME_UNKNOWN		7
/*
 * succeeded, but the publication predicate rejected it: a cancel found it
 * in flight, or its key's epoch or the context's authority changed
 */
#define RETIRE_OUTCOME_STALE		8
/* RETIRE_REC_RETIRED */
#define RETIRE_OUTCOME_RETIRED		9

/*
 * Record flags (struct retire_cqe.flags).
 * Every flag must be listed in RETIRE_CQE_F_ALL.
 */
/*
 * @result_len, @latency_ns and @checksum are measurements: set only on a
 * completed terminal record
 */
#define RETIRE_CQE_F_MEASURED		(1U << 0)
/* the engine still owned the buffer when this record was made */
#define RETIRE_CQE_F_OUTSTANDING	(1U << 1)
/* the request's deadline had expired before this record was made */
#define RETIRE_CQE_F_TIMED_OUT		(1U << 2)
/* a cancel had been requested before this record was made */
#define RETIRE_CQE_F_CANCEL_REQUESTED	(1U << 3)
/*
 * RETIRE_SQE_F_ONE_RECORD: the request retired as this TERMINAL record was
 * handed over; no RETIRED record follows, and its handle is stale already
 */
#define RETIRE_CQE_F_RETIRED		(1U << 4)

#define RETIRE_CQE_F_ALL	(RETIRE_CQE_F_MEASURED | RETIRE_CQE_F_OUTSTANDING | \
				 RETIRE_CQE_F_TIMED_OUT | \
				 RETIRE_CQE_F_CANCEL_REQUESTED | \
				 RETIRE_CQE_F_RETIRED)

/*
 * struct retire_cqe - one record, as read() or RETIRE_IOC_REAP return it.
 * @user_data:	the request's user_data.
 * @handle:	the request's handle (stale after RETIRE_REC_RETIRED).
 * @type:	RETIRE_REC_*.
 * @outcome:	RETIRE_OUTCOME_*.
 * @error:	TERMINAL: 0 if completed (or stale), else the -errno
 *		(-ECANCELED if cancelled); CANCEL_ACK: the cancel's result
 *		(0 or -EALREADY); every other record: 0.
 * @flags:	RETIRE_CQE_F_*.
 * @result_len: completed: bytes the device transferred.
 * @latency_ns: completed: from admission to the terminal event.
 * @checksum:	completed with RETIRE_DEV_READ: the device's checksum of
 *		the range (FNV-1a, 64 bit) as it read it.
 * @reserved:	0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_REAP, for a request's records
 * and their order.
 */
struct retire_cqe {
	__u64 user_data;
	__u64 handle;
	__u32 type;
	__u32 outcome;
	__s32 error;
	__u32 flags;
	__u64 result_len;
	__u64 latency_ns;
	__u64 checksum;
	__u64 reserved;
};

/*
 * RETIRE_IOC_REAP flags.
 * Every flag must be listed in RETIRE_REAP_F_ALL.
 */
/* wait without a bound when @timeout_ns is 0 (else 0 means do not wait) */
#define RETIRE_REAP_F_WAIT_FOREVER	(1U << 0)

#define RETIRE_REAP_F_ALL	(RETIRE_REAP_F_WAIT_FOREVER)

/*
 * struct retire_reap - argument of RETIRE_IOC_REAP.
 * @cqes:	in: address of an array of @nr struct retire_cqe.
 * @nr:		in: 1 to RETIRE_SUBMIT_MAX.
 * @min_complete: in: the records to wait for, at most @nr.
 * @timeout_ns: in: the longest wait; 0 does not wait.
 * @flags:	in: RETIRE_REAP_F_*.
 * @reaped:	out: records copied to @cqes.
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_REAP.
 */
struct retire_reap {
	__u64 cqes;
	__u32 nr;
	__u32 min_complete;
	__u64 timeout_ns;
	__u32 flags;
	__u32 reaped;
	__u64 reserved[2];
};

/* ---- statistics --------------------------------------------------------- */

/*
 * log2 buckets of a latency histogram: bucket i counts [2^i, 2^(i+1)) us,
 * bucket 0 also everything under 1 us, the last everything above
 */
#define RETIRE_HIST_BUCKETS	24

/*
 * struct retire_stats - counters of one context or of the whole module.
 * Counters only grow; gauges (marked) go up and down.
 */
struct retire_stats {
	__u64 admitted;
	__u64 refused;
	__u64 completed;
	__u64 failed;
	__u64 cancelled;
	__u64 timed_out;
	__u64 cancel_ok;		/* cancels that returned 0 */
	__u64 cancel_already;		/* ... -EALREADY */
	__u64 cancel_noent;		/* ... -ENOENT */
	__u64 stale_engine;		/* engine events naming a stale handle */
	__u64 stale_cancel;		/* cancels naming a stale handle */
	__u64 stale_token;		/* borrows/returns/handoffs naming one */
	__u64 stale_user;		/* other commands naming one */
	__u64 protocol_errors;		/* duplicate or unknown token returns */
	__u64 consumer_errors;		/* returns carrying a consumer error */
	__u64 access_violations;	/* engine accesses outside dev_flags */
	__u64 retired;
	__u64 tokens_out;		/* gauge */
	__u64 logical_outstanding;	/* gauge: someone still waits */
	__u64 physical_outstanding;	/* gauge: admitted, not retired */
	__u64 owned_bytes;		/* gauge: reserved by unretired requests */
	__u64 owned_bytes_hwm;		/* high-water of owned_bytes */
	__u64 pinned_bytes;		/* gauge: user memory pinned */
	__u64 buffers;			/* gauge: registered buffers */
	__u64 contexts;			/* gauge, module only: live contexts */
	__u64 refused_unretired;	/* -ENOSPC: max_unretired */
	__u64 refused_reserved;		/* -EDQUOT: max_reserved_bytes */
	__u64 refused_waiting;		/* -ENOBUFS: max_waiting */
	__u64 refused_quarantine;	/* -ENOTRECOVERABLE: quarantined */
	__u64 refused_injected;		/* -EIO: fail_submit_every */
	__u64 refused_tokens;		/* -ETOOMANYREFS: max_tokens */
	__u64 refused_pinned;		/* -EDQUOT: max_pinned_bytes */
	__u64 refused_pool;		/* -ENOSPC: max_pool_bytes */
	__u64 refused_buffers;		/* -EMFILE: max_buffers */
	__u64 published;		/* completed records delivered */
	__u64 stale_published;		/* ... rejected as stale */
	__u64 quarantined;		/* requests that entered quarantine */
	__u64 quarantined_now;		/* gauge: still quarantined */
	__u64 evicted;			/* pool buffers evicted */
	__u64 pool_bytes;		/* gauge: module-allocated bytes */
	__u64 engine_bytes;		/* bytes the engine moved */
	__u64 device_outstanding;	/* gauge: admitted, no terminal event */
	/* admission -> the first of terminal event, timeout, cancel */
	__u64 lat_logical[RETIRE_HIST_BUCKETS];
	/* terminal event -> its record read */
	__u64 lat_cq_wait[RETIRE_HIST_BUCKETS];
	/* admission -> retirement */
	__u64 lat_physical[RETIRE_HIST_BUCKETS];
};

/*
 * RETIRE_IOC_GET_STATS flags.
 * Every flag must be listed in RETIRE_STATS_F_ALL.
 */
/* the whole module's counters rather than this context's */
#define RETIRE_STATS_F_MODULE	(1U << 0)

#define RETIRE_STATS_F_ALL	(RETIRE_STATS_F_MODULE)

/*
 * struct retire_stats_arg - argument of RETIRE_IOC_GET_STATS.
 * @stats:	in: address of a struct retire_stats of @size bytes.
 * @size:	in: the caller's sizeof(struct retire_stats), not 0.
 * @flags:	in: RETIRE_STATS_F_*.
 * @reserved:	in: must be 0.
 */
struct retire_stats_arg {
	__u64 stats;
	__u32 size;
	__u32 flags;
	__u64 reserved[2];
};

/* ---- the sim engine (privileged: CAP_SYS_ADMIN) ------------------------ */

/*
 * Sim engine flags (struct retire_sim_config.flags).
 * Every flag must be listed in RETIRE_SIM_F_ALL.
 */
/* the destination accepts nothing: transfers make no progress */
#define RETIRE_SIM_F_BLOCKED		(1U << 0)
/* requests activated from now on never terminate until a reset */
#define RETIRE_SIM_F_HANG		(1U << 1)
/* a cancel may stop a request the engine has started */
#define RETIRE_SIM_F_CANCEL_RUNNING	(1U << 2)
/*
 * test only: the engine tries one access outside each request's
 * dev_flags, to prove that such accesses are caught
 */
#define RETIRE_SIM_F_VIOLATE		(1U << 3)

/*
 * complete in the submitting context a job that needs no time (at most
 * RETIRE_SIM_INLINE_MAX bytes), as io_uring's NOP and null_blk's irqmode=0
 */
#define RETIRE_SIM_F_INLINE		(1U << 4)

/* the longest job RETIRE_SIM_F_INLINE moves inline: 64 KiB */
#define RETIRE_SIM_INLINE_MAX		(64U << 10)

#define RETIRE_SIM_F_ALL	(RETIRE_SIM_F_BLOCKED | RETIRE_SIM_F_HANG | \
				 RETIRE_SIM_F_CANCEL_RUNNING | \
				 RETIRE_SIM_F_VIOLATE | RETIRE_SIM_F_INLINE)

/*
 * struct retire_sim_config - argument of RETIRE_IOC_SIM_CONFIG: the sim
 * engine's module-wide knobs, read with RETIRE_SIM_GET and set with
 * RETIRE_SIM_SET (CAP_SYS_ADMIN). Each knob is in for SET, out for GET.
 * @op:		in: RETIRE_SIM_GET or RETIRE_SIM_SET.
 * @flags:	RETIRE_SIM_F_*.
 * @latency_ns:	time from activation to the first transfer.
 * @tick_ns:	time between two transfers of one request; 0: 1 ms.
 * @bytes_per_tick: bytes one transfer moves; 0: the whole range at once.
 * @fail_every:	fail every Nth activation (counted module-wide); 0 never.
 * @fail_submit_every: refuse every Nth submission attempt with -EIO
 *		(counted module-wide); 0 never.
 * @seed:	no effect: stored and read back.
 * @rate_bps:	shared bandwidth of every transfer, bytes per second; 0:
 *		unlimited.
 * @burst_bytes: the token bucket's depth (at most 16 GiB).
 * @finish_ns:	time from a request's last transfer to its terminal event;
 *		0: at once.
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_SIM_CONFIG.
 */
struct retire_sim_config {
	__u32 op;
	__u32 flags;
	__u64 latency_ns;
	__u64 tick_ns;
	__u64 bytes_per_tick;
	__u32 fail_every;
	__u32 fail_submit_every;
	__u64 seed;
	__u64 rate_bps;
	__u64 burst_bytes;
	__u64 finish_ns;
	__u64 reserved;
};

#define RETIRE_SIM_GET		0
#define RETIRE_SIM_SET		1

/*
 * struct retire_sim_event - argument of RETIRE_IOC_SIM_INJECT (privileged):
 * an engine terminal event naming @handle, as a device with a stale or
 * forged tag would send it.
 * @handle:	in: the request handle the event names.
 * @error:	in: the event's result: 0 or a -errno.
 * @flags:	in: must be 0.
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_SIM_INJECT.
 */
struct retire_sim_event {
	__u64 handle;
	__s32 error;
	__u32 flags;
	__u64 reserved[2];
};

/* ---- limits and the publication predicate ----------------------------- */

/* the shortest watchdog_ns a context without CAP_SYS_ADMIN may set: 100 ms */
#define RETIRE_WATCHDOG_MIN_NS	100000000ULL

/* struct retire_limits_arg.op */
#define RETIRE_LIMITS_GET	0
#define RETIRE_LIMITS_SET	1

/*
 * struct retire_limits_arg - argument of RETIRE_IOC_LIMITS: read or
 * replace this context's limits.
 * @op:		in: RETIRE_LIMITS_GET or RETIRE_LIMITS_SET.
 * @flags:	in: must be 0.
 * @limits:	GET: out; SET: in.
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_LIMITS.
 */
struct retire_limits_arg {
	__u32 op;
	__u32 flags;
	struct retire_limits limits;
	__u64 reserved[2];
};

/* struct retire_epoch_arg.op */
/* read @key's epoch and the context's authority */
#define RETIRE_EPOCH_GET	0
/* a new intent for @key: requests submitted before are delivered stale */
#define RETIRE_EPOCH_BUMP	1
/*
 * revoke the context's authority: every request submitted before is
 * delivered stale; @key must be 0
 */
#define RETIRE_EPOCH_REVOKE	2

/* keys whose epoch a context tracks; bumping one more key: -ENOSPC */
#define RETIRE_EPOCH_KEYS	64

/*
 * struct retire_epoch_arg - argument of RETIRE_IOC_EPOCH.
 * @op:		in: RETIRE_EPOCH_*.
 * @flags:	in: must be 0.
 * @key:	in: the key (GET, BUMP).
 * @epoch:	out: the key's epoch after the command (0 until bumped).
 * @authority:	out: the context's authority generation after the command.
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, "Publication predicate".
 */
struct retire_epoch_arg {
	__u32 op;
	__u32 flags;
	__u64 key;
	__u64 epoch;
	__u64 authority;
	__u64 reserved[2];
};

/* ---- the batched path ------------------------------------------------- */

/* struct retire_op.opcode */
/* admit a request: the fields of struct retire_sqe, @handle out */
#define RETIRE_OP_SUBMIT	1
/* RETIRE_IOC_CANCEL of @handle */
#define RETIRE_OP_CANCEL	2
/* RETIRE_IOC_RETIRE of @handle */
#define RETIRE_OP_RETIRE	3
/* RETIRE_TOKEN_BORROW on the request @handle; the token comes back there */
#define RETIRE_OP_BORROW	4
/* RETIRE_TOKEN_RETURN of the token @handle, with the consumer's @error */
#define RETIRE_OP_RETURN	5
/* RETIRE_TOKEN_HANDOFF of the token @handle; the new one comes back there */
#define RETIRE_OP_HANDOFF	6
/*
 * RETIRE_IOC_CANCEL_MATCH, without waiting, of @key (@flags
 * RETIRE_CANCEL_F_KEY) or of every request (RETIRE_CANCEL_F_ANY)
 */
#define RETIRE_OP_CANCEL_MATCH	7
/* the out-fence of the request @handle: @result a new sync_file fd */
#define RETIRE_OP_FENCE		8

/*
 * struct retire_op - one operation of a RETIRE_IOC_ENTER batch.
 * @opcode:	in: RETIRE_OP_*.
 * @flags:	in: SUBMIT: RETIRE_SQE_F_*; CANCEL_MATCH: RETIRE_CANCEL_F_KEY
 *		or _ANY; else 0.
 * @user_data:	in: SUBMIT: as struct retire_sqe; else 0.
 * @buf:	in: SUBMIT: as struct retire_sqe; else 0.
 * @offset:	in: SUBMIT: as struct retire_sqe; else 0.
 * @len:	in: SUBMIT: as struct retire_sqe; else 0.
 * @deadline_ns: in: SUBMIT: as struct retire_sqe; else 0.
 * @key:	in: SUBMIT: as struct retire_sqe; CANCEL_MATCH: with
 *		RETIRE_CANCEL_F_KEY; else 0.
 * @dev_flags:	in: SUBMIT: as struct retire_sqe; else 0.
 * @error:	in: RETURN: 0 or the consumer's -errno; else 0.
 * @handle:	SUBMIT: out: the new request's handle, or 0. CANCEL_MATCH:
 *		out: the requests found that the device kept. Others: in:
 *		the handle named; out: BORROW, HANDOFF: the new token's if
 *		@result is 0; else unchanged.
 * @result:	out: 0 or the -errno of the operation's own ioctl.
 *		CANCEL_MATCH: the requests found, or -EINVAL. FENCE, and
 *		SUBMIT with RETIRE_SQE_F_OUT_FENCE: a sync_file fd.
 * @pad:	in: must be 0, unless SUBMIT's @flags has RETIRE_SQE_F_IN_FENCE.
 * @in_fence:	in: SUBMIT with RETIRE_SQE_F_IN_FENCE: a sync_file fd.
 */
struct retire_op {
	__u32 opcode;
	__u32 flags;
	__u64 user_data;
	__u64 buf;
	__u64 offset;
	__u64 len;
	__u64 deadline_ns;
	__u64 key;
	__u32 dev_flags;
	__s32 error;
	__u64 handle;
	__s32 result;
	union {
		__u32 pad;
		__s32 in_fence;
	};
};

/*
 * RETIRE_IOC_ENTER flags: those of RETIRE_IOC_REAP, and these.
 * Every flag must be listed in RETIRE_ENTER_F_ALL.
 */
/*
 * take the operations from the context's submission ring and move records
 * into its completion ring (RETIRE_IOC_RING_SETUP) instead of the arrays
 */
#define RETIRE_ENTER_F_RINGS		(1U << 1)

#define RETIRE_ENTER_F_ALL	(RETIRE_REAP_F_ALL | RETIRE_ENTER_F_RINGS)

/*
 * struct retire_enter - argument of RETIRE_IOC_ENTER: run a batch of
 * operations, then reap records, in one call.
 * @ops:	in: address of an array of @nr_ops struct retire_op.
 * @cqes:	in: address of an array of @nr_cqes struct retire_cqe.
 * @nr_ops:	in: 0 to RETIRE_SUBMIT_MAX.
 * @nr_cqes:	in: 0 to RETIRE_SUBMIT_MAX; at least one of the two non-zero.
 * @min_complete: in: as struct retire_reap, at most @nr_cqes.
 * @flags:	in: RETIRE_ENTER_F_*.
 * @timeout_ns:	in: as struct retire_reap.
 * @done:	out: operations run (all @nr_ops unless the call failed
 *		before any); each has its @result.
 * @reaped:	out: records copied to @cqes (or moved into the ring).
 * @reserved:	in: must be 0.
 *
 * With RETIRE_ENTER_F_RINGS, @ops, @cqes and @nr_cqes are 0: operations
 * come from the submission ring and records go into the completion ring.
 * See Documentation/retire.rst, RETIRE_IOC_ENTER.
 */
struct retire_enter {
	__u64 ops;
	__u64 cqes;
	__u32 nr_ops;
	__u32 nr_cqes;
	__u32 min_complete;
	__u32 flags;
	__u64 timeout_ns;
	__u32 done;
	__u32 reaped;
	__u64 reserved[2];
};

/* ---- rings ----------------------------------------------------------- */

/* the most entries a ring may have */
#define RETIRE_RING_MAX_ENTRIES	4096

/* the offset to mmap() the rings at, once RETIRE_IOC_RING_SETUP made them */
#define RETIRE_RING_OFFSET	0ULL

/* cq_flags: records wait in the module for room in the completion ring */
#define RETIRE_CQ_F_OVERFLOW	(1U << 0)

/*
 * struct retire_ring_offsets - where each part of the rings lies in the
 * mapping, in bytes from its start.
 * @sq_head:	__u32, written by the module: the next operation it takes.
 * @sq_tail:	__u32, written by the caller: one past its last operation.
 * @sq_mask:	__u32, read-only: @sq_entries - 1.
 * @sq_entries:	__u32, read-only: the submission ring's size.
 * @sqes:	struct retire_op[sq_entries]: entry i is sqes[i & sq_mask].
 * @cq_head:	__u32, written by the caller: the next record it reads.
 * @cq_tail:	__u32, written by the module: one past its last record.
 * @cq_mask:	__u32, read-only: @cq_entries - 1.
 * @cq_entries:	__u32, read-only: the completion ring's size.
 * @cq_flags:	__u32, written by the module: RETIRE_CQ_F_*.
 * @cqes:	struct retire_cqe[cq_entries].
 * @pad:	0.
 * @reserved:	0.
 */
struct retire_ring_offsets {
	__u32 sq_head;
	__u32 sq_tail;
	__u32 sq_mask;
	__u32 sq_entries;
	__u32 sqes;
	__u32 cq_head;
	__u32 cq_tail;
	__u32 cq_mask;
	__u32 cq_entries;
	__u32 cq_flags;
	__u32 cqes;
	__u32 pad;
	__u64 reserved[2];
};

/*
 * struct retire_ring_setup - argument of RETIRE_IOC_RING_SETUP: give the
 * context its submission and completion rings, one pair for its lifetime,
 * to mmap(MAP_SHARED) as @size bytes at RETIRE_RING_OFFSET.
 * @sq_entries:	in: a power of two, 1 to RETIRE_RING_MAX_ENTRIES.
 * @cq_entries:	in: a power of two, 1 to RETIRE_RING_MAX_ENTRIES.
 * @flags:	in: must be 0.
 * @size:	out: the mapping's size in bytes, a multiple of the page size.
 * @off:	out: where each part lies in it.
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_RING_SETUP.
 */
struct retire_ring_setup {
	__u32 sq_entries;
	__u32 cq_entries;
	__u32 flags;
	__u32 size;
	struct retire_ring_offsets off;
	__u64 reserved[2];
};

/* ---- engines ---------------------------------------------------------- */

/* the sim engine's id: always there, and every new context's engine */
#define RETIRE_ENGINE_SIM	0

/*
 * Engine flags (struct retire_engine_info.flags).
 * Every flag must be listed in RETIRE_ENGINE_F_ALL.
 */
/* its knobs are RETIRE_IOC_SIM_CONFIG's, and RETIRE_IOC_SIM_RESET stops it */
#define RETIRE_ENGINE_F_KNOBS	(1U << 0)
/* it moves data by DMA through the DMA API */
#define RETIRE_ENGINE_F_DMA	(1U << 1)

#define RETIRE_ENGINE_F_ALL	(RETIRE_ENGINE_F_KNOBS | RETIRE_ENGINE_F_DMA)

/*
 * struct retire_engine_info - one engine, as RETIRE_IOC_ENGINES lists it.
 * @id:		its number (RETIRE_IOC_CONTEXT); never reused while the
 *		module is loaded.
 * @flags:	RETIRE_ENGINE_F_*.
 * @name:	its kind, NUL-terminated: "sim" or "edu".
 * @device:	the device it drives, NUL-terminated ("" for the sim).
 * @dma_mask:	the bus addresses its DMA reaches; 0 without DMA.
 * @max_transfer: the most bytes one transfer moves (0: no limit).
 * @contexts:	contexts bound to it now.
 * @pad:	0.
 * @transfers:	transfers it has made.
 * @bounced:	of those between a buffer and the device, how many the DMA
 *		API bounced (the buffer lay beyond @dma_mask).
 * @reserved:	0.
 */
struct retire_engine_info {
	__u32 id;
	__u32 flags;
	char name[16];
	char device[32];
	__u64 dma_mask;
	__u32 max_transfer;
	__u32 contexts;
	__u64 transfers;
	__u64 bounced;
	__u64 reserved[3];
};

/*
 * struct retire_engines_arg - argument of RETIRE_IOC_ENGINES: the engines
 * the module has now, by id.
 * @engines:	in: address of an array of @nr struct retire_engine_info.
 * @nr:		in: its capacity (256 if above); 0, with @engines 0, only
 *		counts. Out: how many engines there are.
 * @flags:	in: must be 0.
 * @reserved:	in: must be 0.
 */
struct retire_engines_arg {
	__u64 engines;
	__u32 nr;
	__u32 flags;
	__u64 reserved[2];
};

/* struct retire_context_arg.op */
#define RETIRE_CONTEXT_GET	0
#define RETIRE_CONTEXT_SET	1

/*
 * struct retire_context_arg - argument of RETIRE_IOC_CONTEXT: read or set
 * the engine this context is bound to.
 * @op:		in: RETIRE_CONTEXT_GET or RETIRE_CONTEXT_SET.
 * @engine:	SET: in; GET: out.
 * @flags:	in: must be 0.
 * @pad:	in: must be 0.
 * @ctx_id:	in: must be 0. GET: out, this context's id (as netlink and
 *		RETIRE_IOC_HISTORY name it).
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_CONTEXT.
 */
struct retire_context_arg {
	__u32 op;
	__u32 engine;
	__u32 flags;
	__u32 pad;
	__u64 ctx_id;
	__u64 reserved;
};

/*
 * The events of a context's history (RETIRE_IOC_HISTORY), each also the
 * tracepoint of its name in lower case without RETIRE_EV_ (retire:submit).
 * @handle is the request's (a buffer's for EXPORT, IMPORT and REVOKE, the
 * handle refused for STALE); @value and @aux are as each says, else 0.
 */
enum retire_event_type {
	/* admitted: @value its RETIRE_DEV_* flags, @aux its length */
	RETIRE_EV_SUBMIT = 1,
	/* handed to the device */
	RETIRE_EV_ACTIVATE = 2,
	/*
	 * the device's terminal event, after which it no longer touches the
	 * buffer: @value its -errno (0 if completed), @aux the RETIRE_OUTCOME_*
	 */
	RETIRE_EV_TERMINAL = 3,
	/* the deadline passed before the terminal event */
	RETIRE_EV_TIMEOUT = 4,
	/* a cancel named it: @value what RETIRE_IOC_CANCEL returned */
	RETIRE_EV_CANCEL = 5,
	/* a borrow token was taken: @aux the token's handle */
	RETIRE_EV_BORROW = 6,
	/* a token came back: @aux the token, @value the consumer's -errno */
	RETIRE_EV_RETURN = 7,
	/* a token was replaced: @aux the new token */
	RETIRE_EV_HANDOFF = 8,
	/* the buffer went back to its pool; the generation moved on */
	RETIRE_EV_RETIRE = 9,
	/*
	 * a handle naming no live object was refused: @handle as given,
	 * @value the RETIRE_STALE_* counter moved, @aux its slot's generation
	 * now (0 if the slot never existed)
	 */
	RETIRE_EV_STALE = 10,
	/* the watchdog fired: the buffer stays until the device ends */
	RETIRE_EV_QUARANTINE = 11,
	/* an engine reset ended it (its TERMINAL event follows) */
	RETIRE_EV_RESET = 12,
	/*
	 * its out-fence signalled (right after TERMINAL): @value the
	 * fence's error, 0 if completed
	 */
	RETIRE_EV_FENCE = 13,
	/*
	 * its in-fence signalled: @value that fence's error; 0 lets it go on
	 * to the device, an error fails it without device access
	 */
	RETIRE_EV_GATE = 14,
	/*
	 * @handle, a buffer, was exported as a dma-buf, or a dma-buf of it
	 * was released: @value its live dma-bufs now (0: it may be evicted
	 * again), @aux that dma-buf's length
	 */
	RETIRE_EV_EXPORT = 15,
	/* a dma-buf became the buffer @handle: @aux its length */
	RETIRE_EV_IMPORT = 16,
	/*
	 * a dma-buf of the buffer @handle was revoked: @value the dynamic
	 * importers told, @aux that dma-buf's length
	 */
	RETIRE_EV_REVOKE = 17,
};

/* RETIRE_EV_STALE's @value: which stale counter moved */
#define RETIRE_STALE_ENGINE	1	/* a device event */
#define RETIRE_STALE_CANCEL	2	/* RETIRE_IOC_CANCEL */
#define RETIRE_STALE_TOKEN	3	/* a borrow, return or handoff */
#define RETIRE_STALE_USER	4	/* any other call naming a handle */
#define RETIRE_STALE_PUBLISHED	5	/* a result withheld: intent changed */

/*
 * struct retire_history_event - one event of a context's history.
 * @time_ns:	CLOCK_MONOTONIC when it happened.
 * @handle:	the handle it concerns.
 * @aux:	per @type (enum retire_event_type).
 * @type:	enum retire_event_type.
 * @value:	per @type.
 */
struct retire_history_event {
	__u64 time_ns;
	__u64 handle;
	__u64 aux;
	__u32 type;
	__s32 value;
};

/* the events a context keeps: older ones are overwritten, oldest first */
#define RETIRE_HISTORY_LEN	256

/*
 * struct retire_history_arg - argument of RETIRE_IOC_HISTORY: a context's
 * last events, oldest first.
 * @events:	in: address of an array of @nr struct retire_history_event.
 * @nr:		in: its capacity (RETIRE_HISTORY_LEN if above); 0, with
 *		@events 0, reads only the counts. Out: events written.
 * @flags:	in: must be 0.
 * @ctx_id:	in: 0 for the caller's own context, else another's id (as
 *		netlink names it). Out: the id of the context read.
 * @recorded:	out: events since the context was opened.
 * @dropped:	out: of those, how many were overwritten before this call.
 * @reserved:	in: must be 0.
 *
 * See Documentation/retire.rst, RETIRE_IOC_HISTORY.
 */
struct retire_history_arg {
	__u64 events;
	__u32 nr;
	__u32 flags;
	__u64 ctx_id;
	__u64 recorded;
	__u64 dropped;
	__u64 reserved[2];
};

/* 0xB9 is unused in Documentation/userspace-api/ioctl/ioctl-number.rst */
#define RETIRE_IOC_MAGIC	0xB9

#define RETIRE_IOC_GET_INFO	_IOWR(RETIRE_IOC_MAGIC, 0x00, struct retire_info)
#define RETIRE_IOC_BUF_REGISTER	_IOWR(RETIRE_IOC_MAGIC, 0x01, struct retire_buf_reg)
#define RETIRE_IOC_BUF_UNREGISTER _IOWR(RETIRE_IOC_MAGIC, 0x02, struct retire_handle_arg)
#define RETIRE_IOC_SUBMIT	_IOWR(RETIRE_IOC_MAGIC, 0x03, struct retire_submit)
#define RETIRE_IOC_CANCEL	_IOWR(RETIRE_IOC_MAGIC, 0x04, struct retire_handle_arg)
#define RETIRE_IOC_RETIRE	_IOWR(RETIRE_IOC_MAGIC, 0x05, struct retire_handle_arg)
#define RETIRE_IOC_TOKEN	_IOWR(RETIRE_IOC_MAGIC, 0x06, struct retire_token_op)
#define RETIRE_IOC_REAP		_IOWR(RETIRE_IOC_MAGIC, 0x07, struct retire_reap)
#define RETIRE_IOC_GET_STATS	_IOWR(RETIRE_IOC_MAGIC, 0x08, struct retire_stats_arg)
#define RETIRE_IOC_SIM_CONFIG	_IOWR(RETIRE_IOC_MAGIC, 0x09, struct retire_sim_config)
/* RETIRE_IOC_SIM_RESET (CAP_SYS_ADMIN, @handle 0): end every sim job */
#define RETIRE_IOC_SIM_RESET	_IOWR(RETIRE_IOC_MAGIC, 0x0a, struct retire_handle_arg)
#define RETIRE_IOC_SIM_INJECT	_IOWR(RETIRE_IOC_MAGIC, 0x0b, struct retire_sim_event)
#define RETIRE_IOC_LIMITS	_IOWR(RETIRE_IOC_MAGIC, 0x0c, struct retire_limits_arg)
#define RETIRE_IOC_EPOCH	_IOWR(RETIRE_IOC_MAGIC, 0x0d, struct retire_epoch_arg)
#define RETIRE_IOC_ENTER	_IOWR(RETIRE_IOC_MAGIC, 0x0e, struct retire_enter)
#define RETIRE_IOC_RING_SETUP	_IOWR(RETIRE_IOC_MAGIC, 0x0f, struct retire_ring_setup)
#define RETIRE_IOC_ENGINES	_IOWR(RETIRE_IOC_MAGIC, 0x10, struct retire_engines_arg)
#define RETIRE_IOC_CONTEXT	_IOWR(RETIRE_IOC_MAGIC, 0x11, struct retire_context_arg)
#define RETIRE_IOC_HISTORY	_IOWR(RETIRE_IOC_MAGIC, 0x12, struct retire_history_arg)
#define RETIRE_IOC_CANCEL_MATCH	_IOWR(RETIRE_IOC_MAGIC, 0x13, struct retire_cancel_match)
#define RETIRE_IOC_BUF_EXPORT	_IOWR(RETIRE_IOC_MAGIC, 0x14, struct retire_buf_export)
#define RETIRE_IOC_BUF_IMPORT	_IOWR(RETIRE_IOC_MAGIC, 0x15, struct retire_buf_import)
#define RETIRE_IOC_BUF_REVOKE	_IOWR(RETIRE_IOC_MAGIC, 0x16, struct retire_buf_revoke)

#endif /* _UAPI_LINUX_RETIRE_H */
