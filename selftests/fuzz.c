// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: a structure-aware, seeded fuzzer of /dev/retire.
 *
 *   fuzz [-s SEED] [-t SECONDS] [-n THREADS] [-c CALLS] [--root-knobs]
 *        [--inject] [--stress] [--avoid LIST] [--as-nobody]
 *
 * Several threads share one file (one context) and call every ioctl,
 * read(), poll() and mmap() with structures that look valid, then mutate
 * some: handles harvested from replies with a kind, slot or generation bit
 * flipped; boundary offsets and lengths; wrong _IOC_SIZE values with zero
 * or non-zero tails; bad user pointers; unknown flags and non-zero
 * reserved fields. Some calls go through a second file that other threads
 * close and reopen underneath them, or through a dup() closed right after;
 * forked children use the shared context for a few calls and die.
 *
 * Every call must return 0 (or, for read and poll, a sane count) or a
 * negative errno from the set the ABI documents for it; every record read
 * must be well formed. Each thread draws from its own xorshift PRNG seeded
 * from SEED and its index, so the sequence of operations it tries is the
 * same for the same seed (what they return depends on the interleaving),
 * and keeps a ring of its last 64 operations, printed on failure.
 *
 * --root-knobs (root): the sim engine's knobs, engine resets and tighter
 * limits join the mix. --inject adds RETIRE_IOC_SIM_INJECT. --stress runs
 * a valid-only mixed workload on every CPU with engine resets, quarantine
 * episodes (HANG + a short watchdog, then a reset) and limits changes.
 * --avoid takes a comma-separated list of patterns known to trip module
 * bugs being fixed: "huge" (huge BUF_REGISTER lengths), "raise" (raising
 * a limit again after lowering it), "bw0" (a bandwidth limit with
 * bytes_per_tick 0). Each stays reachable without the flag.
 *
 * --as-nobody (root): the run is an unprivileged user's. Root sets a slow
 * device (150 ms, then 4 KiB/ms) and opens the files (the device is
 * 0600); then a child becomes nobody, runs the threads with watchdogs
 * down to the unprivileged floor, and exits with its work (quarantined
 * requests too), pins and mappings in flight. Root only waits: it resets
 * nothing and sets no knob before the balance check, so whatever the
 * module still holds then it would hold for good without a root action.
 *
 * At the end every file is closed, the engine is made neutral (as root,
 * except after --as-nobody), and the balance check of campaign_balance.h
 * must hold.
 *
 * Exit: 0, 1 on a failure, 4 if /dev/retire is absent.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/sync_file.h>

#include "campaign_balance.h"

#define RING		64
#define MAX_THREADS	32
#define POOL		256
#define ARG_AREA	16384		/* the largest _IOC_SIZE is 16383 */
#define MAX_MAPS	64
#define MAX_USERMEM	32
#define USERMEM_BUDGET	(8UL << 20)	/* pinned bytes a thread may hold */

#define AVOID_HUGE	(1U << 0)
#define AVOID_RAISE	(1U << 1)
#define AVOID_BW0	(1U << 2)

/* ---- errno sets --------------------------------------------------------- */

enum {
	B_EPERM, B_ENOENT, B_EINTR, B_EIO, B_E2BIG, B_EBADF, B_EAGAIN,
	B_ENOMEM, B_EACCES, B_EFAULT, B_EBUSY, B_EINVAL, B_EMFILE, B_ENOTTY,
	B_ENOSPC, B_ETIME, B_EOVERFLOW, B_ENOBUFS, B_ETOOMANYREFS,
	B_EALREADY, B_EDQUOT, B_ENOTRECOVERABLE, B_ENODEV, B_ENXIO,
	B_EXDEV, B_EOPNOTSUPP,
	B_NR
};

static const int errno_of[B_NR] = {
	EPERM, ENOENT, EINTR, EIO, E2BIG, EBADF, EAGAIN, ENOMEM, EACCES,
	EFAULT, EBUSY, EINVAL, EMFILE, ENOTTY, ENOSPC, ETIME, EOVERFLOW,
	ENOBUFS, ETOOMANYREFS, EALREADY, EDQUOT, ENOTRECOVERABLE, ENODEV,
	ENXIO, EXDEV, EOPNOTSUPP,
};

#define M(e)	(1U << B_##e)
/* every ioctl: a bad structure, pointer or size, or no memory */
#define M_BASE	(M(EINVAL) | M(EFAULT) | M(E2BIG) | M(ENOMEM))
/* a call on the file other threads close and reopen */
#define M_VOL	(M(EBADF) | M(ENOTTY))
/* a SUBMIT entry's refusals */
#define M_SQE	(M(EINVAL) | M(ENOENT) | M(EBUSY) | M(ENOSPC) | M(EDQUOT) | \
		 M(ENOBUFS) | M(ENOTRECOVERABLE) | M(EIO) | M(EAGAIN) | \
		 M(ENOMEM) | M(EBADF) | M(EMFILE) | M(ENODEV) | M(EXDEV) | \
		 M(EOPNOTSUPP))

static bool errno_allowed(int err, unsigned int mask)
{
	int i;

	for (i = 0; i < B_NR; i++)
		if (errno_of[i] == err)
			return mask & (1U << i);
	return false;
}

/* ---- state -------------------------------------------------------------- */

struct op_rec {
	const char *op;
	__u64 a, b, c;
	long ret;
};

struct region {
	void *addr;
	size_t len;
};

struct thr {
	int idx;
	pthread_t tid;
	__u64 rng;
	struct op_rec ring[RING];
	unsigned int pos;
	unsigned long calls;
	pid_t os_tid;
	const char *volatile doing;	/* the op in progress, for the watchdog */
	volatile unsigned long ops;	/* ops begun, for the stuck-call check */
	unsigned char *arg;		/* ARG_AREA bytes, a guard page after */
	struct region maps[MAX_MAPS];	/* mmaps of module buffers */
	unsigned int nmaps;
	struct region user[MAX_USERMEM];	/* memory we pin */
	unsigned int nuser;
	size_t user_bytes;
	int fence_fd;		/* the last fence the module gave, or -1 */
	int export_fd;		/* the last dma-buf exported, or -1 */
};

struct ent {
	__u64 h, len, moff;
};

struct pool {
	pthread_mutex_t lock;
	struct ent e[POOL];
	unsigned int n;
};

static struct {
	__u64 seed;
	unsigned int secs, nthreads;
	unsigned long max_calls;
	bool root_knobs, inject, stress, root, nobody;
	unsigned int avoid;
} opt = { .seed = 1, .secs = 10, .nthreads = 4 };

static int g_fd = -1;			/* the shared context */
static int g_vfd = -1;			/* closed and reopened under us */
static struct retire_info g_info;
/* the null engine's id, which runs inline (the fast lane); U32_MAX: none */
static __u32 g_null_id = ~0U;
static struct pool g_bufs, g_reqs, g_terms, g_tokens;
static volatile int g_stop;
static int g_failed;
static unsigned long g_calls, g_admitted, g_refused;
static bool g_lowered;			/* a limit was lowered (AVOID_RAISE) */
static pthread_mutex_t g_fail_lock = PTHREAD_MUTEX_INITIALIZER;
static struct thr g_thr[MAX_THREADS];
static __thread struct thr *cur;
static void *g_none_page, *g_ro_page;	/* PROT_NONE and PROT_READ */
static __u64 g_start_ns, g_end_ns;

/* ---- the op ring and failures ------------------------------------------- */

static void ring_print(struct thr *t)
{
	unsigned int i, k;

	printf("fuzz: last %d operations of thread %d, oldest first:\n",
	       RING, t->idx);
	for (i = 0; i < RING; i++) {
		struct op_rec *o = &t->ring[(t->pos + i) % RING];

		if (!o->op)
			continue;
		k = o->ret < 0 && -o->ret < 4096;
		printf("  %-14s %#llx %#llx %#llx -> %ld%s%s\n", o->op,
		       (unsigned long long)o->a, (unsigned long long)o->b,
		       (unsigned long long)o->c, o->ret, k ? " " : "",
		       k ? strerror((int)-o->ret) : "");
	}
}

static void fail(struct thr *t, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&g_fail_lock);
	g_stop = 1;
	if (!g_failed) {
		g_failed = 1;
		printf("fuzz: FAIL seed=%llu thread=%d\n",
		       (unsigned long long)opt.seed, t ? t->idx : -1);
		printf("fuzz: ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		if (t)
			ring_print(t);
		fflush(stdout);
	}
	pthread_mutex_unlock(&g_fail_lock);
}

/* record one call and check its result against the errnos allowed */
static long note(struct thr *t, const char *op, __u64 a, __u64 b, __u64 c,
		 long ret, unsigned int allowed)
{
	struct op_rec *o = &t->ring[t->pos++ % RING];

	o->op = op;
	o->a = a;
	o->b = b;
	o->c = c;
	o->ret = ret;
	t->calls++;
	__atomic_add_fetch(&g_calls, 1, __ATOMIC_RELAXED);
	if (ret > 0)
		fail(t, "%s returned %ld, want 0 or -errno", op, ret);
	else if (ret < 0 && !errno_allowed((int)-ret, allowed))
		fail(t, "%s returned %ld (%s), not a documented errno", op,
		     ret, strerror((int)-ret));
	return ret;
}

/* a crash prints the ring of the thread that crashed */
static void on_crash(int sig)
{
	fail(cur, "signal %d (%s)", sig, strsignal(sig));
	_exit(1);
}

/* what main is doing, for the watchdog's report */
static const char *volatile g_phase = "setup";

static void cat(const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return;
	printf("  %s:\n", path);
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		printf("%s", buf);
	}
	printf("\n");
	close(fd);
}

/* where a task sleeps: its state, wait channel, syscall and kernel stack */
static void task_dump(pid_t tid)
{
	static const char *const f[] = { "stat", "wchan", "syscall", "stack" };
	char path[64];
	unsigned int i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", getpid(),
			 (int)tid, f[i]);
		cat(path);
	}
}

static void sysrq(char c)
{
	int fd = open("/proc/sysrq-trigger", O_WRONLY);

	if (fd < 0)
		return;
	if (write(fd, &c, 1) != 1)
		printf("fuzz: sysrq %c: %s\n", c, strerror(errno));
	close(fd);
}

/*
 * Where everybody is: each thread's last operations, the op it is in with
 * the first bytes of its argument, where its task sleeps in the kernel,
 * and the kernel's pending timers (a wait that never ends shows its
 * hrtimer there, or its absence); then the blocked tasks and every CPU's
 * stack on the console. Ends the run.
 */
static void stuck_report(void)
{
	int i, j;

	for (i = 0; i < (int)opt.nthreads; i++) {
		struct thr *t = &g_thr[i];
		const char *doing = t->doing;

		ring_print(t);
		printf("fuzz: thread %d (tid %d) is in op %s", t->idx,
		       (int)t->os_tid, doing ? doing : "(none)");
		if (doing && t->arg) {
			printf(", argument");
			for (j = 0; j < 64; j++)
				printf("%s%02x", j % 8 ? "" : " ", t->arg[j]);
		}
		printf("\n");
		if (t->os_tid)
			task_dump(t->os_tid);
	}
	task_dump(getpid());
	cat("/proc/timer_list");
	fflush(stdout);
	sysrq('w');
	sysrq('l');
	_exit(1);
}

/* the run overran its bound: somebody is stuck in the kernel */
static void on_watchdog(int sig)
{
	printf("fuzz: FAIL seed=%llu thread=-1\nfuzz: still %s %u s after the run's end (stuck call?)\n",
	       (unsigned long long)opt.seed, g_phase, opt.secs / 2 + 120);
	stuck_report();
}

/*
 * No call of the fuzzer's may take a minute: every wait it asks for is
 * a few milliseconds, a forked child is killed after 10 s and a reset
 * waits only for the jobs in flight. Called from main's loop.
 */
#define STUCK_SECS	60

static void check_stuck(__u64 now)
{
	static unsigned long seen[MAX_THREADS];
	static __u64 since[MAX_THREADS];
	int i;

	for (i = 0; i < (int)opt.nthreads; i++) {
		struct thr *t = &g_thr[i];
		unsigned long ops = t->ops;

		if (ops != seen[i] || !t->doing) {
			seen[i] = ops;
			since[i] = now;
			continue;
		}
		if (now - since[i] < STUCK_SECS * 1000000000ULL)
			continue;
		printf("fuzz: FAIL seed=%llu thread=%d\nfuzz: a call of op %s has not returned in %d s\n",
		       (unsigned long long)opt.seed, i, t->doing, STUCK_SECS);
		stuck_report();
	}
}

/* ---- randomness --------------------------------------------------------- */

static unsigned int rnd(struct thr *t, unsigned int n)
{
	return rt_rand(&t->rng, n);
}

static bool chance(struct thr *t, unsigned int one_in)
{
	return !rnd(t, one_in);
}

static __u64 rnd64(struct thr *t)
{
	return rt_xorshift64(&t->rng);
}

/* in stress mode nothing is mutated */
static bool mutate(struct thr *t, unsigned int one_in)
{
	return !opt.stress && chance(t, one_in);
}

/* ---- pools of harvested handles ----------------------------------------- */

static void pool_put(struct thr *t, struct pool *p, __u64 h, __u64 len,
		     __u64 moff)
{
	struct ent e = { h, len, moff };

	pthread_mutex_lock(&p->lock);
	if (p->n < POOL)
		p->e[p->n++] = e;
	else
		p->e[rnd(t, POOL)] = e;	/* forgotten: the close cleans up */
	pthread_mutex_unlock(&p->lock);
}

/* a random entry, taken out of the pool if @take */
static bool pool_get(struct thr *t, struct pool *p, bool take, struct ent *e)
{
	unsigned int i;
	bool ok = false;

	pthread_mutex_lock(&p->lock);
	if (p->n) {
		i = rnd(t, p->n);
		*e = p->e[i];
		if (take)
			p->e[i] = p->e[--p->n];
		ok = true;
	}
	pthread_mutex_unlock(&p->lock);
	return ok;
}

static void pool_del(struct pool *p, __u64 h)
{
	unsigned int i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->n; i++)
		if (p->e[i].h == h) {
			p->e[i] = p->e[--p->n];
			break;
		}
	pthread_mutex_unlock(&p->lock);
}

/* a handle that names nothing (or something else) half the time */
static __u64 mutate_handle(struct thr *t, __u64 h)
{
	switch (rnd(t, 8)) {
	case 0:
		return h ^ (1ULL << (56 + rnd(t, 8)));		/* kind */
	case 1:
		return h ^ (1ULL << (32 + rnd(t, 24)));		/* slot */
	case 2:
		return h + 1;					/* next gen */
	case 3:
		return h - 1;					/* previous */
	case 4:
		return h ^ (1ULL << rnd(t, 32));		/* any gen bit */
	case 5:
		return 0;
	case 6:
		return rnd64(t);
	default:
		return (h & ~0xffffffffULL) | 0xffffffffULL;	/* wrap */
	}
}

/* a handle of the pool, maybe mutated, or a forged one */
static __u64 pick_handle(struct thr *t, struct pool *p, bool take)
{
	struct ent e;

	if (!pool_get(t, p, take, &e))
		return chance(t, 2) ? rnd64(t) : 0;
	return mutate(t, 5) ? mutate_handle(t, e.h) : e.h;
}

/* ---- files -------------------------------------------------------------- */

/* the shared file mostly; sometimes the one being closed and reopened */
static int pick_fd(struct thr *t, unsigned int *allowed)
{
	int fd;

	if (!opt.stress && chance(t, 8)) {
		fd = __atomic_load_n(&g_vfd, __ATOMIC_ACQUIRE);
		if (fd >= 0) {
			*allowed |= M_VOL;
			return fd;
		}
	}
	return g_fd;
}

/* the argument, and an ioctl number whose size field may lie */
static unsigned long mk_cmd(struct thr *t, unsigned long cmd, size_t size)
{
	static const size_t sizes[] = { 0, 1, 8, 4096, 16383 };
	size_t s;

	if (!mutate(t, 12))
		return cmd;
	switch (rnd(t, 4)) {
	case 0:
		s = sizes[rnd(t, 5)];
		break;
	case 1:
		s = size - 8;
		break;
	default:
		s = size + 8 * (1 + rnd(t, 8));
		break;
	}
	/* a longer structure with a non-zero tail: -E2BIG */
	if (s > size && chance(t, 2))
		t->arg[size + rnd(t, s - size)] = 1 + rnd(t, 255);
	return _IOC(_IOC_READ | _IOC_WRITE, RETIRE_IOC_MAGIC, _IOC_NR(cmd), s);
}

/*
 * Whether @cmd, maybe mutated, is @want's call: a longer structure whose
 * tail is zero is the same call (retire_arg_copy_in()), and one that gives
 * fds gives them then too: they must be taken, or the process keeps them.
 */
static bool same_call(unsigned long cmd, unsigned long want)
{
	return _IOC_NR(cmd) == _IOC_NR(want) &&
	       _IOC_SIZE(cmd) >= _IOC_SIZE(want);
}

/* where the argument lives: the thread's area or a bad address */
static void *mk_ptr(struct thr *t, void *good)
{
	if (!mutate(t, 20))
		return good;
	switch (rnd(t, 6)) {
	case 0:
		return NULL;
	case 1:
		return (void *)1UL;
	case 2:
		return g_none_page;
	case 3:
		return g_ro_page;	/* readable: the copy-out fails */
	case 4:
		return (void *)0xffffffff81000000UL;	/* the kernel's */
	default:
		return t->arg + ARG_AREA - 8;	/* runs into the guard */
	}
}

/* zero the argument area: a mutated size reads past the structure */
static void *arg_clear(struct thr *t)
{
	memset(t->arg, 0, ARG_AREA);
	return t->arg;
}

static long do_ioctl(int fd, unsigned long cmd, void *arg)
{
	long r = ioctl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

/* a non-zero reserved field or an unknown flag, sometimes */
static void poke(struct thr *t, void *field, size_t size)
{
	if (mutate(t, 16))
		((unsigned char *)field)[rnd(t, size)] |= 1U << rnd(t, 8);
}

/* ---- records ------------------------------------------------------------ */

static void check_cqe(struct thr *t, const struct retire_cqe *c)
{
	bool bad = c->type < RETIRE_REC_TIMEOUT ||
		   c->type > RETIRE_REC_QUARANTINE ||
		   c->outcome < RETIRE_OUTCOME_COMPLETED ||
		   c->outcome > RETIRE_OUTCOME_RETIRED ||
		   (c->flags & ~RETIRE_CQE_F_ALL) || c->reserved ||
		   RETIRE_HANDLE_KIND(c->handle) != RETIRE_KIND_REQ ||
		   ((c->flags & (RETIRE_CQE_F_MEASURED |
				 RETIRE_CQE_F_RETIRED)) &&
		    c->type != RETIRE_REC_TERMINAL);

	if (bad)
		fail(t, "malformed record: type %u outcome %u flags %#x handle %#llx reserved %#llx",
		     c->type, c->outcome, c->flags,
		     (unsigned long long)c->handle,
		     (unsigned long long)c->reserved);
	if (c->type == RETIRE_REC_TERMINAL &&
	    !(c->flags & RETIRE_CQE_F_RETIRED))
		pool_put(t, &g_terms, c->handle, 0, 0);
	/* ONE_RECORD: a TERMINAL that says RETIRED is the last record */
	if (c->type == RETIRE_REC_RETIRED ||
	    c->flags & RETIRE_CQE_F_RETIRED) {
		pool_del(&g_terms, c->handle);
		pool_del(&g_reqs, c->handle);
	}
}

static void harvest(struct thr *t, const struct retire_cqe *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		check_cqe(t, &c[i]);
}

/* ---- the operations ----------------------------------------------------- */

static void op_info(struct thr *t)
{
	struct retire_info *in = arg_clear(t);
	unsigned int allowed = M_BASE;
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_GET_INFO, sizeof(*in));
	long ret;

	poke(t, &in->flags, sizeof(in->flags));
	poke(t, in->reserved, sizeof(in->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, in));
	note(t, "info", cmd, 0, 0, ret, allowed);
	if (!ret && cmd == RETIRE_IOC_GET_INFO &&
	    (in->abi_version != RETIRE_ABI_VERSION ||
	     memcmp(&in->caps, &g_info.caps, sizeof(in->caps))))
		fail(t, "GET_INFO changed: abi %u", in->abi_version);
}

/* a page count a guest can afford: mostly small */
static __u64 buf_len(struct thr *t)
{
	static const unsigned int pages[] = { 1, 1, 2, 3, 4, 8, 16, 64, 256 };

	return (__u64)pages[rnd(t, 9)] * RT_PAGE;
}

static __u64 bad_len(struct thr *t)
{
	static const __u64 lens[] = {
		0, 1, RT_PAGE - 1, RT_PAGE + 1, 3 * RT_PAGE / 2,
		128ULL << 20,				/* over the pool cap */
		1ULL << 40, ~0ULL, ~0ULL - RT_PAGE + 1, 1ULL << 63,
		(~0ULL) & ~(RT_PAGE - 1),
	};
	unsigned int n = sizeof(lens) / sizeof(lens[0]);
	unsigned int i = rnd(t, n);

	/* the huge ones trip a known module bug unless avoided */
	if ((opt.avoid & AVOID_HUGE) && i >= 5)
		return lens[rnd(t, 5)];
	return lens[i];
}

static void op_register(struct thr *t)
{
	struct retire_buf_reg *reg = arg_clear(t);
	unsigned int allowed = M_BASE | M(EDQUOT) | M(EMFILE) | M(ENOSPC) |
			       M(EAGAIN);
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_BUF_REGISTER, sizeof(*reg));
	long ret;

	reg->len = mutate(t, 8) ? bad_len(t) : buf_len(t);
	if (mutate(t, 16))
		reg->addr = rnd(t, 2) ? RT_PAGE : (unsigned long)t->arg;
	poke(t, &reg->flags, sizeof(reg->flags));
	poke(t, &reg->evicted, sizeof(reg->evicted));
	poke(t, reg->reserved, sizeof(reg->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, reg));
	note(t, "register", reg->len, reg->flags, reg->handle, ret, allowed);
	if (!ret && RETIRE_HANDLE_KIND(reg->handle) == RETIRE_KIND_BUF)
		pool_put(t, &g_bufs, reg->handle, reg->len, reg->mmap_offset);
}

/* memory to pin: anonymous pages of our own, kept until the end */
static void *user_mem(struct thr *t, size_t len)
{
	void *p;

	if (t->nuser == MAX_USERMEM || t->user_bytes + len > USERMEM_BUDGET)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0x5a, len);
	t->user[t->nuser++] = (struct region){ p, len };
	t->user_bytes += len;
	return p;
}

static void op_pin(struct thr *t)
{
	struct retire_buf_reg *reg = arg_clear(t);
	unsigned int allowed = M_BASE | M(EDQUOT) | M(EMFILE) | M(ENOSPC) |
			       M(EAGAIN);
	int fd = pick_fd(t, &allowed);
	__u64 len = buf_len(t);
	void *mem = user_mem(t, len);
	long ret;

	if (!mem)
		return;
	reg->flags = RETIRE_BUF_F_USER;
	reg->addr = (unsigned long)mem;
	reg->len = len;
	if (mutate(t, 6)) {
		switch (rnd(t, 6)) {
		case 0:
			reg->addr += 1 + rnd(t, RT_PAGE - 1);
			break;
		case 1:
			reg->addr = (unsigned long)g_none_page;
			reg->len = RT_PAGE;
			break;
		case 2:
			reg->addr = (unsigned long)g_ro_page;
			reg->len = RT_PAGE;
			break;
		case 3:
			reg->addr = 0xffffffff81000000ULL;
			break;
		case 4:
			reg->len += RT_PAGE * (1 + rnd(t, 4096)); /* past it */
			break;
		default:
			reg->len = bad_len(t);
			break;
		}
	}
	poke(t, &reg->flags, sizeof(reg->flags));
	poke(t, &reg->mmap_offset, sizeof(reg->mmap_offset));
	ret = do_ioctl(fd, RETIRE_IOC_BUF_REGISTER, reg);
	note(t, "pin", reg->addr, reg->len, reg->handle, ret, allowed);
	if (!ret) {
		pool_put(t, &g_bufs, reg->handle, reg->len, 0);
		return;
	}
	/* nothing pinned it: give the memory back at once */
	t->nuser--;
	t->user_bytes -= len;
	munmap(mem, len);
}

/* munmap pinned memory under the module, sometimes: pins hold the pages */
static void op_unmap_user(struct thr *t)
{
	struct region r;
	unsigned int i;

	if (!t->nuser)
		return;
	i = rnd(t, t->nuser);
	r = t->user[i];
	t->user[i] = t->user[--t->nuser];
	t->user_bytes -= r.len;
	note(t, "munmap-user", (unsigned long)r.addr, r.len, 0,
	     munmap(r.addr, r.len) ? -errno : 0, 0);
}

static void op_mmap(struct thr *t)
{
	/* ENOENT: an offset of a buffer that is gone (a stale handle) */
	unsigned int allowed = M(EINVAL) | M(ENOMEM) | M(EACCES) | M(EPERM) |
			       M(EOVERFLOW) | M(ENODEV) | M(ENXIO) | M(EAGAIN) |
			       M(ENOENT);
	int fd = pick_fd(t, &allowed);
	size_t len;
	off_t off;
	int flags = MAP_SHARED;
	struct ent e;
	void *p;

	if (t->nmaps == MAX_MAPS || !pool_get(t, &g_bufs, false, &e) ||
	    !e.moff)
		return;
	len = e.len;
	off = (off_t)e.moff;
	if (mutate(t, 5)) {
		switch (rnd(t, 5)) {
		case 0:
			len += RT_PAGE;
			break;
		case 1:
			off += RT_PAGE;
			break;
		case 2:
			flags = MAP_PRIVATE;
			break;
		case 3:
			off = (off_t)(rnd64(t) & ~(RT_PAGE - 1) & LLONG_MAX);
			break;
		default:
			off -= RT_PAGE;
			break;
		}
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, off);
	note(t, "mmap", e.h, len, (__u64)off, p == MAP_FAILED ? -errno : 0,
	     allowed);
	if (p == MAP_FAILED)
		return;
	if (flags != MAP_SHARED)
		fail(t, "mmap(MAP_PRIVATE) of a module buffer succeeded");
	/* the mapping keeps its pages even if the buffer goes: touch them */
	((volatile unsigned char *)p)[0] = 0xa5;
	((volatile unsigned char *)p)[len - 1] ^= 1;
	t->maps[t->nmaps++] = (struct region){ p, len };
}

static void op_munmap(struct thr *t)
{
	struct region r;
	unsigned int i;

	if (!t->nmaps)
		return;
	i = rnd(t, t->nmaps);
	r = t->maps[i];
	t->maps[i] = t->maps[--t->nmaps];
	((volatile unsigned char *)r.addr)[r.len / 2] ^= 0xff;
	note(t, "munmap", (unsigned long)r.addr, r.len, 0,
	     munmap(r.addr, r.len) ? -errno : 0, 0);
}

static void op_handle_cmd(struct thr *t, const char *name, unsigned long c,
			  struct pool *p, bool take, unsigned int allowed)
{
	struct retire_handle_arg *h = arg_clear(t);
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, c, sizeof(*h));
	long ret;

	h->handle = pick_handle(t, p, take);
	poke(t, &h->flags, sizeof(h->flags));
	poke(t, &h->pad, sizeof(h->pad));
	poke(t, h->reserved, sizeof(h->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, h));
	note(t, name, h->handle, cmd, 0, ret, allowed);
	if (ret == -EBUSY && take)
		pool_put(t, p, h->handle, 0, 0);	/* still registered */
}

static void op_unregister(struct thr *t)
{
	op_handle_cmd(t, "unregister", RETIRE_IOC_BUF_UNREGISTER, &g_bufs,
		      chance(t, 2), M_BASE | M(EBUSY) | M(ENOENT));
}

static void op_cancel(struct thr *t)
{
	op_handle_cmd(t, "cancel", RETIRE_IOC_CANCEL,
		      chance(t, 2) ? &g_reqs : &g_terms, false,
		      M_BASE | M(ENOENT) | M(EALREADY));
}

static void op_retire(struct thr *t)
{
	op_handle_cmd(t, "retire", RETIRE_IOC_RETIRE,
		      chance(t, 4) ? &g_reqs : &g_terms, false,
		      M_BASE | M(EBUSY) | M(EALREADY) | M(ENOENT));
}

static void fill_sqe(struct thr *t, struct retire_sqe *s)
{
	struct ent e = { 0 };

	if (!pool_get(t, &g_bufs, false, &e))
		e.h = rnd64(t);
	s->user_data = rnd64(t);
	s->buf = mutate(t, 10) ? mutate_handle(t, e.h) : e.h;
	s->len = e.len ? 1 + rnd(t, (unsigned int)e.len) : RT_PAGE;
	s->offset = e.len > s->len ? rnd(t, (unsigned int)(e.len - s->len) + 1) : 0;
	s->deadline_ns = chance(t, 3) ? 1 + rnd(t, 50) * RT_MS : 0;
	s->key = rnd(t, 8);
	s->dev_flags = 1 + rnd(t, 3);
	if (mutate(t, 6)) {
		switch (rnd(t, 7)) {
		case 0:
			s->len = 0;
			break;
		case 1:
			s->offset = e.len;
			break;
		case 2:
			s->offset = ~0ULL - 1;
			s->len = 2;		/* offset + len wraps */
			break;
		case 3:
			s->len = e.len + 1;
			break;
		case 4:
			s->dev_flags = rnd(t, 2) ? 0 : 1U << (2 + rnd(t, 30));
			break;
		case 5:
			s->deadline_ns = 1;
			break;
		default:
			s->key = rnd64(t);
			break;
		}
	}
	/* fences: one out now and then, in from the last one given */
	if (chance(t, 16))
		s->flags |= RETIRE_SQE_F_OUT_FENCE;
	if (chance(t, 16)) {
		s->flags |= RETIRE_SQE_F_IN_FENCE;
		s->in_fence = chance(t, 4) ? (int)rnd(t, 64) - 1 : t->fence_fd;
	}
	poke(t, &s->flags, sizeof(s->flags));
	poke(t, &s->pad, sizeof(s->pad));
	poke(t, &s->result, sizeof(s->result));
	poke(t, s->reserved, sizeof(s->reserved));
}

/* did an operation's non-negative result give a sync_file fd? */
static bool gives_fd(__u32 opcode, __u32 flags, int result)
{
	return result >= 0 &&
	       (opcode == RETIRE_OP_FENCE ||
		(opcode == RETIRE_OP_SUBMIT && flags & RETIRE_SQE_F_OUT_FENCE));
}

/*
 * A fence fd the module gave must be a sync_file of one fence; it is kept
 * as this thread's next in-fence, the one before it closed.
 */
static void fence_fd(struct thr *t, int fd)
{
	struct sync_file_info info;

	memset(&info, 0, sizeof(info));
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info) || info.num_fences != 1)
		fail(t, "fd %d the module gave is no sync_file of one fence",
		     fd);
	if (t->fence_fd >= 0)
		close(t->fence_fd);
	t->fence_fd = fd;
}

static void submit_results(struct thr *t, struct retire_sqe *sq,
			   unsigned int nr, unsigned int submitted)
{
	unsigned int i, ok = 0;

	for (i = 0; i < nr; i++) {
		if (gives_fd(RETIRE_OP_SUBMIT, sq[i].flags, sq[i].result))
			fence_fd(t, sq[i].result);
		if (sq[i].result >= 0 &&
		    (!sq[i].result || sq[i].flags & RETIRE_SQE_F_OUT_FENCE)) {
			ok++;
			pool_put(t, &g_reqs, sq[i].handle, 0, 0);
			continue;
		}
		if (sq[i].result > 0 ||
		    !errno_allowed(-sq[i].result, M_SQE))
			fail(t, "SUBMIT entry %u result %d", i, sq[i].result);
	}
	if (ok != submitted)
		fail(t, "SUBMIT said %u admitted, its entries %u", submitted,
		     ok);
	__atomic_add_fetch(&g_admitted, ok, __ATOMIC_RELAXED);
	__atomic_add_fetch(&g_refused, nr - ok, __ATOMIC_RELAXED);
}

static void op_submit(struct thr *t)
{
	struct retire_submit *sub = arg_clear(t);
	/* the sqes live in the same area, after the argument */
	struct retire_sqe *sq = (struct retire_sqe *)(t->arg + 256);
	unsigned int allowed = M_BASE;
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_SUBMIT, sizeof(*sub));
	unsigned int nr = 1 + rnd(t, 8), i;
	long ret;

	for (i = 0; i < nr; i++)
		fill_sqe(t, &sq[i]);
	sub->sqes = (unsigned long)sq;
	sub->nr = nr;
	if (mutate(t, 10)) {
		switch (rnd(t, 4)) {
		case 0:
			sub->nr = rnd(t, 2) ? 0 : RETIRE_SUBMIT_MAX + 1;
			break;
		case 1:
			sub->sqes = (unsigned long)mk_ptr(t, NULL);
			break;
		case 2:
			sub->sqes = (unsigned long)g_ro_page;
			break;
		default:	/* the array runs into the guard page */
			sub->nr = RETIRE_SUBMIT_MAX;
			break;
		}
	}
	poke(t, &sub->flags, sizeof(sub->flags));
	poke(t, &sub->submitted, sizeof(sub->submitted));
	poke(t, sub->reserved, sizeof(sub->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, sub));
	note(t, "submit", sub->nr, sub->sqes, sub->submitted, ret, allowed);
	if (!ret && same_call(cmd, RETIRE_IOC_SUBMIT) && sub->sqes == (unsigned long)sq)
		submit_results(t, sq, sub->nr, sub->submitted);
}

static void op_token(struct thr *t)
{
	struct retire_token_op *op = arg_clear(t);
	unsigned int allowed = M_BASE | M(ENOENT) | M(EBUSY) |
			       M(ETOOMANYREFS) | M(EALREADY);
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_TOKEN, sizeof(*op));
	long ret;

	op->op = 1 + rnd(t, 3);
	if (op->op == RETIRE_TOKEN_BORROW)
		op->handle = pick_handle(t, chance(t, 4) ? &g_reqs : &g_terms,
					 false);
	else
		op->handle = pick_handle(t, &g_tokens,
					 op->op == RETIRE_TOKEN_RETURN);
	if (op->op == RETIRE_TOKEN_RETURN && chance(t, 4))
		op->error = -(int)(1 + rnd(t, 130));
	if (mutate(t, 10)) {
		switch (rnd(t, 3)) {
		case 0:
			op->op = rnd(t, 2) ? 0 : 4 + rnd(t, 100);
			break;
		case 1:
			op->error = rnd(t, 2) ? 1 + rnd(t, 100) : -5000;
			break;
		default:
			op->token = rnd64(t);
			break;
		}
	}
	poke(t, &op->flags, sizeof(op->flags));
	poke(t, &op->pad, sizeof(op->pad));
	poke(t, op->reserved, sizeof(op->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, op));
	note(t, "token", op->op, op->handle, op->token, ret, allowed);
	if (ret || cmd != RETIRE_IOC_TOKEN)
		return;
	if (op->op == RETIRE_TOKEN_BORROW || op->op == RETIRE_TOKEN_HANDOFF)
		pool_put(t, &g_tokens, op->token, 0, 0);
	if (op->op == RETIRE_TOKEN_HANDOFF)
		pool_del(&g_tokens, op->handle);
}

static void op_reap(struct thr *t)
{
	struct retire_reap *rp = arg_clear(t);
	struct retire_cqe *c = (struct retire_cqe *)(t->arg + 256);
	unsigned int allowed = M_BASE | M(EINTR);
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_REAP, sizeof(*rp));
	long ret;

	rp->cqes = (unsigned long)c;
	rp->nr = 1 + rnd(t, 64);
	rp->min_complete = rnd(t, rp->nr + 1);
	/* short waits only: a thread must notice the stop flag */
	rp->timeout_ns = rnd(t, 3) * RT_MS;
	if (rp->timeout_ns && chance(t, 4))
		rp->flags = RETIRE_REAP_F_WAIT_FOREVER;	/* bounded anyway */
	if (mutate(t, 10)) {
		switch (rnd(t, 4)) {
		case 0:
			rp->nr = rnd(t, 2) ? 0 : RETIRE_SUBMIT_MAX + 1;
			break;
		case 1:
			rp->min_complete = rp->nr + 1;
			break;
		case 2:
			rp->cqes = (unsigned long)mk_ptr(t, NULL);
			break;
		default:
			rp->cqes = (unsigned long)g_ro_page;
			break;
		}
	}
	if (mutate(t, 16) && rp->timeout_ns)
		rp->flags |= 1U << rnd(t, 32);
	poke(t, &rp->reaped, sizeof(rp->reaped));
	poke(t, rp->reserved, sizeof(rp->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, rp));
	note(t, "reap", rp->nr, rp->min_complete, rp->reaped, ret, allowed);
	if (ret || cmd != RETIRE_IOC_REAP || rp->cqes != (unsigned long)c)
		return;
	if (rp->reaped > rp->nr)
		fail(t, "REAP returned %u records for %u", rp->reaped, rp->nr);
	else
		harvest(t, c, rp->reaped);
}

/*
 * One operation of an ENTER batch: any opcode, handles from the pools.
 * For the submission ring (@ring) none that makes an fd: other threads
 * rewrite its entries while it runs, so a result read back is no proof
 * of an fd to close.
 */
static void fill_op(struct thr *t, struct retire_op *o, bool ring)
{
	struct retire_sqe s;

	memset(o, 0, sizeof(*o));
	/* a cancel by match now and then: often, nothing would stay long */
	o->opcode = chance(t, 32) ? RETIRE_OP_CANCEL_MATCH :
		    chance(t, 16) && !ring ? RETIRE_OP_FENCE :
					     RETIRE_OP_SUBMIT + rnd(t, 6);
	switch (o->opcode) {
	case RETIRE_OP_CANCEL_MATCH:
		if (chance(t, 2)) {
			o->flags = RETIRE_CANCEL_F_KEY;
			o->key = rnd(t, 8);
		} else {
			o->flags = RETIRE_CANCEL_F_ANY;
		}
		break;
	case RETIRE_OP_SUBMIT:
		memset(&s, 0, sizeof(s));
		fill_sqe(t, &s);
		o->user_data = s.user_data;
		o->buf = s.buf;
		o->offset = s.offset;
		o->len = s.len;
		o->deadline_ns = s.deadline_ns;
		o->key = s.key;
		o->dev_flags = s.dev_flags;
		o->flags = chance(t, 2) ? RETIRE_SQE_F_AUTO_RETIRE : s.flags;
		if (ring) {
			o->flags &= ~RETIRE_SQE_F_OUT_FENCE;
			/* the fast lane's, where the engine runs inline */
			if (chance(t, 2)) {
				o->flags = RETIRE_SQE_F_AUTO_RETIRE |
					   RETIRE_SQE_F_ONE_RECORD;
				o->deadline_ns = 0;
			}
		}
		o->in_fence = s.in_fence;
		break;
	case RETIRE_OP_FENCE:
	case RETIRE_OP_CANCEL:
	case RETIRE_OP_RETIRE:
	case RETIRE_OP_BORROW:
		o->handle = pick_handle(t, chance(t, 4) ? &g_reqs : &g_terms,
					false);
		break;
	default:	/* RETURN, HANDOFF */
		o->handle = pick_handle(t, &g_tokens,
					o->opcode == RETIRE_OP_RETURN);
		if (o->opcode == RETIRE_OP_RETURN && chance(t, 4))
			o->error = -(int)(1 + rnd(t, 130));
		break;
	}
	if (mutate(t, 12)) {
		switch (rnd(t, 4)) {
		case 0:
			o->opcode = rnd(t, 2) ? 0 : RETIRE_OP_FENCE + 1 +
						     rnd(t, 100);
			break;
		case 1:
			o->error = rnd(t, 2) ? 1 + rnd(t, 100) : -5000;
			break;
		case 2:		/* a SUBMIT field on another opcode */
			o->len = 1 + rnd(t, 100);
			break;
		default:
			o->handle = rnd64(t);
			break;
		}
	}
	poke(t, &o->pad, sizeof(o->pad));
	poke(t, &o->result, sizeof(o->result));
}

/*
 * RETIRE_IOC_ENTER: a random batch of operations and a reap. Every
 * operation's result must be 0 or an errno its own ioctl may return; the
 * handles it returns join the pools, its records are checked as REAP's.
 */
static void op_enter(struct thr *t)
{
	struct retire_enter *e = arg_clear(t);
	struct retire_op *o = (struct retire_op *)(t->arg + 256);
	struct retire_cqe *c = (struct retire_cqe *)(t->arg + 4096);
	unsigned int allowed = M_BASE | M(EINTR);
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_ENTER, sizeof(*e));
	unsigned int nr = rnd(t, 17), i, ok = 0, subs = 0;
	const unsigned int res = M_SQE | M(EALREADY) | M(ETOOMANYREFS);
	long ret;

	for (i = 0; i < nr; i++)
		fill_op(t, &o[i], false);
	e->ops = (unsigned long)o;
	e->nr_ops = nr;
	e->cqes = (unsigned long)c;
	e->nr_cqes = rnd(t, 65);
	if (!nr && !e->nr_cqes)
		e->nr_cqes = 1;
	e->min_complete = rnd(t, e->nr_cqes + 1);
	e->timeout_ns = rnd(t, 3) * RT_MS;
	if (mutate(t, 10)) {
		switch (rnd(t, 5)) {
		case 0:
			e->nr_ops = RETIRE_SUBMIT_MAX + 1;
			break;
		case 1:
			e->min_complete = e->nr_cqes + 1;
			break;
		case 2:
			e->ops = (unsigned long)mk_ptr(t, NULL);
			break;
		case 3:
			e->cqes = (unsigned long)g_ro_page;
			break;
		default:	/* the array runs into the guard page */
			e->nr_ops = RETIRE_SUBMIT_MAX;
			break;
		}
	}
	if (mutate(t, 16) && e->timeout_ns)
		e->flags |= 1U << rnd(t, 32);
	poke(t, &e->done, sizeof(e->done));
	poke(t, &e->reaped, sizeof(e->reaped));
	poke(t, e->reserved, sizeof(e->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, e));
	note(t, "enter", e->nr_ops, e->nr_cqes, e->reaped, ret, allowed);
	if (ret || !same_call(cmd, RETIRE_IOC_ENTER) || e->ops != (unsigned long)o ||
	    e->cqes != (unsigned long)c)
		return;
	if (e->done != e->nr_ops || e->reaped > e->nr_cqes) {
		fail(t, "ENTER ran %u of %u operations, reaped %u of %u",
		     e->done, e->nr_ops, e->reaped, e->nr_cqes);
		return;
	}
	for (i = 0; i < e->done; i++) {
		if (gives_fd(o[i].opcode, o[i].flags, o[i].result)) {
			fence_fd(t, o[i].result);
			o[i].result = 0;
		}
		if (o[i].opcode == RETIRE_OP_SUBMIT) {
			subs++;
			ok += !o[i].result;
		}
		/* a cancel by match answers how many it found */
		if (o[i].opcode == RETIRE_OP_CANCEL_MATCH && o[i].result >= 0) {
			if (o[i].handle > (__u64)o[i].result)
				fail(t, "CANCEL_MATCH kept %llu of %d found",
				     (unsigned long long)o[i].handle,
				     o[i].result);
			continue;
		}
		if (o[i].result > 0 || (o[i].result &&
					!errno_allowed(-o[i].result, res))) {
			fail(t, "ENTER operation %u (opcode %u) result %d", i,
			     o[i].opcode, o[i].result);
			continue;
		}
		if (o[i].result)
			continue;
		if (o[i].opcode == RETIRE_OP_SUBMIT)
			pool_put(t, &g_reqs, o[i].handle, 0, 0);
		if (o[i].opcode == RETIRE_OP_BORROW ||
		    o[i].opcode == RETIRE_OP_HANDOFF)
			pool_put(t, &g_tokens, o[i].handle, 0, 0);
	}
	__atomic_add_fetch(&g_admitted, ok, __ATOMIC_RELAXED);
	__atomic_add_fetch(&g_refused, subs - ok, __ATOMIC_RELAXED);
	harvest(t, c, e->reaped);
}

/*
 * The shared context's rings, set up by the first ring op: entries are
 * queued and records read by whichever thread holds @lock; now and then
 * a thread that does not hold it scribbles on the entries, racing the
 * module reading them.
 */
static struct {
	pthread_mutex_t lock;
	struct retire_ring_setup s;
	unsigned char *map;
	__u32 sq_next, cq_next;
} g_ring = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __u32 *ring_u32(__u32 off)
{
	return (__u32 *)(g_ring.map + off);
}

/* the first call: bad sizes first, then the rings, mapped */
static bool ring_get(struct thr *t)
{
	struct retire_ring_setup *rs = arg_clear(t);
	unsigned int sizes[] = { 0, 3, 1U << 13, 1U << 31, 8, 64 };
	void *m;
	long ret;

	if (g_ring.map)
		return true;
	rs->sq_entries = sizes[rnd(t, 6)];
	rs->cq_entries = sizes[rnd(t, 6)];
	if (mutate(t, 8))
		poke(t, &rs->flags, sizeof(rs->flags));
	ret = do_ioctl(g_fd, RETIRE_IOC_RING_SETUP, rs);
	note(t, "ring-setup", rs->sq_entries, rs->cq_entries, 0, ret,
	     M_BASE | M(EBUSY));
	if (ret)
		return false;
	m = mmap(NULL, rs->size, PROT_READ | PROT_WRITE, MAP_SHARED, g_fd,
		 RETIRE_RING_OFFSET);
	note(t, "ring-mmap", rs->size, 0, 0, m == MAP_FAILED ? -errno : 0,
	     M(ENOMEM));
	if (m == MAP_FAILED)
		return false;
	g_ring.s = *rs;
	g_ring.map = m;
	g_ring.sq_next = __atomic_load_n(ring_u32(rs->off.sq_head),
					 __ATOMIC_ACQUIRE);
	g_ring.cq_next = __atomic_load_n(ring_u32(rs->off.cq_head),
					 __ATOMIC_ACQUIRE);
	return true;
}

/*
 * RETIRE_IOC_ENTER through the rings: random operations queued, now and
 * then indices out of bounds or an entry scribbled on after it was
 * queued, records read back as REAP's are checked. With the indices
 * bad, the call must refuse (-EINVAL) and the rings are put right.
 */
static void op_ring(struct thr *t)
{
	struct retire_enter *e;
	struct retire_ring_offsets *o;
	struct retire_op *sq;
	struct retire_cqe *cq;
	unsigned int allowed = M(EINTR), nr, i, k;
	__u32 sq_mask, cq_mask, tail;
	bool bad = false;
	long ret;

	pthread_mutex_lock(&g_ring.lock);
	if (!ring_get(t)) {
		pthread_mutex_unlock(&g_ring.lock);
		return;
	}
	o = &g_ring.s.off;
	sq = (struct retire_op *)(g_ring.map + o->sqes);
	cq = (struct retire_cqe *)(g_ring.map + o->cqes);
	sq_mask = g_ring.s.sq_entries - 1;
	cq_mask = g_ring.s.cq_entries - 1;
	if (chance(t, 8)) {
		/* unlocked: entries change under whoever is entering */
		pthread_mutex_unlock(&g_ring.lock);
		for (i = rnd(t, 8); i; i--)
			fill_op(t, &sq[rnd(t, sq_mask + 1)], true);
		return;
	}

	k = rnd(t, g_ring.s.sq_entries + 1);
	for (i = 0; i < k; i++)
		fill_op(t, &sq[g_ring.sq_next++ & sq_mask], true);
	if (mutate(t, 12)) {
		switch (rnd(t, 3)) {
		case 0:		/* more queued than the ring holds */
			g_ring.sq_next += g_ring.s.sq_entries + 1 +
					  rnd(t, 1U << 20);
			bad = true;
			break;
		case 1:		/* a head the module never wrote */
			__atomic_store_n(ring_u32(o->cq_head),
					 g_ring.cq_next - g_ring.s.cq_entries -
					 1 - rnd(t, 100), __ATOMIC_RELEASE);
			bad = true;
			break;
		default:	/* an entry changed after it was queued */
			fill_op(t, &sq[(g_ring.sq_next - 1) & sq_mask], true);
			break;
		}
	}
	__atomic_store_n(ring_u32(o->sq_tail), g_ring.sq_next,
			 __ATOMIC_RELEASE);
	e = arg_clear(t);
	nr = rnd(t, g_ring.s.sq_entries + 4);
	e->flags = RETIRE_ENTER_F_RINGS;
	e->nr_ops = nr;
	e->min_complete = rnd(t, g_ring.s.cq_entries + 1);
	e->timeout_ns = rnd(t, 3) * RT_MS;
	if (mutate(t, 16))
		e->min_complete = g_ring.s.cq_entries + 1;
	ret = do_ioctl(g_fd, RETIRE_IOC_ENTER, e);
	if (bad || e->min_complete > g_ring.s.cq_entries)
		allowed |= M(EINVAL);
	note(t, "ring-enter", nr, e->done, e->reaped, ret, allowed);
	if (bad && !ret)
		fail(t, "ENTER ran %u operations of rings out of bounds",
		     e->done);
	if (!ret && !bad) {
		/* what ran: the module's sq_head says how far */
		for (i = 0; i < e->done; i++) {
			struct retire_op *op =
				&sq[(__atomic_load_n(ring_u32(o->sq_head),
						     __ATOMIC_ACQUIRE) -
				     e->done + i) & sq_mask];

			if (!op->result && op->opcode == RETIRE_OP_SUBMIT)
				pool_put(t, &g_reqs, op->handle, 0, 0);
			if (!op->result && (op->opcode == RETIRE_OP_BORROW ||
					    op->opcode == RETIRE_OP_HANDOFF))
				pool_put(t, &g_tokens, op->handle, 0, 0);
		}
	}
	/* read what the ring holds; put bad indices right */
	tail = __atomic_load_n(ring_u32(o->cq_tail), __ATOMIC_ACQUIRE);
	if (tail - g_ring.cq_next > g_ring.s.cq_entries)
		g_ring.cq_next = tail;
	for (; g_ring.cq_next != tail; g_ring.cq_next++)
		harvest(t, &cq[g_ring.cq_next & cq_mask], 1);
	__atomic_store_n(ring_u32(o->cq_head), g_ring.cq_next,
			 __ATOMIC_RELEASE);
	/* what was not run is dropped: the next op queues from the head */
	g_ring.sq_next = __atomic_load_n(ring_u32(o->sq_head),
					 __ATOMIC_ACQUIRE);
	pthread_mutex_unlock(&g_ring.lock);
}

/*
 * RETIRE_IOC_ENGINES and RETIRE_IOC_CONTEXT: the list into arrays of any
 * size or none, the context moved to engines that exist and do not, busy
 * or not: the sim must stay listed first, and a move must refuse
 * whatever it cannot do.
 */
static void op_engine(struct thr *t)
{
	struct retire_engines_arg *ea = arg_clear(t);
	struct retire_engine_info *e = (struct retire_engine_info *)(t->arg + 256);
	unsigned int allowed = M_BASE;
	int fd = pick_fd(t, &allowed);
	unsigned int room;
	long ret;

	if (chance(t, 2)) {
		ea->engines = (unsigned long)e;
		ea->nr = rnd(t, 5);
		if (mutate(t, 8))
			ea->engines = (unsigned long)mk_ptr(t, NULL);
		if (mutate(t, 16))
			ea->flags = 1U << rnd(t, 32);
		poke(t, ea->reserved, sizeof(ea->reserved));
		room = ea->nr;
		ret = do_ioctl(fd, RETIRE_IOC_ENGINES, mk_ptr(t, ea));
		note(t, "engines", room, ea->nr, 0, ret, allowed);
		/* nr comes back as the count: what was written is min(room, it) */
		if (!ret && ea->engines == (unsigned long)e && room && ea->nr &&
		    (e->id != RETIRE_ENGINE_SIM || strcmp(e->name, "sim")))
			fail(t, "the first engine listed is %u \"%.16s\"",
			     e->id, e->name);
	} else {
		struct retire_context_arg *ca = arg_clear(t);

		ca->op = rnd(t, 2) ? RETIRE_CONTEXT_SET : RETIRE_CONTEXT_GET;
		ca->engine = chance(t, 2) ? RETIRE_ENGINE_SIM :
			     chance(t, 2) ? g_null_id : (unsigned int)rnd64(t);
		if (mutate(t, 12))
			ca->op = 2 + rnd(t, 100);
		poke(t, &ca->flags, sizeof(ca->flags));
		poke(t, &ca->pad, sizeof(ca->pad));
		poke(t, &ca->ctx_id, sizeof(ca->ctx_id));
		poke(t, &ca->reserved, sizeof(ca->reserved));
		ret = do_ioctl(fd, RETIRE_IOC_CONTEXT, mk_ptr(t, ca));
		note(t, "context", ca->op, ca->engine, 0, ret,
		     allowed | M(ENOENT) | M(EBUSY));
	}
}

/*
 * A context's history, its own or another's by id (ids near the newest,
 * or anything), and now and then the debugfs files that show the same
 * contexts while other threads change them.
 */
static void op_history(struct thr *t)
{
	struct retire_history_arg *a = arg_clear(t);
	struct retire_history_event *ev =
		(struct retire_history_event *)(t->arg + 256);
	unsigned int allowed = M_BASE | M(ENOENT) | M(EPERM);
	int fd = pick_fd(t, &allowed);
	char path[96], buf[4096];
	unsigned int room;
	long ret;
	int dfd;

	if (chance(t, 8)) {
		if (chance(t, 2))
			snprintf(path, sizeof(path), "/sys/kernel/debug/retire/module");
		else
			snprintf(path, sizeof(path),
				 "/sys/kernel/debug/retire/%u/%s",
				 1 + rnd(t, 64), chance(t, 3) ? "requests" :
				 chance(t, 2) ? "context" : "history");
		dfd = open(path, O_RDONLY);
		if (dfd >= 0) {
			while (read(dfd, buf, sizeof(buf)) > 0)
				;
			close(dfd);
		}
		return;
	}
	a->events = (unsigned long)ev;
	/* more than the area holds is refused by the kernel's cap first */
	a->nr = rnd(t, (ARG_AREA - 256) / sizeof(*ev) + 1);
	a->ctx_id = chance(t, 2) ? 0 : chance(t, 2) ? 1 + rnd(t, 64) : rnd64(t);
	if (mutate(t, 8))
		a->events = (unsigned long)mk_ptr(t, NULL);
	if (mutate(t, 16))
		a->flags = 1U << rnd(t, 32);
	poke(t, &a->recorded, sizeof(a->recorded));
	poke(t, &a->dropped, sizeof(a->dropped));
	poke(t, a->reserved, sizeof(a->reserved));
	room = a->nr;
	ret = do_ioctl(fd, RETIRE_IOC_HISTORY, mk_ptr(t, a));
	note(t, "history", room, a->ctx_id, a->nr, ret, allowed);
	if (!ret && (a->nr > room || a->nr > RETIRE_HISTORY_LEN ||
		     a->nr > a->recorded ||
		     a->dropped != a->recorded -
		     (a->recorded < RETIRE_HISTORY_LEN ? a->recorded :
		      RETIRE_HISTORY_LEN)))
		fail(t, "history: room %u gave %u of %llu, %llu dropped", room,
		     a->nr, (unsigned long long)a->recorded,
		     (unsigned long long)a->dropped);
}

static void op_read(struct thr *t)
{
	struct retire_cqe *c = (struct retire_cqe *)t->arg;
	unsigned int allowed = M(EAGAIN) | M(EINVAL) | M(EFAULT) | M(EINTR);
	int fd = pick_fd(t, &allowed);
	size_t count = sizeof(*c) * (1 + rnd(t, 32));
	void *buf = c;
	ssize_t n;

	if (mutate(t, 8)) {
		switch (rnd(t, 4)) {
		case 0:
			count = rnd(t, sizeof(*c));
			break;
		case 1:
			buf = mk_ptr(t, NULL);
			break;
		case 2:
			buf = g_ro_page;
			break;
		default:	/* more room claimed than the area has */
			count = ARG_AREA + RT_PAGE * 4;
			break;
		}
	}
	/* the shared file is O_NONBLOCK: read() never waits */
	n = read(fd, buf, count);
	if (n > 0 && (n % sizeof(*c) || (size_t)n > count)) {
		fail(t, "read(%zu) returned %zd", count, n);
		return;
	}
	note(t, "read", count, (unsigned long)buf, 0, n < 0 ? -errno : 0,
	     allowed);
	if (n > 0 && buf == c)
		harvest(t, c, n / sizeof(*c));
}

static void op_poll(struct thr *t)
{
	unsigned int allowed = M(EINTR) | M(ENOMEM);
	struct pollfd p = { .fd = pick_fd(t, &allowed), .events = POLLIN };
	int n = poll(&p, 1, rnd(t, 3));

	note(t, "poll", p.fd, n, p.revents, n < 0 ? -errno : 0, allowed);
	if (n > 0 && (p.revents & ~(POLLIN | POLLRDNORM | POLLNVAL)))
		fail(t, "poll revents %#x", p.revents);
}

static void op_stats(struct thr *t)
{
	struct retire_stats_arg *a = arg_clear(t);
	void *st = t->arg + 256;
	unsigned int allowed = M_BASE;
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_GET_STATS, sizeof(*a));
	long ret;

	a->stats = (unsigned long)st;
	a->size = sizeof(struct retire_stats);
	a->flags = rnd(t, 2) ? RETIRE_STATS_F_MODULE : 0;
	if (mutate(t, 6)) {
		switch (rnd(t, 4)) {
		case 0:
			a->size = rnd(t, 2) ? 0 : 1 + rnd(t, 64);
			break;
		case 1:	/* bigger: zeroed tail, into the guard page */
			a->size = sizeof(struct retire_stats) + rnd(t, 20000);
			break;
		case 2:
			a->stats = (unsigned long)mk_ptr(t, NULL);
			break;
		default:
			a->stats = (unsigned long)g_ro_page;
			break;
		}
	}
	poke(t, &a->flags, sizeof(a->flags));
	poke(t, a->reserved, sizeof(a->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, a));
	note(t, "stats", a->flags, a->size, a->stats, ret, allowed);
}

/* a limit in [1, cap], mostly near one end or the other */
static __u64 lim(struct thr *t, __u64 cap, __u64 lo)
{
	switch (rnd(t, 4)) {
	case 0:
		return cap;
	case 1:
		return lo + rnd(t, 16) < cap ? lo + rnd(t, 16) : cap;
	default:
		return lo + rt_xorshift64(&t->rng) % (cap - lo + 1);
	}
}

/*
 * New limits for the shared context. Never above a cap (max_active in
 * particular); watchdog_ns stays long unless the engine can be reset, or
 * the run is nobody's: down to half the unprivileged floor then, so that
 * requests are quarantined and the floor itself is tried (-EPERM).
 */
static void new_limits(struct thr *t, const struct retire_limits *c,
		       const struct retire_limits *now, struct retire_limits *l)
{
	__u64 wd_lo = opt.root_knobs ? RT_MS :
		      opt.nobody ? RETIRE_WATCHDOG_MIN_NS / 2 :
		      c->watchdog_ns / 2;

	l->max_unretired = lim(t, c->max_unretired, 1);
	l->max_active = lim(t, c->max_active, 1);
	l->max_active_per_key = lim(t, l->max_active < c->max_active_per_key ?
				       l->max_active : c->max_active_per_key, 1);
	l->max_waiting = lim(t, c->max_waiting, 1);
	l->max_tokens = lim(t, c->max_tokens, 1);
	l->max_buffers = lim(t, c->max_buffers, 1);
	l->max_reserved_bytes = lim(t, c->max_reserved_bytes, 1);
	l->max_pinned_bytes = lim(t, c->max_pinned_bytes, 0);
	l->max_pool_bytes = lim(t, c->max_pool_bytes, 1);
	l->watchdog_ns = lim(t, c->watchdog_ns, wd_lo);
	/* nobody's slow device (run_as_nobody) outlives these */
	if (opt.nobody && chance(t, 2))
		l->watchdog_ns = RETIRE_WATCHDOG_MIN_NS + rnd(t, 100) * RT_MS;
	if (!(opt.avoid & AVOID_RAISE) || !g_lowered)
		return;
	/* the known close() hang needs a raise after a lowering: none */
#define NOT_UP(f) do { if (l->f > now->f) l->f = now->f; } while (0)
	NOT_UP(max_unretired);
	NOT_UP(max_active);
	NOT_UP(max_active_per_key);
	NOT_UP(max_waiting);
	NOT_UP(max_tokens);
	NOT_UP(max_buffers);
	NOT_UP(max_reserved_bytes);
	NOT_UP(max_pinned_bytes);
	NOT_UP(max_pool_bytes);
	NOT_UP(watchdog_ns);
#undef NOT_UP
}

static void op_limits(struct thr *t)
{
	struct retire_limits_arg *a = arg_clear(t);
	struct retire_limits now;
	/* EPERM: a short watchdog without CAP_SYS_ADMIN */
	unsigned int allowed = M_BASE | M(EBUSY) | M(EPERM);
	int fd = g_fd;
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_LIMITS, sizeof(*a));
	long ret;

	a->op = RETIRE_LIMITS_GET;
	ret = do_ioctl(fd, RETIRE_IOC_LIMITS, a);
	note(t, "limits-get", 0, 0, 0, ret, allowed);
	if (ret)
		return;
	now = a->limits;
	if (chance(t, 2) && (opt.root_knobs || opt.stress || !opt.root ||
			     chance(t, 4))) {
		a->op = RETIRE_LIMITS_SET;
		new_limits(t, &g_info.caps, &now, &a->limits);
		if (mutate(t, 6)) {	/* refused: zero or over a cap */
			__u32 *f = (__u32 *)&a->limits + rnd(t, 6);

			*f = rnd(t, 2) ? 0 : *f + 1;
			if (f == &a->limits.max_active)
				*f = 0;	/* never above its cap */
		}
	}
	if (mutate(t, 16))
		a->op = 2 + rnd(t, 100);
	poke(t, &a->flags, sizeof(a->flags));
	poke(t, a->reserved, sizeof(a->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, a));
	note(t, a->op == RETIRE_LIMITS_SET ? "limits-set" : "limits",
	     a->limits.max_active, a->limits.watchdog_ns,
	     a->limits.max_pool_bytes, ret, allowed);
	if (!ret && a->op == RETIRE_LIMITS_SET &&
	    memcmp(&a->limits, &now, sizeof(now)))
		__atomic_store_n(&g_lowered, true, __ATOMIC_RELAXED);
}

/*
 * RETIRE_IOC_BUF_EXPORT: a range of a pooled buffer as a dma-buf, its first
 * byte read through a mapping; the thread keeps the last one open, so
 * that unregistration and eviction meet exported buffers.
 */
static void op_export(struct thr *t)
{
	struct retire_buf_export *e = arg_clear(t);
	unsigned int allowed = M_BASE | M(ENOENT) | M(EMFILE);
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_BUF_EXPORT, sizeof(*e));
	struct ent b = { 0 };
	volatile unsigned char *p;
	long ret;

	if (!pool_get(t, &g_bufs, false, &b))
		b.h = rnd64(t);
	e->buf = mutate(t, 10) ? mutate_handle(t, b.h) : b.h;
	e->len = RT_PAGE;
	if (b.len > RT_PAGE)
		e->offset = rnd(t, (unsigned int)(b.len / RT_PAGE)) * RT_PAGE;
	if (mutate(t, 6))
		e->offset += chance(t, 2) ? 1 : b.len;
	poke(t, &e->flags, sizeof(e->flags));
	poke(t, &e->fd, sizeof(e->fd));
	poke(t, e->reserved, sizeof(e->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, e));
	note(t, "export", e->buf, e->offset, e->fd, ret, allowed);
	if (ret || !same_call(cmd, RETIRE_IOC_BUF_EXPORT))
		return;
	p = mmap(NULL, RT_PAGE, PROT_READ, MAP_SHARED, e->fd, 0);
	if (p == MAP_FAILED) {
		fail(t, "a dma-buf the module exported does not map: %s",
		     strerror(errno));
	} else {
		(void)p[0];
		munmap((void *)p, RT_PAGE);
	}
	if (t->export_fd >= 0)
		close(t->export_fd);
	t->export_fd = e->fd;
}

/*
 * RETIRE_IOC_BUF_IMPORT of the thread's last export (another context's,
 * or its own), or of a mutated fd: the buffer joins the pool like a pinned
 * one (neither mapped nor exported through the module), so that requests,
 * unregistration, engine changes and closes meet imports. -EBUSY: the
 * buffer's pages are mapped already (another export of it imported, or
 * a request of its own on edu).
 */
static void op_import(struct thr *t)
{
	struct retire_buf_import *a = arg_clear(t);
	unsigned int allowed = M_BASE | M(EBADF) | M(EDQUOT) | M(EMFILE) |
			       M(ENODEV) | M(EOPNOTSUPP) | M(EBUSY);
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_BUF_IMPORT, sizeof(*a));
	long ret;

	a->fd = t->export_fd;
	if (a->fd < 0 || mutate(t, 8))
		a->fd = chance(t, 2) ? fd : (int)rnd(t, 64) - 1;
	poke(t, &a->flags, sizeof(a->flags));
	poke(t, a->reserved, sizeof(a->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, a));
	note(t, "import", a->fd, a->handle, a->len, ret, allowed);
	if (!ret && same_call(cmd, RETIRE_IOC_BUF_IMPORT))
		pool_put(t, &g_bufs, a->handle, a->len, 0);
}

/*
 * RETIRE_IOC_BUF_REVOKE of the thread's last export, under whatever
 * imports and requests other threads have on it, always with a bound (a
 * held sim would hold the thread): -ETIME is an answer, and so is -EBUSY.
 */
static void op_revoke(struct thr *t)
{
	struct retire_buf_revoke *a = arg_clear(t);
	unsigned int allowed = M_BASE | M(EBADF) | M(EBUSY) | M(ETIME) |
			       M(EINTR);
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_BUF_REVOKE, sizeof(*a));
	long ret;

	a->fd = t->export_fd;
	if (a->fd < 0 || mutate(t, 8))
		a->fd = (int)rnd(t, 64) - 1;
	a->timeout_ns = (1 + rnd(t, 20)) * RT_MS;
	poke(t, &a->flags, sizeof(a->flags));
	poke(t, &a->pad, sizeof(a->pad));
	poke(t, a->reserved, sizeof(a->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, a));
	note(t, "revoke", a->fd, a->timeout_ns, a->importers, ret, allowed);
}

/*
 * RETIRE_IOC_CANCEL_MATCH: a key's requests or all, rarely with a short
 * wait (-ETIME is an answer); kept never above found.
 */
static void op_cancel_match(struct thr *t)
{
	struct retire_cancel_match *m = arg_clear(t);
	unsigned int allowed = M_BASE | M(ETIME) | M(EINTR);
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_CANCEL_MATCH, sizeof(*m));
	long ret;

	if (chance(t, 2)) {
		m->flags = RETIRE_CANCEL_F_KEY;
		m->key = rnd(t, 8);
	} else {
		m->flags = RETIRE_CANCEL_F_ANY;
	}
	if (chance(t, 4)) {
		m->flags |= RETIRE_CANCEL_F_WAIT;
		m->timeout_ns = 1 + rnd(t, 3) * RT_MS;
	}
	if (mutate(t, 6)) {
		switch (rnd(t, 4)) {
		case 0:
			m->flags |= 1U << rnd(t, 32);
			break;
		case 1:
			m->key = rnd64(t);
			break;
		case 2:
			m->timeout_ns = 1 + rnd(t, 3) * RT_MS;
			break;
		default:
			m->flags = 0;
			break;
		}
	}
	poke(t, &m->found, sizeof(m->found));
	poke(t, &m->pending, sizeof(m->pending));
	poke(t, m->reserved, sizeof(m->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, m));
	note(t, "cancel_match", m->flags, m->key, m->found, ret, allowed);
	if ((!ret || ret == -ETIME) && cmd == RETIRE_IOC_CANCEL_MATCH &&
	    m->kept > m->found)
		fail(t, "CANCEL_MATCH kept %u of %u found", m->kept, m->found);
}

static void op_epoch(struct thr *t)
{
	struct retire_epoch_arg *a = arg_clear(t);
	unsigned int allowed = M_BASE | M(ENOSPC);
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_EPOCH, sizeof(*a));
	long ret;

	a->op = rnd(t, 3);
	/* a few more keys than a context tracks: -ENOSPC */
	a->key = a->op == RETIRE_EPOCH_REVOKE ? 0 : rnd(t, RETIRE_EPOCH_KEYS + 8);
	if (mutate(t, 8)) {
		switch (rnd(t, 4)) {
		case 0:
			a->op = 3 + rnd(t, 100);
			break;
		case 1:
			a->key = rnd64(t);
			break;
		case 2:
			a->epoch = 1;
			break;
		default:
			a->authority = rnd64(t);
			break;
		}
	}
	poke(t, &a->flags, sizeof(a->flags));
	poke(t, a->reserved, sizeof(a->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, a));
	note(t, "epoch", a->op, a->key, a->epoch, ret, allowed);
}

/* the engine's knobs, small: 0..5 ms latencies, occasionally a HANG */
static void sim_random(struct thr *t, struct retire_sim_config *c)
{
	static const __u64 bpt[] = { 0, 512, 4096, 65536 };

	memset(c, 0, sizeof(*c));
	c->op = RETIRE_SIM_SET;
	c->flags = rnd(t, 4) ? 0 : (rnd(t, 2) ? RETIRE_SIM_F_BLOCKED : 0) |
				   (rnd(t, 2) ? RETIRE_SIM_F_CANCEL_RUNNING : 0) |
				   (chance(t, 4) ? RETIRE_SIM_F_VIOLATE : 0) |
				   (chance(t, 2) ? RETIRE_SIM_F_INLINE : 0);
	if (chance(t, 10))
		c->flags |= RETIRE_SIM_F_HANG;
	c->latency_ns = rnd(t, 6) * RT_MS;
	c->tick_ns = rnd(t, 3) * RT_MS;
	c->bytes_per_tick = bpt[rnd(t, 4)];
	c->fail_every = chance(t, 3) ? 1 + rnd(t, 10) : 0;
	c->fail_submit_every = chance(t, 4) ? 1 + rnd(t, 10) : 0;
	c->seed = rnd64(t);
	c->finish_ns = chance(t, 3) ? rnd(t, 3) * RT_MS : 0;
	if (chance(t, 3)) {
		c->rate_bps = (1 + rnd(t, 100)) << 20;
		if (!c->bytes_per_tick && (opt.avoid & AVOID_BW0))
			c->bytes_per_tick = 4096;
		c->burst_bytes = c->bytes_per_tick + ((__u64)rnd(t, 64) << 12);
		if (!c->burst_bytes)
			c->burst_bytes = RT_PAGE;
	}
}

static void op_sim(struct thr *t)
{
	struct retire_sim_config *c = arg_clear(t);
	unsigned int allowed = M_BASE | M(EPERM);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_SIM_CONFIG, sizeof(*c));
	long ret;

	if (!opt.root_knobs || chance(t, 3)) {
		c->op = RETIRE_SIM_GET;		/* anybody may read */
	} else {
		sim_random(t, c);
		if (mutate(t, 6)) {
			switch (rnd(t, 4)) {
			case 0:
				c->flags |= 1U << (4 + rnd(t, 28));
				break;
			case 1:
				c->burst_bytes = (16ULL << 30) + 1;
				break;
			case 2:
				c->rate_bps = 1 << 20;
				c->burst_bytes = 0;
				break;
			default:
				c->rate_bps = 1 << 20;
				c->bytes_per_tick = 65536;
				c->burst_bytes = 4096;
				break;
			}
		}
	}
	if (mutate(t, 16))
		c->op = 2 + rnd(t, 100);
	poke(t, &c->reserved, sizeof(c->reserved));
	ret = do_ioctl(g_fd, cmd, mk_ptr(t, c));
	note(t, c->op == RETIRE_SIM_SET ? "sim-set" : "sim", c->flags,
	     c->latency_ns, c->rate_bps, ret, allowed);
}

static void op_reset(struct thr *t)
{
	struct retire_handle_arg *h = arg_clear(t);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_SIM_RESET, sizeof(*h));

	if (!opt.root_knobs)
		return;
	if (mutate(t, 6))
		h->handle = pick_handle(t, &g_reqs, false);
	poke(t, &h->flags, sizeof(h->flags));
	poke(t, &h->pad, sizeof(h->pad));
	poke(t, h->reserved, sizeof(h->reserved));
	note(t, "sim-reset", h->handle, cmd, 0,
	     do_ioctl(g_fd, cmd, mk_ptr(t, h)), M_BASE | M(EPERM));
}

static void op_inject(struct thr *t)
{
	struct retire_sim_event *ev = arg_clear(t);
	unsigned int allowed = M_BASE | M(EPERM) | M(ENOENT) | M(EBUSY);
	int fd = pick_fd(t, &allowed);
	unsigned long cmd = mk_cmd(t, RETIRE_IOC_SIM_INJECT, sizeof(*ev));
	long ret;

	if (!opt.inject)
		return;
	ev->handle = pick_handle(t, chance(t, 2) ? &g_terms : &g_reqs, false);
	ev->error = chance(t, 2) ? 0 : -(int)(1 + rnd(t, 130));
	if (mutate(t, 10))
		ev->error = rnd(t, 2) ? 1 : -5000;
	poke(t, &ev->flags, sizeof(ev->flags));
	poke(t, ev->reserved, sizeof(ev->reserved));
	ret = do_ioctl(fd, cmd, mk_ptr(t, ev));
	note(t, "inject", ev->handle, (__u64)ev->error, 0, ret, allowed);
}

/*
 * An ioctl number the module may not know: another type, a number past
 * the last, another direction. A few random bytes in a zeroed argument;
 * never the engine's, the limits' or REAP's numbers, whose random
 * arguments could hang or quarantine without bound.
 */
static void op_raw(struct thr *t)
{
	unsigned char *a = arg_clear(t);
	unsigned int allowed = M_BASE | M(ENOTTY) | M(ENOENT) | M(EBUSY) |
			       M(EDQUOT) | M(EMFILE) | M(ENOSPC) | M(EAGAIN) |
			       M(EALREADY) | M(ETOOMANYREFS) | M(EPERM);
	int fd = pick_fd(t, &allowed);
	unsigned int nr = rnd(t, 0x12), dir = rnd(t, 4);
	unsigned int type = chance(t, 8) ? rnd(t, 256) : RETIRE_IOC_MAGIC;
	unsigned int size = rnd(t, 2) ? rnd(t, 160) : rnd(t, 16384);
	unsigned long cmd;
	int i;
	long ret;

	if (opt.stress)
		return;
	if (type == RETIRE_IOC_MAGIC &&
	    (nr == 0x07 || nr == 0x09 || nr == 0x0a || nr == 0x0b ||
	     nr == 0x0c) && dir == (_IOC_READ | _IOC_WRITE))
		return;
	/* BUF_REGISTER's len: a random one may be huge */
	if ((opt.avoid & AVOID_HUGE) && nr == 0x01)
		return;
	for (i = rnd(t, 4); i > 0; i--)
		a[rnd(t, 96)] = rnd(t, 256);
	cmd = _IOC(dir, type, nr, size);
	ret = do_ioctl(fd, cmd, mk_ptr(t, a));
	note(t, "raw-ioctl", cmd, size, 0, ret, allowed);
}

/* a dup used and closed, or the second file closed and reopened */
static void op_fds(struct thr *t)
{
	unsigned int allowed = M_BASE;
	struct retire_stats_arg *a;
	int fd, old;

	if (opt.stress || chance(t, 2)) {
		fd = dup(g_fd);
		note(t, "dup", g_fd, fd, 0, fd < 0 ? -errno : 0, M(EMFILE));
		if (fd < 0)
			return;
		a = arg_clear(t);
		a->stats = (unsigned long)(t->arg + 256);
		a->size = sizeof(struct retire_stats);
		note(t, "dup-stats", fd, 0, 0,
		     do_ioctl(fd, RETIRE_IOC_GET_STATS, a), allowed);
		note(t, "close-dup", fd, 0, 0, close(fd) ? -errno : 0, 0);
		return;
	}
	/* the old file's context dies with whatever it still holds */
	old = __atomic_exchange_n(&g_vfd, -1, __ATOMIC_ACQ_REL);
	if (old >= 0)
		note(t, "close-vfd", old, 0, 0, close(old) ? -errno : 0, 0);
	fd = open("/dev/retire", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	/* nobody may not open the device: the files it has are root's */
	note(t, "open-vfd", fd, 0, 0, fd < 0 ? -errno : 0, M(EMFILE) |
	     M(ENOMEM) | (opt.nobody ? M(EACCES) : 0));
	if (fd < 0)
		return;
	/* another thread may have reopened it meanwhile: close one of two */
	old = __atomic_exchange_n(&g_vfd, fd, __ATOMIC_ACQ_REL);
	if (old >= 0)
		note(t, "close-vfd", old, 0, 0, close(old) ? -errno : 0, 0);
}

/* ---- children ----------------------------------------------------------- */

/* a child's call: a positive return or a wild errno ends it with 3 */
static void child_call(int fd, unsigned long cmd, void *arg)
{
	long r = ioctl(fd, cmd, arg);

	if (r > 0 || (r < 0 && !errno_allowed(errno, M_BASE | M_SQE |
						 M(EALREADY) | M(EMFILE) |
						 M(ETOOMANYREFS) | M(EINTR))))
		_exit(3);
}

/*
 * A forked child: a few calls on the inherited shared file (the parent's
 * context) and on a file of its own, then it dies one way or another.
 * It runs only raw syscalls: another thread may have held a lock of libc
 * at the fork.
 */
static void child_run(struct thr *t, const struct ent *snap, unsigned int n)
{
	struct retire_handle_arg h;
	struct retire_buf_reg reg;
	struct retire_submit sub;
	struct retire_sqe sqe;
	int fd, i, steps = 3 + rnd(t, 8);

	signal(SIGALRM, SIG_DFL);
	alarm(5);
	fd = open("/dev/retire", O_RDWR | O_NONBLOCK);
	if (fd < 0)
		fd = g_fd;
	for (i = 0; i < steps; i++) {
		const struct ent *e = n ? &snap[rnd(t, n)] : NULL;
		int use = rnd(t, 2) ? fd : g_fd;

		memset(&h, 0, sizeof(h));
		memset(&reg, 0, sizeof(reg));
		memset(&sub, 0, sizeof(sub));
		memset(&sqe, 0, sizeof(sqe));
		switch (rnd(t, 4)) {
		case 0:
			h.handle = e ? e->h : 0;
			child_call(g_fd, RETIRE_IOC_CANCEL, &h);
			break;
		case 1:
			reg.len = RT_PAGE * (1 + rnd(t, 4));
			child_call(use, RETIRE_IOC_BUF_REGISTER, &reg);
			if (!reg.handle)
				break;
			sqe.buf = reg.handle;
			sqe.len = reg.len;
			sqe.dev_flags = 1 + rnd(t, 3);
			sqe.deadline_ns = rnd(t, 3) * RT_MS;
			sub.sqes = (unsigned long)&sqe;
			sub.nr = 1;
			child_call(use, RETIRE_IOC_SUBMIT, &sub);
			break;
		case 2:
			if (!e || !e->len)
				break;
			sqe.buf = e->h;
			sqe.len = e->len;
			sqe.dev_flags = RETIRE_DEV_READ;
			sub.sqes = (unsigned long)&sqe;
			sub.nr = 1;
			child_call(g_fd, RETIRE_IOC_SUBMIT, &sub);
			break;
		default:
			h.handle = e ? e->h : 0;
			child_call(g_fd, RETIRE_IOC_RETIRE, &h);
			break;
		}
	}
	if (rnd(t, 3) == 0)
		raise(SIGKILL);
	_exit(0);
}

static void op_fork(struct thr *t)
{
	struct ent snap[8];
	unsigned int n = 0, ms;
	int st = 0;
	pid_t pid;

	if (opt.stress)
		return;
	while (n < 8 && pool_get(t, chance(t, 2) ? &g_bufs : &g_reqs, false,
				 &snap[n]))
		n++;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		note(t, "fork", 0, 0, 0, -errno, M(EAGAIN) | M(ENOMEM));
		return;
	}
	if (!pid)
		child_run(t, snap, n);
	if (chance(t, 2)) {
		rt_msleep(rnd(t, 3));
		kill(pid, SIGKILL);
	}
	/*
	 * A child forked from a threaded process may deadlock in userspace
	 * on a lock another thread held at fork(): after 10 s it is killed.
	 * One stuck in the kernel stays stuck, for the hung-task detector.
	 */
	for (ms = 0; waitpid(pid, &st, WNOHANG) == 0; ms += 10) {
		if (ms == 10000)
			kill(pid, SIGKILL);
		rt_msleep(10);
	}
	note(t, "fork", pid, (__u64)st, 0, 0, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st))
		fail(t, "child %d exited with %d (an unexpected result)", pid,
		     WEXITSTATUS(st));
	if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL &&
	    WTERMSIG(st) != SIGALRM)
		fail(t, "child %d died of signal %d", pid, WTERMSIG(st));
}

/*
 * Stress: quarantine on purpose. A short watchdog, a hung engine, a few
 * requests left to be quarantined, then the reset that ends it, and the
 * watchdog back.
 */
static void op_quarantine(struct thr *t)
{
	struct retire_limits_arg la = { .op = RETIRE_LIMITS_GET };
	struct retire_sim_config c = { .op = RETIRE_SIM_SET };
	struct retire_handle_arg h = { 0 };
	__u64 wd;
	int i;

	if (!opt.root_knobs || t->idx)
		return;
	if (note(t, "q-limits-get", 0, 0, 0,
		 do_ioctl(g_fd, RETIRE_IOC_LIMITS, &la), M_BASE))
		return;
	wd = la.limits.watchdog_ns;
	la.op = RETIRE_LIMITS_SET;
	la.limits.watchdog_ns = (2 + rnd(t, 20)) * RT_MS;
	note(t, "q-watchdog", la.limits.watchdog_ns, 0, 0,
	     do_ioctl(g_fd, RETIRE_IOC_LIMITS, &la), M_BASE | M(EBUSY));
	c.flags = RETIRE_SIM_F_HANG;
	c.seed = rnd64(t);
	note(t, "q-hang", 0, 0, 0, do_ioctl(g_fd, RETIRE_IOC_SIM_CONFIG, &c),
	     M_BASE);
	for (i = 0; i < 4; i++)
		op_submit(t);
	rt_msleep(30 + rnd(t, 30));
	for (i = 0; i < 4; i++)
		op_reap(t);
	memset(&c, 0, sizeof(c));
	c.op = RETIRE_SIM_SET;
	note(t, "q-unhang", 0, 0, 0,
	     do_ioctl(g_fd, RETIRE_IOC_SIM_CONFIG, &c), M_BASE);
	note(t, "q-reset", 0, 0, 0, do_ioctl(g_fd, RETIRE_IOC_SIM_RESET, &h),
	     M_BASE);
	la.limits.watchdog_ns = wd;
	note(t, "q-watchdog", wd, 0, 0, do_ioctl(g_fd, RETIRE_IOC_LIMITS, &la),
	     M_BASE | M(EBUSY));
}

/* ---- the threads -------------------------------------------------------- */

typedef void (*op_fn)(struct thr *t);

#define OP(n, w)	{ op_##n, w, #n }

static const struct {
	op_fn fn;
	unsigned int weight;
	const char *name;
} ops[] = {
	OP(info, 2),	OP(register, 10),	OP(pin, 4),
	OP(unmap_user, 1),	OP(mmap, 4),	OP(munmap, 3),
	OP(unregister, 6),	OP(submit, 16),	OP(cancel, 6),
	OP(retire, 10),	OP(token, 8),	OP(reap, 10),
	OP(read, 6),	OP(poll, 2),	OP(stats, 3),
	OP(limits, 2),	OP(epoch, 3),	OP(sim, 2),
	OP(reset, 1),	OP(inject, 2),	OP(raw, 3),
	OP(fds, 2),	OP(fork, 1),	OP(quarantine, 1),
	OP(enter, 12),	OP(ring, 10),	OP(engine, 2),
	OP(history, 2),	OP(cancel_match, 1),	OP(export, 1),
	OP(import, 1),	OP(revoke, 1),
};

#define NOPS	(sizeof(ops) / sizeof(ops[0]))

static unsigned int pick_op(struct thr *t)
{
	unsigned int total = 0, i, x;

	for (i = 0; i < NOPS; i++)
		total += ops[i].weight;
	x = rnd(t, total);
	for (i = 0; i < NOPS; i++) {
		if (x < ops[i].weight)
			return i;
		x -= ops[i].weight;
	}
	return 0;
}

static bool out_of_calls(void)
{
	return opt.max_calls &&
	       __atomic_load_n(&g_calls, __ATOMIC_RELAXED) >= opt.max_calls;
}

static void *thread_main(void *arg)
{
	struct thr *t = arg;
	unsigned int i;

	cur = t;
	t->os_tid = syscall(SYS_gettid);
	while (!g_stop && !out_of_calls()) {
		i = pick_op(t);
		t->doing = ops[i].name;
		t->ops++;
		ops[i].fn(t);
		t->doing = NULL;
	}
	/* what it holds goes before the balance is taken */
	if (t->fence_fd >= 0)
		close(t->fence_fd);
	if (t->export_fd >= 0)
		close(t->export_fd);
	return NULL;
}

/* an argument area with a PROT_NONE guard page right after it */
static unsigned char *arg_area(void)
{
	unsigned char *p = mmap(NULL, ARG_AREA + RT_PAGE,
				PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + ARG_AREA, RT_PAGE, PROT_NONE))
		return NULL;
	return p;
}

/* ---- main --------------------------------------------------------------- */

static unsigned int parse_avoid(const char *s)
{
	unsigned int m = 0;

	if (strstr(s, "huge"))
		m |= AVOID_HUGE;
	if (strstr(s, "raise"))
		m |= AVOID_RAISE;
	if (strstr(s, "bw0"))
		m |= AVOID_BW0;
	return m;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fuzz [-s SEED] [-t SECONDS] [-n THREADS] [-c CALLS] [--root-knobs]\n"
		"            [--inject] [--stress] [--avoid huge,raise,bw0] [--as-nobody]\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "root-knobs", no_argument, NULL, 'R' },
		{ "inject", no_argument, NULL, 'I' },
		{ "stress", no_argument, NULL, 'S' },
		{ "avoid", required_argument, NULL, 'A' },
		{ "as-nobody", no_argument, NULL, 'N' },
		{ 0 }
	};
	bool nset = false;
	int c;

	while ((c = getopt_long(argc, argv, "s:t:n:c:", lo, NULL)) != -1) {
		switch (c) {
		case 's': opt.seed = strtoull(optarg, NULL, 0); break;
		case 't': opt.secs = strtoul(optarg, NULL, 0); break;
		case 'n': opt.nthreads = strtoul(optarg, NULL, 0); nset = true; break;
		case 'c': opt.max_calls = strtoul(optarg, NULL, 0); break;
		case 'R': opt.root_knobs = true; break;
		case 'I': opt.inject = true; break;
		case 'S': opt.stress = true; break;
		case 'A': opt.avoid = parse_avoid(optarg); break;
		case 'N': opt.nobody = true; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	opt.root = !geteuid();
	if (opt.nobody && (!opt.root || opt.root_knobs || opt.inject ||
			   opt.stress))
		usage();	/* root drops to nobody; nobody has no knobs */
	if (opt.stress) {
		opt.root_knobs = opt.root;
		if (!nset)
			opt.nthreads = 2 * sysconf(_SC_NPROCESSORS_ONLN);
	}
	if (!opt.nthreads || opt.nthreads > MAX_THREADS || !opt.secs)
		usage();
}

static void find_null_engine(void)
{
	struct retire_engine_info e[16];
	struct retire_engines_arg a = {
		.engines = (unsigned long)e, .nr = 16,
	};
	unsigned int i;

	if (do_ioctl(g_fd, RETIRE_IOC_ENGINES, &a))
		return;
	for (i = 0; i < a.nr && i < 16; i++)
		if (!strcmp(e[i].name, "null"))
			g_null_id = e[i].id;
}

static int setup(void)
{
	int i;

	g_fd = open("/dev/retire", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (g_fd < 0)
		return -errno;
	if (do_ioctl(g_fd, RETIRE_IOC_GET_INFO, &g_info))
		return -EIO;
	find_null_engine();
	g_vfd = open("/dev/retire", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	g_none_page = mmap(NULL, RT_PAGE, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	g_ro_page = mmap(NULL, RT_PAGE, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g_none_page == MAP_FAILED || g_ro_page == MAP_FAILED)
		return -ENOMEM;
	pthread_mutex_init(&g_bufs.lock, NULL);
	pthread_mutex_init(&g_reqs.lock, NULL);
	pthread_mutex_init(&g_terms.lock, NULL);
	pthread_mutex_init(&g_tokens.lock, NULL);
	for (i = 0; i < (int)opt.nthreads; i++) {
		struct thr *t = &g_thr[i];

		t->idx = i;
		t->fence_fd = -1;
		t->export_fd = -1;
		/* xorshift must not start at 0; mix SEED and the index */
		t->rng = (opt.seed + i + 1) * 0x9e3779b97f4a7c15ULL;
		if (!t->rng)
			t->rng = 1;
		t->arg = arg_area();
		if (!t->arg)
			return -ENOMEM;
	}
	return 0;
}

static void run(void)
{
	__u64 end = g_start_ns + (__u64)opt.secs * 1000000000ULL;
	int i;

	for (i = 0; i < (int)opt.nthreads; i++)
		pthread_create(&g_thr[i].tid, NULL, thread_main, &g_thr[i]);
	g_phase = "running";
	while (!g_stop && !out_of_calls() && rt_now_ns() < end) {
		rt_msleep(50);
		check_stuck(rt_now_ns());
	}
	g_stop = 1;
	g_phase = "joining the threads";
	for (i = 0; i < (int)opt.nthreads; i++) {
		/* a thread stuck in a call is reported, not waited for */
		while (pthread_tryjoin_np(g_thr[i].tid, NULL) == EBUSY) {
			rt_msleep(50);
			check_stuck(rt_now_ns());
		}
	}
	g_end_ns = rt_now_ns();
}

/* every mapping, pin and file let go, so the module can drain */
static void teardown(void)
{
	struct thr *t;
	int i;

	for (i = 0; i < (int)opt.nthreads; i++) {
		t = &g_thr[i];
		while (t->nmaps--)
			munmap(t->maps[t->nmaps].addr, t->maps[t->nmaps].len);
	}
	/* the mapping holds the file: its context ends only once it goes */
	if (g_ring.map)
		munmap(g_ring.map, g_ring.s.size);
	if (g_vfd >= 0)
		close(g_vfd);
	close(g_fd);
	for (i = 0; i < (int)opt.nthreads; i++) {
		t = &g_thr[i];
		while (t->nuser--)
			munmap(t->user[t->nuser].addr, t->user[t->nuser].len);
	}
	if (opt.root)
		cb_neutral();
}

/*
 * --as-nobody: a child becomes nobody, runs the threads and exits with
 * everything in flight; the exit closes its files and mappings. Returns
 * the child's failures (its exit status), or -1 if it could not run.
 */
static void nobody_short_watchdog(void)
{
	struct retire_limits_arg a = { .op = RETIRE_LIMITS_GET };

	if (do_ioctl(g_fd, RETIRE_IOC_LIMITS, &a))
		return;
	a.op = RETIRE_LIMITS_SET;
	a.limits.watchdog_ns = RETIRE_WATCHDOG_MIN_NS;
	if (do_ioctl(g_fd, RETIRE_IOC_LIMITS, &a))
		printf("fuzz: as nobody: a %llu ns watchdog was refused\n",
		       (unsigned long long)RETIRE_WATCHDOG_MIN_NS);
}

static int run_as_nobody(void)
{
	struct retire_stats cs = { 0 };
	struct retire_stats_arg sa = {
		.stats = (unsigned long)&cs, .size = sizeof(cs),
	};
	struct retire *r;
	int st = 0;
	pid_t pid;

	/*
	 * A slow device, set before and left as it is: 150 ms to start,
	 * then 4 KiB a millisecond, so requests outlive a short watchdog
	 * and are quarantined, then terminate after nobody has gone.
	 */
	if (retire_open_device(&r, NULL, 0))
		return -1;
	st = rt_set_sim(r, 0, 150 * RT_MS, RT_MS, 4096, 0, opt.seed);
	retire_close_device(r);
	if (st)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		st = rt_become_nobody();
		if (st) {
			printf("fuzz: becoming nobody: %s\n", strerror(-st));
			_exit(1);
		}
		opt.root = false;
		alarm(opt.secs + opt.secs / 2 + 120);
		/*
		 * The unprivileged floor from the start: whether the random
		 * LIMITS calls ever land one is up to the seed and the
		 * machine, and a run without a quarantine proves nothing.
		 */
		nobody_short_watchdog();
		run();
		do_ioctl(g_fd, RETIRE_IOC_GET_STATS, &sa);
		printf("fuzz: as nobody: calls=%lu admitted=%lu refused=%lu quarantined=%llu errors=%d; exiting with its work in flight\n",
		       g_calls, g_admitted, g_refused,
		       (unsigned long long)cs.quarantined, g_failed);
		_exit(g_failed ? 1 : 0);
	}
	/* only nobody's files keep the contexts: root lets its copies go */
	if (g_vfd >= 0)
		close(g_vfd);
	close(g_fd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	g_end_ns = rt_now_ns();
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	printf("fuzz: the nobody child died of signal %d\n", WTERMSIG(st));
	return 1;
}

int main(int argc, char **argv)
{
	struct cb_base base;
	int ret, bad;

	parse(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access("/dev/retire", F_OK)) {
		printf("fuzz: %s\n", RT_SKIP_MSG);
		return 4;
	}
	/* a neutral engine to start from; an earlier run may have left knobs */
	if (opt.root)
		cb_neutral();
	cb_base_take(&base);
	ret = setup();
	if (ret) {
		printf("fuzz: setup: %s\n", strerror(-ret));
		return 1;
	}
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	signal(SIGILL, on_crash);
	signal(SIGFPE, on_crash);
	signal(SIGALRM, on_watchdog);
	signal(SIGPIPE, SIG_IGN);
	/* a debug guest drains a long run's leftovers slowly */
	alarm(opt.secs + opt.secs / 2 + 120);

	g_start_ns = rt_now_ns();
	if (opt.nobody) {
		g_phase = "waiting for nobody";
		g_failed = run_as_nobody();
		if (g_failed < 0)
			printf("fuzz: FAIL seed=%llu thread=-1\nfuzz: could not set the slow device or fork the nobody child\n",
			       (unsigned long long)opt.seed);
	} else {
		run();
		g_phase = "tearing down";
		teardown();
	}
	g_phase = "checking the balance";
	bad = cb_check("fuzz", &base, 30000);
	if (opt.nobody)		/* checked: the slow device may go now */
		cb_neutral();
	alarm(0);
	if (bad)
		fail(NULL, "balance check: %d differences (above)", bad);
	if (opt.nobody)	/* the counts are the child's, printed above */
		printf("fuzz: seed=%llu seconds=%llu as nobody: errors=%d, balance %s with no root action\n",
		       (unsigned long long)opt.seed,
		       (unsigned long long)((g_end_ns - g_start_ns) / 1000000000ULL),
		       g_failed, bad ? "broken" : "held");
	else
		printf("fuzz: seed=%llu calls=%lu seconds=%llu admitted=%lu refused=%lu errors=%d%s\n",
		       (unsigned long long)opt.seed, g_calls,
		       (unsigned long long)((g_end_ns - g_start_ns) / 1000000000ULL),
		       g_admitted, g_refused, g_failed,
		       opt.stress ? " (stress)" : "");
	return g_failed ? 1 : 0;
}
