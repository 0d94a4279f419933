/* SPDX-License-Identifier: MIT */
/*
 * What the six examples share, on top of libretire: open the device or
 * skip, require features, report a failure, run one request, wait for one
 * record, and set the sim engine's latency (module-wide, so an example that sets it puts it back as it
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
 * Check that the module has every feature bit of @features (RETIRE_FEAT_*):
 * 0, EXAMPLE_SKIP with @what it lacks, else 1.
 */
int example_require(struct retire *r, __u64 features, const char *what);

/*
 * Wait up to 5 s for the next record and check that it is of @type for
 * @handle: 0, or 1 with a message.
 */
int example_expect(struct retire *r, __u64 handle, __u32 type,
		   struct retire_cqe *cqe);

/*
 * Submit one request of @len bytes of @buf with @dev_flags and @user_data,
 * and wait for its TERMINAL record (into *@cqe): 0 with its handle in
 * *@req, or 1 with a message.
 */
int example_run_one(struct retire *r, __u64 buf, __u32 len, __u32 dev_flags,
		    __u64 user_data, __u64 *req, struct retire_cqe *cqe);

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
