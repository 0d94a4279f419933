// SPDX-License-Identifier: MIT
/*
 * What retirectl prints: each command's output, as text or as one JSON
 * document (built and written by json-c), from values already read; and
 * the names of what it prints. Nothing here calls the library, so a test
 * can feed these printers values no module would give.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <linux/retire_names.h>

#include "print.h"
#include "retirectl.h"

#define BIT_NAME(NAME, name)	#name,
static const char *const feature_names[] = {
	RETIRE_FEATURE_NAMES(BIT_NAME, BIT_NAME)
};

_Static_assert((1ULL << ARRAY_SIZE(feature_names)) - 1 == RETIRE_FEAT_ALL,
	       "every feature bit has a name");

/* RETIRE_SIM_F_* by bit, as "engine flags=" takes and prints them */
const char *const sim_flag_names[] = {
	RETIRE_SIM_FLAG_NAMES(BIT_NAME, BIT_NAME)
};
#undef BIT_NAME

const size_t nr_sim_flag_names = ARRAY_SIZE(sim_flag_names);

_Static_assert((1U << ARRAY_SIZE(sim_flag_names)) - 1 == RETIRE_SIM_F_ALL,
	       "every sim engine flag has a name");

#define FIELD(type, name)						\
	{ #name, offsetof(type, name), sizeof(((type *)0)->name) }

const struct field limit_fields[] = {
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

const size_t nr_limit_fields = ARRAY_SIZE(limit_fields);

_Static_assert(offsetof(struct retire_limits, watchdog_ns) + sizeof(__u64) ==
	       sizeof(struct retire_limits),
	       "every field of struct retire_limits has a name");

/* flags first: it is printed and parsed apart */
const struct field engine_fields[] = {
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

const size_t nr_engine_fields = ARRAY_SIZE(engine_fields);

_Static_assert(ARRAY_SIZE(engine_fields) ==
	       RETIRE_A_ENGINE_MAX - RETIRE_A_ENGINE_FLAGS + 1,
	       "every attribute of the engine attribute set has a name");

/* the counters of the stats attribute set, by their struct field names */
#define STAT(NAME, name)	FIELD(struct retire_stats, name),
const struct field stat_fields[] = {
	RETIRE_STAT_NAMES(STAT, STAT)
};
#undef STAT

const size_t nr_stat_fields = ARRAY_SIZE(stat_fields);

#define NSTATS	ARRAY_SIZE(stat_fields)

_Static_assert(NSTATS == RETIRE_A_STATS_DEVICE_OUTSTANDING -
			 RETIRE_A_STATS_ADMITTED + 1,
	       "every counter of the stats attribute set has a name");

#define HEALTH_NAME(NAME, name)	[RETIRE_HEALTH_EVENT_##NAME] = #name,
static const char *const health_names[] = {
	RETIRE_HEALTH_NAMES(HEALTH_NAME, HEALTH_NAME)
};
#undef HEALTH_NAME
int lib_fail(const char *fn, int ret)
{
	int err = ret < 0 ? -ret : EIO;
	const char *name = strerrorname_np(err);

	fprintf(stderr, "retirectl: %s: %s (%s)\n", fn, strerror(err),
		name ? name : "?");
	return RETIRECTL_EXIT_FAIL;
}

__u64 field_get(const void *base, const struct field *f)
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

void field_set(void *base, const struct field *f, __u64 v)
{
	__u32 v32 = (__u32)v;

	if (f->size == sizeof(v32))
		memcpy((char *)base + f->offset, &v32, sizeof(v32));
	else
		memcpy((char *)base + f->offset, &v, sizeof(v));
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
 * @s with what is not well-formed UTF-8 (a path or a command name may hold
 * any byte) replaced by U+FFFD, as JSON text must be UTF-8: json-c escapes
 * a string but writes its bytes as they are. Returns a new string.
 */
static char *utf8_repair(const char *s)
{
	static const char replacement[] = "\xef\xbf\xbd";
	const unsigned char *p = (const unsigned char *)s;
	char *out, *q;
	size_t n;
	int ok;

	/* at worst every byte becomes a U+FFFD of three */
	out = malloc(3 * strlen(s) + 1);
	if (!out)
		return NULL;
	for (q = out; *p; p += n) {
		n = utf8_seq(p, &ok);
		if (ok) {
			memcpy(q, p, n);
			q += n;
		} else {
			memcpy(q, replacement, 3);
			q += 3;
		}
	}
	*q = '\0';
	return out;
}

/* json-c could not allocate: there is nothing right left to print */
static void json_oom(void)
{
	lib_fail("json-c", -ENOMEM);
	exit(RETIRECTL_EXIT_FAIL);
}

static struct json_object *jcheck(struct json_object *o)
{
	if (!o)
		json_oom();
	return o;
}

/* @v may be NULL: JSON's null */
static void jadd(struct json_object *obj, const char *key,
		 struct json_object *v)
{
	if (json_object_object_add(obj, key, v))
		json_oom();
}

static struct json_object *jobject(void)
{
	return jcheck(json_object_new_object());
}

static struct json_object *jarray(void)
{
	return jcheck(json_object_new_array());
}

static void jadd_u64(struct json_object *obj, const char *key, __u64 v)
{
	jadd(obj, key, jcheck(json_object_new_uint64(v)));
}

static void jadd_int(struct json_object *obj, const char *key, __s64 v)
{
	jadd(obj, key, jcheck(json_object_new_int64(v)));
}

/* a number printed as @fmt gives it ("%.3f") */
static void jadd_double(struct json_object *obj, const char *key,
			const char *fmt, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	jadd(obj, key, jcheck(json_object_new_double_s(v, buf)));
}

static void jappend(struct json_object *arr, struct json_object *v)
{
	if (json_object_array_add(arr, v))
		json_oom();
}

static struct json_object *jstring(const char *s)
{
	struct json_object *o;
	char *utf8;

	utf8 = utf8_repair(s);
	if (!utf8)
		json_oom();
	o = jcheck(json_object_new_string(utf8));
	free(utf8);
	return o;
}

/* "STR", or null for NULL or "" */
static void jadd_string(struct json_object *obj, const char *key,
			const char *s)
{
	jadd(obj, key, s && *s ? jstring(s) : NULL);
}

/* @o on stdout, compact, then @end ("\n" or ""); @o is put */
static void jprint(struct json_object *o, const char *end)
{
	const char *text;

	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		json_oom();
	fputs(text, stdout);
	fputs(end, stdout);
	json_object_put(o);
}

void json_string(const char *s)
{
	jprint(jstring(s), "");
}

/* {"name":value,...} of @fields in @base */
static struct json_object *jfields(const void *base,
				   const struct field *fields, size_t nr)
{
	struct json_object *o = jobject();
	size_t i;

	for (i = 0; i < nr; i++)
		jadd_u64(o, fields[i].name, field_get(base, &fields[i]));
	return o;
}

/* ["name",...] of the set bits of @bits; unknown bits as "bitN" */
static struct json_object *jbit_names(__u64 bits, const char *const *names,
				      size_t nr)
{
	struct json_object *a = jarray();
	char buf[16];
	unsigned int i;

	for (i = 0; i < 64; i++) {
		if (!(bits & (1ULL << i)))
			continue;
		snprintf(buf, sizeof(buf), "bit%u", i);
		jappend(a, jstring(i < nr ? names[i] : buf));
	}
	return a;
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

void print_info(const char *path, const struct retire_info *info,
		int dev_err, int family, const struct retire_info *nlinfo,
		int json)
{
	/* without the device, netlink says what the module is */
	const struct retire_info *mod = info ? info : nlinfo;
	struct json_object *o, *nl;
	size_t i;

	if (json) {
		o = jobject();
		nl = jobject();
		jadd(o, "device", jstring(path));
		if (!info)
			jadd(o, "device_error", jstring(strerror(-dev_err)));
		jadd_u64(o, "abi_version", mod->abi_version);
		jadd_u64(o, "features", mod->features);
		jadd(o, "feature_names",
		     jbit_names(mod->features, feature_names,
				ARRAY_SIZE(feature_names)));
		if (info)
			jadd(o, "caps", jfields(&info->caps, limit_fields,
						ARRAY_SIZE(limit_fields)));
		jadd_int(nl, "family_id", family);
		jadd_u64(nl, "abi_version", nlinfo->abi_version);
		jadd_u64(nl, "features", nlinfo->features);
		jadd(o, "netlink", nl);
		jprint(o, "\n");
		return;
	}
	if (info)
		printf("device              %s\n", path);
	else
		printf("device              %s: %s (a member of its group may open it)\n",
		       path, strerror(-dev_err));
	printf("abi version         %u\n", mod->abi_version);
	printf("features            ");
	print_bit_names(mod->features, feature_names,
			ARRAY_SIZE(feature_names));
	if (info) {
		printf("caps per context\n");
		for (i = 0; i < ARRAY_SIZE(limit_fields); i++)
			printf("  %-20s%llu\n", limit_fields[i].name,
			       (unsigned long long)field_get(&info->caps,
							     &limit_fields[i]));
	} else {
		printf("caps per context    only the device says\n");
	}
	printf("netlink family      retire, id %d\n", family);
	printf("netlink abi/features %u ", nlinfo->abi_version);
	print_bit_names(nlinfo->features, feature_names,
			ARRAY_SIZE(feature_names));
}

static void print_stats_text(const struct retire_stats *st)
{
	size_t i;

	for (i = 0; i < NSTATS; i++)
		printf("  %-22s%llu\n", stat_fields[i].name,
		       (unsigned long long)field_get(st, &stat_fields[i]));
}

static struct json_object *jstats(const struct retire_stats *st)
{
	return jfields(st, stat_fields, NSTATS);
}

void print_stats(const struct retire_stats *module, const struct ctx_list *l,
		 int json)
{
	struct json_object *o, *ctxs, *c;
	size_t i;

	if (json) {
		o = jobject();
		ctxs = jarray();
		jadd(o, "module", jstats(module));
		for (i = 0; i < l->n; i++) {
			c = jobject();
			jadd_u64(c, "ctx_id", l->v[i].ctx_id);
			jadd_u64(c, "pid", l->v[i].pid);
			jadd(c, "stats", jstats(&l->v[i].stats));
			jappend(ctxs, c);
		}
		jadd(o, "contexts", ctxs);
		jprint(o, "\n");
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

void print_limits(const struct retire_limits *caps,
		  const struct retire_limits *limits, int set, int json)
{
	struct json_object *o;
	size_t i;

	if (json) {
		o = jobject();
		jadd(o, "caps", jfields(caps, limit_fields,
					ARRAY_SIZE(limit_fields)));
		jadd(o, "limits", jfields(limits, limit_fields,
					  ARRAY_SIZE(limit_fields)));
		jprint(o, "\n");
		return;
	}
	printf("%-22s%-22s%s\n", "", "cap", set ? "accepted" : "default");
	for (i = 0; i < ARRAY_SIZE(limit_fields); i++)
		printf("%-22s%-22llu%llu\n", limit_fields[i].name,
		       (unsigned long long)field_get(caps, &limit_fields[i]),
		       (unsigned long long)field_get(limits,
						     &limit_fields[i]));
}

void print_engine(const struct retire_sim_config *cfg, int json)
{
	struct json_object *o;
	size_t i;

	if (json) {
		o = jobject();
		jadd_u64(o, "flags", cfg->flags);
		jadd(o, "flag_names",
		     jbit_names(cfg->flags, sim_flag_names,
				ARRAY_SIZE(sim_flag_names)));
		for (i = 1; i < ARRAY_SIZE(engine_fields); i++)
			jadd_u64(o, engine_fields[i].name,
				 field_get(cfg, &engine_fields[i]));
		jprint(o, "\n");
		return;
	}
	printf("%-20s", "flags");
	print_bit_names(cfg->flags, sim_flag_names,
			ARRAY_SIZE(sim_flag_names));
	for (i = 1; i < ARRAY_SIZE(engine_fields); i++)
		printf("%-20s%llu\n", engine_fields[i].name,
		       (unsigned long long)field_get(cfg, &engine_fields[i]));
}

void print_engine_reset(int json)
{
	struct json_object *o;

	if (!json) {
		printf("engine reset\n");
		return;
	}
	o = jobject();
	jadd(o, "reset", jcheck(json_object_new_boolean(1)));
	jprint(o, "\n");
}

static const char *health_name(__u32 event, char *buf, size_t len)
{
	if (event < ARRAY_SIZE(health_names) && health_names[event])
		return health_names[event];
	snprintf(buf, len, "%u", event);
	return buf;
}

static void print_event_json(const struct retire_event *ev)
{
	struct json_object *o = jobject();
	char buf[16];

	if (ev->type == RETIRE_CMD_STALE_NTF) {
		jadd(o, "type", jstring("stale"));
		jadd_u64(o, "ctx_id", ev->ctx_id);
		jadd_u64(o, "pid", ev->pid);
#define STALE_JSON(NAME, name)	jadd_u64(o, #name, ev->stale_##name);
		RETIRE_STALE_NAMES(STALE_JSON, STALE_JSON)
#undef STALE_JSON
	} else {
		jadd(o, "type", jstring("health"));
		jadd(o, "event", jstring(health_name(ev->health_event, buf,
						     sizeof(buf))));
		jadd_u64(o, "ctx_id", ev->ctx_id);
		jadd_u64(o, "pid", ev->pid);
		jadd_u64(o, "quarantined_now", ev->quarantined_now);
	}
	jprint(o, "");
}

void print_event(const struct retire_event *ev, int json)
{
	char buf[16];

	if (ev->type != RETIRE_CMD_STALE_NTF &&
	    ev->type != RETIRE_CMD_HEALTH_NTF)
		return;
	if (json) {
		print_event_json(ev);
		return;
	}
	if (ev->type == RETIRE_CMD_STALE_NTF)
		printf("stale ctx %llu pid %u engine %llu cancel %llu token %llu user %llu published %llu",
		       (unsigned long long)ev->ctx_id, ev->pid,
		       (unsigned long long)ev->stale_engine,
		       (unsigned long long)ev->stale_cancel,
		       (unsigned long long)ev->stale_token,
		       (unsigned long long)ev->stale_user,
		       (unsigned long long)ev->stale_published);
	else
		printf("health %s ctx %llu pid %u quarantined_now %llu",
		       health_name(ev->health_event, buf, sizeof(buf)),
		       (unsigned long long)ev->ctx_id, ev->pid,
		       (unsigned long long)ev->quarantined_now);
}

/* ---- what a context is: comm and engine ---------------------------------- */

/* where debugfs shows each context (root only; optional) */
#define DEBUGFS_CTX	"/sys/kernel/debug/retire/%llu/context"

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

void ctx_describe(__u64 ctx_id, __u32 pid, struct ctx_desc *d)
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

/* ---- history --------------------------------------------------------------- */

#define EVENT_NAME(NAME, name)		[RETIRE_EV_##NAME] = #name,
#define OUTCOME_NAME(NAME, name)	[RETIRE_OUTCOME_##NAME] = #name,
#define STALE_NAME(NAME, name)		[RETIRE_STALE_##NAME] = #name,
#define KIND_NAME(NAME, name)		[RETIRE_KIND_##NAME] = #name,
static const char *const event_names[] = {
	RETIRE_EVENT_NAMES(EVENT_NAME, EVENT_NAME)
};
static const char *const outcome_names[] = {
	RETIRE_OUTCOME_NAMES(OUTCOME_NAME, OUTCOME_NAME)
};
/* the stale counter a RETIRE_EV_STALE event moved, as stats names it */
static const char *const stale_names[] = {
	RETIRE_STALE_NAMES(STALE_NAME, STALE_NAME)
};
static const char *const kind_names[] = {
	RETIRE_KIND_NAMES(KIND_NAME, KIND_NAME)
};
#undef EVENT_NAME
#undef OUTCOME_NAME
#undef STALE_NAME
#undef KIND_NAME

_Static_assert(ARRAY_SIZE(event_names) == RETIRE_EV_REVOKE + 1,
	       "every history event has a name");

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
static void jadd_handle(struct json_object *o, const char *key, __u64 h)
{
	char name[32];

	jadd_u64(o, key, h);
	snprintf(name, sizeof(name), "%s_slot", key);
	jadd_u64(o, name, RETIRE_HANDLE_SLOT(h));
	snprintf(name, sizeof(name), "%s_generation", key);
	jadd_u64(o, name, RETIRE_HANDLE_GEN(h));
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
	case RETIRE_EV_FENCE:
	case RETIRE_EV_GATE:
		printf(" %s", err ? err : "signalled");
		break;
	case RETIRE_EV_EXPORT:
		printf(" len %llu exports %d", (unsigned long long)ev->aux,
		       ev->value);
		break;
	case RETIRE_EV_IMPORT:
		printf(" len %llu", (unsigned long long)ev->aux);
		break;
	case RETIRE_EV_REVOKE:
		printf(" len %llu importers %d", (unsigned long long)ev->aux,
		       ev->value);
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

static struct json_object *jhistory_event(const struct retire_history_event *ev)
{
	struct json_object *o = jobject();
	char buf[32], ebuf[16];
	const char *err;

	jadd_u64(o, "time_ns", ev->time_ns);
	jadd_u64(o, "type", ev->type);
	jadd(o, "event", jstring(NAME_OF(event_names, ev->type, "type", buf)));
	jadd(o, "kind", jstring(NAME_OF(kind_names,
					RETIRE_HANDLE_KIND(ev->handle),
					"kind", buf)));
	jadd_handle(o, "handle", ev->handle);
	jadd_int(o, "value", ev->value);
	jadd_u64(o, "aux", ev->aux);
	err = errno_text(ev->value, ebuf, sizeof(ebuf));
	switch (ev->type) {
	case RETIRE_EV_SUBMIT:
		jadd(o, "dev_flags", jbit_names((__u32)ev->value, dev_flag_names,
						ARRAY_SIZE(dev_flag_names)));
		jadd_u64(o, "len", ev->aux);
		break;
	case RETIRE_EV_TERMINAL:
		jadd(o, "outcome", jstring(NAME_OF(outcome_names, ev->aux,
						   "outcome", buf)));
		jadd_string(o, "error", err);
		break;
	case RETIRE_EV_CANCEL:
		jadd_string(o, "result", err);
		break;
	case RETIRE_EV_BORROW:
	case RETIRE_EV_HANDOFF:
		jadd_handle(o, "token", ev->aux);
		break;
	case RETIRE_EV_RETURN:
		jadd_handle(o, "token", ev->aux);
		jadd_string(o, "error", err);
		break;
	case RETIRE_EV_FENCE:
	case RETIRE_EV_GATE:
		jadd_string(o, "error", err);
		break;
	case RETIRE_EV_EXPORT:
		jadd_u64(o, "len", ev->aux);
		jadd_int(o, "exports", ev->value);
		break;
	case RETIRE_EV_IMPORT:
		jadd_u64(o, "len", ev->aux);
		break;
	case RETIRE_EV_REVOKE:
		jadd_u64(o, "len", ev->aux);
		jadd_int(o, "importers", ev->value);
		break;
	case RETIRE_EV_STALE:
		jadd(o, "counter", jstring(NAME_OF(stale_names,
						   (__u32)ev->value, "counter",
						   buf)));
		jadd_u64(o, "expected_generation",
			 RETIRE_HANDLE_GEN(ev->handle));
		jadd_u64(o, "found_generation", ev->aux);
		break;
	}
	return o;
}

void print_history(const struct retire_history_info *info,
		   const struct retire_history_event *ev, int n, int json)
{
	struct json_object *o, *evs;
	int i;

	if (json) {
		o = jobject();
		evs = jarray();
		jadd_u64(o, "ctx_id", info->ctx_id);
		jadd_u64(o, "recorded", info->recorded);
		jadd_u64(o, "dropped", info->dropped);
		for (i = 0; i < n; i++)
			jappend(evs, jhistory_event(&ev[i]));
		jadd(o, "events", evs);
		jprint(o, "\n");
		return;
	}
	for (i = 0; i < n; i++)
		print_event_text(&ev[i]);
	printf("recorded %llu, dropped %llu\n",
	       (unsigned long long)info->recorded,
	       (unsigned long long)info->dropped);
}

void print_history_list(const struct ctx_history *h, size_t n, int json)
{
	struct json_object *o, *ctxs, *c;
	size_t i;

	if (json) {
		o = jobject();
		ctxs = jarray();
		for (i = 0; i < n; i++) {
			c = jobject();
			jadd_u64(c, "ctx_id", h[i].ctx_id);
			jadd_u64(c, "pid", h[i].pid);
			jadd_string(c, "comm", h[i].desc.comm);
			jadd_u64(c, "recorded", h[i].info.recorded);
			jadd_u64(c, "dropped", h[i].info.dropped);
			jappend(ctxs, c);
		}
		jadd(o, "contexts", ctxs);
		jprint(o, "\n");
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

static struct json_object *jrates(const struct rates *r)
{
	struct json_object *o = jobject();

	jadd_double(o, "admitted_per_s", "%.3f", r->admitted);
	jadd_double(o, "retired_per_s", "%.3f", r->retired);
	jadd_double(o, "stale_per_s", "%.3f", r->stale);
	return o;
}

/* @o with "stats", the "stale" total and the "rates" of @st */
static struct json_object *jtop_counters(struct json_object *o,
					 const struct retire_stats *st,
					 const struct rates *r)
{
	jadd(o, "stats", jstats(st));
	jadd_u64(o, "stale", stale_total(st));
	jadd(o, "rates", jrates(r));
	return o;
}

/* the module's rows: a counter, its rate, a gauge; or without a rate */
#define TOP_RATE_ROW	"  %-10s%12llu %10.1f/s   %-20s%12llu\n"
#define TOP_ROW		"  %-10s%12llu                %-20s%12llu\n"

void print_top(const struct top_sample *prev, const struct top_sample *cur,
	       int json, int clear, int first)
{
	const struct retire_stats *m = &cur->module, *before;
	struct json_object *o, *ctxs, *co;
	double dt = cur->t - prev->t;
	struct ctx_desc desc;
	struct rates r;
	size_t i, j = 0;

	rates_of(m, &prev->module, dt, &r);
	if (json) {
		o = jobject();
		ctxs = jarray();
		jadd_double(o, "interval_s", "%.6f", dt);
		jadd(o, "module", jtop_counters(jobject(), m, &r));
		for (i = 0; i < cur->ctxs.n; i++) {
			const struct ctx_stats *c = &cur->ctxs.v[i];

			before = top_before(&prev->ctxs, &j, c->ctx_id);
			rates_of(&c->stats, before, dt, &r);
			ctx_describe(c->ctx_id, c->pid, &desc);
			co = jobject();
			jadd_u64(co, "ctx_id", c->ctx_id);
			jadd_u64(co, "pid", c->pid);
			jadd_string(co, "comm", desc.comm);
			jadd_string(co, "engine", desc.engine);
			jappend(ctxs, jtop_counters(co, &c->stats, &r));
		}
		jadd(o, "contexts", ctxs);
		jprint(o, "\n");
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
