// SPDX-License-Identifier: MIT
/*
 * monitor: watch the module's stale notifications over generic netlink.
 *
 * A handle names one incarnation of a slot; once its request retires, the
 * slot's generation moves on and the old handle is stale forever. A device
 * that reports a completion for such a handle (a late or forged tag) is
 * refused and counted, and the module multicasts the context's stale
 * counters to the "stale" group. This program subscribes to that group,
 * makes one such report itself (the sim engine's inject command, naming a
 * request that has retired), and prints the notification it receives.
 *
 * Run as root: the "stale" group and the inject command need CAP_SYS_ADMIN.
 * Exit: 0 success, 1 failure (with a message), 4 skipped.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

#include "example.h"

/* submit one request on @buf and see it through to retirement */
static int one_request(struct retire *r, __u64 buf, __u64 *req)
{
	struct retire_sqe sqe;
	struct retire_cqe cqe;
	int ret;

	retire_prep_request(&sqe, buf, 0, 4096, RETIRE_DEV_READ, 1);
	ret = retire_submit_requests(r, &sqe, 1);
	if (ret != 1)
		return example_fail("submit", ret < 0 ? ret : sqe.result);
	*req = sqe.handle;
	if (example_expect(r, *req, RETIRE_REC_TERMINAL, &cqe))
		return 1;
	ret = retire_release_request(r, *req);
	if (ret)
		return example_fail("retire", ret);
	return example_expect(r, *req, RETIRE_REC_RETIRED, &cqe);
}

/* wait up to 3 s for this process's stale notification, and print it */
static int watch(struct retire_monitor *m)
{
	struct pollfd pfd = { .fd = retire_get_monitor_fd(m), .events = POLLIN };
	struct retire_event ev[8];
	int i, n;

	while (poll(&pfd, 1, 3000) > 0) {
		n = retire_read_events(m, ev, 8);
		if (n < 0)
			return example_fail("retire_read_events", n);
		for (i = 0; i < n; i++) {
			/* other processes' contexts may be notified too */
			if (ev[i].type != RETIRE_CMD_STALE_NTF ||
			    ev[i].pid != (__u32)getpid() || !ev[i].stale_engine)
				continue;
			printf("stale notification: context %llu, pid %u, stale engine events %llu, cancels %llu, tokens %llu, user commands %llu\n",
			       (unsigned long long)ev[i].ctx_id, ev[i].pid,
			       (unsigned long long)ev[i].stale_engine,
			       (unsigned long long)ev[i].stale_cancel,
			       (unsigned long long)ev[i].stale_token,
			       (unsigned long long)ev[i].stale_user);
			return 0;
		}
	}
	fprintf(stderr, "monitor: no stale notification within 3 s\n");
	return 1;
}

int main(void)
{
	struct retire_sim_config saved;
	struct retire_monitor *m;
	struct retire *r;
	__u64 buf, req = 0;
	void *map;
	int ret;

	ret = example_open("monitor", &r);
	if (ret)
		return ret;
	/* subscribe first: nothing sent before this is seen */
	ret = retire_open_monitor(&m, RETIRE_MONITOR_STALE);
	if (ret == -EPERM) {
		fprintf(stderr, "monitor: SKIP: the stale group needs CAP_SYS_ADMIN\n");
		ret = EXAMPLE_SKIP;
		goto out_close;
	}
	if (ret) {
		ret = example_fail("retire_open_monitor", ret);
		goto out_close;
	}
	ret = example_slow_sim(r, 10 * MS, &saved);
	if (ret)
		goto out_monitor;
	ret = retire_alloc_buffer(r, 4096, &buf, &map);
	if (ret) {
		ret = example_fail("retire_alloc_buffer", ret);
		goto out_sim;
	}

	ret = one_request(r, buf, &req);
	if (ret)
		goto out_sim;
	/* a device reports on the retired request: refused, -ENOENT */
	ret = retire_inject_sim_event(r, req, 0);
	if (ret != -ENOENT) {
		ret = example_fail("stale completion, expected ENOENT, got", ret);
		goto out_sim;
	}
	printf("completion for retired handle 0x%llx (generation %u): refused\n",
	       (unsigned long long)req, RETIRE_HANDLE_GEN(req));
	ret = watch(m);
out_sim:
	if (example_restore_sim(r, &saved) && !ret)
		ret = 1;
out_monitor:
	retire_close_monitor(m);
out_close:
	retire_close_device(r);
	if (!ret)
		printf("monitor: ok\n");
	return ret;
}
