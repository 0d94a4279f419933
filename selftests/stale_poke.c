// SPDX-License-Identifier: GPL-2.0
/*
 * stale_poke: make stale notifications for ynl_test.py to watch.
 *
 *   stale_poke [DURATION_MS [INTERVAL_MS]]
 *
 * Opens one context and, every INTERVAL_MS (default 20) until DURATION_MS
 * (default 3000) have passed, cancels a request handle that names nothing
 * in it: each cancel returns -ENOENT and counts one stale cancel, so the
 * module multicasts the context's stale counters on the "stale" group (at
 * most once per 100 ms). The context's owner is this process: its pid is
 * the notification's pid. Needs no privilege and leaves the sim engine
 * alone.
 *
 * Exit: 0, 1 on an unexpected answer, 4 if /dev/retire is absent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libretire.h"

/* slot 7, generation 1 of a fresh context: never issued */
#define FORGED_REQ	(((__u64)RETIRE_KIND_REQ << 56) | (7ULL << 32) | 1)

static unsigned long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	unsigned long duration = 3000, interval = 20, n = 0;
	unsigned long long end;
	struct timespec ts;
	struct retire *r;
	int ret;

	if (argc > 1)
		duration = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		interval = strtoul(argv[2], NULL, 0);
	if (argc > 3 || !interval) {
		fprintf(stderr, "usage: %s [DURATION_MS [INTERVAL_MS]]\n",
			argv[0]);
		return 1;
	}

	ret = retire_open_device(&r, NULL, 0);
	if (ret == -ENOENT) {
		fprintf(stderr, "stale_poke: /dev/retire is absent\n");
		return 4;
	}
	if (ret) {
		fprintf(stderr, "stale_poke: open: %s\n", strerror(-ret));
		return 1;
	}

	end = now_ms() + duration;
	do {
		ret = retire_cancel_request(r, FORGED_REQ);
		if (ret != -ENOENT) {
			fprintf(stderr, "stale_poke: cancel returned %d\n", ret);
			retire_close_device(r);
			return 1;
		}
		n++;
		ts.tv_sec = interval / 1000;
		ts.tv_nsec = (long)(interval % 1000) * 1000000L;
		nanosleep(&ts, NULL);
	} while (now_ms() < end);

	printf("stale_poke: pid %d: %lu stale cancels\n", (int)getpid(), n);
	retire_close_device(r);
	return 0;
}
