/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels retire builds for (Debian's 6.1 and
 * 6.12) is handled here, so the rest of the module reads as one kernel.
 */
#ifndef _RETIRE_COMPAT_H
#define _RETIRE_COMPAT_H

#include <linux/mm.h>
#include <linux/scatterlist.h>

/* 6.12 moved the unaligned accessors from asm/ to linux/ (Kbuild looks) */
#ifdef RETIRE_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * 6.3 made vma->vm_flags read-only behind vm_flags_set(). Kbuild looks for
 * it in the target kernel's headers: features, not version numbers.
 */
#ifndef RETIRE_HAVE_VM_FLAGS_SET
static inline void retire_vm_flags_set(struct vm_area_struct *vma,
				       unsigned long flags)
{
	vma->vm_flags |= flags;
}
#else
static inline void retire_vm_flags_set(struct vm_area_struct *vma,
				       unsigned long flags)
{
	vm_flags_set(vma, flags);
}
#endif

/*
 * 6.6 let a multicast group require a capability to join (Debian's 6.1
 * has it too); on a kernel without it the groups are open to every
 * listener.
 */
#ifdef GENL_MCAST_CAP_SYS_ADMIN
#define RETIRE_MCGRP_CAP_SYS_ADMIN	.flags = GENL_MCAST_CAP_SYS_ADMIN,
#else
#define RETIRE_MCGRP_CAP_SYS_ADMIN
#endif

/*
 * A scatterlist entry's DMA flags: under CONFIG_PCI_P2PDMA on 6.1, under
 * CONFIG_NEED_SG_DMA_FLAGS (which P2PDMA selects) from 6.2 on.
 */
static inline void retire_sg_copy_dma_flags(struct scatterlist *dst,
					    const struct scatterlist *src)
{
#if defined(CONFIG_NEED_SG_DMA_FLAGS) || defined(CONFIG_PCI_P2PDMA)
	dst->dma_flags = src->dma_flags;
#endif
}

/*
 * 6.2 made dma_buf_vmap() the caller-locks form and added the _unlocked
 * one, which takes the reservation lock itself; 6.1's dma_buf_vmap() is
 * that one already.
 */
#ifdef RETIRE_HAVE_DMA_BUF_VMAP_UNLOCKED
#define retire_dma_buf_vmap	dma_buf_vmap_unlocked
#define retire_dma_buf_vunmap	dma_buf_vunmap_unlocked
#else
#define retire_dma_buf_vmap	dma_buf_vmap
#define retire_dma_buf_vunmap	dma_buf_vunmap
#endif

#endif /* _RETIRE_COMPAT_H */
