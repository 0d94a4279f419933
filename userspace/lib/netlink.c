// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libretire: the generic netlink side, over libnl-genl.
 *
 * Requests (retire_query_*, retire_nl_dump_stats, retire_nl_set_sim_config) and
 * the monitor (retire_*_monitor, retire_read_events) never depend on
 * the exact attributes the kernel sends: attributes the library does not
 * know are skipped, and "uint" attributes are read at 4 or 8 bytes, as the
 * kernel may send either. An attribute the library knows, of a size it
 * cannot read, makes the message malformed (-EPROTO).
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <linux/retire_netlink.h>

#include "libretire.h"
#include "internal.h"

/* counters of the stats attribute set: struct retire_stats's leading __u64s */
#define RETIRE_NL_STATS_NR \
	(RETIRE_A_STATS_DEVICE_OUTSTANDING - RETIRE_A_STATS_ADMITTED + 1)

_Static_assert(RETIRE_NL_STATS_NR * sizeof(__u64) ==
	       offsetof(struct retire_stats, lat_logical),
	       "the stats attributes are struct retire_stats's counters");

/*
 * One request is in flight on @sk at a time: @lock is held from sending it
 * to reading its ack, so that threads sharing a handle never read each
 * other's replies. Dump callbacks run under it.
 */
struct retire_nl {
	pthread_mutex_t lock;
	struct nl_sock *sk;
	int family;
};

/* libnl reports its own error codes; map the ones that name a cause */
static int retire_nl_errno(int nlerr)
{
	switch (-nlerr) {
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_OBJ_NOTFOUND:
	case NLE_NOADDR:
		return -ENOENT;
	case NLE_INVAL:
	case NLE_MSG_TOOSHORT:
	case NLE_MSG_TRUNC:
		return -EINVAL;
	case NLE_AGAIN:
	case NLE_DUMP_INTR:
		return -EAGAIN;
	case NLE_BUSY:
		return -EBUSY;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_RANGE:
		return -ERANGE;
	default:
		return -EIO;
	}
}

/* ---- attributes ---------------------------------------------------------- */

/*
 * What the library reads of each attribute set. genlmsg_parse() refuses a
 * known attribute shorter than its type (minlen) or longer than .maxlen, so
 * every fixed-size attribute has exactly its size; a "uint" may be 4 or 8
 * bytes (libnl has no NLA_UINT), which retire_nla_uint() then insists on.
 * Attributes the policy leaves NLA_UNSPEC, and types above its maximum,
 * are skipped.
 */
#define RETIRE_NLA_U32	{ .type = NLA_U32, .maxlen = sizeof(__u32) }
#define RETIRE_NLA_U64	{ .type = NLA_U64, .maxlen = sizeof(__u64) }
#define RETIRE_NLA_UINT	{ .minlen = sizeof(__u32), .maxlen = sizeof(__u64) }

static const struct nla_policy retire_info_policy[RETIRE_A_INFO_MAX + 1] = {
	[RETIRE_A_INFO_ABI_VERSION]	= RETIRE_NLA_U32,
	[RETIRE_A_INFO_FEATURES]	= RETIRE_NLA_U64,
};

/* the context's id and owner (in a dump), then every counter a "uint" */
static const struct nla_policy retire_stats_policy[RETIRE_A_STATS_MAX + 1] = {
	[RETIRE_A_STATS_CTX_ID]	= RETIRE_NLA_UINT,
	[RETIRE_A_STATS_PID]	= RETIRE_NLA_U32,
	[RETIRE_A_STATS_ADMITTED ... RETIRE_A_STATS_DEVICE_OUTSTANDING] =
		RETIRE_NLA_UINT,
};

static const struct nla_policy retire_stale_policy[RETIRE_A_STALE_MAX + 1] = {
	[RETIRE_A_STALE_CTX_ID]		= RETIRE_NLA_UINT,
	[RETIRE_A_STALE_PID]		= RETIRE_NLA_U32,
	[RETIRE_A_STALE_ENGINE]		= RETIRE_NLA_UINT,
	[RETIRE_A_STALE_CANCEL]		= RETIRE_NLA_UINT,
	[RETIRE_A_STALE_TOKEN]		= RETIRE_NLA_UINT,
	[RETIRE_A_STALE_USER]		= RETIRE_NLA_UINT,
	[RETIRE_A_STALE_PUBLISHED]	= RETIRE_NLA_UINT,
};

static const struct nla_policy retire_health_policy[RETIRE_A_HEALTH_MAX + 1] = {
	[RETIRE_A_HEALTH_EVENT]			= RETIRE_NLA_U32,
	[RETIRE_A_HEALTH_CTX_ID]		= RETIRE_NLA_UINT,
	[RETIRE_A_HEALTH_PID]			= RETIRE_NLA_U32,
	[RETIRE_A_HEALTH_QUARANTINED_NOW]	= RETIRE_NLA_UINT,
};

/* each knob's attribute and where it lives in struct retire_sim_config */
#define RETIRE_ENGINE_ATTRS(X)						\
	X(RETIRE_A_ENGINE_FLAGS, flags, NLA_U32)			\
	X(RETIRE_A_ENGINE_LATENCY_NS, latency_ns, NLA_U64)		\
	X(RETIRE_A_ENGINE_TICK_NS, tick_ns, NLA_U64)			\
	X(RETIRE_A_ENGINE_BYTES_PER_TICK, bytes_per_tick, NLA_U64)	\
	X(RETIRE_A_ENGINE_FAIL_EVERY, fail_every, NLA_U32)		\
	X(RETIRE_A_ENGINE_FAIL_SUBMIT_EVERY, fail_submit_every, NLA_U32) \
	X(RETIRE_A_ENGINE_SEED, seed, NLA_U64)				\
	X(RETIRE_A_ENGINE_RATE_BPS, rate_bps, NLA_U64)			\
	X(RETIRE_A_ENGINE_BURST_BYTES, burst_bytes, NLA_U64)		\
	X(RETIRE_A_ENGINE_FINISH_NS, finish_ns, NLA_U64)

#define RETIRE_ENGINE_FIELD_SIZE(field)					\
	sizeof(((struct retire_sim_config *)0)->field)

/* .maxlen the field's size: a type that does not match it refuses all */
#define RETIRE_ENGINE_POLICY(attr, field, nla_type)			\
	[attr] = { .type = nla_type,					\
		   .maxlen = RETIRE_ENGINE_FIELD_SIZE(field) },

static const struct nla_policy retire_engine_policy[RETIRE_A_ENGINE_MAX + 1] = {
	RETIRE_ENGINE_ATTRS(RETIRE_ENGINE_POLICY)
};

static const struct {
	int type;
	size_t offset;
	size_t size;
} retire_nl_engine_attrs[] = {
#define RETIRE_ENGINE_ATTR(attr, field, nla_type)			\
	{ attr, offsetof(struct retire_sim_config, field),		\
	  RETIRE_ENGINE_FIELD_SIZE(field) },
	RETIRE_ENGINE_ATTRS(RETIRE_ENGINE_ATTR)
#undef RETIRE_ENGINE_ATTR
};

#define RETIRE_NL_ENGINE_NR \
	(sizeof(retire_nl_engine_attrs) / sizeof(retire_nl_engine_attrs[0]))

/* the largest attribute set a reply is parsed into */
#define RETIRE_NL_MAXTYPE	RETIRE_A_STATS_MAX

_Static_assert((int)RETIRE_A_INFO_MAX <= (int)RETIRE_NL_MAXTYPE &&
	       (int)RETIRE_A_ENGINE_MAX <= (int)RETIRE_NL_MAXTYPE &&
	       (int)RETIRE_A_STALE_MAX <= (int)RETIRE_NL_MAXTYPE &&
	       (int)RETIRE_A_HEALTH_MAX <= (int)RETIRE_NL_MAXTYPE,
	       "every attribute set fits a RETIRE_NL_MAXTYPE table");

/* a "uint" attribute, if present; absent leaves *@v */
static int retire_nla_uint(const struct nlattr *a, __u64 *v)
{
	__u32 v32;

	if (!a)
		return 0;
	switch (nla_len(a)) {
	case sizeof(__u32):
		memcpy(&v32, nla_data(a), sizeof(v32));
		*v = v32;
		return 0;
	case sizeof(__u64):
		memcpy(v, nla_data(a), sizeof(*v));
		return 0;
	default:
		return -EPROTO;
	}
}

/* a u32 attribute the policy checked, if present */
static void retire_nla_u32(const struct nlattr *a, __u32 *v)
{
	if (a)
		*v = nla_get_u32(a);
}

/*
 * The generic netlink header of @nlh if it is a message of @family, else
 * NULL (control messages, other families, messages too short to hold one).
 */
static struct genlmsghdr *retire_genl_hdr(struct nlmsghdr *nlh, int family)
{
	if (nlh->nlmsg_type != family ||
	    nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return NULL;
	return nlmsg_data(nlh);
}

/* @nlh's attributes into @tb by @policy: 0, or -EPROTO if one is malformed */
static int retire_genl_parse(struct nlmsghdr *nlh, struct nlattr **tb,
			     int maxtype, const struct nla_policy *policy)
{
	return genlmsg_parse(nlh, 0, tb, maxtype, policy) < 0 ? -EPROTO : 0;
}

/* ---- one request and its replies ---------------------------------------- */

struct retire_nl_req {
	__u32 seq;
	int err;	/* the kernel's -errno: NLMSG_ERROR or NLMSG_DONE */
	int done;	/* the ack, the error or the end of the dump came */
};

/*
 * Only the kernel's replies to this request: anything else (a leftover of
 * an exchange an error cut short) is skipped, so it cannot be taken for
 * this request's reply or ack.
 */
static int retire_nl_seq_cb(struct nl_msg *msg, void *data)
{
	struct retire_nl_req *req = data;
	struct sockaddr_nl *src = nlmsg_get_src(msg);

	if (nlmsg_hdr(msg)->nlmsg_seq != req->seq || (src && src->nl_pid))
		return NL_SKIP;
	return NL_OK;
}

static int retire_nl_ack_cb(struct nl_msg *msg, void *data)
{
	struct retire_nl_req *req = data;

	req->done = 1;
	return NL_STOP;
}

/* the end of a dump; it carries the dump's result, 0 or -errno */
static int retire_nl_finish_cb(struct nl_msg *msg, void *data)
{
	struct retire_nl_req *req = data;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	int err;

	if (nlmsg_datalen(nlh) >= (int)sizeof(err)) {
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
		if (err < 0)
			req->err = err;
	}
	req->done = 1;
	return NL_STOP;
}

/* the kernel's errno, exactly: libnl would only pass on its own code */
static int retire_nl_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e,
			    void *data)
{
	struct retire_nl_req *req = data;

	req->err = e->error < 0 ? e->error : -e->error;
	req->done = 1;
	return NL_STOP;
}

static int retire_nl_ignore_cb(struct nl_msg *msg, void *data)
{
	return NL_OK;
}

/*
 * Send @msg and read every reply up to its ack (or, for a dump, its
 * NLMSG_DONE), passing each data message to @valid. @valid must not stop
 * the exchange: it records what it needs and returns NL_OK, so that the
 * socket is left with nothing of this request.
 */
static int retire_nl_exchange(struct retire_nl *nl, struct nl_msg *msg,
			      nl_recvmsg_msg_cb_t valid, void *arg)
{
	struct retire_nl_req req = { 0 };
	struct nl_cb *cb, *scb;
	int ret;

	scb = nl_socket_get_cb(nl->sk);
	if (!scb)
		return -ENOMEM;
	cb = nl_cb_clone(scb);
	nl_cb_put(scb);
	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, retire_nl_seq_cb, &req);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM,
		  valid ? valid : retire_nl_ignore_cb, arg);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, retire_nl_ack_cb, &req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, retire_nl_finish_cb, &req);
	nl_cb_err(cb, NL_CB_CUSTOM, retire_nl_err_cb, &req);

	pthread_mutex_lock(&nl->lock);
	ret = nl_send_auto(nl->sk, msg);
	if (ret < 0) {
		ret = retire_nl_errno(ret);
		goto out;
	}
	req.seq = nlmsg_hdr(msg)->nlmsg_seq;

	/* one datagram per call: the reply and the ack come apart */
	while (!req.done) {
		ret = nl_recvmsgs_report(nl->sk, cb);
		if (ret <= 0)
			break;
	}
	if (req.err)
		ret = req.err;
	else if (ret < 0)
		ret = retire_nl_errno(ret);
	else if (!req.done)
		ret = -EIO;	/* an empty read: the socket is gone */
	else
		ret = 0;
out:
	pthread_mutex_unlock(&nl->lock);
	nl_cb_put(cb);
	return ret;
}

/* a request of @cmd with no attributes; NULL if out of memory */
static struct nl_msg *retire_nl_msg(const struct retire_nl *nl, __u8 cmd,
				    int flags)
{
	struct nl_msg *msg;

	msg = nlmsg_alloc();
	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, flags,
			 cmd, RETIRE_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* ---- the handle ---------------------------------------------------------- */

int retire_open_netlink(struct retire_nl **nlp)
{
	struct retire_nl *nl;
	int ret;

	if (!nlp)
		return -EINVAL;
	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		ret = retire_nl_errno(ret);
		goto out_sock;
	}
	nl->family = genl_ctrl_resolve(nl->sk, RETIRE_FAMILY_NAME);
	if (nl->family < 0) {
		/* the module is not loaded: the family does not exist */
		ret = retire_nl_errno(nl->family);
		goto out_sock;
	}
	pthread_mutex_init(&nl->lock, NULL);
	*nlp = nl;
	return 0;

out_sock:
	nl_socket_free(nl->sk);
out_free:
	free(nl);
	return ret;
}

void retire_close_netlink(struct retire_nl *nl)
{
	if (!nl)
		return;
	pthread_mutex_destroy(&nl->lock);
	nl_socket_free(nl->sk);
	free(nl);
}

int retire_get_family_id(const struct retire_nl *nl)
{
	return nl ? nl->family : -EINVAL;
}

/* ---- requests ------------------------------------------------------------ */

/*
 * A request's replies: each message of @cmd is parsed by @policy and handed
 * to @parse, until @parse returns non-zero (a malformed reply, or a dump
 * callback's stop), after which the rest are drained unread.
 */
struct retire_nl_reply {
	int family;
	__u8 cmd;
	int maxtype;
	const struct nla_policy *policy;
	int (*parse)(struct nlattr **tb, void *arg);
	void *arg;
	int dump;	/* many replies; else the first is the one */
	int seen;	/* replies handed to @parse */
	int ret;	/* @parse's first non-zero return */
};

static int retire_nl_reply_cb(struct nl_msg *msg, void *data)
{
	struct retire_nl_reply *r = data;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gnlh = retire_genl_hdr(nlh, r->family);
	struct nlattr *tb[RETIRE_NL_MAXTYPE + 1];

	if (!gnlh || gnlh->cmd != r->cmd || r->ret || (r->seen && !r->dump))
		return NL_OK;
	r->seen++;
	r->ret = retire_genl_parse(nlh, tb, r->maxtype, r->policy);
	if (!r->ret)
		r->ret = r->parse(tb, r->arg);
	return NL_OK;
}

/*
 * Request @cmd (NLM_F_DUMP in @flags for a dump) and hand each reply's
 * attributes to @parse. 0 or -errno: the kernel's error, or -EPROTO if a
 * do-request got no reply; else @parse's first non-zero return.
 */
static int retire_nl_request(struct retire_nl *nl, __u8 cmd, int flags,
			     int maxtype, const struct nla_policy *policy,
			     int (*parse)(struct nlattr **tb, void *arg),
			     void *arg)
{
	struct retire_nl_reply r = {
		.family = nl->family,
		.cmd = cmd,
		.maxtype = maxtype,
		.policy = policy,
		.parse = parse,
		.arg = arg,
		.dump = !!(flags & NLM_F_DUMP),
	};
	struct nl_msg *msg;
	int ret;

	msg = retire_nl_msg(nl, cmd, flags);
	if (!msg)
		return -ENOMEM;
	ret = retire_nl_exchange(nl, msg, retire_nl_reply_cb, &r);
	nlmsg_free(msg);
	if (!ret && !r.dump && !r.seen)
		ret = -EPROTO;
	return ret ? ret : r.ret;
}

/*
 * A do-request of @cmd whose one reply @parse reads into @out (@size
 * bytes): all zeros before, and again if anything fails.
 */
static int retire_nl_query(struct retire_nl *nl, __u8 cmd, int maxtype,
			   const struct nla_policy *policy,
			   int (*parse)(struct nlattr **tb, void *arg),
			   void *out, size_t size)
{
	int ret;

	memset(out, 0, size);
	ret = retire_nl_request(nl, cmd, 0, maxtype, policy, parse, out);
	if (ret)
		memset(out, 0, size);
	return ret;
}

/* ---- info-get ------------------------------------------------------------ */

static int retire_nl_parse_info(struct nlattr **tb, void *arg)
{
	struct retire_info *info = arg;

	if (!tb[RETIRE_A_INFO_ABI_VERSION] || !tb[RETIRE_A_INFO_FEATURES])
		return -EPROTO;
	info->abi_version = nla_get_u32(tb[RETIRE_A_INFO_ABI_VERSION]);
	info->features = nla_get_u64(tb[RETIRE_A_INFO_FEATURES]);
	return 0;
}

int retire_nl_get_info(struct retire_nl *nl, struct retire_info *info)
{
	if (!nl || !info)
		return -EINVAL;
	return retire_nl_query(nl, RETIRE_CMD_INFO_GET, RETIRE_A_INFO_MAX,
			       retire_info_policy, retire_nl_parse_info, info,
			       sizeof(*info));
}
RETIRE_OLD_NAME(retire_query_info, retire_nl_get_info);

/* ---- stats-get ----------------------------------------------------------- */

/* a stats message: its counters, and its context's id and owner (dump) */
struct retire_nl_stats {
	struct retire_stats stats;
	__u64 ctx_id;
	__u32 pid;
};

static int retire_nl_parse_stats(struct nlattr **tb, struct retire_nl_stats *s)
{
	__u64 *counters = (__u64 *)(void *)&s->stats;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	if (retire_nla_uint(tb[RETIRE_A_STATS_CTX_ID], &s->ctx_id))
		return -EPROTO;
	retire_nla_u32(tb[RETIRE_A_STATS_PID], &s->pid);
	for (i = 0; i < RETIRE_NL_STATS_NR; i++)
		if (retire_nla_uint(tb[RETIRE_A_STATS_ADMITTED + i],
				    &counters[i]))
			return -EPROTO;
	return 0;
}

static int retire_nl_parse_module_stats(struct nlattr **tb, void *arg)
{
	struct retire_nl_stats s;
	int ret;

	ret = retire_nl_parse_stats(tb, &s);
	if (!ret)
		*(struct retire_stats *)arg = s.stats;
	return ret;
}

int retire_nl_get_stats(struct retire_nl *nl, struct retire_stats *stats)
{
	if (!nl || !stats)
		return -EINVAL;
	return retire_nl_query(nl, RETIRE_CMD_STATS_GET, RETIRE_A_STATS_MAX,
			       retire_stats_policy,
			       retire_nl_parse_module_stats, stats,
			       sizeof(*stats));
}
RETIRE_OLD_NAME(retire_query_stats, retire_nl_get_stats);

struct retire_nl_dump_arg {
	retire_ctx_stats_fn fn;
	void *arg;
	int stop;	/* fn's non-zero return: no more calls */
	struct retire_nl_stats s;
};

static int retire_nl_parse_ctx_stats(struct nlattr **tb, void *arg)
{
	struct retire_nl_dump_arg *d = arg;
	int ret;

	ret = retire_nl_parse_stats(tb, &d->s);
	if (ret)
		return ret;
	d->stop = d->fn(d->s.ctx_id, d->s.pid, &d->s.stats, d->arg);
	return d->stop;
}

int retire_nl_dump_stats(struct retire_nl *nl, retire_ctx_stats_fn fn,
			 void *arg)
{
	struct retire_nl_dump_arg *d;
	int ret;

	if (!nl || !fn)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->fn = fn;
	d->arg = arg;
	ret = retire_nl_request(nl, RETIRE_CMD_STATS_GET, NLM_F_DUMP,
				RETIRE_A_STATS_MAX, retire_stats_policy,
				retire_nl_parse_ctx_stats, d);
	/* a stop is the caller's answer, whatever the rest of the dump did */
	if (d->stop)
		ret = d->stop;
	free(d);
	return ret;
}
RETIRE_OLD_NAME(retire_dump_stats, retire_nl_dump_stats);

/* ---- engine-get, engine-set ---------------------------------------------- */

static int retire_nl_parse_engine(struct nlattr **tb, void *arg)
{
	unsigned int i;

	for (i = 0; i < RETIRE_NL_ENGINE_NR; i++)
		if (tb[retire_nl_engine_attrs[i].type])
			memcpy((char *)arg + retire_nl_engine_attrs[i].offset,
			       nla_data(tb[retire_nl_engine_attrs[i].type]),
			       retire_nl_engine_attrs[i].size);
	return 0;
}

int retire_nl_get_sim_config(struct retire_nl *nl,
			     struct retire_sim_config *cfg)
{
	if (!nl || !cfg)
		return -EINVAL;
	return retire_nl_query(nl, RETIRE_CMD_ENGINE_GET, RETIRE_A_ENGINE_MAX,
			       retire_engine_policy, retire_nl_parse_engine,
			       cfg, sizeof(*cfg));
}
RETIRE_OLD_NAME(retire_query_engine, retire_nl_get_sim_config);

int retire_nl_set_sim_config(struct retire_nl *nl,
			     const struct retire_sim_config *cfg)
{
	struct nl_msg *msg;
	unsigned int i;
	int ret;

	if (!nl || !cfg)
		return -EINVAL;
	msg = retire_nl_msg(nl, RETIRE_CMD_ENGINE_SET, 0);
	if (!msg)
		return -ENOMEM;
	for (i = 0; i < RETIRE_NL_ENGINE_NR; i++) {
		const char *v = (const char *)cfg +
				retire_nl_engine_attrs[i].offset;
		static const char zero[8];

		/* absent is 0: a module that predates a knob takes its 0 */
		if (!memcmp(v, zero, retire_nl_engine_attrs[i].size))
			continue;
		ret = nla_put(msg, retire_nl_engine_attrs[i].type,
			      (int)retire_nl_engine_attrs[i].size, v);
		if (ret < 0) {
			nlmsg_free(msg);
			return -EMSGSIZE;
		}
	}
	ret = retire_nl_exchange(nl, msg, NULL, NULL);
	nlmsg_free(msg);
	return ret;
}
RETIRE_OLD_NAME(retire_configure_engine, retire_nl_set_sim_config);

/* ---- the monitor --------------------------------------------------------- */

/* the receive buffer asked for; the kernel caps it at net.core.rmem_max */
#define RETIRE_MONITOR_RCVBUF	(1 << 20)

/* @lock serializes readers: events are handed out once, in order */
struct retire_monitor {
	pthread_mutex_t lock;
	struct nl_sock *sk;
	int family;
	int err;		/* to report before reading on */
	unsigned char *buf;	/* the datagram being walked */
	size_t cap;
	size_t len;
	size_t off;		/* its next message */
};

static const struct {
	unsigned int bit;
	const char *name;
} retire_monitor_groups[] = {
	{ RETIRE_MONITOR_STALE, RETIRE_MCGRP_STALE },
	{ RETIRE_MONITOR_HEALTH, RETIRE_MCGRP_HEALTH },
};

#define RETIRE_MONITOR_NGROUPS \
	(sizeof(retire_monitor_groups) / sizeof(retire_monitor_groups[0]))

int retire_open_monitor(struct retire_monitor **mp, unsigned int groups)
{
	int ids[RETIRE_MONITOR_NGROUPS] = { 0 };
	struct retire_monitor *m;
	unsigned int i;
	int ret;

	if (!mp || !groups ||
	    (groups & ~(RETIRE_MONITOR_STALE | RETIRE_MONITOR_HEALTH)))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->cap = 8192;
	m->buf = malloc(m->cap);
	m->sk = nl_socket_alloc();
	if (!m->buf || !m->sk) {
		ret = -ENOMEM;
		goto out;
	}
	ret = genl_connect(m->sk);
	if (ret < 0)
		goto out_nl;
	m->family = genl_ctrl_resolve(m->sk, RETIRE_FAMILY_NAME);
	if (m->family < 0) {
		ret = m->family;
		goto out_nl;
	}
	/* resolve every group before joining any: no notification between */
	for (i = 0; i < RETIRE_MONITOR_NGROUPS; i++) {
		if (!(groups & retire_monitor_groups[i].bit))
			continue;
		ids[i] = genl_ctrl_resolve_grp(m->sk, RETIRE_FAMILY_NAME,
					       retire_monitor_groups[i].name);
		if (ids[i] < 0) {
			ret = ids[i];
			goto out_nl;
		}
	}
	for (i = 0; i < RETIRE_MONITOR_NGROUPS; i++) {
		if (!(groups & retire_monitor_groups[i].bit))
			continue;
		ret = nl_socket_add_membership(m->sk, ids[i]);
		if (ret < 0)
			goto out_nl;
	}
	/* notifications are unsolicited: no sequence numbers to check */
	nl_socket_disable_seq_check(m->sk);
	ret = nl_socket_set_nonblocking(m->sk);
	if (ret < 0)
		goto out_nl;
	/* best effort: a bigger buffer loses fewer notifications in a burst */
	nl_socket_set_buffer_size(m->sk, RETIRE_MONITOR_RCVBUF, 0);
	pthread_mutex_init(&m->lock, NULL);
	*mp = m;
	return 0;

out_nl:
	ret = retire_nl_errno(ret);
out:
	if (m->sk)
		nl_socket_free(m->sk);
	free(m->buf);
	free(m);
	return ret;
}

int retire_get_monitor_fd(const struct retire_monitor *m)
{
	return m ? nl_socket_get_fd(m->sk) : -EINVAL;
}

void retire_close_monitor(struct retire_monitor *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	nl_socket_free(m->sk);
	free(m->buf);
	free(m);
}

/*
 * Read the next datagram into m->buf, without waiting: 1 if there is one
 * to walk, 0 if one was read and dropped (not from the kernel), -EAGAIN if
 * none is ready, or another -errno (-ENOBUFS: notifications were lost).
 */
static int retire_monitor_recv(struct retire_monitor *m)
{
	int fd = nl_socket_get_fd(m->sk);
	struct sockaddr_nl sa;
	struct msghdr mh;
	struct iovec iov;
	unsigned char *buf;
	ssize_t n;

	/* the datagram's length, to read it whole */
	do
		n = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n > m->cap) {
		buf = realloc(m->buf, n);
		if (!buf)
			return -ENOMEM;
		m->buf = buf;
		m->cap = n;
	}

	memset(&sa, 0, sizeof(sa));
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = m->buf;
	iov.iov_len = m->cap;
	mh.msg_name = &sa;
	mh.msg_namelen = sizeof(sa);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	do
		n = recvmsg(fd, &mh, MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	m->len = 0;
	m->off = 0;
	/* only the kernel multicasts to the family's groups */
	if (mh.msg_namelen != sizeof(sa) || sa.nl_family != AF_NETLINK ||
	    sa.nl_pid != 0)
		return 0;
	m->len = (size_t)n < m->cap ? (size_t)n : m->cap;
	return 1;
}

/*
 * The attributes of a notification, each with the field of struct
 * retire_event it fills: a __u64 from a "uint", or a __u32.
 */
struct retire_event_attr {
	int type;
	size_t offset;
	int is_uint;
};

#define RETIRE_EVENT_UINT(attr, field) \
	{ attr, offsetof(struct retire_event, field), 1 }
#define RETIRE_EVENT_U32(attr, field) \
	{ attr, offsetof(struct retire_event, field), 0 }

static const struct retire_event_attr retire_stale_attrs[] = {
	RETIRE_EVENT_UINT(RETIRE_A_STALE_CTX_ID, ctx_id),
	RETIRE_EVENT_U32(RETIRE_A_STALE_PID, pid),
	RETIRE_EVENT_UINT(RETIRE_A_STALE_ENGINE, stale_engine),
	RETIRE_EVENT_UINT(RETIRE_A_STALE_CANCEL, stale_cancel),
	RETIRE_EVENT_UINT(RETIRE_A_STALE_TOKEN, stale_token),
	RETIRE_EVENT_UINT(RETIRE_A_STALE_USER, stale_user),
	RETIRE_EVENT_UINT(RETIRE_A_STALE_PUBLISHED, stale_published),
	{ 0 }
};

static const struct retire_event_attr retire_health_attrs[] = {
	RETIRE_EVENT_U32(RETIRE_A_HEALTH_EVENT, health_event),
	RETIRE_EVENT_UINT(RETIRE_A_HEALTH_CTX_ID, ctx_id),
	RETIRE_EVENT_U32(RETIRE_A_HEALTH_PID, pid),
	RETIRE_EVENT_UINT(RETIRE_A_HEALTH_QUARANTINED_NOW, quarantined_now),
	{ 0 }
};

/* @nlh as an event: 1 if stored in *ev, 0 if not one, -EPROTO if malformed */
static int retire_monitor_decode(const struct retire_monitor *m,
				 struct nlmsghdr *nlh, struct retire_event *ev)
{
	struct genlmsghdr *gnlh = retire_genl_hdr(nlh, m->family);
	struct nlattr *tb[RETIRE_NL_MAXTYPE + 1];
	const struct nla_policy *policy;
	const struct retire_event_attr *e;
	int maxtype, ret;
	char *field;

	if (!gnlh)
		return nlh->nlmsg_type == m->family ? -EPROTO : 0;
	switch (gnlh->cmd) {
	case RETIRE_CMD_STALE_NTF:
		maxtype = RETIRE_A_STALE_MAX;
		policy = retire_stale_policy;
		e = retire_stale_attrs;
		break;
	case RETIRE_CMD_HEALTH_NTF:
		maxtype = RETIRE_A_HEALTH_MAX;
		policy = retire_health_policy;
		e = retire_health_attrs;
		break;
	default:
		return 0;
	}
	ret = retire_genl_parse(nlh, tb, maxtype, policy);
	if (ret)
		return ret;

	memset(ev, 0, sizeof(*ev));
	ev->type = gnlh->cmd;
	for (; e->type; e++) {
		field = (char *)ev + e->offset;
		if (!e->is_uint)
			retire_nla_u32(tb[e->type], (__u32 *)(void *)field);
		else if (retire_nla_uint(tb[e->type], (__u64 *)(void *)field))
			return -EPROTO;
	}
	return 1;
}

static int retire_read_events_locked(struct retire_monitor *m,
				     struct retire_event *ev, unsigned int nr)
{
	struct retire_event one;
	struct nlmsghdr *nlh;
	unsigned int n = 0;
	size_t left;
	int ret;

	if (m->err) {
		ret = m->err;
		m->err = 0;
		return ret;
	}
	while (n < nr) {
		if (m->off >= m->len) {
			ret = retire_monitor_recv(m);
			if (ret == -EAGAIN)
				break;
			if (ret < 0)
				goto fail;
			continue;
		}
		nlh = (struct nlmsghdr *)(void *)(m->buf + m->off);
		left = m->len - m->off;
		if (!NLMSG_OK(nlh, left)) {
			/* a cut message: drop the rest of the datagram */
			m->off = m->len;
			ret = -EPROTO;
			goto fail;
		}
		m->off += NLMSG_ALIGN(nlh->nlmsg_len) < left ?
			  NLMSG_ALIGN(nlh->nlmsg_len) : left;
		ret = retire_monitor_decode(m, nlh, &one);
		if (ret < 0)
			goto fail;
		if (ret)
			ev[n++] = one;
	}
	return n;

fail:
	/* report it after the events already stored, not instead of them */
	if (!n)
		return ret;
	m->err = ret;
	return n;
}

int retire_read_events(struct retire_monitor *m, struct retire_event *ev,
		       unsigned int nr)
{
	int ret;

	if (!m || (!ev && nr))
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	ret = retire_read_events_locked(m, ev, nr);
	pthread_mutex_unlock(&m->lock);
	return ret;
}
