/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The balance check the reliability campaigns (fuzz, killstorm) end with:
 * once every context they made is closed and the engine is neutral,
 * everything the module ever admitted must have retired (or still be
 * quarantined), and nothing may stay owned, pinned, allocated or locked.
 *
 * The /proc readers of retire_test.h are reused.
 */
#ifndef CAMPAIGN_BALANCE_H
#define CAMPAIGN_BALANCE_H

#include "retire_test.h"

/* what the process and the system held before the campaign began */
struct cb_base {
	long vmlck_kb;
	long vmpin_kb;
	bool have_pins;
	long long foll_pins;	/* acquired - released, system-wide */
};

static inline void cb_base_take(struct cb_base *b)
{
	b->vmlck_kb = rt_status_kb("VmLck");
	b->vmpin_kb = rt_vmpin_kb();
	b->have_pins = rt_have_foll_pins();
	b->foll_pins = b->have_pins ? rt_foll_pins_base() : 0;
}

/*
 * The module-wide gauges that must be 0 once every campaign context is
 * gone; @contexts is how many contexts the checker itself holds open.
 */
static inline bool cb_module_drained(const struct retire_stats *m,
				     __u64 contexts)
{
	return m->owned_bytes == 0 && m->pinned_bytes == 0 &&
	       m->pool_bytes == 0 && m->buffers == 0 && m->tokens_out == 0 &&
	       m->logical_outstanding == 0 &&
	       m->physical_outstanding == 0 &&
	       m->device_outstanding == 0 && m->quarantined_now == 0 &&
	       m->contexts == contexts &&
	       m->admitted == m->retired + m->quarantined_now;
}

static inline bool cb_process_back(const struct cb_base *b)
{
	if (rt_status_kb("VmLck") != b->vmlck_kb || rt_vmpin_kb() != b->vmpin_kb)
		return false;
	return !b->have_pins || rt_foll_pins() <= b->foll_pins;
}

/* one line per quantity that is not back, prefixed by @who */
static inline int cb_report(const char *who, const struct retire_stats *m,
			    __u64 contexts, const struct cb_base *b)
{
	long long pins;
	int bad = 0;

#define CB_ZERO(f) do {							\
	if (m->f) {							\
		printf("%s: balance: module " #f " %llu, want 0\n", who,	\
		       (unsigned long long)m->f);			\
		bad++;							\
	}								\
} while (0)
	CB_ZERO(owned_bytes);
	CB_ZERO(pinned_bytes);
	CB_ZERO(pool_bytes);
	CB_ZERO(buffers);
	CB_ZERO(tokens_out);
	CB_ZERO(logical_outstanding);
	CB_ZERO(physical_outstanding);
	CB_ZERO(device_outstanding);
	CB_ZERO(quarantined_now);
#undef CB_ZERO
	if (m->contexts != contexts) {
		printf("%s: balance: module contexts %llu, want %llu (the checker's)\n",
		       who, (unsigned long long)m->contexts,
		       (unsigned long long)contexts);
		bad++;
	}
	if (m->admitted != m->retired + m->quarantined_now) {
		printf("%s: balance: module admitted %llu != retired %llu + quarantined_now %llu\n",
		       who, (unsigned long long)m->admitted,
		       (unsigned long long)m->retired,
		       (unsigned long long)m->quarantined_now);
		bad++;
	}
	if (rt_status_kb("VmLck") != b->vmlck_kb) {
		printf("%s: balance: VmLck %ld kB, was %ld kB\n", who,
		       rt_status_kb("VmLck"), b->vmlck_kb);
		bad++;
	}
	if (rt_vmpin_kb() != b->vmpin_kb) {
		printf("%s: balance: VmPin %ld kB, was %ld kB\n", who,
		       rt_vmpin_kb(), b->vmpin_kb);
		bad++;
	}
	/* someone else's pin in flight may raise this one read: wait it out */
	pins = b->have_pins ? rt_foll_pins_back(b->foll_pins, 1000) : 0;
	if (b->have_pins && pins > b->foll_pins) {
		printf("%s: balance: FOLL_PIN acquired - released %lld, was %lld\n",
		       who, pins, b->foll_pins);
		bad++;
	}
	return bad;
}

/*
 * Files of /dev/retire this process still holds open or mapped: a context
 * kept alive by the campaign itself is not the module's leak.
 */
static inline int cb_own_refs(void)
{
	char path[64], line[512], link[256];
	int fd, n = 0;
	FILE *f;
	ssize_t len;

	for (fd = 0; fd < 4096; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = 0;
		n += !strcmp(link, "/dev/" RETIRE_DEVICE_NAME);
	}
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return n;
	while (fgets(line, sizeof(line), f))
		n += !!strstr(line, "/dev/" RETIRE_DEVICE_NAME);
	fclose(f);
	return n;
}

/*
 * Call with every campaign context closed and the engine neutral. Polls
 * for up to @timeout_ms (reapers retire closed contexts asynchronously),
 * then prints what is not back. Returns the number of differences, or -1
 * if the module's counters cannot be read.
 */
static inline int cb_check(const char *who, const struct cb_base *b,
			   unsigned int timeout_ms)
{
	struct retire_stats m;
	struct retire *r;
	int ret;

	ret = cb_own_refs();
	if (ret)
		printf("%s: balance: this process still holds %d files or mappings of /dev/retire\n",
		       who, ret);
	ret = retire_open_device(&r, NULL, 0);
	if (ret) {
		printf("%s: balance: cannot open /dev/retire: %s\n", who,
		       strerror(-ret));
		return -1;
	}
	RT_POLL_UNTIL((ret = rt_mstats(r, &m)) ||
		      (cb_module_drained(&m, 1) && cb_process_back(b)),
		      timeout_ms, 50);
	if (ret) {
		printf("%s: balance: module stats: %s\n", who, strerror(-ret));
		retire_close_device(r);
		return -1;
	}
	ret = cb_report(who, &m, 1, b);
	retire_close_device(r);
	return ret;
}

/* as root: the engine's knobs to 0 and everything it holds let go */
static inline int cb_neutral(void)
{
	struct retire *r;
	int ret;

	ret = retire_open_device(&r, NULL, 0);
	if (ret)
		return ret;
	rt_sim_neutral(r);
	retire_close_device(r);
	return 0;
}

#endif /* CAMPAIGN_BALANCE_H */
