/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_DMABUF_H
#define _RETIRE_DMABUF_H

#include <linux/dma-buf.h>
#include <linux/errno.h>
#include <linux/kconfig.h>

struct device;
struct file;
struct retire_ctx;
struct retire_buf_export;
struct retire_buf_revoke;
struct retire_engine;
struct retire_engine_work;
struct retire_import;

#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)

#define RETIRE_DMABUF_FEATURES	(RETIRE_FEAT_DMABUF | \
				 RETIRE_FEAT_DMABUF_IMPORT | \
				 RETIRE_FEAT_DMABUF_REVOKE)

int retire_buf_export(struct retire_ctx *ctx,
		      const struct retire_buf_export *e, struct dma_buf **out);
int retire_buf_revoke(struct retire_ctx *ctx, struct retire_buf_revoke *a);
int retire_dmabuf_revoke(struct retire_ctx *ctx, struct dma_buf *dmabuf,
			 u64 timeout_ns, u32 *importers);
s64 retire_import_get(int fd, const struct retire_engine *e,
		      struct device *dev, struct retire_ctx *ctx,
		      struct retire_import **out);
void retire_imports_device_gone(struct device *dev);
void retire_import_put(struct retire_import *imp, struct retire_ctx *ctx);
void retire_import_work(const struct retire_import *imp,
			struct retire_engine_work *w);
struct device *retire_import_dev(const struct retire_import *imp);
void retire_import_start(struct retire_import *imp);
void retire_import_end(struct retire_import *imp);
bool retire_import_revoked(const struct retire_import *imp);

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

#else /* !CONFIG_DMA_SHARED_BUFFER: no export, no import */

#define RETIRE_DMABUF_FEATURES	0

static inline int retire_buf_export(struct retire_ctx *ctx,
				    const struct retire_buf_export *e,
				    struct dma_buf **out)
{
	return -EOPNOTSUPP;
}

static inline int retire_buf_revoke(struct retire_ctx *ctx,
				    struct retire_buf_revoke *a)
{
	return -EOPNOTSUPP;
}

static inline struct file *retire_buf_export_file(struct dma_buf *dmabuf)
{
	return NULL;
}

static inline void retire_buf_export_drop(struct dma_buf *dmabuf) {}

static inline s64 retire_import_get(int fd, const struct retire_engine *e,
				    struct device *dev,
				    struct retire_ctx *ctx,
				    struct retire_import **out)
{
	return -EOPNOTSUPP;
}

static inline void retire_imports_device_gone(struct device *dev) {}

static inline void retire_import_put(struct retire_import *imp,
				     struct retire_ctx *ctx) {}

static inline void retire_import_work(const struct retire_import *imp,
				      struct retire_engine_work *w) {}

static inline struct device *retire_import_dev(const struct retire_import *imp)
{
	return NULL;
}

static inline void retire_import_start(struct retire_import *imp) {}
static inline void retire_import_end(struct retire_import *imp) {}

static inline bool retire_import_revoked(const struct retire_import *imp)
{
	return false;
}

#endif

#endif /* _RETIRE_DMABUF_H */
