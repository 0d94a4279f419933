// SPDX-License-Identifier: MIT
/* The examples' shared helpers: see example.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "example.h"

const char *example_name = "example";

int example_fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", example_name, what, strerror(-err));
	return 1;
}

int example_open(const char *name, struct retire **r)
{
	int ret;

	example_name = name;
	/* line by line, so that a message on stderr follows what led to it */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = retire_open_device(r, NULL, 0);	/* NULL: /dev/retire */
	if (ret == -ENOENT) {
		fprintf(stderr, "%s: SKIP: %s is absent (modprobe retire)\n",
			name, LIBRETIRE_DEFAULT_PATH);
		return EXAMPLE_SKIP;
	}
	return ret ? example_fail("retire_open_device", ret) : 0;
}

int example_require(struct retire *r, __u64 features, const char *what)
{
	struct retire_info info;
	int ret = retire_get_info(r, &info);

	if (ret)
		return example_fail("retire_get_info", ret);
	if ((info.features & features) != features) {
		fprintf(stderr, "%s: SKIP: the module has no %s\n",
			example_name, what);
		return EXAMPLE_SKIP;
	}
	return 0;
}

int example_expect(struct retire *r, __u64 handle, __u32 type,
		   struct retire_cqe *cqe)
{
	int n = retire_reap_records(r, cqe, 1, 1, 5000 * MS);

	if (n < 0)
		return example_fail("retire_reap_records", n);
	if (n == 0) {
		fprintf(stderr, "%s: no record within 5 s (expected type %u)\n",
			example_name, type);
		return 1;
	}
	if (cqe->handle != handle || cqe->type != type) {
		fprintf(stderr,
			"%s: expected record type %u for 0x%llx, got type %u for 0x%llx\n",
			example_name, type, (unsigned long long)handle,
			cqe->type, (unsigned long long)cqe->handle);
		return 1;
	}
	return 0;
}

int example_run_one(struct retire *r, __u64 buf, __u32 len, __u32 dev_flags,
		    __u64 user_data, __u64 *req, struct retire_cqe *cqe)
{
	struct retire_sqe sqe;
	int ret;

	retire_prep_request(&sqe, buf, 0, len, dev_flags, user_data);
	ret = retire_submit_requests(r, &sqe, 1);
	if (ret != 1)
		return example_fail("submit", ret < 0 ? ret : sqe.result);
	*req = sqe.handle;
	return example_expect(r, *req, RETIRE_REC_TERMINAL, cqe);
}

int example_slow_sim(struct retire *r, __u64 latency_ns,
		     struct retire_sim_config *saved)
{
	struct retire_sim_config cfg = { .op = RETIRE_SIM_SET,
					 .latency_ns = latency_ns };
	int ret;

	ret = retire_get_sim_config(r, saved);
	if (ret)
		return example_fail("retire_get_sim_config", ret);
	ret = retire_set_sim_config(r, &cfg);
	if (ret == -EPERM) {
		fprintf(stderr,
			"%s: SKIP: the sim engine's settings need CAP_SYS_ADMIN (run as root)\n",
			example_name);
		return EXAMPLE_SKIP;
	}
	return ret ? example_fail("retire_set_sim_config", ret) : 0;
}

int example_restore_sim(struct retire *r,
			const struct retire_sim_config *saved)
{
	struct retire_sim_config cfg = *saved;
	int ret;

	cfg.op = RETIRE_SIM_SET;
	ret = retire_set_sim_config(r, &cfg);
	return ret ? example_fail("retire_set_sim_config", ret) : 0;
}
