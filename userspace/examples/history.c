// SPDX-License-Identifier: MIT
/*
 * history: what a context remembers, printed by name.
 *
 * Every context keeps its last RETIRE_HISTORY_LEN events: each request's
 * submit, activate, terminal, borrow, return and retire, and every stale
 * handle it was given, with the generation its slot had by then. This
 * program gives its own context one request's whole life, names the
 * retired request and its returned token once more (both refused as
 * stale), and reads its history back. The names come from the X-macros of
 * <linux/retire_names.h>, which spell each value once, as the module,
 * retirectl and the selftests do: a program builds its tables from them
 * instead of writing its own. (retirectl history ID prints any context's.)
 *
 * Exit: 0 success, 1 failure (with a message), 4 skipped.
 */
#include <errno.h>
#include <stdio.h>

#include <linux/retire_names.h>

#include "example.h"

#define PAGE		4096
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* one table per vocabulary, indexed by value, as retirectl builds them */
#define EVENT_NAME(NAME, name)					\
	[RETIRE_EV_##NAME] = #name,
#define OUTCOME_NAME(NAME, name)				\
	[RETIRE_OUTCOME_##NAME] = #name,
#define STALE_NAME(NAME, name)					\
	[RETIRE_STALE_##NAME] = #name,
#define KIND_NAME(NAME, name)					\
	[RETIRE_KIND_##NAME] = #name,

static const char *const event_names[] = {
	RETIRE_EVENT_NAMES(EVENT_NAME, EVENT_NAME)
};

static const char *const outcome_names[] = {
	RETIRE_OUTCOME_NAMES(OUTCOME_NAME, OUTCOME_NAME)
};

static const char *const stale_names[] = {
	RETIRE_STALE_NAMES(STALE_NAME, STALE_NAME)
};

static const char *const kind_names[] = {
	RETIRE_KIND_NAMES(KIND_NAME, KIND_NAME)
};

/* a value's name: "?" for one a newer module has and this header lacks */
static const char *name_of(const char *const *names, size_t nr, __u64 v)
{
	return v < nr && names[v] ? names[v] : "?";
}

#define NAME(names, v)	name_of(names, ARRAY_SIZE(names), v)

/* what this program does, in the order the history must show it */
static const __u32 expected[] = {
	RETIRE_EV_SUBMIT, RETIRE_EV_ACTIVATE, RETIRE_EV_TERMINAL,
	RETIRE_EV_BORROW, RETIRE_EV_RETURN, RETIRE_EV_RETIRE,
	RETIRE_EV_STALE, RETIRE_EV_STALE,
};

/* one request's life; then its handles, named again, are stale */
static int make_history(struct retire *r, __u64 buf)
{
	struct retire_cqe cqe;
	__u64 req, tok;
	int ret;

	if (example_run_one(r, buf, PAGE, RETIRE_DEV_WRITE, 1, &req, &cqe))
		return 1;
	ret = retire_borrow_token(r, req, &tok);
	if (ret)
		return example_fail("borrow", ret);
	ret = retire_return_token(r, tok, 0);
	if (ret)
		return example_fail("return", ret);
	ret = retire_release_request(r, req);
	if (ret)
		return example_fail("retire", ret);
	if (example_expect(r, req, RETIRE_REC_RETIRED, &cqe))
		return 1;

	ret = retire_cancel_request(r, req);
	if (ret != -ENOENT)
		return example_fail("cancel after RETIRED, expected ENOENT, got",
				    ret);
	ret = retire_return_token(r, tok, 0);
	if (ret != -ENOENT)
		return example_fail("second return, expected ENOENT, got", ret);
	return 0;
}

/* "req slot 0 gen 1" */
static void print_handle(__u64 h)
{
	printf("%s slot %u gen %u", NAME(kind_names, RETIRE_HANDLE_KIND(h)),
	       RETIRE_HANDLE_SLOT(h), RETIRE_HANDLE_GEN(h));
}

/* one event a line, @t0 the first one's time: what @aux and @value mean */
static void print_event(const struct retire_history_event *ev, __u64 t0)
{
	printf("%8.3f ms %-9s ", (ev->time_ns - t0) / 1e6,
	       NAME(event_names, ev->type));
	print_handle(ev->handle);
	switch (ev->type) {
	case RETIRE_EV_SUBMIT:
		printf(" len %llu", (unsigned long long)ev->aux);
		break;
	case RETIRE_EV_TERMINAL:
		printf(" %s", NAME(outcome_names, ev->aux));
		break;
	case RETIRE_EV_BORROW:
		printf(" -> ");
		print_handle(ev->aux);
		break;
	case RETIRE_EV_RETURN:
		printf(" <- ");
		print_handle(ev->aux);
		break;
	case RETIRE_EV_STALE:
		printf(" counter %s, found gen %llu",
		       NAME(stale_names, ev->value),
		       (unsigned long long)ev->aux);
		break;
	}
	printf("\n");
}

static int show_history(struct retire *r, __u64 buf)
{
	static struct retire_history_event ev[RETIRE_HISTORY_LEN];
	struct retire_history_info info;
	__u64 id;
	int ret, n, i;

	ret = retire_get_context_id(r, &id);
	if (ret == -EOPNOTSUPP) {
		fprintf(stderr, "history: SKIP: the module does not give a context's id\n");
		return EXAMPLE_SKIP;
	}
	if (ret)
		return example_fail("retire_get_context_id", ret);
	if (make_history(r, buf))
		return 1;

	n = retire_read_history(r, 0, ev, RETIRE_HISTORY_LEN, &info);
	if (n < 0)
		return example_fail("retire_read_history", n);
	printf("context %llu: %d events, oldest first\n",
	       (unsigned long long)id, n);
	for (i = 0; i < n; i++)
		print_event(&ev[i], ev[0].time_ns);

	/* ctx 0 read this context: the same id */
	if (info.ctx_id != id)
		return example_fail("retire_read_history: another context",
				    -EPROTO);
	if ((size_t)n != ARRAY_SIZE(expected)) {
		fprintf(stderr, "history: %d events, expected %zu\n", n,
			ARRAY_SIZE(expected));
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (ev[i].type != expected[i]) {
			fprintf(stderr, "history: event %d is %s, expected %s\n",
				i, NAME(event_names, ev[i].type),
				NAME(event_names, expected[i]));
			return 1;
		}
	}
	return 0;
}

int main(void)
{
	struct retire *r;
	__u64 buf;
	int ret;

	ret = example_open("history", &r);
	if (ret)
		return ret;
	ret = example_require(r, RETIRE_FEAT_HISTORY, "history");
	if (ret)
		goto out_close;
	ret = retire_alloc_buffer(r, PAGE, &buf, NULL);
	if (ret) {
		ret = example_fail("retire_alloc_buffer", ret);
		goto out_close;
	}
	ret = show_history(r, buf);
	if (retire_unregister_buffer(r, buf) && !ret)
		ret = example_fail("retire_unregister_buffer", -EPROTO);
out_close:
	retire_close_device(r);
	if (!ret)
		printf("history: ok\n");
	return ret;
}
