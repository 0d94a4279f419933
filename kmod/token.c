// SPDX-License-Identifier: GPL-2.0
/*
 * Borrow tokens: "a consumer still holds this buffer's address". Taken on
 * a request whose device access has ended, returned exactly once; a
 * duplicate or unknown return is a protocol error, counted and otherwise
 * ignored. A handoff takes the new token before it releases the old one,
 * under one lock hold, so the count never touches zero in between.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/err.h>
#include <linux/retire.h>

#include "buf.h"
#include "ctx.h"
#include "history.h"
#include "req.h"
#include "stats.h"
#include "token.h"

/*
 * A new token within the context's bound, which @extra tokens about to be
 * given back may exceed; ERR_PTR(-ETOOMANYREFS) (counted) if not, or
 * ERR_PTR(-ENOMEM) when no slot is free.
 */
static struct retire_token *retire_token_new_locked(struct retire_ctx *ctx,
						    u32 extra, u64 *handle)
{
	struct retire_token *tok;

	lockdep_assert_held(&ctx->lock);
	if (ctx->stats.v[RETIRE_ST_TOKENS_OUT] >=
	    (u64)ctx->limits.max_tokens + extra) {
		retire_stat_inc(&ctx->stats, RETIRE_ST_REFUSED_TOKENS);
		return ERR_PTR(-ETOOMANYREFS);
	}
	tok = retire_slot_alloc_locked(&ctx->tokens, handle);
	return tok ?: ERR_PTR(-ENOMEM);
}

static void retire_token_drop_locked(struct retire_ctx *ctx,
				     struct retire_token *tok, u64 handle)
{
	lockdep_assert_held(&ctx->lock);
	retire_slot_kill_locked(&ctx->tokens, &tok->slot);
	retire_slot_release_locked(&ctx->tokens, &tok->slot,
				   retire_handle_slot(handle));
	tok->req = NULL;
}

/*
 * A return or handoff naming no live token (retire_ctx_lookup_locked()
 * counted it stale): a protocol error too.
 */
static int retire_token_protocol_error(struct retire_ctx *ctx)
{
	retire_stat_inc(&ctx->stats, RETIRE_ST_PROTOCOL_ERRORS);
	return -ENOENT;
}

/**
 * retire_token_borrow() - take a token on a request
 * @ctx:	the context; the caller holds ctx->mutex
 * @req_handle:	the request's handle
 * @token:	the new token's handle
 *
 * Return: 0; -EBUSY while the device may still access the buffer;
 * -ENOENT for a stale handle (counted); -ETOOMANYREFS at max_tokens
 * (counted); -ENOMEM.
 */
int retire_token_borrow(struct retire_ctx *ctx, u64 req_handle, u64 *token)
{
	struct retire_token *tok;
	struct retire_req *req;
	int ret;

	lockdep_assert_held(&ctx->mutex);
	ret = retire_slot_reserve(&ctx->tokens, 1);
	spin_lock_irq(&ctx->lock);
	req = retire_ctx_lookup_locked(ctx, &ctx->reqs, req_handle,
				       RETIRE_ST_STALE_TOKEN);
	if (!req) {
		ret = -ENOENT;
	} else if (req->state != RETIRE_REQ_TERMINATED) {
		/*
		 * Not only a rule of the protocol: before its terminal event
		 * @req->tokens shares memory with the deadline's pointer
		 * (struct retire_req's union), which a count would corrupt.
		 */
		ret = -EBUSY;
	} else if (!ret) {
		tok = retire_token_new_locked(ctx, 0, token);
		if (IS_ERR(tok)) {
			ret = PTR_ERR(tok);
		} else {
			tok->req = req;
			req->tokens++;
			retire_event_locked(ctx, RETIRE_EV_BORROW, req_handle,
					    0, *token);
			retire_stat_inc(&ctx->stats, RETIRE_ST_TOKENS_OUT);
		}
	}
	spin_unlock_irq(&ctx->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_token_borrow);

/**
 * retire_token_return() - give a token back, exactly once
 * @ctx:	the context
 * @token:	the token's handle
 * @error:	0, or the -errno the consumer failed with (counted)
 *
 * The last return of a consumed request retires it.
 *
 * Return: 0, or -ENOENT for a duplicate or unknown token (a protocol
 * error: counted, nothing else changes).
 */
int retire_token_return(struct retire_ctx *ctx, u64 token, int error)
{
	struct retire_token *tok;
	struct retire_req *req;

	spin_lock_irq(&ctx->lock);
	tok = retire_ctx_lookup_locked(ctx, &ctx->tokens, token,
				       RETIRE_ST_STALE_TOKEN);
	if (!tok) {
		int ret = retire_token_protocol_error(ctx);

		spin_unlock_irq(&ctx->lock);
		return ret;
	}
	if (error)
		retire_stat_inc(&ctx->stats, RETIRE_ST_CONSUMER_ERRORS);
	req = tok->req;
	retire_event_locked(ctx, RETIRE_EV_RETURN, req->handle, error, token);
	retire_token_drop_locked(ctx, tok, token);
	req->tokens--;
	retire_stat_add(&ctx->stats, RETIRE_ST_TOKENS_OUT, -1);
	retire_req_try_retire_locked(ctx, req);
	spin_unlock_irq(&ctx->lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(retire_token_return);

/**
 * retire_token_handoff() - replace a token, never dropping to zero
 * @ctx:	the context; the caller holds ctx->mutex
 * @token:	the token to give back
 * @new_token:	the token taken in its place
 *
 * Return: 0; -ENOENT for a duplicate or unknown token (a protocol error);
 * -ENOMEM if no new token can be had (the old one stays out).
 */
int retire_token_handoff(struct retire_ctx *ctx, u64 token, u64 *new_token)
{
	struct retire_token *old, *tok;
	int ret;

	lockdep_assert_held(&ctx->mutex);
	ret = retire_slot_reserve(&ctx->tokens, 1);
	spin_lock_irq(&ctx->lock);
	old = retire_ctx_lookup_locked(ctx, &ctx->tokens, token,
				       RETIRE_ST_STALE_TOKEN);
	if (!old) {
		ret = retire_token_protocol_error(ctx);
	} else if (!ret) {
		/* one over the bound for a moment: the handoff's point */
		tok = retire_token_new_locked(ctx, 1, new_token);
		if (IS_ERR(tok)) {
			ret = PTR_ERR(tok);
		} else {
			/* acquire first: the request never sees zero */
			tok->req = old->req;
			retire_event_locked(ctx, RETIRE_EV_HANDOFF,
					    tok->req->handle, 0, *new_token);
			retire_token_drop_locked(ctx, old, token);
		}
	}
	spin_unlock_irq(&ctx->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(retire_token_handoff);

/**
 * retire_token_revoke_locked() - the owner is gone: return its tokens
 * @ctx:	the context, closing
 * @from:	the first token slot to look at
 * @nr:		how many slots to look at
 *
 * Only the owner could return its tokens; once its file is closed nobody
 * can, so they are returned on its behalf, @nr slots to a call so that
 * the caller can drop the lock between calls. Memory the owner mapped
 * stays referenced by its own mappings.
 *
 * Return: the slot after the last one looked at.
 */
u32 retire_token_revoke_locked(struct retire_ctx *ctx, u32 from, u32 nr)
{
	u32 idx, end = min(ctx->tokens.nr, from + nr);

	lockdep_assert_held(&ctx->lock);
	for (idx = from; idx < end; idx++) {
		struct retire_token *tok = retire_slot_get(&ctx->tokens, idx);

		if (!tok->slot.live)
			continue;
		tok->req->tokens--;
		retire_stat_add(&ctx->stats, RETIRE_ST_TOKENS_OUT, -1);
		retire_slot_kill_locked(&ctx->tokens, &tok->slot);
		retire_slot_release_locked(&ctx->tokens, &tok->slot, idx);
		tok->req = NULL;
	}
	return end;
}
