// SPDX-License-Identifier: MIT
/*
 * retirectl: inspect and drive the retire module from the command line.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libretire.h"

static const char *const feature_names[] = {
	"genl",
	"requests",
	"sim",
	"admission",
};

/* the counters of the stats attribute set, by their struct field names */
#define STAT(name) { #name, offsetof(struct retire_stats, name) }
static const struct {
	const char *name;
	size_t offset;
} stat_fields[] = {
	STAT(admitted),
	STAT(refused),
	STAT(completed),
	STAT(failed),
	STAT(cancelled),
	STAT(timed_out),
	STAT(cancel_ok),
	STAT(cancel_already),
	STAT(cancel_noent),
	STAT(stale_engine),
	STAT(stale_cancel),
	STAT(stale_token),
	STAT(stale_user),
	STAT(protocol_errors),
	STAT(consumer_errors),
	STAT(access_violations),
	STAT(retired),
	STAT(tokens_out),
	STAT(logical_outstanding),
	STAT(physical_outstanding),
	STAT(owned_bytes),
	STAT(owned_bytes_hwm),
	STAT(pinned_bytes),
	STAT(buffers),
	STAT(contexts),
	STAT(refused_unretired),
	STAT(refused_reserved),
	STAT(refused_waiting),
	STAT(refused_quarantine),
	STAT(refused_injected),
	STAT(refused_tokens),
	STAT(refused_pinned),
	STAT(refused_pool),
	STAT(refused_buffers),
	STAT(published),
	STAT(stale_published),
	STAT(quarantined),
	STAT(quarantined_now),
	STAT(evicted),
	STAT(pool_bytes),
	STAT(engine_bytes),
};
#undef STAT

#define NSTATS	(sizeof(stat_fields) / sizeof(stat_fields[0]))

_Static_assert(NSTATS == RETIRE_A_STATS_ENGINE_BYTES -
			 RETIRE_A_STATS_ADMITTED + 1,
	       "every counter of the stats attribute set has a name");

static const char *const health_names[] = {
	[RETIRE_HEALTH_EVENT_QUARANTINE] = "quarantine",
	[RETIRE_HEALTH_EVENT_RESET] = "reset",
	[RETIRE_HEALTH_EVENT_REAPED] = "reaped",
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: retirectl [-d DEVICE] COMMAND [OPTIONS]\n"
		"\n"
		"commands:\n"
		"  info    the module's ABI version, features and caps, over\n"
		"          the ioctl and over generic netlink\n"
		"  stats [-j]\n"
		"          the module's counters, then each context's, over\n"
		"          generic netlink; -j: one JSON object\n"
		"  monitor [-j] [-c COUNT] [-t SECONDS]\n"
		"          print stale and health notifications as they come,\n"
		"          one line each (-j: JSON), until COUNT of them, SECONDS\n"
		"          or SIGINT\n"
		"\n"
		"  -d DEVICE  the character device (default %s)\n",
		LIBRETIRE_DEFAULT_PATH);
}

static void print_features(__u64 features)
{
	unsigned int i;

	printf("0x%" PRIx64, (uint64_t)features);
	for (i = 0; i < 64; i++) {
		if (!(features & (1ULL << i)))
			continue;
		if (i < sizeof(feature_names) / sizeof(feature_names[0]))
			printf(" %s", feature_names[i]);
		else
			printf(" bit%u", i);
	}
	printf("\n");
}

static int cmd_info(const char *dev)
{
	struct retire_info info, nlinfo;
	struct retire_nl *nl;
	struct retire *r;
	int ret;

	ret = retire_open(&r, dev, 0);
	if (ret) {
		fprintf(stderr, "retirectl: open %s: %s\n",
			dev ? dev : LIBRETIRE_DEFAULT_PATH, strerror(-ret));
		return 1;
	}
	ret = retire_get_info(r, &info);
	retire_close(r);
	if (ret) {
		fprintf(stderr, "retirectl: GET_INFO: %s\n", strerror(-ret));
		return 1;
	}

	printf("device              %s\n", dev ? dev : LIBRETIRE_DEFAULT_PATH);
	printf("abi version         %u\n", info.abi_version);
	printf("features            ");
	print_features(info.features);
	printf("caps per context\n");
	printf("  max_unretired       %u\n", info.caps.max_unretired);
	printf("  max_active          %u\n", info.caps.max_active);
	printf("  max_active_per_key  %u\n", info.caps.max_active_per_key);
	printf("  max_waiting         %u\n", info.caps.max_waiting);
	printf("  max_tokens          %u\n", info.caps.max_tokens);
	printf("  max_buffers         %u\n", info.caps.max_buffers);
	printf("  max_reserved_bytes  %llu\n",
	       (unsigned long long)info.caps.max_reserved_bytes);
	printf("  max_pinned_bytes    %llu\n",
	       (unsigned long long)info.caps.max_pinned_bytes);
	printf("  max_pool_bytes      %llu\n",
	       (unsigned long long)info.caps.max_pool_bytes);
	printf("  watchdog_ns         %llu\n",
	       (unsigned long long)info.caps.watchdog_ns);

	ret = retire_nl_open(&nl);
	if (ret) {
		fprintf(stderr, "retirectl: netlink family %s: %s\n",
			"retire", strerror(-ret));
		return 1;
	}
	ret = retire_nl_get_info(nl, &nlinfo);
	printf("netlink family      retire, id %d\n", retire_nl_family_id(nl));
	retire_nl_close(nl);
	if (ret) {
		fprintf(stderr, "retirectl: netlink INFO_GET: %s\n",
			strerror(-ret));
		return 1;
	}
	printf("netlink abi/features %u ", nlinfo.abi_version);
	print_features(nlinfo.features);
	if (nlinfo.abi_version != info.abi_version ||
	    nlinfo.features != info.features) {
		fprintf(stderr, "retirectl: ioctl and netlink disagree\n");
		return 1;
	}
	return 0;
}

/* ---- stats --------------------------------------------------------------- */

struct ctx_stats {
	__u64 ctx_id;
	__u32 pid;
	struct retire_stats stats;
};

struct ctx_list {
	struct ctx_stats *v;
	size_t n, cap;
};

static int collect_ctx(__u64 ctx_id, __u32 pid,
		       const struct retire_stats *stats, void *arg)
{
	struct ctx_list *l = arg;
	struct ctx_stats *v;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		v = realloc(l->v, l->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
	}
	l->v[l->n].ctx_id = ctx_id;
	l->v[l->n].pid = pid;
	l->v[l->n].stats = *stats;
	l->n++;
	return 0;
}

static __u64 stat_value(const struct retire_stats *st, size_t i)
{
	__u64 v;

	memcpy(&v, (const char *)st + stat_fields[i].offset, sizeof(v));
	return v;
}

static void print_stats_text(const struct retire_stats *st)
{
	size_t i;

	for (i = 0; i < NSTATS; i++)
		printf("  %-22s%llu\n", stat_fields[i].name,
		       (unsigned long long)stat_value(st, i));
}

static void print_stats_json(const struct retire_stats *st)
{
	size_t i;

	putchar('{');
	for (i = 0; i < NSTATS; i++)
		printf("%s\"%s\":%llu", i ? "," : "", stat_fields[i].name,
		       (unsigned long long)stat_value(st, i));
	putchar('}');
}

static int cmd_stats(int argc, char **argv)
{
	struct ctx_list l = { 0 };
	struct retire_stats module;
	struct retire_nl *nl;
	int json = 0, opt, ret;
	size_t i;

	while ((opt = getopt(argc, argv, "+j")) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	ret = retire_nl_open(&nl);
	if (ret) {
		fprintf(stderr, "retirectl: retire_nl_open: %s\n",
			strerror(-ret));
		return 1;
	}
	ret = retire_stats_get(nl, &module);
	if (ret) {
		fprintf(stderr, "retirectl: retire_stats_get: %s\n",
			strerror(-ret));
		goto out;
	}
	ret = retire_stats_dump(nl, collect_ctx, &l);
	if (ret) {
		fprintf(stderr, "retirectl: retire_stats_dump: %s\n",
			strerror(ret < 0 ? -ret : EIO));
		goto out;
	}

	if (json) {
		printf("{\"module\":");
		print_stats_json(&module);
		printf(",\"contexts\":[");
		for (i = 0; i < l.n; i++) {
			printf("%s{\"ctx_id\":%llu,\"pid\":%u,\"stats\":",
			       i ? "," : "",
			       (unsigned long long)l.v[i].ctx_id, l.v[i].pid);
			print_stats_json(&l.v[i].stats);
			putchar('}');
		}
		printf("]}\n");
	} else {
		printf("module\n");
		print_stats_text(&module);
		for (i = 0; i < l.n; i++) {
			printf("context %llu pid %u\n",
			       (unsigned long long)l.v[i].ctx_id, l.v[i].pid);
			print_stats_text(&l.v[i].stats);
		}
	}
	if (fflush(stdout) == EOF) {
		fprintf(stderr, "retirectl: write: %s\n", strerror(errno));
		ret = 1;
	}
out:
	free(l.v);
	retire_nl_close(nl);
	return ret ? 1 : 0;
}

/* ---- monitor ------------------------------------------------------------- */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static const char *health_name(__u32 event, char *buf, size_t len)
{
	if (event < sizeof(health_names) / sizeof(health_names[0]) &&
	    health_names[event])
		return health_names[event];
	snprintf(buf, len, "%u", event);
	return buf;
}

static void print_event(const struct retire_event *ev, int json)
{
	char buf[16];
	const char *name;

	switch (ev->type) {
	case RETIRE_CMD_STALE_NTF:
		printf(json ?
		       "{\"type\":\"stale\",\"ctx_id\":%llu,\"pid\":%u,"
		       "\"engine\":%llu,\"cancel\":%llu,\"token\":%llu,"
		       "\"user\":%llu,\"published\":%llu}\n" :
		       "stale ctx %llu pid %u engine %llu cancel %llu "
		       "token %llu user %llu published %llu\n",
		       (unsigned long long)ev->ctx_id, ev->pid,
		       (unsigned long long)ev->stale_engine,
		       (unsigned long long)ev->stale_cancel,
		       (unsigned long long)ev->stale_token,
		       (unsigned long long)ev->stale_user,
		       (unsigned long long)ev->stale_published);
		break;
	case RETIRE_CMD_HEALTH_NTF:
		name = health_name(ev->health_event, buf, sizeof(buf));
		printf(json ?
		       "{\"type\":\"health\",\"event\":\"%s\",\"ctx_id\":%llu,"
		       "\"pid\":%u,\"quarantined_now\":%llu}\n" :
		       "health %s ctx %llu pid %u quarantined_now %llu\n",
		       name, (unsigned long long)ev->ctx_id, ev->pid,
		       (unsigned long long)ev->quarantined_now);
		break;
	}
}

static int parse_count(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || end == s || *end || *s == '-' || !*v ? -1 : 0;
}

static int parse_seconds(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*v) || *v < 0 ||
	       *v > (double)INT_MAX ? -1 : 0;
}

static double now_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmd_monitor(int argc, char **argv)
{
	struct retire_event ev[64];
	struct retire_monitor *m;
	unsigned long count = 0, seen = 0;
	double seconds = -1, deadline = 0, left;
	struct sigaction sa;
	sigset_t block, orig;
	struct timespec ts;
	struct pollfd pfd;
	unsigned int want;
	int json = 0, opt, ret, n, i, status = 0;

	while ((opt = getopt(argc, argv, "+jc:t:")) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		case 'c':
			if (parse_count(optarg, &count)) {
				fprintf(stderr,
					"retirectl: bad COUNT '%s'\n", optarg);
				usage(stderr);
				return 2;
			}
			break;
		case 't':
			if (parse_seconds(optarg, &seconds)) {
				fprintf(stderr,
					"retirectl: bad SECONDS '%s'\n", optarg);
				usage(stderr);
				return 2;
			}
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	/* a signal ends the wait only inside ppoll(): no lost wake-up */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &orig);
	sigdelset(&orig, SIGINT);
	sigdelset(&orig, SIGTERM);

	ret = retire_monitor_open(&m, RETIRE_MONITOR_STALE |
				      RETIRE_MONITOR_HEALTH);
	if (ret) {
		fprintf(stderr, "retirectl: retire_monitor_open: %s\n",
			strerror(-ret));
		return 1;
	}
	/* one line per event, as it comes, even into a pipe */
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (seconds >= 0)
		deadline = now_monotonic() + seconds;
	pfd.fd = retire_monitor_fd(m);
	pfd.events = POLLIN;
	while (!stop_signal && (!count || seen < count)) {
		if (seconds >= 0) {
			left = deadline - now_monotonic();
			if (left <= 0)
				break;
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		}
		ret = ppoll(&pfd, 1, seconds >= 0 ? &ts : NULL, &orig);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "retirectl: ppoll: %s\n",
				strerror(errno));
			status = 1;
			break;
		}
		if (!ret)
			continue;
		if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL) &&
		    !(pfd.revents & POLLIN)) {
			fprintf(stderr, "retirectl: ppoll: socket error\n");
			status = 1;
			break;
		}
		/* everything ready, but never more than COUNT in all */
		do {
			want = sizeof(ev) / sizeof(ev[0]);
			if (count && count - seen < want)
				want = count - seen;
			n = retire_monitor_read(m, ev, want);
			if (n == -ENOBUFS) {
				/* the socket overflowed: go on, but say so */
				fprintf(stderr,
					"retirectl: retire_monitor_read: %s: notifications lost\n",
					strerror(ENOBUFS));
				n = 1;
				continue;
			}
			if (n < 0) {
				fprintf(stderr,
					"retirectl: retire_monitor_read: %s\n",
					strerror(-n));
				status = 1;
				break;
			}
			for (i = 0; i < n; i++)
				print_event(&ev[i], json);
			seen += n;
		} while (n > 0 && (!count || seen < count) && !stop_signal);
		if (status)
			break;
	}
	retire_monitor_close(m);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "retirectl: write: %s\n", strerror(errno));
		status = 1;
	}
	return status;
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	const char *cmd;
	int opt;

	/* "+": options after the command are the command's */
	while ((opt = getopt(argc, argv, "+d:h")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	argc -= optind;
	argv += optind;
	optind = 1;

	if (!strcmp(cmd, "info")) {
		if (argc != 1) {
			usage(stderr);
			return 2;
		}
		return cmd_info(dev);
	}
	if (!strcmp(cmd, "stats"))
		return cmd_stats(argc, argv);
	if (!strcmp(cmd, "monitor"))
		return cmd_monitor(argc, argv);

	fprintf(stderr, "retirectl: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
