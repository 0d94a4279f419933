// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: retire/module, the module-wide state, and retire/<context id>/
 * with the context ("context"), every request that holds a slot
 * ("requests") and the last events ("history"). Root only (0400), for
 * whoever must see what a context holds and why.
 *
 * A context's directory goes before the context is freed, and debugfs's
 * removal waits for readers inside its files: a reader never sees a
 * context that is gone. Every value is copied under the context's lock
 * and printed after it, one request at a time: a reader never holds the
 * lock (with interrupts off) for longer than one request takes.
 */
#include <linux/debugfs.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/retire.h>

#include "cancel.h"
#include "ctx.h"
#include "debugfs.h"
#include "engine.h"
#include "history.h"
#include "main.h"
#include "req.h"

static struct dentry *retire_debugfs_root;

static int retire_debugfs_context_show(struct seq_file *m, void *unused)
{
	struct retire_ctx *ctx = m->private;
	struct retire_limits l;
	u32 unretired, waiting, active, quarantined;
	u64 reserved, recorded;
	bool closed;

	spin_lock_irq(&ctx->lock);
	l = ctx->limits;
	unretired = ctx->unretired;
	waiting = ctx->waiting_nr;
	active = ctx->active;
	quarantined = ctx->quarantined;
	reserved = ctx->reserved_bytes;
	recorded = ctx->history->recorded;
	closed = ctx->closed;
	spin_unlock_irq(&ctx->lock);

	seq_printf(m, "id %llu\npid %d\ncomm %s\nuid %u\n", ctx->id,
		   pid_nr(ctx->owner), ctx->comm,
		   from_kuid(&init_user_ns, ctx->uid));
	/* the engine may change while nothing is unretired: under the mutex */
	mutex_lock(&ctx->mutex);
	seq_printf(m, "engine %u %s\n", ctx->engine->id, ctx->engine->name);
	mutex_unlock(&ctx->mutex);
	seq_printf(m, "closed %d\nunretired %u\nwaiting %u\nactive %u\nquarantined %u\nreserved_bytes %llu\nevents %llu\n",
		   closed, unretired, waiting, active, quarantined, reserved,
		   recorded);
	seq_printf(m, "max_unretired %u\nmax_active %u\nmax_active_per_key %u\nmax_waiting %u\nmax_tokens %u\nmax_buffers %u\n",
		   l.max_unretired, l.max_active, l.max_active_per_key,
		   l.max_waiting, l.max_tokens, l.max_buffers);
	seq_printf(m, "max_reserved_bytes %llu\nmax_pinned_bytes %llu\nmax_pool_bytes %llu\nwatchdog_ns %llu\n",
		   l.max_reserved_bytes, l.max_pinned_bytes, l.max_pool_bytes,
		   l.watchdog_ns);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(retire_debugfs_context);

static const char * const retire_req_state_names[] = {
	[RETIRE_REQ_FREE] = "free",
	[RETIRE_REQ_WAITING] = "waiting",
	[RETIRE_REQ_ACTIVE] = "active",
	[RETIRE_REQ_TERMINATED] = "terminated",
	[RETIRE_REQ_RETIRED] = "retired",
};

/* what one line of "requests" shows, copied under the lock */
struct retire_req_view {
	u64 handle;
	u64 key;
	u64 len;
	ktime_t deadline;
	u32 tokens;
	u8 state;
	u8 dev_flags;
	u8 outcome;
	bool device;
	bool timed_out;
	bool cancel_requested;
	bool quarantined;
	bool consumed;
};

/* 1 with @v filled if slot @idx holds a request, 0 if not, -1 past the end */
static int retire_req_view(struct retire_ctx *ctx, u32 idx,
			   struct retire_req_view *v)
{
	struct retire_req *req;
	int ret = 0;

	spin_lock_irq(&ctx->lock);
	if (idx >= ctx->reqs.nr) {
		ret = -1;
		goto out;
	}
	req = retire_slot_get(&ctx->reqs, idx);
	if (!req->slot.busy)
		goto out;
	ret = 1;
	memset(v, 0, sizeof(*v));
	v->handle = req->handle;
	v->key = req->key;
	v->len = req->len;
	v->state = req->state;
	v->dev_flags = req->dev_flags;
	v->outcome = req->outcome;
	/* d: the device may access the buffer until its terminal event */
	v->device = req->state == RETIRE_REQ_WAITING ||
		    req->state == RETIRE_REQ_ACTIVE;
	if (v->device)
		v->deadline = retire_deadline_expires(req);
	else if (req->state == RETIRE_REQ_TERMINATED)
		v->tokens = req->tokens;
	v->timed_out = req->timed_out;
	v->cancel_requested = req->cancel_requested;
	v->quarantined = req->quarantined;
	v->consumed = req->consumed;
out:
	spin_unlock_irq(&ctx->lock);
	return ret;
}

/*
 * "requests" is streamed: position 0 is the header, position n + 1 the
 * request in slot n, so a context with a million requests is read a
 * buffer at a time, never held whole.
 */
struct retire_reqs_iter {
	struct retire_ctx *ctx;
	struct retire_req_view v;
};

/* the first request at or after position *@pos (at least 1) */
static void *retire_reqs_find(struct retire_reqs_iter *it, loff_t *pos)
{
	u32 idx;
	int ret;

	if (*pos > RETIRE_SLOT_MAX)
		return NULL;
	for (idx = *pos - 1;; idx++) {
		ret = retire_req_view(it->ctx, idx, &it->v);
		if (ret < 0)
			return NULL;
		if (ret) {
			*pos = (loff_t)idx + 1;
			return it;
		}
		if (!(idx % 1024))
			cond_resched();
	}
}

static void *retire_reqs_start(struct seq_file *m, loff_t *pos)
{
	if (!*pos)
		return SEQ_START_TOKEN;
	return retire_reqs_find(m->private, pos);
}

static void *retire_reqs_next(struct seq_file *m, void *p, loff_t *pos)
{
	++*pos;
	return retire_reqs_find(m->private, pos);
}

static void retire_reqs_stop(struct seq_file *m, void *p)
{
}

static int retire_reqs_show(struct seq_file *m, void *p)
{
	struct retire_reqs_iter *it = m->private;
	const struct retire_req_view *v = &it->v;

	if (p == SEQ_START_TOKEN) {
		seq_puts(m, "handle             slot     gen        state      d tokens flags key len deadline_ns outcome\n");
		return 0;
	}
	seq_printf(m, "%#018llx %-8u %-10u %-10s %d %-6u %c%c%c%c%c%c %llu %llu ",
		   v->handle, RETIRE_HANDLE_SLOT(v->handle),
		   RETIRE_HANDLE_GEN(v->handle),
		   v->state < ARRAY_SIZE(retire_req_state_names) ?
		   retire_req_state_names[v->state] : "?",
		   v->device, v->tokens,
		   v->dev_flags & RETIRE_DEV_READ ? 'r' : '-',
		   v->dev_flags & RETIRE_DEV_WRITE ? 'w' : '-',
		   v->timed_out ? 't' : '-',
		   v->cancel_requested ? 'c' : '-',
		   v->quarantined ? 'q' : '-',
		   v->consumed ? 'u' : '-', v->key, v->len);
	/* the deadline from now: negative once it has passed */
	if (v->deadline)
		seq_printf(m, "%lld ",
			   ktime_to_ns(ktime_sub(v->deadline, ktime_get())));
	else
		seq_puts(m, "- ");
	seq_printf(m, "%u\n", v->outcome);
	return 0;
}

static const struct seq_operations retire_reqs_sops = {
	.start = retire_reqs_start,
	.next = retire_reqs_next,
	.stop = retire_reqs_stop,
	.show = retire_reqs_show,
};

static int retire_debugfs_requests_open(struct inode *inode,
					struct file *file)
{
	struct retire_reqs_iter *it;

	it = __seq_open_private(file, &retire_reqs_sops, sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->ctx = inode->i_private;
	return 0;
}

static const struct file_operations retire_debugfs_requests_fops = {
	.owner = THIS_MODULE,
	.open = retire_debugfs_requests_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release_private,
};

static int retire_debugfs_history_show(struct seq_file *m, void *unused)
{
	return retire_history_show(m, m->private);
}
DEFINE_SHOW_ATTRIBUTE(retire_debugfs_history);

static int retire_debugfs_module_ctx(struct retire_ctx *ctx, void *arg)
{
	struct seq_file *m = arg;
	u32 unretired, quarantined;
	bool closed;

	spin_lock_irq(&ctx->lock);
	unretired = ctx->unretired;
	quarantined = ctx->quarantined;
	closed = ctx->closed;
	spin_unlock_irq(&ctx->lock);
	seq_printf(m, "context %llu pid %d comm %s unretired %u quarantined %u%s\n",
		   ctx->id, pid_nr(ctx->owner), ctx->comm, unretired,
		   quarantined, closed ? " closed" : "");
	return 0;
}

static int retire_debugfs_module_show(struct seq_file *m, void *unused)
{
	struct retire_engine_info *e;
	struct retire_info info;
	struct retire_stats st;
	int i, n;

	retire_info_fill(&info);
	seq_printf(m, "abi %u\nfeatures %#llx\n", info.abi_version,
		   info.features);
	retire_stats_module(&st);
	seq_printf(m, "contexts %llu\nadmitted %llu\nretired %llu\nquarantined_now %llu\n",
		   st.contexts, st.admitted, st.retired, st.quarantined_now);
	e = kcalloc(16, sizeof(*e), GFP_KERNEL);
	if (e) {
		n = retire_engine_list(e, 16);
		for (i = 0; i < min(n, 16); i++)
			seq_printf(m, "engine %u %s %s contexts %u transfers %llu bounced %llu\n",
				   e[i].id, e[i].name, e[i].device,
				   e[i].contexts, e[i].transfers,
				   e[i].bounced);
		kfree(e);
	}
	retire_ctx_walk_after(0, retire_debugfs_module_ctx, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(retire_debugfs_module);

/**
 * retire_debugfs_ctx_add() - a directory for a new context
 * @ctx: it, fully made
 *
 * Without debugfs (or on failure) the context simply has none.
 */
void retire_debugfs_ctx_add(struct retire_ctx *ctx)
{
	char name[24];
	struct dentry *d;

	snprintf(name, sizeof(name), "%llu", ctx->id);
	d = debugfs_create_dir(name, retire_debugfs_root);
	if (IS_ERR(d))
		return;
	debugfs_create_file("context", 0400, d, ctx,
			    &retire_debugfs_context_fops);
	debugfs_create_file("requests", 0400, d, ctx,
			    &retire_debugfs_requests_fops);
	debugfs_create_file("history", 0400, d, ctx,
			    &retire_debugfs_history_fops);
	ctx->debugfs = d;
}

/**
 * retire_debugfs_ctx_remove() - its directory goes, before the context
 * @ctx: the context, about to be freed
 *
 * Returns once no reader is inside one of its files.
 */
void retire_debugfs_ctx_remove(struct retire_ctx *ctx)
{
	debugfs_remove_recursive(ctx->debugfs);
	ctx->debugfs = NULL;
}

/**
 * retire_debugfs_init() - retire/ and retire/module
 */
void retire_debugfs_init(void)
{
	retire_debugfs_root = debugfs_create_dir("retire", NULL);
	debugfs_create_file("module", 0400, retire_debugfs_root, NULL,
			    &retire_debugfs_module_fops);
}

/**
 * retire_debugfs_exit() - remove retire/ (every context is gone)
 */
void retire_debugfs_exit(void)
{
	debugfs_remove_recursive(retire_debugfs_root);
}
