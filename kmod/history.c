// SPDX-License-Identifier: GPL-2.0
/*
 * A context's history: its last RETIRE_HISTORY_LEN events, overwritten
 * oldest first, read by RETIRE_IOC_HISTORY and debugfs. The tracepoints
 * report the same events as they happen; this file instantiates them.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "names.h"

#define CREATE_TRACE_POINTS
#include "history.h"

/**
 * retire_history_alloc() - an empty history
 *
 * Return: it, or NULL. Charged to the caller's memory cgroup, as the
 * context is.
 */
struct retire_history *retire_history_alloc(void)
{
	return kzalloc(sizeof(struct retire_history), GFP_KERNEL_ACCOUNT);
}

/**
 * retire_history_free() - free a history
 * @h: it, or NULL
 */
void retire_history_free(struct retire_history *h)
{
	kfree(h);
}

/**
 * retire_history_copy() - the newest events, oldest first
 * @ctx:	the context
 * @out:	room for @nr events
 * @nr:		at most RETIRE_HISTORY_LEN
 * @recorded:	events since the context was created
 *
 * Return: how many were written to @out.
 */
u32 retire_history_copy(struct retire_ctx *ctx, struct retire_history_event *out,
			u32 nr, u64 *recorded)
{
	struct retire_history *h = ctx->history;
	u64 first;
	u32 i, n;

	spin_lock_irq(&ctx->lock);
	*recorded = h->recorded;
	n = min_t(u64, min_t(u32, nr, RETIRE_HISTORY_LEN), h->recorded);
	first = h->recorded - n;
	for (i = 0; i < n; i++)
		out[i] = h->ev[(first + i) & (RETIRE_HISTORY_LEN - 1)];
	spin_unlock_irq(&ctx->lock);
	return n;
}

struct retire_history_find {
	u64 id;
	struct retire_history_event *out;
	u32 nr;
	u64 recorded;
	int ret;
};

static int retire_history_visit(struct retire_ctx *ctx, void *arg)
{
	struct retire_history_find *f = arg;

	/* ids only grow along the list: past @id, it is not there */
	if (ctx->id != f->id)
		return ctx->id > f->id;
	/* the same rule as the netlink dumps: one's own, or an admin's */
	if (!uid_eq(ctx->uid, current_euid()) && !capable(CAP_SYS_ADMIN)) {
		f->ret = -EPERM;
	} else {
		f->nr = retire_history_copy(ctx, f->out, f->nr, &f->recorded);
		f->ret = 0;
	}
	return 1;
}

/**
 * retire_history_copy_id() - retire_history_copy() of another context
 * @id:		its id
 * @out:	room for *@nr events
 * @nr:		in: at most RETIRE_HISTORY_LEN; out: how many were written
 * @recorded:	events since that context was created
 *
 * Return: 0; -ENOENT if no context has @id; -EPERM if another user opened
 * it and the caller lacks CAP_SYS_ADMIN.
 */
int retire_history_copy_id(u64 id, struct retire_history_event *out, u32 *nr,
			   u64 *recorded)
{
	struct retire_history_find f = {
		.id = id,
		.out = out,
		.nr = *nr,
		.ret = -ENOENT,
	};

	retire_ctx_walk_after(id - 1, retire_history_visit, &f);
	if (f.ret)
		return f.ret;
	*nr = f.nr;
	*recorded = f.recorded;
	return f.ret;
}

static const char * const retire_event_names[] = RETIRE_EVENT_NAME_TABLE;

/**
 * retire_history_show() - the history as text, one event a line
 * @m:		the debugfs file
 * @ctx:	the context
 *
 * Copied out under the lock first: printing never holds it.
 *
 * Return: 0 or -ENOMEM.
 */
int retire_history_show(struct seq_file *m, struct retire_ctx *ctx)
{
	struct retire_history_event *ev;
	u64 recorded;
	u32 i, n;

	ev = kmalloc_array(RETIRE_HISTORY_LEN, sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return -ENOMEM;
	n = retire_history_copy(ctx, ev, RETIRE_HISTORY_LEN, &recorded);
	seq_printf(m, "recorded %llu dropped %llu\n", recorded, recorded - n);
	for (i = 0; i < n; i++)
		seq_printf(m, "%llu.%09llu %-10s %#018llx value %d aux %#llx\n",
			   ev[i].time_ns / NSEC_PER_SEC,
			   ev[i].time_ns % NSEC_PER_SEC,
			   ev[i].type < ARRAY_SIZE(retire_event_names) &&
			   retire_event_names[ev[i].type] ?
			   retire_event_names[ev[i].type] : "?",
			   ev[i].handle, ev[i].value, ev[i].aux);
	kfree(ev);
	return 0;
}
