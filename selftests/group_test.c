// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/retire for an unprivileged member of its group, as make install's
 * udev rule sets the node up (root:retire, mode 0660): the member runs a
 * request from submission through completion to retirement without root,
 * the knobs that need CAP_SYS_ADMIN (sim engine set and reset, injected
 * events, a watchdog below the floor, netlink engine-set, the multicast
 * groups) still refuse it with -EPERM, and a user outside the group cannot
 * open the node at all.
 *
 * Run as root, each test gives the node the group "retire" (or, where no
 * such group exists, GROUP_GID) and mode 0660 itself, as the rule would,
 * and puts back what it found after; the work is done by a child that
 * has dropped to uid nobody with that group as its only supplementary
 * group. Run by an unprivileged user (scripts/install-guest.sh runs it as
 * a member of the group after a real make install), the child keeps that
 * user and the node as udev left it.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libretire.h"
#include "retire_test.h"

#define NODE		LIBRETIRE_DEFAULT_PATH
#define GROUP_NAME	"retire"
/* the group's id where the system has no "retire" group: any will do */
#define GROUP_GID	60243
#define LEN		RT_PAGE

/* what the node was before a root run changed it */
struct node_state {
	bool changed;
	uid_t uid;
	gid_t gid;
	mode_t mode;
};

/*
 * As root: give the node @gid and 0660, as the udev rule does, saving what
 * it had. As anyone else: leave it. Returns 0 or -errno.
 */
static int node_for_group(struct node_state *st, gid_t gid)
{
	struct stat sb;

	memset(st, 0, sizeof(*st));
	if (stat(NODE, &sb))
		return -errno;
	if (geteuid())
		return 0;
	st->uid = sb.st_uid;
	st->gid = sb.st_gid;
	st->mode = sb.st_mode & 07777;
	if (chown(NODE, 0, gid) || chmod(NODE, 0660))
		return -errno;
	st->changed = true;
	return 0;
}

static void node_restore(const struct node_state *st)
{
	if (!st->changed)
		return;
	if (chown(NODE, st->uid, st->gid) || chmod(NODE, st->mode))
		perror("restoring " NODE);
}

static gid_t group_gid(void)
{
	struct group *g = getgrnam(GROUP_NAME);

	return g ? g->gr_gid : GROUP_GID;
}

/*
 * In the child: as root, become nobody with @gid as the only supplementary
 * group (or none when @member is false); as anyone else, stay.
 */
static int become_user(gid_t gid, bool member)
{
	if (geteuid())
		return 0;
	if (setgroups(member ? 1 : 0, &gid) || setgid(RT_NOBODY) ||
	    setuid(RT_NOBODY))
		return -errno;
	return 0;
}

/* fork, run @fn(@gid) in the child, and return its exit status (or -1) */
static int in_child(int (*fn)(gid_t gid), gid_t gid)
{
	int status = 0;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(gid));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* the child's side: 0, or the step that failed (10 on) */
static int member_lifecycle(gid_t gid)
{
	struct retire_stats st;
	struct retire_info info;
	struct rt_log log = { 0 };
	struct retire_cqe c;
	struct retire *r;
	__u64 buf, h;
	void *map;
	int ret = 0;

	if (become_user(gid, true))
		return 10;
	if (retire_open_device(&r, NULL, 0))
		return 11;
	if (retire_get_info(r, &info) || info.abi_version != RETIRE_ABI_VERSION)
		ret = 12;
	else if (retire_alloc_buffer(r, LEN, &buf, &map))
		ret = 13;
	else if (rt_submit(r, buf, 0, LEN, RETIRE_DEV_WRITE, 0x5a,
			   5000 * RT_MS, &h))
		ret = 14;
	else if (rt_wait(r, &log, h, RETIRE_REC_TERMINAL, &c, 5000) ||
		 c.outcome != RETIRE_OUTCOME_COMPLETED || c.error)
		ret = 15;
	else if (rt_check_pattern(map, LEN, 0x5a) != -1)
		ret = 16;
	else if (retire_release_request(r, h))
		ret = 17;
	else if (rt_stats(r, &st) || st.retired != 1 ||
		 st.physical_outstanding || st.logical_outstanding)
		ret = 18;
	rt_log_free(&log);
	retire_close_device(r);
	return ret;
}

static const char *const lifecycle_steps[] = {
	"becoming nobody in the group", "opening " NODE,
	"RETIRE_IOC_GET_INFO", "allocating a buffer", "submitting",
	"the request's completion", "the bytes the sim engine wrote",
	"retiring the request", "the context's counters after retirement",
};

/* the child's side: 0, or the knob that was not -EPERM (10 on) */
static int member_knobs(gid_t gid)
{
	struct retire_sim_config cfg, now;
	struct retire_limits_arg la;
	struct retire_monitor *m;
	struct retire_nl *nl;
	struct retire *r;
	__u64 buf, h;
	int ret = 0, fd;

	if (become_user(gid, true))
		return 10;
	if (retire_open_device(&r, NULL, 0))
		return 11;
	fd = retire_get_fd(r);
	memset(&cfg, 0, sizeof(cfg));
	if (retire_get_sim_config(r, &cfg)) {
		ret = 12;
		goto out;
	}
	now = cfg;
	now.op = RETIRE_SIM_SET;
	now.latency_ns = cfg.latency_ns + RT_MS;
	if (retire_set_sim_config(r, &now) != -EPERM) {
		ret = 13;
		goto out;
	}
	if (retire_reset_sim(r) != -EPERM) {
		ret = 14;
		goto out;
	}
	/* an engine event for its own request: still the administrator's */
	if (retire_alloc_buffer(r, LEN, &buf, NULL) ||
	    rt_submit(r, buf, 0, LEN, RETIRE_DEV_WRITE, 1, 0, &h) ||
	    retire_inject_sim_event(r, h, 0) != -EPERM) {
		ret = 15;
		goto out;
	}
	memset(&la, 0, sizeof(la));
	la.op = RETIRE_LIMITS_GET;
	if (rt_ioctl(fd, RETIRE_IOC_LIMITS, &la)) {
		ret = 16;
		goto out;
	}
	la.op = RETIRE_LIMITS_SET;
	la.limits.watchdog_ns = RETIRE_WATCHDOG_MIN_NS - 1;
	if (rt_ioctl(fd, RETIRE_IOC_LIMITS, &la) != -EPERM) {
		ret = 17;
		goto out;
	}
	if (retire_open_netlink(&nl)) {
		ret = 18;
		goto out;
	}
	if (retire_nl_set_sim_config(nl, &now) != -EPERM)
		ret = 19;
	retire_close_netlink(nl);
	if (ret)
		goto out;
	if (retire_open_monitor(&m, RETIRE_MONITOR_STALE) != -EPERM ||
	    retire_open_monitor(&m, RETIRE_MONITOR_HEALTH) != -EPERM) {
		ret = 20;
		goto out;
	}
	/* and nothing changed */
	memset(&now, 0, sizeof(now));
	if (retire_get_sim_config(r, &now) || !rt_sim_config_eq(&cfg, &now))
		ret = 21;
out:
	retire_close_device(r);
	return ret;
}

static const char *const knob_steps[] = {
	"becoming nobody in the group", "opening " NODE,
	"RETIRE_SIM_GET", "RETIRE_SIM_SET was not -EPERM",
	"RETIRE_IOC_SIM_RESET was not -EPERM",
	"RETIRE_IOC_SIM_INJECT was not -EPERM",
	"RETIRE_LIMITS_GET",
	"a watchdog below RETIRE_WATCHDOG_MIN_NS was not -EPERM",
	"retire_open_netlink", "netlink engine-set was not -EPERM",
	"joining the stale or health group was not -EPERM",
	"the sim engine's config changed",
};

/* the child's side: 0 when a user outside the group is refused the node */
static int outsider_open(gid_t gid)
{
	struct retire *r;
	int ret;

	if (become_user(gid, false))
		return 10;
	ret = retire_open_device(&r, NULL, 0);
	if (!ret)
		retire_close_device(r);
	return ret == -EACCES ? 0 : 11;
}

static const char *const outsider_steps[] = {
	"becoming nobody outside the group",
	"opening " NODE " was not -EACCES",
};

#define STEP(steps, s) \
	((s) >= 10 && (s) < 10 + (int)ARRAY_SIZE(steps) ? (steps)[(s) - 10] : \
	 "the child died or an unknown step failed")

FIXTURE(group) {
	struct node_state node;
	struct retire *root;
	gid_t gid;
};

FIXTURE_SETUP(group)
{
	int ret;

	if (access(NODE, F_OK))
		SKIP(return, RT_SKIP_MSG);
	self->gid = group_gid();
	if (!geteuid()) {
		/* the engine as every test starts from: knobs 0, nothing held */
		ASSERT_EQ(0, retire_open_device(&self->root, NULL, 0));
		rt_sim_neutral(self->root);
	}
	ret = node_for_group(&self->node, self->gid);
	ASSERT_EQ(0, ret);
}

FIXTURE_TEARDOWN(group)
{
	node_restore(&self->node);
	if (self->root) {
		rt_sim_neutral(self->root);
		retire_close_device(self->root);
	}
}

TEST_F(group, member_runs_a_request_from_submission_to_retirement)
{
	int s = in_child(member_lifecycle, self->gid);

	EXPECT_EQ(0, s) {
		TH_LOG("child: %s", STEP(lifecycle_steps, s));
	}
}

TEST_F(group, member_is_refused_every_privileged_knob)
{
	int s = in_child(member_knobs, self->gid);

	EXPECT_EQ(0, s) {
		TH_LOG("child: %s", STEP(knob_steps, s));
	}
}

TEST_F(group, user_outside_the_group_cannot_open_the_node)
{
	int s;

	if (geteuid())
		SKIP(return, "needs root to become a user outside the group");
	s = in_child(outsider_open, self->gid);
	EXPECT_EQ(0, s) {
		TH_LOG("child: %s", STEP(outsider_steps, s));
	}
}

TEST_HARNESS_MAIN
