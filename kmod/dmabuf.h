/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_DMABUF_H
#define _RETIRE_DMABUF_H

#include <linux/dma-buf.h>
#include <linux/errno.h>
#include <linux/kconfig.h>

struct file;
struct retire_ctx;
struct retire_buf_export;

#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)

#define RETIRE_DMABUF_FEATURES	RETIRE_FEAT_DMABUF

int retire_buf_export(struct retire_ctx *ctx,
		      const struct retire_buf_export *e, struct dma_buf **out);

/* the dma-buf's file, for its fd */
static inline struct file *retire_buf_export_file(struct dma_buf *dmabuf)
{
	return dmabuf->file;
}

/* a dma-buf nobody saw: its release undoes the export */
static inline void retire_buf_export_drop(struct dma_buf *dmabuf)
{
	dma_buf_put(dmabuf);
}

#else /* !CONFIG_DMA_SHARED_BUFFER: no export */

#define RETIRE_DMABUF_FEATURES	0

static inline int retire_buf_export(struct retire_ctx *ctx,
				    const struct retire_buf_export *e,
				    struct dma_buf **out)
{
	return -EOPNOTSUPP;
}

static inline struct file *retire_buf_export_file(struct dma_buf *dmabuf)
{
	return NULL;
}

static inline void retire_buf_export_drop(struct dma_buf *dmabuf) {}

#endif

#endif /* _RETIRE_DMABUF_H */
