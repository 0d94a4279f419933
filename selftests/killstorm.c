// SPDX-License-Identifier: GPL-2.0
/*
 * killstorm: owners killed at random points must leave nothing behind.
 *
 *   killstorm [-s SEED] [-k KILLS] [-v] [--avoid raise]
 *
 * KILLS times, the parent sets the sim engine to a seeded profile (as
 * root: quick, slow, chunked, bandwidth-limited, blocked, cancel-running,
 * finishing late, hung), forks a child running a mixed workload on one or
 * two contexts (module buffers and their mmaps, pinned user memory,
 * batches with deadlines and keys, cancels, borrows, handoffs and returns,
 * retires, epoch bumps and revocations, limits changes), and SIGKILLs it
 * after a seeded delay of 0..50 ms, sometimes resetting the engine under
 * it first. The module's reaper must then retire everything the child
 * left: after the last kill, with the engine neutral, the balance check of
 * campaign_balance.h must hold. One kill in three, the child first passes
 * its contexts' files over a socket (SCM_RIGHTS) to a receiver, a process
 * of its own that works on the same contexts, and the receiver is killed
 * first or both at once.
 *
 * A child that meets an answer the ABI does not document exits with 2
 * before it is killed; that fails the storm too.
 *
 * "--avoid raise" keeps the children from raising a limit they lowered
 * (a known close() hang being fixed); without it the pattern is reachable.
 *
 * Exit: 0, 1 on a failure, 4 if /dev/retire is absent.
 */
#include <getopt.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "campaign_balance.h"

#define NBUF	16
#define NREQ	64

static struct {
	__u64 seed;
	unsigned int kills;
	bool avoid_raise;
	bool root;
	bool verbose;
} opt = { .seed = 1, .kills = 100 };

/* ---- the child's workload ----------------------------------------------- */

struct cbuf {
	__u64 h, len;
	void *map;		/* module buffer's mapping, or pinned memory */
	bool user;
};

struct child {
	__u64 rng;
	struct retire *r[2];
	struct cbuf buf[2][NBUF];
	__u64 req[2][NREQ];	/* admitted, not known retired */
	__u64 term[2][NREQ];	/* TERMINAL read: may retire, borrow */
	__u64 tok[2][NREQ];
	unsigned long steps;
	const char *op;
};

static unsigned int crnd(struct child *c, unsigned int n)
{
	return rt_rand(&c->rng, n);
}

/*
 * Valid calls may be refused only for the bounds and states the ABI
 * names: anything else (-EINVAL, -EFAULT, ...) is a finding.
 */
static void expect(struct child *c, int ret, const char *op)
{
	switch (ret) {
	case 0: case -ENOSPC: case -EDQUOT: case -ENOBUFS: case -EMFILE:
	case -EBUSY: case -ENOENT: case -EALREADY: case -ETOOMANYREFS:
	case -ENOTRECOVERABLE: case -EIO: case -EAGAIN: case -ENOMEM:
	case -EINTR: case -ETIME: case -ETIMEDOUT:
		return;
	}
	fprintf(stderr, "killstorm: child step %lu: %s returned %d (%s)\n",
		c->steps, op, ret, ret < 0 ? strerror(-ret) : "positive");
	_exit(2);
}

static void slot_put(__u64 *a, unsigned int n, __u64 h, struct child *c)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!a[i]) {
			a[i] = h;
			return;
		}
	a[crnd(c, n)] = h;	/* forgotten: the reaper will find it */
}

static __u64 slot_pick(__u64 *a, unsigned int n, struct child *c, bool take)
{
	unsigned int i = crnd(c, n);
	__u64 h = a[i];

	if (take)
		a[i] = 0;
	return h;
}

static void slot_del(__u64 *a, unsigned int n, __u64 h)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (a[i] == h)
			a[i] = 0;
}

static void c_register(struct child *c, int k)
{
	struct cbuf *b = &c->buf[k][crnd(c, NBUF)];
	size_t len = RT_PAGE * (1 + crnd(c, 16));
	int ret;

	if (b->h)
		return;
	if (crnd(c, 3)) {
		ret = retire_alloc_buffer(c->r[k], len, &b->h, &b->map);
		expect(c, ret, "alloc_buffer");
		if (!ret)
			memset(b->map, crnd(c, 256), len);
	} else {
		b->map = mmap(NULL, len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b->map == MAP_FAILED) {
			b->map = NULL;
			return;
		}
		memset(b->map, 0x3c, len);
		ret = retire_pin_buffer(c->r[k], b->map, len, &b->h);
		expect(c, ret, "pin_buffer");
		b->user = true;
	}
	b->len = len;
	if (!b->h && b->map) {
		munmap(b->map, len);
		b->map = NULL;
	}
}

static void c_unregister(struct child *c, int k)
{
	struct cbuf *b = &c->buf[k][crnd(c, NBUF)];
	int ret;

	if (!b->h)
		return;
	ret = retire_unregister_buffer(c->r[k], b->h);
	expect(c, ret, "unregister");
	if (ret && ret != -ENOENT)
		return;
	/* a module buffer's mapping outlives it; sometimes keep it */
	if (b->map && (b->user || crnd(c, 2)))
		munmap(b->map, b->len);
	memset(b, 0, sizeof(*b));
}

static void c_submit(struct child *c, int k)
{
	struct retire_sqe sqe[8];
	unsigned int nr = 1 + crnd(c, 8), i, n = 0;
	int ret;

	for (i = 0; i < nr; i++) {
		struct cbuf *b = &c->buf[k][crnd(c, NBUF)];
		__u64 len;

		if (!b->h)
			continue;
		len = 1 + crnd(c, (unsigned int)b->len);
		retire_prep_request(&sqe[n], b->h, crnd(c, b->len - len + 1),
				    len, 1 + crnd(c, 3), c->steps);
		sqe[n].deadline_ns = crnd(c, 3) ? 0 : crnd(c, 5) * RT_MS + 1;
		sqe[n].key = crnd(c, 4);
		n++;
	}
	if (!n)
		return;
	ret = retire_submit_requests(c->r[k], sqe, n);
	if (ret < 0)
		expect(c, ret, "submit");
	for (i = 0; i < n; i++) {
		expect(c, sqe[i].result, "submit entry");
		if (!sqe[i].result)
			slot_put(c->req[k], NREQ, sqe[i].handle, c);
	}
}

static void c_reap(struct child *c, int k)
{
	struct retire_cqe cqe[32];
	int n, i;

	n = retire_reap_records(c->r[k], cqe, 32, 0, crnd(c, 2) * RT_MS);
	if (n < 0) {
		expect(c, n, "reap");
		return;
	}
	for (i = 0; i < n; i++) {
		if (cqe[i].type == RETIRE_REC_TERMINAL)
			slot_put(c->term[k], NREQ, cqe[i].handle, c);
		if (cqe[i].type == RETIRE_REC_RETIRED) {
			slot_del(c->req[k], NREQ, cqe[i].handle);
			slot_del(c->term[k], NREQ, cqe[i].handle);
		}
	}
}

static void c_token(struct child *c, int k)
{
	__u64 t, h;
	int ret;

	switch (crnd(c, 3)) {
	case 0:
		h = slot_pick(c->term[k], NREQ, c, false);
		if (!h)
			return;
		ret = retire_borrow_token(c->r[k], h, &t);
		expect(c, ret, "borrow");
		if (!ret)
			slot_put(c->tok[k], NREQ, t, c);
		break;
	case 1:
		h = slot_pick(c->tok[k], NREQ, c, true);
		if (h)
			expect(c, retire_return_token(c->r[k], h,
						      crnd(c, 4) ? 0 : -EIO),
			       "return");
		break;
	default:
		h = slot_pick(c->tok[k], NREQ, c, true);
		if (!h)
			return;
		ret = retire_handoff_token(c->r[k], h, &t);
		expect(c, ret, "handoff");
		slot_put(c->tok[k], NREQ, ret ? h : t, c);
		break;
	}
}

static void c_retire(struct child *c, int k)
{
	__u64 h = slot_pick(c->term[k], NREQ, c, false);

	if (h)
		expect(c, retire_release_request(c->r[k], h), "retire");
}

static void c_cancel(struct child *c, int k)
{
	__u64 h = slot_pick(c->req[k], NREQ, c, false);

	if (h)
		expect(c, retire_cancel_request(c->r[k], h), "cancel");
}

static void c_epoch(struct child *c, int k)
{
	__u64 v;

	if (crnd(c, 4))
		expect(c, retire_bump_epoch(c->r[k], crnd(c, 4), &v), "bump");
	else
		expect(c, retire_revoke_authority(c->r[k], &v), "revoke");
}

/* tighter or looser limits, never above a cap */
static void c_limits(struct child *c, int k, const struct retire_info *info)
{
	struct retire_limits l, now;
	int ret;

	if (retire_get_limits(c->r[k], &now))
		return;
	l = info->caps;
	if (crnd(c, 2)) {
		l.max_active = 1 + crnd(c, 8);
		l.max_active_per_key = 1 + crnd(c, l.max_active);
		l.max_waiting = 1 + crnd(c, 64);
		l.max_tokens = 1 + crnd(c, 16);
	}
	if (opt.avoid_raise && (l.max_active > now.max_active ||
				l.max_waiting > now.max_waiting))
		return;
	ret = retire_set_limits(c->r[k], &l);
	expect(c, ret == -EBUSY ? 0 : ret, "set_limits");
}

static void __attribute__((noreturn)) child_loop(struct child *c, int nctx,
						 const struct retire_info *info)
{
	int k;

	for (c->steps = 0;; c->steps++) {
		k = crnd(c, nctx);
		switch (crnd(c, 20)) {
		case 0: case 1: case 2:
			c_register(c, k);
			break;
		case 3:
			c_unregister(c, k);
			break;
		case 4: case 5: case 6: case 7:
			c_submit(c, k);
			break;
		case 8: case 9: case 10:
			c_reap(c, k);
			break;
		case 11: case 12:
			c_token(c, k);
			break;
		case 13: case 14:
			c_retire(c, k);
			break;
		case 15: case 16:
			c_cancel(c, k);
			break;
		case 17:
			c_epoch(c, k);
			break;
		case 18:
			c_limits(c, k, info);
			break;
		default:
			rt_msleep(crnd(c, 2));
			break;
		}
	}
}

/*
 * The opener: one or two contexts, and its workload on them. With @sock,
 * it first passes their files over it (SCM_RIGHTS) to the receiver, which
 * works on the same contexts from a process of its own.
 */
static void __attribute__((noreturn)) child_main(__u64 seed,
						 const struct retire_info *info,
						 int sock)
{
	struct child c = { .rng = seed | 1 };
	int k, nctx = 1 + crnd(&c, 2), fds[2], sent;

	signal(SIGALRM, SIG_DFL);
	alarm(10);	/* the parent kills well before; never outlive it */
	for (k = 0; k < nctx; k++) {
		if (retire_open_device(&c.r[k], NULL, 0))
			_exit(2);
		fds[k] = retire_get_fd(c.r[k]);
	}
	/* -EPIPE: the receiver was killed first; the opener works alone */
	sent = sock < 0 ? 0 : rt_send_fds(sock, fds, nctx);
	if (sent && sent != -EPIPE && sent != -ECONNRESET)
		_exit(2);
	child_loop(&c, nctx, info);
}

/*
 * The receiver: the opener's contexts, passed over @sock, each taking the
 * place of a context of its own (dup2() onto its file descriptor, which
 * closes that one), so libretire works on them; then the same workload.
 */
static void __attribute__((noreturn)) receiver_main(__u64 seed,
						    const struct retire_info *info,
						    int sock)
{
	struct child c = { .rng = seed | 1 };
	int k, nctx, fds[2];

	signal(SIGALRM, SIG_DFL);
	alarm(10);
	nctx = rt_recv_fds(sock, fds, 2);
	if (nctx <= 0)
		_exit(nctx == 0 ? 0 : 2);	/* the opener died first */
	for (k = 0; k < nctx; k++) {
		if (retire_open_device(&c.r[k], NULL, 0) ||
		    dup2(fds[k], retire_get_fd(c.r[k])) < 0)
			_exit(2);
		close(fds[k]);
	}
	child_loop(&c, nctx, info);
}

/* ---- the parent --------------------------------------------------------- */

static const char *const profile_name[] = {
	"quick", "slow", "chunked", "bandwidth", "blocked", "cancel-running",
	"finish-late", "hang",
};

/* the engine for one kill; "hang" is rare, and always reset afterwards */
static int set_profile(struct retire *r, __u64 *rng)
{
	struct retire_sim_config cfg = { .op = RETIRE_SIM_SET };
	unsigned int p = rt_rand(rng, 16);

	if (p >= 8)
		p = rt_rand(rng, 4);	/* mostly the ordinary ones */
	cfg.seed = rt_xorshift64(rng);
	switch (p) {
	case 0:
		cfg.latency_ns = rt_rand(rng, 2) * RT_MS;
		break;
	case 1:
		cfg.latency_ns = (2 + rt_rand(rng, 8)) * RT_MS;
		cfg.fail_every = rt_rand(rng, 5);
		break;
	case 2:
		cfg.latency_ns = RT_MS;
		cfg.tick_ns = RT_MS;
		cfg.bytes_per_tick = 4096;
		break;
	case 3:
		cfg.rate_bps = 4 << 20;
		cfg.burst_bytes = 64 << 10;
		cfg.bytes_per_tick = 4096;
		cfg.tick_ns = RT_MS;
		break;
	case 4:
		cfg.flags = RETIRE_SIM_F_BLOCKED;
		break;
	case 5:
		cfg.flags = RETIRE_SIM_F_CANCEL_RUNNING;
		cfg.latency_ns = 5 * RT_MS;
		cfg.tick_ns = RT_MS;
		cfg.bytes_per_tick = 4096;
		break;
	case 6:
		cfg.finish_ns = 3 * RT_MS;
		cfg.fail_submit_every = 7;
		break;
	default:
		cfg.flags = RETIRE_SIM_F_HANG;
		break;
	}
	if (opt.root && retire_set_sim_config(r, &cfg))
		return -1;
	return (int)p;
}

/* reap @pid, killed; 0 if SIGKILL ended it, else -1 and why */
static int reaped(pid_t pid, unsigned int i, int prof, const char *who)
{
	int st;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		return 0;
	/* a receiver whose opener died before passing anything */
	if (WIFEXITED(st) && !WEXITSTATUS(st) && !strcmp(who, "receiver"))
		return 0;
	printf("killstorm: FAIL seed=%llu kill=%u profile=%s: %s %s %d\n",
	       (unsigned long long)opt.seed, i, profile_name[prof], who,
	       WIFEXITED(st) ? "exited with" : "died of signal",
	       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	return -1;
}

/*
 * One child, killed after 0..50 ms; 0 or -1 if it found something. One
 * kill in three, the child passes its contexts over a socket
 * (SCM_RIGHTS) to a receiver, a process of its own that works on them
 * too; then either the receiver is killed first and the opener later,
 * or both at once.
 */
static int one_kill(struct retire *r, const struct retire_info *info,
		    __u64 *rng, unsigned int i)
{
	int prof = set_profile(r, rng);
	unsigned int delay = rt_rand(rng, 51), reset_at = 0, first = 0;
	__u64 child_seed = rt_xorshift64(rng);
	bool shared = rt_rand(rng, 3) == 0;
	int sv[2] = { -1, -1 }, bad;
	pid_t pid, rpid = 0;

	if (prof < 0) {
		printf("killstorm: kill %u: cannot set the engine\n", i);
		return -1;
	}
	if (opt.root && rt_rand(rng, 4) == 0)
		reset_at = rt_rand(rng, delay + 1);	/* a reset under it */
	if (shared && rt_rand(rng, 2))
		first = 1 + rt_rand(rng, delay + 1);	/* the receiver alone */
	if (opt.verbose)
		printf("killstorm: kill %u: profile %s, after %u ms%s%s\n", i,
		       profile_name[prof], delay,
		       reset_at ? ", a reset first" : "",
		       !shared ? "" : first ? ", shared, the receiver killed first" :
		       ", shared, both killed at once");
	fflush(stdout);
	if (shared && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		printf("killstorm: socketpair: %s\n", strerror(errno));
		return -1;
	}
	if (shared) {
		/* forked before the opener: it inherits no context */
		rpid = fork();
		if (rpid < 0) {
			printf("killstorm: fork: %s\n", strerror(errno));
			return -1;
		}
		if (!rpid) {
			close(sv[0]);
			receiver_main(child_seed ^ 0x5eed, info, sv[1]);
		}
		close(sv[1]);
	}
	pid = fork();
	if (pid < 0) {
		printf("killstorm: fork: %s\n", strerror(errno));
		return -1;
	}
	if (!pid)
		child_main(child_seed, info, sv[0]);
	if (sv[0] >= 0)
		close(sv[0]);
	if (reset_at) {
		rt_msleep(reset_at);
		retire_reset_sim(r);
		delay -= reset_at;
	}
	if (first && first <= delay) {
		rt_msleep(first);
		kill(rpid, SIGKILL);
		delay -= first;
	}
	rt_msleep(delay);
	kill(pid, SIGKILL);
	if (rpid)
		kill(rpid, SIGKILL);
	bad = reaped(pid, i, prof, "child");
	if (rpid)
		bad |= reaped(rpid, i, prof, "receiver");
	if (prof == 7 || prof == 4 || rt_rand(rng, 8) == 0)
		retire_reset_sim(r);	/* hung and blocked work ends */
	return bad;
}

static void usage(void)
{
	fprintf(stderr, "usage: killstorm [-s SEED] [-k KILLS] [-v] [--avoid raise]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "avoid", required_argument, NULL, 'A' },
		{ 0 }
	};
	struct retire_info info;
	struct cb_base base;
	struct retire *r;
	__u64 rng;
	unsigned int i;
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "s:k:v", lo, NULL)) != -1) {
		switch (c) {
		case 's': opt.seed = strtoull(optarg, NULL, 0); break;
		case 'k': opt.kills = strtoul(optarg, NULL, 0); break;
		case 'v': opt.verbose = true; break;
		case 'A': opt.avoid_raise = !!strstr(optarg, "raise"); break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	opt.root = !geteuid();
	if (access("/dev/retire", F_OK)) {
		printf("killstorm: %s\n", RT_SKIP_MSG);
		return 4;
	}
	if (opt.root)
		cb_neutral();
	cb_base_take(&base);
	if (retire_open_device(&r, NULL, 0) || retire_get_info(r, &info)) {
		printf("killstorm: cannot open /dev/retire\n");
		return 1;
	}
	rng = (opt.seed + 1) * 0x9e3779b97f4a7c15ULL;
	for (i = 0; i < opt.kills && !bad; i++)
		bad = one_kill(r, &info, &rng, i);
	if (opt.root)
		rt_sim_neutral(r);
	retire_close_device(r);
	if (!bad) {
		c = cb_check("killstorm", &base, 30000);
		if (c) {
			printf("killstorm: FAIL seed=%llu kills=%u: balance check: %d differences (above)\n",
			       (unsigned long long)opt.seed, opt.kills, c);
			bad = -1;
		}
	}
	if (bad)
		return 1;
	printf("killstorm: seed=%llu kills=%u balance held\n",
	       (unsigned long long)opt.seed, opt.kills);
	return 0;
}
