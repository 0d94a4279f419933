// SPDX-License-Identifier: MIT
/*
 * retirectl: inspect and drive the retire module from the command line.
 *
 * Every command reads what it needs first and prints afterwards, so that a
 * failure prints nothing on standard output: only "retirectl: <library
 * function>: <strerror> (<ENAME>)" on standard error. Exit status:
 * RETIRECTL_EXIT_*.
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
#include "retirectl.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const feature_names[] = {
	"genl",
	"requests",
	"sim",
	"admission",
	"enter",
	"rings",
	"one_record",
	"engines",
	"edu",
	"history",
};

_Static_assert((1ULL << ARRAY_SIZE(feature_names)) - 1 == RETIRE_FEAT_ALL,
	       "every feature bit has a name");

/* RETIRE_SIM_F_* by bit, as "engine flags=" takes and prints them */
static const char *const sim_flag_names[] = {
	"blocked",
	"hang",
	"cancel_running",
	"violate",
	"inline",
};

_Static_assert((1U << ARRAY_SIZE(sim_flag_names)) - 1 == RETIRE_SIM_F_ALL,
	       "every sim engine flag has a name");

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
	STAT(device_outstanding),
};
#undef STAT

#define NSTATS	ARRAY_SIZE(stat_fields)

_Static_assert(NSTATS == RETIRE_A_STATS_DEVICE_OUTSTANDING -
			 RETIRE_A_STATS_ADMITTED + 1,
	       "every counter of the stats attribute set has a name");

/* a field of a uapi structure that the command line reads or sets */
struct field {
	const char *name;
	size_t offset;
	size_t size;		/* 4 or 8 */
};

#define FIELD(type, name)						\
	{ #name, offsetof(type, name), sizeof(((type *)0)->name) }

static const struct field limit_fields[] = {
	FIELD(struct retire_limits, max_unretired),
	FIELD(struct retire_limits, max_active),
	FIELD(struct retire_limits, max_active_per_key),
	FIELD(struct retire_limits, max_waiting),
	FIELD(struct retire_limits, max_tokens),
	FIELD(struct retire_limits, max_buffers),
	FIELD(struct retire_limits, max_reserved_bytes),
	FIELD(struct retire_limits, max_pinned_bytes),
	FIELD(struct retire_limits, max_pool_bytes),
	FIELD(struct retire_limits, watchdog_ns),
};

_Static_assert(offsetof(struct retire_limits, watchdog_ns) + sizeof(__u64) ==
	       sizeof(struct retire_limits),
	       "every field of struct retire_limits has a name");

/* flags first: it is printed and parsed apart */
static const struct field engine_fields[] = {
	FIELD(struct retire_sim_config, flags),
	FIELD(struct retire_sim_config, latency_ns),
	FIELD(struct retire_sim_config, tick_ns),
	FIELD(struct retire_sim_config, bytes_per_tick),
	FIELD(struct retire_sim_config, fail_every),
	FIELD(struct retire_sim_config, fail_submit_every),
	FIELD(struct retire_sim_config, seed),
	FIELD(struct retire_sim_config, rate_bps),
	FIELD(struct retire_sim_config, burst_bytes),
	FIELD(struct retire_sim_config, finish_ns),
};
#undef FIELD

_Static_assert(ARRAY_SIZE(engine_fields) ==
	       RETIRE_A_ENGINE_MAX - RETIRE_A_ENGINE_FLAGS + 1,
	       "every attribute of the engine attribute set has a name");

static const char *const health_names[] = {
	[RETIRE_HEALTH_EVENT_QUARANTINE] = "quarantine",
	[RETIRE_HEALTH_EVENT_RESET] = "reset",
	[RETIRE_HEALTH_EVENT_REAPED] = "reaped",
};

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
	usage_names(f, limit_fields, ARRAY_SIZE(limit_fields));
	fprintf(f,
		"  engine [-j] [NAME=VALUE ...]\n"
		"          the sim engine's config, over generic netlink; with\n"
		"          pairs, change those fields (CAP_SYS_ADMIN)\n");
	usage_names(f, engine_fields, ARRAY_SIZE(engine_fields));
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

int lib_fail(const char *fn, int ret)
{
	int err = ret < 0 ? -ret : EIO;
	const char *name = strerrorname_np(err);

	fprintf(stderr, "retirectl: %s: %s (%s)\n", fn, strerror(err),
		name ? name : "?");
	return RETIRECTL_EXIT_FAIL;
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

static __u64 field_get(const void *base, const struct field *f)
{
	__u32 v32;
	__u64 v;

	if (f->size == sizeof(v32)) {
		memcpy(&v32, (const char *)base + f->offset, sizeof(v32));
		return v32;
	}
	memcpy(&v, (const char *)base + f->offset, sizeof(v));
	return v;
}

static void field_set(void *base, const struct field *f, __u64 v)
{
	__u32 v32 = (__u32)v;

	if (f->size == sizeof(v32))
		memcpy((char *)base + f->offset, &v32, sizeof(v32));
	else
		memcpy((char *)base + f->offset, &v, sizeof(v));
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
		for (i = 0; i < ARRAY_SIZE(sim_flag_names); i++)
			if (strlen(sim_flag_names[i]) == len &&
			    !strncmp(p, sim_flag_names[i], len))
				break;
		if (i == ARRAY_SIZE(sim_flag_names))
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

/* ---- JSON ----------------------------------------------------------------- */

/*
 * The UTF-8 sequence at @p (not NUL): its length if well-formed (*ok set),
 * else the length of its ill-formed part to replace with one U+FFFD (*ok
 * clear): the "maximal subpart" of Unicode's chapter 3, as most decoders
 * count them.
 */
static size_t utf8_seq(const unsigned char *p, int *ok)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	*ok = 1;
	if (p[0] < 0x80)
		return 1;
	*ok = 0;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		if (p[0] == 0xe0)
			lo = 0xa0;	/* no overlong form */
		if (p[0] == 0xed)
			hi = 0x9f;	/* no surrogate */
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		if (p[0] == 0xf0)
			lo = 0x90;
		if (p[0] == 0xf4)
			hi = 0x8f;	/* nothing above U+10FFFF */
	} else {
		return 1;
	}
	if (p[1] < lo || p[1] > hi)
		return 1;
	/* a NUL is no continuation byte: nothing past it is read */
	for (i = 2; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return i;
	*ok = 1;
	return len;
}

/*
 * @s as a JSON string: quotes, backslashes and control characters escaped;
 * what is not well-formed UTF-8 (a path may hold any byte) is printed as
 * U+FFFD, as JSON text must be UTF-8.
 */
void json_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;
	int ok;

	putchar('"');
	while (*p) {
		switch (*p) {
		case '"':
			fputs("\\\"", stdout);
			break;
		case '\\':
			fputs("\\\\", stdout);
			break;
		case '\b':
			fputs("\\b", stdout);
			break;
		case '\f':
			fputs("\\f", stdout);
			break;
		case '\n':
			fputs("\\n", stdout);
			break;
		case '\r':
			fputs("\\r", stdout);
			break;
		case '\t':
			fputs("\\t", stdout);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				printf("\\u%04x", *p);
				break;
			}
			n = utf8_seq(p, &ok);
			if (ok)
				fwrite(p, 1, n, stdout);
			else
				fputs("\\ufffd", stdout);
			p += n;
			continue;
		}
		p++;
	}
	putchar('"');
}

/* {"name":value,...} of @fields in @base */
static void json_fields(const void *base, const struct field *fields,
			size_t nr)
{
	size_t i;

	putchar('{');
	for (i = 0; i < nr; i++)
		printf("%s\"%s\":%llu", i ? "," : "", fields[i].name,
		       (unsigned long long)field_get(base, &fields[i]));
	putchar('}');
}

/* ["name",...] of the set bits of @bits; unknown bits as "bitN" */
static void json_bit_names(__u64 bits, const char *const *names, size_t nr)
{
	const char *sep = "";
	unsigned int i;

	putchar('[');
	for (i = 0; i < 64; i++) {
		if (!(bits & (1ULL << i)))
			continue;
		if (i < nr)
			printf("%s\"%s\"", sep, names[i]);
		else
			printf("%s\"bit%u\"", sep, i);
		sep = ",";
	}
	putchar(']');
}

/* text: "0x5 genl sim" */
static void print_bit_names(__u64 bits, const char *const *names, size_t nr)
{
	unsigned int i;

	printf("0x%" PRIx64, (uint64_t)bits);
	for (i = 0; i < 64; i++) {
		if (!(bits & (1ULL << i)))
			continue;
		if (i < nr)
			printf(" %s", names[i]);
		else
			printf(" bit%u", i);
	}
	printf("\n");
}

/* ---- info ----------------------------------------------------------------- */

static int read_info(const char *dev, struct retire_info *info)
{
	struct retire *r;
	int ret;

	ret = retire_open_device(&r, dev, 0);
	if (ret)
		return lib_fail("retire_open_device", ret);
	ret = retire_get_info(r, info);
	retire_close_device(r);
	if (ret)
		return lib_fail("retire_get_info", ret);
	return 0;
}

static void print_info(const char *path, const struct retire_info *info,
		       int family, const struct retire_info *nlinfo, int json)
{
	size_t i;

	if (json) {
		printf("{\"device\":");
		json_string(path);
		printf(",\"abi_version\":%u,\"features\":%llu,"
		       "\"feature_names\":", info->abi_version,
		       (unsigned long long)info->features);
		json_bit_names(info->features, feature_names,
			       ARRAY_SIZE(feature_names));
		printf(",\"caps\":");
		json_fields(&info->caps, limit_fields,
			    ARRAY_SIZE(limit_fields));
		printf(",\"netlink\":{\"family_id\":%d,\"abi_version\":%u,"
		       "\"features\":%llu}}\n", family, nlinfo->abi_version,
		       (unsigned long long)nlinfo->features);
		return;
	}
	printf("device              %s\n", path);
	printf("abi version         %u\n", info->abi_version);
	printf("features            ");
	print_bit_names(info->features, feature_names,
			ARRAY_SIZE(feature_names));
	printf("caps per context\n");
	for (i = 0; i < ARRAY_SIZE(limit_fields); i++)
		printf("  %-20s%llu\n", limit_fields[i].name,
		       (unsigned long long)field_get(&info->caps,
						     &limit_fields[i]));
	printf("netlink family      retire, id %d\n", family);
	printf("netlink abi/features %u ", nlinfo->abi_version);
	print_bit_names(nlinfo->features, feature_names,
			ARRAY_SIZE(feature_names));
}

static int cmd_info(const char *dev, int argc, char **argv)
{
	struct retire_info info, nlinfo;
	struct retire_nl *nl;
	int json = 0, ret, family;

	ret = parse_common(argc, argv, &json);
	if (ret >= 0)
		return ret;
	if (optind != argc)
		return bad_usage("info: unexpected argument '%s'",
				 argv[optind]);

	ret = read_info(dev, &info);
	if (ret)
		return ret;
	ret = retire_open_netlink(&nl);
	if (ret)
		return lib_fail("retire_open_netlink", ret);
	ret = retire_query_info(nl, &nlinfo);
	family = retire_get_family_id(nl);
	retire_close_netlink(nl);
	if (ret)
		return lib_fail("retire_query_info", ret);

	print_info(dev ? dev : LIBRETIRE_DEFAULT_PATH, &info, family, &nlinfo,
		   json);
	if (nlinfo.abi_version != info.abi_version ||
	    nlinfo.features != info.features) {
		fprintf(stderr,
			"retirectl: retire_query_info: netlink says abi %u features 0x%llx, the ioctl abi %u features 0x%llx\n",
			nlinfo.abi_version,
			(unsigned long long)nlinfo.features,
			info.abi_version, (unsigned long long)info.features);
		return RETIRECTL_EXIT_FAIL;
	}
	return RETIRECTL_EXIT_OK;
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

static void print_stats(const struct retire_stats *module,
			const struct ctx_list *l, int json)
{
	size_t i;

	if (json) {
		printf("{\"module\":");
		print_stats_json(module);
		printf(",\"contexts\":[");
		for (i = 0; i < l->n; i++) {
			printf("%s{\"ctx_id\":%llu,\"pid\":%u,\"stats\":",
			       i ? "," : "",
			       (unsigned long long)l->v[i].ctx_id,
			       l->v[i].pid);
			print_stats_json(&l->v[i].stats);
			putchar('}');
		}
		printf("]}\n");
		return;
	}
	printf("module\n");
	print_stats_text(module);
	for (i = 0; i < l->n; i++) {
		printf("context %llu pid %u\n",
		       (unsigned long long)l->v[i].ctx_id, l->v[i].pid);
		print_stats_text(&l->v[i].stats);
	}
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
	ret = retire_query_stats(nl, &module);
	if (ret) {
		ret = lib_fail("retire_query_stats", ret);
		goto out;
	}
	ret = retire_dump_stats(nl, collect_ctx, &l);
	if (ret) {
		ret = lib_fail("retire_dump_stats", ret);
		goto out;
	}

	print_stats(&module, &l, json);
out:
	free(l.v);
	retire_close_netlink(nl);
	return ret;
}

/* ---- limits --------------------------------------------------------------- */

/* @set: @limits are what a set left, not a new context's defaults */
static void print_limits(const struct retire_limits *caps,
			 const struct retire_limits *limits, int set, int json)
{
	size_t i;

	if (json) {
		printf("{\"caps\":");
		json_fields(caps, limit_fields, ARRAY_SIZE(limit_fields));
		printf(",\"limits\":");
		json_fields(limits, limit_fields, ARRAY_SIZE(limit_fields));
		printf("}\n");
		return;
	}
	printf("%-22s%-22s%s\n", "", "cap", set ? "accepted" : "default");
	for (i = 0; i < ARRAY_SIZE(limit_fields); i++)
		printf("%-22s%-22llu%llu\n", limit_fields[i].name,
		       (unsigned long long)field_get(caps, &limit_fields[i]),
		       (unsigned long long)field_get(limits,
						     &limit_fields[i]));
}

/*
 * Limits belong to the context that sets them: this one opens a context of
 * its own, shows the caps and that context's limits, and with pairs sets
 * them there (would the module accept them?). Nothing outlives the command.
 */
static int cmd_limits(const char *dev, int argc, char **argv)
{
	struct assignment *as = NULL;
	struct retire_limits limits;
	struct retire_info info;
	struct retire *r;
	int json = 0, ret, nr, a;

	ret = parse_common(argc, argv, &json);
	if (ret >= 0)
		return ret;
	nr = argc - optind;
	if (nr) {
		as = calloc(nr, sizeof(*as));
		if (!as)
			return lib_fail("calloc", -ENOMEM);
		ret = parse_assignments("limits", nr, argv + optind,
					limit_fields,
					ARRAY_SIZE(limit_fields), as);
		if (ret >= 0)
			goto out_free;
	}

	ret = retire_open_device(&r, dev, 0);
	if (ret) {
		ret = lib_fail("retire_open_device", ret);
		goto out_free;
	}
	ret = retire_get_info(r, &info);
	if (ret) {
		ret = lib_fail("retire_get_info", ret);
		goto out;
	}
	ret = retire_get_limits(r, &limits);
	if (ret) {
		ret = lib_fail("retire_get_limits", ret);
		goto out;
	}
	if (nr) {
		for (a = 0; a < nr; a++)
			field_set(&limits, as[a].field, as[a].value);
		ret = retire_set_limits(r, &limits);
		if (ret) {
			ret = lib_fail("retire_set_limits", ret);
			goto out;
		}
		/* what the module holds now, not what was asked */
		ret = retire_get_limits(r, &limits);
		if (ret) {
			ret = lib_fail("retire_get_limits", ret);
			goto out;
		}
	}

	print_limits(&info.caps, &limits, nr > 0, json);
	ret = RETIRECTL_EXIT_OK;
out:
	retire_close_device(r);
out_free:
	free(as);
	return ret;
}

/* ---- engine --------------------------------------------------------------- */

static void print_engine(const struct retire_sim_config *cfg, int json)
{
	size_t i;

	if (json) {
		printf("{\"flags\":%u,\"flag_names\":", cfg->flags);
		json_bit_names(cfg->flags, sim_flag_names,
			       ARRAY_SIZE(sim_flag_names));
		for (i = 1; i < ARRAY_SIZE(engine_fields); i++)
			printf(",\"%s\":%llu", engine_fields[i].name,
			       (unsigned long long)field_get(cfg,
							     &engine_fields[i]));
		printf("}\n");
		return;
	}
	printf("%-20s", "flags");
	print_bit_names(cfg->flags, sim_flag_names,
			ARRAY_SIZE(sim_flag_names));
	for (i = 1; i < ARRAY_SIZE(engine_fields); i++)
		printf("%-20s%llu\n", engine_fields[i].name,
		       (unsigned long long)field_get(cfg, &engine_fields[i]));
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
	printf(json ? "{\"reset\":true}\n" : "engine reset\n");
	return RETIRECTL_EXIT_OK;
}

/*
 * engine-get, or a read-modify-write with engine-set. Another writer may
 * come between the read and the write: engine-set sets every knob (one
 * not sent is 0), so the last write wins whole.
 */
static int cmd_engine(const char *dev, int argc, char **argv)
{
	struct assignment *as = NULL;
	struct retire_sim_config cfg;
	struct retire_nl *nl;
	int json = 0, ret, nr, a;

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
	if (nr) {
		as = calloc(nr, sizeof(*as));
		if (!as)
			return lib_fail("calloc", -ENOMEM);
		ret = parse_assignments("engine", nr, argv + optind,
					engine_fields,
					ARRAY_SIZE(engine_fields), as);
		if (ret >= 0)
			goto out_free;
	}

	ret = retire_open_netlink(&nl);
	if (ret) {
		ret = lib_fail("retire_open_netlink", ret);
		goto out_free;
	}
	ret = retire_query_engine(nl, &cfg);
	if (ret) {
		ret = lib_fail("retire_query_engine", ret);
		goto out;
	}
	if (nr) {
		for (a = 0; a < nr; a++)
			field_set(&cfg, as[a].field, as[a].value);
		ret = retire_configure_engine(nl, &cfg);
		if (ret) {
			ret = lib_fail("retire_configure_engine", ret);
			goto out;
		}
		/* what the module holds now */
		ret = retire_query_engine(nl, &cfg);
		if (ret) {
			ret = lib_fail("retire_query_engine", ret);
			goto out;
		}
	}
	print_engine(&cfg, json);
	ret = RETIRECTL_EXIT_OK;
out:
	retire_close_netlink(nl);
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

static const char *health_name(__u32 event, char *buf, size_t len)
{
	if (event < ARRAY_SIZE(health_names) && health_names[event])
		return health_names[event];
	snprintf(buf, len, "%u", event);
	return buf;
}

void print_event(const struct retire_event *ev, int json)
{
	char buf[16];
	const char *name;

	switch (ev->type) {
	case RETIRE_CMD_STALE_NTF:
		printf(json ?
		       "{\"type\":\"stale\",\"ctx_id\":%llu,\"pid\":%u,"
		       "\"engine\":%llu,\"cancel\":%llu,\"token\":%llu,"
		       "\"user\":%llu,\"published\":%llu}" :
		       "stale ctx %llu pid %u engine %llu cancel %llu "
		       "token %llu user %llu published %llu",
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
		       "\"pid\":%u,\"quarantined_now\":%llu}" :
		       "health %s ctx %llu pid %u quarantined_now %llu",
		       name, (unsigned long long)ev->ctx_id, ev->pid,
		       (unsigned long long)ev->quarantined_now);
		break;
	}
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

/* ---- what a context is: comm and engine ---------------------------------- */

/* where debugfs shows each context (root only; optional) */
#define DEBUGFS_CTX	"/sys/kernel/debug/retire/%llu/context"

/*
 * A context's command name and engine, as far as this caller can see them:
 * the opener's command and the engine from the context's debugfs file
 * (root, debugfs mounted), else the command of the owner's process now
 * from /proc (no engine). Empty strings for what is not known.
 */
struct ctx_desc {
	char comm[17];
	char engine[32];
};

static void read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

static void ctx_describe(__u64 ctx_id, __u32 pid, struct ctx_desc *d)
{
	char path[64], buf[2048], *line, *save;
	unsigned int engine;
	char name[17];

	memset(d, 0, sizeof(*d));
	snprintf(path, sizeof(path), DEBUGFS_CTX, (unsigned long long)ctx_id);
	read_small(path, buf, sizeof(buf));
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "comm ", 5))
			snprintf(d->comm, sizeof(d->comm), "%.16s", line + 5);
		else if (sscanf(line, "engine %u %16s", &engine, name) == 2)
			snprintf(d->engine, sizeof(d->engine), "%u %.16s", engine,
				 name);
	}
	if (!d->comm[0] && pid) {
		snprintf(path, sizeof(path), "/proc/%u/comm", pid);
		read_small(path, buf, sizeof(buf));
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(d->comm, sizeof(d->comm), "%.16s", buf);
	}
}

/* "STR" or null */
static void json_string_or_null(const char *s)
{
	if (s && *s)
		json_string(s);
	else
		fputs("null", stdout);
}

/* ---- history --------------------------------------------------------------- */

static const char *const event_names[] = {
	[RETIRE_EV_SUBMIT] = "submit",
	[RETIRE_EV_ACTIVATE] = "activate",
	[RETIRE_EV_TERMINAL] = "terminal",
	[RETIRE_EV_TIMEOUT] = "timeout",
	[RETIRE_EV_CANCEL] = "cancel",
	[RETIRE_EV_BORROW] = "borrow",
	[RETIRE_EV_RETURN] = "return",
	[RETIRE_EV_HANDOFF] = "handoff",
	[RETIRE_EV_RETIRE] = "retire",
	[RETIRE_EV_STALE] = "stale",
	[RETIRE_EV_QUARANTINE] = "quarantine",
	[RETIRE_EV_RESET] = "reset",
};

_Static_assert(ARRAY_SIZE(event_names) == RETIRE_EV_RESET + 1,
	       "every history event has a name");

static const char *const outcome_names[] = {
	[RETIRE_OUTCOME_COMPLETED] = "completed",
	[RETIRE_OUTCOME_FAILED] = "failed",
	[RETIRE_OUTCOME_CANCELLED] = "cancelled",
	[RETIRE_OUTCOME_TIMED_OUT] = "timed_out",
	[RETIRE_OUTCOME_CANCEL_REQUESTED] = "cancel_requested",
	[RETIRE_OUTCOME_OUTSTANDING_WORK] = "outstanding_work",
	[RETIRE_OUTCOME_UNKNOWN] = "unknown",
	[RETIRE_OUTCOME_STALE] = "stale",
	[RETIRE_OUTCOME_RETIRED] = "retired",
};

/* RETIRE_STALE_*: the stale counter an event moved, as stats names it */
static const char *const stale_names[] = {
	[RETIRE_STALE_ENGINE] = "engine",
	[RETIRE_STALE_CANCEL] = "cancel",
	[RETIRE_STALE_TOKEN] = "token",
	[RETIRE_STALE_USER] = "user",
	[RETIRE_STALE_PUBLISHED] = "published",
};

static const char *const kind_names[] = {
	[RETIRE_KIND_BUF] = "buf",
	[RETIRE_KIND_REQ] = "req",
	[RETIRE_KIND_TOKEN] = "token",
};

/* RETIRE_DEV_* by bit */
static const char *const dev_flag_names[] = {
	"read",
	"write",
};

_Static_assert((1U << ARRAY_SIZE(dev_flag_names)) - 1 == RETIRE_DEV_ALL,
	       "every device-access flag has a name");

/* @names[@v], or @prefix followed by the number for what has no name */
static const char *name_of(const char *const *names, size_t nr, __u64 v,
			   const char *prefix, char *buf, size_t len)
{
	if (v < nr && names[v])
		return names[v];
	snprintf(buf, len, "%s%llu", prefix, (unsigned long long)v);
	return buf;
}

#define NAME_OF(names, v, prefix, buf)					\
	name_of(names, ARRAY_SIZE(names), v, prefix, buf, sizeof(buf))

/* a -errno as its name ("EIO"), NULL for 0, else the number */
static const char *errno_text(__s32 v, char *buf, size_t len)
{
	const char *name;

	if (!v)
		return NULL;
	name = v < 0 && v != INT_MIN ? strerrorname_np(-v) : NULL;
	if (name)
		return name;
	snprintf(buf, len, "%d", v);
	return buf;
}

/* "read,write", or the number for unknown bits */
static const char *dev_flags_text(__u32 f, char *buf, size_t len)
{
	size_t i, off = 0;

	if (!f || f & ~RETIRE_DEV_ALL) {
		snprintf(buf, len, "%#x", f);
		return buf;
	}
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(dev_flag_names); i++)
		if (f & (1U << i))
			off += snprintf(buf + off, len - off, "%s%s",
					off ? "," : "", dev_flag_names[i]);
	return buf;
}

/* text: "req slot 3 gen 1" */
static void print_handle(__u64 h)
{
	char buf[16];

	printf("%s slot %u gen %u",
	       NAME_OF(kind_names, RETIRE_HANDLE_KIND(h), "kind", buf),
	       RETIRE_HANDLE_SLOT(h), RETIRE_HANDLE_GEN(h));
}

/* JSON: "<key>":N,"<key>_slot":N,"<key>_generation":N */
static void json_handle(const char *key, __u64 h)
{
	printf("\"%s\":%llu,\"%s_slot\":%u,\"%s_generation\":%u", key,
	       (unsigned long long)h, key, RETIRE_HANDLE_SLOT(h), key,
	       RETIRE_HANDLE_GEN(h));
}

static void print_event_text(const struct retire_history_event *ev)
{
	char buf[32], ebuf[16];
	const char *err;

	printf("%llu.%09llu %-10s ",
	       (unsigned long long)(ev->time_ns / 1000000000ULL),
	       (unsigned long long)(ev->time_ns % 1000000000ULL),
	       NAME_OF(event_names, ev->type, "type", buf));
	print_handle(ev->handle);
	err = errno_text(ev->value, ebuf, sizeof(ebuf));
	switch (ev->type) {
	case RETIRE_EV_SUBMIT:
		printf(" %s len %llu",
		       dev_flags_text((__u32)ev->value, buf, sizeof(buf)),
		       (unsigned long long)ev->aux);
		break;
	case RETIRE_EV_TERMINAL:
		printf(" %s", NAME_OF(outcome_names, ev->aux, "outcome", buf));
		if (err)
			printf(" error %s", err);
		break;
	case RETIRE_EV_CANCEL:
		printf(" result %s", err ? err : "0");
		break;
	case RETIRE_EV_BORROW:
	case RETIRE_EV_HANDOFF:
		printf(" %s ", ev->type == RETIRE_EV_BORROW ? "->" : "new");
		print_handle(ev->aux);
		break;
	case RETIRE_EV_RETURN:
		printf(" <- ");
		print_handle(ev->aux);
		if (err)
			printf(" error %s", err);
		break;
	case RETIRE_EV_STALE:
		printf(" counter %s found gen %llu",
		       NAME_OF(stale_names, (__u32)ev->value, "counter", buf),
		       (unsigned long long)ev->aux);
		break;
	case RETIRE_EV_ACTIVATE:
	case RETIRE_EV_TIMEOUT:
	case RETIRE_EV_RETIRE:
	case RETIRE_EV_QUARANTINE:
	case RETIRE_EV_RESET:
		break;
	default:
		/* a newer module's event: what it carries, raw */
		printf(" value %d aux %#llx", ev->value,
		       (unsigned long long)ev->aux);
		break;
	}
	putchar('\n');
}

static void print_event_json(const struct retire_history_event *ev)
{
	char buf[32], ebuf[16];
	const char *err;
	size_t i, n;

	printf("{\"time_ns\":%llu,\"type\":%u,\"event\":\"%s\",",
	       (unsigned long long)ev->time_ns, ev->type,
	       NAME_OF(event_names, ev->type, "type", buf));
	printf("\"kind\":\"%s\",",
	       NAME_OF(kind_names, RETIRE_HANDLE_KIND(ev->handle), "kind",
		       buf));
	json_handle("handle", ev->handle);
	printf(",\"value\":%d,\"aux\":%llu", ev->value,
	       (unsigned long long)ev->aux);
	err = errno_text(ev->value, ebuf, sizeof(ebuf));
	switch (ev->type) {
	case RETIRE_EV_SUBMIT:
		printf(",\"dev_flags\":[");
		for (i = 0, n = 0; i < 32; i++) {
			if (!((__u32)ev->value & (1U << i)))
				continue;
			if (i < ARRAY_SIZE(dev_flag_names))
				printf("%s\"%s\"", n++ ? "," : "",
				       dev_flag_names[i]);
			else
				printf("%s\"bit%zu\"", n++ ? "," : "", i);
		}
		printf("],\"len\":%llu", (unsigned long long)ev->aux);
		break;
	case RETIRE_EV_TERMINAL:
		printf(",\"outcome\":\"%s\",\"error\":",
		       NAME_OF(outcome_names, ev->aux, "outcome", buf));
		json_string_or_null(err);
		break;
	case RETIRE_EV_CANCEL:
		printf(",\"result\":");
		json_string_or_null(err);
		break;
	case RETIRE_EV_BORROW:
	case RETIRE_EV_HANDOFF:
		putchar(',');
		json_handle("token", ev->aux);
		break;
	case RETIRE_EV_RETURN:
		putchar(',');
		json_handle("token", ev->aux);
		printf(",\"error\":");
		json_string_or_null(err);
		break;
	case RETIRE_EV_STALE:
		printf(",\"counter\":\"%s\",\"expected_generation\":%u,"
		       "\"found_generation\":%llu",
		       NAME_OF(stale_names, (__u32)ev->value, "counter", buf),
		       RETIRE_HANDLE_GEN(ev->handle),
		       (unsigned long long)ev->aux);
		break;
	}
	putchar('}');
}

static void print_history(const struct retire_history_info *info,
			  const struct retire_history_event *ev, int n,
			  int json)
{
	int i;

	if (json) {
		printf("{\"ctx_id\":%llu,\"recorded\":%llu,\"dropped\":%llu,"
		       "\"events\":[", (unsigned long long)info->ctx_id,
		       (unsigned long long)info->recorded,
		       (unsigned long long)info->dropped);
		for (i = 0; i < n; i++) {
			if (i)
				putchar(',');
			print_event_json(&ev[i]);
		}
		printf("]}\n");
		return;
	}
	for (i = 0; i < n; i++)
		print_event_text(&ev[i]);
	printf("recorded %llu, dropped %llu\n",
	       (unsigned long long)info->recorded,
	       (unsigned long long)info->dropped);
}

/* one line of "history" without an id: a context whose history one may read */
struct ctx_history {
	__u64 ctx_id;
	__u32 pid;
	struct ctx_desc desc;
	struct retire_history_info info;
};

static void print_history_list(const struct ctx_history *h, size_t n,
			       int json)
{
	size_t i;

	if (json) {
		printf("{\"contexts\":[");
		for (i = 0; i < n; i++) {
			printf("%s{\"ctx_id\":%llu,\"pid\":%u,\"comm\":",
			       i ? "," : "", (unsigned long long)h[i].ctx_id,
			       h[i].pid);
			json_string_or_null(h[i].desc.comm);
			printf(",\"recorded\":%llu,\"dropped\":%llu}",
			       (unsigned long long)h[i].info.recorded,
			       (unsigned long long)h[i].info.dropped);
		}
		printf("]}\n");
		return;
	}
	printf("%8s %8s %-16s %10s %10s\n", "CTX-ID", "PID", "COMM",
	       "RECORDED", "DROPPED");
	for (i = 0; i < n; i++)
		printf("%8llu %8u %-16s %10llu %10llu\n",
		       (unsigned long long)h[i].ctx_id, h[i].pid,
		       h[i].desc.comm[0] ? h[i].desc.comm : "-",
		       (unsigned long long)h[i].info.recorded,
		       (unsigned long long)h[i].info.dropped);
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
	ret = retire_dump_stats(nl, collect_ctx, &l);
	retire_close_netlink(nl);
	if (ret) {
		ret = lib_fail("retire_dump_stats", ret);
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

/* ---- top --------------------------------------------------------------------- */

/* the sum of a context's (or the module's) five stale counters */
static __u64 stale_total(const struct retire_stats *st)
{
	return st->stale_engine + st->stale_cancel + st->stale_token +
	       st->stale_user + st->stale_published;
}

/*
 * Counters only grow; one that shrank was restarted (the module was
 * reloaded, and ids begin again): it counted from 0 in the interval.
 */
static double per_second(__u64 now, __u64 before, double dt)
{
	return (double)(now >= before ? now - before : now) / dt;
}

struct rates {
	double admitted, retired, stale;
};

/* @before NULL: the context opened in the interval, from all zeros */
static void rates_of(const struct retire_stats *now,
		     const struct retire_stats *before, double dt,
		     struct rates *r)
{
	static const struct retire_stats zero;

	if (!before)
		before = &zero;
	r->admitted = per_second(now->admitted, before->admitted, dt);
	r->retired = per_second(now->retired, before->retired, dt);
	r->stale = per_second(stale_total(now), stale_total(before), dt);
}

/* one read of every counter, and when */
struct top_sample {
	double t;		/* CLOCK_MONOTONIC, seconds */
	struct retire_stats module;
	struct ctx_list ctxs;	/* by id, as the dump gives them */
};

static int top_read(struct retire_nl *nl, struct top_sample *s)
{
	double t0 = now_monotonic();
	int ret;

	s->ctxs.n = 0;
	ret = retire_query_stats(nl, &s->module);
	if (ret)
		return lib_fail("retire_query_stats", ret);
	ret = retire_dump_stats(nl, collect_ctx, &s->ctxs);
	if (ret)
		return lib_fail("retire_dump_stats", ret);
	/* the reads take a moment: they count as made at its middle */
	s->t = (t0 + now_monotonic()) / 2;
	return 0;
}

/* @id's counters in the earlier sample, found walking both in id order */
static const struct retire_stats *top_before(const struct ctx_list *prev,
					     size_t *j, __u64 id)
{
	while (*j < prev->n && prev->v[*j].ctx_id < id)
		(*j)++;
	if (*j < prev->n && prev->v[*j].ctx_id == id)
		return &prev->v[*j].stats;
	return NULL;
}

static void print_rates_json(const struct rates *r)
{
	printf("\"rates\":{\"admitted_per_s\":%.3f,\"retired_per_s\":%.3f,"
	       "\"stale_per_s\":%.3f}", r->admitted, r->retired, r->stale);
}

/* the module's rows: a counter, its rate, a gauge; or without a rate */
#define TOP_RATE_ROW	"  %-10s%12llu %10.1f/s   %-20s%12llu\n"
#define TOP_ROW		"  %-10s%12llu                %-20s%12llu\n"

/*
 * One screen of top: @cur and the rates since @prev. @clear: a terminal,
 * which is cleared first; else screens are separated by a blank line
 * (@first: none before it).
 */
static void print_top(const struct top_sample *prev,
		      const struct top_sample *cur, int json, int clear,
		      int first)
{
	const struct retire_stats *m = &cur->module, *before;
	double dt = cur->t - prev->t;
	struct ctx_desc desc;
	struct rates r;
	size_t i, j = 0;

	rates_of(m, &prev->module, dt, &r);
	if (json) {
		printf("{\"interval_s\":%.6f,\"module\":{\"stats\":", dt);
		print_stats_json(m);
		printf(",\"stale\":%llu,", (unsigned long long)stale_total(m));
		print_rates_json(&r);
		printf("},\"contexts\":[");
		for (i = 0; i < cur->ctxs.n; i++) {
			const struct ctx_stats *c = &cur->ctxs.v[i];

			before = top_before(&prev->ctxs, &j, c->ctx_id);
			rates_of(&c->stats, before, dt, &r);
			ctx_describe(c->ctx_id, c->pid, &desc);
			printf("%s{\"ctx_id\":%llu,\"pid\":%u,\"comm\":",
			       i ? "," : "", (unsigned long long)c->ctx_id,
			       c->pid);
			json_string_or_null(desc.comm);
			printf(",\"engine\":");
			json_string_or_null(desc.engine);
			printf(",\"stats\":");
			print_stats_json(&c->stats);
			printf(",\"stale\":%llu,",
			       (unsigned long long)stale_total(&c->stats));
			print_rates_json(&r);
			putchar('}');
		}
		printf("]}\n");
		return;
	}

	if (clear)
		fputs("\033[H\033[2J", stdout);
	else if (!first)
		putchar('\n');
	printf("module: %llu contexts, interval %.3f s\n",
	       (unsigned long long)m->contexts, dt);
	printf(TOP_RATE_ROW, "admitted", (unsigned long long)m->admitted,
	       r.admitted, "physical_outstanding",
	       (unsigned long long)m->physical_outstanding);
	printf(TOP_RATE_ROW, "retired", (unsigned long long)m->retired,
	       r.retired, "device_outstanding",
	       (unsigned long long)m->device_outstanding);
	printf(TOP_RATE_ROW, "stale", (unsigned long long)stale_total(m),
	       r.stale, "quarantined_now",
	       (unsigned long long)m->quarantined_now);
	printf(TOP_ROW, "completed", (unsigned long long)m->completed,
	       "tokens_out", (unsigned long long)m->tokens_out);
	printf(TOP_ROW, "failed", (unsigned long long)m->failed,
	       "owned_bytes", (unsigned long long)m->owned_bytes);
	printf(TOP_ROW, "cancelled", (unsigned long long)m->cancelled,
	       "buffers", (unsigned long long)m->buffers);
	printf(TOP_ROW, "timed_out", (unsigned long long)m->timed_out,
	       "refused", (unsigned long long)m->refused);
	/* 79 columns: a terminal of 80 does not wrap it */
	printf("%6s %7s %-15s %-6s %5s %4s %10s %10s %8s\n", "CTX-ID", "PID",
	       "COMM", "ENGINE", "UNRET", "QUAR", "ADMITTED/S", "RETIRED/S",
	       "STALE/S");
	for (i = 0; i < cur->ctxs.n; i++) {
		const struct ctx_stats *c = &cur->ctxs.v[i];

		before = top_before(&prev->ctxs, &j, c->ctx_id);
		rates_of(&c->stats, before, dt, &r);
		ctx_describe(c->ctx_id, c->pid, &desc);
		printf("%6llu %7u %-15.15s %-6.6s %5llu %4llu %10.1f %10.1f %8.1f\n",
		       (unsigned long long)c->ctx_id, c->pid,
		       desc.comm[0] ? desc.comm : "-",
		       desc.engine[0] ? desc.engine : "-",
		       (unsigned long long)c->stats.physical_outstanding,
		       (unsigned long long)c->stats.quarantined_now,
		       r.admitted, r.retired, r.stale);
	}
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
