// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the request state machine (req.c, cancel.c): stale handles, the
 * order of retirement, the bounds, activation, publication and quarantine.
 */
#include "kunit_fixture.h"

/* ---- retire_stale: a wrong generation never touches the live record --- */

/* every kind of wrong handle an event might carry for live request @h */
static void retire_stale_handles(u64 h, u64 out[4])
{
	out[0] = h - 1;				/* the previous generation */
	out[1] = h + 1;				/* a future generation */
	out[2] = retire_handle_make(RETIRE_KIND_TOKEN, retire_handle_slot(h),
				    retire_handle_gen(h));
	out[3] = retire_handle_make(RETIRE_KIND_REQ,
				    retire_handle_slot(h) + 1,
				    retire_handle_gen(h));
}

/*
 * What a request's record says, without the list linkage the kernel owns
 * and read by the state that gives each field its meaning (what a request
 * needs before its terminal event and after it share memory): a raw
 * memcmp of the record is not a fact about it.
 */
struct retire_req_view {
	u64 handle, user_data, key, offset, len, result_len, checksum;
	u64 intent;
	s64 t_admit, t_terminal, watchdog_at;
	const void *buf;
	u32 dev_flags, tokens, outcome, job;
	s32 error;
	u8 state, pending;
	bool timed_out, cancel_requested, logical_done, terminal_read;
	bool consumed, quarantined, ack_already, ack_timed_out;
	bool deadline_armed, watchdog_armed, on_ready;
};

static void retire_req_view(struct retire_fix *f, u64 h,
			    struct retire_req_view *v)
{
	struct retire_req *r = retire_fix_req(f, h);
	bool live;

	memset(v, 0, sizeof(*v));
	spin_lock_irq(&f->ctx->lock);
	live = r->state == RETIRE_REQ_WAITING || r->state == RETIRE_REQ_ACTIVE;
	v->handle = r->handle;
	v->user_data = r->user_data;
	v->key = r->key;
	v->offset = r->offset;
	v->len = r->len;
	v->intent = r->intent;
	v->t_admit = ktime_to_ns(r->t_admit);
	v->buf = r->buf;
	v->dev_flags = r->dev_flags;
	v->outcome = r->outcome;
	v->state = r->state;
	v->pending = r->pending;
	v->timed_out = r->timed_out;
	v->cancel_requested = r->cancel_requested;
	v->logical_done = r->logical_done;
	v->terminal_read = r->terminal_read;
	v->consumed = r->consumed;
	v->quarantined = r->quarantined;
	v->ack_already = r->ack_already;
	v->ack_timed_out = r->ack_timed_out;
	v->on_ready = r->on_ready;
	if (live) {
		v->deadline_armed = r->dl;
		v->watchdog_armed = r->state == RETIRE_REQ_ACTIVE &&
				    hrtimer_is_queued(&f->ctx->timer);
		if (r->state == RETIRE_REQ_ACTIVE) {
			v->watchdog_at = ktime_to_ns(r->watch_at);
			v->job = r->job;
		}
	} else {
		v->t_terminal = ktime_to_ns(r->t_terminal);
		v->result_len = r->result_len;
		v->checksum = r->checksum;
		v->error = r->error;
		v->tokens = r->tokens;
	}
	spin_unlock_irq(&f->ctx->lock);
}

static void retire_stale_engine_event_changes_nothing(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	struct retire_req_view before, after;
	u64 h, bad[4];
	unsigned int i;

	h = retire_fix_submit(test, f->buf);
	retire_stale_handles(h, bad);
	retire_req_view(f, h, &before);

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		retire_fix_complete(f, bad[i]);

	retire_req_view(f, h, &after);
	KUNIT_EXPECT_MEMEQ(test, &after, &before, sizeof(before));
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_STALE_ENGINE), 4ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h)->state, RETIRE_REQ_ACTIVE);
	retire_fix_complete(f, h);
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h)->state,
			RETIRE_REQ_TERMINATED);
}

static void retire_stale_commands_change_nothing(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	struct retire_req_view before, after;
	u64 h, tok, bad[4];
	unsigned int i;

	h = retire_fix_submit(test, f->buf);
	retire_fix_complete(f, h);
	KUNIT_ASSERT_EQ(test, retire_fix_read(f, RETIRE_REC_TERMINAL), 1U);
	retire_stale_handles(h, bad);
	retire_req_view(f, h, &before);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ(test, retire_req_cancel(f->ctx, bad[i]), -ENOENT);
		KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, bad[i]), -ENOENT);
		KUNIT_EXPECT_EQ(test, retire_fix_borrow(f, bad[i], &tok), -ENOENT);
	}

	retire_req_view(f, h, &after);
	KUNIT_EXPECT_MEMEQ(test, &after, &before, sizeof(before));
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_STALE_CANCEL), 4ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_STALE_USER), 4ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_STALE_TOKEN), 4ULL);
	KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, h), 0);
}

static void retire_stale_after_retirement_changes_nothing(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	u64 old, h;

	old = retire_fix_submit(test, f->buf);
	retire_fix_complete(f, old);
	retire_fix_read(f, RETIRE_REC_TERMINAL);
	KUNIT_ASSERT_EQ(test, retire_req_retire(f->ctx, old), 0);
	KUNIT_ASSERT_EQ(test, retire_fix_read(f, RETIRE_REC_RETIRED), 1U);
	h = retire_fix_submit(test, f->buf);
	KUNIT_ASSERT_EQ(test, retire_handle_slot(h), retire_handle_slot(old));

	/* the old incarnation's late completion finds the new one live */
	retire_fix_complete(f, old);

	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h)->state, RETIRE_REQ_ACTIVE);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_STALE_ENGINE), 1ULL);
	KUNIT_EXPECT_EQ(test, retire_req_cancel(f->ctx, old), -ENOENT);
	retire_fix_complete(f, h);
}

static struct kunit_case retire_stale_cases[] = {
	KUNIT_CASE(retire_stale_engine_event_changes_nothing),
	KUNIT_CASE(retire_stale_commands_change_nothing),
	KUNIT_CASE(retire_stale_after_retirement_changes_nothing),
	{}
};

static struct kunit_suite retire_stale_suite = {
	.name = "retire_stale",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_stale_cases,
};

/*
 * ---- retire_order: exactly one retirement, whatever the order ----------
 *
 * The three legal orders of the target's terminal event, a cancel and the
 * owner's callback (read the TERMINAL record, then RETIRE), times the six
 * orders in which three consumers return their borrow tokens.
 */
enum retire_order_event { EV_TARGET, EV_CANCEL, EV_CALLBACK };

struct retire_order_case {
	enum retire_order_event ev[3];
	u8 release[3];
	char name[48];
};

static const enum retire_order_event retire_orders[3][3] = {
	{ EV_TARGET, EV_CANCEL, EV_CALLBACK },
	{ EV_TARGET, EV_CALLBACK, EV_CANCEL },
	{ EV_CANCEL, EV_TARGET, EV_CALLBACK },
};

static const u8 retire_releases[6][3] = {
	{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
	{ 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
};

static struct retire_order_case retire_order_cases[18];

static void retire_order_build(void)
{
	static const char *const ev[] = { "target", "cancel", "callback" };
	unsigned int o, r;

	for (o = 0; o < 3; o++)
		for (r = 0; r < 6; r++) {
			struct retire_order_case *c = &retire_order_cases[o * 6 + r];

			memcpy(c->ev, retire_orders[o], sizeof(c->ev));
			memcpy(c->release, retire_releases[r], sizeof(c->release));
			snprintf(c->name, sizeof(c->name), "%s_%s_%s_release_%c%c%c",
				 ev[c->ev[0]], ev[c->ev[1]], ev[c->ev[2]],
				 'a' + c->release[0], 'a' + c->release[1],
				 'a' + c->release[2]);
		}
}

static const void *retire_order_gen_params(const void *prev, char *desc)
{
	const struct retire_order_case *c = prev;

	if (!c) {
		retire_order_build();
		c = retire_order_cases;
	} else if (++c == retire_order_cases + ARRAY_SIZE(retire_order_cases)) {
		return NULL;
	}
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
	return c;
}

static void retire_order_retires_exactly_once(struct kunit *test)
{
	const struct retire_order_case *c = test->param_value;
	struct retire_fix *f = test->priv;
	unsigned int i, retired = 0;
	bool callback_done = false;
	u64 h, tok[3];
	u32 gen;

	h = retire_fix_submit(test, f->buf);
	gen = retire_fix_req(f, h)->slot.gen;

	for (i = 0; i < 3; i++) {
		switch (c->ev[i]) {
		case EV_TARGET:
			retire_fix_complete(f, h);
			/* three consumers borrow once the device is done */
			KUNIT_ASSERT_EQ(test, retire_fix_borrow(f, h, &tok[0]), 0);
			KUNIT_ASSERT_EQ(test, retire_fix_borrow(f, h, &tok[1]), 0);
			KUNIT_ASSERT_EQ(test, retire_fix_borrow(f, h, &tok[2]), 0);
			break;
		case EV_CANCEL:
			/* before the target: in flight; after: not found */
			KUNIT_EXPECT_EQ(test, retire_req_cancel(f->ctx, h),
					i == 0 ? -EALREADY : -ENOENT);
			break;
		case EV_CALLBACK:
			retire_fix_read(f, RETIRE_REC_TERMINAL);
			KUNIT_ASSERT_EQ(test, f->seen[RETIRE_REC_TERMINAL], 1U);
			KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, h), 0);
			callback_done = true;
			break;
		}
		retired += retire_fix_read(f, RETIRE_REC_RETIRED);
	}
	KUNIT_EXPECT_EQ(test, retired, 0U);
	KUNIT_ASSERT_TRUE(test, callback_done);

	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, retire_token_return(f->ctx,
							  tok[c->release[i]], 0), 0);
		retired += retire_fix_read(f, RETIRE_REC_RETIRED);
		/* only the last return retires */
		KUNIT_EXPECT_EQ(test, retired, i == 2 ? 1U : 0U);
	}
	/* a duplicate return changes nothing */
	KUNIT_EXPECT_EQ(test, retire_token_return(f->ctx, tok[0], 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, retire_fix_read(f, RETIRE_REC_RETIRED), 0U);
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h)->slot.gen, gen + 1);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_RETIRED), 1ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_OWNED_BYTES), 0ULL);
	KUNIT_EXPECT_EQ(test, retire_buf_unregister(f->ctx, f->buf), 0);
}

static struct kunit_case retire_order_cases_list[] = {
	KUNIT_CASE_PARAM(retire_order_retires_exactly_once,
			 retire_order_gen_params),
	{}
};

static struct kunit_suite retire_order_suite = {
	.name = "retire_order",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_order_cases_list,
};

/*
 * ---- retire_bounds: each bound refuses atomically at exactly its limit --
 *
 * Set one limit to 2, fill to it, and the next attempt is refused with the
 * bound's own errno and counter while nothing else moves.
 */
enum retire_bound { B_UNRETIRED, B_RESERVED, B_WAITING, B_TOKENS, B_BUFFERS,
		    B_POOL };

struct retire_bound_case {
	enum retire_bound bound;
	int err;
	enum retire_stat counter;
	const char *name;
};

static const struct retire_bound_case retire_bound_cases[] = {
	{ B_UNRETIRED, -ENOSPC, RETIRE_ST_REFUSED_UNRETIRED, "max_unretired" },
	{ B_RESERVED, -EDQUOT, RETIRE_ST_REFUSED_RESERVED, "max_reserved_bytes" },
	{ B_WAITING, -ENOBUFS, RETIRE_ST_REFUSED_WAITING, "max_waiting" },
	{ B_TOKENS, -ETOOMANYREFS, RETIRE_ST_REFUSED_TOKENS, "max_tokens" },
	{ B_BUFFERS, -EMFILE, RETIRE_ST_REFUSED_BUFFERS, "max_buffers" },
	{ B_POOL, -ENOSPC, RETIRE_ST_REFUSED_POOL, "max_pool_bytes" },
};

static void retire_bound_case_desc(const struct retire_bound_case *c,
				   char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(retire_bound, retire_bound_cases, retire_bound_case_desc);

static void retire_edit_unretired(struct retire_limits *l) { l->max_unretired = 2; }
static void retire_edit_reserved(struct retire_limits *l) { l->max_reserved_bytes = 1024; }
static void retire_edit_tokens(struct retire_limits *l) { l->max_tokens = 2; }
static void retire_edit_buffers(struct retire_limits *l) { l->max_buffers = 2; }
/* admit one request on each of @n buffers, on one key or a key each */
static void retire_fix_fill(struct kunit *test, const u64 *bufs,
			    unsigned int n, bool one_key, u64 *h)
{
	struct retire_fix *f = test->priv;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = retire_fix_try_submit(f, bufs[i], 512, one_key ? 0 : i,
					    &h[i]);
		KUNIT_ASSERT_EQ(test, ret, 0);
	}
}

static void retire_bound_refuses_at_exactly_its_limit(struct kunit *test)
{
	static void (*const edit[])(struct retire_limits *l) = {
		[B_UNRETIRED] = retire_edit_unretired,
		[B_RESERVED] = retire_edit_reserved,
		[B_WAITING] = retire_edit_waiting,
		[B_TOKENS] = retire_edit_tokens,
		[B_BUFFERS] = retire_edit_buffers,
		[B_POOL] = retire_edit_pool,
	};
	const struct retire_bound_case *c = test->param_value;
	struct retire_fix *f = test->priv;
	struct retire_ctx_stats before;
	struct retire_buf_reg reg = { .len = PAGE_SIZE };
	u64 bufs[4], h[4], tok[3];
	unsigned int i;
	int ret = 0;

	/* the fixture's buffer, plus four more: the pool case needs none */
	if (c->bound != B_BUFFERS && c->bound != B_POOL)
		retire_fix_add_bufs(test, bufs, 4);
	else
		KUNIT_ASSERT_EQ(test, retire_buf_unregister(f->ctx, f->buf), 0);
	KUNIT_ASSERT_EQ(test, retire_fix_set(f, edit[c->bound]), 0);

	/* fill to the limit: each of these is admitted */
	switch (c->bound) {
	case B_UNRETIRED:
	case B_RESERVED:
		retire_fix_fill(test, bufs, 2, false, h);
		break;
	case B_WAITING:
		/* one active, two waiting behind it */
		retire_fix_fill(test, bufs, 3, true, h);
		break;
	case B_TOKENS:
		h[0] = retire_fix_submit(test, bufs[0]);
		retire_fix_complete(f, h[0]);
		for (i = 0; i < 2; i++)
			KUNIT_ASSERT_EQ(test, retire_fix_borrow(f, h[0], &tok[i]), 0);
		break;
	case B_BUFFERS:
	case B_POOL:
		retire_fix_add_bufs(test, bufs, 2);
		/* both attached: the pool has nothing it may evict */
		retire_fix_fill(test, bufs, 2, false, h);
		break;
	}

	before = f->ctx->stats;
	switch (c->bound) {
	case B_UNRETIRED:
	case B_RESERVED:
		ret = retire_fix_try_submit(f, bufs[2], 512, 2, &h[2]);
		break;
	case B_WAITING:
		ret = retire_fix_try_submit(f, bufs[3], 512, 0, &h[3]);
		break;
	case B_TOKENS:
		ret = retire_fix_borrow(f, h[0], &tok[2]);
		break;
	case B_BUFFERS:
	case B_POOL:
		ret = retire_buf_register(f->ctx, &reg);
		break;
	}

	KUNIT_EXPECT_EQ(test, ret, c->err);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[c->counter],
			before.v[c->counter] + 1);
	/* the refusal moved its own counters and nothing else */
	before.v[c->counter]++;
	if (c->bound != B_TOKENS && c->bound != B_BUFFERS &&
	    c->bound != B_POOL)
		before.v[RETIRE_ST_REFUSED]++;
	KUNIT_EXPECT_MEMEQ(test, f->ctx->stats.v, before.v, sizeof(before.v));

	/* let the fixture's release retire everything */
	switch (c->bound) {
	case B_TOKENS:
		for (i = 0; i < 2; i++)
			retire_token_return(f->ctx, tok[i], 0);
		break;
	case B_WAITING:
		for (i = 0; i < 3; i++)
			retire_fix_complete(f, h[i]);
		break;
	default:
		for (i = 0; i < 2; i++)
			retire_fix_complete(f, h[i]);
		break;
	}
}

static struct kunit_case retire_bounds_cases[] = {
	KUNIT_CASE_PARAM(retire_bound_refuses_at_exactly_its_limit,
			 retire_bound_gen_params),
	{}
};

static struct kunit_suite retire_bounds_suite = {
	.name = "retire_bounds",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_bounds_cases,
};

/* ---- retire_activation: a saturated key never blocks the next ----------- */

static void retire_activation_skips_saturated_key(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	u64 b[3], h[3];
	unsigned int i;

	retire_fix_add_bufs(test, b, 3);
	KUNIT_ASSERT_EQ(test, retire_fix_set(f, retire_edit_waiting), 0);
	f->ctx->limits.max_active = 2;	/* two slots, one per key */
	KUNIT_ASSERT_EQ(test, retire_fix_try_submit(f, b[0], 512, 1, &h[0]), 0);
	KUNIT_ASSERT_EQ(test, retire_fix_try_submit(f, b[1], 512, 1, &h[1]), 0);
	KUNIT_ASSERT_EQ(test, retire_fix_try_submit(f, b[2], 512, 2, &h[2]), 0);

	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h[0])->state, RETIRE_REQ_ACTIVE);
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h[1])->state, RETIRE_REQ_WAITING);
	/* key 2 went ahead of the older key-1 request */
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h[2])->state, RETIRE_REQ_ACTIVE);

	retire_fix_complete(f, h[0]);
	KUNIT_EXPECT_EQ(test, retire_fix_req(f, h[1])->state, RETIRE_REQ_ACTIVE);
	for (i = 1; i < 3; i++)
		retire_fix_complete(f, h[i]);
}

/* limits: @active at once, @per_key of one key, 8 waiting */
static void retire_fix_bounds(struct kunit *test, u32 active, u32 per_key)
{
	struct retire_fix *f = test->priv;
	struct retire_limits l = f->ctx->limits;

	l.max_active = active;
	l.max_active_per_key = per_key;
	l.max_waiting = 8;
	KUNIT_ASSERT_EQ(test, retire_ctx_set_limits(f->ctx, &l), 0);
}

static u8 retire_fix_state(struct retire_fix *f, u64 h)
{
	return retire_fix_req(f, h)->state;
}

/* @nr requests of 64 bytes, the i-th with key[i], each on a new buffer */
static void retire_fix_submit_keys(struct kunit *test, const u64 *key,
				   u64 *h, unsigned int nr)
{
	struct retire_fix *f = test->priv;
	unsigned int i;
	u64 b;

	for (i = 0; i < nr; i++) {
		retire_fix_add_bufs(test, &b, 1);
		KUNIT_ASSERT_EQ(test, retire_fix_try_submit(f, b, 64, key[i],
							    &h[i]), 0);
	}
}

/*
 * When a key gets room back, its oldest waiter becomes ready behind no
 * younger request of another key: the oldest ready request starts first.
 */
static void retire_activation_is_oldest_first_across_keys(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	enum { A1, A2, B1, C1, A3, B2, NR };
	const u64 key[NR] = { 1, 1, 2, 3, 1, 2 };
	u64 h[NR];

	retire_fix_bounds(test, 2, 1);
	retire_fix_submit_keys(test, key, h, NR);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[A1]), RETIRE_REQ_ACTIVE);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[B1]), RETIRE_REQ_ACTIVE);
	KUNIT_EXPECT_EQ(test, f->ctx->waiting_nr, 4U);
	/* key 1 has room: A2, older than C1, goes first */
	retire_fix_complete(f, h[A1]);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[A2]), RETIRE_REQ_ACTIVE);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[C1]), RETIRE_REQ_WAITING);
	/* key 2 has room: C1 is older than B2 */
	retire_fix_complete(f, h[B1]);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[C1]), RETIRE_REQ_ACTIVE);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[B2]), RETIRE_REQ_WAITING);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[A3]), RETIRE_REQ_WAITING);
	retire_fix_complete(f, h[C1]);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[B2]), RETIRE_REQ_ACTIVE);
	retire_fix_complete(f, h[A2]);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[A3]), RETIRE_REQ_ACTIVE);
	retire_fix_complete(f, h[B2]);
	retire_fix_complete(f, h[A3]);
	KUNIT_EXPECT_EQ(test, f->ctx->active, 0U);
	KUNIT_EXPECT_EQ(test, f->ctx->waiting_nr, 0U);
}

/*
 * A lowered per-key bound holds back a request that was ready under the
 * old one; it keeps its place among its key's waiters, and a raised bound
 * lets them go again in admission order.
 */
static void retire_activation_follows_a_changed_per_key_bound(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	enum { A1, B1, A2, A3, C1, NR };
	const u64 key[NR] = { 1, 2, 1, 1, 3 };
	struct retire_limits l;
	u64 h[NR];

	retire_fix_bounds(test, 2, 2);
	retire_fix_submit_keys(test, key, h, C1);
	/* A2 waits for max_active only, A3 for its key too */
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[A2]), RETIRE_REQ_WAITING);
	retire_fix_bounds(test, 2, 1);
	l = f->ctx->limits;
	retire_fix_complete(f, h[B1]);
	/* room under max_active, none for key 1 */
	KUNIT_EXPECT_EQ(test, f->ctx->active, 1U);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[A2]), RETIRE_REQ_WAITING);
	/* a new key starts at once: nothing that may start waits ahead */
	retire_fix_submit_keys(test, key + C1, h + C1, 1);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[C1]), RETIRE_REQ_ACTIVE);
	/* key 1's oldest waiter first */
	retire_fix_complete(f, h[A1]);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[A2]), RETIRE_REQ_ACTIVE);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[A3]), RETIRE_REQ_WAITING);
	/* raised: A3 may go once max_active has room */
	l.max_active_per_key = 2;
	KUNIT_ASSERT_EQ(test, retire_ctx_set_limits(f->ctx, &l), 0);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[A3]), RETIRE_REQ_WAITING);
	retire_fix_complete(f, h[C1]);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[A3]), RETIRE_REQ_ACTIVE);
	retire_fix_complete(f, h[A2]);
	retire_fix_complete(f, h[A3]);
	KUNIT_EXPECT_EQ(test, f->ctx->waiting_nr, 0U);
}

/* a cancelled waiter gives its key's room to the next one */
static void retire_activation_cancel_of_a_ready_waiter_unparks_the_next(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	enum { A1, B1, A2, A3, NR };
	const u64 key[NR] = { 1, 2, 1, 1 };
	u64 h[NR];

	retire_fix_bounds(test, 2, 2);
	retire_fix_submit_keys(test, key, h, NR);
	KUNIT_ASSERT_EQ(test, retire_req_cancel(f->ctx, h[A2]), 0);
	retire_fix_complete(f, h[B1]);
	KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[A3]), RETIRE_REQ_ACTIVE);
	retire_fix_complete(f, h[A1]);
	retire_fix_complete(f, h[A3]);
	KUNIT_EXPECT_EQ(test, f->ctx->active, 0U);
	KUNIT_EXPECT_EQ(test, f->ctx->waiting_nr, 0U);
}

/*
 * A cancel by key walks every request slot, past the batches it drops the
 * lock between: of 150 requests on two keys, three on the device (which
 * keeps them), it finds each of a key's once and stops those waiting;
 * every one then has the record a cancel by handle gives. Its wait ends
 * with -ETIME while the device holds any, and returns once it has none.
 */
static void retire_activation_cancel_by_match_walks_every_batch(struct kunit *test)
{
	enum { NR = 150 };
	struct retire_fix *f = test->priv;
	u32 kept, pending, found, i;
	struct retire_limits l;
	u64 *key, *h;
	int ret;

	key = kunit_kcalloc(test, NR, sizeof(*key), GFP_KERNEL);
	h = kunit_kcalloc(test, NR, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, key);
	KUNIT_ASSERT_NOT_NULL(test, h);
	for (i = 0; i < NR; i++)
		key[i] = i % 2;
	retire_fix_bounds(test, 3, 3);
	l = f->ctx->limits;
	l.max_waiting = NR;
	KUNIT_ASSERT_EQ(test, retire_ctx_set_limits(f->ctx, &l), 0);
	retire_fix_submit_keys(test, key, h, NR);
	KUNIT_ASSERT_GT(test, f->ctx->reqs.nr, 2U * RETIRE_CTX_BATCH);

	/* key 1: 75 requests, one of them (the second) on the device */
	found = retire_req_cancel_match(f->ctx, RETIRE_CANCEL_F_KEY, 1, &kept);
	KUNIT_EXPECT_EQ(test, found, (u32)NR / 2);
	KUNIT_EXPECT_EQ(test, kept, 1U);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_CANCEL_OK),
			(u64)NR / 2 - 1);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_CANCEL_ALREADY), 1ULL);
	for (i = 3; i < NR; i++)
		KUNIT_EXPECT_EQ(test, retire_fix_state(f, h[i]),
				(u8)(i % 2 ? RETIRE_REQ_TERMINATED :
					     RETIRE_REQ_WAITING));
	/* every one: key 0's 75, and key 1's still on the device again */
	found = retire_req_cancel_match(f->ctx, RETIRE_CANCEL_F_ANY, 0, &kept);
	KUNIT_EXPECT_EQ(test, found, (u32)NR / 2 + 1);
	KUNIT_EXPECT_EQ(test, kept, 3U);
	KUNIT_EXPECT_EQ(test, retire_fix_read(f, RETIRE_REC_CANCEL_ACK),
			(unsigned int)NR);
	KUNIT_EXPECT_EQ(test, f->ctx->waiting_nr, 0U);

	ret = retire_req_cancel_wait(f->ctx, RETIRE_CANCEL_F_ANY, 0,
				     NSEC_PER_MSEC, &pending);
	KUNIT_EXPECT_EQ(test, ret, -ETIME);
	KUNIT_EXPECT_EQ(test, pending, 3U);
	for (i = 0; i < 3; i++)
		retire_fix_complete(f, h[i]);
	ret = retire_req_cancel_wait(f->ctx, RETIRE_CANCEL_F_KEY, 1,
				     NSEC_PER_MSEC, &pending);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, pending, 0U);
	found = retire_req_cancel_match(f->ctx, RETIRE_CANCEL_F_ANY, 0, &kept);
	KUNIT_EXPECT_EQ(test, found, 0U);
}

/*
 * A key table sized for the caps at creation grows with the keys in it:
 * past two keys a bucket it doubles, and its keys move a few buckets at a
 * time while both tables are searched. Each key is found again when its
 * waiting request leaves (a lost one WARNs), in either table. The
 * requests are the keys' view of them (key, admission order), so that the
 * test needs no buffer for each of its thousands of keys.
 */
static void retire_activation_key_table_grows_with_its_keys(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	struct retire_ctx *ctx = f->ctx;
	struct retire_keys *keys = &ctx->keys;
	u8 bits = keys->bits;
	u32 i, nr = (2U << bits) + 64;
	struct retire_req *req;

	req = kunit_kcalloc(test, nr, sizeof(*req), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, req);
	spin_lock_irq(&ctx->lock);
	for (i = 0; i < nr; i++) {
		if (retire_keys_need_room_locked(keys)) {
			spin_unlock_irq(&ctx->lock);
			KUNIT_ASSERT_EQ(test, retire_keys_reserve(ctx), 0);
			spin_lock_irq(&ctx->lock);
		}
		req[i].key = i;
		req[i].t_admit = i;
		retire_keys_wait_locked(ctx, &req[i]);
	}
	spin_unlock_irq(&ctx->lock);
	KUNIT_EXPECT_EQ(test, keys->nr, nr);
	KUNIT_EXPECT_EQ(test, keys->bits, bits + 1);
	KUNIT_EXPECT_LT(test, keys->nr, 2U << keys->bits);
	/* the 64 keys added since it grew moved 256 of 2^bits buckets */
	KUNIT_EXPECT_NOT_NULL(test, keys->old);

	spin_lock_irq(&ctx->lock);
	for (i = 0; i < nr; i++)
		retire_keys_unwait_locked(ctx, &req[i]);
	spin_unlock_irq(&ctx->lock);
	KUNIT_EXPECT_EQ(test, keys->nr, 0U);
	KUNIT_EXPECT_NULL(test, keys->old);
	/* freed at the next reserve, outside the lock */
	KUNIT_EXPECT_NOT_NULL(test, keys->spent);
	KUNIT_EXPECT_TRUE(test, retire_keys_need_room_locked(keys));
	KUNIT_EXPECT_EQ(test, retire_keys_reserve(ctx), 0);
	KUNIT_EXPECT_NULL(test, keys->spent);
}

static struct kunit_case retire_activation_cases[] = {
	KUNIT_CASE(retire_activation_skips_saturated_key),
	KUNIT_CASE(retire_activation_is_oldest_first_across_keys),
	KUNIT_CASE(retire_activation_follows_a_changed_per_key_bound),
	KUNIT_CASE(retire_activation_cancel_of_a_ready_waiter_unparks_the_next),
	KUNIT_CASE(retire_activation_cancel_by_match_walks_every_batch),
	KUNIT_CASE(retire_activation_key_table_grows_with_its_keys),
	{}
};

static struct kunit_suite retire_activation_suite = {
	.name = "retire_activation",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_activation_cases,
};

/* ---- retire_predicate: the publication truth table ---------------------- */

struct retire_pred_case {
	bool cancelled, bumped, revoked;
	char name[40];
};

static struct retire_pred_case retire_pred_cases[8];

static const void *retire_pred_gen_params(const void *prev, char *desc)
{
	const struct retire_pred_case *c = prev;
	unsigned int i;

	if (!c) {
		for (i = 0; i < 8; i++) {
			struct retire_pred_case *p = &retire_pred_cases[i];

			p->cancelled = i & 1;
			p->bumped = i & 2;
			p->revoked = i & 4;
			snprintf(p->name, sizeof(p->name), "%s_%s_%s",
				 p->cancelled ? "cancelled" : "uncancelled",
				 p->bumped ? "epoch_bumped" : "same_epoch",
				 p->revoked ? "revoked" : "same_authority");
		}
		c = retire_pred_cases;
	} else if (++c == retire_pred_cases + ARRAY_SIZE(retire_pred_cases)) {
		return NULL;
	}
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
	return c;
}

static void retire_predicate_publishes_only_unchanged_intent(struct kunit *test)
{
	const struct retire_pred_case *c = test->param_value;
	struct retire_fix *f = test->priv;
	u64 h, epoch, auth;
	bool ok;

	h = retire_fix_submit(test, f->buf);
	if (c->cancelled)
		KUNIT_ASSERT_EQ(test, retire_req_cancel(f->ctx, h), -EALREADY);
	retire_fix_complete(f, h);
	if (c->bumped)
		KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_BUMP,
						       0, &epoch, &auth), 0);
	if (c->revoked)
		KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_REVOKE,
						       0, &epoch, &auth), 0);

	spin_lock_irq(&f->ctx->lock);
	ok = retire_req_publishable_locked(f->ctx, retire_fix_req(f, h));
	spin_unlock_irq(&f->ctx->lock);
	KUNIT_EXPECT_EQ(test, ok, !c->cancelled && !c->bumped && !c->revoked);

	/* and the delivered record says the same */
	retire_fix_read(f, RETIRE_REC_TERMINAL);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[ok ? RETIRE_ST_PUBLISHED :
					       RETIRE_ST_STALE_PUBLISHED], 1ULL);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_COMPLETED], 1ULL);
}

/*
 * A request compares the context's intent sequence with what moved after
 * its admission: a bump or a revocation before it, or a bump of another
 * key after it, leaves it publishable; a bump of its own key after it
 * does not, however many other changes came between.
 */
static void retire_predicate_judges_only_later_changes_of_its_key(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	u64 h, late, epoch, auth;
	bool ok_late;

	KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_BUMP, 0,
					       &epoch, &auth), 0);
	KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_REVOKE, 0,
					       &epoch, &auth), 0);
	h = retire_fix_submit(test, f->buf);
	KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_BUMP, 7,
					       &epoch, &auth), 0);
	retire_fix_complete(f, h);
	retire_fix_read(f, RETIRE_REC_TERMINAL);
	KUNIT_ASSERT_EQ(test, retire_req_retire(f->ctx, h), 0);
	retire_fix_read(f, RETIRE_REC_RETIRED);

	late = retire_fix_submit(test, f->buf);
	KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_BUMP, 7,
					       &epoch, &auth), 0);
	KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_BUMP, 0,
					       &epoch, &auth), 0);
	KUNIT_ASSERT_EQ(test, retire_ctx_epoch(f->ctx, RETIRE_EPOCH_BUMP, 7,
					       &epoch, &auth), 0);
	retire_fix_complete(f, late);

	spin_lock_irq(&f->ctx->lock);
	ok_late = retire_req_publishable_locked(f->ctx, retire_fix_req(f, late));
	spin_unlock_irq(&f->ctx->lock);
	KUNIT_EXPECT_FALSE(test, ok_late);
	KUNIT_EXPECT_EQ(test, epoch, 3ULL);
	retire_fix_read(f, RETIRE_REC_TERMINAL);
	/* @h was published, @late was not */
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_PUBLISHED], 1ULL);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_STALE_PUBLISHED], 1ULL);
}

static struct kunit_case retire_predicate_cases[] = {
	KUNIT_CASE_PARAM(retire_predicate_publishes_only_unchanged_intent,
			 retire_pred_gen_params),
	KUNIT_CASE(retire_predicate_judges_only_later_changes_of_its_key),
	{}
};

static struct kunit_suite retire_predicate_suite = {
	.name = "retire_predicate",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_predicate_cases,
};

/* ---- retire_quarantine: past the watchdog, until proven termination ---- */

/* quarantine @h: a 5 ms watchdog, and the test engine never reports */
static u64 retire_fix_quarantine(struct kunit *test, struct retire_fix *f)
{
	struct retire_limits l = f->ctx->limits;
	u64 h, other;

	l.watchdog_ns = 5 * NSEC_PER_MSEC;
	KUNIT_ASSERT_EQ(test, retire_ctx_set_limits(f->ctx, &l), 0);
	h = retire_fix_submit(test, f->buf);
	msleep(50);

	KUNIT_EXPECT_EQ(test, retire_fix_read(f, RETIRE_REC_QUARANTINE), 1U);
	KUNIT_EXPECT_TRUE(test, retire_fix_req(f, h)->quarantined);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_QUARANTINED_NOW], 1ULL);
	KUNIT_EXPECT_EQ(test, retire_fix_try_submit(f, f->buf, 512, 0, &other),
			-ENOTRECOVERABLE);
	KUNIT_EXPECT_EQ(test, retire_buf_unregister(f->ctx, f->buf), -EBUSY);
	return h;
}

/* quarantine is over: the request retired and admission is open */
static void retire_fix_unquarantined(struct kunit *test, struct retire_fix *f)
{
	struct retire_engine_result reset = { .error = -ECANCELED, .reset = true };
	u64 other;

	KUNIT_EXPECT_EQ(test, retire_fix_read(f, RETIRE_REC_RETIRED), 1U);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_QUARANTINED_NOW], 0ULL);
	KUNIT_EXPECT_EQ(test, f->ctx->quarantined, 0U);
	KUNIT_ASSERT_EQ(test, retire_fix_try_submit(f, f->buf, 512, 0, &other), 0);
	retire_engine_complete(f->ctx, other, &reset);
}

static void retire_quarantine_ends_with_its_terminal_event(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	u64 h = retire_fix_quarantine(test, f);

	/* the device's own report proves termination: no reset needed */
	retire_fix_complete(f, h);
	KUNIT_EXPECT_FALSE(test, retire_fix_req(f, h)->quarantined);
	KUNIT_EXPECT_EQ(test, retire_fix_read(f, RETIRE_REC_TERMINAL), 1U);
	KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, h), 0);
	retire_fix_unquarantined(test, f);
}

static void retire_quarantine_holds_until_terminal_or_reset(struct kunit *test)
{
	struct retire_engine_result reset = { .error = -ECANCELED, .reset = true };
	struct retire_fix *f = test->priv;
	u64 h = retire_fix_quarantine(test, f);

	/* a reset's walk frees only what terminated: this did not */
	retire_ctx_unquarantine(f->ctx);
	KUNIT_EXPECT_TRUE(test, retire_fix_req(f, h)->quarantined);
	KUNIT_EXPECT_EQ(test, f->ctx->stats.v[RETIRE_ST_QUARANTINED_NOW], 1ULL);

	/* the reset's own terminal event does */
	retire_engine_complete(f->ctx, h, &reset);
	KUNIT_EXPECT_EQ(test, retire_fix_read(f, RETIRE_REC_TERMINAL), 1U);
	KUNIT_EXPECT_EQ(test, retire_req_retire(f->ctx, h), 0);
	retire_fix_unquarantined(test, f);
}

/*
 * A device with a queue of its own (edu serves contexts in turn) holds a
 * request it has not begun without touching its buffer: the watchdog
 * counts the device's time on it from retire_engine_begin(), not the time
 * it waited behind other contexts' work.
 */
static void retire_quarantine_counts_from_the_devices_begin(struct kunit *test)
{
	struct retire_engine_result reset = { .error = -ECANCELED, .reset = true };
	struct retire_buf_reg reg = { .len = PAGE_SIZE };
	struct retire_op op = { .opcode = RETIRE_OP_SUBMIT, .len = 64,
				.dev_flags = RETIRE_DEV_WRITE };
	struct retire_limits l;
	struct retire_ctx *ctx;
	struct retire_req *req;

	ctx = retire_ctx_create(&retire_test_queue_engine);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	l = ctx->limits;
	l.watchdog_ns = 5 * NSEC_PER_MSEC;
	KUNIT_ASSERT_EQ(test, retire_ctx_set_limits(ctx, &l), 0);
	KUNIT_ASSERT_EQ(test, retire_buf_register(ctx, &reg), 0);
	op.buf = reg.handle;
	mutex_lock(&ctx->mutex);
	KUNIT_ASSERT_EQ(test, retire_submit_one(ctx, &op, ktime_get()), 0);
	mutex_unlock(&ctx->mutex);
	req = retire_slot_get(&ctx->reqs, retire_handle_slot(op.handle));
	KUNIT_EXPECT_EQ(test, req->state, RETIRE_REQ_ACTIVE);
	/* ten watchdogs in the device's queue: not its time yet */
	msleep(50);
	KUNIT_EXPECT_FALSE(test, req->quarantined);
	KUNIT_EXPECT_EQ(test, ctx->quarantined, 0U);
	/* the device begins it: from here its silence counts */
	retire_engine_begin(ctx, op.handle);
	msleep(50);
	KUNIT_EXPECT_TRUE(test, req->quarantined);
	retire_engine_complete(ctx, op.handle, &reset);
	KUNIT_EXPECT_FALSE(test, req->quarantined);
	retire_ctx_release(ctx);
}

static struct kunit_case retire_quarantine_cases[] = {
	KUNIT_CASE(retire_quarantine_ends_with_its_terminal_event),
	KUNIT_CASE(retire_quarantine_holds_until_terminal_or_reset),
	KUNIT_CASE(retire_quarantine_counts_from_the_devices_begin),
	{}
};

static struct kunit_suite retire_quarantine_suite = {
	.name = "retire_quarantine",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_quarantine_cases,
};

/*
 * ---- an engine that runs inline, and the fast lane --------------------
 */

/* the fixture's context, bound to the engine that runs inline instead */
static struct retire_ctx *retire_inline_ctx(struct kunit *test, u64 *buf)
{
	struct retire_buf_reg reg = { .len = PAGE_SIZE };
	struct retire_ctx *ctx = retire_ctx_create(&retire_test_run_engine);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	KUNIT_ASSERT_EQ(test, retire_buf_register(ctx, &reg), 0);
	*buf = reg.handle;
	return ctx;
}

/*
 * Through the general path, a request to an engine that runs inline is
 * ended before the submit returns, and the context holds no job for it
 * and no watch: its job table never grew, nothing is on the active list.
 * The records are the usual two, and it retires once.
 */
static void retire_inline_engine_takes_no_job_and_no_watch(struct kunit *test)
{
	struct retire_op op = {
		.opcode = RETIRE_OP_SUBMIT, .len = 512,
		.dev_flags = RETIRE_DEV_READ, .user_data = 7,
	};
	struct retire_cqe c[4];
	struct retire_ctx *ctx;
	struct retire_req *req;
	int n;

	ctx = retire_inline_ctx(test, &op.buf);
	mutex_lock(&ctx->mutex);
	KUNIT_ASSERT_EQ(test, retire_submit_one(ctx, &op, ktime_get()), 0);
	mutex_unlock(&ctx->mutex);
	req = retire_slot_get(&ctx->reqs, retire_handle_slot(op.handle));
	KUNIT_EXPECT_EQ(test, req->state, RETIRE_REQ_TERMINATED);
	KUNIT_EXPECT_EQ(test, req->result_len, 512ULL);
	KUNIT_EXPECT_EQ(test, ctx->jobs.nr, 0U);
	KUNIT_EXPECT_EQ(test, ctx->active, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&ctx->active_list));
	KUNIT_EXPECT_EQ(test, ctx->stats.v[RETIRE_ST_ENGINE_BYTES], 512ULL);

	mutex_lock(&ctx->mutex);
	n = retire_records_take_kernel(ctx, c, ARRAY_SIZE(c));
	mutex_unlock(&ctx->mutex);
	KUNIT_ASSERT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, c[0].type, RETIRE_REC_TERMINAL);
	KUNIT_EXPECT_EQ(test, c[0].checksum, op.handle);
	KUNIT_EXPECT_EQ(test, retire_req_retire(ctx, op.handle), 0);
	KUNIT_EXPECT_EQ(test, retire_req_retire(ctx, op.handle), -ENOENT);
	mutex_lock(&ctx->mutex);
	n = retire_records_take_kernel(ctx, c, ARRAY_SIZE(c));
	mutex_unlock(&ctx->mutex);
	KUNIT_ASSERT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, c[0].type, RETIRE_REC_RETIRED);
	KUNIT_EXPECT_EQ(test, ctx->stats.v[RETIRE_ST_RETIRED], 1ULL);
	KUNIT_EXPECT_EQ(test, ctx->reqs.used, 0U);
	retire_ctx_release(ctx);
}

/* one fast-lane step on @ctx: its result, its record in @cqe */
static int retire_lane_step(struct retire_ctx *ctx, struct retire_op *op,
			    struct retire_cqe *cqe)
{
	int ret;

	mutex_lock(&ctx->mutex);
	spin_lock_irq(&ctx->lock);
	ret = retire_submit_inline_locked(ctx, op, ktime_get(), cqe);
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&ctx->mutex);
	return ret;
}

/*
 * The fast lane takes a ONE_RECORD request to an engine that runs inline
 * from admission to retirement in one step: its record says RETIRED, its
 * slot is free again and its handle stale, the buffer back in its pool,
 * and the counters moved once each. It leaves to the other path, changing
 * nothing, another SUBMIT, another engine, and any request while a record
 * waits on the ready list, so that records stay in order.
 */
static void retire_lane_retires_in_one_step_or_leaves_it(struct kunit *test)
{
	struct retire_fix *f = test->priv;
	struct retire_op op = {
		.opcode = RETIRE_OP_SUBMIT, .len = 64,
		.dev_flags = RETIRE_DEV_WRITE, .user_data = 9,
		.flags = RETIRE_SQE_F_INLINE_LANE,
	};
	struct retire_cqe cqe = {}, zero = {};
	struct retire_ctx *ctx;
	struct retire_buf *buf;
	u64 h;

	/* the manual device's context: not for the fast lane */
	op.buf = f->buf;
	KUNIT_EXPECT_EQ(test, retire_lane_step(f->ctx, &op, &cqe), 1);
	KUNIT_EXPECT_EQ(test, retire_fix_stat(f, RETIRE_ST_ADMITTED), 0ULL);

	ctx = retire_inline_ctx(test, &op.buf);
	/* a new context has no request slot yet: the other path grows it */
	KUNIT_EXPECT_EQ(test, retire_lane_step(ctx, &op, &cqe), 1);
	KUNIT_EXPECT_EQ(test, ctx->stats.v[RETIRE_ST_ADMITTED], 0ULL);
	KUNIT_ASSERT_EQ(test, retire_slot_reserve(&ctx->reqs, 1), 0);
	KUNIT_ASSERT_EQ(test, retire_lane_step(ctx, &op, &cqe), 0);
	h = op.handle;
	KUNIT_EXPECT_NE(test, h, 0ULL);
	KUNIT_EXPECT_EQ(test, cqe.handle, h);
	KUNIT_EXPECT_EQ(test, cqe.user_data, 9ULL);
	KUNIT_EXPECT_EQ(test, cqe.type, RETIRE_REC_TERMINAL);
	KUNIT_EXPECT_EQ(test, cqe.outcome, RETIRE_OUTCOME_COMPLETED);
	KUNIT_EXPECT_EQ(test, cqe.flags,
			RETIRE_CQE_F_MEASURED | RETIRE_CQE_F_RETIRED);
	KUNIT_EXPECT_EQ(test, cqe.result_len, 64ULL);
	/* a device that only writes reports no checksum */
	KUNIT_EXPECT_EQ(test, cqe.checksum, 0ULL);
	KUNIT_EXPECT_EQ(test, ctx->reqs.used, 0U);
	KUNIT_EXPECT_EQ(test, ctx->unretired, 0U);
	KUNIT_EXPECT_EQ(test, ctx->reserved_bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, ctx->ready_head, RETIRE_SLOT_NONE);
	KUNIT_EXPECT_EQ(test, ctx->stats.v[RETIRE_ST_ADMITTED], 1ULL);
	KUNIT_EXPECT_EQ(test, ctx->stats.v[RETIRE_ST_COMPLETED], 1ULL);
	KUNIT_EXPECT_EQ(test, ctx->stats.v[RETIRE_ST_PUBLISHED], 1ULL);
	KUNIT_EXPECT_EQ(test, ctx->stats.v[RETIRE_ST_RETIRED], 1ULL);
	KUNIT_EXPECT_EQ(test, ctx->stats.v[RETIRE_ST_PHYSICAL], 0ULL);
	KUNIT_EXPECT_EQ(test, ctx->stats.v[RETIRE_ST_LOGICAL], 0ULL);
	KUNIT_EXPECT_EQ(test, ctx->stats.v[RETIRE_ST_DEVICE], 0ULL);
	spin_lock_irq(&ctx->lock);
	buf = retire_slot_lookup_locked(&ctx->bufs, op.buf);
	KUNIT_EXPECT_EQ(test, buf->state, RETIRE_BUF_FREE);
	KUNIT_EXPECT_TRUE(test, buf->dev_wrote);
	spin_unlock_irq(&ctx->lock);
	/* the handle is stale: nothing of it is left to retire */
	KUNIT_EXPECT_EQ(test, retire_req_retire(ctx, h), -ENOENT);

	/* two records owed: not the fast lane's */
	op.flags = RETIRE_SQE_F_AUTO_RETIRE;
	cqe = zero;
	KUNIT_EXPECT_EQ(test, retire_lane_step(ctx, &op, &cqe), 1);
	KUNIT_EXPECT_EQ(test, memcmp(&cqe, &zero, sizeof(cqe)), 0);
	/* the other path takes it; its records wait on the ready list */
	mutex_lock(&ctx->mutex);
	KUNIT_ASSERT_EQ(test, retire_submit_one(ctx, &op, ktime_get()), 0);
	mutex_unlock(&ctx->mutex);
	KUNIT_EXPECT_NE(test, ctx->ready_head, RETIRE_SLOT_NONE);
	/* meanwhile no request takes the fast lane, which would pass them */
	op.flags = RETIRE_SQE_F_INLINE_LANE;
	KUNIT_EXPECT_EQ(test, retire_lane_step(ctx, &op, &cqe), 1);
	KUNIT_EXPECT_EQ(test, ctx->stats.v[RETIRE_ST_ADMITTED], 2ULL);
	KUNIT_EXPECT_EQ(test, ctx->stats.v[RETIRE_ST_REFUSED], 0ULL);
	retire_ctx_release(ctx);
}

static struct kunit_case retire_inline_cases[] = {
	KUNIT_CASE(retire_inline_engine_takes_no_job_and_no_watch),
	KUNIT_CASE(retire_lane_retires_in_one_step_or_leaves_it),
	{}
};

static struct kunit_suite retire_inline_suite = {
	.name = "retire_inline",
	.init = retire_fix_init,
	.exit = retire_fix_exit,
	.test_cases = retire_inline_cases,
};

kunit_test_suites(&retire_stale_suite, &retire_order_suite,
		  &retire_bounds_suite, &retire_activation_suite,
		  &retire_predicate_suite, &retire_quarantine_suite,
		  &retire_inline_suite);
