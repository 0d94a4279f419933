/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * retire's vocabularies, each named once.
 *
 * Every list below calls X(NAME, name) for each value, in the order of its
 * values (or of its bits), and X_LAST(NAME, name) for the last one, so
 * that it can build a table ("X" and "X_LAST" the same macro) or the
 * comma-separated list __print_symbolic() wants. NAME is the suffix of the
 * value's constant (RETIRE_EV_SUBMIT for SUBMIT; for the counters, the
 * module's short name); name is how the module's
 * history, debugfs and tracepoints, retirectl's text and JSON, and the
 * selftests spell it. See Documentation/retire.rst for what each means.
 */
#ifndef _UAPI_LINUX_RETIRE_NAMES_H
#define _UAPI_LINUX_RETIRE_NAMES_H

/* history events, RETIRE_EV_*, from 1 */
#define RETIRE_EVENT_NAMES(X, X_LAST)					\
	X(SUBMIT, submit)						\
	X(ACTIVATE, activate)						\
	X(TERMINAL, terminal)						\
	X(TIMEOUT, timeout)						\
	X(CANCEL, cancel)						\
	X(BORROW, borrow)						\
	X(RETURN, return)						\
	X(HANDOFF, handoff)						\
	X(RETIRE, retire)						\
	X(STALE, stale)							\
	X(QUARANTINE, quarantine)					\
	X(RESET, reset)							\
	X(FENCE, fence)							\
	X(GATE, gate)							\
	X(EXPORT, export)						\
	X(IMPORT, import)						\
	X_LAST(REVOKE, revoke)

/* record and history outcomes, RETIRE_OUTCOME_*, from 1 */
#define RETIRE_OUTCOME_NAMES(X, X_LAST)					\
	X(COMPLETED, completed)						\
	X(FAILED, failed)						\
	X(CANCELLED, cancelled)						\
	X(TIMED_OUT, timed_out)						\
	X(CANCEL_REQUESTED, cancel_requested)				\
	X(OUTSTANDING_WORK, outstanding_work)				\
	X(UNKNOWN, unknown)						\
	X(STALE, stale)							\
	X_LAST(RETIRED, retired)

/* the stale counter a RETIRE_EV_STALE event moved, RETIRE_STALE_*, from 1 */
#define RETIRE_STALE_NAMES(X, X_LAST)					\
	X(ENGINE, engine)						\
	X(CANCEL, cancel)						\
	X(TOKEN, token)							\
	X(USER, user)							\
	X_LAST(PUBLISHED, published)

/* what a handle names, RETIRE_KIND_*, from 1 */
#define RETIRE_KIND_NAMES(X, X_LAST)					\
	X(BUF, buf)							\
	X(REQ, req)							\
	X_LAST(TOKEN, token)

/* record types, RETIRE_REC_*, from 1 */
#define RETIRE_REC_NAMES(X, X_LAST)					\
	X(TIMEOUT, timeout)						\
	X(CANCEL_ACK, cancel_ack)					\
	X(TERMINAL, terminal)						\
	X(RETIRED, retired)						\
	X_LAST(QUARANTINE, quarantine)

/* record flags, RETIRE_CQE_F_*, from bit 0 */
#define RETIRE_CQE_FLAG_NAMES(X, X_LAST)				\
	X(MEASURED, measured)						\
	X(OUTSTANDING, outstanding)					\
	X(TIMED_OUT, timed_out)						\
	X(CANCEL_REQUESTED, cancel_requested)				\
	X_LAST(RETIRED, retired)

/* feature bits, RETIRE_FEAT_*, from bit 0 */
#define RETIRE_FEATURE_NAMES(X, X_LAST)					\
	X(GENL, genl)							\
	X(REQUESTS, requests)						\
	X(SIM, sim)							\
	X(ADMISSION, admission)						\
	X(ENTER, enter)							\
	X(RINGS, rings)							\
	X(ONE_RECORD, one_record)					\
	X(ENGINES, engines)						\
	X(EDU, edu)							\
	X(HISTORY, history)						\
	X(CANCEL_MATCH, cancel_match)					\
	X(FENCES, fences)						\
	X(DMABUF, dmabuf)						\
	X(DMABUF_IMPORT, dmabuf_import)					\
	X_LAST(DMABUF_REVOKE, dmabuf_revoke)

/* the sim engine's flags, RETIRE_SIM_F_*, from bit 0 */
#define RETIRE_SIM_FLAG_NAMES(X, X_LAST)				\
	X(BLOCKED, blocked)						\
	X(HANG, hang)							\
	X(CANCEL_RUNNING, cancel_running)				\
	X(VIOLATE, violate)						\
	X_LAST(INLINE, inline)

/* health notifications, enum retire_health_event (retire_netlink.h), from 0 */
#define RETIRE_HEALTH_NAMES(X, X_LAST)					\
	X(QUARANTINE, quarantine)					\
	X(RESET, reset)							\
	X_LAST(REAPED, reaped)

/*
 * The scalar counters and gauges of struct retire_stats, in its order, by
 * field name; the netlink stats attribute set has the same ones in the
 * same order, with '-' for '_'. NAME is the module's own short name.
 */
#define RETIRE_STAT_NAMES(X, X_LAST)					\
	X(ADMITTED, admitted)						\
	X(REFUSED, refused)						\
	X(COMPLETED, completed)						\
	X(FAILED, failed)						\
	X(CANCELLED, cancelled)						\
	X(TIMED_OUT, timed_out)						\
	X(CANCEL_OK, cancel_ok)						\
	X(CANCEL_ALREADY, cancel_already)				\
	X(CANCEL_NOENT, cancel_noent)					\
	X(STALE_ENGINE, stale_engine)					\
	X(STALE_CANCEL, stale_cancel)					\
	X(STALE_TOKEN, stale_token)					\
	X(STALE_USER, stale_user)					\
	X(PROTOCOL_ERRORS, protocol_errors)				\
	X(CONSUMER_ERRORS, consumer_errors)				\
	X(ACCESS_VIOLATIONS, access_violations)				\
	X(RETIRED, retired)						\
	X(TOKENS_OUT, tokens_out)					\
	X(LOGICAL, logical_outstanding)					\
	X(PHYSICAL, physical_outstanding)				\
	X(OWNED_BYTES, owned_bytes)					\
	X(OWNED_HWM, owned_bytes_hwm)					\
	X(PINNED_BYTES, pinned_bytes)					\
	X(BUFFERS, buffers)						\
	X(CONTEXTS, contexts)						\
	X(REFUSED_UNRETIRED, refused_unretired)				\
	X(REFUSED_RESERVED, refused_reserved)				\
	X(REFUSED_WAITING, refused_waiting)				\
	X(REFUSED_QUARANTINE, refused_quarantine)			\
	X(REFUSED_INJECTED, refused_injected)				\
	X(REFUSED_TOKENS, refused_tokens)				\
	X(REFUSED_PINNED, refused_pinned)				\
	X(REFUSED_POOL, refused_pool)					\
	X(REFUSED_BUFFERS, refused_buffers)				\
	X(PUBLISHED, published)						\
	X(STALE_PUBLISHED, stale_published)				\
	X(QUARANTINED, quarantined)					\
	X(QUARANTINED_NOW, quarantined_now)				\
	X(EVICTED, evicted)						\
	X(POOL_BYTES, pool_bytes)					\
	X(ENGINE_BYTES, engine_bytes)					\
	X_LAST(DEVICE, device_outstanding)

#endif /* _UAPI_LINUX_RETIRE_NAMES_H */
