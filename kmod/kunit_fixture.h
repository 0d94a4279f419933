/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What retire's KUnit suites share (kunit_fixture.c): a manual device, and
 * a context on it with one buffer, released when the case ends.
 */
#ifndef _RETIRE_KUNIT_FIXTURE_H
#define _RETIRE_KUNIT_FIXTURE_H

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/delay.h>
#include <linux/mman.h>
#include <linux/uaccess.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <linux/retire_netlink.h>

#include "main.h"
#include "admit.h"
#include "buf.h"
#include "cancel.h"
#include "chardev.h"
#include "ctx.h"
#include "engine.h"
#include "engine_sim.h"
#include "netlink.h"
#include "records.h"
#include "req.h"
#include "slot.h"
#include "stats.h"
#include "token.h"

/* a job of the manual device: started, and stopped if a cancel may */
struct retire_test_job {
	bool started;
	u64 handle;
};

/* whether the manual device's cancel stops a job; false at each init */
extern bool retire_test_stop_ok;
/* the manual device completes each job as it starts, as a null device */
extern bool retire_test_inline;
/* the manual device: never registered, only the suites' contexts hold it */
extern struct retire_engine retire_test_engine;
/* the manual device with a queue: retire_engine_begin() starts the watch */
extern struct retire_engine retire_test_queue_engine;
/* a device that runs inline (ops->run): reports @len moved, @handle as sum */
extern struct retire_engine retire_test_run_engine;

void retire_test_start(struct retire_engine *e, struct retire_ctx *ctx,
		       void *j, const struct retire_engine_work *w);
bool retire_test_try_stop(struct retire_engine *e, struct retire_ctx *ctx,
			  void *j);

/* a context with one module-allocated page, released at test exit */
struct retire_fix {
	struct retire_ctx *ctx;
	u64 buf;
	unsigned int seen[RETIRE_REC_RETIRED + 1];	/* records read, by type */
};

int retire_fix_init(struct kunit *test);
void retire_fix_exit(struct kunit *test);
u64 retire_fix_submit(struct kunit *test, u64 buf);
int retire_fix_try_submit(struct retire_fix *f, u64 buf, u64 len, u64 key,
			  u64 *handle);
void retire_fix_complete(struct retire_fix *f, u64 handle);
unsigned int retire_fix_read(struct retire_fix *f, u32 type);
u64 retire_fix_stat(struct retire_fix *f, enum retire_stat i);
int retire_fix_borrow(struct retire_fix *f, u64 req, u64 *tok);
int retire_fix_handoff(struct retire_fix *f, u64 tok, u64 *new_tok);
struct retire_req *retire_fix_req(struct retire_fix *f, u64 h);
void retire_fix_add_bufs(struct kunit *test, u64 *bufs, unsigned int n);
int retire_fix_set(struct retire_fix *f,
		   void (*edit)(struct retire_limits *l));
void retire_edit_waiting(struct retire_limits *l);
void retire_edit_pool(struct retire_limits *l);

#endif /* _RETIRE_KUNIT_FIXTURE_H */
