/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_RING_H
#define _RETIRE_RING_H

#include <linux/ktime.h>
#include <linux/types.h>

struct page;
struct retire_ctx;
struct retire_enter;
struct retire_op;
struct retire_cqe;
struct retire_ring_setup;
struct vm_area_struct;

/**
 * struct retire_ring - a context's submission and completion rings
 * @mem:	the kernel's view of the shared memory (vmap of @pages)
 * @pages:	the memory, charged to the memory cgroup that set it up
 * @nr_pages:	pages in @pages
 * @charged:	the user whose RLIMIT_MEMLOCK they are charged to (NULL with
 *		CAP_IPC_LOCK)
 * @size:	bytes mapped
 * @sq_entries:	size of the submission ring
 * @cq_entries:	size of the completion ring
 * @sq_head:	the module's own sq_head: the shared one is only written
 * @cq_tail:	the module's own cq_tail: the shared one is only written
 * @u_sq_head:	the shared indices, in @mem
 * @u_sq_tail:	written by the caller: read once per call, bounded
 * @u_cq_head:	written by the caller: read once per pass, bounded
 * @u_cq_tail:	written by the module
 * @u_cq_flags:	written by the module
 * @sqes:	the submission ring, in @mem: each entry is copied once
 *		before it is checked
 * @cqes:	the completion ring, in @mem: only written
 *
 * The module never trusts what the caller can write: indices are bounded
 * against its own copies before they are used, and operations are
 * validated on a private copy. Protected by the context's mutex.
 */
struct retire_ring {
	void *mem;
	struct page **pages;
	u32 nr_pages;
	struct user_struct *charged;
	u32 size;
	u32 sq_entries;
	u32 cq_entries;
	u32 sq_head;
	u32 cq_tail;
	u32 *u_sq_head;
	u32 *u_sq_tail;
	u32 *u_cq_head;
	u32 *u_cq_tail;
	u32 *u_cq_flags;
	struct retire_op *sqes;
	struct retire_cqe *cqes;
};

int retire_ring_setup(struct retire_ctx *ctx, struct retire_ring_setup *s);
int retire_ring_mmap(struct retire_ctx *ctx, struct vm_area_struct *vma);
void retire_ring_free(struct retire_ctx *ctx);
int retire_ring_take_ops(struct retire_ctx *ctx, u32 nr, u32 min_complete,
			 u32 *done, u32 *posted);
int retire_ring_post(struct retire_ctx *ctx, u32 *avail);
bool retire_ring_unread(struct retire_ctx *ctx);

#endif /* _RETIRE_RING_H */
