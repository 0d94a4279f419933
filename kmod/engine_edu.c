// SPDX-License-Identifier: GPL-2.0
/*
 * The edu engine: QEMU's educational PCI device (1234:11e8, "-device edu")
 * as a real device behind the core. Every byte it moves goes by DMA
 * through the DMA API, so DMA-API debugging checks each mapping's
 * direction and unmapping, and a buffer beyond the device's DMA mask is
 * bounced by the DMA API (swiotlb) rather than refused.
 *
 * The device: BAR 0 holds its registers; it has a 4 KiB buffer of its own
 * at device address 0x40000 (not visible in the BAR) and one DMA engine
 * that moves up to 4 KiB between that buffer and a bus address per
 * command, about 100 ms after the command in QEMU's virtual clock, then
 * raises an interrupt (MSI if enabled, else INTx). It cannot abort a
 * transfer once commanded.
 *
 * A request's range is moved a chunk at a time, each chunk within one
 * 2 KiB-aligned block (EDU_CHUNK), one transfer at a time per device:
 *
 *   RETIRE_DEV_READ:  IN    buffer -> device (DMA_TO_DEVICE)
 *                     PEEK  device -> scratch: the checksum is of what
 *                           reached the device, not of RAM
 *   RETIRE_DEV_WRITE: FILL  scratch (the pattern) -> device
 *                     OUT   device -> buffer (DMA_FROM_DEVICE)
 *   both:             IN, PEEK, FILL, OUT, the buffer mapped
 *                     DMA_BIDIRECTIONAL for IN and for OUT
 *
 * A buffer is mapped exactly from the start of its transfer to that
 * transfer's interrupt, and unmapped before the next step: the terminal
 * event is reported only after the last unmap, so retirement can never
 * precede dma_unmap_page(). The scratch buffer is the driver's own,
 * coherent, and never a request's.
 *
 * Contexts take turns: each bound context has its own queue (its
 * struct retire_flow), and the device begins the oldest job of the next
 * context in a round robin, so one context's backlog delays another's
 * request by at most one request of each other context. A request's
 * watchdog starts when the device begins it (retire_engine_begin()), so
 * it measures the device's time on that request alone.
 *
 * Cancel: a request still queued is taken out (never mapped, never
 * touched); one whose transfers have begun runs to its end (-EALREADY).
 *
 * Removal: new work is ended at once with a reset outcome; the transfer in
 * flight is given the time a transfer takes to finish, then bus mastering
 * is turned off, so the device cannot reach memory whatever it does, and
 * only then is the buffer unmapped and every request ended with a reset
 * outcome. A request whose interrupt never came (see edu_drop_irq) was
 * quarantined by the watchdog meanwhile; the reset outcome is the proof
 * of no further access that lets it retire.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/iopoll.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/retire.h>
#include <linux/retire_engine.h>

#define EDU_VENDOR		0x1234
#define EDU_DEVICE		0x11e8

#define EDU_REG_ID		0x00	/* 0xRRrr00ed: major, minor, 0xed */
#define EDU_REG_LIVE		0x04	/* reads back the inverse */
#define EDU_REG_IRQ_STATUS	0x24
#define EDU_REG_IRQ_ACK		0x64
#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_CNT		0x90
#define EDU_REG_DMA_CMD		0x98

#define EDU_DMA_RUN		0x1
#define EDU_DMA_TO_RAM		0x2	/* else RAM -> device */
#define EDU_DMA_IRQ		0x4
#define EDU_IRQ_DMA		0x100

#define EDU_BUF_ADDR		0x40000
#define EDU_BUF_SIZE		4096
/*
 * The most one transfer moves, and the blocks chunks keep within: QEMU's
 * range check (7.2) takes a transfer that reaches the device buffer's
 * last byte for one out of bounds, and answers it by stopping the machine
 */
#define EDU_CHUNK		2048
/* the device's own mask, unless told otherwise: QEMU's default */
#define EDU_DMA_BITS		28
/* a transfer takes 100 ms of virtual time: wait this long at removal */
#define EDU_DRAIN_US		(2 * USEC_PER_SEC)

/* every device's step work: a transfer starts and ends only there */
static struct workqueue_struct *retire_edu_wq;

static bool edu_drop_irq;
module_param(edu_drop_irq, bool, 0644);
MODULE_PARM_DESC(edu_drop_irq,
		 "test only: command edu transfers without their interrupt, as a device that loses it (the watchdog must quarantine)");

enum retire_edu_step {
	EDU_IN,		/* buffer -> device */
	EDU_PEEK,	/* device -> scratch, checksummed */
	EDU_FILL,	/* scratch (pattern) -> device */
	EDU_OUT,	/* device -> buffer */
	EDU_NEXT,	/* the chunk is done */
};

/**
 * struct retire_edu_job - one request the device has been given
 * @node:	on its context's flow while waiting for the device
 * @ctx:	the context, set by start()
 * @w:		what to do
 * @done:	bytes of @w moved so far (whole chunks)
 * @checksum:	FNV-1a-64 of what reached the device so far
 * @step:	enum retire_edu_step of the chunk at @done
 *
 * Owned by the device's step work once it is retire_edu.cur, and by
 * retire_edu_remove() once it took it off the queue.
 */
struct retire_edu_job {
	struct list_head node;
	struct retire_ctx *ctx;
	struct retire_engine_work w;
	u64 done;
	u64 checksum;
	u8 step;
};

/**
 * struct retire_edu - one bound edu device
 * @engine:	what the core sees; freed with the last context naming it
 * @pdev:	the device, NULL once removed
 * @regs:	its BAR 0
 * @lock:	protects @flows (and the flows on it), @cur, @busy,
 *		@irq_done, @gone
 * @flows:	the contexts with jobs waiting for the device, in turn
 * @cur:	the job being moved, owned by @work
 * @busy:	a transfer is commanded and its interrupt not yet handled
 * @irq_done:	its interrupt came
 * @gone:	the device is being removed: nothing more starts
 * @work:	the only place transfers start and finish, so one at a time
 * @map:	the buffer's mapping for the transfer in flight (0: none)
 * @map_len:	its length
 * @map_dir:	its direction
 * @scratch:	the driver's coherent 4 KiB (PEEK's destination, FILL's
 *		source)
 * @scratch_dma: its bus address
 * @irq:	the interrupt, MSI where the kernel has it
 */
struct retire_edu {
	struct retire_engine engine;
	struct pci_dev *pdev;
	void __iomem *regs;
	spinlock_t lock;		/* IRQ-safe: taken from the interrupt */
	struct list_head flows;
	struct retire_edu_job *cur;
	bool busy;
	bool irq_done;
	bool gone;
	struct work_struct work;
	dma_addr_t map;
	u32 map_len;
	enum dma_data_direction map_dir;
	u8 *scratch;
	dma_addr_t scratch_dma;
	int irq;
};

static struct retire_edu *retire_edu_of(struct retire_engine *e)
{
	return container_of(e, struct retire_edu, engine);
}

/* @job waits at the end of its context's queue; edu->lock held */
static void retire_edu_enqueue(struct retire_edu *edu,
			       struct retire_edu_job *job)
{
	struct retire_flow *f = retire_ctx_flow(job->ctx);

	if (list_empty(&f->jobs))
		list_add_tail(&f->node, &edu->flows);
	list_add_tail(&job->node, &f->jobs);
}

/* @job leaves its context's queue; edu->lock held */
static void retire_edu_unqueue(struct retire_edu_job *job)
{
	struct retire_flow *f = retire_ctx_flow(job->ctx);

	list_del_init(&job->node);
	if (list_empty(&f->jobs))
		list_del_init(&f->node);
}

/*
 * The job whose turn it is, taken off its queue: the oldest of the next
 * context in turn, which then goes to the back. edu->lock held.
 */
static struct retire_edu_job *retire_edu_dequeue(struct retire_edu *edu)
{
	struct retire_flow *f = list_first_entry_or_null(&edu->flows,
							 struct retire_flow,
							 node);
	struct retire_edu_job *job;

	if (!f)
		return NULL;
	job = list_first_entry(&f->jobs, struct retire_edu_job, node);
	retire_edu_unqueue(job);
	if (!list_empty(&f->jobs))
		list_move_tail(&f->node, &edu->flows);
	return job;
}

/* command one transfer; the caller set @edu->busy under the lock */
static void retire_edu_command(struct retire_edu *edu, dma_addr_t src,
			       dma_addr_t dst, u32 cnt, bool to_ram)
{
	u64 cmd = EDU_DMA_RUN | (to_ram ? EDU_DMA_TO_RAM : 0);

	if (!READ_ONCE(edu_drop_irq))
		cmd |= EDU_DMA_IRQ;
	writeq(src, edu->regs + EDU_REG_DMA_SRC);
	writeq(dst, edu->regs + EDU_REG_DMA_DST);
	writeq(cnt, edu->regs + EDU_REG_DMA_CNT);
	writeq(cmd, edu->regs + EDU_REG_DMA_CMD);
	atomic64_inc(&edu->engine.transfers);
}

/*
 * The chunk of @job at @job->done: its page, offset and length. A chunk
 * keeps within one EDU_CHUNK-aligned block, so within one page.
 */
static struct page *retire_edu_chunk(struct retire_edu_job *job, u32 *off,
				     u32 *cnt)
{
	u64 pos = job->w.offset + job->done;

	*off = offset_in_page(pos);
	*cnt = min_t(u64, EDU_CHUNK - (pos & (EDU_CHUNK - 1)),
		     job->w.len - job->done);
	return job->w.pages ? job->w.pages[pos >> PAGE_SHIFT] : NULL;
}

/*
 * An imported buffer's chunk at @job->done: its DMA address in the
 * attachment's mapping, made for this device once; a chunk keeps within
 * one page, and entries are whole pages, so within one entry.
 */
static dma_addr_t retire_edu_chunk_dma(struct retire_edu_job *job)
{
	u64 pos = job->w.offset + job->done, at = 0;
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(job->w.sgt, sg, i) {
		if (pos < at + sg_dma_len(sg))
			return sg_dma_address(sg) + (pos - at);
		at += sg_dma_len(sg);
	}
	return DMA_MAPPING_ERROR;	/* admission checked the range */
}

static enum dma_data_direction retire_edu_dir(struct retire_edu_job *job)
{
	switch (job->w.dev_flags & RETIRE_DEV_ALL) {
	case RETIRE_DEV_READ:
		return DMA_TO_DEVICE;
	case RETIRE_DEV_WRITE:
		return DMA_FROM_DEVICE;
	default:
		return DMA_BIDIRECTIONAL;
	}
}

/* the first step of a chunk, or the one after @step, for @job's flags */
static u8 retire_edu_next(struct retire_edu_job *job, int step)
{
	bool rd = job->w.dev_flags & RETIRE_DEV_READ;
	bool wr = job->w.dev_flags & RETIRE_DEV_WRITE;

	for (step++; step < EDU_NEXT; step++)
		if (((step == EDU_IN || step == EDU_PEEK) && rd) ||
		    ((step == EDU_FILL || step == EDU_OUT) && wr))
			break;
	return step;
}

/*
 * Start @job's current step. Return 0 with a transfer commanded, else the
 * request's error (a mapping the DMA API could not make).
 */
static int retire_edu_start_step(struct retire_edu *edu,
				 struct retire_edu_job *job)
{
	struct device *dev = &edu->pdev->dev;
	u32 off, cnt, i;
	struct page *page = retire_edu_chunk(job, &off, &cnt);
	dma_addr_t a;

	switch (job->step) {
	case EDU_IN:
	case EDU_OUT:
		if (job->w.sgt) {
			/* an import: mapped already, its bytes synced by its
			 * exporter's CPU-access calls
			 */
			a = retire_edu_chunk_dma(job);
			if (a == DMA_MAPPING_ERROR)
				return -EIO;
		} else {
			a = dma_map_page(dev, page, off, cnt,
					 retire_edu_dir(job));
			if (dma_mapping_error(dev, a))
				return -EIO;
			if (a != page_to_phys(page) + off)
				atomic64_inc(&edu->engine.bounced);
			edu->map = a;
			edu->map_len = cnt;
			edu->map_dir = retire_edu_dir(job);
		}
		if (job->step == EDU_IN)
			retire_edu_command(edu, a, EDU_BUF_ADDR, cnt, false);
		else
			retire_edu_command(edu, EDU_BUF_ADDR, a, cnt, true);
		return 0;
	case EDU_PEEK:
		retire_edu_command(edu, EDU_BUF_ADDR, edu->scratch_dma, cnt,
				   true);
		return 0;
	default:	/* EDU_FILL: the sim's pattern, by offset in the range */
		for (i = 0; i < cnt; i++)
			edu->scratch[i] = (u8)(job->w.user_data + job->done + i);
		retire_edu_command(edu, edu->scratch_dma, EDU_BUF_ADDR, cnt,
				   false);
		return 0;
	}
}

/* @job's current step's transfer is over: unmap, checksum, advance */
static void retire_edu_end_step(struct retire_edu *edu,
				struct retire_edu_job *job)
{
	u32 off, cnt;

	retire_edu_chunk(job, &off, &cnt);
	if (edu->map) {
		dma_unmap_page(&edu->pdev->dev, edu->map, edu->map_len,
			       edu->map_dir);
		edu->map = 0;
	}
	if (job->step == EDU_PEEK)
		job->checksum = retire_checksum(job->checksum, edu->scratch,
						cnt);
	job->step = retire_edu_next(job, job->step);
	if (job->step == EDU_NEXT) {
		job->done += cnt;
		job->step = retire_edu_next(job, -1);
	}
}

/* hand @job's terminal event to the core: nothing of @job is touched after */
static void retire_edu_report(struct retire_edu_job *job, int error,
			      bool reset)
{
	struct retire_engine_result res = {
		.error = error,
		.reset = reset,
		.transferred = job->done,
		.checksum = job->checksum,
	};

	retire_engine_complete(job->ctx, job->w.handle, &res);
}

/*
 * The device's only mover: finishes the transfer whose interrupt came,
 * then starts the next one (the current job's next step, or the next
 * job's first). Runs on retire_edu_wq, never twice at once.
 */
static void retire_edu_work(struct work_struct *work)
{
	struct retire_edu *edu = container_of(work, struct retire_edu, work);
	struct retire_edu_job *job;
	int err;

	for (;;) {
		spin_lock_irq(&edu->lock);
		if (edu->gone || (edu->busy && !edu->irq_done)) {
			spin_unlock_irq(&edu->lock);
			return;
		}
		job = edu->cur;
		if (edu->busy) {
			edu->busy = false;
			edu->irq_done = false;
			spin_unlock_irq(&edu->lock);
			retire_edu_end_step(edu, job);
			spin_lock_irq(&edu->lock);
		}
		if (!job) {
			/* the device has it: a cancel finds it running */
			job = retire_edu_dequeue(edu);
			if (!job) {
				spin_unlock_irq(&edu->lock);
				return;
			}
			edu->cur = job;
		}
		if (job->done == job->w.len) {
			edu->cur = NULL;
			spin_unlock_irq(&edu->lock);
			retire_edu_report(job, 0, false);
			continue;
		}
		edu->busy = true;
		spin_unlock_irq(&edu->lock);

		if (job->step == retire_edu_next(job, -1)) {
			u32 off, cnt;

			retire_edu_chunk(job, &off, &cnt);
			/* the device's time on it starts: its watchdog too */
			if (!job->done)
				retire_engine_begin(job->ctx, job->w.handle);
			/* before the bytes move: a write dirties on unpin */
			retire_engine_moving(job->ctx, &job->w, cnt);
		}
		err = retire_edu_start_step(edu, job);
		if (!err)
			return;

		spin_lock_irq(&edu->lock);
		edu->busy = false;
		edu->cur = NULL;
		spin_unlock_irq(&edu->lock);
		retire_edu_report(job, err, false);
	}
}

static irqreturn_t retire_edu_irq(int irq, void *data)
{
	struct retire_edu *edu = data;
	u32 status = readl(edu->regs + EDU_REG_IRQ_STATUS);

	if (!status || status == ~0U)
		return IRQ_NONE;
	writel(status, edu->regs + EDU_REG_IRQ_ACK);
	if (status & EDU_IRQ_DMA) {
		spin_lock(&edu->lock);
		if (edu->busy) {
			edu->irq_done = true;
			queue_work(retire_edu_wq, &edu->work);
		}
		spin_unlock(&edu->lock);
	}
	return IRQ_HANDLED;
}

static void retire_edu_start(struct retire_engine *e, struct retire_ctx *ctx,
			     void *j, const struct retire_engine_work *w)
{
	struct retire_edu *edu = retire_edu_of(e);
	struct retire_edu_job *job = j;
	struct retire_engine_result res = {
		.error = -ECANCELED,
		.reset = true,
	};
	unsigned long flags;
	bool gone;

	retire_ctx_assert_held(ctx);
	job->ctx = ctx;
	job->w = *w;
	job->done = 0;
	job->checksum = RETIRE_CHECKSUM_INIT;
	job->step = retire_edu_next(job, -1);

	spin_lock_irqsave(&edu->lock, flags);
	gone = edu->gone;
	if (!gone) {
		retire_edu_enqueue(edu, job);
		if (!edu->cur)
			queue_work(retire_edu_wq, &edu->work);
	}
	spin_unlock_irqrestore(&edu->lock, flags);
	/* the device went: it will never touch the buffer */
	if (gone)
		retire_engine_complete_locked(ctx, w->handle, &res);
}

static bool retire_edu_try_stop(struct retire_engine *e,
				struct retire_ctx *ctx, void *j)
{
	struct retire_edu *edu = retire_edu_of(e);
	struct retire_edu_job *job = j;
	unsigned long flags;
	bool stopped = false;

	retire_ctx_assert_held(ctx);
	spin_lock_irqsave(&edu->lock, flags);
	/* queued: nothing was mapped, nothing will be */
	if (!list_empty(&job->node)) {
		retire_edu_unqueue(job);
		stopped = true;
	}
	spin_unlock_irqrestore(&edu->lock, flags);
	return stopped;
}

static void retire_edu_job_init(struct retire_engine *e, void *obj)
{
	struct retire_edu_job *job = obj;

	INIT_LIST_HEAD(&job->node);
}

static void retire_edu_release(struct retire_engine *e)
{
	kfree(container_of(e, struct retire_edu, engine));
}

static const struct retire_engine_ops retire_edu_ops = {
	.start		= retire_edu_start,
	.try_stop	= retire_edu_try_stop,
	.job_size	= sizeof(struct retire_edu_job),
	.job_init	= retire_edu_job_init,
	.queues		= true,
	/* no job_fini: a job that reported is the device's no more */
	.release	= retire_edu_release,
};

static int retire_edu_probe(struct pci_dev *pdev,
			    const struct pci_device_id *id)
{
	struct retire_edu *edu;
	u32 ident;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0), KBUILD_MODNAME);
	if (ret)
		return ret;
	ret = dma_set_mask_and_coherent(&pdev->dev,
					DMA_BIT_MASK(EDU_DMA_BITS));
	if (ret) {
		dev_err(&pdev->dev, "no usable %u-bit DMA\n", EDU_DMA_BITS);
		return ret;
	}

	edu = kzalloc(sizeof(*edu), GFP_KERNEL);
	if (!edu)
		return -ENOMEM;
	edu->pdev = pdev;
	edu->regs = pcim_iomap_table(pdev)[0];
	spin_lock_init(&edu->lock);
	INIT_LIST_HEAD(&edu->flows);
	INIT_WORK(&edu->work, retire_edu_work);

	ident = readl(edu->regs + EDU_REG_ID);
	writel(0x5a5a5a5a, edu->regs + EDU_REG_LIVE);
	if ((ident & 0xff) != 0xed ||
	    readl(edu->regs + EDU_REG_LIVE) != ~0x5a5a5a5aU) {
		dev_err(&pdev->dev, "not an edu device (id %#x)\n", ident);
		ret = -ENODEV;
		goto out_free;
	}

	edu->scratch = dma_alloc_coherent(&pdev->dev, EDU_BUF_SIZE,
					  &edu->scratch_dma, GFP_KERNEL);
	if (!edu->scratch) {
		ret = -ENOMEM;
		goto out_free;
	}

	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_ALL_TYPES);
	if (ret < 0)
		goto out_scratch;
	edu->irq = pci_irq_vector(pdev, 0);
	/* INTx may be shared: the handler checks the device's status */
	ret = request_irq(edu->irq, retire_edu_irq, IRQF_SHARED,
			  KBUILD_MODNAME, edu);
	if (ret)
		goto out_vectors;
	pci_set_master(pdev);

	edu->engine.name = "edu";
	strscpy(edu->engine.device, pci_name(pdev),
		sizeof(edu->engine.device));
	edu->engine.ops = &retire_edu_ops;
	edu->engine.owner = THIS_MODULE;
	edu->engine.features = RETIRE_FEAT_EDU;
	edu->engine.dma_mask = DMA_BIT_MASK(EDU_DMA_BITS);
	edu->engine.max_transfer = EDU_CHUNK;
	edu->engine.dma_dev = &pdev->dev;
	edu->engine.imports = true;
	pci_set_drvdata(pdev, edu);
	ret = retire_engine_register(&edu->engine);
	if (ret)
		goto out_irq;
	dev_info(&pdev->dev, "edu %u.%u: %u-bit DMA, %s interrupt\n",
		 ident >> 24, (ident >> 16) & 0xff, EDU_DMA_BITS,
		 pdev->msi_enabled ? "MSI" : "INTx");
	return 0;

out_irq:
	pci_clear_master(pdev);
	free_irq(edu->irq, edu);
out_vectors:
	pci_free_irq_vectors(pdev);
out_scratch:
	dma_free_coherent(&pdev->dev, EDU_BUF_SIZE, edu->scratch,
			  edu->scratch_dma);
out_free:
	kfree(edu);
	return ret;
}

static void retire_edu_remove(struct pci_dev *pdev)
{
	struct retire_edu *edu = pci_get_drvdata(pdev);
	struct retire_edu_job *job;
	u64 cmd;

	spin_lock_irq(&edu->lock);
	edu->gone = true;
	spin_unlock_irq(&edu->lock);
	/* from here start() ends new work at once; nothing new is commanded */
	cancel_work_sync(&edu->work);

	/*
	 * The transfer in flight cannot be aborted: give it the time one
	 * takes, then take the bus from the device whether it finished or
	 * not. After pci_clear_master() it reaches no memory.
	 */
	if (readq_poll_timeout(edu->regs + EDU_REG_DMA_CMD, cmd,
			       !(cmd & EDU_DMA_RUN), 1000, EDU_DRAIN_US))
		dev_warn(&pdev->dev, "a transfer did not finish: bus mastering off with it in flight\n");
	pci_clear_master(pdev);
	writel(~0U, edu->regs + EDU_REG_IRQ_ACK);
	free_irq(edu->irq, edu);
	pci_free_irq_vectors(pdev);
	/* an interrupt that came meanwhile queued the work: it found gone */
	cancel_work_sync(&edu->work);

	if (edu->map) {
		dma_unmap_page(&pdev->dev, edu->map, edu->map_len,
			       edu->map_dir);
		edu->map = 0;
	}
	spin_lock_irq(&edu->lock);
	job = edu->cur;
	edu->cur = NULL;
	edu->busy = false;
	spin_unlock_irq(&edu->lock);
	dma_free_coherent(&pdev->dev, EDU_BUF_SIZE, edu->scratch,
			  edu->scratch_dma);
	edu->pdev = NULL;

	/* no access follows: each ends with a reset outcome and may retire */
	if (job)
		retire_edu_report(job, -ECANCELED, true);
	/*
	 * The queued ones, each taken off the queue under the lock, so that
	 * a cancel either stops it there first (it never reached the
	 * device) or finds it taken; never both. A walk of a list of its own
	 * without the lock let a cancel unlink a job under it.
	 */
	for (;;) {
		spin_lock_irq(&edu->lock);
		job = retire_edu_dequeue(edu);
		spin_unlock_irq(&edu->lock);
		if (!job)
			break;
		retire_edu_report(job, -ECANCELED, true);
	}
	dev_info(&pdev->dev, "edu removed after %lld transfers (%lld bounced)\n",
		 atomic64_read(&edu->engine.transfers),
		 atomic64_read(&edu->engine.bounced));
	retire_engine_unregister(&edu->engine);
}

static const struct pci_device_id retire_edu_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR, EDU_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, retire_edu_ids);

static struct pci_driver retire_edu_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= retire_edu_ids,
	.probe		= retire_edu_probe,
	.remove		= retire_edu_remove,
};

static int __init retire_edu_init(void)
{
	int ret;

	retire_edu_wq = alloc_workqueue("retire_edu", WQ_UNBOUND, 0);
	if (!retire_edu_wq)
		return -ENOMEM;
	/* every edu device there is, and any that comes, is an engine */
	ret = pci_register_driver(&retire_edu_driver);
	if (ret)
		destroy_workqueue(retire_edu_wq);
	return ret;
}

/*
 * No context is bound to one of its engines (each held the module): each
 * device's removal above ends nothing and unregisters its engine.
 */
static void __exit retire_edu_exit(void)
{
	pci_unregister_driver(&retire_edu_driver);
	destroy_workqueue(retire_edu_wq);
}

module_init(retire_edu_init);
module_exit(retire_edu_exit);

MODULE_DESCRIPTION("retire: the edu engine, QEMU's educational PCI device");
MODULE_AUTHOR("The retire developers");
MODULE_LICENSE("GPL");
