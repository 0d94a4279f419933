// SPDX-License-Identifier: GPL-2.0
/*
 * Engines: RETIRE_IOC_ENGINES lists what the module can hand requests to,
 * RETIRE_IOC_CONTEXT binds a context to one.
 *
 * Each test names what it proves: the sim is always there, first, with
 * its knobs; the list counts the contexts bound to each engine; a context
 * starts on the sim and changes engine only while nothing is unretired;
 * bad arguments are refused changing nothing.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "retire_test.h"

#define MAX_ENGINES	16

FIXTURE(eng) {
	struct retire *r;
	int fd;
};

FIXTURE_SETUP(eng)
{
	RT_OPEN_OR_SKIP(self->r);
	RT_REQUIRE_FEATURES(self->r, RETIRE_FEAT_ENGINES,
			    "the module lists no engines");
	self->fd = retire_get_fd(self->r);
	rt_sim_neutral(self->r);
}

FIXTURE_TEARDOWN(eng)
{
	rt_sim_neutral(self->r);
	retire_close_device(self->r);
}

/* the engine with @id in @e[0..n), or NULL */
static const struct retire_engine_info *
eng_find(const struct retire_engine_info *e, int n, __u32 id)
{
	int i;

	for (i = 0; i < n; i++)
		if (e[i].id == id)
			return &e[i];
	return NULL;
}

/*
 * The sim is engine 0 and always there: named "sim", no device, its knobs
 * (RETIRE_ENGINE_F_KNOBS), no DMA; every listed engine has a name, only
 * known flags and zero reserved fields; a list with no room still counts.
 */
TEST_F(eng, the_sim_is_always_engine_zero_with_its_knobs)
{
	struct retire_engine_info e[MAX_ENGINES];
	const struct retire_engine_info *sim;
	int n, i;

	memset(e, 0xa5, sizeof(e));
	n = retire_list_engines(self->r, e, MAX_ENGINES);
	ASSERT_LE(1, n);
	ASSERT_GE(MAX_ENGINES, n);
	sim = eng_find(e, n, RETIRE_ENGINE_SIM);
	ASSERT_NE(NULL, sim);
	EXPECT_STREQ("sim", sim->name);
	EXPECT_STREQ("", sim->device);
	EXPECT_EQ(RETIRE_ENGINE_F_KNOBS, sim->flags);
	EXPECT_EQ(0, sim->dma_mask);
	EXPECT_LE(1, sim->contexts);
	for (i = 0; i < n; i++) {
		EXPECT_NE(0, e[i].name[0]);
		EXPECT_EQ(0, e[i].flags & ~RETIRE_ENGINE_F_ALL);
		EXPECT_EQ(0, e[i].reserved[0] | e[i].reserved[1] |
			     e[i].reserved[2]);
		EXPECT_EQ(!strcmp(e[i].name, "edu"),
			  !!(e[i].flags & RETIRE_ENGINE_F_DMA));
	}
	EXPECT_EQ(n, retire_list_engines(self->r, NULL, 0));
	EXPECT_EQ(n, retire_list_engines(self->r, e, 1));
}

/* each open context is bound to the sim until told otherwise, and counted */
TEST_F(eng, contexts_start_on_the_sim_and_are_counted)
{
	struct retire_engine_info e[MAX_ENGINES];
	struct retire *more[3];
	__u32 before, id = 99;
	int n, i;

	ASSERT_EQ(0, retire_get_bound_engine(self->r, &id));
	EXPECT_EQ(RETIRE_ENGINE_SIM, id);
	n = retire_list_engines(self->r, e, MAX_ENGINES);
	ASSERT_LE(1, n);
	before = eng_find(e, n, RETIRE_ENGINE_SIM)->contexts;
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, retire_open_device(&more[i], NULL, 0));
	n = retire_list_engines(self->r, e, MAX_ENGINES);
	EXPECT_EQ(before + 3, eng_find(e, n, RETIRE_ENGINE_SIM)->contexts);
	for (i = 0; i < 3; i++)
		retire_close_device(more[i]);
}

/*
 * A context changes engine only while no request is unretired (-EBUSY,
 * and it stays where it was); an id the module does not have is -ENOENT.
 * Once the request retired, the change is allowed.
 */
TEST_F(eng, a_context_changes_engine_only_while_idle)
{
	struct retire_engine_info e[MAX_ENGINES];
	struct retire_cqe c;
	struct rt_log log = { 0 };
	__u64 buf, h;
	__u32 id;
	int n;

	n = retire_list_engines(self->r, e, MAX_ENGINES);
	ASSERT_LE(1, n);
	EXPECT_EQ(-ENOENT, retire_bind_engine(self->r, 0xffffffffU));
	EXPECT_EQ(-ENOENT, retire_bind_engine(self->r, e[n - 1].id + 1000));
	EXPECT_EQ(0, retire_bind_engine(self->r, RETIRE_ENGINE_SIM));

	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &buf, NULL));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 50 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 1,
			       0, &h));
	EXPECT_EQ(-EBUSY, retire_bind_engine(self->r, RETIRE_ENGINE_SIM));
	ASSERT_EQ(0, rt_wait(self->r, &log, h, RETIRE_REC_TERMINAL, &c, 3000));
	/* terminated, not retired: still busy */
	EXPECT_EQ(-EBUSY, retire_bind_engine(self->r, RETIRE_ENGINE_SIM));
	ASSERT_EQ(0, retire_release_request(self->r, h));
	EXPECT_EQ(0, retire_bind_engine(self->r, RETIRE_ENGINE_SIM));
	ASSERT_EQ(0, retire_get_bound_engine(self->r, &id));
	EXPECT_EQ(RETIRE_ENGINE_SIM, id);
	/* and the context works on */
	ASSERT_EQ(0, rt_submit(self->r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 2,
			       0, &h));
	ASSERT_EQ(0, rt_wait(self->r, &log, h, RETIRE_REC_TERMINAL, &c, 3000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	rt_log_free(&log);
}

/* every malformed argument is -EINVAL and changes nothing */
TEST_F(eng, bad_arguments_are_refused)
{
	struct retire_engines_arg ea;
	struct retire_context_arg ca;
	__u32 id;

	memset(&ea, 0, sizeof(ea));
	ea.flags = 1;
	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_ENGINES, &ea));
	ea.flags = 0;
	ea.reserved[1] = 1;
	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_ENGINES, &ea));
	ea.reserved[1] = 0;
	ea.nr = 4;
	ea.engines = 8;		/* unmapped */
	EXPECT_EQ(-EFAULT, rt_ioctl(self->fd, RETIRE_IOC_ENGINES, &ea));

	memset(&ca, 0, sizeof(ca));
	ca.op = 2;
	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_CONTEXT, &ca));
	ca.op = RETIRE_CONTEXT_SET;
	ca.flags = 1;
	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_CONTEXT, &ca));
	ca.flags = 0;
	ca.pad = 1;
	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_CONTEXT, &ca));
	ca.pad = 0;
	ca.reserved = 1;
	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_CONTEXT, &ca));
	ca.reserved = 0;
	ca.op = RETIRE_CONTEXT_GET;
	ca.ctx_id = 1;		/* an output, never an input */
	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_CONTEXT, &ca));
	ASSERT_EQ(0, retire_get_bound_engine(self->r, &id));
	EXPECT_EQ(RETIRE_ENGINE_SIM, id);
	EXPECT_EQ(-EINVAL, retire_list_engines(self->r, NULL, 3));
	EXPECT_EQ(-EINVAL, retire_get_bound_engine(self->r, NULL));
}

/*
 * RETIRE_CONTEXT_GET names the context: an id that is never 0, never
 * another open context's, and the one RETIRE_IOC_HISTORY gives for the
 * caller's own context.
 */
TEST_F(eng, context_get_gives_the_contexts_own_id)
{
	struct retire_history_info hi;
	struct retire_context_arg ca;
	struct retire_info info;
	struct retire *other;
	__u64 id, id2;

	memset(&ca, 0, sizeof(ca));
	ca.op = RETIRE_CONTEXT_GET;
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_CONTEXT, &ca));
	EXPECT_NE(0, ca.ctx_id);
	EXPECT_EQ(0, ca.reserved);
	ASSERT_EQ(0, retire_get_context_id(self->r, &id));
	EXPECT_EQ(ca.ctx_id, id);
	ASSERT_EQ(0, retire_open_device(&other, NULL, 0));
	ASSERT_EQ(0, retire_get_context_id(other, &id2));
	EXPECT_NE(id, id2);
	ASSERT_EQ(0, retire_get_info(self->r, &info));
	if (info.features & RETIRE_FEAT_HISTORY) {
		ASSERT_EQ(0, retire_read_history(other, 0, NULL, 0, &hi));
		EXPECT_EQ(id2, hi.ctx_id);
	}
	retire_close_device(other);
	EXPECT_EQ(-EINVAL, retire_get_context_id(self->r, NULL));
	EXPECT_EQ(-EINVAL, retire_get_context_id(NULL, &id));
}

/*
 * RETIRE_CONTEXT_SET with the engine the context is bound to already is
 * no exception: while a request is unretired it is -EBUSY like any other
 * bind, and changes nothing; once the request retired it succeeds.
 */
TEST_F(eng, rebinding_a_busy_context_to_its_own_engine_is_ebusy)
{
	struct retire_cqe c;
	struct rt_log log = { 0 };
	__u64 buf, h;
	__u32 id, now;

	ASSERT_EQ(0, retire_get_bound_engine(self->r, &id));
	ASSERT_EQ(0, rt_register(self->r, RT_PAGE, &buf, NULL));
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 50 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 1,
			       0, &h));
	EXPECT_EQ(-EBUSY, retire_bind_engine(self->r, id));
	ASSERT_EQ(0, retire_get_bound_engine(self->r, &now));
	EXPECT_EQ(id, now);
	ASSERT_EQ(0, rt_wait(self->r, &log, h, RETIRE_REC_TERMINAL, &c, 3000));
	ASSERT_EQ(0, retire_release_request(self->r, h));
	EXPECT_EQ(0, retire_bind_engine(self->r, id));
	rt_log_free(&log);
}

/*
 * RETIRE_IOC_ENGINES with nr 0 and no array only counts; an nr above 256
 * is taken as 256.
 */
TEST_F(eng, engines_with_no_array_only_count)
{
	struct retire_engine_info e[MAX_ENGINES];
	struct retire_engines_arg ea;
	int n;

	n = retire_list_engines(self->r, e, MAX_ENGINES);
	ASSERT_LE(1, n);
	memset(&ea, 0, sizeof(ea));
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_ENGINES, &ea));
	EXPECT_EQ(n, ea.nr);
	ea.nr = 1000;
	ea.engines = (__u64)(uintptr_t)e;
	ASSERT_GT(256, n);
	ASSERT_GE(MAX_ENGINES, n);
	ASSERT_EQ(0, rt_ioctl(self->fd, RETIRE_IOC_ENGINES, &ea));
	EXPECT_EQ(n, ea.nr);
}

TEST_HARNESS_MAIN
