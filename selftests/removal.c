// SPDX-License-Identifier: GPL-2.0
/*
 * removal: the edu device removed and rescanned under contexts that
 * submit, cancel and close.
 *
 *   removal [-s SEED] [-r ROUNDS] [-v]
 *
 * ROUNDS times: with the edu engine listed, OWNERS children each open a
 * context bound to it, register buffers and submit a seeded number of
 * requests (the first starts moving at once, the rest queue behind it),
 * then, after a seeded delay, cancel every one of them again and again
 * from a second thread while the first reaps. After a seeded delay the parent removes the
 * device through sysfs (what a hot unplug does); some children close
 * their context before that, leaving their requests to the module's
 * reaper. Each child that stays checks what the removal left:
 *
 *   - every request ends with exactly one TERMINAL record;
 *   - a request the device had (a cancel answered -EALREADY) is never
 *     stopped by a later cancel (0), and ends with a reset outcome
 *     (failed, -ECANCELED) or completed, never cancelled;
 *   - a request a cancel stopped (0) ends cancelled;
 *   - everything retires.
 *
 * The parent checks that no engine report was refused as stale in the
 * round (a request reported twice), rescans, and waits for the new engine.
 * After the last round, the balance check of campaign_balance.h must hold;
 * the VM runner fails the run on any kernel report (DMA-API debugging on
 * the debug kernel).
 *
 * Exit: 0, 1 on a failure, 4 if /dev/retire or the edu device is absent
 * or the caller is not root.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "campaign_balance.h"

#define OWNERS		2
#define NREQ		24

static struct {
	__u64 seed;
	unsigned int rounds;
	bool verbose;
} opt = { .seed = 1, .rounds = 10 };

/* ---- one owner ----------------------------------------------------------- */

struct owner {
	struct retire *r;
	__u64 h[NREQ];
	unsigned int nr;
	/* what cancels answered: set by the canceller, read after it ends */
	bool moving[NREQ];	/* a cancel said -EALREADY */
	bool stopped[NREQ];	/* a cancel said 0 */
	int bad_cancel;		/* a cancel's answer no one documents */
	unsigned int delay_ms;	/* before the canceller's first pass */
	bool stop_after_moving;	/* a 0 after an -EALREADY */
	volatile bool done;
};

static void *canceller(void *arg)
{
	struct owner *o = arg;
	unsigned int i;
	int ret;

	/* so that the removal finds some still queued, some stopped */
	rt_msleep(o->delay_ms);
	while (!o->done) {
		for (i = 0; i < o->nr; i++) {
			ret = retire_cancel_request(o->r, o->h[i]);
			switch (ret) {
			case 0:
				if (o->moving[i])
					o->stop_after_moving = true;
				o->stopped[i] = true;
				break;
			case -EALREADY:
				o->moving[i] = true;
				break;
			case -ENOENT:
				break;
			default:
				o->bad_cancel = ret;
				break;
			}
		}
	}
	return NULL;
}

static int fail(unsigned int round, int k, const char *what, __u64 h, long v)
{
	printf("removal: FAIL seed=%llu round=%u owner=%d: %s (request 0x%llx, %ld)\n",
	       (unsigned long long)opt.seed, round, k, what,
	       (unsigned long long)h, v);
	return 1;
}

/*
 * The child: a context bound to @engine, its requests, a canceller, and
 * the checks. @close_early: close the context before the removal comes
 * (told through @go_fd closing), leaving the rest to the reaper.
 */
static int owner_run(unsigned int round, int k, __u32 engine, __u64 seed,
		     int ready_fd, bool close_early)
{
	struct owner o = {};
	struct rt_log log = {};
	struct retire_cqe c;
	pthread_t t;
	__u64 buf[NREQ], rng = seed;
	unsigned int i, nr = 4 + rt_rand(&rng, NREQ - 3);
	int ret, bad = 0;

	if (nr > NREQ)
		nr = NREQ;
	ret = retire_open_device(&o.r, NULL, 0);
	if (!ret)
		ret = retire_bind_engine(o.r, engine);
	/* a buffer carries one request at a time: one each */
	for (i = 0; !ret && i < nr; i++)
		ret = rt_register(o.r, RT_PAGE, &buf[i], NULL);
	for (i = 0; !ret && i < nr; i++) {
		__u64 len = 1 + rt_rand(&rng, RT_PAGE);

		ret = rt_submit(o.r, buf[i], 0, len, 1 + rt_rand(&rng, 3),
				i, 0, &o.h[i]);
		/* the device went before this one: nothing more is admitted */
		if (ret == -ENODEV)
			break;
	}
	o.nr = i;
	/* the parent may remove now */
	if (write(ready_fd, "r", 1) != 1)
		return fail(round, k, "telling the parent", 0, errno);
	close(ready_fd);
	if (ret && ret != -ENODEV)
		return fail(round, k, "setting up", 0, ret);
	if (close_early) {
		/* the reaper retires whatever is left, the device's or not */
		retire_close_device(o.r);
		return 0;
	}

	o.delay_ms = rt_rand(&rng, 120);
	if (pthread_create(&t, NULL, canceller, &o))
		return fail(round, k, "starting the canceller", 0, errno);
	/* every request's terminal record; the removal ends the rest */
	for (i = 0; i < o.nr; i++) {
		ret = rt_wait(o.r, &log, o.h[i], RETIRE_REC_TERMINAL, &c, 30000);
		if (ret) {
			bad |= fail(round, k, "no terminal record", o.h[i], ret);
			break;
		}
	}
	o.done = true;
	pthread_join(t, NULL);
	rt_collect(o.r, &log, 100);

	if (o.bad_cancel)
		bad |= fail(round, k, "a cancel answered", 0, o.bad_cancel);
	if (o.stop_after_moving)
		bad |= fail(round, k, "a cancel stopped a request the device had", 0, 0);
	for (i = 0; i < o.nr; i++) {
		unsigned int n = rt_count(&log, o.h[i], RETIRE_REC_TERMINAL);
		int idx = rt_index(&log, o.h[i], RETIRE_REC_TERMINAL);

		if (n != 1) {
			bad |= fail(round, k, "terminal records", o.h[i], n);
			continue;
		}
		c = log.c[idx];
		if (o.stopped[i] && c.outcome != RETIRE_OUTCOME_CANCELLED)
			bad |= fail(round, k, "stopped, but its outcome is",
				    o.h[i], c.outcome);
		if (o.moving[i] && c.outcome == RETIRE_OUTCOME_CANCELLED)
			bad |= fail(round, k, "the device had it, but it ended cancelled",
				    o.h[i], c.outcome);
		if (c.outcome == RETIRE_OUTCOME_FAILED && c.error != -ECANCELED)
			bad |= fail(round, k, "failed with", o.h[i], c.error);
		ret = retire_release_request(o.r, o.h[i]);
		if (ret && ret != -EALREADY)
			bad |= fail(round, k, "retire", o.h[i], ret);
	}
	for (i = 0; i < o.nr; i++) {
		ret = rt_wait(o.r, &log, o.h[i], RETIRE_REC_RETIRED, NULL, 5000);
		if (ret)
			bad |= fail(round, k, "not retired", o.h[i], ret);
	}
	if (opt.verbose) {
		unsigned int ns = 0, nm = 0;

		for (i = 0; i < o.nr; i++) {
			ns += o.stopped[i];
			nm += o.moving[i];
		}
		printf("removal: round %u owner %d: %u requests, %u stopped, %u the device had\n",
		       round, k, o.nr, ns, nm);
	}
	rt_log_free(&log);
	retire_close_device(o.r);
	return bad;
}

/* ---- the parent ------------------------------------------------------------ */

static int round_run(struct retire *r, unsigned int round, __u64 *rng)
{
	struct retire_engine_info e, again = {};
	struct retire_stats before, after;
	pid_t pid[OWNERS];
	char path[128], c;
	int k, fd[2], status, bad = 0;

	if (!RT_POLL_UNTIL(!rt_edu_engine(r, &e), 5000, 10))
		return fail(round, -1, "no edu engine listed", 0, 0);
	if (rt_mstats(r, &before))
		return fail(round, -1, "module stats", 0, 0);
	if (pipe(fd))
		return fail(round, -1, "pipe", 0, errno);
	for (k = 0; k < OWNERS; k++) {
		__u64 seed = *rng + k;
		bool close_early = rt_rand(rng, 4) == 0;

		pid[k] = fork();
		if (pid[k] == 0) {
			close(fd[0]);
			_exit(owner_run(round, k, e.id, seed, fd[1], close_early));
		}
	}
	close(fd[1]);
	for (k = 0; k < OWNERS; k++)
		if (read(fd[0], &c, 1) != 1)
			break;
	close(fd[0]);
	/* the requests move, queue and are cancelled: now the device goes */
	rt_msleep(rt_rand(rng, 100));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", e.device);
	if (rt_write_file(path, "1"))
		bad |= fail(round, -1, "removing the device", 0, errno);
	for (k = 0; k < OWNERS; k++) {
		if (waitpid(pid[k], &status, 0) != pid[k] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			bad |= fail(round, k, "owner exited", 0, status);
	}
	if (rt_mstats(r, &after))
		return fail(round, -1, "module stats", 0, 0);
	/* a request the removal reported twice: its second report is stale */
	if (after.stale_engine != before.stale_engine)
		bad |= fail(round, -1, "engine reports refused as stale",
			    0, (long)(after.stale_engine - before.stale_engine));
	if (rt_write_file("/sys/bus/pci/rescan", "1"))
		bad |= fail(round, -1, "rescanning", 0, errno);
	if (!RT_POLL_UNTIL(!rt_edu_engine(r, &again) && again.id != e.id, 5000, 10))
		bad |= fail(round, -1, "no new edu engine after the rescan", 0, 0);
	if (opt.verbose)
		printf("removal: round %u: engine %u removed, engine %u probed\n",
		       round, e.id, again.id);
	return bad;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{}
	};
	struct cb_base base;
	struct retire *r;
	unsigned int round;
	__u64 rng;
	int o, bad = 0;

	while ((o = getopt_long(argc, argv, "s:r:v", lo, NULL)) != -1) {
		switch (o) {
		case 's': opt.seed = strtoull(optarg, NULL, 0); break;
		case 'r': opt.rounds = strtoul(optarg, NULL, 0); break;
		case 'v': opt.verbose = true; break;
		default:
			fprintf(stderr, "usage: removal [-s SEED] [-r ROUNDS] [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access("/dev/retire", F_OK)) {
		printf("removal: %s\n", RT_SKIP_MSG);
		return 4;
	}
	if (geteuid() || !rt_edu_present()) {
		printf("removal: needs root and QEMU's edu device (vm-run.sh -e)\n");
		return 4;
	}
	cb_base_take(&base);
	if (retire_open_device(&r, NULL, 0)) {
		printf("removal: cannot open /dev/retire\n");
		return 1;
	}
	rng = opt.seed;
	for (round = 0; round < opt.rounds; round++) {
		bad |= round_run(r, round, &rng);
		if (bad)
			break;
	}
	retire_close_device(r);
	o = cb_check("removal", &base, 30000);
	if (o)
		bad |= fail(round, -1, "balance check: differences (above)", 0, o);
	printf("removal: seed=%llu rounds=%u: %s\n", (unsigned long long)opt.seed,
	       round, bad ? "FAILED" : "every request ended once, everything retired");
	return bad ? 1 : 0;
}
