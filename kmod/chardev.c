// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/retire: file operations. This file only copies and validates
 * arguments and dispatches; the state machines live in their own files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/dma-mapping.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "main.h"
#include "buf.h"
#include "cancel.h"
#include "dmabuf.h"
#include "chardev.h"
#include "ctx.h"
#include "engine.h"
#include "history.h"
#include "op.h"
#include "records.h"
#include "req.h"
#include "ring.h"
#include "stats.h"
#include "token.h"

/* the size of struct retire_info in ABI version 1; it may only grow */
#define RETIRE_INFO_SIZE_VER0	offsetofend(struct retire_info, reserved)

/**
 * retire_arg_copy_in() - copy an ioctl argument that may grow over time
 * @karg:	the kernel's copy, @ksize bytes; zero-filled past what the
 *		caller passed
 * @ksize:	the size of the structure this module knows
 * @minsize:	the size of the structure's first ABI version
 * @cmd:	the ioctl number: its size field is the caller's size
 * @uarg:	the caller's structure
 *
 * Return: 0, -EINVAL if the caller's structure is older than the first
 * version, -E2BIG if it is newer and a byte this module does not know is
 * non-zero, or -EFAULT.
 */
int retire_arg_copy_in(void *karg, size_t ksize, size_t minsize,
		       unsigned int cmd, const void __user *uarg)
{
	size_t usize = _IOC_SIZE(cmd);

	if (usize < minsize)
		return -EINVAL;
	return copy_struct_from_user(karg, ksize, uarg, usize);
}
EXPORT_SYMBOL_GPL(retire_arg_copy_in);

/**
 * retire_arg_copy_out() - copy an ioctl argument back
 * @uarg:	the caller's structure
 * @cmd:	the command, whose size field is the caller's structure size
 * @karg:	the kernel's copy
 * @ksize:	its size
 *
 * No more than the caller's structure holds is copied.
 *
 * Return: 0 or -EFAULT.
 */
int retire_arg_copy_out(void __user *uarg, unsigned int cmd,
			const void *karg, size_t ksize)
{
	if (copy_to_user(uarg, karg, min_t(size_t, ksize, _IOC_SIZE(cmd))))
		return -EFAULT;
	return 0;
}
EXPORT_SYMBOL_GPL(retire_arg_copy_out);

/**
 * retire_info_check() - validate the input side of RETIRE_IOC_GET_INFO
 * @info: the caller's structure
 *
 * Return: 0, or -EINVAL if a flag or a reserved field is non-zero.
 */
int retire_info_check(const struct retire_info *info)
{
	if (info->flags)
		return -EINVAL;
	if (memchr_inv(info->reserved, 0, sizeof(info->reserved)))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(retire_info_check);

static long retire_ioctl_get_info(struct retire_ctx *ctx, unsigned int cmd,
				  void __user *uarg)
{
	struct retire_info info;
	int ret;

	ret = retire_arg_copy_in(&info, sizeof(info), RETIRE_INFO_SIZE_VER0,
				 cmd, uarg);
	if (ret)
		return ret;
	ret = retire_info_check(&info);
	if (ret)
		return ret;

	retire_info_fill(&info);
	return retire_arg_copy_out(uarg, cmd, &info, sizeof(info));
}

static bool retire_reserved_zero(const __u64 *r, size_t size)
{
	return !memchr_inv(r, 0, size);
}

static long retire_ioctl_buf_register(struct retire_ctx *ctx,
				      unsigned int cmd, void __user *uarg)
{
	struct retire_buf_reg reg;
	int ret;

	ret = retire_arg_copy_in(&reg, sizeof(reg), sizeof(reg), cmd, uarg);
	if (ret)
		return ret;
	/* the reply must be able to go back before anything is evicted */
	ret = retire_arg_copy_out(uarg, cmd, &reg, sizeof(reg));
	if (ret)
		return ret;
	/* output-only fields: what the caller left there is ignored */
	reg.evicted = 0;
	reg.handle = 0;
	reg.mmap_offset = 0;
	ret = retire_buf_register(ctx, &reg);
	if (ret)
		return ret;
	ret = retire_arg_copy_out(uarg, cmd, &reg, sizeof(reg));
	if (ret)
		/* nobody learnt the handle: take the buffer back */
		retire_buf_unregister(ctx, reg.handle);
	return ret;
}

/* the argument of the commands naming one handle */
static int retire_handle_arg_in(struct retire_handle_arg *a,
				unsigned int cmd, void __user *uarg)
{
	int ret = retire_arg_copy_in(a, sizeof(*a), sizeof(*a), cmd, uarg);

	if (ret)
		return ret;
	if (a->flags || a->pad || !retire_reserved_zero(a->reserved,
							sizeof(a->reserved)))
		return -EINVAL;
	return 0;
}

/*
 * RETIRE_IOC_BUF_EXPORT: the fd goes in only once the reply is back, so a
 * reply that cannot be written changes nothing.
 */
static long retire_ioctl_buf_export(struct retire_ctx *ctx, unsigned int cmd,
				    void __user *uarg)
{
	struct retire_buf_export e;
	struct dma_buf *dmabuf;
	int ret, fd;

	ret = retire_arg_copy_in(&e, sizeof(e), sizeof(e), cmd, uarg);
	if (ret)
		return ret;
	if (e.flags || !retire_reserved_zero(e.reserved, sizeof(e.reserved)))
		return -EINVAL;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	ret = retire_buf_export(ctx, &e, &dmabuf);
	if (ret) {
		put_unused_fd(fd);
		return ret;
	}
	e.fd = fd;
	ret = retire_arg_copy_out(uarg, cmd, &e, sizeof(e));
	if (ret) {
		put_unused_fd(fd);
		retire_buf_export_drop(dmabuf);
		return ret;
	}
	fd_install(fd, retire_buf_export_file(dmabuf));
	return 0;
}

/*
 * RETIRE_IOC_BUF_REVOKE: the revocation stays whatever the wait or the
 * reply does; repeating the call waits again.
 */
static long retire_ioctl_buf_revoke(struct retire_ctx *ctx, unsigned int cmd,
				    void __user *uarg)
{
	struct retire_buf_revoke a;
	int ret;

	ret = retire_arg_copy_in(&a, sizeof(a), sizeof(a), cmd, uarg);
	if (ret)
		return ret;
	if (a.flags || a.pad ||
	    !retire_reserved_zero(a.reserved, sizeof(a.reserved)))
		return -EINVAL;
	if (a.fd < 0)
		return -EBADF;
	ret = retire_buf_revoke(ctx, &a);
	if (ret)
		return ret;
	return retire_arg_copy_out(uarg, cmd, &a, sizeof(a));
}

/*
 * RETIRE_IOC_BUF_IMPORT: a reply that cannot be written takes the buffer
 * out again, so it changes nothing.
 */
static long retire_ioctl_buf_import(struct retire_ctx *ctx, unsigned int cmd,
				    void __user *uarg)
{
	struct retire_buf_import a;
	int ret;

	ret = retire_arg_copy_in(&a, sizeof(a), sizeof(a), cmd, uarg);
	if (ret)
		return ret;
	if (a.flags || !retire_reserved_zero(a.reserved, sizeof(a.reserved)))
		return -EINVAL;
	if (a.fd < 0)
		return -EBADF;
	ret = retire_buf_import(ctx, &a);
	if (ret)
		return ret;
	ret = retire_arg_copy_out(uarg, cmd, &a, sizeof(a));
	/* nobody was told the handle: only a guess may have used it */
	if (ret)
		retire_buf_unregister(ctx, a.handle);
	return ret;
}

/*
 * One entry of RETIRE_IOC_SUBMIT, as the SUBMIT operation it is. An entry
 * has pad and reserved fields an operation has not: one that is not zero
 * is refused in admission, as an unknown flag is (an attempt, counted in
 * refused), which is what a malformed entry has always got.
 */
static int retire_sqe_run(struct retire_ctx *ctx, struct retire_sqe *sqe,
			  ktime_t now)
{
	struct retire_op op = {
		.opcode = RETIRE_OP_SUBMIT,
		.flags = sqe->flags,
		.user_data = sqe->user_data,
		.buf = sqe->buf,
		.offset = sqe->offset,
		.len = sqe->len,
		.deadline_ns = sqe->deadline_ns,
		.key = sqe->key,
		.dev_flags = sqe->dev_flags,
	};
	int ret;

	static_assert(ARRAY_SIZE(sqe->reserved) == 2);
	if ((sqe->pad && !(sqe->flags & RETIRE_SQE_F_IN_FENCE)) ||
	    sqe->reserved[0] || sqe->reserved[1])
		op.flags |= RETIRE_SQE_F_MALFORMED;
	else if (sqe->flags & RETIRE_SQE_F_IN_FENCE)
		op.in_fence = sqe->in_fence;
	ret = retire_op_run(ctx, &op, now);
	sqe->handle = op.handle;
	return ret;
}

static long retire_ioctl_submit(struct retire_ctx *ctx, unsigned int cmd,
				void __user *uarg)
{
	struct retire_sqe __user *usqes;
	struct retire_submit sub;
	struct retire_sqe *sqes;
	unsigned int i;
	ktime_t now;
	size_t size;
	int ret;

	ret = retire_arg_copy_in(&sub, sizeof(sub), sizeof(sub), cmd, uarg);
	if (ret)
		return ret;
	if (sub.flags || sub.pad ||
	    !retire_reserved_zero(sub.reserved, sizeof(sub.reserved)) ||
	    !sub.nr || sub.nr > RETIRE_SUBMIT_MAX)
		return -EINVAL;

	/* copy in before ctx->mutex: this batch takes no fault under it */
	usqes = u64_to_user_ptr(sub.sqes);
	size = array_size(sub.nr, sizeof(*sqes));
	sqes = memdup_user(usqes, size);
	if (IS_ERR(sqes))
		return PTR_ERR(sqes);
	/*
	 * And make sure the results can go back before anything is
	 * admitted: writing the array back unchanged proves it writable.
	 */
	if (copy_to_user(usqes, sqes, size)) {
		kfree(sqes);
		return -EFAULT;
	}

	/* output-only: submitted, and each entry's handle and result */
	sub.submitted = 0;
	mutex_lock(&ctx->mutex);
	now = ktime_get();
	for (i = 0; i < sub.nr; i++) {
		sqes[i].handle = 0;
		sqes[i].result = retire_sqe_run(ctx, &sqes[i], now);
		/* 0, or the out-fence's fd: admitted */
		if (sqes[i].result >= 0)
			sub.submitted++;
	}
	mutex_unlock(&ctx->mutex);

	/*
	 * Admitted entries stay admitted: their records name them (handle
	 * and user_data). If the array went away meanwhile, the count still
	 * tells the caller how many records to expect.
	 */
	ret = copy_to_user(usqes, sqes, size) ? -EFAULT : 0;
	kfree(sqes);
	return retire_arg_copy_out(uarg, cmd, &sub, sizeof(sub)) ?: ret;
}

static long retire_ioctl_token(struct retire_ctx *ctx, unsigned int cmd,
			       void __user *uarg)
{
	static const u32 opcodes[] = {
		[RETIRE_TOKEN_BORROW] = RETIRE_OP_BORROW,
		[RETIRE_TOKEN_RETURN] = RETIRE_OP_RETURN,
		[RETIRE_TOKEN_HANDOFF] = RETIRE_OP_HANDOFF,
	};
	struct retire_token_op t;
	struct retire_op op;
	int ret;

	ret = retire_arg_copy_in(&t, sizeof(t), sizeof(t), cmd, uarg);
	if (ret)
		return ret;
	if (t.flags || t.pad ||
	    !retire_reserved_zero(t.reserved, sizeof(t.reserved)) ||
	    t.op >= ARRAY_SIZE(opcodes))
		return -EINVAL;
	op = (struct retire_op) {
		/* an unknown @t.op finds 0 here, which no operation has */
		.opcode = opcodes[array_index_nospec(t.op, ARRAY_SIZE(opcodes))],
		.handle = t.handle,
		.error = t.error,
	};
	ret = retire_op_run_one(ctx, &op);
	if (ret || op.opcode == RETIRE_OP_RETURN)
		return ret;
	t.token = op.handle;	/* output only */
	return retire_arg_copy_out(uarg, cmd, &t, sizeof(t));
}

/* the arguments of ENTER, or of REAP as an ENTER without operations */
static int retire_enter_check(const struct retire_enter *e)
{
	static_assert(ARRAY_SIZE(e->reserved) == 2);
	if (e->flags & ~RETIRE_ENTER_F_ALL ||
	    e->reserved[0] || e->reserved[1] ||
	    e->nr_ops > RETIRE_SUBMIT_MAX || e->nr_cqes > RETIRE_SUBMIT_MAX)
		return -EINVAL;
	if (e->flags & RETIRE_ENTER_F_RINGS)
		return e->ops || e->cqes || e->nr_cqes ? -EINVAL : 0;
	if ((!e->nr_ops && !e->nr_cqes) || e->min_complete > e->nr_cqes)
		return -EINVAL;
	return 0;
}

static long retire_ioctl_reap(struct retire_ctx *ctx, unsigned int cmd,
			      void __user *uarg)
{
	struct retire_enter e;
	struct retire_reap reap;
	int ret;

	ret = retire_arg_copy_in(&reap, sizeof(reap), sizeof(reap), cmd, uarg);
	if (ret)
		return ret;
	if (reap.flags & ~RETIRE_REAP_F_ALL ||
	    !retire_reserved_zero(reap.reserved, sizeof(reap.reserved)))
		return -EINVAL;
	e = (struct retire_enter) {
		.cqes = reap.cqes,
		.nr_cqes = reap.nr,
		.min_complete = reap.min_complete,
		.flags = reap.flags,
		.timeout_ns = reap.timeout_ns,
	};
	/* and so !nr, nr above RETIRE_SUBMIT_MAX, min_complete above nr */
	ret = retire_enter_check(&e) ?: retire_enter_arrays(ctx, &e, NULL);
	if (ret)
		return ret;
	reap.reaped = e.reaped;	/* output only: a reap loop may reuse reap */
	return retire_arg_copy_out(uarg, cmd, &reap, sizeof(reap));
}

/* ENTER's output: its two counts, the rest of the caller's copy untouched */
static int retire_enter_copy_out(struct retire_enter __user *u,
				 const struct retire_enter *e)
{
	if (put_user(e->done, &u->done) || put_user(e->reaped, &u->reaped))
		return -EFAULT;
	return 0;
}

static long retire_ioctl_enter(struct retire_ctx *ctx, unsigned int cmd,
			       void __user *uarg)
{
	struct retire_op __user *uops;
	struct retire_op *ops = NULL;
	struct retire_enter e;
	size_t size = 0;
	int ret;

	/*
	 * The structure of the size this module knows (every caller's today)
	 * is copied with a constant size, which costs the hot call no
	 * extensible-struct walk and no hardened-usercopy check.
	 */
	if (likely(cmd == RETIRE_IOC_ENTER)) {
		if (copy_from_user(&e, uarg, sizeof(e)))
			return -EFAULT;
	} else {
		ret = retire_arg_copy_in(&e, sizeof(e), sizeof(e), cmd, uarg);
		if (ret)
			return ret;
	}
	ret = retire_enter_check(&e);
	if (ret)
		return ret;
	/* output-only: a loop may pass the same structure again */
	e.done = 0;
	e.reaped = 0;
	if (e.flags & RETIRE_ENTER_F_RINGS) {
		ret = retire_enter_rings(ctx, &e);
		return retire_enter_copy_out(uarg, &e) ?: ret;
	}

	/* as RETIRE_IOC_SUBMIT: no fault under the mutex, results can go back */
	uops = u64_to_user_ptr(e.ops);
	if (e.nr_ops) {
		size = array_size(e.nr_ops, sizeof(*ops));
		ops = memdup_user(uops, size);
		if (IS_ERR(ops))
			return PTR_ERR(ops);
		if (copy_to_user(uops, ops, size)) {
			kfree(ops);
			return -EFAULT;
		}
	}
	ret = retire_enter_arrays(ctx, &e, ops);
	if (ops) {
		if (copy_to_user(uops, ops, size))
			ret = -EFAULT;
		kfree(ops);
	}
	return retire_enter_copy_out(uarg, &e) ?: ret;
}

static long retire_ioctl_engines(struct retire_ctx *ctx, unsigned int cmd,
				 void __user *uarg)
{
	struct retire_engine_info *info = NULL;
	struct retire_engines_arg a;
	int n, ret;

	ret = retire_arg_copy_in(&a, sizeof(a), sizeof(a), cmd, uarg);
	if (ret)
		return ret;
	if (a.flags || !retire_reserved_zero(a.reserved, sizeof(a.reserved)))
		return -EINVAL;
	/* more than a few hundred engines is no machine's */
	a.nr = min_t(u32, a.nr, 256);
	if (a.nr) {
		info = kcalloc(a.nr, sizeof(*info), GFP_KERNEL);
		if (!info)
			return -ENOMEM;
	}
	n = retire_engine_list(info, a.nr);
	if (info && copy_to_user(u64_to_user_ptr(a.engines), info,
				 min_t(u32, n, a.nr) * sizeof(*info)))
		ret = -EFAULT;
	kfree(info);
	a.nr = n;
	return ret ?: retire_arg_copy_out(uarg, cmd, &a, sizeof(a));
}

static long retire_ioctl_history(struct retire_ctx *ctx, unsigned int cmd,
				 void __user *uarg)
{
	struct retire_history_arg a;
	struct retire_history_event *ev;
	int ret;

	ret = retire_arg_copy_in(&a, sizeof(a), sizeof(a), cmd, uarg);
	if (ret)
		return ret;
	if (a.flags || !retire_reserved_zero(a.reserved, sizeof(a.reserved)))
		return -EINVAL;
	/* output-only */
	a.recorded = 0;
	a.dropped = 0;
	a.nr = min_t(u32, a.nr, RETIRE_HISTORY_LEN);
	ev = kcalloc(max_t(u32, a.nr, 1), sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return -ENOMEM;
	if (a.ctx_id && a.ctx_id != ctx->id) {
		ret = retire_history_copy_id(a.ctx_id, ev, &a.nr, &a.recorded);
		if (ret) {
			kfree(ev);
			return ret;
		}
	} else {
		a.ctx_id = ctx->id;
		a.nr = retire_history_copy(ctx, ev, a.nr, &a.recorded);
	}
	a.dropped = a.recorded - min_t(u64, a.recorded, RETIRE_HISTORY_LEN);
	if (copy_to_user(u64_to_user_ptr(a.events), ev,
			 a.nr * sizeof(*ev)))
		ret = -EFAULT;
	kfree(ev);
	return ret ?: retire_arg_copy_out(uarg, cmd, &a, sizeof(a));
}

static long retire_ioctl_context(struct retire_ctx *ctx, unsigned int cmd,
				 void __user *uarg)
{
	struct retire_context_arg a;
	int ret;

	ret = retire_arg_copy_in(&a, sizeof(a), sizeof(a), cmd, uarg);
	if (ret)
		return ret;
	if (a.flags || a.pad || a.ctx_id || a.reserved)
		return -EINVAL;
	switch (a.op) {
	case RETIRE_CONTEXT_GET:
		mutex_lock(&ctx->mutex);
		a.engine = ctx->engine->id;
		mutex_unlock(&ctx->mutex);
		a.ctx_id = ctx->id;
		return retire_arg_copy_out(uarg, cmd, &a, sizeof(a));
	case RETIRE_CONTEXT_SET:
		return retire_ctx_set_engine(ctx, a.engine);
	default:
		return -EINVAL;
	}
}

static long retire_ioctl_ring_setup(struct retire_ctx *ctx, unsigned int cmd,
				    void __user *uarg)
{
	struct retire_ring_setup rs;
	int ret;

	ret = retire_arg_copy_in(&rs, sizeof(rs), sizeof(rs), cmd, uarg);
	if (ret)
		return ret;
	ret = retire_ring_setup(ctx, &rs);
	if (ret)
		return ret;
	/* the rings stay: the caller may set up no others, and maps these */
	return retire_arg_copy_out(uarg, cmd, &rs, sizeof(rs));
}

static long retire_ioctl_get_stats(struct retire_ctx *ctx, unsigned int cmd,
				   void __user *uarg)
{
	struct retire_stats_arg a;
	struct retire_stats *st;
	int ret;

	ret = retire_arg_copy_in(&a, sizeof(a), sizeof(a), cmd, uarg);
	if (ret)
		return ret;
	if (a.flags & ~RETIRE_STATS_F_ALL || !a.size ||
	    !retire_reserved_zero(a.reserved, sizeof(a.reserved)))
		return -EINVAL;
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	if (a.flags & RETIRE_STATS_F_MODULE) {
		retire_stats_module(st);
	} else {
		spin_lock_irq(&ctx->lock);
		retire_stats_export(&ctx->stats, st);
		spin_unlock_irq(&ctx->lock);
	}
	/* a larger caller structure gets zeroes for what this module lacks */
	ret = copy_to_user(u64_to_user_ptr(a.stats), st,
			   min_t(size_t, a.size, sizeof(*st))) ? -EFAULT : 0;
	if (!ret && a.size > sizeof(*st) &&
	    clear_user(u64_to_user_ptr(a.stats) + sizeof(*st),
		       a.size - sizeof(*st)))
		ret = -EFAULT;
	kfree(st);
	return ret;
}

static long retire_ioctl_limits(struct retire_ctx *ctx, unsigned int cmd,
				void __user *uarg)
{
	struct retire_limits_arg a;
	int ret;

	ret = retire_arg_copy_in(&a, sizeof(a), sizeof(a), cmd, uarg);
	if (ret)
		return ret;
	if (a.flags || !retire_reserved_zero(a.reserved, sizeof(a.reserved)))
		return -EINVAL;
	switch (a.op) {
	case RETIRE_LIMITS_GET:
		spin_lock_irq(&ctx->lock);
		a.limits = ctx->limits;
		spin_unlock_irq(&ctx->lock);
		return retire_arg_copy_out(uarg, cmd, &a, sizeof(a));
	case RETIRE_LIMITS_SET:
		return retire_ctx_set_limits(ctx, &a.limits);
	default:
		return -EINVAL;
	}
}

static long retire_ioctl_epoch(struct retire_ctx *ctx, unsigned int cmd,
			       void __user *uarg)
{
	struct retire_epoch_arg a;
	int ret;

	ret = retire_arg_copy_in(&a, sizeof(a), sizeof(a), cmd, uarg);
	if (ret)
		return ret;
	if (a.flags || !retire_reserved_zero(a.reserved, sizeof(a.reserved)))
		return -EINVAL;
	/* output-only */
	a.epoch = 0;
	a.authority = 0;
	ret = retire_ctx_epoch(ctx, a.op, a.key, &a.epoch, &a.authority);
	if (ret)
		return ret;
	return retire_arg_copy_out(uarg, cmd, &a, sizeof(a));
}

static long retire_ioctl_cancel_match(struct retire_ctx *ctx,
				      unsigned int cmd, void __user *uarg)
{
	struct retire_cancel_match m;
	struct retire_op op;
	int ret;

	ret = retire_arg_copy_in(&m, sizeof(m), sizeof(m), cmd, uarg);
	if (ret)
		return ret;
	if (m.flags & ~RETIRE_CANCEL_F_ALL ||
	    !retire_reserved_zero(m.reserved, sizeof(m.reserved)) ||
	    (m.timeout_ns && !(m.flags & RETIRE_CANCEL_F_WAIT)))
		return -EINVAL;
	/* as SUBMIT: the answer can go back before anything is cancelled */
	if (retire_arg_copy_out(uarg, cmd, &m, sizeof(m)))
		return -EFAULT;
	/* the cancel is the operation; the wait is this command's own */
	op = (struct retire_op) {
		.opcode = RETIRE_OP_CANCEL_MATCH,
		.flags = m.flags & ~RETIRE_CANCEL_F_WAIT,
		.key = m.key,
	};
	ret = retire_op_run_one(ctx, &op);
	if (ret < 0)
		return ret;
	m.found = ret;
	m.kept = op.handle;
	m.pending = 0;
	ret = 0;
	if (m.flags & RETIRE_CANCEL_F_WAIT)
		ret = retire_req_cancel_wait(ctx, op.flags, m.key, m.timeout_ns,
					     &m.pending);
	return retire_arg_copy_out(uarg, cmd, &m, sizeof(m)) ?: ret;
}

/*
 * Commands are matched on type, number and direction; the size field is the
 * caller's structure size, which retire_arg_copy_in() negotiates.
 */
static bool retire_cmd_is(unsigned int cmd, unsigned int want)
{
	return _IOC_TYPE(cmd) == _IOC_TYPE(want) &&
	       _IOC_NR(cmd) == _IOC_NR(want) &&
	       _IOC_DIR(cmd) == _IOC_DIR(want);
}

/* the commands whose argument is one handle */
static long retire_ioctl_handle(struct retire_ctx *ctx, unsigned int cmd,
				void __user *uarg)
{
	struct retire_op op = { };
	struct retire_handle_arg h;
	long ret;

	ret = retire_handle_arg_in(&h, cmd, uarg);
	if (ret)
		return ret;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(RETIRE_IOC_BUF_UNREGISTER):
		return retire_buf_unregister(ctx, h.handle);
	case _IOC_NR(RETIRE_IOC_CANCEL):
		op.opcode = RETIRE_OP_CANCEL;
		break;
	default:	/* RETIRE_IOC_RETIRE */
		op.opcode = RETIRE_OP_RETIRE;
		break;
	}
	op.handle = h.handle;
	return retire_op_run_one(ctx, &op);
}

/**
 * struct retire_ioc - what a command number stands for
 * @cmd:	the command (its type and direction must match the caller's)
 * @fn:		its handler, which checks the privileges that depend on its
 *		argument (LIMITS: a short watchdog)
 *
 * Commands an engine serves are not here: a number with no entry goes to
 * the engines (retire_engine_ioctl()), which check their own privileges.
 */
struct retire_ioc {
	unsigned int cmd;
	long (*fn)(struct retire_ctx *ctx, unsigned int cmd, void __user *uarg);
};

#define RETIRE_IOC(name, handler) \
	[_IOC_NR(RETIRE_IOC_##name)] = { RETIRE_IOC_##name, handler }

static const struct retire_ioc retire_iocs[] = {
	RETIRE_IOC(GET_INFO, retire_ioctl_get_info),
	RETIRE_IOC(BUF_REGISTER, retire_ioctl_buf_register),
	RETIRE_IOC(BUF_UNREGISTER, retire_ioctl_handle),
	RETIRE_IOC(SUBMIT, retire_ioctl_submit),
	RETIRE_IOC(CANCEL, retire_ioctl_handle),
	RETIRE_IOC(RETIRE, retire_ioctl_handle),
	RETIRE_IOC(TOKEN, retire_ioctl_token),
	RETIRE_IOC(REAP, retire_ioctl_reap),
	RETIRE_IOC(GET_STATS, retire_ioctl_get_stats),
	RETIRE_IOC(LIMITS, retire_ioctl_limits),
	RETIRE_IOC(EPOCH, retire_ioctl_epoch),
	RETIRE_IOC(ENTER, retire_ioctl_enter),
	RETIRE_IOC(RING_SETUP, retire_ioctl_ring_setup),
	RETIRE_IOC(ENGINES, retire_ioctl_engines),
	RETIRE_IOC(CONTEXT, retire_ioctl_context),
	RETIRE_IOC(HISTORY, retire_ioctl_history),
	RETIRE_IOC(CANCEL_MATCH, retire_ioctl_cancel_match),
	RETIRE_IOC(BUF_EXPORT, retire_ioctl_buf_export),
	RETIRE_IOC(BUF_IMPORT, retire_ioctl_buf_import),
	RETIRE_IOC(BUF_REVOKE, retire_ioctl_buf_revoke),
};

static long retire_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct retire_ctx *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;
	unsigned int nr = _IOC_NR(cmd);
	const struct retire_ioc *ioc;

	if (nr >= ARRAY_SIZE(retire_iocs))
		return retire_engine_ioctl(ctx, cmd, uarg);
	/* the caller chose nr: no speculative read past the table either */
	ioc = &retire_iocs[array_index_nospec(nr, ARRAY_SIZE(retire_iocs))];
	if (!ioc->cmd)
		return retire_engine_ioctl(ctx, cmd, uarg);
	if (!retire_cmd_is(cmd, ioc->cmd))
		return -ENOTTY;
	return ioc->fn(ctx, cmd, uarg);
}

static ssize_t retire_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct retire_ctx *ctx = file->private_data;
	unsigned int nr;
	int ret;

	if (count < sizeof(struct retire_cqe))
		return -EINVAL;
	nr = min_t(size_t, count / sizeof(struct retire_cqe), RETIRE_SUBMIT_MAX);
	for (;;) {
		if (!retire_records_ready(ctx)) {
			if (file->f_flags & O_NONBLOCK)
				return -EAGAIN;
			ret = wait_event_interruptible(ctx->waitq,
						       retire_records_ready(ctx));
			if (ret)
				return ret;
		}
		mutex_lock(&ctx->mutex);
		ret = retire_records_take(ctx, (struct retire_cqe __user *)ubuf,
					  nr);
		mutex_unlock(&ctx->mutex);
		if (ret)
			break;
	}
	return ret < 0 ? ret : ret * sizeof(struct retire_cqe);
}

static __poll_t retire_poll(struct file *file, poll_table *wait)
{
	struct retire_ctx *ctx = file->private_data;

	poll_wait(file, &ctx->waitq, wait);
	return retire_records_ready(ctx) || retire_ring_unread(ctx) ?
	       EPOLLIN | EPOLLRDNORM : 0;
}

static int retire_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff == RETIRE_RING_OFFSET >> PAGE_SHIFT)
		return retire_ring_mmap(file->private_data, vma);
	return retire_buf_mmap(file->private_data, vma);
}

static int retire_open(struct inode *inode, struct file *file)
{
	struct retire_engine *e = retire_engine_get_default();
	struct retire_ctx *ctx;

	/* the default engine, or none (RETIRE_IOC_CONTEXT moves it) */
	ctx = retire_ctx_create(e);
	retire_engine_put(e);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	file->private_data = ctx;
	return nonseekable_open(inode, file);
}

static int retire_release(struct inode *inode, struct file *file)
{
	/* the file's reference passes to the reaper */
	retire_ctx_release(file->private_data);
	return 0;
}

static const struct file_operations retire_fops = {
	.owner		= THIS_MODULE,
	.open		= retire_open,
	.release	= retire_release,
	.read		= retire_read,
	.poll		= retire_poll,
	.mmap		= retire_mmap,
	.unlocked_ioctl	= retire_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

/*
 * A fixed minor, so that opening /dev/retire can load the module: the misc
 * core asks for "char-major-10-<minor>" only for a minor below
 * MISC_DYNAMIC_MINOR (255), and depmod lists the node in modules.devname
 * (for kmod static-nodes to create at boot) only for a module with both
 * aliases below. 243 is the first of 243-254, which
 * Documentation/admin-guide/devices.txt reserves for local use: no driver
 * of 6.1 or 6.12 claims it, and neither hands it out dynamically (the
 * misc core of Debian's 6.1 gives 127 down to 0, of its 6.12 256 and up).
 * Should another local driver hold it, loading fails with -EBUSY rather
 * than moving the node.
 */
#define RETIRE_MISC_MINOR	243

static struct miscdevice retire_misc = {
	.minor	= RETIRE_MISC_MINOR,
	.name	= RETIRE_DEVICE_NAME,
	.fops	= &retire_fops,
	.mode	= 0600,
};

/**
 * retire_chardev_register() - create /dev/retire
 *
 * Return: 0 or the misc_register() error.
 */
int retire_chardev_register(void)
{
	int ret = misc_register(&retire_misc);

	if (ret)
		return ret;
	/*
	 * Imports for an engine that moves bytes with the CPU are attached
	 * to this device: its exporter maps them for it, as for any other
	 * (udmabuf does the same for its own device).
	 */
	ret = dma_coerce_mask_and_coherent(retire_misc.this_device,
					   DMA_BIT_MASK(64));
	if (ret)
		misc_deregister(&retire_misc);
	return ret;
}

/**
 * retire_chardev_device() - the device behind /dev/retire
 *
 * Return: it; it lives while the module does.
 */
struct device *retire_chardev_device(void)
{
	return retire_misc.this_device;
}

/**
 * retire_chardev_unregister() - remove /dev/retire
 *
 * No file can be open here: each open file pins the module.
 */
void retire_chardev_unregister(void)
{
	misc_deregister(&retire_misc);
}

MODULE_ALIAS_MISCDEV(RETIRE_MISC_MINOR);
MODULE_ALIAS("devname:" RETIRE_DEVICE_NAME);
