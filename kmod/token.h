/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_TOKEN_H
#define _RETIRE_TOKEN_H

#include <linux/types.h>

#include "slot.h"

struct retire_ctx;
struct retire_req;

/**
 * struct retire_token - a one-shot borrow: a consumer holds the buffer
 * @slot:	slot header (RETIRE_KIND_TOKEN): a returned token's handle
 *		is stale, so a second return cannot decrement twice
 * @req:	the request it borrows; unretired while any token is out
 */
struct retire_token {
	struct retire_slot slot;
	struct retire_req *req;
};

int retire_token_borrow(struct retire_ctx *ctx, u64 req_handle, u64 *token);
int retire_token_return(struct retire_ctx *ctx, u64 token, int error);
int retire_token_handoff(struct retire_ctx *ctx, u64 token, u64 *new_token);
u32 retire_token_revoke_locked(struct retire_ctx *ctx, u32 from, u32 nr);

#endif /* _RETIRE_TOKEN_H */
