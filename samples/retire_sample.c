// SPDX-License-Identifier: GPL-2.0
/*
 * retire_sample.ko: a retire engine written against the engine API alone
 * (include/linux/retire_engine.h), as a driver outside retire's tree would
 * write one. Documentation/engines.rst walks through it.
 *
 * The device it drives is a software one: it takes delay_ms to do each
 * request, then moves the whole range at once from a work item (process
 * context), the way a device would DMA it and then interrupt. It has
 * "channels" hardware queues, one per bound context: a context that finds
 * them all taken is refused (-ENOSPC) when it binds.
 *
 * What it shows:
 *   - start() runs under the context lock: it only records the work and
 *     queues a delayed work item, neither of which sleeps or allocates;
 *   - the terminal event is reported after the last access to the bytes,
 *     and nothing of the job is touched after reporting;
 *   - try_stop() stops a request the device has not begun (the work item
 *     was still pending), and says "running" otherwise;
 *   - job_fini() waits for the job's last work item; the module cannot be
 *     unloaded while a context is bound (the core holds it), so no job is
 *     out at exit;
 *   - attach() and detach() keep per-context state: here, a channel.
 */
#include <linux/atomic.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/workqueue.h>
#include <linux/retire.h>
#include <linux/retire_engine.h>

static unsigned int delay_ms = 10;
module_param(delay_ms, uint, 0644);
MODULE_PARM_DESC(delay_ms, "How long the sample device takes per request");

static unsigned int channels = 4;
module_param(channels, uint, 0444);
MODULE_PARM_DESC(channels, "Contexts the sample device serves at once");

/* the channels bound contexts hold */
static atomic_t sample_bound = ATOMIC_INIT(0);

/**
 * struct sample_job - the device's state for one request
 * @work:	the device doing it
 * @ctx:	the context it came from (set by start())
 * @w:		what to do: a copy, valid until the terminal event
 */
struct sample_job {
	struct delayed_work work;
	struct retire_ctx *ctx;
	struct retire_engine_work w;
};

/* move the whole range: read it (checksum), then write the pattern */
static u64 sample_transfer(const struct retire_engine_work *w)
{
	u64 pos = w->offset, end = w->offset + w->len;
	u64 sum = RETIRE_CHECKSUM_INIT;

	while (pos < end) {
		size_t off = offset_in_page(pos);
		size_t n = min_t(u64, PAGE_SIZE - off, end - pos);
		u8 *p = kmap_local_page(w->pages[pos >> PAGE_SHIFT]);
		size_t i;

		if (w->dev_flags & RETIRE_DEV_READ)
			sum = retire_checksum(sum, p + off, n);
		if (w->dev_flags & RETIRE_DEV_WRITE)
			for (i = 0; i < n; i++)
				p[off + i] = (u8)(w->user_data + pos - w->offset + i);
		kunmap_local(p);
		pos += n;
	}
	return sum;
}

static void sample_work(struct work_struct *work)
{
	struct sample_job *job = container_of(to_delayed_work(work),
					      struct sample_job, work);
	struct retire_engine_result res = {};

	/* counted, and the buffer marked written, before the bytes move */
	retire_engine_moving(job->ctx, &job->w, job->w.len);
	res.checksum = sample_transfer(&job->w);
	res.transferred = job->w.len;
	/*
	 * The last access is over: report. The core may reuse @job for
	 * another request from here on, so the report is the last thing
	 * this work item does with it.
	 */
	retire_engine_complete(job->ctx, job->w.handle, &res);
}

static void sample_start(struct retire_engine *e, struct retire_ctx *ctx,
			 void *j, const struct retire_engine_work *w)
{
	struct sample_job *job = j;

	retire_ctx_assert_held(ctx);
	job->ctx = ctx;
	job->w = *w;
	/* no sleeping, no allocation: the work item is the job's own */
	queue_delayed_work(system_unbound_wq, &job->work,
			   msecs_to_jiffies(READ_ONCE(delay_ms)));
}

static bool sample_try_stop(struct retire_engine *e, struct retire_ctx *ctx,
			    void *j)
{
	struct sample_job *job = j;

	retire_ctx_assert_held(ctx);
	/* still pending: it never ran, it never will, it reports nothing */
	return cancel_delayed_work(&job->work);
}

static void sample_job_init(struct retire_engine *e, void *j)
{
	struct sample_job *job = j;

	INIT_DELAYED_WORK(&job->work, sample_work);
}

static void sample_job_fini(struct retire_engine *e, void *j)
{
	struct sample_job *job = j;

	/* the job reported: only its last run may still be returning */
	cancel_delayed_work_sync(&job->work);
}

static int sample_attach(struct retire_engine *e, struct retire_ctx *ctx)
{
	if (atomic_inc_return(&sample_bound) > READ_ONCE(channels)) {
		atomic_dec(&sample_bound);
		return -ENOSPC;
	}
	return 0;
}

static void sample_detach(struct retire_engine *e, struct retire_ctx *ctx)
{
	atomic_dec(&sample_bound);
}

static const struct retire_engine_ops sample_ops = {
	.start		= sample_start,
	.try_stop	= sample_try_stop,
	.job_size	= sizeof(struct sample_job),
	.job_init	= sample_job_init,
	.job_fini	= sample_job_fini,
	.attach		= sample_attach,
	.detach		= sample_detach,
};

static struct retire_engine sample_engine = {
	.name	= "sample",
	.ops	= &sample_ops,
	.owner	= THIS_MODULE,
};

static int __init sample_init(void)
{
	return retire_engine_register(&sample_engine);
}

static void __exit sample_exit(void)
{
	retire_engine_unregister(&sample_engine);
}

module_init(sample_init);
module_exit(sample_exit);

MODULE_DESCRIPTION("retire: a sample engine, written against the engine API alone");
MODULE_AUTHOR("The retire developers");
MODULE_LICENSE("GPL");
MODULE_ALIAS("retire-engine-sample");
