// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: dma-buf export (dmabuf.c) seen from an importer: a device that
 * attaches and maps gets exactly the range's pages, DMA-mapped (the debug
 * kernel's DMA-API debug checks every map has its unmap), and the CPU
 * access calls sync them; the buffer stays registered until the last
 * reference goes. A revocation cannot tell a static importer: it
 * refuses and changes nothing; it tells a dynamic one, and then no device
 * attaches to the dma-buf again, though the CPU still maps it. A fence of
 * retire's holds the module its ops live in until a grace period after
 * its last reference: an RCU reader may still be looking at it then.
 */
#include <kunit/device.h>
#include <linux/dma-buf.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/scatterlist.h>

#include "kunit_fixture.h"
#include "compat.h"
#include "dmabuf.h"
#include "fence.h"

MODULE_IMPORT_NS(DMA_BUF);

/* a device with a 64-bit DMA mask, for the case's lifetime */
static struct device *retire_dmabuf_device(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "retire-importer");

	KUNIT_ASSERT_FALSE(test, IS_ERR(dev));
	KUNIT_ASSERT_EQ(test, dma_coerce_mask_and_coherent(dev,
							   DMA_BIT_MASK(64)),
			0);
	return dev;
}

static void retire_dmabuf_maps_the_ranges_pages(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	struct retire_buf_reg reg = { .len = 3 * PAGE_SIZE };
	struct retire_buf_export e = { .offset = PAGE_SIZE,
				       .len = 2 * PAGE_SIZE };
	struct device *dev = retire_dmabuf_device(test);
	struct dma_buf_attachment *attach;
	struct dma_buf *dmabuf;
	struct retire_buf *buf;
	struct scatterlist *sg;
	struct sg_table *sgt;
	struct page *first;
	u64 mapped = 0;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, retire_buf_register(f->ctx, &reg), 0);
	e.buf = reg.handle;
	KUNIT_ASSERT_EQ(test, retire_buf_export(f->ctx, &e, &dmabuf), 0);
	spin_lock_irq(&f->ctx->lock);
	buf = retire_slot_lookup_locked(&f->ctx->bufs, reg.handle);
	first = buf ? buf->pages[1] : NULL;
	spin_unlock_irq(&f->ctx->lock);
	KUNIT_ASSERT_NOT_NULL(test, first);

	attach = dma_buf_attach(dmabuf, dev);
	KUNIT_ASSERT_FALSE(test, IS_ERR(attach));
	sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sgt));
	/* the pages are hidden from importers: the address says which */
	KUNIT_EXPECT_EQ(test, sg_dma_address(sgt->sgl),
			phys_to_dma(dev, page_to_phys(first)));
	for_each_sgtable_dma_sg(sgt, sg, i)
		mapped += sg_dma_len(sg);
	KUNIT_EXPECT_EQ(test, mapped, 2ULL * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, dma_buf_begin_cpu_access(dmabuf,
						       DMA_BIDIRECTIONAL), 0);
	KUNIT_EXPECT_EQ(test, dma_buf_end_cpu_access(dmabuf,
						     DMA_BIDIRECTIONAL), 0);

	/* attached and mapped: the buffer stays */
	KUNIT_EXPECT_EQ(test, retire_buf_unregister(f->ctx, reg.handle),
			-EBUSY);
	dma_buf_unmap_attachment_unlocked(attach, sgt, DMA_BIDIRECTIONAL);
	dma_buf_detach(dmabuf, attach);
	KUNIT_EXPECT_EQ(test, retire_buf_unregister(f->ctx, reg.handle),
			-EBUSY);
	dma_buf_put(dmabuf);
	/* a kernel thread's last fput is deferred: let it happen */
	flush_delayed_fput();
	KUNIT_EXPECT_EQ(test, retire_buf_unregister(f->ctx, reg.handle), 0);
}

/* a dynamic importer that counts what it is told */
static void retire_dmabuf_count_moves(struct dma_buf_attachment *attach)
{
	(*(unsigned int *)attach->importer_priv)++;
}

static const struct dma_buf_attach_ops retire_dmabuf_counting_importer = {
	.move_notify = retire_dmabuf_count_moves,
};

static void retire_dmabuf_revoke_tells_only_dynamic_importers(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	struct retire_buf_reg reg = { .len = PAGE_SIZE };
	struct retire_buf_export e = { .len = PAGE_SIZE };
	struct device *dev = retire_dmabuf_device(test);
	struct dma_buf_attachment *attach;
	unsigned int moves = 0;
	struct dma_buf *dmabuf;
	struct iosys_map map;
	struct sg_table *sgt;
	u32 told = 99;

	KUNIT_ASSERT_EQ(test, retire_buf_register(f->ctx, &reg), 0);
	e.buf = reg.handle;
	KUNIT_ASSERT_EQ(test, retire_buf_export(f->ctx, &e, &dmabuf), 0);

	/* a static importer: refused, and the dma-buf still maps */
	attach = dma_buf_attach(dmabuf, dev);
	KUNIT_ASSERT_FALSE(test, IS_ERR(attach));
	KUNIT_EXPECT_EQ(test, retire_dmabuf_revoke(f->ctx, dmabuf, 0, &told),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, told, 99);
	sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sgt));
	dma_buf_unmap_attachment_unlocked(attach, sgt, DMA_BIDIRECTIONAL);
	dma_buf_detach(dmabuf, attach);

	/* a dynamic one is told once; no device attaches after */
	attach = dma_buf_dynamic_attach(dmabuf, dev,
					&retire_dmabuf_counting_importer,
					&moves);
	KUNIT_ASSERT_FALSE(test, IS_ERR(attach));
	KUNIT_EXPECT_EQ(test, retire_dmabuf_revoke(f->ctx, dmabuf, 0, &told),
			0);
	KUNIT_EXPECT_EQ(test, told, 1);
	KUNIT_EXPECT_EQ(test, moves, 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(dma_buf_attach(dmabuf, dev)),
			-ENODEV);
	/* CPU access is not device access: it stays */
	KUNIT_EXPECT_EQ(test, retire_dma_buf_vmap(dmabuf, &map), 0);
	retire_dma_buf_vunmap(dmabuf, &map);
	dma_buf_detach(dmabuf, attach);
	/* the buffer is still the dma-buf's until its last reference */
	KUNIT_EXPECT_EQ(test, retire_buf_unregister(f->ctx, reg.handle),
			-EBUSY);
	dma_buf_put(dmabuf);
	flush_delayed_fput();
	KUNIT_EXPECT_EQ(test, retire_buf_unregister(f->ctx, reg.handle), 0);
}

/*
 * The last reference to a fence goes inside an RCU read-side section: the
 * module stays held until the section ends and a grace period passes, so
 * that neither such a reader nor the release's own return runs in a
 * module that is gone. Contexts of earlier cases, freed by work items,
 * drop their own references whenever they go: a count that fell in the
 * section is tried again, as only the fence's hold can keep it up.
 */
static void retire_fence_holds_the_module_past_its_release(struct kunit *test)
{
	struct module *mod = retire_fence_owner();
	struct retire_fence *f;
	int before, held, tries;

	for (tries = 0; tries < 10; tries++) {
		f = retire_fence_new();
		KUNIT_ASSERT_NOT_NULL(test, f);
		before = module_refcount(mod);
		rcu_read_lock();
		retire_fence_discard(f);
		held = module_refcount(mod);
		rcu_read_unlock();
		if (held == before)
			break;
	}
	KUNIT_EXPECT_EQ(test, held, before);
	/* and it lets go once the grace period has passed */
	rcu_barrier();
	KUNIT_EXPECT_LT(test, module_refcount(mod), before);
}

static struct kunit_case retire_dmabuf_cases[] = {
	KUNIT_CASE(retire_dmabuf_maps_the_ranges_pages),
	KUNIT_CASE(retire_dmabuf_revoke_tells_only_dynamic_importers),
	KUNIT_CASE(retire_fence_holds_the_module_past_its_release),
	{}
};

static struct kunit_suite retire_dmabuf_suite = {
	.name = "retire_dmabuf",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_dmabuf_cases,
};

kunit_test_suites(&retire_dmabuf_suite);
