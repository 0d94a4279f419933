// SPDX-License-Identifier: GPL-2.0
/*
 * The sample engine (samples/retire_sample.c, retire_sample.ko): a driver
 * written against the engine API's header alone, loaded beside the core.
 * What holds for the engines built into the project holds for it: it
 * moves exactly the bytes the access flags allow, nothing reaches the
 * buffer after its terminal event, a cancel stops a request it has not
 * begun, and its per-context state (one channel per bound context) is
 * set up and torn down with each binding.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "retire_test.h"

#define SAMPLE_DELAY	"/sys/module/retire_sample/parameters/delay_ms"
#define SAMPLE_CHANNELS	"/sys/module/retire_sample/parameters/channels"

FIXTURE(sample) {
	struct retire *r;
	struct retire_engine_info e;
	struct rt_log log;
};

FIXTURE_SETUP(sample)
{
	memset(&self->log, 0, sizeof(self->log));
	RT_OPEN_OR_SKIP(self->r);
	if (rt_engine_named(self->r, "sample", &self->e))
		SKIP(return, "retire_sample.ko is not loaded");
	ASSERT_EQ(0, retire_bind_engine(self->r, self->e.id));
}

FIXTURE_TEARDOWN(sample)
{
	rt_write_file(SAMPLE_DELAY, "10");
	rt_log_free(&self->log);
	retire_close_device(self->r);
}

/*
 * WRITE puts the pattern in the range and nothing outside it; READ
 * reports the checksum of the range. After RETIRED, the buffer is the
 * caller's: nothing of the device reaches it any more, however long one
 * looks (a device that reported before its last access would).
 */
TEST_F(sample, it_moves_the_allowed_bytes_and_none_after_its_terminal_event)
{
	const size_t len = 3 * RT_PAGE, off = 100, n = 5000;
	unsigned char *map, *snap;
	struct retire_cqe c;
	__u64 buf, h;

	snap = malloc(len);
	ASSERT_NE(NULL, snap);
	ASSERT_EQ(0, retire_alloc_buffer(self->r, len, &buf, (void **)&map));
	memset(map, 0x5a, len);

	ASSERT_EQ(0, rt_submit(self->r, buf, off, n, RETIRE_DEV_WRITE,
			       0x1234567, 0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     5000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(n, c.result_len);
	ASSERT_EQ(0, retire_release_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_RETIRED, NULL,
			     2000));
	EXPECT_EQ(-1, rt_check_fill(map, off, 0x5a));
	EXPECT_EQ(-1, rt_check_pattern(map + off, n, 0x1234567));
	EXPECT_EQ(-1, rt_check_fill(map + off + n, len - off - n, 0x5a));
	memcpy(snap, map, len);
	rt_msleep(400);
	EXPECT_EQ(0, memcmp(snap, map, len));

	ASSERT_EQ(0, rt_submit(self->r, buf, 0, len, RETIRE_DEV_READ, 0, 0,
			       &h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     5000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(rt_fnv1a64(map, len), c.checksum);
	ASSERT_EQ(0, retire_release_request(self->r, h));
	EXPECT_EQ(0, memcmp(snap, map, len));
	free(snap);
}

/* a request the device has not begun is stopped by a cancel, untouched */
TEST_F(sample, a_cancel_stops_what_the_device_has_not_begun)
{
	struct retire_cqe c;
	unsigned char *map;
	__u64 buf, h;

	if (rt_write_file(SAMPLE_DELAY, "3000"))
		SKIP(return, "cannot set " SAMPLE_DELAY " (not root?)");
	ASSERT_EQ(0, retire_alloc_buffer(self->r, RT_PAGE, &buf,
					 (void **)&map));
	memset(map, 0x11, RT_PAGE);
	ASSERT_EQ(0, rt_submit(self->r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 7,
			       0, &h));
	EXPECT_EQ(0, retire_cancel_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     2000));
	EXPECT_EQ(RETIRE_OUTCOME_CANCELLED, c.outcome);
	EXPECT_EQ(0, c.result_len);
	ASSERT_EQ(0, retire_release_request(self->r, h));
	EXPECT_EQ(-1, rt_check_fill(map, RT_PAGE, 0x11));
}

/*
 * The engine's attach() refuses a binding once its channels are taken,
 * and detach() gives a channel back when a context leaves: the refusal
 * changes nothing (the context stays on its engine).
 */
TEST_F(sample, binding_is_refused_while_every_channel_is_taken)
{
	struct retire *more[16];
	long channels = rt_read_long(SAMPLE_CHANNELS);
	struct retire_engine_info now;
	__u32 id;
	int i, bound = 0, ret = 0;

	ASSERT_LT(0, channels);
	ASSERT_GE(16, channels);
	ASSERT_EQ(0, rt_engine_named(self->r, "sample", &now));
	for (i = 0; i < 16; i++) {
		ASSERT_EQ(0, retire_open_device(&more[i], NULL, 0));
		ret = retire_bind_engine(more[i], self->e.id);
		if (ret)
			break;
		bound++;
	}
	ASSERT_GT(16, i);
	/* this fixture's context holds one channel already */
	EXPECT_EQ(channels - now.contexts, bound);
	EXPECT_EQ(-ENOSPC, ret);
	ASSERT_EQ(0, retire_get_bound_engine(more[i], &id));
	EXPECT_NE(self->e.id, id);
	/* one leaves: its channel is free again */
	retire_close_device(more[0]);
	EXPECT_TRUE(RT_POLL_UNTIL(!retire_bind_engine(more[i], self->e.id),
				  3000, 20));
	for (; i > 0; i--)
		retire_close_device(more[i]);
}

TEST_HARNESS_MAIN
