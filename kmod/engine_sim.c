// SPDX-License-Identifier: GPL-2.0
/*
 * The sim engine (retire_sim.ko): a software device that really reads and
 * writes the buffers it is given, on its own workqueue and hrtimers, so
 * KASAN sees any access after retirement. It reports by handle only, and
 * knows the core only through include/linux/retire_engine.h.
 *
 * A job: after the latency its timer queues the work; each run of the work
 * moves up to bytes_per_tick bytes, then re-arms the timer for the next
 * tick. Knobs are engine-wide (RETIRE_IOC_SIM_CONFIG, netlink engine-set,
 * both served here): latency, tick,
 * bytes per tick, blocked destination, fail every Nth activation, hang,
 * cancel-while-running, and a test knob that attempts an access outside
 * the request's device-access flags to prove it is refused. With
 * RETIRE_SIM_F_INLINE a job that needs no time is moved and reported
 * inside start(), as a null device would: IDLE -start-> IDLE.
 *
 * Job states, under retire_sim.lock:
 *   IDLE -start-> ARMED -timer-> QUEUED -work-> RUNNING -> ARMED | IDLE
 *                                       -work, hang-> HUNG -reset-> QUEUED
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/netlink.h>
#include <kunit/visibility.h>
#include <linux/retire.h>
#include <linux/retire_engine.h>
#include <linux/retire_netlink.h>

#include "engine_sim.h"

#define RETIRE_SIM_DEFAULT_TICK_NS	NSEC_PER_MSEC

enum retire_sim_state {
	RETIRE_SIM_IDLE,
	RETIRE_SIM_ARMED,
	RETIRE_SIM_QUEUED,
	RETIRE_SIM_RUNNING,
	RETIRE_SIM_HUNG,
};

/**
 * struct retire_sim_job - the sim device's state for one active request
 * @timer:	latency and tick timer
 * @work:	the transfer
 * @node:	on retire_sim.jobs while not IDLE
 * @ctx:	the context, set by start()
 * @w:		what to do
 * @done:	bytes moved so far
 * @checksum:	FNV-1a-64 of what it read so far
 * @state:	enum retire_sim_state
 * @abort:	a cancel asked to stop (with RETIRE_SIM_F_CANCEL_RUNNING)
 * @reset:	a reset asked to stop; counted in retire_sim.resetting
 * @hang:	activated while RETIRE_SIM_F_HANG was set
 * @fail:	this activation is one fail_every picked
 * @violate:	attempt one access outside the device-access flags
 * @bw_node:	in retire_sim.bw_waiters while waiting for bandwidth
 *
 * Everything but @w's buffer contents is protected by retire_sim.lock.
 */
struct retire_sim_job {
	struct hrtimer timer;
	struct work_struct work;
	struct list_head node;
	struct retire_ctx *ctx;
	struct retire_engine_work w;
	u64 done;
	u64 checksum;
	u8 state;
	bool abort;
	bool reset;
	bool hang;
	bool fail;
	bool violate;
	struct list_head bw_node;
};

static struct {
	spinlock_t lock;		/* IRQ-safe: taken from job timers */
	struct workqueue_struct *wq;	/* the jobs' transfers */
	struct retire_sim_config cfg;	/* protected by @lock */
	u64 activations;		/* protected by @lock */
	struct list_head jobs;		/* protected by @lock */
	u32 resetting;			/* protected by @lock */
	wait_queue_head_t reset_wq;
	u64 submit_attempts;		/* protected by @lock */
	struct retire_bucket bucket;	/* protected by @lock */
	struct list_head bw_waiters;	/* protected by @lock, FIFO */
	/*
	 * the longest job that moves inline without the lock: 0 unless the
	 * config lets jobs move inline and counts no activations
	 */
	u64 inline_max;			/* written under @lock */
} retire_sim;

#define RETIRE_SIM_MAX_BURST	(16ULL << 30)

static struct retire_engine retire_sim_engine;

/**
 * retire_bucket_init() - a full token bucket
 * @b:		the bucket
 * @rate:	bytes per second (0: unlimited)
 * @burst:	depth in bytes, at most 16 GiB
 * @now:	the time it starts from
 *
 * Credit is kept in byte-nanoseconds, so the rate adds exactly rate * dt
 * with no rounding: bytes taken never exceed burst + rate * t.
 */
void retire_bucket_init(struct retire_bucket *b, u64 rate, u64 burst,
			ktime_t now)
{
	b->rate = rate;
	b->cap = burst * NSEC_PER_SEC;
	b->credit = b->cap;
	b->refilled = now;
}
EXPORT_SYMBOL_IF_KUNIT(retire_bucket_init);

/* add what the rate earned since the last refill, up to the burst */
static void retire_bucket_refill(struct retire_bucket *b, ktime_t now)
{
	u64 dt = ktime_to_ns(ktime_sub(now, b->refilled));
	u64 room = b->cap - b->credit;

	b->refilled = now;
	if (dt > div64_u64(room, b->rate))
		b->credit = b->cap;
	else
		b->credit += b->rate * dt;
}

/**
 * retire_bucket_take() - take @n bytes of credit if there is enough
 * @b:		the bucket
 * @n:		bytes
 * @now:	the time
 *
 * Return: 0 if taken, else the nanoseconds until there will be enough.
 */
u64 retire_bucket_take(struct retire_bucket *b, u64 n, ktime_t now)
{
	u64 want = n * NSEC_PER_SEC;

	if (!b->rate)
		return 0;
	retire_bucket_refill(b, now);
	if (b->credit >= want) {
		b->credit -= want;
		return 0;
	}
	return DIV64_U64_ROUND_UP(want - b->credit, b->rate);
}
EXPORT_SYMBOL_IF_KUNIT(retire_bucket_take);

/*
 * @job stops waiting for bandwidth. If it was first in line, the next job
 * asks at once: a job behind the head sleeps until it is the head (or a
 * second passes) rather than polling.
 */
static void retire_bw_leave_locked(struct retire_sim_job *job)
{
	struct retire_sim_job *next;
	bool head;

	lockdep_assert_held(&retire_sim.lock);
	if (list_empty(&job->bw_node))
		return;
	head = list_is_first(&job->bw_node, &retire_sim.bw_waiters);
	list_del_init(&job->bw_node);
	if (!head)
		return;
	next = list_first_entry_or_null(&retire_sim.bw_waiters,
					struct retire_sim_job, bw_node);
	if (next && next->state == RETIRE_SIM_ARMED)
		hrtimer_start(&next->timer, 0, HRTIMER_MODE_REL);
}

/**
 * retire_bucket_take_locked() - bandwidth for @n bytes, in turn
 * @job:	the job asking
 * @n:		bytes it wants to move
 * @now:	the time
 *
 * Jobs are served in the order they first asked (retire_sim.bw_waiters),
 * so service rotates among active requests and no job starves another.
 *
 * Return: 0 if the bytes may move now (their credit is taken), else the
 * nanoseconds to wait before asking again.
 */
static u64 retire_bucket_take_locked(struct retire_sim_job *job, u64 n,
				     ktime_t now)
{
	struct retire_sim_job *head;
	u64 wait = 0;

	lockdep_assert_held(&retire_sim.lock);
	head = list_first_entry_or_null(&retire_sim.bw_waiters,
					struct retire_sim_job, bw_node);
	if (!head || head == job) {
		wait = retire_bucket_take(&retire_sim.bucket, n, now);
		if (!wait) {
			retire_bw_leave_locked(job);
			return 0;
		}
	}
	if (list_empty(&job->bw_node))
		list_add_tail(&job->bw_node, &retire_sim.bw_waiters);
	/* not its turn: retire_bw_leave_locked() wakes it when it is */
	return wait ?: NSEC_PER_SEC;
}

/**
 * retire_sim_fail_submit() - is this submission attempt one to refuse?
 *
 * Every attempt counts in the ordinal, refused ones too: a caller that
 * retries a refused entry meets the next refusal N attempts later, not N
 * admissions later.
 *
 * Return: true for every fail_submit_every-th attempt.
 */
bool retire_sim_fail_submit(void)
{
	bool fail;

	/*
	 * Without the knob the count is never read: a config that sets it
	 * starts it from 0. So the common case takes no global lock.
	 */
	if (!READ_ONCE(retire_sim.cfg.fail_submit_every))
		return false;
	spin_lock_irq(&retire_sim.lock);
	retire_sim.submit_attempts++;
	fail = retire_sim.cfg.fail_submit_every &&
	       !(retire_sim.submit_attempts % retire_sim.cfg.fail_submit_every);
	spin_unlock_irq(&retire_sim.lock);
	return fail;
}
EXPORT_SYMBOL_IF_KUNIT(retire_sim_fail_submit);

/* an access the request's device-access flags do not allow */
static bool retire_sim_may(struct retire_sim_job *job, u32 access)
{
	if (job->w.dev_flags & access)
		return true;
	retire_engine_violation(job->ctx, job->w.handle, access);
	return false;
}

/* move [from, from + n) of the range: read (checksum), then write */
static void retire_sim_transfer(struct retire_sim_job *job, u64 from, u64 n)
{
	struct page **pages = job->w.pages;
	u64 pos = job->w.offset + from, end = pos + n;
	bool rd = job->w.dev_flags & RETIRE_DEV_READ;
	bool wr = job->w.dev_flags & RETIRE_DEV_WRITE;

	while (pos < end) {
		size_t off = offset_in_page(pos);
		size_t cnt = min_t(u64, PAGE_SIZE - off, end - pos);
		u64 i, rel = pos - job->w.offset;
		/* an import's bytes are its exporter's kernel mapping */
		u8 *p = pages ? kmap_local_page(pages[pos >> PAGE_SHIFT]) :
			(u8 *)job->w.vaddr + (pos - off);

		if (rd)
			job->checksum = retire_checksum(job->checksum,
							p + off, cnt);
		if (wr)
			for (i = 0; i < cnt; i++)
				p[off + i] = (u8)(job->w.user_data + rel + i);
		if (pages)
			kunmap_local(p);
		pos += cnt;
	}
}

/* the job's last act: after this call nothing of it runs */
static void retire_sim_finish(struct retire_sim_job *job,
			      const struct retire_engine_result *res)
{
	struct retire_ctx *ctx = job->ctx;
	u64 handle = job->w.handle;
	unsigned long flags;
	bool reset;

	spin_lock_irqsave(&retire_sim.lock, flags);
	job->state = RETIRE_SIM_IDLE;
	list_del_init(&job->node);
	retire_bw_leave_locked(job);
	reset = job->reset;
	spin_unlock_irqrestore(&retire_sim.lock, flags);

	retire_engine_complete(ctx, handle, res);

	/*
	 * A reset waits for this report to have landed, not just to have
	 * been decided: only the engine's globals are touched from here on.
	 */
	if (reset) {
		spin_lock_irqsave(&retire_sim.lock, flags);
		if (!--retire_sim.resetting)
			wake_up_all(&retire_sim.reset_wq);
		spin_unlock_irqrestore(&retire_sim.lock, flags);
	}
}

static void retire_sim_arm_locked(struct retire_sim_job *job, u64 ns)
{
	lockdep_assert_held(&retire_sim.lock);
	job->state = RETIRE_SIM_ARMED;
	hrtimer_start(&job->timer, ns_to_ktime(ns), HRTIMER_MODE_REL);
}

static void retire_sim_work(struct work_struct *work)
{
	struct retire_sim_job *job = container_of(work, struct retire_sim_job,
						  work);
	struct retire_engine_result res = {};
	u64 chunk, tick;
	u32 other;

	spin_lock_irq(&retire_sim.lock);
	if (job->state != RETIRE_SIM_QUEUED) {
		spin_unlock_irq(&retire_sim.lock);
		return;
	}
	if (job->reset) {
		spin_unlock_irq(&retire_sim.lock);
		res.error = -ECANCELED;
		res.reset = true;
		res.transferred = job->done;
		goto finish;
	}
	if (job->abort) {
		spin_unlock_irq(&retire_sim.lock);
		goto cancelled;
	}
	if (job->hang) {
		job->state = RETIRE_SIM_HUNG;
		spin_unlock_irq(&retire_sim.lock);
		return;
	}
	if (job->done == job->w.len) {
		/* every byte went before finish_ns: the destination is done */
		spin_unlock_irq(&retire_sim.lock);
		goto done;
	}
	tick = retire_sim.cfg.tick_ns ?: RETIRE_SIM_DEFAULT_TICK_NS;
	if (retire_sim.cfg.flags & RETIRE_SIM_F_BLOCKED) {
		/* the destination takes nothing: try again next tick */
		retire_sim_arm_locked(job, tick);
		spin_unlock_irq(&retire_sim.lock);
		return;
	}
	chunk = min(retire_sim.cfg.bytes_per_tick ?: job->w.len,
		    job->w.len - job->done);
	/* never ask the bucket for more than it can ever hold */
	if (retire_sim.cfg.rate_bps)
		chunk = min(chunk, retire_sim.cfg.burst_bytes);
	if (!job->fail && !job->violate) {
		u64 wait = retire_bucket_take_locked(job, chunk, ktime_get());

		if (wait) {
			retire_sim_arm_locked(job, wait);
			spin_unlock_irq(&retire_sim.lock);
			return;
		}
	}
	job->state = RETIRE_SIM_RUNNING;
	spin_unlock_irq(&retire_sim.lock);

	if (job->fail) {
		res.error = -EIO;
		goto finish;
	}
	if (job->violate) {
		/* the opposite of what the request allows, if anything is */
		other = RETIRE_DEV_ALL & ~job->w.dev_flags;
		if (other && !retire_sim_may(job, other)) {
			res.error = -EACCES;
			res.transferred = job->done;
			goto finish;
		}
	}

	retire_engine_moving(job->ctx, &job->w, chunk);
	retire_sim_transfer(job, job->done, chunk);
	job->done += chunk;

	spin_lock_irq(&retire_sim.lock);
	if (job->done == job->w.len && !retire_sim.cfg.finish_ns) {
		spin_unlock_irq(&retire_sim.lock);
		goto done;
	}
	if (job->reset || job->abort) {
		bool reset = job->reset;

		job->state = RETIRE_SIM_QUEUED;
		spin_unlock_irq(&retire_sim.lock);
		res.transferred = job->done;
		if (reset) {
			res.error = -ECANCELED;
			res.reset = true;
			goto finish;
		}
		goto cancelled;
	}
	/* the last transfer starts the destination's own finish_ns */
	retire_sim_arm_locked(job, job->done == job->w.len ?
			      retire_sim.cfg.finish_ns : tick);
	spin_unlock_irq(&retire_sim.lock);
	return;

done:
	res.transferred = job->done;
	res.checksum = job->checksum;
	goto finish;
cancelled:
	res.error = -ECANCELED;
	res.cancelled = true;
	res.transferred = job->done;
finish:
	retire_sim_finish(job, &res);
}

static enum hrtimer_restart retire_sim_timer(struct hrtimer *t)
{
	struct retire_sim_job *job = container_of(t, struct retire_sim_job,
						  timer);
	unsigned long flags;

	spin_lock_irqsave(&retire_sim.lock, flags);
	if (job->state == RETIRE_SIM_ARMED) {
		job->state = RETIRE_SIM_QUEUED;
		queue_work(retire_sim.wq, &job->work);
	}
	spin_unlock_irqrestore(&retire_sim.lock, flags);
	return HRTIMER_NORESTART;
}

/* RETIRE_SIM_F_INLINE: may @w be moved and reported before start returns? */
static bool retire_sim_inline_locked(const struct retire_sim_config *cfg,
				     const struct retire_engine_work *w)
{
	lockdep_assert_held(&retire_sim.lock);
	return cfg->flags & RETIRE_SIM_F_INLINE &&
	       !(cfg->flags & (RETIRE_SIM_F_BLOCKED | RETIRE_SIM_F_HANG |
			       RETIRE_SIM_F_VIOLATE)) &&
	       !cfg->latency_ns && !cfg->finish_ns && !cfg->rate_bps &&
	       (!cfg->bytes_per_tick || cfg->bytes_per_tick >= w->len) &&
	       w->len <= RETIRE_SIM_INLINE_MAX;
}

/* what retire_sim.inline_max is under @cfg */
static u64 retire_sim_inline_max(const struct retire_sim_config *cfg)
{
	if (!(cfg->flags & RETIRE_SIM_F_INLINE) ||
	    cfg->flags & (RETIRE_SIM_F_BLOCKED | RETIRE_SIM_F_HANG |
			  RETIRE_SIM_F_VIOLATE) ||
	    cfg->latency_ns || cfg->finish_ns || cfg->rate_bps ||
	    cfg->fail_every)
		return 0;
	if (cfg->bytes_per_tick)
		return min_t(u64, cfg->bytes_per_tick, RETIRE_SIM_INLINE_MAX);
	return RETIRE_SIM_INLINE_MAX;
}

/*
 * The null device: the whole range moves now, in the submitter's context
 * and under its context lock (which is why the length is bounded), and
 * the terminal event lands before start() returns. The job never leaves
 * IDLE: no timer, no work item, nothing for a reset or a cancel to find.
 */
static void retire_sim_run_inline(struct retire_ctx *ctx,
				  struct retire_sim_job *job)
{
	struct retire_engine_result res = {};

	retire_ctx_assert_held(ctx);
	if (job->fail) {
		res.error = -EIO;
	} else {
		retire_engine_moving_locked(ctx, &job->w, job->w.len);
		retire_sim_transfer(job, 0, job->w.len);
		job->done = job->w.len;
		res.transferred = job->done;
		res.checksum = job->checksum;
	}
	retire_engine_complete_locked(ctx, job->w.handle, &res);
}

static void retire_sim_start(struct retire_engine *e, struct retire_ctx *ctx,
			     void *j, const struct retire_engine_work *w)
{
	struct retire_sim_job *job = j;
	const struct retire_sim_config *cfg = &retire_sim.cfg;
	unsigned long flags;
	bool now;

	retire_ctx_assert_held(ctx);
	job->ctx = ctx;
	/*
	 * The null device's common case takes no engine-wide lock: the config
	 * publishes how long a job may be to move inline (0 while it counts
	 * activations for fail_every, or forbids inline work). A config set
	 * meanwhile takes effect at the next activation either way.
	 */
	if (w->len <= READ_ONCE(retire_sim.inline_max)) {
		job->w = *w;
		job->done = 0;
		job->checksum = RETIRE_CHECKSUM_INIT;
		job->fail = false;
		retire_sim_run_inline(ctx, job);
		return;
	}
	spin_lock_irqsave(&retire_sim.lock, flags);
	if (WARN_ON_ONCE(job->state != RETIRE_SIM_IDLE)) {
		spin_unlock_irqrestore(&retire_sim.lock, flags);
		return;
	}
	job->w = *w;
	job->done = 0;
	job->checksum = RETIRE_CHECKSUM_INIT;
	job->abort = false;
	job->reset = false;
	job->hang = cfg->flags & RETIRE_SIM_F_HANG;
	job->violate = cfg->flags & RETIRE_SIM_F_VIOLATE;
	retire_sim.activations++;
	job->fail = cfg->fail_every &&
		    !(retire_sim.activations % cfg->fail_every);
	now = retire_sim_inline_locked(cfg, w);
	if (!now) {
		list_add_tail(&job->node, &retire_sim.jobs);
		retire_sim_arm_locked(job, cfg->latency_ns);
	}
	spin_unlock_irqrestore(&retire_sim.lock, flags);
	if (now)
		retire_sim_run_inline(ctx, job);
}

static bool retire_sim_try_stop(struct retire_engine *e,
				struct retire_ctx *ctx, void *j)
{
	struct retire_sim_job *job = j;
	unsigned long flags;
	bool stopped = false;

	retire_ctx_assert_held(ctx);
	spin_lock_irqsave(&retire_sim.lock, flags);
	if (!(retire_sim.cfg.flags & RETIRE_SIM_F_CANCEL_RUNNING))
		goto out;
	if (job->state == RETIRE_SIM_ARMED &&
	    hrtimer_try_to_cancel(&job->timer) == 1) {
		/* between two transfers: it will never touch the buffer */
		job->state = RETIRE_SIM_IDLE;
		list_del_init(&job->node);
		retire_bw_leave_locked(job);
		if (job->reset && !--retire_sim.resetting)
			wake_up_all(&retire_sim.reset_wq);
		stopped = true;
	} else {
		/* it stops at its next step and reports cancelled itself */
		job->abort = true;
	}
out:
	spin_unlock_irqrestore(&retire_sim.lock, flags);
	return stopped;
}

static void retire_sim_job_init(struct retire_engine *e, void *obj)
{
	struct retire_sim_job *job = obj;

	INIT_LIST_HEAD(&job->node);
	INIT_LIST_HEAD(&job->bw_node);
	hrtimer_init(&job->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	job->timer.function = retire_sim_timer;
	INIT_WORK(&job->work, retire_sim_work);
}

static void retire_sim_job_fini(struct retire_engine *e, void *obj)
{
	struct retire_sim_job *job = obj;

	/* the job reported: only its last timer or work run may be returning */
	hrtimer_cancel(&job->timer);
	cancel_work_sync(&job->work);
}

/**
 * retire_sim_get_config() - the sim engine's current knobs
 * @cfg: filled; @cfg->op is left as the caller set it
 *
 * Return: 0.
 */
int retire_sim_get_config(struct retire_sim_config *cfg)
{
	u32 op = cfg->op;

	spin_lock_irq(&retire_sim.lock);
	*cfg = retire_sim.cfg;
	spin_unlock_irq(&retire_sim.lock);
	cfg->op = op;
	return 0;
}

/**
 * retire_sim_set_config() - set the sim engine's knobs
 * @cfg: the new knobs; flags, pad and reserved already checked
 *
 * Takes effect at once for blocked, cancel-while-running and bandwidth
 * (the token bucket starts full), for hang, fail and violate at the next
 * activation.
 *
 * Return: 0, or -EINVAL for a burst over 16 GiB, a rate without a burst,
 * or a burst smaller than one transfer.
 */
int retire_sim_set_config(const struct retire_sim_config *cfg)
{
	if (cfg->burst_bytes > RETIRE_SIM_MAX_BURST ||
	    (cfg->rate_bps && !cfg->burst_bytes) ||
	    (cfg->rate_bps && cfg->bytes_per_tick > cfg->burst_bytes))
		return -EINVAL;
	spin_lock_irq(&retire_sim.lock);
	retire_sim.cfg = *cfg;
	retire_sim.cfg.op = 0;
	WRITE_ONCE(retire_sim.inline_max, retire_sim_inline_max(cfg));
	/* the ordinals count from the new config on */
	retire_sim.activations = 0;
	retire_sim.submit_attempts = 0;
	/* the bucket starts full: B + R * t from now on */
	retire_bucket_init(&retire_sim.bucket, cfg->rate_bps, cfg->burst_bytes,
			   ktime_get());
	spin_unlock_irq(&retire_sim.lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(retire_sim_set_config);

/**
 * retire_sim_reset() - stop every job; none touches a buffer afterwards
 *
 * The rule at the instant a job finishes: a job reports completed when
 * its last byte moved and its destination's finish_ns elapsed before the
 * job next looked at the engine's lock; every job the reset reaches before
 * that reports failed (-ECANCELED, with the bytes it did move), even one
 * whose bytes all moved but whose destination had not finished. A job
 * finishing as the reset runs is therefore completed or failed according
 * to what the device had done, never both, and the reset waits for its
 * report either way. Returns once every job has reported: from then on
 * the engine guarantees no further access.
 */
void retire_sim_reset(void)
{
	struct retire_sim_job *job;

	spin_lock_irq(&retire_sim.lock);
	list_for_each_entry(job, &retire_sim.jobs, node) {
		if (job->reset)
			continue;
		job->reset = true;
		retire_sim.resetting++;
		if (job->state == RETIRE_SIM_HUNG ||
		    (job->state == RETIRE_SIM_ARMED &&
		     hrtimer_try_to_cancel(&job->timer) == 1)) {
			job->state = RETIRE_SIM_QUEUED;
			queue_work(retire_sim.wq, &job->work);
		}
	}
	spin_unlock_irq(&retire_sim.lock);
	wait_event(retire_sim.reset_wq, !READ_ONCE(retire_sim.resetting));
	/* no access follows: quarantined requests may retire now */
	retire_engine_reset_done(&retire_sim_engine);
}
EXPORT_SYMBOL_IF_KUNIT(retire_sim_reset);

/* ---- the sim's own commands: RETIRE_IOC_SIM_* and netlink engine-* ---- */

static bool retire_sim_zero(const void *p, size_t n)
{
	return !memchr_inv(p, 0, n);
}

static long retire_sim_ioctl_config(unsigned int cmd, void __user *uarg)
{
	struct retire_sim_config cfg;
	int ret;

	ret = retire_arg_copy_in(&cfg, sizeof(cfg), sizeof(cfg), cmd, uarg);
	if (ret)
		return ret;
	if (cfg.reserved)
		return -EINVAL;
	switch (cfg.op) {
	case RETIRE_SIM_GET:
		/* every knob is GET's output: what the caller left is ignored */
		retire_sim_get_config(&cfg);
		return retire_arg_copy_out(uarg, cmd, &cfg, sizeof(cfg));
	case RETIRE_SIM_SET:
		if (cfg.flags & ~RETIRE_SIM_F_ALL)
			return -EINVAL;
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		return retire_sim_set_config(&cfg);
	default:
		return -EINVAL;
	}
}

/* RETIRE_IOC_SIM_RESET: engine-wide, names nothing */
static long retire_sim_ioctl_reset(unsigned int cmd, void __user *uarg)
{
	struct retire_handle_arg h;
	int ret;

	ret = retire_arg_copy_in(&h, sizeof(h), sizeof(h), cmd, uarg);
	if (ret)
		return ret;
	if (h.flags || h.pad || h.handle ||
	    !retire_sim_zero(h.reserved, sizeof(h.reserved)))
		return -EINVAL;
	retire_sim_reset();
	return 0;
}

/*
 * RETIRE_IOC_SIM_INJECT: a device event naming a request the sim does not
 * hold, on the file's context (whatever engine it is bound to): the sim
 * owns its live requests, so only stale events go in.
 */
static long retire_sim_ioctl_inject(struct retire_ctx *ctx, unsigned int cmd,
				    void __user *uarg)
{
	struct retire_engine_result res = {};
	struct retire_sim_event ev;
	int ret;

	ret = retire_arg_copy_in(&ev, sizeof(ev), sizeof(ev), cmd, uarg);
	if (ret)
		return ret;
	if (ev.flags || !retire_sim_zero(ev.reserved, sizeof(ev.reserved)) ||
	    ev.error > 0 || ev.error < -MAX_ERRNO)
		return -EINVAL;
	res.error = ev.error;
	return retire_engine_report_stale(ctx, ev.handle, &res);
}

static long retire_sim_ioctl(struct retire_engine *e, struct retire_ctx *ctx,
			     unsigned int cmd, void __user *uarg)
{
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(RETIRE_IOC_SIM_CONFIG):
		return retire_sim_ioctl_config(cmd, uarg);
	case _IOC_NR(RETIRE_IOC_SIM_RESET):
		/* privileged as a whole: checked before the argument is read */
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		return retire_sim_ioctl_reset(cmd, uarg);
	case _IOC_NR(RETIRE_IOC_SIM_INJECT):
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		return retire_sim_ioctl_inject(ctx, cmd, uarg);
	default:
		return -ENOTTY;
	}
}

static const unsigned int retire_sim_ioctls[] = {
	RETIRE_IOC_SIM_CONFIG,
	RETIRE_IOC_SIM_RESET,
	RETIRE_IOC_SIM_INJECT,
	0
};

static int retire_sim_nl_fill(struct retire_engine *e, struct sk_buff *msg)
{
	const int pad = RETIRE_A_ENGINE_PAD;
	struct retire_sim_config c;

	retire_sim_get_config(&c);
	if (nla_put_u32(msg, RETIRE_A_ENGINE_FLAGS, c.flags) ||
	    nla_put_u64_64bit(msg, RETIRE_A_ENGINE_LATENCY_NS, c.latency_ns, pad) ||
	    nla_put_u64_64bit(msg, RETIRE_A_ENGINE_TICK_NS, c.tick_ns, pad) ||
	    nla_put_u64_64bit(msg, RETIRE_A_ENGINE_BYTES_PER_TICK,
			      c.bytes_per_tick, pad) ||
	    nla_put_u32(msg, RETIRE_A_ENGINE_FAIL_EVERY, c.fail_every) ||
	    nla_put_u32(msg, RETIRE_A_ENGINE_FAIL_SUBMIT_EVERY,
			c.fail_submit_every) ||
	    nla_put_u64_64bit(msg, RETIRE_A_ENGINE_SEED, c.seed, pad) ||
	    nla_put_u64_64bit(msg, RETIRE_A_ENGINE_RATE_BPS, c.rate_bps, pad) ||
	    nla_put_u64_64bit(msg, RETIRE_A_ENGINE_BURST_BYTES,
			      c.burst_bytes, pad) ||
	    nla_put_u64_64bit(msg, RETIRE_A_ENGINE_FINISH_NS, c.finish_ns, pad))
		return -EMSGSIZE;
	return 0;
}

static u64 retire_sim_nl_u64(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u64(tb[type]) : 0;
}

static u32 retire_sim_nl_u32(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u32(tb[type]) : 0;
}

/* engine-set: every knob it does not carry is 0, as a SIM_CONFIG SET's */
static int retire_sim_nl_set(struct retire_engine *e, struct nlattr **tb,
			     struct netlink_ext_ack *extack)
{
	struct retire_sim_config cfg = {
		.op = RETIRE_SIM_SET,
		.flags = retire_sim_nl_u32(tb, RETIRE_A_ENGINE_FLAGS),
		.latency_ns = retire_sim_nl_u64(tb, RETIRE_A_ENGINE_LATENCY_NS),
		.tick_ns = retire_sim_nl_u64(tb, RETIRE_A_ENGINE_TICK_NS),
		.bytes_per_tick = retire_sim_nl_u64(tb, RETIRE_A_ENGINE_BYTES_PER_TICK),
		.fail_every = retire_sim_nl_u32(tb, RETIRE_A_ENGINE_FAIL_EVERY),
		.fail_submit_every = retire_sim_nl_u32(tb, RETIRE_A_ENGINE_FAIL_SUBMIT_EVERY),
		.seed = retire_sim_nl_u64(tb, RETIRE_A_ENGINE_SEED),
		.rate_bps = retire_sim_nl_u64(tb, RETIRE_A_ENGINE_RATE_BPS),
		.burst_bytes = retire_sim_nl_u64(tb, RETIRE_A_ENGINE_BURST_BYTES),
		.finish_ns = retire_sim_nl_u64(tb, RETIRE_A_ENGINE_FINISH_NS),
	};

	if (cfg.flags & ~RETIRE_SIM_F_ALL) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RETIRE_A_ENGINE_FLAGS],
				    "unknown engine flags");
		return -EINVAL;
	}
	if (retire_sim_set_config(&cfg)) {
		NL_SET_ERR_MSG(extack,
			       "a rate needs a burst of at least one transfer, at most 16 GiB");
		return -EINVAL;
	}
	return 0;
}

static bool retire_sim_fail_submit_op(struct retire_engine *e)
{
	return retire_sim_fail_submit();
}

static void retire_sim_reset_op(struct retire_engine *e)
{
	retire_sim_reset();
}

static const struct retire_engine_ops retire_sim_ops = {
	.start		= retire_sim_start,
	.try_stop	= retire_sim_try_stop,
	.job_size	= sizeof(struct retire_sim_job),
	.job_init	= retire_sim_job_init,
	.job_fini	= retire_sim_job_fini,
	.fail_submit	= retire_sim_fail_submit_op,
	.reset		= retire_sim_reset_op,
	.ioctls		= retire_sim_ioctls,
	.ioctl		= retire_sim_ioctl,
	.nl_fill	= retire_sim_nl_fill,
	.nl_set		= retire_sim_nl_set,
};

/* engine-wide: one per module */
static struct retire_engine retire_sim_engine = {
	.name		= "sim",
	.ops		= &retire_sim_ops,
	.owner		= THIS_MODULE,
	.features	= RETIRE_FEAT_SIM,
	.imports	= true,	/* through the kernel mapping: no dma_dev */
};

static int __init retire_sim_init(void)
{
	int ret;

	spin_lock_init(&retire_sim.lock);
	INIT_LIST_HEAD(&retire_sim.jobs);
	INIT_LIST_HEAD(&retire_sim.bw_waiters);
	init_waitqueue_head(&retire_sim.reset_wq);
	retire_sim.wq = alloc_workqueue("retire_sim", WQ_UNBOUND, 0);
	if (!retire_sim.wq)
		return -ENOMEM;
	ret = retire_engine_register(&retire_sim_engine);
	if (ret)
		destroy_workqueue(retire_sim.wq);
	return ret;
}

/*
 * No context is bound (each held the module), so no job is out: the last
 * job_fini() waited for every timer and work item.
 */
static void __exit retire_sim_exit(void)
{
	retire_engine_unregister(&retire_sim_engine);
	destroy_workqueue(retire_sim.wq);
}

module_init(retire_sim_init);
module_exit(retire_sim_exit);

MODULE_DESCRIPTION("retire: the sim engine, a software device with knobs");
MODULE_AUTHOR("The retire developers");
MODULE_LICENSE("GPL");
MODULE_ALIAS("retire-engine-sim");
