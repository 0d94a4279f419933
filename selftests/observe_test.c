// SPDX-License-Identifier: GPL-2.0
/*
 * Watching the module: a context's history (RETIRE_IOC_HISTORY), the
 * retire tracepoints and debugfs each tell one request's life in the
 * order it happened, with the values the events carry.
 *
 * The tracepoint test needs tracefs and the debugfs test needs debugfs;
 * each skips with the reason on a kernel without them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "retire_test.h"

#define LEN		4096
#define TRACEFS		"/sys/kernel/tracing"
#define DEBUGFS		"/sys/kernel/debug/retire"
/* requests a debugfs test lists: lines over several pages */
#define MANY		200

/* a handle as the module makes them: kind, slot, generation */
#define OBS_HANDLE(kind, slot, gen) \
	((__u64)(kind) << 56 | (__u64)(slot) << 32 | (gen))

FIXTURE(obs) {
	struct retire *r;
	int fd;
	__u64 buf;
	void *map;
	struct rt_log log;
};

FIXTURE_SETUP(obs)
{
	void *map;

	RT_OPEN_OR_SKIP(self->r);
	RT_REQUIRE_FEATURES(self->r, RETIRE_FEAT_HISTORY,
			    "the module keeps no history");
	self->fd = retire_get_fd(self->r);
	rt_sim_neutral(self->r);
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 5 * RT_MS));
	ASSERT_EQ(0, retire_alloc_buffer(self->r, LEN, &self->buf, &map));
	self->map = map;
}

FIXTURE_TEARDOWN(obs)
{
	rt_sim_neutral(self->r);
	if (self->map)
		munmap(self->map, LEN);
	rt_log_free(&self->log);
	retire_close_device(self->r);
}

/* RETIRE_IOC_HISTORY of context @id (0: the caller's) into @ev[@nr] */
static int obs_history(int fd, __u64 id, struct retire_history_event *ev, __u32 nr,
		       struct retire_history_arg *a)
{
	memset(a, 0, sizeof(*a));
	a->events = (__u64)(uintptr_t)ev;
	a->nr = nr;
	a->ctx_id = id;
	return rt_ioctl(fd, RETIRE_IOC_HISTORY, a);
}

/*
 * One request's life, with every kind of event a healthy one has: submit,
 * activate, terminal, a token borrowed, handed off and returned, the
 * retirement, then its old handle cancelled (stale). Returns its handle;
 * *@tok gets the token handed off to.
 */
static void obs_life(struct __test_metadata *_metadata,
		     FIXTURE_DATA(obs) *self, __u64 *h, __u64 *tok,
		     __u64 *tok2)
{
	struct retire_cqe c;

	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_WRITE,
			       0x51, 0, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, *h, RETIRE_REC_TERMINAL, &c,
			     3000));
	ASSERT_EQ(RETIRE_OUTCOME_COMPLETED, c.outcome);
	ASSERT_EQ(0, retire_borrow_token(self->r, *h, tok));
	ASSERT_EQ(0, retire_handoff_token(self->r, *tok, tok2));
	ASSERT_EQ(0, retire_release_request(self->r, *h));
	ASSERT_EQ(0, retire_return_token(self->r, *tok2, -EIO));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, *h, RETIRE_REC_RETIRED, &c,
			     1000));
	ASSERT_EQ(-ENOENT, retire_cancel_request(self->r, *h));
}

/*
 * The history holds the life in order, with what each event carries: the
 * flags and length at submission, the outcome at the terminal event, the
 * tokens, the consumer's error, and for the stale cancel the generation
 * the handle expected against the one its slot has now (one on).
 */
TEST_F(obs, the_history_tells_one_requests_life_in_order)
{
	static const __u32 want[] = {
		RETIRE_EV_SUBMIT, RETIRE_EV_ACTIVATE, RETIRE_EV_TERMINAL,
		RETIRE_EV_BORROW, RETIRE_EV_HANDOFF, RETIRE_EV_RETURN,
		RETIRE_EV_RETIRE, RETIRE_EV_STALE,
	};
	struct retire_history_event ev[RETIRE_HISTORY_LEN];
	struct retire_history_arg a;
	__u64 h, tok, tok2;
	unsigned int i;

	obs_life(_metadata, self, &h, &tok, &tok2);
	memset(ev, 0xa5, sizeof(ev));
	ASSERT_EQ(0, obs_history(self->fd, 0, ev, RETIRE_HISTORY_LEN, &a));
	ASSERT_EQ(ARRAY_SIZE(want), a.nr);
	EXPECT_EQ(ARRAY_SIZE(want), a.recorded);
	EXPECT_EQ(0, a.dropped);
	EXPECT_NE(0, a.ctx_id);
	for (i = 0; i < a.nr; i++) {
		EXPECT_EQ(want[i], ev[i].type);
		EXPECT_EQ(h, ev[i].handle);
		if (i)
			EXPECT_LE(ev[i - 1].time_ns, ev[i].time_ns);
	}
	EXPECT_EQ(RETIRE_DEV_WRITE, ev[0].value);
	EXPECT_EQ(LEN, ev[0].aux);
	EXPECT_EQ(0, ev[2].value);
	EXPECT_EQ(RETIRE_OUTCOME_COMPLETED, ev[2].aux);
	EXPECT_EQ(tok, ev[3].aux);
	EXPECT_EQ(tok2, ev[4].aux);
	EXPECT_EQ(tok2, ev[5].aux);
	EXPECT_EQ(-EIO, ev[5].value);
	EXPECT_EQ(RETIRE_STALE_CANCEL, ev[7].value);
	EXPECT_EQ(RETIRE_HANDLE_GEN(h) + 1, ev[7].aux);
	/* bytes past what was written are the caller's */
	EXPECT_EQ(0xa5a5a5a5, ev[a.nr].type);

	/* its own id names it as 0 does; reading changes nothing */
	ASSERT_EQ(0, obs_history(self->fd, a.ctx_id, ev, 2, &a));
	EXPECT_EQ(2, a.nr);
	EXPECT_EQ(ARRAY_SIZE(want), a.recorded);
	/* the newest two */
	EXPECT_EQ(RETIRE_EV_RETIRE, ev[0].type);
	EXPECT_EQ(RETIRE_EV_STALE, ev[1].type);
}

/*
 * A cancel that stops its request on the device causes the request's
 * terminal event in the same moment: the history gives the CANCEL event
 * and the TERMINAL event that follows it one time, not two clock reads.
 */
TEST_F(obs, a_cancel_and_the_terminal_event_it_causes_share_one_time)
{
	struct retire_history_event ev[RETIRE_HISTORY_LEN];
	struct retire_history_arg a;
	struct retire_cqe c;
	unsigned int i;
	__u64 h;

	ASSERT_EQ(0, rt_set_latency(self->r, RETIRE_SIM_F_CANCEL_RUNNING,
				    60000 * RT_MS));
	ASSERT_EQ(0, rt_submit(self->r, self->buf, 0, LEN, RETIRE_DEV_WRITE,
			       0x52, 0, &h));
	ASSERT_EQ(0, retire_cancel_request(self->r, h));
	ASSERT_EQ(0, rt_wait(self->r, &self->log, h, RETIRE_REC_TERMINAL, &c,
			     1000));
	ASSERT_EQ(RETIRE_OUTCOME_CANCELLED, c.outcome);
	ASSERT_EQ(0, obs_history(self->fd, 0, ev, RETIRE_HISTORY_LEN, &a));
	for (i = 0; i < a.nr && ev[i].type != RETIRE_EV_CANCEL; i++)
		;
	ASSERT_LT(i + 1, a.nr);
	EXPECT_EQ(h, ev[i].handle);
	EXPECT_EQ(0, ev[i].value);
	EXPECT_EQ(RETIRE_EV_TERMINAL, ev[i + 1].type);
	EXPECT_EQ(h, ev[i + 1].handle);
	EXPECT_EQ(RETIRE_OUTCOME_CANCELLED, ev[i + 1].aux);
	EXPECT_EQ(ev[i].time_ns, ev[i + 1].time_ns);
	ASSERT_EQ(0, retire_release_request(self->r, h));
}

/*
 * The history never grows: past RETIRE_HISTORY_LEN events the oldest go,
 * counted as dropped, and what is kept is the newest in order.
 */
TEST_F(obs, the_history_keeps_the_newest_256_and_counts_the_rest)
{
	struct retire_history_event ev[RETIRE_HISTORY_LEN + 1];
	struct retire_history_arg a;
	const unsigned int n = RETIRE_HISTORY_LEN + 44;
	unsigned int i;

	/* each cancel of a handle never issued is one stale event */
	for (i = 0; i < n; i++)
		ASSERT_EQ(-ENOENT, retire_cancel_request(self->r,
			OBS_HANDLE(RETIRE_KIND_REQ, 1000 + i, 7)));
	ASSERT_EQ(0, obs_history(self->fd, 0, ev, RETIRE_HISTORY_LEN + 1,
				 &a));
	EXPECT_EQ(RETIRE_HISTORY_LEN, a.nr);
	EXPECT_EQ(n, a.recorded);
	EXPECT_EQ(44, a.dropped);
	for (i = 0; i < a.nr; i++) {
		EXPECT_EQ(RETIRE_EV_STALE, ev[i].type);
		EXPECT_EQ(1000 + 44 + i, RETIRE_HANDLE_SLOT(ev[i].handle));
		/* a slot never issued has no generation */
		EXPECT_EQ(0, ev[i].aux);
	}
}

/*
 * Another context's history by its id, for the user who opened it; not
 * for another user without CAP_SYS_ADMIN (-EPERM), nor for an id no
 * context has (-ENOENT). Bad arguments change nothing (-EINVAL).
 */
TEST_F(obs, another_contexts_history_is_its_users_to_read)
{
	struct retire_history_event ev[RETIRE_HISTORY_LEN];
	struct retire_history_arg a, mine;
	struct retire *other;
	__u64 h, tok, tok2;
	pid_t pid;
	int status;

	obs_life(_metadata, self, &h, &tok, &tok2);
	ASSERT_EQ(0, obs_history(self->fd, 0, ev, RETIRE_HISTORY_LEN, &mine));

	ASSERT_EQ(0, retire_open_device(&other, NULL, 0));
	ASSERT_EQ(0, obs_history(retire_get_fd(other), mine.ctx_id, ev,
				 RETIRE_HISTORY_LEN, &a));
	EXPECT_EQ(mine.ctx_id, a.ctx_id);
	EXPECT_EQ(mine.recorded, a.recorded);
	EXPECT_EQ(mine.nr, a.nr);
	EXPECT_EQ(RETIRE_EV_SUBMIT, ev[0].type);
	EXPECT_EQ(h, ev[0].handle);
	/* the other context's own history is empty: it did nothing */
	ASSERT_EQ(0, obs_history(retire_get_fd(other), 0, ev,
				 RETIRE_HISTORY_LEN, &a));
	EXPECT_EQ(0, a.nr);
	EXPECT_EQ(0, a.recorded);
	EXPECT_LT(mine.ctx_id, a.ctx_id);

	EXPECT_EQ(-ENOENT, obs_history(self->fd, a.ctx_id + 1000, ev, 1, &a));
	EXPECT_EQ(-ENOENT, obs_history(self->fd, ~0ULL, ev, 1, &a));
	memset(&a, 0, sizeof(a));
	a.events = (__u64)(uintptr_t)ev;
	a.nr = 1;
	a.flags = 1;
	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_HISTORY, &a));
	a.flags = 0;
	a.reserved[1] = 1;
	EXPECT_EQ(-EINVAL, rt_ioctl(self->fd, RETIRE_IOC_HISTORY, &a));
	a.reserved[1] = 0;
	a.events = 8;
	EXPECT_EQ(-EFAULT, rt_ioctl(self->fd, RETIRE_IOC_HISTORY, &a));
	/* none of that was an event */
	ASSERT_EQ(0, obs_history(self->fd, 0, ev, RETIRE_HISTORY_LEN, &a));
	EXPECT_EQ(mine.recorded, a.recorded);

	/*
	 * nobody may not read root's context by id, but whoever holds a file
	 * reads its own context's history
	 */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct retire_history_arg b;

		if (rt_become_nobody())
			_exit(10);
		if (obs_history(retire_get_fd(other), mine.ctx_id, ev, 1, &b) !=
		    -EPERM)
			_exit(11);
		if (obs_history(retire_get_fd(other), 0, ev, 1, &b))
			_exit(12);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	retire_close_device(other);
}

/* the whole of @path, NUL-terminated, malloc()ed; NULL on failure */
static char *obs_slurp(const char *path)
{
	size_t len = 0, cap = 65536;
	char *s = malloc(cap);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || !s) {
		free(s);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, s + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 4096) {
			char *t = realloc(s, cap * 2);

			if (!t)
				break;
			s = t;
			cap *= 2;
		}
	}
	close(fd);
	s[len] = 0;
	return s;
}

/*
 * The tracepoints report the same life as it happens: submit, activate,
 * terminal (completed), borrow, handoff, return, retire, and the stale
 * cancel with the generation it expected and the one it found.
 */
TEST_F(obs, the_tracepoints_report_the_same_life)
{
	static const char * const want[] = {
		"submit:", "activate:", "terminal:", "borrow:", "handoff:",
		"return:", "retire:", "stale:",
	};
	struct retire_history_event ev[1];
	struct retire_history_arg a;
	char tag[64], stale[128];
	__u64 h, tok, tok2;
	char *trace, *p, *line;
	unsigned int i = 0;

	if (access(TRACEFS "/events", F_OK))
		mount("nodev", TRACEFS, "tracefs", 0, NULL);
	if (access(TRACEFS "/events/retire/enable", W_OK))
		SKIP(return, "no tracefs with retire events (the kernel has no CONFIG_TRACING)");
	ASSERT_EQ(0, obs_history(self->fd, 0, ev, 0, &a));
	ASSERT_EQ(0, rt_write_file(TRACEFS "/trace", ""));
	ASSERT_EQ(0, rt_write_file(TRACEFS "/events/retire/enable", "1"));
	obs_life(_metadata, self, &h, &tok, &tok2);
	ASSERT_EQ(0, rt_write_file(TRACEFS "/events/retire/enable", "0"));
	trace = obs_slurp(TRACEFS "/trace");
	ASSERT_NE(NULL, trace);

	snprintf(tag, sizeof(tag), "ctx=%llu ", (unsigned long long)a.ctx_id);
	snprintf(stale, sizeof(stale),
		 "counter=cancel handle=%#llx kind=%u slot=%u expected=%u found=%u",
		 (unsigned long long)h, RETIRE_KIND_REQ, RETIRE_HANDLE_SLOT(h),
		 RETIRE_HANDLE_GEN(h), RETIRE_HANDLE_GEN(h) + 1);
	for (line = strtok_r(trace, "\n", &p); line;
	     line = strtok_r(NULL, "\n", &p)) {
		if (!strstr(line, tag))
			continue;
		TH_LOG("%s", line);
		ASSERT_GT(ARRAY_SIZE(want), i);
		EXPECT_NE(NULL, strstr(line, want[i]));
		if (!strcmp(want[i], "terminal:"))
			EXPECT_NE(NULL, strstr(line, "outcome=completed error=0"));
		if (!strcmp(want[i], "stale:"))
			EXPECT_NE(NULL, strstr(line, stale));
		i++;
	}
	EXPECT_EQ(ARRAY_SIZE(want), i);
	free(trace);
}

/*
 * debugfs, root only: the context (its opener's pid and name, its
 * limits), each request holding a slot with its state and d, and the
 * history; retire/module lists the context. The directory goes once the
 * context is gone.
 */
TEST_F(obs, debugfs_shows_the_context_its_requests_and_history)
{
	struct retire_history_event ev[1];
	struct retire_history_arg a;
	char dir[128], path[192], want[128];
	__u64 h, buf, many[MANY];
	struct retire *r2;
	int i, lines;
	struct stat st;
	char *s, *p;
	void *map;

	if (access(DEBUGFS "/module", R_OK))
		SKIP(return, "no debugfs at /sys/kernel/debug (CONFIG_DEBUG_FS off, or not mounted)");
	ASSERT_EQ(0, retire_open_device(&r2, NULL, 0));
	ASSERT_EQ(0, obs_history(retire_get_fd(r2), 0, ev, 0, &a));
	snprintf(dir, sizeof(dir), DEBUGFS "/%llu", (unsigned long long)a.ctx_id);
	ASSERT_EQ(0, stat(dir, &st));

	snprintf(path, sizeof(path), "%s/context", dir);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0400, st.st_mode & 07777);
	s = obs_slurp(path);
	ASSERT_NE(NULL, s);
	snprintf(want, sizeof(want), "pid %d\n", getpid());
	EXPECT_NE(NULL, strstr(s, want));
	EXPECT_NE(NULL, strstr(s, "comm observe_test\n"));
	EXPECT_NE(NULL, strstr(s, "engine 0 sim\n"));
	EXPECT_NE(NULL, strstr(s, "unretired 0\n"));
	free(s);

	/* a request the device holds: active, d = 1, its deadline ahead */
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 2000 * RT_MS));
	ASSERT_EQ(0, retire_alloc_buffer(r2, LEN, &buf, &map));
	ASSERT_EQ(0, rt_submit(r2, buf, 0, LEN, RETIRE_DEV_READ, 1,
			       10000 * RT_MS, &h));
	munmap(map, LEN);
	snprintf(path, sizeof(path), "%s/requests", dir);
	s = obs_slurp(path);
	ASSERT_NE(NULL, s);
	TH_LOG("%s", s);
	snprintf(want, sizeof(want), "%#018llx %-8u %-10u active     1 0      r-",
		 (unsigned long long)h, RETIRE_HANDLE_SLOT(h),
		 RETIRE_HANDLE_GEN(h));
	EXPECT_NE(NULL, strstr(s, want));
	free(s);
	snprintf(path, sizeof(path), "%s/context", dir);
	s = obs_slurp(path);
	ASSERT_NE(NULL, s);
	EXPECT_NE(NULL, strstr(s, "unretired 1\nwaiting 0\nactive 1\n"));
	free(s);

	/* many more than a page of lines: streamed, each request once */
	for (i = 0; i < MANY; i++) {
		ASSERT_EQ(0, rt_register(r2, RT_PAGE, &buf, NULL));
		ASSERT_EQ(0, rt_submit(r2, buf, 0, 64, RETIRE_DEV_READ, 2, 0,
				       &many[i]));
	}
	snprintf(path, sizeof(path), "%s/requests", dir);
	s = obs_slurp(path);
	ASSERT_NE(NULL, s);
	for (i = 0, lines = 0; s[i]; i++)
		lines += s[i] == '\n';
	EXPECT_EQ(1 + 1 + MANY, lines);
	for (i = 0; i < MANY; i++) {
		snprintf(want, sizeof(want), "%#018llx ",
			 (unsigned long long)many[i]);
		p = strstr(s, want);
		EXPECT_NE(NULL, p);
		if (p)
			EXPECT_EQ(NULL, strstr(p + 1, want));
	}
	free(s);

	snprintf(path, sizeof(path), "%s/history", dir);
	s = obs_slurp(path);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(0, strncmp(s, "recorded ", 9));
	EXPECT_NE(NULL, strstr(s, " submit "));
	EXPECT_NE(NULL, strstr(s, " activate "));
	free(s);

	s = obs_slurp(DEBUGFS "/module");
	ASSERT_NE(NULL, s);
	snprintf(want, sizeof(want), "context %llu pid %d comm observe_test unretired %d",
		 (unsigned long long)a.ctx_id, getpid(), 1 + MANY);
	EXPECT_NE(NULL, strstr(s, want));
	EXPECT_NE(NULL, strstr(s, "engine 0 sim"));
	free(s);

	/* the owner goes with the request in flight: the reaper retires it */
	retire_close_device(r2);
	ASSERT_EQ(0, rt_set_latency(self->r, 0, 5 * RT_MS));
	retire_reset_sim(self->r);
	EXPECT_TRUE(RT_POLL_UNTIL(access(dir, F_OK) != 0, 3000, 10));
}

TEST_HARNESS_MAIN
