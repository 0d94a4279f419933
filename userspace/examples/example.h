/* SPDX-License-Identifier: MIT */
/*
 * What the six examples share, on top of libretire: open the device or
 * skip, report a failure, wait for one record, and set the sim engine's
 * latency (module-wide, so an example that sets it puts it back as it
 * found it).
 */
#ifndef RETIRE_EXAMPLE_H
#define RETIRE_EXAMPLE_H

#include <libretire.h>

#define MS		1000000ULL	/* nanoseconds in a millisecond */
#define EXAMPLE_SKIP	4		/* the kselftest code for "skipped" */

/* the program's name, for messages: set by example_open() */
extern const char *example_name;

/* print "NAME: WHAT: strerror(-err)" on stderr; returns 1 (failure) */
int example_fail(const char *what, int err);

/* open /dev/retire: 0, or EXAMPLE_SKIP when it is absent, else 1 */
int example_open(const char *name, struct retire **r);

/*
 * Wait up to 5 s for the next record and check that it is of @type for
 * @handle: 0, or 1 with a message.
 */
int example_expect(struct retire *r, __u64 handle, __u32 type,
		   struct retire_cqe *cqe);

/*
 * Make the sim engine take @latency_ns before it touches a request, saving
 * its settings in *@saved: 0, EXAMPLE_SKIP without CAP_SYS_ADMIN, else 1.
 * example_restore_sim() puts *@saved back.
 */
int example_slow_sim(struct retire *r, __u64 latency_ns,
		     struct retire_sim_config *saved);
int example_restore_sim(struct retire *r,
			const struct retire_sim_config *saved);

#endif /* RETIRE_EXAMPLE_H */
