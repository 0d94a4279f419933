// SPDX-License-Identifier: GPL-2.0
/*
 * The core and its engines as modules: each order of loading and
 * unloading a user or an administrator can make. The core alone serves
 * contexts whose submits fail with -ENODEV and whose engine commands are
 * not there (-ENOTTY); an engine module cannot go while a context is bound
 * to it, idle or busy, nor the core while an engine module is loaded;
 * once a context is bound elsewhere its old engine's module may go and
 * come back; default_engine names what a new context binds to.
 *
 * The tests unload and reload the modules that vm-run.sh loaded, from
 * RETIRE_MODDIR (it exports it), as root; without it they skip. Each
 * leaves every module loaded as it found it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "retire_test.h"

#define DEFAULT_ENGINE	"/sys/module/retire/parameters/default_engine"
#define NO_ENGINE	0xffffffffU

/* the engine modules, in the order they are loaded */
static const char *const mod_engines[] = {
	"retire_sim", "retire_null", "retire_edu", "retire_sample",
};

static bool mod_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return !access(path, F_OK);
}

/* delete_module(2) as rmmod does it; 0 or -errno */
static int mod_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

/* where vm-run.sh loaded @name from; NULL if it did not say or has none */
static char *mod_path(const char *name)
{
	const char *dir = getenv("RETIRE_MODDIR");
	const char *sub[] = { "", "/../samples" };
	char *path;
	size_t i;

	if (!dir || !dir[0])
		return NULL;
	for (i = 0; i < 2; i++) {
		if (asprintf(&path, "%s%s/%s.ko", dir, sub[i], name) < 0)
			return NULL;
		if (!access(path, R_OK))
			return path;
		free(path);
	}
	return NULL;
}

/* finit_module(2) of @name from RETIRE_MODDIR; 0 or -errno */
static int mod_load(const char *name)
{
	char *path = mod_path(name);
	int fd, ret = 0;

	if (!path)
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, "", 0))
		ret = -errno;
	close(fd);
	return ret;
}

/* the module's references, waiting (at most 5 s) for them to drop to 0 */
static long mod_settle(const char *name)
{
	char path[128];
	long n;

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", name);
	RT_POLL_UNTIL((n = rt_read_long(path)) == 0, 5000, 20);
	return n;
}

/* the id of the engine named @name, or NO_ENGINE */
static __u32 engine_id(struct retire *r, const char *name)
{
	struct retire_engine_info e[RT_MAX_ENGINES];
	int n, i;

	n = retire_list_engines(r, e, RT_MAX_ENGINES);
	for (i = 0; i < n && i < RT_MAX_ENGINES; i++)
		if (!strcmp(e[i].name, name))
			return e[i].id;
	return NO_ENGINE;
}

FIXTURE(mods) {
	bool had[4];
};

FIXTURE_SETUP(mods)
{
	size_t i;

	if (geteuid())
		SKIP(return, "loading modules needs root");
	if (!mod_loaded("retire"))
		SKIP(return, "retire.ko is not loaded");
	if (!mod_path("retire_sim"))
		SKIP(return, "RETIRE_MODDIR does not say where the modules are");
	for (i = 0; i < 4; i++)
		self->had[i] = mod_loaded(mod_engines[i]);
	/* the contexts of the tests before may still be reaped */
	ASSERT_EQ(0, rt_module_refcnt(5000));
}

/* every engine module that was loaded is loaded again */
FIXTURE_TEARDOWN(mods)
{
	size_t i;

	rt_write_file(DEFAULT_ENGINE, "sim");
	for (i = 0; i < 4; i++)
		if (self->had[i] && !mod_loaded(mod_engines[i]))
			EXPECT_EQ(0, mod_load(mod_engines[i]));
}

/* unload every engine module; 0 or the first failure */
static int mods_unload_engines(void)
{
	int i, ret;

	for (i = 3; i >= 0; i--) {
		if (!mod_loaded(mod_engines[i]))
			continue;
		mod_settle(mod_engines[i]);
		ret = mod_unload(mod_engines[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The core alone: a new context is bound to no engine (its id is
 * 0xffffffff), GET_INFO reports no engine's features, nothing is listed;
 * buffers register, but a submit fails with -ENODEV and an engine's own
 * command with -ENOTTY. An engine loaded later takes id 0 again (the
 * default kind's), and the same context binds to it and runs a request.
 */
TEST_F(mods, the_core_alone_refuses_submits_until_an_engine_comes)
{
	struct retire_sim_config cfg = { .op = RETIRE_SIM_GET };
	struct retire_info info;
	struct retire_cqe c;
	struct rt_log log = { 0 };
	struct retire *r;
	__u64 buf, h;
	__u32 id = 0;

	ASSERT_EQ(0, mods_unload_engines());
	ASSERT_EQ(0, retire_open_device(&r, NULL, 0));
	EXPECT_EQ(0, retire_get_bound_engine(r, &id));
	EXPECT_EQ(NO_ENGINE, id);
	EXPECT_EQ(0, retire_list_engines(r, NULL, 0));
	ASSERT_EQ(0, retire_get_info(r, &info));
	EXPECT_EQ(0, info.features & (RETIRE_FEAT_SIM | RETIRE_FEAT_EDU));
	ASSERT_EQ(0, rt_register(r, RT_PAGE, &buf, NULL));
	EXPECT_EQ(-ENODEV, rt_submit(r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 1,
				     0, &h));
	EXPECT_EQ(-ENOTTY, rt_ioctl(retire_get_fd(r), RETIRE_IOC_SIM_CONFIG,
				    &cfg));
	EXPECT_EQ(-ENOENT, retire_bind_engine(r, RETIRE_ENGINE_SIM));

	ASSERT_EQ(0, mod_load("retire_sim"));
	EXPECT_EQ(RETIRE_ENGINE_SIM, engine_id(r, "sim"));
	ASSERT_EQ(0, retire_get_info(r, &info));
	EXPECT_TRUE(info.features & RETIRE_FEAT_SIM);
	EXPECT_EQ(0, rt_ioctl(retire_get_fd(r), RETIRE_IOC_SIM_CONFIG, &cfg));
	ASSERT_EQ(0, retire_bind_engine(r, RETIRE_ENGINE_SIM));
	ASSERT_EQ(0, rt_submit(r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 1, 0,
			       &h));
	ASSERT_EQ(0, rt_wait(r, &log, h, RETIRE_REC_TERMINAL, &c, 3000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(0, retire_release_request(r, h));
	rt_log_free(&log);
	retire_close_device(r);
}

/*
 * A context bound to an engine holds its module, idle or with a request
 * on the device: rmmod is refused (EWOULDBLOCK) and the engine stays
 * listed. Bound elsewhere, the context lets it go, and keeps working on
 * its new engine; the module comes back with the same id, listed first.
 */
TEST_F(mods, an_engine_module_stays_while_a_context_is_bound_to_it)
{
	struct retire_engine_info first;
	struct retire_cqe c;
	struct rt_log log = { 0 };
	struct retire *r;
	__u64 buf, h;
	__u32 null_id;

	if (!mod_loaded("retire_null") || !mod_loaded("retire_sim"))
		SKIP(return, "retire_null.ko and retire_sim.ko are not both loaded");
	ASSERT_EQ(0, retire_open_device(&r, NULL, 0));
	null_id = engine_id(r, "null");
	ASSERT_NE(NO_ENGINE, null_id);
	ASSERT_EQ(0, rt_register(r, RT_PAGE, &buf, NULL));

	/* bound and idle */
	EXPECT_EQ(-EWOULDBLOCK, mod_unload("retire_sim"));
	/* bound and busy */
	ASSERT_EQ(0, rt_set_latency(r, 0, 300 * RT_MS));
	ASSERT_EQ(0, rt_submit(r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 1, 0,
			       &h));
	EXPECT_EQ(-EWOULDBLOCK, mod_unload("retire_sim"));
	EXPECT_EQ(RETIRE_ENGINE_SIM, engine_id(r, "sim"));
	ASSERT_EQ(0, rt_wait(r, &log, h, RETIRE_REC_TERMINAL, &c, 3000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	EXPECT_EQ(0, retire_release_request(r, h));
	ASSERT_EQ(0, rt_wait(r, &log, h, RETIRE_REC_RETIRED, NULL, 2000));
	ASSERT_EQ(0, rt_set_latency(r, 0, 0));

	/* bound elsewhere: the sim's module may go, the context works on */
	ASSERT_EQ(0, retire_bind_engine(r, null_id));
	EXPECT_EQ(0, mod_settle("retire_sim"));
	ASSERT_EQ(0, mod_unload("retire_sim"));
	EXPECT_EQ(NO_ENGINE, engine_id(r, "sim"));
	ASSERT_EQ(0, rt_submit(r, buf, 0, RT_PAGE, RETIRE_DEV_WRITE, 2, 0,
			       &h));
	ASSERT_EQ(0, rt_wait(r, &log, h, RETIRE_REC_TERMINAL, &c, 3000));
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	/* the null device moves nothing */
	EXPECT_EQ(0, c.result_len);
	EXPECT_EQ(0, retire_release_request(r, h));

	ASSERT_EQ(0, mod_load("retire_sim"));
	EXPECT_EQ(RETIRE_ENGINE_SIM, engine_id(r, "sim"));
	/* the list is in id order: the sim first, though it came last */
	ASSERT_LE(1, retire_list_engines(r, &first, 1));
	EXPECT_EQ(RETIRE_ENGINE_SIM, first.id);
	EXPECT_EQ(0, retire_bind_engine(r, RETIRE_ENGINE_SIM));
	rt_log_free(&log);
	retire_close_device(r);
}

/* the core cannot go while an engine module uses it, contexts or not */
TEST_F(mods, the_core_stays_while_an_engine_module_is_loaded)
{
	if (!mod_loaded("retire_sim"))
		SKIP(return, "retire_sim.ko is not loaded");
	EXPECT_EQ(-EWOULDBLOCK, mod_unload("retire"));
	EXPECT_TRUE(mod_loaded("retire"));
}

/*
 * default_engine names the engine a new context is bound to; one that is
 * not there (and that modprobe cannot load) leaves it bound to none.
 */
TEST_F(mods, default_engine_names_what_a_new_context_binds_to)
{
	struct retire *r;
	__u64 buf, h;
	__u32 id, null_id;

	if (!mod_loaded("retire_null"))
		SKIP(return, "retire_null.ko is not loaded");
	ASSERT_EQ(0, rt_write_file(DEFAULT_ENGINE, "null"));
	ASSERT_EQ(0, retire_open_device(&r, NULL, 0));
	null_id = engine_id(r, "null");
	EXPECT_EQ(0, retire_get_bound_engine(r, &id));
	EXPECT_EQ(null_id, id);
	retire_close_device(r);

	ASSERT_EQ(0, rt_write_file(DEFAULT_ENGINE, "nonesuch"));
	ASSERT_EQ(0, retire_open_device(&r, NULL, 0));
	EXPECT_EQ(0, retire_get_bound_engine(r, &id));
	EXPECT_EQ(NO_ENGINE, id);
	ASSERT_EQ(0, rt_register(r, RT_PAGE, &buf, NULL));
	EXPECT_EQ(-ENODEV, rt_submit(r, buf, 0, RT_PAGE, RETIRE_DEV_READ, 0,
				     0, &h));
	retire_close_device(r);

	ASSERT_EQ(0, rt_write_file(DEFAULT_ENGINE, "sim"));
	ASSERT_EQ(0, retire_open_device(&r, NULL, 0));
	EXPECT_EQ(0, retire_get_bound_engine(r, &id));
	EXPECT_EQ(RETIRE_ENGINE_SIM, id);
	retire_close_device(r);
}

/*
 * A removed edu device's engine is gone, but the context bound to it
 * keeps the driver's module (its engine's code) until it closes: the
 * module then goes, and comes back to bind the device again.
 */
TEST_F(mods, a_removed_devices_module_stays_until_its_contexts_close)
{
	struct retire_engine_info e;
	struct retire *r;
	char path[300];
	__u64 buf, h;

	if (!mod_loaded("retire_edu") || !rt_edu_present())
		SKIP(return, "no edu device bound to retire_edu.ko");
	ASSERT_EQ(0, retire_open_device(&r, NULL, 0));
	ASSERT_TRUE(RT_POLL_UNTIL(!rt_edu_engine(r, &e), 3000, 20));
	ASSERT_EQ(0, retire_bind_engine(r, e.id));
	ASSERT_EQ(0, rt_register(r, RT_PAGE, &buf, NULL));

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove",
		 e.device);
	ASSERT_EQ(0, rt_write_file(path, "1"));
	EXPECT_EQ(-ENOENT, rt_edu_engine(r, &e));
	EXPECT_EQ(-ENODEV, rt_submit(r, buf, 0, RT_PAGE, RETIRE_DEV_READ, 0,
				     0, &h));
	EXPECT_EQ(-EWOULDBLOCK, mod_unload("retire_edu"));
	retire_close_device(r);

	EXPECT_EQ(0, mod_settle("retire_edu"));
	ASSERT_EQ(0, mod_unload("retire_edu"));
	/* the device comes back unbound; the module binds it again */
	ASSERT_EQ(0, rt_write_file("/sys/bus/pci/rescan", "1"));
	ASSERT_EQ(0, mod_load("retire_edu"));
	ASSERT_EQ(0, retire_open_device(&r, NULL, 0));
	EXPECT_TRUE(RT_POLL_UNTIL(!rt_edu_engine(r, &e), 3000, 20));
	retire_close_device(r);
}

TEST_HARNESS_MAIN
