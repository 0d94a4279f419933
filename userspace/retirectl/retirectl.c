// SPDX-License-Identifier: MIT
/*
 * retirectl: inspect and drive the retire module from the command line.
 *
 * Every command reads what it needs first and prints afterwards (with
 * print.c's printers), so that a failure prints nothing on standard
 * output: only "retirectl: <library function>: <strerror> (<ENAME>)" on
 * standard error. Exit status: RETIRECTL_EXIT_*.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libretire.h"
#include "print.h"
#include "retirectl.h"


static void usage_names(FILE *f, const struct field *fields, size_t nr)
{
	size_t i, col = 10;

	fprintf(f, "          NAME:");
	col += 5;
	for (i = 0; i < nr; i++) {
		if (col + 1 + strlen(fields[i].name) > 76) {
			fprintf(f, "\n               ");
			col = 15;
		}
		col += fprintf(f, " %s", fields[i].name);
	}
	fputc('\n', f);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: retirectl [-d DEVICE] COMMAND [OPTIONS]\n"
		"       retirectl -h\n"
		"\n"
		"commands:\n"
		"  info [-j]\n"
		"          the module's ABI version, features and per-context\n"
		"          caps, over the ioctl and over generic netlink\n"
		"  stats [-j]\n"
		"          the module's counters, then each context's, over\n"
		"          generic netlink\n"
		"  monitor [-j] [-c COUNT] [-t SECONDS]\n"
		"          print stale and health notifications as they come,\n"
		"          one line each (-j: JSON), until COUNT of them, SECONDS\n"
		"          or SIGINT\n"
		"  limits [-j] [NAME=VALUE ...]\n"
		"          the caps and the limits a new context starts with;\n"
		"          with pairs, set them on a fresh context of its own\n"
		"          (would the module accept them?); nothing persists\n");
	usage_names(f, limit_fields, nr_limit_fields);
	fprintf(f,
		"  engine [-j] [NAME=VALUE ...]\n"
		"          the sim engine's config, over generic netlink; with\n"
		"          pairs, change those fields (CAP_SYS_ADMIN)\n");
	usage_names(f, engine_fields, nr_engine_fields);
	fprintf(f,
		"          flags=N or a comma list of blocked, hang,\n"
		"          cancel_running, violate, or none\n"
		"  engine [-j] reset\n"
		"          end every sim job and lift quarantine (CAP_SYS_ADMIN)\n"
		"  history [-j] [CTX-ID]\n"
		"          the last events of context CTX-ID (an id of 'stats'),\n"
		"          oldest first, then how many it recorded and dropped;\n"
		"          without CTX-ID, the contexts whose history you may read\n"
		"  top [-j] [-n COUNT] [-d SECONDS]\n"
		"          the module's counters and each context's, with rates\n"
		"          per second, every SECONDS (default 1, at least 0.1;\n"
		"          this -d is top's) COUNT times or until SIGINT\n"
		"  demo [-j]\n"
		"          retirement at work on the module: useful vs blocked,\n"
		"          a retirement trace, stale notifications (root, ~15 s)\n"
		"\n"
		"  -d DEVICE  the character device (default %s)\n"
		"  -j         one JSON object on standard output (monitor and\n"
		"             top: one per line)\n"
		"  -h         this help\n"
		"\n"
		"VALUE: decimal, or hexadecimal with 0x. Exit status: 0 done,\n"
		"1 a library call failed, 2 bad usage, 3 a demo invariant did\n"
		"not hold.\n",
		LIBRETIRE_DEFAULT_PATH);
}

/* a bad command line: say what is wrong, then how it should be */
__attribute__((format(printf, 1, 2)))
static int bad_usage(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fputs("retirectl: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	usage(stderr);
	return RETIRECTL_EXIT_USAGE;
}

/*
 * getopt() said @opt ('?' or ':') about an option of @cmd (NULL: of
 * retirectl itself); opterr is 0, so this says why
 */
static int bad_option(const char *cmd, int opt)
{
	const char *sep = cmd ? ": " : "";

	if (!cmd)
		cmd = "";
	if (opt == ':')
		return bad_usage("%s%soption '-%c' needs an argument", cmd,
				 sep, optopt);
	if (isprint(optopt))
		return bad_usage("%s%sunknown option '-%c'", cmd, sep, optopt);
	return bad_usage("%s%sunknown option", cmd, sep);
}

/*
 * The options every command but monitor takes: -j, and -h for the help.
 * Returns -1 to go on, else the exit status.
 */
static int parse_common(int argc, char **argv, int *json)
{
	int opt;

	opterr = 0;
	while ((opt = getopt(argc, argv, "+:jh")) != -1) {
		switch (opt) {
		case 'j':
			*json = 1;
			break;
		case 'h':
			usage(stdout);
			return RETIRECTL_EXIT_OK;
		default:
			return bad_option(argv[0], opt);
		}
	}
	return -1;
}

/* ---- numbers and NAME=VALUE ---------------------------------------------- */

/*
 * A whole unsigned number: decimal, or hexadecimal after 0x. No sign, no
 * space, nothing after it. -EINVAL if it is not one, -ERANGE if too big.
 */
static int parse_u64(const char *s, __u64 *v)
{
	const char *digits = "0123456789";
	unsigned long long x;
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		digits = "0123456789abcdefABCDEF";
		base = 16;
	}
	if (!*s || s[strspn(s, digits)])
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

/* parse_u64() within a field of @size bytes */
static int parse_sized(const char *s, size_t size, __u64 *v)
{
	int ret;

	ret = parse_u64(s, v);
	if (!ret && size == sizeof(__u32) && *v > UINT32_MAX)
		ret = -ERANGE;
	return ret;
}

static int bad_value(const char *cmd, const char *arg, int err, size_t size)
{
	if (err == -ERANGE)
		return bad_usage("%s: bad value in '%s': out of range (at most %s)",
				 cmd, arg, size == sizeof(__u32) ?
				 "4294967295" : "18446744073709551615");
	return bad_usage("%s: bad value in '%s': not an unsigned number",
			 cmd, arg);
}

/* "blocked,hang", "none" or a number */
static int parse_sim_flags(const char *s, __u64 *v)
{
	const char *p = s, *comma;
	size_t len, i;

	if (isdigit((unsigned char)*s))
		return parse_sized(s, sizeof(__u32), v);
	if (!strcmp(s, "none")) {
		*v = 0;
		return 0;
	}
	*v = 0;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		for (i = 0; i < nr_sim_flag_names; i++)
			if (strlen(sim_flag_names[i]) == len &&
			    !strncmp(p, sim_flag_names[i], len))
				break;
		if (i == nr_sim_flag_names)
			return -EINVAL;
		*v |= 1ULL << i;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* one NAME=VALUE of a command's argument list, parsed */
struct assignment {
	const struct field *field;
	__u64 value;
};

/*
 * Parse every NAME=VALUE of @argv into @as (room for @argc): unknown
 * names, repeated names and bad values are usage errors. Returns -1 if
 * all parsed, else the exit status. Engine flags go through
 * parse_sim_flags().
 */
static int parse_assignments(const char *cmd, int argc, char **argv,
			     const struct field *fields, size_t nr,
			     struct assignment *as)
{
	const char *eq;
	size_t i, len;
	int a, b, ret;

	for (a = 0; a < argc; a++) {
		eq = strchr(argv[a], '=');
		if (!eq || eq == argv[a])
			return bad_usage("%s: '%s' is not NAME=VALUE", cmd,
					 argv[a]);
		len = eq - argv[a];
		for (i = 0; i < nr; i++)
			if (strlen(fields[i].name) == len &&
			    !strncmp(argv[a], fields[i].name, len))
				break;
		if (i == nr)
			return bad_usage("%s: unknown NAME '%.*s'", cmd,
					 (int)len, argv[a]);
		for (b = 0; b < a; b++)
			if (as[b].field == &fields[i])
				return bad_usage("%s: '%s' is given twice",
						 cmd, fields[i].name);
		as[a].field = &fields[i];
		if (fields == engine_fields &&
		    fields[i].offset == offsetof(struct retire_sim_config,
						  flags)) {
			ret = parse_sim_flags(eq + 1, &as[a].value);
			if (ret == -EINVAL)
				return bad_usage("%s: bad value in '%s': a number or a comma list of blocked, hang, cancel_running, violate, or none",
						 cmd, argv[a]);
		} else {
			ret = parse_sized(eq + 1, fields[i].size,
					  &as[a].value);
		}
		if (ret)
			return bad_value(cmd, argv[a], ret, fields[i].size);
	}
	return -1;
}

/* ---- info ----------------------------------------------------------------- */

/*
 * The module's abi, features and caps from the device: 0, or the exit
 * status of a failure. 0 with *@dev_err set when the caller may not open
 * it: no access is not a failure, info then says what netlink, open to
 * everyone, knows.
 */
static int read_info(const char *dev, struct retire_info *info, int *dev_err)
{
	struct retire *r;
	int ret;

	ret = retire_open_device(&r, dev, 0);
	if (ret == -EACCES || ret == -EPERM) {
		*dev_err = ret;
		return 0;
	}
	if (ret)
		return lib_fail("retire_open_device", ret);
	ret = retire_get_info(r, info);
	retire_close_device(r);
	if (ret)
		return lib_fail("retire_get_info", ret);
	return 0;
}

static int cmd_info(const char *dev, int argc, char **argv)
{
	struct retire_info info, nlinfo;
	int json = 0, ret, family, dev_err = 0;
	struct retire_nl *nl;

	ret = parse_common(argc, argv, &json);
	if (ret >= 0)
		return ret;
	if (optind != argc)
		return bad_usage("info: unexpected argument '%s'",
				 argv[optind]);

	ret = read_info(dev, &info, &dev_err);
	if (ret)
		return ret;
	ret = retire_open_netlink(&nl);
	if (ret)
		return lib_fail("retire_open_netlink", ret);
	ret = retire_nl_get_info(nl, &nlinfo);
	family = retire_get_family_id(nl);
	retire_close_netlink(nl);
	if (ret)
		return lib_fail("retire_nl_get_info", ret);

	print_info(dev ? dev : LIBRETIRE_DEFAULT_PATH, dev_err ? NULL : &info,
		   dev_err, family, &nlinfo, json);
	if (dev_err)
		return RETIRECTL_EXIT_OK;
	if (nlinfo.abi_version != info.abi_version ||
	    nlinfo.features != info.features) {
		fprintf(stderr,
			"retirectl: retire_nl_get_info: netlink says abi %u features 0x%llx, the ioctl abi %u features 0x%llx\n",
			nlinfo.abi_version,
			(unsigned long long)nlinfo.features,
			info.abi_version, (unsigned long long)info.features);
		return RETIRECTL_EXIT_FAIL;
	}
	return RETIRECTL_EXIT_OK;
}

/* ---- stats --------------------------------------------------------------- */

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

static int cmd_stats(const char *dev, int argc, char **argv)
{
	struct ctx_list l = { 0 };
	struct retire_stats module;
	struct retire_nl *nl;
	int json = 0, ret;

	ret = parse_common(argc, argv, &json);
	if (ret >= 0)
		return ret;
	if (optind != argc)
		return bad_usage("stats: unexpected argument '%s'",
				 argv[optind]);

	ret = retire_open_netlink(&nl);
	if (ret)
		return lib_fail("retire_open_netlink", ret);
	ret = retire_nl_get_stats(nl, &module);
	if (ret) {
		ret = lib_fail("retire_nl_get_stats", ret);
		goto out;
	}
	ret = retire_nl_dump_stats(nl, collect_ctx, &l);
	if (ret) {
		ret = lib_fail("retire_nl_dump_stats", ret);
		goto out;
	}

	print_stats(&module, &l, json);
out:
	free(l.v);
	retire_close_netlink(nl);
	return ret;
}

/* ---- limits and engine: get, modify, set -------------------------------- */

/*
 * A structure of the module that "limits" and "engine" show and set: read
 * whole by @get, written whole by @set, on the handle the command opened
 * (@get_fn and @set_fn name the library calls for lib_fail()).
 */
struct settable {
	const char *cmd;
	const struct field *fields;
	size_t nr_fields;
	const char *get_fn, *set_fn;
	int (*get)(void *h, void *v);
	int (*set)(void *h, const void *v);
};

/*
 * @argc NAME=VALUE pairs of @s into *@as (none: NULL). Returns -1 if all
 * parsed, else the exit status.
 */
static int parse_settings(const struct settable *s, int argc, char **argv,
			  struct assignment **as)
{
	int ret;

	*as = NULL;
	if (!argc)
		return -1;
	*as = calloc(argc, sizeof(**as));
	if (!*as)
		return lib_fail("calloc", -ENOMEM);
	ret = parse_assignments(s->cmd, argc, argv, s->fields, s->nr_fields,
				*as);
	if (ret >= 0) {
		free(*as);
		*as = NULL;
	}
	return ret;
}

/*
 * Read @v; with @nr assignments, set them in it, write it whole, and read
 * back what the module holds now, not what was asked. Another writer may
 * come between the read and the write: the last write wins whole. Returns
 * 0, or the exit status of the call that failed.
 */
static int get_modify_set(const struct settable *s, void *h, void *v,
			  const struct assignment *as, int nr)
{
	int ret, a;

	ret = s->get(h, v);
	if (ret)
		return lib_fail(s->get_fn, ret);
	if (!nr)
		return 0;
	for (a = 0; a < nr; a++)
		field_set(v, as[a].field, as[a].value);
	ret = s->set(h, v);
	if (ret)
		return lib_fail(s->set_fn, ret);
	ret = s->get(h, v);
	if (ret)
		return lib_fail(s->get_fn, ret);
	return 0;
}

static int limits_get(void *r, void *v)
{
	return retire_get_limits(r, v);
}

static int limits_set(void *r, const void *v)
{
	return retire_set_limits(r, v);
}

/*
 * Limits belong to the context that sets them: this one opens a context of
 * its own, shows the caps and that context's limits, and with pairs sets
 * them there (would the module accept them?). Nothing outlives the command.
 */
static int cmd_limits(const char *dev, int argc, char **argv)
{
	const struct settable s = {
		.cmd = "limits",
		.fields = limit_fields,
		.nr_fields = nr_limit_fields,
		.get_fn = "retire_get_limits",
		.set_fn = "retire_set_limits",
		.get = limits_get,
		.set = limits_set,
	};
	struct retire_limits limits;
	struct assignment *as;
	struct retire_info info;
	struct retire *r;
	int json = 0, ret, nr;

	ret = parse_common(argc, argv, &json);
	if (ret >= 0)
		return ret;
	nr = argc - optind;
	ret = parse_settings(&s, nr, argv + optind, &as);
	if (ret >= 0)
		return ret;

	ret = retire_open_device(&r, dev, 0);
	if (ret) {
		ret = lib_fail("retire_open_device", ret);
		goto out_free;
	}
	ret = retire_get_info(r, &info);
	if (ret)
		ret = lib_fail("retire_get_info", ret);
	else
		ret = get_modify_set(&s, r, &limits, as, nr);
	retire_close_device(r);
	if (!ret)
		print_limits(&info.caps, &limits, nr > 0, json);
out_free:
	free(as);
	return ret;
}

static int engine_reset(const char *dev, int json)
{
	struct retire *r;
	int ret;

	ret = retire_open_device(&r, dev, 0);
	if (ret)
		return lib_fail("retire_open_device", ret);
	ret = retire_reset_sim(r);
	retire_close_device(r);
	if (ret)
		return lib_fail("retire_reset_sim", ret);
	print_engine_reset(json);
	return RETIRECTL_EXIT_OK;
}

static int engine_get(void *nl, void *v)
{
	return retire_nl_get_sim_config(nl, v);
}

static int engine_set(void *nl, const void *v)
{
	return retire_nl_set_sim_config(nl, v);
}

static int cmd_engine(const char *dev, int argc, char **argv)
{
	/* engine-set sets every knob (one not sent is 0): a write is whole */
	const struct settable s = {
		.cmd = "engine",
		.fields = engine_fields,
		.nr_fields = nr_engine_fields,
		.get_fn = "retire_nl_get_sim_config",
		.set_fn = "retire_nl_set_sim_config",
		.get = engine_get,
		.set = engine_set,
	};
	struct retire_sim_config cfg;
	struct assignment *as;
	struct retire_nl *nl;
	int json = 0, ret, nr;

	ret = parse_common(argc, argv, &json);
	if (ret >= 0)
		return ret;
	nr = argc - optind;
	if (nr && !strcmp(argv[optind], "reset")) {
		if (nr != 1)
			return bad_usage("engine reset: unexpected argument '%s'",
					 argv[optind + 1]);
		return engine_reset(dev, json);
	}
	ret = parse_settings(&s, nr, argv + optind, &as);
	if (ret >= 0)
		return ret;

	ret = retire_open_netlink(&nl);
	if (ret) {
		ret = lib_fail("retire_open_netlink", ret);
		goto out_free;
	}
	ret = get_modify_set(&s, nl, &cfg, as, nr);
	retire_close_netlink(nl);
	if (!ret)
		print_engine(&cfg, json);
out_free:
	free(as);
	return ret;
}

/* ---- monitor ------------------------------------------------------------- */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/*
 * SIGINT and SIGTERM set the stop flag, and are blocked everywhere except
 * inside ppoll(), which waits with *@wait_mask: a signal ends a wait, never
 * lands between the flag's test and the wait (no lost wake-up).
 */
static void block_stop_signals(sigset_t *wait_mask)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, wait_mask);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGTERM);
}

static int parse_count(const char *s, unsigned long *v)
{
	__u64 x;

	if (parse_u64(s, &x) || !x || x > ULONG_MAX)
		return -1;
	*v = x;
	return 0;
}

static int parse_seconds(const char *s, double *v)
{
	char *end;

	/* strtod() would take leading space, a sign, "inf" and "nan" */
	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
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

static int cmd_monitor(const char *dev, int argc, char **argv)
{
	struct retire_event ev[64];
	struct retire_monitor *m;
	unsigned long count = 0, seen = 0;
	double seconds = -1, deadline = 0, left;
	sigset_t orig;
	struct timespec ts;
	struct pollfd pfd;
	unsigned int want;
	int json = 0, opt, ret, n, i, status = RETIRECTL_EXIT_OK;

	opterr = 0;
	while ((opt = getopt(argc, argv, "+:jc:t:h")) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		case 'c':
			if (parse_count(optarg, &count))
				return bad_usage("monitor: bad COUNT '%s': a positive integer",
						 optarg);
			break;
		case 't':
			if (parse_seconds(optarg, &seconds))
				return bad_usage("monitor: bad SECONDS '%s': a non-negative number",
						 optarg);
			break;
		case 'h':
			usage(stdout);
			return RETIRECTL_EXIT_OK;
		default:
			return bad_option(argv[0], opt);
		}
	}
	if (optind != argc)
		return bad_usage("monitor: unexpected argument '%s'",
				 argv[optind]);

	block_stop_signals(&orig);

	ret = retire_open_monitor(&m, RETIRE_MONITOR_STALE |
				  RETIRE_MONITOR_HEALTH);
	if (ret)
		return lib_fail("retire_open_monitor", ret);
	/* one line per event, as it comes, even into a pipe */
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (seconds >= 0)
		deadline = now_monotonic() + seconds;
	pfd.fd = retire_get_monitor_fd(m);
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
			status = RETIRECTL_EXIT_FAIL;
			break;
		}
		if (!ret)
			continue;
		if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL) &&
		    !(pfd.revents & POLLIN)) {
			fprintf(stderr, "retirectl: ppoll: socket error\n");
			status = RETIRECTL_EXIT_FAIL;
			break;
		}
		/* everything ready, but never more than COUNT in all */
		do {
			want = ARRAY_SIZE(ev);
			if (count && count - seen < want)
				want = count - seen;
			n = retire_read_events(m, ev, want);
			if (n == -ENOBUFS) {
				/* the socket overflowed: go on, but say so */
				fprintf(stderr,
					"retirectl: retire_read_events: %s: notifications lost\n",
					strerror(ENOBUFS));
				n = 1;
				continue;
			}
			if (n < 0) {
				status = lib_fail("retire_read_events", n);
				break;
			}
			for (i = 0; i < n; i++)
			{
				print_event(&ev[i], json);
				putchar('\n');
			}
			seen += n;
		} while (n > 0 && (!count || seen < count) && !stop_signal);
		if (status)
			break;
	}
	retire_close_monitor(m);
	return status;
}

/* the library call failed for the context @id: say what that means */
static int history_fail(__u64 id, int ret)
{
	lib_fail("retire_read_history", ret);
	if (ret == -ENOENT)
		fprintf(stderr,
			"retirectl: history: no context has id %llu ('retirectl history' lists those you may read)\n",
			(unsigned long long)id);
	else if (ret == -EPERM)
		fprintf(stderr,
			"retirectl: history: context %llu was opened by another user: reading it needs CAP_SYS_ADMIN\n",
			(unsigned long long)id);
	else if (ret == -ENOTTY)
		fprintf(stderr,
			"retirectl: history: the module keeps no history (it lacks RETIRE_FEAT_HISTORY)\n");
	return RETIRECTL_EXIT_FAIL;
}

/*
 * Every context the caller may read, from the netlink dump (which lists
 * them by the rule RETIRE_IOC_HISTORY applies), each with its counts. The
 * dump comes first: the context this command opens is not listed; one
 * that is freed meanwhile is left out.
 */
static int history_list(const char *dev, int json)
{
	struct ctx_history *h = NULL;
	struct ctx_list l = { 0 };
	struct retire_nl *nl;
	struct retire *r;
	size_t i, n = 0;
	int ret;

	ret = retire_open_netlink(&nl);
	if (ret)
		return lib_fail("retire_open_netlink", ret);
	ret = retire_nl_dump_stats(nl, collect_ctx, &l);
	retire_close_netlink(nl);
	if (ret) {
		ret = lib_fail("retire_nl_dump_stats", ret);
		goto out_free;
	}
	h = calloc(l.n ? l.n : 1, sizeof(*h));
	if (!h) {
		ret = lib_fail("calloc", -ENOMEM);
		goto out_free;
	}
	ret = retire_open_device(&r, dev, 0);
	if (ret) {
		ret = lib_fail("retire_open_device", ret);
		goto out_free;
	}
	for (i = 0; i < l.n; i++) {
		ret = retire_read_history(r, l.v[i].ctx_id, NULL, 0,
					  &h[n].info);
		if (ret == -ENOENT)
			continue;	/* gone since the dump */
		if (ret < 0) {
			ret = history_fail(l.v[i].ctx_id, ret);
			goto out;
		}
		h[n].ctx_id = l.v[i].ctx_id;
		h[n].pid = l.v[i].pid;
		ctx_describe(h[n].ctx_id, h[n].pid, &h[n].desc);
		n++;
	}
	print_history_list(h, n, json);
	ret = RETIRECTL_EXIT_OK;
out:
	retire_close_device(r);
out_free:
	free(h);
	free(l.v);
	return ret;
}

static int cmd_history(const char *dev, int argc, char **argv)
{
	struct retire_history_event ev[RETIRE_HISTORY_LEN];
	struct retire_history_info info;
	struct retire *r;
	int json = 0, ret, n;
	__u64 id;

	ret = parse_common(argc, argv, &json);
	if (ret >= 0)
		return ret;
	if (optind == argc)
		return history_list(dev, json);
	if (argc - optind > 1)
		return bad_usage("history: unexpected argument '%s'",
				 argv[optind + 1]);
	ret = parse_u64(argv[optind], &id);
	if (ret == -ERANGE)
		return bad_usage("history: bad CTX-ID '%s': out of range",
				 argv[optind]);
	if (ret || !id)
		return bad_usage("history: bad CTX-ID '%s': a context's id, 1 or more, as 'retirectl history' lists them",
				 argv[optind]);

	ret = retire_open_device(&r, dev, 0);
	if (ret)
		return lib_fail("retire_open_device", ret);
	n = retire_read_history(r, id, ev, ARRAY_SIZE(ev), &info);
	retire_close_device(r);
	if (n < 0)
		return history_fail(id, n);
	print_history(&info, ev, n, json);
	return RETIRECTL_EXIT_OK;
}

static int top_read(struct retire_nl *nl, struct top_sample *s)
{
	double t0 = now_monotonic();
	int ret;

	s->ctxs.n = 0;
	ret = retire_nl_get_stats(nl, &s->module);
	if (ret)
		return lib_fail("retire_nl_get_stats", ret);
	ret = retire_nl_dump_stats(nl, collect_ctx, &s->ctxs);
	if (ret)
		return lib_fail("retire_nl_dump_stats", ret);
	/* the reads take a moment: they count as made at its middle */
	s->t = (t0 + now_monotonic()) / 2;
	return 0;
}

/* the shortest interval: rates over less say little, and cost a dump each */
#define TOP_MIN_INTERVAL	0.1

static int cmd_top(const char *dev, int argc, char **argv)
{
	struct top_sample s[2] = { 0 }, *prev = &s[0], *cur = &s[1], *t;
	unsigned long count = 0, shown = 0;
	double interval = 1, next, left;
	struct retire_nl *nl;
	sigset_t orig;
	struct timespec ts;
	int json = 0, opt, ret, clear;

	opterr = 0;
	while ((opt = getopt(argc, argv, "+:jn:d:h")) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		case 'n':
			if (parse_count(optarg, &count))
				return bad_usage("top: bad COUNT '%s': a positive integer",
						 optarg);
			break;
		case 'd':
			if (parse_seconds(optarg, &interval) ||
			    interval < TOP_MIN_INTERVAL)
				return bad_usage("top: bad SECONDS '%s': a number, at least 0.1",
						 optarg);
			break;
		case 'h':
			usage(stdout);
			return RETIRECTL_EXIT_OK;
		default:
			return bad_option(argv[0], opt);
		}
	}
	if (optind != argc)
		return bad_usage("top: unexpected argument '%s'",
				 argv[optind]);

	block_stop_signals(&orig);

	ret = retire_open_netlink(&nl);
	if (ret)
		return lib_fail("retire_open_netlink", ret);
	clear = !json && isatty(STDOUT_FILENO);
	/* JSON Lines and plain screens reach a pipe as they are made */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = top_read(nl, prev);
	if (ret)
		goto out;
	next = prev->t + interval;
	while (!stop_signal && (!count || shown < count)) {
		left = next - now_monotonic();
		if (left > 0) {
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
			if (ppoll(NULL, 0, &ts, &orig) < 0 && errno != EINTR) {
				fprintf(stderr, "retirectl: ppoll: %s\n",
					strerror(errno));
				ret = RETIRECTL_EXIT_FAIL;
				break;
			}
			continue;	/* woken early: look again */
		}
		ret = top_read(nl, cur);
		if (ret)
			break;
		print_top(prev, cur, json, clear, !shown);
		fflush(stdout);
		shown++;
		t = prev;
		prev = cur;
		cur = t;
		/* on time, but never a burst of screens to catch up */
		next += interval;
		if (next < prev->t)
			next = prev->t + interval;
	}
out:
	free(s[0].ctxs.v);
	free(s[1].ctxs.v);
	retire_close_netlink(nl);
	return ret;
}

/* ---- main ----------------------------------------------------------------- */

/* every command; scripts/check.sh checks that -h lists each */
static const struct command {
	const char *name;
	int (*fn)(const char *dev, int argc, char **argv);
} commands[] = {
	{ "info", cmd_info },
	{ "stats", cmd_stats },
	{ "monitor", cmd_monitor },
	{ "limits", cmd_limits },
	{ "engine", cmd_engine },
	{ "history", cmd_history },
	{ "top", cmd_top },
	{ "demo", cmd_demo },
};

int main(int argc, char **argv)
{
	const char *dev = NULL;
	const char *cmd;
	int opt, ret;
	size_t i;

	/* our messages, not getopt()'s: see bad_option() */
	opterr = 0;
	/* "+": options after the command are the command's */
	while ((opt = getopt(argc, argv, "+:d:h")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'h':
			usage(stdout);
			return RETIRECTL_EXIT_OK;
		default:
			return bad_option(NULL, opt);
		}
	}
	if (optind >= argc)
		return bad_usage("no command");
	cmd = argv[optind];
	argc -= optind;
	argv += optind;
	optind = 1;
	/* a command that does not set it gets getopt()'s own messages */
	opterr = 1;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(cmd, commands[i].name))
			break;
	if (i == ARRAY_SIZE(commands))
		return bad_usage("unknown command '%s'", cmd);
	ret = commands[i].fn(dev, argc, argv);

	/* output that never arrived is a failure, whatever the command did */
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "retirectl: write: %s\n", strerror(errno));
		if (ret == RETIRECTL_EXIT_OK)
			ret = RETIRECTL_EXIT_FAIL;
	}
	return ret;
}
