// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "retire" (Documentation/netlink/specs/
 * retire.yaml): the statistics (module-wide and one message per context),
 * the sim engine's knobs and their CAP_SYS_ADMIN check, strict validation
 * with extended ACKs, and the "stale" and "health" multicast groups.
 *
 * The library (retire_nl_get_stats(), retire_read_events(), ...) is used
 * where it is the natural client; a raw NETLINK_GENERIC socket built here by
 * hand is used where the test must see the wire: attribute sizes, malformed
 * requests and the extended ACK that comes back.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "kselftest_harness.h"
#include "libretire.h"
#include "retire_test.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/* a request handle that names nothing in a fresh context */
#define FORGED_REQ(n)	(((__u64)RETIRE_KIND_REQ << 56) | (7ULL << 32) | (n))

/* the stats attribute set is struct retire_stats's counters, in order */
#define NR_STAT_FIELDS	ARRAY_SIZE(rt_stat_fields)
_Static_assert(NR_STAT_FIELDS ==
	       RETIRE_A_STATS_DEVICE_OUTSTANDING - RETIRE_A_STATS_ADMITTED + 1,
	       "the stats attributes and struct retire_stats disagree");

/* ==== a raw generic netlink socket ====================================== */

#define RNL_RX		(256 * 1024)
#define RNL_TX		(80 * 1024)
#define RNL_MAX_CMD	64

struct rnl {
	int fd;
	__u16 family;
	__u32 seq;
	unsigned char *rx, *tx;
	/* from CTRL_CMD_GETFAMILY */
	bool grp_stale, grp_health;
	bool op_seen[RNL_MAX_CMD];
	__u32 op_flags[RNL_MAX_CMD];
};

/* how one request ended */
struct rnl_ack {
	bool acked;		/* an NLMSG_ERROR or NLMSG_DONE came */
	int err;		/* its error: 0 or -errno */
	bool has_msg;		/* NLMSGERR_ATTR_MSG */
	char msg[256];
	bool has_offs;		/* NLMSGERR_ATTR_OFFS */
	__u32 offs;
	unsigned int nmsg;	/* data messages before it */
};

typedef void (*rnl_fn)(const struct nlmsghdr *nlh, void *arg);

#define rnl_for_each_attr(a, data, len, rem)				\
	for ((a) = (const struct nlattr *)(data), (rem) = (int)(len);	\
	     (rem) >= NLA_HDRLEN && (a)->nla_len >= NLA_HDRLEN &&	\
	     (a)->nla_len <= (rem);					\
	     (rem) -= NLA_ALIGN((a)->nla_len),				\
	     (a) = (const struct nlattr *)((const char *)(a) +		\
					   NLA_ALIGN((a)->nla_len)))

static inline int nla_type_of(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

static inline const void *nla_payload(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static inline int nla_plen(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

/* a "uint": 8 bytes, or 4; -EINVAL for any other size */
static int nla_get_uint_sized(const struct nlattr *a, __u64 *v)
{
	__u32 v32;

	if (nla_plen(a) == 8) {
		memcpy(v, nla_payload(a), 8);
		return 0;
	}
	if (nla_plen(a) == 4) {
		memcpy(&v32, nla_payload(a), 4);
		*v = v32;
		return 0;
	}
	return -EINVAL;
}

static __u32 nla_get_u32_raw(const struct nlattr *a)
{
	__u32 v = 0;

	memcpy(&v, nla_payload(a), nla_plen(a) < 4 ? nla_plen(a) : 4);
	return v;
}

/* the generic netlink payload of @nlh, and its length */
static const void *genl_attrs(const struct nlmsghdr *nlh, int *len)
{
	*len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	return (const char *)NLMSG_DATA(nlh) + GENL_HDRLEN;
}

static __u8 genl_cmd(const struct nlmsghdr *nlh)
{
	return ((const struct genlmsghdr *)NLMSG_DATA(nlh))->cmd;
}

/* start a request in rn->tx */
static struct nlmsghdr *rnl_begin(struct rnl *rn, __u16 type, __u16 flags,
				  __u8 cmd)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)rn->tx;
	struct genlmsghdr *g;

	memset(rn->tx, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nlh->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	g = NLMSG_DATA(nlh);
	g->cmd = cmd;
	g->version = RETIRE_FAMILY_VERSION;
	return nlh;
}

/* append an attribute of @len bytes (@data NULL: zeroes) */
static void rnl_put(struct rnl *rn, struct nlmsghdr *nlh, __u16 type,
		    const void *data, size_t len)
{
	size_t off = NLMSG_ALIGN(nlh->nlmsg_len);
	struct nlattr *a = (struct nlattr *)(rn->tx + off);

	if (off + NLA_ALIGN(NLA_HDRLEN + len) > RNL_TX || len > 0xffff - NLA_HDRLEN)
		abort();
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (data)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	else
		memset((char *)a + NLA_HDRLEN, 0, len);
	memset((char *)a + NLA_HDRLEN + len, 0,
	       NLA_ALIGN(NLA_HDRLEN + len) - (NLA_HDRLEN + len));
	nlh->nlmsg_len = off + NLA_ALIGN(NLA_HDRLEN + len);
}

static void rnl_put_u32(struct rnl *rn, struct nlmsghdr *nlh, __u16 type,
			__u32 v)
{
	rnl_put(rn, nlh, type, &v, sizeof(v));
}

static void rnl_put_u64(struct rnl *rn, struct nlmsghdr *nlh, __u16 type,
			__u64 v)
{
	rnl_put(rn, nlh, type, &v, sizeof(v));
}

/* the extended ACK's attributes, from byte @off of @nlh on */
static void rnl_parse_tlvs(const struct nlmsghdr *nlh, size_t off,
			   struct rnl_ack *ack)
{
	const struct nlattr *a;
	int rem;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= nlh->nlmsg_len)
		return;
	rnl_for_each_attr(a, (const char *)nlh + off, nlh->nlmsg_len - off,
			  rem) {
		switch (nla_type_of(a)) {
		case NLMSGERR_ATTR_MSG: {
			size_t n = nla_plen(a);

			if (n >= sizeof(ack->msg))
				n = sizeof(ack->msg) - 1;
			memcpy(ack->msg, nla_payload(a), n);
			ack->msg[n] = 0;
			ack->has_msg = true;
			break;
		}
		case NLMSGERR_ATTR_OFFS:
			ack->offs = nla_get_u32_raw(a);
			ack->has_offs = true;
			break;
		}
	}
}

/*
 * Send the request in rn->tx and read until its ACK (a "do" sent with
 * NLM_F_ACK, or any request that fails) or its NLMSG_DONE (a dump). Each
 * data message goes to @fn. Returns 0 with *@ack filled, or the -errno of
 * send() or recv() (-EAGAIN: no answer within 5 s).
 */
static int rnl_xfer(struct rnl *rn, rnl_fn fn, void *arg,
		    struct rnl_ack *ack)
{
	struct nlmsghdr *req = (struct nlmsghdr *)rn->tx;
	struct sockaddr_nl sa;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;

	memset(ack, 0, sizeof(*ack));
	req->nlmsg_seq = ++rn->seq;
	n = send(rn->fd, req, req->nlmsg_len, 0);
	if (n < 0)
		return -errno;
	if ((size_t)n != req->nlmsg_len)
		return -EMSGSIZE;

	for (;;) {
		const struct nlmsghdr *nlh;
		size_t left;

		memset(&mh, 0, sizeof(mh));
		iov.iov_base = rn->rx;
		iov.iov_len = RNL_RX;
		mh.msg_name = &sa;
		mh.msg_namelen = sizeof(sa);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		n = recvmsg(rn->fd, &mh, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (mh.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		left = (size_t)n;
		for (nlh = (const struct nlmsghdr *)rn->rx; NLMSG_OK(nlh, left);
		     nlh = NLMSG_NEXT(nlh, left)) {
			if (nlh->nlmsg_seq != rn->seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);
				size_t off = NLMSG_HDRLEN + sizeof(int);

				if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
					return -EPROTO;
				ack->acked = true;
				ack->err = e->error;
				off += (nlh->nlmsg_flags & NLM_F_CAPPED) ?
				       sizeof(struct nlmsghdr) : e->msg.nlmsg_len;
				rnl_parse_tlvs(nlh, NLMSG_ALIGN(off), ack);
				return 0;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
					memcpy(&err, NLMSG_DATA(nlh), sizeof(int));
				ack->acked = true;
				ack->err = err;
				rnl_parse_tlvs(nlh, NLMSG_ALIGN(NLMSG_HDRLEN +
								sizeof(int)),
					       ack);
				return 0;
			}
			if (nlh->nlmsg_type == NLMSG_NOOP ||
			    nlh->nlmsg_type == NLMSG_OVERRUN)
				continue;
			ack->nmsg++;
			if (fn)
				fn(nlh, arg);
		}
	}
}

/* the controller's answer about "retire" */
static void rnl_family_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *a, *g, *x;
	struct rnl *rn = arg;
	int len, rem, rem2, rem3;
	const void *data = genl_attrs(nlh, &len);

	rnl_for_each_attr(a, data, len, rem) {
		switch (nla_type_of(a)) {
		case CTRL_ATTR_FAMILY_ID:
			if (nla_plen(a) >= 2)
				memcpy(&rn->family, nla_payload(a), 2);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			rnl_for_each_attr(g, nla_payload(a), nla_plen(a), rem2) {
				const char *name = NULL;

				rnl_for_each_attr(x, nla_payload(g), nla_plen(g),
						  rem3)
					if (nla_type_of(x) ==
					    CTRL_ATTR_MCAST_GRP_NAME)
						name = nla_payload(x);
				if (!name)
					continue;
				if (!strcmp(name, RETIRE_MCGRP_STALE))
					rn->grp_stale = true;
				if (!strcmp(name, RETIRE_MCGRP_HEALTH))
					rn->grp_health = true;
			}
			break;
		case CTRL_ATTR_OPS:
			rnl_for_each_attr(g, nla_payload(a), nla_plen(a), rem2) {
				__u32 id = ~0U, flags = 0;

				rnl_for_each_attr(x, nla_payload(g), nla_plen(g),
						  rem3) {
					if (nla_type_of(x) == CTRL_ATTR_OP_ID)
						id = nla_get_u32_raw(x);
					if (nla_type_of(x) == CTRL_ATTR_OP_FLAGS)
						flags = nla_get_u32_raw(x);
				}
				if (id < RNL_MAX_CMD) {
					rn->op_seen[id] = true;
					rn->op_flags[id] = flags;
				}
			}
			break;
		}
	}
}

static void rnl_close(struct rnl *rn)
{
	if (rn->fd >= 0)
		close(rn->fd);
	free(rn->rx);
	free(rn->tx);
	memset(rn, 0, sizeof(*rn));
	rn->fd = -1;
}

/* a socket with extended ACKs, capped ACKs, resolved to "retire" */
static int rnl_open(struct rnl *rn)
{
	struct timeval tv = { .tv_sec = 5 };
	struct nlmsghdr *nlh;
	struct rnl_ack ack;
	int one = 1, ret;

	memset(rn, 0, sizeof(*rn));
	rn->rx = malloc(RNL_RX);
	rn->tx = malloc(RNL_TX);
	rn->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (rn->fd < 0 || !rn->rx || !rn->tx) {
		ret = rn->fd < 0 ? -errno : -ENOMEM;
		goto fail;
	}
	if (setsockopt(rn->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one,
		       sizeof(one)) ||
	    setsockopt(rn->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one,
		       sizeof(one)) ||
	    setsockopt(rn->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		ret = -errno;
		goto fail;
	}
	rn->seq = (__u32)getpid() << 8;

	nlh = rnl_begin(rn, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY);
	rnl_put(rn, nlh, CTRL_ATTR_FAMILY_NAME, RETIRE_FAMILY_NAME,
		sizeof(RETIRE_FAMILY_NAME));
	ret = rnl_xfer(rn, rnl_family_cb, rn, &ack);
	if (!ret)
		ret = ack.err;
	if (!ret && !rn->family)
		ret = -ENOENT;
	if (ret)
		goto fail;
	return 0;

fail:
	rnl_close(rn);
	return ret;
}

/* ---- stats messages, decoded off the wire ------------------------------- */

struct nl_stats {
	struct retire_stats st;
	__u64 ctx_id;
	__u32 pid;
	__u8 cmd;
	bool has_ctx_id, has_pid;
	unsigned int counters;	/* counter attributes present */
	int bad_type;		/* the first attribute of a wrong size */
	int bad_len;
};

static void nl_stats_parse(const struct nlmsghdr *nlh, struct nl_stats *ns)
{
	const struct nlattr *a;
	int len, rem, t;
	const void *data = genl_attrs(nlh, &len);
	__u64 v;

	memset(ns, 0, sizeof(*ns));
	ns->cmd = genl_cmd(nlh);
	rnl_for_each_attr(a, data, len, rem) {
		t = nla_type_of(a);
		if (t == RETIRE_A_STATS_PAD)
			continue;
		if (t == RETIRE_A_STATS_PID) {
			if (nla_plen(a) != 4 && !ns->bad_type) {
				ns->bad_type = t;
				ns->bad_len = nla_plen(a);
			}
			ns->pid = nla_get_u32_raw(a);
			ns->has_pid = true;
			continue;
		}
		if (t < RETIRE_A_STATS_CTX_ID || t > RETIRE_A_STATS_DEVICE_OUTSTANDING)
			continue;	/* a later kernel's addition */
		if (nla_get_uint_sized(a, &v)) {
			if (!ns->bad_type) {
				ns->bad_type = t;
				ns->bad_len = nla_plen(a);
			}
			continue;
		}
		if (t == RETIRE_A_STATS_CTX_ID) {
			ns->ctx_id = v;
			ns->has_ctx_id = true;
			continue;
		}
		*(__u64 *)((char *)&ns->st +
			   rt_stat_fields[t - RETIRE_A_STATS_ADMITTED].off) = v;
		ns->counters++;
	}
}

struct nl_stats_set {
	struct nl_stats *s;
	unsigned int n, cap;
};

static void nl_stats_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nl_stats_set *set = arg;

	if (RT_GROW(set->s, set->n, set->cap))
		return;
	nl_stats_parse(nlh, &set->s[set->n++]);
}

/* ---- engine messages ---------------------------------------------------- */

static const struct {
	int type;
	int size;
	size_t off;
} engine_attrs[] = {
#define EA(t, f) { RETIRE_A_ENGINE_##t,					\
		   (int)sizeof(((struct retire_sim_config *)0)->f),	\
		   __builtin_offsetof(struct retire_sim_config, f) }
	EA(FLAGS, flags), EA(LATENCY_NS, latency_ns), EA(TICK_NS, tick_ns),
	EA(BYTES_PER_TICK, bytes_per_tick), EA(FAIL_EVERY, fail_every),
	EA(FAIL_SUBMIT_EVERY, fail_submit_every), EA(SEED, seed),
	EA(RATE_BPS, rate_bps), EA(BURST_BYTES, burst_bytes),
	EA(FINISH_NS, finish_ns),
#undef EA
};

#define NR_ENGINE_ATTRS	ARRAY_SIZE(engine_attrs)

struct nl_engine {
	struct retire_sim_config cfg;
	unsigned int present;
	int bad_type;
	int bad_len;
};

static void nl_engine_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nl_engine *ne = arg;
	const struct nlattr *a;
	int len, rem;
	unsigned int i;
	const void *data = genl_attrs(nlh, &len);

	memset(ne, 0, sizeof(*ne));
	rnl_for_each_attr(a, data, len, rem) {
		for (i = 0; i < NR_ENGINE_ATTRS; i++) {
			if (engine_attrs[i].type != nla_type_of(a))
				continue;
			if (nla_plen(a) != engine_attrs[i].size) {
				if (!ne->bad_type) {
					ne->bad_type = nla_type_of(a);
					ne->bad_len = nla_plen(a);
				}
				break;
			}
			memcpy((char *)&ne->cfg + engine_attrs[i].off,
			       nla_payload(a), engine_attrs[i].size);
			ne->present++;
		}
	}
}

/* ENGINE_SET with every knob of @c */
static void rnl_put_engine(struct rnl *rn, struct nlmsghdr *nlh,
			   const struct retire_sim_config *c)
{
	unsigned int i;

	for (i = 0; i < NR_ENGINE_ATTRS; i++)
		rnl_put(rn, nlh, engine_attrs[i].type,
			(const char *)c + engine_attrs[i].off,
			engine_attrs[i].size);
}

/* a valid configuration with every knob non-zero but fail_every */
static void sim_config_a(struct retire_sim_config *c)
{
	memset(c, 0, sizeof(*c));
	c->op = RETIRE_SIM_SET;
	c->flags = RETIRE_SIM_F_CANCEL_RUNNING;
	c->latency_ns = 123 * RT_MS;
	c->tick_ns = 2 * RT_MS;
	c->bytes_per_tick = 512;
	c->fail_submit_every = 1000;
	c->seed = 42;
	c->rate_bps = 1ULL << 30;
	c->burst_bytes = 4096;
	c->finish_ns = 11 * RT_MS;
}

/* another valid one, different in every knob */
static void sim_config_b(struct retire_sim_config *c)
{
	memset(c, 0, sizeof(*c));
	c->op = RETIRE_SIM_SET;
	c->flags = 0;
	c->latency_ns = 7 * RT_MS;
	c->tick_ns = 1 * RT_MS;
	c->bytes_per_tick = 1024;
	c->fail_every = 9;
	c->fail_submit_every = 0;
	c->seed = 3;
	c->rate_bps = 64 * 1024;
	c->burst_bytes = 8192;
	c->finish_ns = 5 * RT_MS;
}

/* ==== the monitor's events ============================================== */

struct evlog {
	struct retire_event *e;
	unsigned int n, cap;
	unsigned int overflows;	/* -ENOBUFS: notifications were lost */
	int err;		/* the first other read error */
};

static void evlog_free(struct evlog *l)
{
	free(l->e);
	memset(l, 0, sizeof(*l));
}

static int evlog_add(struct evlog *l, const struct retire_event *ev)
{
	if (RT_GROW(l->e, l->n, l->cap))
		return -ENOMEM;
	l->e[l->n++] = *ev;
	return 0;
}

/*
 * Read every event that arrives within @ms (0: only what is there now) into
 * @l. Returns 0, or the first read error other than -ENOBUFS (which is
 * counted in l->overflows).
 */
static int mon_drain(struct retire_monitor *m, struct evlog *l,
		     unsigned int ms)
{
	__u64 end = rt_now_ns() + (__u64)ms * RT_MS;
	struct retire_event ev[64];
	struct pollfd pfd;
	unsigned int rounds = 0;
	int i, n, ret, wait;

	pfd.fd = retire_get_monitor_fd(m);
	pfd.events = POLLIN;
	for (;;) {
		__u64 now = rt_now_ns();

		wait = now >= end ? 0 : (int)((end - now + RT_MS - 1) / RT_MS);
		if (!wait && ++rounds > 4096)
			return 0;	/* a flood: enough for one call */
		ret = poll(&pfd, 1, wait);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (ret == 0) {
			if (rt_now_ns() >= end)
				return 0;
			continue;
		}
		/* the library may hold a datagram's rest: read until short */
		do {
			n = retire_read_events(m, ev, 64);
			if (n == -ENOBUFS) {
				l->overflows++;
				n = 64;		/* read on */
				continue;
			}
			if (n == -EAGAIN || n == -EINTR)
				break;
			if (n < 0) {
				if (!l->err)
					l->err = n;
				return n;
			}
			for (i = 0; i < n; i++)
				if (evlog_add(l, &ev[i]))
					return -ENOMEM;
		} while (n == 64);
	}
}

#define ANY_HEALTH	(-1)
#define ANY_CTX		(~0ULL)

/* index of the first event at or after @from that matches, or -1 */
static int ev_find(const struct evlog *l, unsigned int from, __u32 type,
		   int health_event, __u32 pid, __u64 ctx_id)
{
	unsigned int i;

	for (i = from; i < l->n; i++) {
		const struct retire_event *e = &l->e[i];

		if (e->type != type)
			continue;
		if (type == RETIRE_CMD_HEALTH_NTF && health_event != ANY_HEALTH &&
		    e->health_event != (__u32)health_event)
			continue;
		if (pid && e->pid != pid)
			continue;
		if (ctx_id != ANY_CTX && e->ctx_id != ctx_id)
			continue;
		return (int)i;
	}
	return -1;
}

/* wait up to @ms for a matching event; its index or -1 */
static int ev_wait(struct retire_monitor *m, struct evlog *l,
		   unsigned int from, __u32 type, int health_event, __u32 pid,
		   __u64 ctx_id, unsigned int ms)
{
	__u64 end = rt_now_ns() + (__u64)ms * RT_MS;
	int idx;

	for (;;) {
		idx = ev_find(l, from, type, health_event, pid, ctx_id);
		if (idx >= 0 || rt_now_ns() >= end)
			return idx;
		if (mon_drain(m, l, 20) < 0)
			return -1;
	}
}

/* ==== capabilities, by the raw system calls ============================= */

static int cap_effective(int cap, bool *has)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	*has = data[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap);
	return 0;
}

/* take @cap out of this process's effective set */
static int cap_drop_effective(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	bool has;
	int ret;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[CAP_TO_INDEX(cap)].effective &= ~CAP_TO_MASK(cap);
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	hdr.pid = 0;
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	ret = cap_effective(cap, &has);
	if (ret)
		return ret;
	return has ? -EPERM : 0;
}

/* ==== the fixture ======================================================= */

FIXTURE(nl) {
	struct retire *r;
	struct retire_nl *nl;
	struct rnl rn;
	struct retire_sim_config saved;
};

FIXTURE_SETUP(nl)
{
	self->rn.fd = -1;
	RT_OPEN_OR_SKIP(self->r);
	rt_sim_neutral(self->r);
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	ASSERT_EQ(0, retire_open_netlink(&self->nl)) {
		TH_LOG("the family \"retire\" is not registered");
	}
	ASSERT_EQ(0, rnl_open(&self->rn));
}

FIXTURE_TEARDOWN(nl)
{
	rt_sim_neutral(self->r);
	if (self->rn.fd >= 0)
		rnl_close(&self->rn);
	retire_close_netlink(self->nl);
	retire_close_device(self->r);
}

/* ---- the family --------------------------------------------------------- */

TEST_F(nl, family_has_the_spec_ops_and_groups)
{
	EXPECT_TRUE(self->rn.grp_stale);
	EXPECT_TRUE(self->rn.grp_health);
	EXPECT_TRUE(self->rn.op_seen[RETIRE_CMD_INFO_GET]);
	EXPECT_TRUE(self->rn.op_seen[RETIRE_CMD_STATS_GET]);
	EXPECT_TRUE(self->rn.op_seen[RETIRE_CMD_ENGINE_GET]);
	EXPECT_TRUE(self->rn.op_seen[RETIRE_CMD_ENGINE_SET]);
	/*
	 * stats-get has both; engine-set checks CAP_SYS_ADMIN itself, as the
	 * ioctl does, rather than genetlink's CAP_NET_ADMIN
	 */
	EXPECT_TRUE(self->rn.op_flags[RETIRE_CMD_STATS_GET] &
		    GENL_CMD_CAP_DO);
	EXPECT_TRUE(self->rn.op_flags[RETIRE_CMD_STATS_GET] &
		    GENL_CMD_CAP_DUMP);
	EXPECT_FALSE(self->rn.op_flags[RETIRE_CMD_ENGINE_SET] &
		     GENL_ADMIN_PERM);
	EXPECT_FALSE(self->rn.op_flags[RETIRE_CMD_ENGINE_GET] &
		     GENL_ADMIN_PERM);
	EXPECT_FALSE(self->rn.op_flags[RETIRE_CMD_STATS_GET] &
		     GENL_ADMIN_PERM);
	/* notifications are not requests */
	EXPECT_FALSE(self->rn.op_seen[RETIRE_CMD_STALE_NTF]);
	EXPECT_FALSE(self->rn.op_seen[RETIRE_CMD_HEALTH_NTF]);
	EXPECT_EQ(self->rn.family, retire_get_family_id(self->nl));
}

static void info_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct retire_info *info = arg;
	const struct nlattr *a;
	int len, rem;
	const void *data = genl_attrs(nlh, &len);

	rnl_for_each_attr(a, data, len, rem) {
		if (nla_type_of(a) == RETIRE_A_INFO_ABI_VERSION &&
		    nla_plen(a) == 4)
			info->abi_version = nla_get_u32_raw(a);
		if (nla_type_of(a) == RETIRE_A_INFO_FEATURES &&
		    nla_plen(a) == 8)
			memcpy(&info->features, nla_payload(a), 8);
	}
}

/* the raw socket itself works: a well-formed request is answered */
TEST_F(nl, raw_info_get_is_acked_and_matches_ioctl)
{
	struct retire_info info, raw;
	struct rnl_ack ack;

	ASSERT_EQ(0, retire_get_info(self->r, &info));
	memset(&raw, 0, sizeof(raw));
	rnl_begin(&self->rn, self->rn.family, NLM_F_ACK, RETIRE_CMD_INFO_GET);
	ASSERT_EQ(0, rnl_xfer(&self->rn, info_cb, &raw, &ack));
	EXPECT_TRUE(ack.acked);
	EXPECT_EQ(0, ack.err);
	EXPECT_EQ(1, ack.nmsg);
	EXPECT_EQ(info.abi_version, raw.abi_version);
	EXPECT_EQ(info.features, raw.features);
}

/* ---- statistics --------------------------------------------------------- */

/* a few module-wide counters that are not 0, so that equality means more */
static void make_some_counts(struct __test_metadata *_metadata,
			     struct retire *r, unsigned int cancels,
			     unsigned int retires, unsigned int buffers)
{
	unsigned int i;
	__u64 b;

	for (i = 0; i < cancels; i++)
		ASSERT_EQ(-ENOENT, retire_cancel_request(r, FORGED_REQ(i + 1)));
	for (i = 0; i < retires; i++)
		ASSERT_EQ(-ENOENT, retire_release_request(r, FORGED_REQ(i + 1)));
	for (i = 0; i < buffers; i++)
		ASSERT_EQ(0, rt_register(r, RT_PAGE, &b, NULL));
}

TEST_F(nl, stats_get_do_equals_module_ioctl_stats)
{
	struct retire_stats before, after, got;
	const char *diff = NULL;
	unsigned int i, tries;

	make_some_counts(_metadata, self->r, 3, 2, 1);
	ASSERT_EQ(0, rt_settle_module(self->r, &before, 3000));

	/* compare on a sample taken while nothing moved */
	for (tries = 0; tries < 20; tries++) {
		ASSERT_EQ(0, rt_mstats(self->r, &before));
		ASSERT_EQ(0, retire_nl_get_stats(self->nl, &got));
		ASSERT_EQ(0, rt_mstats(self->r, &after));
		if (!rt_stats_diff(&before, &after, NULL))
			break;
		rt_msleep(50);
	}
	if (tries == 20) {
		/* something kept moving: compare what did not */
		TH_LOG("module counters kept moving; comparing the still ones");
		for (i = 0; i < NR_STAT_FIELDS; i++) {
			size_t off = rt_stat_fields[i].off;

			if (rt_stat_get(&before, off) !=
			    rt_stat_get(&after, off))
				continue;
			EXPECT_EQ(rt_stat_get(&before, off),
				  rt_stat_get(&got, off)) {
				TH_LOG("%s", rt_stat_fields[i].name);
			}
		}
		return;
	}
	diff = rt_stats_diff(&before, &got, NULL);
	EXPECT_EQ(NULL, diff) {
		TH_LOG("stats-get and RETIRE_IOC_GET_STATS differ in %s", diff);
	}
	EXPECT_LE(3, got.stale_cancel);
	EXPECT_LE(2, got.stale_user);
	EXPECT_LE(1, got.contexts);	/* the fixture's */
}

/* every counter a uint of 8 bytes (4 accepted), ctx-id a uint, pid a u32 */
TEST_F(nl, stats_attributes_are_uints_and_all_present)
{
	struct nl_stats_set set = { 0 };
	struct retire *a;
	struct rnl_ack ack;
	unsigned int i, mine = 0;

	/* do */
	rnl_begin(&self->rn, self->rn.family, NLM_F_ACK, RETIRE_CMD_STATS_GET);
	ASSERT_EQ(0, rnl_xfer(&self->rn, nl_stats_cb, &set, &ack));
	ASSERT_EQ(0, ack.err);
	ASSERT_EQ(1, set.n);
	EXPECT_EQ(RETIRE_CMD_STATS_GET, set.s[0].cmd);
	EXPECT_EQ(0, set.s[0].bad_type) {
		TH_LOG("attribute %d has %d bytes", set.s[0].bad_type,
		       set.s[0].bad_len);
	}
	EXPECT_EQ(NR_STAT_FIELDS, set.s[0].counters);
	set.n = 0;

	/* dump: one more context of ours, so that it is not empty */
	ASSERT_EQ(0, retire_open_device(&a, NULL, 0));
	make_some_counts(_metadata, a, 1, 0, 0);
	rnl_begin(&self->rn, self->rn.family, NLM_F_DUMP, RETIRE_CMD_STATS_GET);
	ASSERT_EQ(0, rnl_xfer(&self->rn, nl_stats_cb, &set, &ack));
	retire_close_device(a);
	EXPECT_TRUE(ack.acked);
	EXPECT_EQ(0, ack.err);
	ASSERT_LE(2, set.n);
	for (i = 0; i < set.n; i++) {
		const struct nl_stats *s = &set.s[i];

		EXPECT_EQ(RETIRE_CMD_STATS_GET, s->cmd);
		EXPECT_EQ(0, s->bad_type) {
			TH_LOG("message %u: attribute %d has %d bytes", i,
			       s->bad_type, s->bad_len);
		}
		EXPECT_TRUE(s->has_ctx_id);
		EXPECT_TRUE(s->has_pid);
		EXPECT_NE(0, s->ctx_id);
		EXPECT_EQ(NR_STAT_FIELDS, s->counters);
		if (s->pid == (__u32)getpid())
			mine++;
	}
	EXPECT_LE(2, mine);
	free(set.s);
}

struct dump_ent {
	__u64 ctx_id;
	__u32 pid;
	struct retire_stats st;
};

struct dump_set {
	struct dump_ent *e;
	unsigned int n, cap;
};

static int dump_cb(__u64 ctx_id, __u32 pid, const struct retire_stats *st,
		   void *arg)
{
	struct dump_set *d = arg;

	if (RT_GROW(d->e, d->n, d->cap))
		return -ENOMEM;
	d->e[d->n].ctx_id = ctx_id;
	d->e[d->n].pid = pid;
	d->e[d->n].st = *st;
	d->n++;
	return 0;
}

/* the dump's entries of @pid whose counters equal @st */
static unsigned int dump_match(const struct dump_set *d, __u32 pid,
			       const struct retire_stats *st, __u64 *ctx_id)
{
	unsigned int i, n = 0;

	for (i = 0; i < d->n; i++) {
		if (d->e[i].pid != pid || rt_stats_diff(&d->e[i].st, st, NULL))
			continue;
		*ctx_id = d->e[i].ctx_id;
		n++;
	}
	return n;
}

struct opener {
	struct retire *r;
	int ret;
};

static void *open_in_thread(void *arg)
{
	struct opener *o = arg;

	o->ret = retire_open_device(&o->r, NULL, 0);
	return NULL;
}

/* the raw dump has one message for @ctx_id, ours, with @st's counters */
static void raw_dump_has(struct __test_metadata *_metadata, struct rnl *rn,
			 __u64 ctx_id, const struct retire_stats *st)
{
	struct nl_stats_set set = { 0 };
	struct rnl_ack ack;
	unsigned int i, n = 0;

	rnl_begin(rn, rn->family, NLM_F_DUMP, RETIRE_CMD_STATS_GET);
	ASSERT_EQ(0, rnl_xfer(rn, nl_stats_cb, &set, &ack));
	EXPECT_EQ(0, ack.err);
	for (i = 0; i < set.n; i++) {
		if (set.s[i].ctx_id != ctx_id)
			continue;
		n++;
		EXPECT_EQ(getpid(), (pid_t)set.s[i].pid);
		EXPECT_EQ(NULL, rt_stats_diff(&set.s[i].st, st, NULL));
	}
	EXPECT_EQ(1, n) {
		TH_LOG("ctx %llu in the raw dump %u times",
		       (unsigned long long)ctx_id, n);
	}
	free(set.s);
}

TEST_F(nl, stats_dump_has_each_context_with_owner_and_counters)
{
	struct retire_stats sa, sb, m0, m1;
	struct dump_set d = { 0 };
	struct opener ob = { 0 };
	struct retire *a;
	__u64 ida = 0, idb = 0, id;
	unsigned int i, j, tries;
	int to_child[2], from_child[2];
	pthread_t th;
	bool child_seen = false;
	pid_t child;
	char c;

	/* earlier tests' contexts gone, so that the count below holds */
	ASSERT_EQ(0, rt_settle_module(self->r, &m0, 3000));

	/* A from this thread, B from another: both owned by our tgid */
	ASSERT_EQ(0, retire_open_device(&a, NULL, 0));
	ASSERT_EQ(0, pthread_create(&th, NULL, open_in_thread, &ob));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, ob.ret);
	make_some_counts(_metadata, a, 3, 0, 1);
	make_some_counts(_metadata, ob.r, 0, 5, 2);
	ASSERT_EQ(0, rt_stats(a, &sa));
	ASSERT_EQ(0, rt_stats(ob.r, &sb));

	/* C in another process: owned by that process */
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(from_child));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		struct retire *cr;

		close(to_child[1]);
		close(from_child[0]);
		c = retire_open_device(&cr, NULL, 0) ? 'E' : 'K';
		if (write(from_child[1], &c, 1) != 1)
			_exit(1);
		/* hold it until the parent has dumped */
		if (read(to_child[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(to_child[0]);
	close(from_child[1]);
	ASSERT_EQ(1, read(from_child[0], &c, 1));
	ASSERT_EQ('K', c);

	for (tries = 0; tries < 10; tries++) {
		d.n = 0;
		ASSERT_EQ(0, rt_mstats(self->r, &m0));
		ASSERT_EQ(0, retire_nl_dump_stats(self->nl, dump_cb, &d));
		ASSERT_EQ(0, rt_mstats(self->r, &m1));
		if (m0.contexts == m1.contexts)
			break;
		rt_msleep(50);
	}
	c = 'x';
	EXPECT_EQ(1, write(to_child[1], &c, 1));
	close(to_child[1]);
	close(from_child[0]);
	waitpid(child, NULL, 0);

	/* one message per live context, ids never shared */
	if (tries < 10) {
		EXPECT_EQ(m0.contexts, d.n);
	}
	for (i = 0; i < d.n; i++) {
		EXPECT_NE(0, d.e[i].ctx_id);
		EXPECT_NE(0, d.e[i].pid);
		for (j = i + 1; j < d.n; j++)
			EXPECT_NE(d.e[i].ctx_id, d.e[j].ctx_id);
		if (d.e[i].pid == (__u32)child)
			child_seen = true;
	}
	EXPECT_TRUE(child_seen);

	/* A and B, by our pid, with exactly their ioctl counters */
	EXPECT_EQ(1, dump_match(&d, getpid(), &sa, &ida)) {
		TH_LOG("context A (3 stale cancels, 1 buffer) not found once");
	}
	EXPECT_EQ(1, dump_match(&d, getpid(), &sb, &idb)) {
		TH_LOG("context B (5 stale retires, 2 buffers) not found once");
	}
	EXPECT_NE(ida, idb);
	/* each context's own idea of its id is the one netlink gives */
	ASSERT_EQ(0, retire_get_context_id(a, &id));
	EXPECT_EQ(ida, id);
	ASSERT_EQ(0, retire_get_context_id(ob.r, &id));
	EXPECT_EQ(idb, id);

	/* the raw dump says the same */
	raw_dump_has(_metadata, &self->rn, ida, &sa);
	raw_dump_has(_metadata, &self->rn, idb, &sb);

	retire_close_device(a);
	retire_close_device(ob.r);
	free(d.e);
}

/* ---- the engine --------------------------------------------------------- */

TEST_F(nl, engine_get_and_set_agree_with_sim_config_ioctl)
{
	struct retire_sim_config want, got;
	struct nl_engine ne;
	struct rnl_ack ack;

	/* set by ioctl, read by netlink (library and wire) */
	sim_config_a(&want);
	ASSERT_EQ(0, retire_set_sim_config(self->r, &want));
	memset(&got, 0, sizeof(got));
	ASSERT_EQ(0, retire_nl_get_sim_config(self->nl, &got));
	EXPECT_SIM_CONFIG_EQ(want, got);

	rnl_begin(&self->rn, self->rn.family, NLM_F_ACK, RETIRE_CMD_ENGINE_GET);
	ASSERT_EQ(0, rnl_xfer(&self->rn, nl_engine_cb, &ne, &ack));
	ASSERT_EQ(0, ack.err);
	ASSERT_EQ(1, ack.nmsg);
	EXPECT_EQ(0, ne.bad_type) {
		TH_LOG("engine attribute %d has %d bytes", ne.bad_type,
		       ne.bad_len);
	}
	EXPECT_EQ(NR_ENGINE_ATTRS, ne.present);
	EXPECT_SIM_CONFIG_EQ(want, ne.cfg);

	/* set by netlink, read by ioctl */
	sim_config_b(&want);
	ASSERT_EQ(0, retire_nl_set_sim_config(self->nl, &want));
	ASSERT_EQ(0, retire_get_sim_config(self->r, &got));
	EXPECT_SIM_CONFIG_EQ(want, got);

	/* and on the wire, every knob at once */
	sim_config_a(&want);
	rnl_begin(&self->rn, self->rn.family, NLM_F_ACK, RETIRE_CMD_ENGINE_SET);
	rnl_put_engine(&self->rn, (struct nlmsghdr *)self->rn.tx, &want);
	ASSERT_EQ(0, rnl_xfer(&self->rn, NULL, NULL, &ack));
	EXPECT_EQ(0, ack.err);
	ASSERT_EQ(0, retire_get_sim_config(self->r, &got));
	EXPECT_SIM_CONFIG_EQ(want, got);
}

TEST_F(nl, engine_set_absent_attributes_are_zero)
{
	struct retire_sim_config want, got;
	struct nlmsghdr *nlh;
	struct rnl_ack ack;

	sim_config_a(&want);
	ASSERT_EQ(0, retire_set_sim_config(self->r, &want));

	nlh = rnl_begin(&self->rn, self->rn.family, NLM_F_ACK,
			RETIRE_CMD_ENGINE_SET);
	rnl_put_u64(&self->rn, nlh, RETIRE_A_ENGINE_SEED, 77);
	rnl_put_u64(&self->rn, nlh, RETIRE_A_ENGINE_LATENCY_NS, 5 * RT_MS);
	ASSERT_EQ(0, rnl_xfer(&self->rn, NULL, NULL, &ack));
	ASSERT_EQ(0, ack.err) {
		TH_LOG("engine-set: %s", ack.msg);
	}
	memset(&want, 0, sizeof(want));
	want.seed = 77;
	want.latency_ns = 5 * RT_MS;
	ASSERT_EQ(0, retire_get_sim_config(self->r, &got));
	EXPECT_SIM_CONFIG_EQ(want, got);
}

/* what RETIRE_IOC_SIM_CONFIG refuses, engine-set refuses the same way */
TEST_F(nl, engine_set_validates_like_the_ioctl)
{
	struct retire_sim_config known, bad, got;
	struct rnl_ack ack;
	int fd = retire_get_fd(self->r), i, ioret;

	sim_config_b(&known);
	ASSERT_EQ(0, retire_set_sim_config(self->r, &known));

	for (i = 0; i < 5; i++) {
		bad = known;
		switch (i) {
		case 0:
			bad.flags = RETIRE_SIM_F_ALL + 1;
			break;
		case 1:
			bad.flags = 1U << 31;
			break;
		case 2:	/* a rate needs a bucket */
			bad.burst_bytes = 0;
			break;
		case 3:
			bad.burst_bytes = (16ULL << 30) + 1;
			break;
		case 4:	/* a bucket smaller than one transfer */
			bad.burst_bytes = bad.bytes_per_tick - 1;
			break;
		}
		bad.op = RETIRE_SIM_SET;
		ioret = rt_ioctl(fd, RETIRE_IOC_SIM_CONFIG, &bad);
		EXPECT_GT(0, ioret) {
			TH_LOG("case %d accepted by the ioctl", i);
		}
		rnl_begin(&self->rn, self->rn.family, NLM_F_ACK,
			  RETIRE_CMD_ENGINE_SET);
		rnl_put_engine(&self->rn, (struct nlmsghdr *)self->rn.tx, &bad);
		ASSERT_EQ(0, rnl_xfer(&self->rn, NULL, NULL, &ack));
		EXPECT_EQ(ioret, ack.err) {
			TH_LOG("case %d: ioctl %d, engine-set %d (%s)", i, ioret,
			       ack.err, ack.msg);
		}
		ASSERT_EQ(0, retire_get_sim_config(self->r, &got));
		EXPECT_TRUE(rt_sim_config_eq(&known, &got)) {
			TH_LOG("case %d changed the engine", i);
		}
	}
}

/*
 * engine-set needs CAP_SYS_ADMIN, as RETIRE_IOC_SIM_CONFIG does: a process
 * without it in its effective set is refused with -EPERM (and changes
 * nothing), while engine-get, unprivileged, still works for it.
 */
TEST_F(nl, engine_set_needs_cap_sys_admin)
{
	struct retire_sim_config known, got;
	int status = 0;
	bool has;
	pid_t pid;

	ASSERT_EQ(0, cap_effective(CAP_SYS_ADMIN, &has));
	if (!has)
		SKIP(return, "needs CAP_SYS_ADMIN to drop it");
	sim_config_a(&known);
	ASSERT_EQ(0, retire_set_sim_config(self->r, &known));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct retire_sim_config g, s;
		struct retire_nl *cnl;
		struct rnl_ack ack;
		struct rnl crn;
		struct nl_engine ne;

		if (cap_drop_effective(CAP_SYS_ADMIN))
			_exit(10);
		if (retire_open_netlink(&cnl))
			_exit(11);
		memset(&g, 0, sizeof(g));
		if (retire_nl_get_sim_config(cnl, &g))
			_exit(12);
		if (!rt_sim_config_eq(&g, &known))
			_exit(13);
		sim_config_b(&s);
		if (retire_nl_set_sim_config(cnl, &s) != -EPERM)
			_exit(14);
		retire_close_netlink(cnl);

		/* on the wire: the ACK carries -EPERM */
		if (rnl_open(&crn))
			_exit(15);
		rnl_begin(&crn, crn.family, NLM_F_ACK, RETIRE_CMD_ENGINE_SET);
		rnl_put_engine(&crn, (struct nlmsghdr *)crn.tx, &s);
		if (rnl_xfer(&crn, NULL, NULL, &ack) || ack.err != -EPERM)
			_exit(16);
		rnl_begin(&crn, crn.family, NLM_F_ACK, RETIRE_CMD_ENGINE_GET);
		if (rnl_xfer(&crn, nl_engine_cb, &ne, &ack) || ack.err ||
		    !rt_sim_config_eq(&ne.cfg, &known))
			_exit(17);
		rnl_close(&crn);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		static const char *const what[] = {
			"dropping CAP_SYS_ADMIN", "retire_open_netlink",
			"engine-get without CAP_SYS_ADMIN",
			"engine-get's knobs", "engine-set was not -EPERM",
			"raw socket", "raw engine-set's ACK was not -EPERM",
			"raw engine-get without CAP_SYS_ADMIN",
		};
		int s = WEXITSTATUS(status);

		TH_LOG("child: %s", s >= 10 && s <= 17 ? what[s - 10] :
		       "unknown failure");
	}
	ASSERT_EQ(0, retire_get_sim_config(self->r, &got));
	EXPECT_SIM_CONFIG_EQ(known, got);
}

/*
 * Another user's contexts are not an unprivileged caller's to see: its
 * dump lists none of them (root's context here), while the module-wide
 * totals stay open, and joining a group that names every context needs
 * CAP_SYS_ADMIN.
 */
TEST_F(nl, unprivileged_dump_shows_only_own_contexts)
{
	struct dump_set d = { 0 };
	int status = 0;
	unsigned int i;
	bool mine = false;
	pid_t pid;

	/* root sees its own context */
	ASSERT_EQ(0, retire_nl_dump_stats(self->nl, dump_cb, &d));
	for (i = 0; i < d.n; i++)
		mine |= d.e[i].pid == (__u32)getpid();
	EXPECT_TRUE(mine);
	free(d.e);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct dump_set cd = { 0 };
		struct retire_monitor *m;
		struct retire_stats st;
		struct retire_nl *cnl;

		if (rt_become_nobody())
			_exit(10);
		if (retire_open_netlink(&cnl))
			_exit(11);
		if (retire_nl_get_stats(cnl, &st) || !st.contexts)
			_exit(12);
		if (retire_nl_dump_stats(cnl, dump_cb, &cd) || cd.n)
			_exit(13);
		if (retire_open_monitor(&m, RETIRE_MONITOR_STALE) != -EPERM)
			_exit(14);
		if (retire_open_monitor(&m, RETIRE_MONITOR_HEALTH) != -EPERM)
			_exit(15);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		static const char *const what[] = {
			"becoming nobody", "retire_open_netlink",
			"module-wide stats-get", "the dump listed root's contexts",
			"joined stale", "joined health",
		};
		int s = WEXITSTATUS(status);

		TH_LOG("child: %s", s >= 10 && s <= 15 ? what[s - 10] :
		       "unknown failure");
	}
}

/* contexts belong to the machine: no other network namespace has them */
TEST_F(nl, family_is_absent_from_another_netns)
{
	int status = 0;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct retire_nl *cnl;

		if (unshare(CLONE_NEWNET))
			_exit(errno == EINVAL ? 4 : 10);
		_exit(retire_open_netlink(&cnl) == -ENOENT ? 0 : 11);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 4)
		SKIP(return, "no network namespaces in this kernel");
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* ---- strict validation, extended ACKs ----------------------------------- */

#define EXPECT_EXTACK(ack) do {						\
	EXPECT_TRUE((ack).has_msg);					\
	EXPECT_LT(0, (int)strlen((ack).msg));				\
} while (0)

TEST_F(nl, unknown_attribute_is_rejected_with_extack)
{
	struct nl_stats_set set = { 0 };
	struct nlmsghdr *nlh;
	struct rnl_ack ack;

	nlh = rnl_begin(&self->rn, self->rn.family, NLM_F_ACK,
			RETIRE_CMD_STATS_GET);
	rnl_put_u64(&self->rn, nlh, RETIRE_A_STATS_MAX + 5, 1);
	ASSERT_EQ(0, rnl_xfer(&self->rn, nl_stats_cb, &set, &ack));
	EXPECT_TRUE(ack.acked);
	EXPECT_EQ(-EINVAL, ack.err);
	EXPECT_EXTACK(ack);
	EXPECT_EQ(0, ack.nmsg);	/* no reply */
	TH_LOG("extack: \"%s\"", ack.msg);

	/* stats-get takes no attributes: a known one is refused as well */
	nlh = rnl_begin(&self->rn, self->rn.family, NLM_F_ACK,
			RETIRE_CMD_STATS_GET);
	rnl_put_u64(&self->rn, nlh, RETIRE_A_STATS_ADMITTED, 1);
	ASSERT_EQ(0, rnl_xfer(&self->rn, nl_stats_cb, &set, &ack));
	EXPECT_EQ(-EINVAL, ack.err);
	EXPECT_EXTACK(ack);

	/* the same for engine-set and engine-get */
	nlh = rnl_begin(&self->rn, self->rn.family, NLM_F_ACK,
			RETIRE_CMD_ENGINE_SET);
	rnl_put_u64(&self->rn, nlh, RETIRE_A_ENGINE_MAX + 5, 1);
	ASSERT_EQ(0, rnl_xfer(&self->rn, NULL, NULL, &ack));
	EXPECT_EQ(-EINVAL, ack.err);
	EXPECT_EXTACK(ack);
	nlh = rnl_begin(&self->rn, self->rn.family, NLM_F_ACK,
			RETIRE_CMD_ENGINE_GET);
	rnl_put_u64(&self->rn, nlh, RETIRE_A_ENGINE_MAX + 5, 1);
	ASSERT_EQ(0, rnl_xfer(&self->rn, NULL, NULL, &ack));
	EXPECT_EQ(-EINVAL, ack.err);
	EXPECT_EXTACK(ack);
	free(set.s);
}

TEST_F(nl, engine_set_wrong_attribute_size_is_rejected_with_extack)
{
	struct retire_sim_config known, got;
	struct nlmsghdr *nlh;
	struct rnl_ack ack;

	sim_config_b(&known);
	ASSERT_EQ(0, retire_set_sim_config(self->r, &known));

	/* a u64 knob in 4 bytes */
	nlh = rnl_begin(&self->rn, self->rn.family, NLM_F_ACK,
			RETIRE_CMD_ENGINE_SET);
	rnl_put_u32(&self->rn, nlh, RETIRE_A_ENGINE_LATENCY_NS, 5);
	ASSERT_EQ(0, rnl_xfer(&self->rn, NULL, NULL, &ack));
	EXPECT_TRUE(ack.err == -EINVAL || ack.err == -ERANGE) {
		TH_LOG("4-byte latency-ns: %d", ack.err);
	}
	EXPECT_EXTACK(ack);
	TH_LOG("extack: \"%s\"", ack.msg);

	/* a u32 knob in 8 bytes */
	nlh = rnl_begin(&self->rn, self->rn.family, NLM_F_ACK,
			RETIRE_CMD_ENGINE_SET);
	rnl_put_u64(&self->rn, nlh, RETIRE_A_ENGINE_FLAGS, 0);
	ASSERT_EQ(0, rnl_xfer(&self->rn, NULL, NULL, &ack));
	EXPECT_TRUE(ack.err == -EINVAL || ack.err == -ERANGE) {
		TH_LOG("8-byte flags: %d", ack.err);
	}
	EXPECT_EXTACK(ack);

	/* pad is never taken */
	nlh = rnl_begin(&self->rn, self->rn.family, NLM_F_ACK,
			RETIRE_CMD_ENGINE_SET);
	rnl_put_u64(&self->rn, nlh, RETIRE_A_ENGINE_PAD, 0);
	ASSERT_EQ(0, rnl_xfer(&self->rn, NULL, NULL, &ack));
	EXPECT_EQ(-EINVAL, ack.err);
	EXPECT_EXTACK(ack);

	ASSERT_EQ(0, retire_get_sim_config(self->r, &got));
	EXPECT_SIM_CONFIG_EQ(known, got);
}

TEST_F(nl, engine_set_oversize_is_rejected)
{
	struct retire_sim_config known, got;
	struct nlmsghdr *nlh;
	struct nlattr *a;
	struct rnl_ack ack;
	int ret;

	sim_config_b(&known);
	ASSERT_EQ(0, retire_set_sim_config(self->r, &known));

	/* 64 KiB-ish on a known attribute */
	nlh = rnl_begin(&self->rn, self->rn.family, NLM_F_ACK,
			RETIRE_CMD_ENGINE_SET);
	rnl_put(&self->rn, nlh, RETIRE_A_ENGINE_LATENCY_NS, NULL, 65000);
	ret = rnl_xfer(&self->rn, NULL, NULL, &ack);
	if (ret) {
		/* refused before it reached the family: still refused */
		TH_LOG("send/recv of a 65 KB request: %d", ret);
		EXPECT_NE(-EAGAIN, ret);
	} else {
		EXPECT_GT(0, ack.err);
		if (ack.err == -EINVAL || ack.err == -ERANGE) {
			EXPECT_EXTACK(ack);
		}
		TH_LOG("65000-byte latency-ns: %d \"%s\"", ack.err, ack.msg);
	}

	/* an attribute that claims more than the message holds */
	nlh = rnl_begin(&self->rn, self->rn.family, NLM_F_ACK,
			RETIRE_CMD_ENGINE_SET);
	rnl_put_u64(&self->rn, nlh, RETIRE_A_ENGINE_SEED, 1);
	a = (struct nlattr *)(self->rn.tx + NLMSG_HDRLEN + GENL_HDRLEN);
	a->nla_len = 0xfff0;
	ASSERT_EQ(0, rnl_xfer(&self->rn, NULL, NULL, &ack));
	EXPECT_EQ(-EINVAL, ack.err);
	EXPECT_EXTACK(ack);

	ASSERT_EQ(0, retire_get_sim_config(self->r, &got));
	EXPECT_SIM_CONFIG_EQ(known, got);
}

TEST_F(nl, unknown_command_is_eopnotsupp)
{
	static const __u8 cmds[] = {
		0, RETIRE_CMD_MAX + 1, RETIRE_CMD_MAX + 10, 0x7f, 0xff,
		/* notifications are not requests */
		RETIRE_CMD_STALE_NTF, RETIRE_CMD_HEALTH_NTF,
	};
	struct genlmsghdr *g;
	struct rnl_ack ack;
	unsigned int i;

	for (i = 0; i < sizeof(cmds); i++) {
		rnl_begin(&self->rn, self->rn.family, NLM_F_ACK, cmds[i]);
		ASSERT_EQ(0, rnl_xfer(&self->rn, NULL, NULL, &ack));
		EXPECT_EQ(-EOPNOTSUPP, ack.err) {
			TH_LOG("command %u: %d", cmds[i], ack.err);
		}
		EXPECT_EQ(0, ack.nmsg);
	}

	/* only stats-get dumps */
	rnl_begin(&self->rn, self->rn.family, NLM_F_DUMP, RETIRE_CMD_ENGINE_GET);
	ASSERT_EQ(0, rnl_xfer(&self->rn, NULL, NULL, &ack));
	EXPECT_EQ(-EOPNOTSUPP, ack.err);
	rnl_begin(&self->rn, self->rn.family, NLM_F_DUMP, RETIRE_CMD_INFO_GET);
	ASSERT_EQ(0, rnl_xfer(&self->rn, NULL, NULL, &ack));
	EXPECT_EQ(-EOPNOTSUPP, ack.err);

	/* the header's reserved field is checked from the first command on */
	g = NLMSG_DATA(rnl_begin(&self->rn, self->rn.family, NLM_F_ACK,
				 RETIRE_CMD_STATS_GET));
	g->reserved = 1;
	ASSERT_EQ(0, rnl_xfer(&self->rn, NULL, NULL, &ack));
	EXPECT_EQ(-EINVAL, ack.err);
}

/* ---- the "stale" group --------------------------------------------------- */

/* the events of @pid of @type, in order */
static unsigned int ev_select(const struct evlog *l, __u32 type, __u32 pid,
			      struct retire_event *out, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->n; i++)
		if (l->e[i].type == type && l->e[i].pid == pid) {
			if (n < max)
				out[n] = l->e[i];
			n++;
		}
	return n;
}

static bool stale_le(const struct retire_event *a, const struct retire_event *b)
{
	return a->stale_engine <= b->stale_engine &&
	       a->stale_cancel <= b->stale_cancel &&
	       a->stale_token <= b->stale_token &&
	       a->stale_user <= b->stale_user &&
	       a->stale_published <= b->stale_published;
}

#define N_ENGINE	2
#define N_CANCEL	3
#define N_TOKEN		4
#define N_USER		5
#define N_PUBLISHED	1

TEST_F(nl, counters_match_provoked_stale_events)
{
	struct retire_event ev[256];
	struct evlog l = { 0 };
	struct rt_log log = { 0 };
	struct retire_monitor *m;
	struct retire_stats st;
	struct dump_set d = { 0 };
	struct retire_cqe c;
	struct retire *r;
	__u64 buf, h1, h2, h3, t, e, id = 0;
	unsigned int i, n;

	ASSERT_EQ(0, retire_open_monitor(&m, RETIRE_MONITOR_STALE));
	ASSERT_EQ(0, retire_open_device(&r, NULL, 0));
	ASSERT_EQ(0, rt_register(r, RT_PAGE, &buf, NULL));

	/* h1: done and retired, its handle stale from now on */
	ASSERT_EQ(0, rt_submit(r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 1, 0, &h1));
	ASSERT_EQ(0, rt_wait(r, &log, h1, RETIRE_REC_TERMINAL, &c, 3000));
	ASSERT_EQ(0, retire_release_request(r, h1));
	ASSERT_EQ(0, rt_wait(r, &log, h1, RETIRE_REC_RETIRED, &c, 1000));

	for (i = 0; i < N_ENGINE; i++)
		ASSERT_EQ(-ENOENT, retire_inject_sim_event(r, h1, 0));
	for (i = 0; i < N_CANCEL; i++)
		ASSERT_EQ(-ENOENT, retire_cancel_request(r, h1));
	for (i = 0; i < N_USER; i++)
		ASSERT_EQ(-ENOENT, retire_release_request(r, h1));

	/* a token given back, then given back again */
	ASSERT_EQ(0, rt_submit(r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 2, 0, &h2));
	ASSERT_EQ(0, rt_wait(r, &log, h2, RETIRE_REC_TERMINAL, &c, 3000));
	ASSERT_EQ(0, retire_borrow_token(r, h2, &t));
	ASSERT_EQ(0, retire_return_token(r, t, 0));
	for (i = 0; i < N_TOKEN; i++)
		ASSERT_EQ(-ENOENT, retire_return_token(r, t, 0));
	ASSERT_EQ(0, retire_release_request(r, h2));
	ASSERT_EQ(0, rt_wait(r, &log, h2, RETIRE_REC_RETIRED, &c, 1000));

	/* done, its key's epoch bumped before its TERMINAL record is read */
	ASSERT_EQ(0, rt_submit_key(r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 3, 0,
				   9, &h3));
	ASSERT_EQ(1, rt_wait_ready(r, 3000));
	rt_msleep(100);
	ASSERT_EQ(0, retire_bump_epoch(r, 9, &e));
	ASSERT_EQ(0, rt_wait(r, &log, h3, RETIRE_REC_TERMINAL, &c, 3000));
	ASSERT_EQ(RETIRE_OUTCOME_STALE, c.outcome);
	ASSERT_EQ(0, retire_release_request(r, h3));
	ASSERT_EQ(0, rt_wait(r, &log, h3, RETIRE_REC_RETIRED, &c, 1000));

	ASSERT_EQ(0, rt_stats(r, &st));
	EXPECT_EQ(N_ENGINE, st.stale_engine);
	EXPECT_EQ(N_CANCEL, st.stale_cancel);
	EXPECT_EQ(N_TOKEN, st.stale_token);
	EXPECT_EQ(N_USER, st.stale_user);
	EXPECT_EQ(N_PUBLISHED, st.stale_published);

	/* coalesced to one message per 100 ms: the last one is due by now */
	rt_msleep(300);
	ASSERT_EQ(0, mon_drain(m, &l, 200));
	EXPECT_EQ(0, l.overflows);
	n = ev_select(&l, RETIRE_CMD_STALE_NTF, getpid(), ev, 256);
	ASSERT_LE(1, n);
	ASSERT_GE(256, n);
	for (i = 0; i < n; i++) {
		EXPECT_NE(0, ev[i].ctx_id);
		EXPECT_EQ(ev[0].ctx_id, ev[i].ctx_id);
		if (i) {
			EXPECT_TRUE(stale_le(&ev[i - 1], &ev[i])) {
				TH_LOG("message %u went backwards", i);
			}
		}
	}
	EXPECT_EQ(N_ENGINE, ev[n - 1].stale_engine);
	EXPECT_EQ(N_CANCEL, ev[n - 1].stale_cancel);
	EXPECT_EQ(N_TOKEN, ev[n - 1].stale_token);
	EXPECT_EQ(N_USER, ev[n - 1].stale_user);
	EXPECT_EQ(N_PUBLISHED, ev[n - 1].stale_published);
	EXPECT_EQ(st.stale_engine, ev[n - 1].stale_engine);
	EXPECT_EQ(st.stale_cancel, ev[n - 1].stale_cancel);
	EXPECT_EQ(st.stale_token, ev[n - 1].stale_token);
	EXPECT_EQ(st.stale_user, ev[n - 1].stale_user);
	EXPECT_EQ(st.stale_published, ev[n - 1].stale_published);
	/* nothing of the other group */
	EXPECT_EQ(-1, ev_find(&l, 0, RETIRE_CMD_HEALTH_NTF, ANY_HEALTH, 0,
			      ANY_CTX));

	/* the message's ctx-id is the one the dump gives this context */
	ASSERT_EQ(0, retire_nl_dump_stats(self->nl, dump_cb, &d));
	EXPECT_EQ(1, dump_match(&d, getpid(), &st, &id));
	EXPECT_EQ(id, ev[0].ctx_id);

	free(d.e);
	rt_log_free(&log);
	evlog_free(&l);
	retire_close_monitor(m);
	retire_close_device(r);
}

#define BURST	100000

TEST_F_TIMEOUT(nl, burst_of_100000_stale_events_is_coalesced, 100)
{
	struct retire_event ev[4096];
	struct evlog l = { 0 };
	struct rt_log log = { 0 };
	struct retire_monitor *m;
	struct retire_stats st;
	struct retire_cqe c;
	struct retire *r;
	__u64 buf, h, t0, elapsed_ms;
	unsigned int i, n, wrong = 0;
	int ret;

	ASSERT_EQ(0, retire_open_device(&r, NULL, 0));
	ASSERT_EQ(0, rt_register(r, RT_PAGE, &buf, NULL));
	ASSERT_EQ(0, rt_submit(r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 1, 0, &h));
	ASSERT_EQ(0, rt_wait(r, &log, h, RETIRE_REC_TERMINAL, &c, 3000));
	ASSERT_EQ(0, retire_release_request(r, h));
	ASSERT_EQ(0, rt_wait(r, &log, h, RETIRE_REC_RETIRED, &c, 1000));
	ASSERT_EQ(0, retire_open_monitor(&m, RETIRE_MONITOR_STALE));

	t0 = rt_now_ns();
	for (i = 0; i < BURST; i++) {
		ret = retire_cancel_request(r, h);
		if (ret != -ENOENT && !wrong++)
			TH_LOG("cancel %u returned %d", i, ret);
		/* keep the socket's queue short, coalesced or not */
		if ((i & 1023) == 1023)
			mon_drain(m, &l, 0);
	}
	TH_LOG("%u stale cancels in %llu ms", BURST,
	       (unsigned long long)((rt_now_ns() - t0) / RT_MS));
	rt_msleep(300);
	ASSERT_EQ(0, mon_drain(m, &l, 100));
	elapsed_ms = (rt_now_ns() - t0) / RT_MS;

	EXPECT_EQ(0, wrong);
	EXPECT_EQ(0, l.overflows) {
		TH_LOG("the monitor's socket overflowed: not coalesced");
	}
	n = ev_select(&l, RETIRE_CMD_STALE_NTF, getpid(), ev, 4096);
	TH_LOG("%u messages in %llu ms", n, (unsigned long long)elapsed_ms);
	ASSERT_LE(1, n);
	EXPECT_GE(elapsed_ms / 100 + 2, n);
	if (n > 4096)
		n = 4096;
	for (i = 1; i < n; i++)
		EXPECT_TRUE(stale_le(&ev[i - 1], &ev[i]));
	EXPECT_EQ(BURST, ev[n - 1].stale_cancel);
	EXPECT_EQ(0, ev[n - 1].stale_engine);
	EXPECT_EQ(0, ev[n - 1].stale_token);
	EXPECT_EQ(0, ev[n - 1].stale_user);
	EXPECT_EQ(0, ev[n - 1].stale_published);
	ASSERT_EQ(0, rt_stats(r, &st));
	EXPECT_EQ(BURST, st.stale_cancel);
	EXPECT_EQ(BURST, st.cancel_noent);

	rt_log_free(&log);
	evlog_free(&l);
	retire_close_monitor(m);
	retire_close_device(r);
}

/* ---- the "health" group -------------------------------------------------- */

TEST_F(nl, health_reports_quarantine_reset_and_reaped)
{
	struct evlog l = { 0 };
	struct rt_log log = { 0 };
	struct retire_monitor *m;
	struct retire_limits lim;
	struct retire_cqe c;
	struct retire *r;
	__u64 buf, h, x;
	int iq, ireset, ireaped;

	ASSERT_EQ(0, retire_open_monitor(&m, RETIRE_MONITOR_HEALTH));
	ASSERT_EQ(0, retire_open_device(&r, NULL, 0));
	ASSERT_EQ(0, retire_get_limits(r, &lim));
	lim.watchdog_ns = 100 * RT_MS;
	ASSERT_EQ(0, retire_set_limits(r, &lim));
	ASSERT_EQ(0, rt_register(r, RT_PAGE, &buf, NULL));

	/* hung past the watchdog: quarantined */
	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_HANG, 0));
	ASSERT_EQ(0, rt_submit(r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 1, 0, &h));
	ASSERT_EQ(0, rt_wait(r, &log, h, RETIRE_REC_QUARANTINE, &c, 3000));
	iq = ev_wait(m, &l, 0, RETIRE_CMD_HEALTH_NTF,
		     RETIRE_HEALTH_EVENT_QUARANTINE, getpid(), ANY_CTX, 2000);
	ASSERT_LE(0, iq) {
		TH_LOG("no quarantine event for this process");
	}
	x = l.e[iq].ctx_id;
	EXPECT_NE(0, x);
	EXPECT_EQ(1, l.e[iq].quarantined_now);

	/* the reset lifts it */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 20 * RT_MS));
	ASSERT_EQ(0, retire_reset_sim(self->r));
	ireset = ev_wait(m, &l, iq + 1, RETIRE_CMD_HEALTH_NTF,
			 RETIRE_HEALTH_EVENT_RESET, 0, 0, 2000);
	ASSERT_LE(0, ireset) {
		TH_LOG("no reset event with ctx-id 0");
	}
	EXPECT_EQ(0, l.e[ireset].quarantined_now);

	/* retired and closed: the reaper frees it */
	ASSERT_EQ(0, rt_wait(r, &log, h, RETIRE_REC_TERMINAL, &c, 2000));
	ASSERT_EQ(0, retire_release_request(r, h));
	ASSERT_EQ(0, rt_wait(r, &log, h, RETIRE_REC_RETIRED, &c, 1000));
	retire_close_device(r);
	ireaped = ev_wait(m, &l, 0, RETIRE_CMD_HEALTH_NTF,
			  RETIRE_HEALTH_EVENT_REAPED, 0, x, 3000);
	ASSERT_LE(0, ireaped) {
		TH_LOG("no reaped event for ctx %llu", (unsigned long long)x);
	}
	EXPECT_GT(ireaped, ireset);
	EXPECT_EQ(getpid(), (pid_t)l.e[ireaped].pid);
	EXPECT_EQ(0, l.e[ireaped].quarantined_now);
	/* nothing of the other group */
	EXPECT_EQ(-1, ev_find(&l, 0, RETIRE_CMD_STALE_NTF, 0, 0, ANY_CTX));

	rt_log_free(&log);
	evlog_free(&l);
	retire_close_monitor(m);
}

/* closed with work in flight: the reaper retires it, then reports */
TEST_F(nl, health_reports_reaped_after_draining_close)
{
	struct evlog l = { 0 };
	struct retire_monitor *m;
	struct retire *r;
	__u64 buf, h;
	int i;

	ASSERT_EQ(0, retire_open_monitor(&m, RETIRE_MONITOR_HEALTH));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 200 * RT_MS));
	ASSERT_EQ(0, retire_open_device(&r, NULL, 0));
	ASSERT_EQ(0, rt_register(r, RT_PAGE, &buf, NULL));
	ASSERT_EQ(0, rt_submit(r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 1, 0, &h));
	retire_close_device(r);
	i = ev_wait(m, &l, 0, RETIRE_CMD_HEALTH_NTF, RETIRE_HEALTH_EVENT_REAPED,
		    getpid(), ANY_CTX, 3000);
	ASSERT_LE(0, i);
	EXPECT_NE(0, l.e[i].ctx_id);
	EXPECT_EQ(0, l.e[i].quarantined_now);
	evlog_free(&l);
	retire_close_monitor(m);
}

TEST_HARNESS_MAIN
